"""Two-threshold attack (paper 000 §3.3, Alg. 4, 5 and 7).

Each of the target's positive observations is first thresholded on its own (a per-cell
likelihood-ratio test, "flipping an uneven coin"), then the number of cells above their
thresholds is compared with an overall threshold. The score is Binomial(k, p₀) or (k, p₁)
(Thm 3), so one huge noise draw moves it by at most one: under heavy-tailed Laplace noise this
beats the plain sum; under Gaussian noise the sum is optimal and this loses a little.

Each cell's threshold comes from the shadow aggregates by one of three rules:

* ``midpoint`` — paper 000 Alg. 5 as written (lines 4–6): halfway between the cell's mean
  value over the member shadows and over the non-member shadows;
* ``best_accuracy`` (the default, kept for continuity) — the threshold that maximises that
  cell's accuracy on the shadows, which is what the paper's text around Alg. 5 says the
  midpoint aims at; it also adapts to skewed per-cell laws, where the midpoint does not;
* Alg. 7 — each cell's FPR fixed (here: the empirical quantile of the non-member shadows).
"""

from __future__ import annotations

import numpy as np

from engine.attacks.location.base import AttackData, midpoint_threshold
from engine.attacks.outcome import AttackOutcome

LABEL = "Two-threshold attack (paper 000, Alg. 4 + 5)"

#: How each cell's threshold is chosen, in words for the details, the report and the GUI.
RULE_WORDS = {
    "best_accuracy": "each cell's threshold is the one that is right most often on the "
                     "attacker's simulated releases",
    "midpoint": "each cell's threshold is halfway between that cell's average count with "
                "and without the target in the attacker's simulated releases "
                "(paper 000, Alg. 5)",
}


def per_cell_thresholds(values: np.ndarray, labels: np.ndarray) -> np.ndarray:
    """Alg. 5, vectorised over cells: for each column of ``values`` (shadows × cells), the
    threshold τ maximising TPR − FPR of the rule ``value > τ`` on the shadow aggregates,
    placed midway between two consecutive distinct shadow values."""
    n, k = values.shape
    order = np.argsort(values, axis=0, kind="stable")
    v = np.take_along_axis(values, order, axis=0)
    y = labels[order]                                      # (n, k) labels in value order
    n_pos, n_neg = labels.sum(), (~labels).sum()
    # Rule "value > v[i]": members above = n_pos − (members at or below i).
    tpr = (n_pos - np.cumsum(y, axis=0)) / n_pos
    fpr = (n_neg - np.cumsum(~y, axis=0)) / n_neg
    gain = tpr - fpr
    # Only cut between distinct values (ties stay on one side of the threshold).
    distinct = np.vstack([v[1:] > v[:-1], np.ones((1, k), dtype=bool)])
    gain = np.where(distinct, gain, -np.inf)
    best = np.argmax(gain, axis=0)
    cols = np.arange(k)
    upper = np.where(best + 1 < n, v[np.minimum(best + 1, n - 1), cols], v[best, cols] + 1.0)
    return 0.5 * (v[best, cols] + upper)


def per_cell_midpoints(values: np.ndarray, labels: np.ndarray) -> np.ndarray:
    """Alg. 5 lines 4–6, vectorised over cells: T_le = ½ (μ̂⁰_le + μ̂¹_le), the mean of each
    column of ``values`` over the non-member shadows and over the member shadows."""
    values = np.asarray(values, dtype=np.float64)
    return 0.5 * (values[~labels].mean(axis=0) + values[labels].mean(axis=0))


def per_cell_thresholds_at_fpr(values: np.ndarray, labels: np.ndarray, alpha: float):
    """Alg. 7: each cell's threshold at per-cell FPR α (non-member shadow quantile)."""
    return np.quantile(values[~labels], 1.0 - alpha, axis=0)


def score2(x: np.ndarray, thresholds: np.ndarray) -> np.ndarray:
    """Alg. 4: how many of the target's positive observations exceed their thresholds."""
    k = thresholds.size
    return (x[:, :k] > thresholds[None, :]).sum(axis=1).astype(np.float64)


def attack(data: AttackData, per_cell_fpr: float | None = None,
           rule: str = "best_accuracy") -> AttackOutcome:
    """Alg. 4 with per-cell thresholds by ``rule`` (see :data:`RULE_WORDS`), or Alg. 7's at
    ``per_cell_fpr`` when that is set."""
    if rule not in RULE_WORDS:
        raise ValueError(f"unknown per-cell threshold rule {rule!r}")
    cells = data.shadow.x[:, :data.k]
    if per_cell_fpr:
        tau = per_cell_thresholds_at_fpr(cells, data.shadow.labels, per_cell_fpr)
        rule_name, words = "fixed_fpr", (f"each cell's threshold lets through {per_cell_fpr:g} "
                                         "of the simulated releases without the target "
                                         "(paper 000, Alg. 7)")
        paper = "000 §3.3, Alg. 4, 7"
    elif rule == "midpoint":
        tau = per_cell_midpoints(cells, data.shadow.labels)
        rule_name, words, paper = rule, RULE_WORDS[rule], "000 §3.3, Alg. 4, 5"
    else:
        tau = per_cell_thresholds(cells, data.shadow.labels)
        rule_name, words = rule, RULE_WORDS[rule]
        paper = "000 §3.3, Alg. 4; per-cell thresholds by best shadow accuracy (Alg. 5 " \
                "takes the midpoint of the means)"
    shadow = score2(data.shadow.x, tau)
    threshold = midpoint_threshold(shadow, data.shadow.labels)
    test = score2(data.test.x, tau)
    p_absent = float(shadow[~data.shadow.labels].mean() / data.k)
    p_present = float(shadow[data.shadow.labels].mean() / data.k)
    return AttackOutcome("two_threshold", LABEL, test, threshold, {
        "statistic": "number of the target's positive observations above their own "
                     "thresholds",
        "paper": paper,
        "threshold_rule": rule_name,
        "per_cell_rule": words,
        "per_cell_thresholds": tau.tolist(),
        "shadow_success_rates": [p_absent, p_present],
        "score_distribution": binomial_fit(test, data.test.labels, data.k, p_absent,
                                           p_present),
    })


def binomial_fit(scores: np.ndarray, labels: np.ndarray, k: int, p_absent: float,
                 p_present: float) -> dict:
    """Thm 3: with per-cell success rates p₀ (target absent) and p₁ (present) the score is
    Binomial(k, p₀) or Binomial(k, p₁). Observed counts of the test scores beside those laws
    (scaled to the same numbers of aggregates), for the GUI and report."""
    from scipy.stats import binom

    support = np.arange(k + 1)
    absent = np.bincount(scores[~labels].astype(int), minlength=k + 1)[: k + 1]
    present = np.bincount(scores[labels].astype(int), minlength=k + 1)[: k + 1]
    return {"score": support.tolist(), "absent": absent.tolist(), "present": present.tolist(),
            "model_absent": (binom.pmf(support, k, p_absent) * absent.sum()).tolist(),
            "model_present": (binom.pmf(support, k, p_present) * present.sum()).tolist(),
            "model": "Binomial(k, p) with p from the shadow aggregates (paper 000 Thm 3)"}
