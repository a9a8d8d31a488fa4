"""Attack metrics with confidence intervals — the definitions of ARCHITECTURE §5.

Used identically by every audit, the GUI and the report:

* scores: higher means "member" (or "has the sensitive value"); a trial is predicted positive
  when ``score >= threshold``;
* ROC over all distinct thresholds, FPR ascending, from (0, 0) to (1, 1);
* AUC = Mann–Whitney statistic (ties count ½) with a DeLong confidence interval
  (DeLong, DeLong & Clarke-Pearson 1988; fast mid-rank form of Sun & Xu 2014);
* ``TPR@FPR t`` = the largest TPR among ROC points with FPR ≤ t, with the achieved FPR and a
  Clopper–Pearson interval; *measurable* only with at least ⌈3/t⌉ negatives (with fewer, even
  zero false positives cannot certify FPR ≤ t at 95 %: (1 − t)^n > 0.05);
* balanced accuracy at a threshold chosen on a *separate* selection split — never the best
  threshold on the evaluation scores, which would overstate the attack; advantage = TPR − FPR at
  that threshold (paper 002 §3, "success metrics").
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np
from scipy import optimize, stats

from engine.runtime import NEVER, CancelToken

DEFAULT_FPR_TARGETS = (0.001, 0.01, 0.1)
MAX_ROC_POINTS = 512


# --------------------------------------------------------------------------- input checks

def as_scores_labels(scores, labels) -> tuple[np.ndarray, np.ndarray]:
    s = np.asarray(scores, dtype=float).ravel()
    y = np.asarray(labels).ravel().astype(bool)
    if s.shape != y.shape:
        raise ValueError(f"scores ({s.size}) and labels ({y.size}) differ in length")
    if not np.all(np.isfinite(s)):
        raise ValueError("scores contain NaN or infinite values")
    if y.all() or not y.any():
        raise ValueError("need at least one positive and one negative trial")
    return s, y


# --------------------------------------------------------------------------- intervals

def clopper_pearson(k, n, confidence: float = 0.95) -> tuple[float, float]:
    """Two-sided exact (Clopper–Pearson 1934) interval for a binomial proportion k/n."""
    lo, hi = clopper_pearson_array(np.asarray([k]), np.asarray([n]), confidence)
    return float(lo[0]), float(hi[0])


def clopper_pearson_array(k: np.ndarray, n: np.ndarray, confidence: float = 0.95):
    """Vectorised two-sided Clopper–Pearson interval (α/2 in each tail)."""
    alpha = 1.0 - confidence
    return (one_sided_lower(k, n, alpha / 2), one_sided_upper(k, n, alpha / 2))


def one_sided_lower(k, n, alpha: float, method: str = "clopper-pearson") -> np.ndarray:
    """Lower bound L with P(p < L) ≤ α: Beta(α; k, n − k + 1) quantile (0 when k = 0).

    ``method="jeffreys"`` uses the Beta(k + ½, n − k + ½) posterior quantile instead; it is
    shorter but has only approximate frequentist coverage, so reports label it as such.
    """
    k = np.asarray(k, dtype=float)
    n = np.asarray(n, dtype=float)
    with np.errstate(invalid="ignore", divide="ignore"):
        if method == "jeffreys":
            out = stats.beta.ppf(alpha, k + 0.5, n - k + 0.5)
        else:
            out = stats.beta.ppf(alpha, k, n - k + 1)
    return np.where(k <= 0, 0.0, np.nan_to_num(out, nan=0.0))


def one_sided_upper(k, n, alpha: float, method: str = "clopper-pearson") -> np.ndarray:
    """Upper bound U with P(p > U) ≤ α: Beta(1 − α; k + 1, n − k) quantile (1 when k = n)."""
    k = np.asarray(k, dtype=float)
    n = np.asarray(n, dtype=float)
    with np.errstate(invalid="ignore", divide="ignore"):
        if method == "jeffreys":
            out = stats.beta.ppf(1 - alpha, k + 0.5, n - k + 0.5)
        else:
            out = stats.beta.ppf(1 - alpha, k + 1, n - k)
    return np.where(k >= n, 1.0, np.nan_to_num(out, nan=1.0))


# --------------------------------------------------------------------------- ROC and AUC

def roc_curve(scores, labels) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """ROC over all distinct thresholds.

    Returns ``(fpr, tpr, thresholds)``, each of shape (T + 1,), FPR ascending. Point i predicts
    "member" for ``score >= thresholds[i]``; the first point (threshold +inf) is (0, 0).
    """
    s, y = as_scores_labels(scores, labels)
    # Only the last index of each run of equal scores is read, so the order inside a run does
    # not matter and the (faster) unstable sort gives the same curve.
    order = np.argsort(-s)
    s_sorted = s[order]
    y_sorted = y[order]
    # Last index of each run of equal scores: every distinct threshold is one ROC point.
    distinct = np.r_[np.nonzero(np.diff(s_sorted))[0], s_sorted.size - 1]
    tp = np.cumsum(y_sorted)[distinct]
    fp = np.cumsum(~y_sorted)[distinct]
    n_pos = int(y.sum())
    n_neg = int(y.size - n_pos)
    fpr = np.r_[0.0, fp / n_neg]
    tpr = np.r_[0.0, tp / n_pos]
    thresholds = np.r_[np.inf, s_sorted[distinct]]
    return fpr, tpr, thresholds


def auc_score(scores, labels) -> float:
    """Mann–Whitney AUC = P(score_member > score_non-member) + ½ P(tie)."""
    s, y = as_scores_labels(scores, labels)
    ranks = stats.rankdata(s)  # mid-ranks handle ties as ½
    n_pos = int(y.sum())
    n_neg = y.size - n_pos
    return float((ranks[y].sum() - n_pos * (n_pos + 1) / 2) / (n_pos * n_neg))


def delong_auc_ci(scores, labels, confidence: float = 0.95, *,
                  cancel: CancelToken = NEVER) -> tuple[float, tuple[float, float]]:
    """AUC with its DeLong interval (fast mid-rank algorithm, Sun & Xu 2014, Alg. 1).

    O(n log n) time and O(n) memory: no n_pos × n_neg comparison matrix is ever formed.
    ``cancel`` is checked between the steps (each well under a second for millions of trials).
    """
    s, y = as_scores_labels(scores, labels)
    pos = s[y]
    neg = s[~y]
    m, n = pos.size, neg.size
    r_pos = stats.rankdata(pos)
    cancel.check()
    r_neg = stats.rankdata(neg)
    cancel.check()
    r_all = np.r_[r_pos + _ties_below(pos, neg, cancel), r_neg + _ties_below(neg, pos, cancel)]
    cancel.check()
    auc = (r_all[:m].sum() - m * (m + 1) / 2) / (m * n)
    v10 = (r_all[:m] - r_pos) / n          # structural components of positives
    v01 = 1.0 - (r_all[m:] - r_neg) / m    # structural components of negatives
    var = np.var(v10, ddof=1) / m + np.var(v01, ddof=1) / n if m > 1 and n > 1 else 0.0
    if var <= 0:
        # Perfect separation or constant scores: the DeLong variance degenerates. Fall back to
        # the exact binomial bound on the weaker of the two classes so the interval is honest.
        lo, hi = clopper_pearson(round(auc * min(m, n)), min(m, n), confidence)
        return float(auc), (float(lo), float(hi))
    z = stats.norm.ppf(0.5 + confidence / 2)
    half = z * math.sqrt(var)
    return float(auc), (float(max(0.0, auc - half)), float(min(1.0, auc + half)))


def _ties_below(a: np.ndarray, b: np.ndarray, cancel: CancelToken = NEVER) -> np.ndarray:
    """Per entry of ``a``: the entries of ``b`` below it, plus half of those equal to it.

    Added to a's own mid-ranks this gives the mid-ranks in ``np.r_[a, b]`` exactly (both are
    half-integers), without ranking the whole array at once: the steps are sorts of one class
    and searches of sorted values, so ``cancel`` can be checked between them."""
    b_sorted = np.sort(b)
    cancel.check()
    order = np.argsort(a)
    cancel.check()
    a_sorted = a[order]
    below = np.searchsorted(b_sorted, a_sorted, side="left")
    upto = np.searchsorted(b_sorted, a_sorted, side="right")
    out = np.empty(a.size, dtype=np.float64)
    out[order] = below + 0.5 * (upto - below)
    return out


def clustered_auc_ci(scores, labels, clusters, confidence: float = 0.95
                     ) -> tuple[float, tuple[float, float]]:
    """AUC with an interval that allows for correlated observations within clusters
    (Obuchowski 1997, Biometrics 53:567): the DeLong structural components are summed per
    cluster and their variance taken across clusters.

    Used where one unit contributes several (score, label) pairs, e.g. the pooled
    one-vs-rest ROC of attribute inference (paper 003): each target gives one positive (its
    true value) and |V| − 1 negatives whose scores share the target's release, so they are not
    independent and DeLong's interval would be too narrow.
    """
    s, y = as_scores_labels(scores, labels)
    c = np.asarray(clusters).ravel()
    if c.size != s.size:
        raise ValueError("clusters must have one entry per score")
    pos, neg = s[y], s[~y]
    m, n = pos.size, neg.size
    r_all = stats.rankdata(np.r_[pos, neg])
    auc = (r_all[:m].sum() - m * (m + 1) / 2) / (m * n)
    v10 = (r_all[:m] - stats.rankdata(pos)) / n
    v01 = 1.0 - (r_all[m:] - stats.rankdata(neg)) / m
    ids, inv = np.unique(c, return_inverse=True)
    k = ids.size
    sum10 = np.bincount(inv[y], weights=v10, minlength=k)
    sum01 = np.bincount(inv[~y], weights=v01, minlength=k)
    m_i = np.bincount(inv[y], minlength=k)
    n_i = np.bincount(inv[~y], minlength=k)
    if k < 2:
        return delong_auc_ci(s, y, confidence)
    d10 = sum10 - m_i * auc
    d01 = sum01 - n_i * auc
    s10 = k / ((k - 1) * m) * np.sum(d10 ** 2)
    s01 = k / ((k - 1) * n) * np.sum(d01 ** 2)
    s11 = k / (k - 1) * np.sum(d10 * d01)
    var = s10 / m + s01 / n + 2 * s11 / (m * n)
    if var <= 0:
        lo, hi = clopper_pearson(round(auc * k), k, confidence)
        return float(auc), (float(lo), float(hi))
    z = stats.norm.ppf(0.5 + confidence / 2)
    half = z * math.sqrt(var)
    return float(auc), (float(max(0.0, auc - half)), float(min(1.0, auc + half)))


# --------------------------------------------------------------------------- TPR at low FPR

def min_negatives_for(fpr_target: float) -> int:
    """Negatives needed before a TPR at FPR ≤ t can be certified: ⌈3/t⌉ (rule of three)."""
    return int(math.ceil(3.0 / fpr_target - 1e-9))


TPR_AT_FPR_INTERVAL_METHOD = "threshold order statistic + Clopper–Pearson (union bound)"


def threshold_false_positive_bounds(n_neg: int, fpr_targets, alpha: float):
    """False-positive counts whose thresholds bracket FPR t, each side with error ≤ ``alpha``.

    The number of non-members scoring at or above the attack's true FPR-t threshold q_t is
    Binomial(n_neg, t), whatever the score distribution. Hence the lowest threshold with at most
    ``k_lo`` false positives has true FPR ≤ t unless Binomial(n_neg, t) ≤ k_lo, and the highest
    threshold with at least ``k_hi`` false positives has true FPR ≥ t unless
    Binomial(n_neg, t) ≥ k_hi. We take the largest ``k_lo`` and the smallest ``k_hi`` whose
    binomial tails are ≤ α:

        k_lo = max{k : P[Bin(n, t) ≤ k] ≤ α}   (−1 when no count is that unlikely)
        k_hi = min{k : P[Bin(n, t) ≥ k] ≤ α}   (n + 1 when none is)

    Vectorised over ``fpr_targets``; returns two int arrays of the same shape.
    """
    t = np.clip(np.asarray(fpr_targets, dtype=float), 0.0, 1.0)
    q = stats.binom.ppf(alpha, n_neg, t)                       # smallest k with cdf ≥ α
    k_lo = np.where(stats.binom.cdf(q, n_neg, t) <= alpha, q, q - 1)
    k_hi = stats.binom.isf(alpha, n_neg, t) + 1                # smallest k with P[X ≥ k] ≤ α
    k_lo = np.nan_to_num(k_lo, nan=-1.0)
    k_hi = np.nan_to_num(k_hi, nan=n_neg + 1.0)
    return k_lo.astype(int), np.minimum(k_hi, n_neg + 1).astype(int)


def tpr_interval_at_fpr(fp: np.ndarray, tp: np.ndarray, n_pos: int, n_neg: int, fpr_targets,
                        confidence: float = 0.95) -> tuple[np.ndarray, np.ndarray]:
    """Interval that covers the attack's *true* TPR at FPR t with probability ≥ ``confidence``.

    ``fp``/``tp`` are the false/true-positive counts of the ROC points (non-decreasing, from
    (0, 0) to (n_neg, n_pos)). A threshold read off the very negatives whose FPR it claims has
    an uncertain true FPR (±40 % at t = 0.1 % with 20,000 non-members), so an interval on the
    true positives alone misses the truth far more often than it says (ARCHITECTURE §5). This one
    carries both uncertainties:

    * lower end: the threshold with ``k_lo`` false positives has true FPR ≤ t (error ≤ α/4), so
      the attack's TPR at t is at least its TPR there, which is at least the one-sided
      Clopper–Pearson lower bound of its true positives (error ≤ α/4);
    * upper end: symmetric, at the threshold with ``k_hi`` false positives.

    The positives are independent of the negatives that place the thresholds, so each
    Clopper–Pearson bound is exact given its threshold, and the union bound gives ≤ α/2 per side
    for any score distribution, ties included (monotonicity of the ROC is all that is used). It
    covers both the deterministic-threshold TPR and the randomised (interpolated) ROC at t.
    """
    alpha = 1.0 - confidence
    fp = np.asarray(fp)
    tp = np.asarray(tp)
    k_lo, k_hi = threshold_false_positive_bounds(n_neg, fpr_targets, alpha / 4)
    i_lo = np.searchsorted(fp, k_lo, side="right") - 1           # last point with FP ≤ k_lo
    i_hi = np.searchsorted(fp, k_hi, side="left")                # first point with FP ≥ k_hi
    n = np.full(k_lo.shape, float(n_pos))
    lower = np.where(i_lo >= 0, one_sided_lower(tp[np.clip(i_lo, 0, None)], n, alpha / 4), 0.0)
    upper = np.where(i_hi < fp.size,
                     one_sided_upper(tp[np.clip(i_hi, None, fp.size - 1)], n, alpha / 4), 1.0)
    return lower, upper


def tpr_p_value(fp: np.ndarray, tp: np.ndarray, n_pos: int, n_neg: int, target: float) -> float:
    """One-sided p-value of "the attack's true TPR at FPR t is no more than t" (a guess that
    ignores the release spots t of the people present): the smallest one-sided level α at
    which the lower end of :func:`tpr_interval_at_fpr` — built with α/2 for the threshold
    and α/2 for the true positives, as the shown 95 % interval is with 2.5 % per side —
    lies above t. So p < 2.5 % ⇔ the shown interval lies above t (issue 32 item 2).

    In closed form: ROC point i may serve as the threshold at level α when its false
    positives are at most k_lo(α/2), i.e. P[Bin(n_neg, t) ≤ fp_i] ≤ α/2; its Clopper–Pearson
    lower end lies above t when P[Bin(n_pos, t) ≥ tp_i] < α/2. Hence
    p = min_i 2·max(P[Bin(n_neg, t) ≤ fp_i], P[Bin(n_pos, t) ≥ tp_i])."""
    fp = np.asarray(fp)
    tp = np.asarray(tp)
    threshold_ok = stats.binom.cdf(fp, n_neg, target)
    above = stats.binom.sf(tp - 1, n_pos, target)
    return float(min(1.0, 2.0 * np.min(np.maximum(threshold_ok, above))))


def _roc_counts(fpr: np.ndarray, tpr: np.ndarray, n_pos: int, n_neg: int):
    """Integer FP and TP counts of ROC points given as rates."""
    return (np.rint(np.asarray(fpr) * n_neg).astype(np.int64),
            np.rint(np.asarray(tpr) * n_pos).astype(np.int64))


def tpr_at_fpr(fpr: np.ndarray, tpr: np.ndarray, target: float, n_pos: int, n_neg: int,
               confidence: float = 0.95) -> dict:
    """Largest TPR among ROC points with FPR ≤ target, its achieved FPR, and an interval for
    the attack's true TPR at FPR = target (:func:`tpr_interval_at_fpr`)."""
    ok = np.nonzero(fpr <= target + 1e-12)[0]
    i = ok[np.argmax(tpr[ok])]
    fp, tp = _roc_counts(fpr, tpr, n_pos, n_neg)
    lo, hi = tpr_interval_at_fpr(fp, tp, n_pos, n_neg, [target], confidence)
    k_lo, k_hi = threshold_false_positive_bounds(n_neg, [target], (1.0 - confidence) / 4)
    return {
        "fpr_target": float(target),
        "fpr_achieved": float(fpr[i]),
        "tpr": float(tpr[i]),
        # The counts behind the rate and the one-sided test against a guess (issue 32).
        "tp": int(tp[i]),
        "fp": int(fp[i]),
        "p_value": tpr_p_value(fp, tp, n_pos, n_neg, target),
        "tpr_ci": [float(lo[0]), float(hi[0])],
        "tpr_ci_method": TPR_AT_FPR_INTERVAL_METHOD,
        # False-positive counts of the two thresholds that bracket FPR = target (as rates).
        "threshold_fpr_range": [max(0.0, float(k_lo[0]) / n_neg), min(1.0, float(k_hi[0]) / n_neg)],
        "measurable": bool(n_neg >= min_negatives_for(target)),
    }


