"""Metric-based attacks (paper 004 §4.4.1, Table "metric-based"; Song & Mittal 2021; Salem et
al. 2019 for Top-1).

Each attack computes one number m(F(x), y) per record and reports "member" when it passes a
threshold. Signs are arranged so that higher = member everywhere:

* ``correctness``  — 1 if argmax F(x) = y (Yeom et al.'s gap attack; no threshold to learn);
* ``confidence``   — F(x)_y, the confidence in the true class; threshold τ_y per class;
* ``entropy``      — −H(F(x)) = Σ_i F_i log F_i (members get low-entropy outputs); τ_y;
* ``modified_entropy`` — −Mentr(F(x), y), with Song & Mittal's
  Mentr = −(1 − F_y) log F_y − Σ_{i≠y} F_i log(1 − F_i), which, unlike entropy, is large for a
  confident *wrong* prediction; τ_y;
* ``top1``         — max_i F(x)_i (Salem et al.; paper 004's table writes "argmax" but compares
  the top confidence with one global τ).

Thresholds are chosen on shadow or reference outputs with known membership — per class, the
value maximising balanced accuracy between shadow members and non-members of that class (Song &
Mittal: "class-dependent thresholds") — never on the audited scores. A class with fewer than
``min_class_records`` shadow members or non-members uses the global threshold from all shadow
records.

The score handed to the metric layer is m − τ_y (threshold 0): the attack's own decisions are
``score ≥ 0``, and the ROC moves one offset over all class thresholds at once. ``raw`` keeps m.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from engine.attacks.model.base import (
    ModelOutputs,
    best_threshold,
    correct,
    true_class_prob,
)
from engine.attacks.outcome import AttackOutcome

METRICS = ("correctness", "confidence", "entropy", "modified_entropy", "top1")
CLASS_DEPENDENT = {"correctness": False, "confidence": True, "entropy": True,
                   "modified_entropy": True, "top1": False}
LABELS = {
    "correctness": "Correctness (gap) attack (Yeom et al.; paper 004 §4.4.1)",
    "confidence": "Confidence in the true class, class thresholds (Song & Mittal; paper 004)",
    "entropy": "Prediction entropy, class thresholds (Song & Mittal; paper 004)",
    "modified_entropy": "Modified entropy, class thresholds (Song & Mittal; paper 004)",
    "top1": "Top-1 confidence (Salem et al.; paper 004 §4.4.1)",
}
MIN_CLASS_RECORDS = 10


# The logarithm of an exact 0 is taken of the smallest positive double instead: finite (−744.4)
# and below the log of every positive probability, so 1e-300 and 1e-40 keep their order (a
# floor at PROB_FLOOR = 1e-30 tied them; issue 31 item 4).
_SMALLEST = float(np.nextafter(0.0, 1.0))
_LOG_SMALLEST = float(np.log(_SMALLEST))


def _top_rest(p: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Each row's largest entry and ``1 − F_top`` as the *sum of the other entries*.

    Issue 31 item 4: where a class's probability rounds to 1.0, ``1 − F`` by subtraction is
    exactly 0 (and ``log F`` exactly 0) although the other classes' probabilities — which a
    float64 softmax keeps to full relative precision however small they are — say how far from
    1 it is. Their sum has no cancellation; ``log F_top = log1p(−sum)`` then neither (used where
    F_top > ½: below, plain ``log F`` is as accurate). Every other entry is at most ½ when the
    row sums to 1, so ``log(1 − F_i) = log1p(−F_i)`` is accurate for it."""
    rows = np.arange(p.shape[0])
    top = p.argmax(axis=1)
    rest = p.copy()
    rest[rows, top] = 0.0
    return top, rest.sum(axis=1)


def _log(x: np.ndarray) -> np.ndarray:
    """log x with an exact 0 read as the smallest positive double (finite, and below the log of
    every positive value); the factor multiplying it is then 0 — the limit x·log x → 0."""
    return np.log(np.maximum(x, _SMALLEST))


