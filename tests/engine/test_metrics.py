"""Metrics of ARCHITECTURE §5 against hand-computed cases and independent references."""

import math

import numpy as np
import pytest
from scipy import stats

from engine import auditing, metrics


def test_roc_hand_computed():
    scores = [0.1, 0.4, 0.35, 0.8]
    labels = [0, 0, 1, 1]
    fpr, tpr, thr = metrics.roc_curve(scores, labels)
    assert fpr.tolist() == [0.0, 0.0, 0.5, 0.5, 1.0]
    assert tpr.tolist() == [0.0, 0.5, 0.5, 1.0, 1.0]
    assert thr[0] == np.inf and thr[1:].tolist() == [0.8, 0.4, 0.35, 0.1]
    assert metrics.auc_score(scores, labels) == pytest.approx(0.75)


def test_roc_ties_are_one_point_and_auc_counts_ties_half():
    scores = [1, 1, 1, 1]
    labels = [0, 1, 0, 1]
    fpr, tpr, _ = metrics.roc_curve(scores, labels)
    assert fpr.tolist() == [0.0, 1.0] and tpr.tolist() == [0.0, 1.0]
    assert metrics.auc_score(scores, labels) == pytest.approx(0.5)


def test_auc_matches_brute_force_pairs():
    g = np.random.default_rng(1)
    s = np.round(g.normal(size=300), 1)  # rounding creates ties
    y = g.random(300) < 0.4
    pos, neg = s[y], s[~y]
    brute = ((pos[:, None] > neg[None, :]).sum() + 0.5 * (pos[:, None] == neg[None, :]).sum()) / (
        pos.size * neg.size)
    assert metrics.auc_score(s, y) == pytest.approx(brute, abs=1e-12)


def _delong_naive(pos, neg):
    psi = (pos[:, None] > neg[None, :]) + 0.5 * (pos[:, None] == neg[None, :])
    auc = psi.mean()
    v10 = psi.mean(axis=1)
    v01 = psi.mean(axis=0)
    var = v10.var(ddof=1) / pos.size + v01.var(ddof=1) / neg.size
    return auc, var


def test_delong_interval_matches_naive_quadratic_formula():
    g = np.random.default_rng(2)
    y = g.random(400) < 0.5
    s = g.normal(size=400) + 0.8 * y
    s = np.round(s, 2)
    auc, (lo, hi) = metrics.delong_auc_ci(s, y, 0.95)
    ref_auc, var = _delong_naive(s[y], s[~y])
    z = stats.norm.ppf(0.975)
    assert auc == pytest.approx(ref_auc, abs=1e-12)
    assert lo == pytest.approx(ref_auc - z * math.sqrt(var), abs=1e-10)
    assert hi == pytest.approx(ref_auc + z * math.sqrt(var), abs=1e-10)


def test_clopper_pearson_against_beta_quantiles_and_edges():
    for k, n in [(0, 10), (3, 10), (10, 10), (57, 200), (1, 20000)]:
        lo, hi = metrics.clopper_pearson(k, n, 0.95)
        exp_lo = 0.0 if k == 0 else stats.beta.ppf(0.025, k, n - k + 1)
        exp_hi = 1.0 if k == n else stats.beta.ppf(0.975, k + 1, n - k)
        assert lo == pytest.approx(exp_lo, abs=1e-12)
        assert hi == pytest.approx(exp_hi, abs=1e-12)
    # Closed form for k = 0: (1 - p)^n = α/2.
    assert metrics.clopper_pearson(0, 10)[1] == pytest.approx(1 - 0.025 ** (1 / 10), abs=1e-12)


def test_clopper_pearson_coverage_is_at_least_nominal():
    g = np.random.default_rng(3)
    p, n = 0.03, 200
    k = g.binomial(n, p, size=4000)
    lo, hi = metrics.clopper_pearson_array(k, np.full(k.shape, n), 0.95)
    coverage = np.mean((lo <= p) & (p <= hi))
    assert coverage >= 0.95


def test_tpr_at_fpr_and_measurable_rule():
    fpr = np.array([0.0, 0.0, 0.0005, 0.002, 0.01, 0.5, 1.0])
    tpr = np.array([0.0, 0.1, 0.2, 0.3, 0.6, 0.9, 1.0])
    row = metrics.tpr_at_fpr(fpr, tpr, 0.001, n_pos=10000, n_neg=10000)
    assert row["tpr"] == pytest.approx(0.2) and row["fpr_achieved"] == pytest.approx(0.0005)
    lo, hi = row["tpr_ci"]
    assert lo < 0.2 < hi
    # The threshold's FPR is uncertain: the interval reaches the TPR of the ROC point beyond
    # the binomial upper quantile of the false positives (FPR 0.2 % here, TPR 0.3).
    assert hi > 0.3 and row["tpr_ci_method"]
    f_lo, f_hi = row["threshold_fpr_range"]
    assert f_lo < 0.001 < f_hi
    assert row["measurable"] is True
    assert metrics.min_negatives_for(0.001) == 3000
    assert metrics.tpr_at_fpr(fpr, tpr, 0.001, 10000, 2999)["measurable"] is False
    assert metrics.tpr_at_fpr(fpr, tpr, 0.001, 10000, 3000)["measurable"] is True