def roc_band(fpr: np.ndarray, tpr: np.ndarray, n_pos: int, n_neg: int,
             confidence: float = 0.95, grid: np.ndarray | None = None) -> dict:
    """Pointwise band of the attack's true ROC on an FPR grid (the band drawn around the ROC).

    Each grid FPR g gets the interval of :func:`tpr_interval_at_fpr`, so it covers the true TPR
    at FPR g with the stated confidence — pointwise, not simultaneously for all g.
    """
    if grid is None:
        grid = np.unique(np.r_[np.geomspace(1e-5, 1.0, 120), np.linspace(0, 1, 41)])
    fp, tp = _roc_counts(fpr, tpr, n_pos, n_neg)
    lo, hi = tpr_interval_at_fpr(fp, tp, n_pos, n_neg, grid, confidence)
    return {"fpr": grid.tolist(), "tpr_lower": lo.tolist(), "tpr_upper": hi.tolist(),
            "method": TPR_AT_FPR_INTERVAL_METHOD, "pointwise": True}


def downsample_roc(fpr: np.ndarray, tpr: np.ndarray, max_points: int = MAX_ROC_POINTS):
    """At most ``max_points`` ROC points, keeping both ends and the low-FPR region.

    Half the budget goes to log-spaced FPRs (where privacy attacks matter, and where log-log
    plots need detail), half to evenly spaced indices (the linear-scale shape).
    """
    n = fpr.size
    if n <= max_points:
        return fpr.astype(float).tolist(), tpr.astype(float).tolist()
    half = max_points // 2 - 1
    pos_fpr = fpr[fpr > 0]
    log_targets = np.geomspace(max(pos_fpr.min(), 1e-9), 1.0, half) if pos_fpr.size else []
    keep = set(np.linspace(0, n - 1, half).astype(int).tolist())
    # For each log target, keep the point with the largest TPR at FPR <= target.
    keep.update((np.searchsorted(fpr, log_targets, side="right") - 1).clip(0).tolist())
    keep.update({0, n - 1})
    idx = np.array(sorted(keep))[:max_points]
    if idx[-1] != n - 1:
        idx[-1] = n - 1
    return fpr[idx].astype(float).tolist(), tpr[idx].astype(float).tolist()


