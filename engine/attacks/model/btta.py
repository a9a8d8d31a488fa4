"""Bayesian Take-the-Typical Attack (paper 001, Alg. 1, Lemmas 1–3, Thm 1–2, §Metrics).

The attacker knows the model's training accuracy p0 = P(M(x) = y | member), its test accuracy
p1 = P(M(x) = y | non-member) — p0 is the *train* accuracy, p1 the *test* accuracy (paper 001
§BTTA) — and the prior q = P(member). For each record it sees only whether the model labels it
correctly and reports the more probable membership (Lemma 1, Bayes' rule):

    correct:  member iff q·p0 ≥ (1 − q)·p1
    wrong:    member iff q·(1 − p0) ≥ (1 − q)·(1 − p1)

Cases (paper 001 §Metrics): 1 = always member (the two inequalities hold), 2 = never member
(neither holds), 3 = member iff correct. Case 4 (member iff wrong) needs p1 > p0 (Lemma 2); it
is outside the paper's assumption p0 ≥ p1 but can occur with estimated parameters, so it is
handled by the same Bayes rule and flagged.

Thm 1/Thm 2: no attack that knows only (p0, p1, q) and the correctness of each record beats
BTTA's expected accuracy max{q, 1 − q, q·p0 + (1 − q)(1 − p1)} (for p0 ≥ p1). On the ROC the
rule is the point (FPR, TPR) = (p1, p0) (Case 3), and randomising between it and the two
trivial rules traces (0, 0) – (p1, p0) – (1, 1): the best ROC available from correctness alone.
An attack whose ROC lies above that polyline uses more than the generalization gap.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from engine.attacks.model.base import ModelOutputs, correct
from engine.attacks.outcome import AttackOutcome

LABEL = "Bayesian Take-the-Typical attack (paper 001, Alg. 1)"


@dataclass(frozen=True)
class BTTAParams:
    """What the BTTA attacker knows (paper 001 §BTTA)."""

    p0: float        # training accuracy, P(correct | member)
    p1: float        # test accuracy, P(correct | non-member)
    q: float         # prior, P(member)

    def __post_init__(self):
        for name in ("p0", "p1", "q"):
            v = float(getattr(self, name))
            if not 0.0 <= v <= 1.0:
                raise ValueError(f"BTTA parameter {name} = {v} must lie in [0, 1]")
            object.__setattr__(self, name, v)

    def to_dict(self) -> dict:
        return {"p0_train_accuracy": self.p0, "p1_test_accuracy": self.p1, "q_prior": self.q,
                "generalization_gap": self.p0 - self.p1}


def params_from_counts(correct_bits, member, q: float | None = None) -> BTTAParams:
    """p0, p1 (and q unless given) from records with known membership: the members' and
    non-members' accuracy. Used on shadow outputs (paper 001 §CBTTA: "observe ... the training
    accuracy ... through shadow models") or, for the Thm 2 bound, on the audited model's own
    train/test split (the paper's assumption that these accuracies are known or published)."""
    c = np.asarray(correct_bits, dtype=bool)
    m = np.asarray(member, dtype=bool)
    if m.all() or not m.any():
        raise ValueError("need both members and non-members to estimate p0 and p1")
    return BTTAParams(float(c[m].mean()), float(c[~m].mean()),
                      float(m.mean()) if q is None else q)


def params_from_outputs(outputs: ModelOutputs, q: float | None = None) -> BTTAParams:
    """:func:`params_from_counts` on model outputs with a member column."""
    member = outputs.require_membership("outputs used for BTTA's accuracies")
    return params_from_counts(correct(outputs.probs, outputs.labels), member, q)


def decision_rule(p: BTTAParams) -> tuple[bool, bool]:
    """(report member when correct, report member when wrong): Alg. 1's two tests, ties →
    member as in the paper's ≥."""
    return (p.q * p.p0 >= (1 - p.q) * p.p1,
            p.q * (1 - p.p0) >= (1 - p.q) * (1 - p.p1))


def case(p: BTTAParams) -> int:
    """Paper 001's case number (1–4) for these parameters."""
    when_correct, when_wrong = decision_rule(p)
    return {(True, True): 1, (False, False): 2, (True, False): 3, (False, True): 4}[
        (when_correct, when_wrong)]


def posteriors(p: BTTAParams) -> tuple[float, float]:
    """P(member | correct) and P(member | wrong) (Lemma 1's Bayes formulas). Where an outcome
    has probability 0 under both hypotheses its posterior is the prior q."""
    a, b = p.q * p.p0, (1 - p.q) * p.p1
    c, d = p.q * (1 - p.p0), (1 - p.q) * (1 - p.p1)
    return (a / (a + b) if a + b > 0 else p.q, c / (c + d) if c + d > 0 else p.q)


def expected_metrics(p: BTTAParams) -> dict:
    """Exact expected accuracy, precision, recall (paper 001 §Metrics, Eq. 1 and 2), plus the
    rule's TPR/FPR.

    Case 1: accuracy q, precision q (everyone is reported, a share q are members; the paper
    prints q/(q + (1 − q)) = 1, but that fraction is q — see :data:`PAPER_NOTES`), recall 1. Case 2: accuracy 1 − q, precision undefined
    (never reports member), recall 0. Case 3: accuracy q·p0 + (1 − q)(1 − p1), precision
    q·p0 / (q·p0 + (1 − q)·p1), recall p0. Case 4 by the same algebra.
    """
    when_correct, when_wrong = decision_rule(p)
    q, p0, p1 = p.q, p.p0, p.p1
    tpr = p0 * when_correct + (1 - p0) * when_wrong          # P(report member | member)
    fpr = p1 * when_correct + (1 - p1) * when_wrong          # P(report member | non-member)
    accuracy = q * tpr + (1 - q) * (1 - fpr)
    reported = q * tpr + (1 - q) * fpr
    out = {
        "case": case(p),
        "rule": _rule_text(when_correct, when_wrong),
        "accuracy": float(accuracy),
        "balanced_accuracy": float(0.5 * (tpr + 1 - fpr)),
        "recall": float(tpr),
        "tpr": float(tpr),
        "fpr": float(fpr),
        "precision": float(q * tpr / reported) if reported > 0 else None,
    }
    if reported <= 0:
        out["precision_undefined_reason"] = (
            "the attack never reports a record as a member (Case 2), so precision is 0/0"
            if out["case"] == 2 else
            "no record is expected to be reported as a member, so precision is 0/0")
    if out["case"] == 4:
        out["warning"] = ("test accuracy exceeds training accuracy (p1 > p0), outside paper "
                          "001's assumption; the Bayes rule reports wrongly labelled records "
                          "as members")
    return out


def _rule_text(when_correct: bool, when_wrong: bool) -> str:
    return {(True, True): "report every record as a member (Take-the-Typical)",
            (False, False): "report no record as a member (Take-the-Typical)",
            (True, False): "report a record as a member iff the model labels it correctly",
            (False, True): "report a record as a member iff the model labels it wrongly"}[
        (when_correct, when_wrong)]


def accuracy_bound(p: BTTAParams) -> float:
    """Thm 2 (with Thm 1): the highest expected accuracy of any attack that knows only
    (p0, p1, q) and each record's correctness — BTTA's own, the Bayes accuracy
    max(q·p0, (1 − q)·p1) + max(q·(1 − p0), (1 − q)·(1 − p1)), which for p0 ≥ p1 equals the
    paper's max{q, 1 − q, q·p0 + (1 − q)(1 − p1)}."""
    return float(max(p.q * p.p0, (1 - p.q) * p.p1)
                 + max(p.q * (1 - p.p0), (1 - p.q) * (1 - p.p1)))


def thm2_gap_bound(p: BTTAParams) -> float:
    """Thm 2's simpler lower expression max{q, 1 − q, min{q, 1 − q}(1 + g)}, g = p0 − p1."""
    g = p.p0 - p.p1
    return float(max(p.q, 1 - p.q, min(p.q, 1 - p.q) * (1 + g)))


def balanced_accuracy_bound(p: BTTAParams) -> float:
    """The same bound for the metric layer's *balanced* accuracy (prior ½ whatever the
    evaluation set's mix): ½ + ½|p0 − p1|."""
    return float(0.5 + 0.5 * abs(p.p0 - p.p1))


def _iso_line(acc: float, q: float) -> list[list[float]]:
    """Points (FPR, TPR) in the unit square with q·TPR + (1 − q)(1 − FPR) = acc."""
    if q <= 0 or q >= 1:
        return []
    pts = []
    for f in np.linspace(0.0, 1.0, 201):
        t = (acc - (1 - q) * (1 - f)) / q
        if -1e-12 <= t <= 1 + 1e-12:
            pts.append([float(f), float(min(max(t, 0.0), 1.0))])
    return [pts[0], pts[-1]] if pts else []


def roc_bound(p: BTTAParams) -> dict:
    """What Thm 2 looks like on an ROC plot.

    * ``point``: the (FPR, TPR) of BTTA's rule (Case 3: (p1, p0); Case 1: (1, 1); Case 2:
      (0, 0));
    * ``curve``: (0, 0) – (min, max) – (1, 1) with the correctness point, the best ROC from
      correctness alone (mixing the rule with the trivial ones);
    * ``accuracy_line``: the (FPR, TPR) segment where accuracy at prior q equals the bound —
      points above it would beat Thm 2's accuracy;
    * ``balanced_line``: the same for balanced accuracy (TPR = FPR + |p0 − p1|), the metric
      layer's headline.
    """
    m = expected_metrics(p)
    # The informative correctness rule: "correct ⇒ member" when p0 ≥ p1, else "wrong ⇒ member".
    cf, ct = (p.p1, p.p0) if p.p0 >= p.p1 else (1 - p.p1, 1 - p.p0)
    return {
        "point": {"fpr": m["fpr"], "tpr": m["tpr"]},
        "curve": {"fpr": [0.0, float(cf), 1.0], "tpr": [0.0, float(ct), 1.0]},
        "accuracy": accuracy_bound(p),
        "accuracy_line": _iso_line(accuracy_bound(p), p.q),
        "balanced_accuracy": balanced_accuracy_bound(p),
        "balanced_line": _iso_line(balanced_accuracy_bound(p), 0.5),
        # In %, as the results page and the report write every accuracy (issue 32 item 6).
        "statement": (f"No attack that knows only the training accuracy ({p.p0:.1%}), the "
                      f"test accuracy ({p.p1:.1%}) and the share of members ({p.q:.1%}) can "
                      f"exceed an accuracy of {accuracy_bound(p):.1%} (paper 001, Thm 2)."),
    }


def scores_from_correctness(correct_bits, p: BTTAParams) -> tuple[np.ndarray, np.ndarray]:
    """Per record: the posterior P(member | correctness) as score and Alg. 1's decision.

    The decision is computed from the inequalities themselves (ties → member), and a
    "non-member" posterior that rounds to exactly ½ is nudged below it, so ``score >= 0.5``
    always reproduces the decision."""
    c = np.asarray(correct_bits, dtype=bool)
    post_c, post_w = posteriors(p)
    when_correct, when_wrong = decision_rule(p)
    below = np.nextafter(0.5, 0.0)
    post_c = post_c if when_correct else min(post_c, below)
    post_w = post_w if when_wrong else min(post_w, below)
    return np.where(c, post_c, post_w), np.where(c, when_correct, when_wrong)


def attack(target: ModelOutputs, params: BTTAParams, *, source: str = "given") -> AttackOutcome:
    """BTTA on the audited model's outputs with parameters known to the attacker.

    ``source`` says where (p0, p1, q) came from ("given", "shadow models", "the model's
    reported train/test accuracy") and is stored in the details. Threshold ½ on the posterior
    score is Alg. 1's rule; the scores take two values, so the ROC is the rule's point joined
    to (0, 0) and (1, 1).
    """
    c = correct(target.probs, target.labels)
    scores, decisions = scores_from_correctness(c, params)
    return AttackOutcome("btta", LABEL, scores, 0.5, {
        "paper": "001 Alg. 1, §Metrics, Thm 2",
        "statistic": "posterior P(member | the model labels the record correctly or not)",
        "parameters": params.to_dict(),
        "parameter_source": source,
        "expected": expected_metrics(params),
        "bound": roc_bound(params),
    }, decisions=decisions)


PAPER_NOTES = (
    "p0 is the training accuracy and p1 the test accuracy (paper 001 §BTTA); Lemma 2's text "
    "says 'testing accuracy is at least training accuracy, or p0 ≥ p1' but means the reverse "
    "(training ≥ testing), as its formula says.",
    "Case 1 precision: the paper prints q/(q + (1 − q)) = 1, but that fraction equals q: "
    "reporting every record as a member is right for the share q of members. We return q; "
    "the claims test checks it by simulation.",
    "Thm 2's proof writes the Case 3 accuracy as q·p0 + (1 − p1); Eq. 1 (and the theorem) have "
    "q·p0 + (1 − q)(1 − p1), which we use.",
    "Thm 2 writes the prior as |A|/|D| (A = correctly classified records); it means "
    "|D_train|/|D| = q.",
)