def metric_values(probs: np.ndarray, labels: np.ndarray, metric: str) -> np.ndarray:
    """m(F(x), y) per record, oriented so that higher = member; float64 and finite for
    probabilities 0 and 1.

    The entropies are computed from the rows as given, without cancellation (:func:`_top_rest`;
    issue 31 item 4): a record whose true class's probability rounds to 1.0 still gets a score
    set by how much probability the other classes hold, so records the model is almost sure of
    keep their order instead of tying at 0. ``confidence`` and ``top1`` are the probabilities
    themselves: 1.0 in the file (or in a float64 softmax) stays 1.0, and such records tie."""
    p = np.clip(np.asarray(probs, dtype=np.float64), 0.0, 1.0)
    y = np.asarray(labels, dtype=np.int64)
    if metric == "correctness":
        return correct(p, y).astype(np.float64)
    if metric == "confidence":
        return true_class_prob(p, y)
    if metric == "top1":
        return p.max(axis=1)
    if metric not in ("entropy", "modified_entropy"):
        raise ValueError(f"unknown metric {metric!r}; choose from {', '.join(METRICS)}")
    if p.size == 0:
        return np.zeros(p.shape[0])
    rows = np.arange(p.shape[0])
    top, top_rest = _top_rest(p)
    sure = p[rows, top] > 0.5
    if metric == "entropy":
        log_p = _log(p)
        log_p[rows[sure], top[sure]] = np.log1p(-top_rest[sure])
        return (p * log_p).sum(axis=1)               # = −H; 0·log 0 = 0
    # Song & Mittal: Mentr = −(1 − F_y) log F_y − Σ_{i≠y} F_i log(1 − F_i).
    f_y = p[rows, y]
    y_top = y == top
    comp_y = np.where(y_top, top_rest, 1.0 - f_y)
    log_f_y = _log(f_y)
    log_f_y[y_top & sure] = np.log1p(-top_rest[y_top & sure])
    with np.errstate(divide="ignore"):
        terms = p * np.maximum(np.log1p(-p), _LOG_SMALLEST)
    terms[rows, top] = p[rows, top] * _log(top_rest)
    terms[rows, y] = 0.0                             # Σ over i ≠ y only
    mentr = -comp_y * log_f_y - terms.sum(axis=1)
    return -mentr


@dataclass(frozen=True)
class MetricThresholds:
    """Thresholds learnt on shadow/reference outputs."""

    metric: str
    global_threshold: float
    per_class: np.ndarray | None        # (k,) τ_c, NaN where the class fell back to global
    class_counts: np.ndarray | None     # (k, 2) shadow [non-members, members] per class
    min_class_records: int = MIN_CLASS_RECORDS

    def for_labels(self, labels: np.ndarray) -> np.ndarray:
        if self.per_class is None:
            return np.full(np.asarray(labels).shape, self.global_threshold)
        t = self.per_class[np.asarray(labels, dtype=np.int64)]
        return np.where(np.isnan(t), self.global_threshold, t)


def fit_thresholds(shadow: ModelOutputs, metric: str, *, class_dependent: bool | None = None,
                   min_class_records: int = MIN_CLASS_RECORDS) -> MetricThresholds:
    """Balanced-accuracy-maximising thresholds on shadow outputs (per true class if
    ``class_dependent``; default: per class for confidence and the entropies, as in paper 004's
    table)."""
    member = shadow.require_membership("shadow/reference outputs for metric thresholds")
    m = metric_values(shadow.probs, shadow.labels, metric)
    if metric == "correctness":
        # The rule is fixed: correct ⇒ member. ½ splits the two values.
        return MetricThresholds(metric, 0.5, None, None)
    g = best_threshold(m, member)
    if class_dependent is None:
        class_dependent = CLASS_DEPENDENT[metric]
    if not class_dependent:
        return MetricThresholds(metric, g, None, None)
    k = shadow.n_classes
    counts = np.zeros((k, 2), dtype=np.int64)
    np.add.at(counts, (shadow.labels, member.astype(np.int64)), 1)
    per = np.full(k, np.nan)
    order = np.argsort(shadow.labels, kind="stable")
    bounds = np.searchsorted(shadow.labels[order], np.arange(k + 1))
    for c in range(k):
        if counts[c].min() < min_class_records:
            continue
        idx = order[bounds[c]: bounds[c + 1]]
        per[c] = best_threshold(m[idx], member[idx])
    return MetricThresholds(metric, g, per, counts, int(min_class_records))