# --------------------------------------------------------------------------- thresholds

def best_balanced_accuracy_threshold(scores, labels) -> float:
    """Threshold maximising balanced accuracy on *these* (selection) scores."""
    fpr, tpr, thr = roc_curve(scores, labels)
    i = int(np.argmax(tpr - fpr))
    t = thr[i]
    if not np.isfinite(t):  # predicting nobody is never better than a finite threshold here
        t = thr[1]
    return float(t)


def rates_at_threshold(scores, labels, threshold: float) -> tuple[int, int, int, int]:
    """(TP, FN, FP, TN) for the rule ``score >= threshold``."""
    s, y = as_scores_labels(scores, labels)
    pred = s >= threshold
    tp = int(np.sum(pred & y))
    fp = int(np.sum(pred & ~y))
    return tp, int(y.sum()) - tp, fp, int((~y).sum()) - fp


def balanced_accuracy_with_ci(tp: int, fn: int, fp: int, tn: int,
                              confidence: float = 0.95) -> tuple[float, tuple[float, float]]:
    """Balanced accuracy (TPR + TNR)/2 with an interval for its true value at this threshold.

    With equal class sizes it is the share of correct guesses, a sum of independent Bernoulli
    trials, and the exact Clopper–Pearson interval applies (conservative for unequal success
    probabilities: Hoeffding 1956). With unequal sizes it is the mean of two independent
    binomial proportions; we combine their Clopper–Pearson intervals by MOVER (Newcombe 1998;
    Zou & Donner 2008): L = B − ½√((TPR − TPR_L)² + (TNR − TNR_L)²), U likewise. Unlike the
    Wald interval it stays honest near 0 and 1; `tests/claims/test_interval_coverage.py`
    checks its coverage by simulation.
    """
    n_pos, n_neg = tp + fn, fp + tn
    tpr, tnr = tp / n_pos, tn / n_neg
    value = 0.5 * (tpr + tnr)
    if n_pos == n_neg:
        lo, hi = clopper_pearson(tp + tn, n_pos + n_neg, confidence)
        return value, (lo, hi)
    (tpr_lo, tnr_lo), (tpr_hi, tnr_hi) = clopper_pearson_array(
        np.array([tp, tn]), np.array([n_pos, n_neg]), confidence)
    lo = value - 0.5 * math.hypot(tpr - tpr_lo, tnr - tnr_lo)
    hi = value + 0.5 * math.hypot(tpr_hi - tpr, tnr_hi - tnr)
    return value, (max(0.0, lo), min(1.0, hi))