def test_threshold_false_positive_bounds_match_brute_force_binomial_tails():
    for n, t, a in [(20000, 0.001, 0.0125), (20000, 0.01, 0.0125), (500, 0.1, 0.01),
                    (100, 0.001, 0.0125), (50, 0.5, 0.025)]:
        k_lo, k_hi = (int(v[0]) for v in metrics.threshold_false_positive_bounds(n, [t], a))
        cdf = stats.binom.cdf(np.arange(n + 1), n, t)          # P[X <= k]
        sf_ge = stats.binom.sf(np.arange(n + 1) - 1, n, t)     # P[X >= k]
        expect_lo = max([k for k in range(n + 1) if cdf[k] <= a], default=-1)
        expect_hi = min([k for k in range(n + 1) if sf_ge[k] <= a], default=n + 1)
        assert (k_lo, k_hi) == (expect_lo, expect_hi), (n, t, a)


def test_tpr_interval_brackets_the_fpr_uncertainty_of_its_threshold():
    # ROC of 1,000 negatives and 1,000 positives where TPR = sqrt(FPR) at every FP count.
    n = 1000
    fp = np.arange(n + 1)
    tp = np.rint(np.sqrt(fp / n) * n).astype(int)
    lo, hi = metrics.tpr_interval_at_fpr(fp, tp, n, n, [0.01], 0.95)
    k_lo, k_hi = metrics.threshold_false_positive_bounds(n, [0.01], 0.05 / 4)
    # Lower end: Clopper–Pearson (α/4) lower bound at the threshold with k_lo false positives;
    # upper end: upper bound at the one with k_hi false positives.
    assert lo[0] == pytest.approx(metrics.one_sided_lower(tp[k_lo[0]], n, 0.05 / 4))
    assert hi[0] == pytest.approx(metrics.one_sided_upper(tp[k_hi[0]], n, 0.05 / 4))
    assert lo[0] < math.sqrt(0.01) < hi[0]
    # No threshold can certify FPR <= 1e-5 with 1,000 negatives: the lower end is 0.
    lo, _ = metrics.tpr_interval_at_fpr(fp, tp, n, n, [1e-5], 0.95)
    assert lo[0] == 0.0


def test_accuracy_threshold_comes_from_selection_split_only():
    g = np.random.default_rng(4)
    n = 2000
    y = np.r_[np.zeros(n, bool), np.ones(n, bool)]
    s = g.normal(size=2 * n) + 1.0 * y
    res1 = auditing.evaluate_attack("a", "A", s, y, delta=0.0)
    sel = metrics.split_for_selection(y)
    s2 = s.copy()
    s2[~sel] = s2[~sel][::-1]  # scramble evaluation scores only
    res2 = auditing.evaluate_attack("a", "A", s2, y, delta=0.0)
    assert res1["details"]["accuracy_threshold"] == res2["details"]["accuracy_threshold"]
    # Scrambling the evaluation half must hurt the reported accuracy: it is not re-optimised.
    assert res2["accuracy"] < res1["accuracy"] - 0.05


def test_balanced_accuracy_ci_exact_when_balanced():
    acc, (lo, hi) = metrics.balanced_accuracy_with_ci(70, 30, 20, 80)
    assert acc == pytest.approx(0.75)
    assert (lo, hi) == pytest.approx(metrics.clopper_pearson(150, 200))
    assert metrics.advantage_ci((lo, hi)) == pytest.approx((2 * lo - 1, 2 * hi - 1))


def test_balanced_accuracy_ci_unequal_classes_combines_both_rates():
    acc, (lo, hi) = metrics.balanced_accuracy_with_ci(95, 5, 100, 900)
    assert acc == pytest.approx(0.5 * (0.95 + 0.9))
    (tpr_lo, tnr_lo), (tpr_hi, tnr_hi) = metrics.clopper_pearson_array(
        np.array([95, 900]), np.array([100, 1000]))
    assert lo == pytest.approx(acc - 0.5 * math.hypot(0.95 - tpr_lo, 0.9 - tnr_lo))
    assert hi == pytest.approx(acc + 0.5 * math.hypot(tpr_hi - 0.95, tnr_hi - 0.9))


def test_evaluate_attack_fields_and_roc_size():
    g = np.random.default_rng(5)
    n = 5000
    y = np.r_[np.zeros(n, bool), np.ones(n, bool)]
    s = g.normal(size=2 * n) + 1.5 * y
    r = auditing.evaluate_attack("x", "X", s, y, delta=1e-5)
    for key in ("auc", "auc_ci", "accuracy", "accuracy_ci", "advantage", "advantage_ci",
                "tpr_at_fpr",
                "epsilon_lower_bound", "roc", "details", "n_positive", "n_negative"):
        assert key in r
    assert len(r["roc"]["fpr"]) <= 512
    assert r["roc"]["fpr"][0] == 0.0 and r["roc"]["fpr"][-1] == 1.0
    assert np.all(np.diff(r["roc"]["fpr"]) >= 0) and np.all(np.diff(r["roc"]["tpr"]) >= 0)
    # Gaussian shift 1.5: AUC = Φ(1.5/√2).
    lo, hi = r["auc_ci"]
    assert lo <= stats.norm.cdf(1.5 / math.sqrt(2)) <= hi
    band = r["details"]["roc_band"]
    assert all(a <= b for a, b in zip(band["tpr_lower"], band["tpr_upper"], strict=True))


def test_bad_scores_rejected():
    with pytest.raises(ValueError):
        metrics.roc_curve([0.1, float("nan")], [0, 1])
    with pytest.raises(ValueError):
        metrics.roc_curve([0.1, 0.2], [1, 1])