def attack(target: ModelOutputs, thresholds: MetricThresholds) -> AttackOutcome:
    """Score the audited outputs with thresholds fitted beforehand (on other data)."""
    raw = metric_values(target.probs, target.labels, thresholds.metric)
    tau = thresholds.for_labels(target.labels)
    scores = raw - tau
    details = {
        "paper": "004 §4.4.1 (Song & Mittal 2021; Salem et al. 2019)",
        "metric": thresholds.metric,
        "threshold_source": ("fixed rule: correct ⇒ member" if thresholds.metric == "correctness"
                             else "shadow/reference outputs (balanced accuracy per class)"),
        "global_threshold": float(thresholds.global_threshold),
        "class_dependent": thresholds.per_class is not None,
    }
    if thresholds.per_class is not None:
        fallback = np.isnan(thresholds.per_class)
        details["class_thresholds"] = [None if np.isnan(t) else float(t)
                                       for t in thresholds.per_class]
        details["classes_using_global_threshold"] = int(fallback.sum())
        details["min_class_records"] = thresholds.min_class_records
    return AttackOutcome("metric_" + thresholds.metric, LABELS[thresholds.metric], scores, 0.0,
                         details, raw=raw)


def run(target: ModelOutputs, shadow: ModelOutputs, metrics=METRICS, *,
        class_dependent: bool | None = None,
        min_class_records: int = MIN_CLASS_RECORDS) -> list[AttackOutcome]:
    """Every requested metric attack, thresholds fitted on ``shadow`` only."""
    return [attack(target, fit_thresholds(shadow, m, class_dependent=class_dependent,
                                          min_class_records=min_class_records))
            for m in metrics]


# --------------------------------------------------------------------------- every record
# With a predictions file and no shadow predictions, the supervised attacks learn their
# thresholds on half of the records and are measured on the other half, so their rates at
# small false-positive rates are often not measurable. A metric itself needs no threshold to
# rank records: its ROC, AUC and TPR at each FPR can be measured on *every* record (issue 22
# item 2). Loss and confidence rank records the same way (loss = −log F_y), so one stands for
# both.
RANKING_METRICS = ("confidence", "entropy", "modified_entropy", "top1")
RANKING_LABELS = {
    "confidence": "Confidence in the true class (the loss ranks the same), every record, "
                  "no threshold",
    "entropy": "Prediction entropy, every record, no threshold",
    "modified_entropy": "Modified entropy, every record, no threshold",
    "top1": "Top-1 confidence, every record, no threshold",
}
RANKING_SUFFIX = "_all_records"


def ranking_outcomes(target: ModelOutputs, metrics=RANKING_METRICS) -> list[AttackOutcome]:
    """One threshold-free outcome per metric, its raw value on every record (higher =
    member). Ties — a random forest's many outputs of exactly 1.0 — stay tied: the ROC takes
    them as one step, never in an order that flatters the attack. The threshold is +∞ (no
    record is called a member by a rule): accuracy and the ε bound are measured by choosing a
    threshold on one half of the records and counting on the other (engine.auditing)."""
    return [AttackOutcome(metric + RANKING_SUFFIX, RANKING_LABELS[metric],
                          metric_values(target.probs, target.labels, metric),
                          threshold=float("inf"),
                          details={"metric": metric, "scored_on": "every record",
                                   "threshold": "none (a ranking)"})
            for metric in metrics]