def accuracy_p_value(tp: int, fn: int, fp: int, tn: int) -> float:
    """One-sided p-value of "balanced accuracy at this threshold is no more than ½" that
    inverts :func:`balanced_accuracy_with_ci` (issue 32 item 2): with equal classes the exact
    binomial test of the correct guesses, P[Bin(n, ½) ≥ tp + tn] (the Clopper–Pearson
    interval's own test); with unequal classes the smallest α at which the MOVER interval at
    confidence 1 − 2α has its lower end above ½. So p < 2.5 % ⇔ the shown 95 % interval lies
    above ½. Valid because the threshold was chosen on other trials (the selection split or
    the attack's own rule)."""
    n_pos, n_neg = tp + fn, fp + tn
    if n_pos == n_neg:
        n = n_pos + n_neg
        return float(min(1.0, stats.binom.sf(tp + tn - 1, n, 0.5)))
    # The MOVER lower end grows continuously with α (each Clopper–Pearson end does): find
    # where it crosses ½ by Brent's method on log α.
    def above(log_a: float) -> float:
        return balanced_accuracy_with_ci(tp, fn, fp, tn, 1.0 - 2.0 * math.exp(log_a))[1][0] - 0.5

    lo, hi = math.log(1e-300), math.log(0.5)
    if above(hi) <= 0:
        return 1.0
    if above(lo) > 0:
        return 1e-300
    return float(math.exp(optimize.brentq(above, lo, hi, xtol=1e-12)))


