"""The model audit's measuring (issue 8; paper 004 §5): every attack outcome through the shared
metric layer with its per-class breakdown, the every-record rankings of a supervised
predictions file, and the members the strongest attack is surest about. Moved out of the
audit's run (issue 33 item 2).
"""

from __future__ import annotations

import numpy as np

from engine.attacks.model import metric
from engine.attacks.model.base import evaluate
from engine.auditing import evaluate_attack
from engine.games.model import LOSS_ONLY_ATTACKS, ModelGameSettings, Outputs
from engine.metrics import delong_auc_ci
from engine.runtime import CancelToken


def per_class_breakdown(outcome, member: np.ndarray, labels: np.ndarray, class_labels,
                        confidence: float) -> list[dict]:
    """One attack, class by class (issue 8, "per-class breakdown"): its AUC with the DeLong
    interval and its own decisions' TPR and FPR among the class's members and non-members.
    Classes with no member or no non-member among the evaluated records are left out. Paper
    004 §5 reports attacks per class because a class the model fits worse leaks more."""
    rows = []
    for k in np.unique(labels):
        mask = labels == k
        pos, neg = int(np.sum(member[mask])), int(np.sum(~member[mask]))
        if not pos or not neg:
            continue
        auc, ci = delong_auc_ci(outcome.scores[mask], member[mask], confidence)
        d = outcome.decisions[mask]
        rows.append({"class": str(class_labels[int(k)]) if int(k) < len(class_labels)
                     else str(int(k)),
                     "n_members": pos, "n_non_members": neg, "auc": auc, "auc_ci": list(ci),
                     "tpr": float(np.sum(d & member[mask]) / pos),
                     "fpr": float(np.sum(d & ~member[mask]) / neg)})
    return rows


def ranking_metrics(attacks, *, loss_only: bool = False) -> tuple[str, ...]:
    """The metrics whose every-record ranking a supervised predictions run adds: those of
    metric.RANKING_METRICS named in ``attacks``, in that order (issue 31 item 5: run what was
    asked); a loss-only file ranks by confidence alone (LOSS_ONLY_ATTACKS)."""
    wanted = set(attacks)
    allowed = LOSS_ONLY_ATTACKS if loss_only else metric.RANKING_METRICS
    return tuple(m for m in metric.RANKING_METRICS if m in wanted and m in allowed)


def exposed_members(config: ModelGameSettings, out: Outputs, outcome, evaluated: np.ndarray) -> list:
    """The members the strongest attack is surest about: row numbers (and labels if asked)."""
    member = np.asarray(out.target.member)
    idx = np.flatnonzero(member & evaluated)
    order = idx[np.argsort(-outcome.scores[idx], kind="stable")][:config.exposed_count]
    rows = []
    for rank, i in enumerate(order, start=1):
        entry = {"rank": rank, "row": int(out.rows[i]), "score": float(outcome.scores[i]),
                 "attack": outcome.name}
        if config.list_exposed_records:
            entry["label"] = str(out.class_labels[int(out.target.labels[i])])
        rows.append(entry)
    return rows


def measure(config: ModelGameSettings, out: Outputs, outcomes, *, cancel: CancelToken
            ) -> tuple[list[dict], dict]:
    """(attack entries, {name: outcome} of the every-record rankings) for the audited model's
    outcomes, measured on the records the attacker did not know."""
    member = np.asarray(out.target.member)
    evaluated = out.evaluate_mask if out.evaluate_mask is not None else np.ones_like(member)
    attacks = []
    labels = np.asarray(out.target.labels)[evaluated.astype(bool)]
    for o in outcomes:
        if out.evaluate_mask is not None:
            o.scores, o.decisions = o.scores[evaluated], o.decisions[evaluated]
        entry = evaluate(o, member[evaluated], delta=0.0, confidence=config.confidence,
                         fpr_targets=config.fpr_targets)
        entry["per_class"] = per_class_breakdown(o, member[evaluated].astype(bool), labels,
                                                 out.class_labels, config.confidence)
        attacks.append(entry)
    ranked = {}
    if out.evaluate_mask is not None:
        # Supervised intake: the metrics also rank every record, threshold-free (issue 22
        # item 2), so the rates at small false-positive rates have all the records' support.
        # Only the metrics the officer asked for (issue 31 item 5): "confidence" in `attacks`
        # brings its held-out attack and its every-record ranking, and a metric not asked for
        # adds neither — so neither can become the headline.
        metrics = ranking_metrics(config.attacks, loss_only=out.loss_only)
        for o in metric.ranking_outcomes(out.target, metrics):
            cancel.check()
            entry = evaluate_attack(o.name, o.label, o.scores, member, delta=0.0,
                                    confidence=config.confidence,
                                    fpr_targets=config.fpr_targets, details=o.details,
                                    cancel=cancel)
            entry["per_class"] = []
            attacks.append(entry)
            ranked[o.name] = o
    return attacks, ranked


def exposed_of(config: ModelGameSettings, out: Outputs, strongest: dict | None, outcomes,
               ranked: dict) -> list:
    """The members the strongest attack (the headline's) is surest about; [] without one."""
    member = np.asarray(out.target.member)
    evaluated = out.evaluate_mask if out.evaluate_mask is not None else np.ones_like(member)
    exposed = []
    if strongest is not None:
        if strongest["name"] in ranked:      # scored every record
            exposed = exposed_members(config, out, ranked[strongest["name"]],
                                      np.ones(member.size, dtype=bool))
        else:
            best_outcome = next(o for o in outcomes if o.name == strongest["name"])
            full_scores = np.zeros(member.size)
            full_scores[np.flatnonzero(evaluated)] = best_outcome.scores
            best_outcome.scores = full_scores
            exposed = exposed_members(config, out, best_outcome, evaluated.astype(bool))
    return exposed