def difference_ci(k1: int, n1: int, k2: int, n2: int,
                  confidence: float = 0.95) -> tuple[float, tuple[float, float]]:
    """p1 − p2 for two independent binomial proportions k1/n1 and k2/n2, with the MOVER
    interval built on each proportion's Clopper–Pearson limits (Newcombe 1998; Zou & Donner
    2008): L = d − √((p1 − l1)² + (u2 − p2)²), U = d + √((u1 − p1)² + (p2 − l2)²).

    Used for a model's generalization gap (training minus test accuracy, paper 001 §3). Unlike
    the Wald interval it does not collapse when an accuracy is 0 or 1 (a model that is right on
    every training record); `tests/claims/test_interval_coverage.py` checks its coverage.
    """
    if n1 <= 0 or n2 <= 0:
        raise ValueError("both proportions need at least one trial")
    p1, p2 = k1 / n1, k2 / n2
    (l1, l2), (u1, u2) = clopper_pearson_array(np.array([k1, k2]), np.array([n1, n2]),
                                               confidence)
    d = p1 - p2
    lo = d - math.hypot(p1 - l1, u2 - p2)
    hi = d + math.hypot(u1 - p1, p2 - l2)
    return float(d), (float(max(-1.0, lo)), float(min(1.0, hi)))


def advantage_ci(accuracy_ci) -> tuple[float, float]:
    """Advantage TPR − FPR = 2 × balanced accuracy − 1 at the same threshold, so its interval
    is the image of the balanced-accuracy interval (same coverage)."""
    lo, hi = accuracy_ci
    return 2.0 * lo - 1.0, 2.0 * hi - 1.0


# --------------------------------------------------------------------------- the whole evaluation

@dataclass(frozen=True)
class SplitScores:
    """Scores of one attack, split into a threshold-selection part and an evaluation part.

    All arrays are 1-D; labels True = member. The selection part is never used to report a
    number, only to choose thresholds (accuracy and the empirical ε bound).
    """

    scores: np.ndarray             # (n,) all trials, used for ROC/AUC/TPR@FPR
    labels: np.ndarray             # (n,)
    selection: np.ndarray          # (n,) bool: True for trials reserved to choose thresholds


def split_for_selection(labels: np.ndarray, fraction: float = 0.5) -> np.ndarray:
    """Mark the first ``fraction`` of each class as the selection split.

    Trials of a game are i.i.d., so the first half is as random as any; a deterministic split
    keeps results reproducible without another random stream.
    """
    labels = np.asarray(labels).astype(bool)
    sel = np.zeros(labels.size, dtype=bool)
    for cls in (True, False):
        idx = np.nonzero(labels == cls)[0]
        sel[idx[: int(len(idx) * fraction)]] = True
    return sel
