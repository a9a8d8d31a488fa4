"""Optimal-attacker ROCs (f-DP trade-offs): structure, closed forms, exact identities."""

from __future__ import annotations

import math

import numpy as np
import pytest
from scipy.special import ndtr, ndtri
from scipy.stats import binom

from engine.data.errors import InputError
from engine.mechanisms import tradeoff as tr
from engine.mechanisms.tradeoff import (
    TradeOff,
    discrete_gaussian_tradeoff,
    discrete_laplace_tradeoff,
    dp_region_tpr_upper,
    gaussian_tradeoff,
    laplace_tradeoff,
    mechanism_tradeoff,
    pure_dp_worst_case_tradeoff,
)

GRID = np.concatenate((np.logspace(-6, 0, 61), np.linspace(0, 1, 101)))


def _all_tradeoffs() -> list[TradeOff]:
    return [gaussian_tradeoff(1.3), laplace_tradeoff(1.0, 1.0, 1), laplace_tradeoff(2.0, 1.0, 4),
            discrete_laplace_tradeoff(1.5, 2, 3), discrete_gaussian_tradeoff(2.0, 1, 5),
            pure_dp_worst_case_tradeoff(0.7, 6)]


@pytest.mark.parametrize("curve", _all_tradeoffs(), ids=lambda c: f"{c.method}|{c.statistic}")
def test_roc_structure(curve: TradeOff):
    f, t = curve.fpr, curve.tpr
    assert f[0] == 0.0 and f[-1] == 1.0 and t[-1] == pytest.approx(1.0)
    assert np.all(np.diff(f) >= 0) and np.all(np.diff(t) >= -1e-15)
    assert np.all(t >= f - 1e-12)          # the optimal attacker beats guessing
    # Concave: slopes never increase (vertices of the Neyman–Pearson ROC).
    df, dt = np.diff(f), np.diff(t)
    s = dt[df > 1e-12] / df[df > 1e-12]
    assert np.all(np.diff(s) <= 1e-6 * np.maximum(1.0, s[1:]))
    assert 0.5 <= curve.auc() <= 1.0
    assert 0.5 <= curve.accuracy() <= 1.0
    assert curve.advantage() == pytest.approx(2 * curve.accuracy() - 1)
    assert curve.numerical_error >= 0.0
    assert curve.method in ("closed form", "exact convolution", "numerical convolution")
    fr, trr = curve.roc_points(512)
    assert fr.size <= 512 and fr[0] == 0.0 and fr[-1] == 1.0
    assert np.all(np.diff(fr) > 0)
    assert fr[1] <= 1e-6 * (1 + 1e-9)
    assert np.all(np.diff(trr) >= -1e-12)
    assert curve.roc_points(64)[0].size <= 64


def test_tpr_at_scalar_and_array():
    g = gaussian_tradeoff(1.0)
    assert isinstance(g.tpr_at(0.1), float)
    assert g.tpr_at(np.array([0.1, 0.2])).shape == (2,)
    d = discrete_laplace_tradeoff(1.0, 1, 2)
    assert isinstance(d.tpr_at(0.1), float)


def test_gaussian_closed_form_values():
    mu = 1.7
    g = gaussian_tradeoff(mu)
    np.testing.assert_allclose(g.tpr_at(GRID), ndtr(ndtri(GRID) + mu), rtol=1e-12, atol=1e-15)
    assert g.auc() == pytest.approx(ndtr(mu / math.sqrt(2)), rel=1e-14)
    assert g.accuracy() == pytest.approx(ndtr(mu / 2), rel=1e-14)
    # The stored grid is dense enough that its trapezoid is close to the exact AUC.
    assert np.trapezoid(g.tpr, g.fpr) == pytest.approx(g.auc(), abs=1e-4)
    assert g.method == "closed form" and g.numerical_error == 0.0


def test_laplace_k1_closed_form_pieces_are_continuous_and_known_points():
    for b in (0.3, 1.0, 4.0):
        curve = laplace_tradeoff(b, 1.0, 1)
        e0 = 1.0 / b
        knee = math.exp(-e0) / 2
        # Continuity at the knees, and the values the formula gives there.
        assert curve.tpr_at(knee * (1 - 1e-12)) == pytest.approx(0.5, abs=1e-9)
        assert curve.tpr_at(knee * (1 + 1e-12)) == pytest.approx(0.5, abs=1e-9)
        assert curve.tpr_at(0.5) == pytest.approx(1 - math.exp(-e0) / 2, rel=1e-12)
        assert curve.advantage() == pytest.approx(1 - math.exp(-e0 / 2), rel=1e-12)


@pytest.mark.parametrize("b", [0.2, 0.5, 1.0, 3.0])
def test_laplace_numerical_path_matches_closed_form_at_k1(b):
    exact = laplace_tradeoff(b, 1.0, 1)
    numeric = tr._laplace_numerical(b, 1.0, 1, 2048)
    assert numeric.method == "numerical convolution"
    assert abs(numeric.auc() - exact.auc()) < 1e-3
    assert abs(numeric.accuracy() - exact.accuracy()) < 1e-3
    for a in (0.001, 0.01, 0.1):
        assert abs(numeric.tpr_at(a) - exact.tpr_at(a)) < 1e-3
    # The stated error bound really bounds the error.
    err = np.max(np.abs(numeric.tpr_at(GRID) - exact.tpr_at(GRID)))
    assert err <= numeric.numerical_error
    assert abs(numeric.auc() - exact.auc()) <= numeric.numerical_error


def test_laplace_more_observations_leak_more():
    aucs = [laplace_tradeoff(2.0, 1.0, k).auc() for k in (1, 2, 5, 20)]
    assert all(a < b for a, b in zip(aucs, aucs[1:], strict=False))
    curve = laplace_tradeoff(2.0, 1.0, 5)
    assert curve.method == "numerical convolution"
    assert 0 < curve.numerical_error < 1e-4
    assert "clip" in curve.statistic


def test_discrete_laplace_with_unit_sensitivity_is_randomised_response():
    """clip(x, 0, 1) of discrete Laplace noise is randomised response with ε0 = 1/t, so the
    k-fold curve must coincide with the KOV worst case — an exact identity."""
    for t, k in [(1.0, 1), (0.8, 5), (2.5, 12)]:
        d = discrete_laplace_tradeoff(t, 1, k)
        w = pure_dp_worst_case_tradeoff(1.0 / t, k)
        np.testing.assert_allclose(d.tpr_at(GRID), w.tpr_at(GRID), atol=1e-12)
        assert d.auc() == pytest.approx(w.auc(), abs=1e-12)


def test_discrete_gaussian_approaches_gaussian_for_large_sigma():
    sigma, k, sens = 40.0, 6, 3
    d = discrete_gaussian_tradeoff(sigma, sens, k)
    g = gaussian_tradeoff(math.sqrt(k) * sens / sigma)
    assert d.auc() == pytest.approx(g.auc(), abs=1e-4)
    assert d.accuracy() == pytest.approx(g.accuracy(), abs=1e-4)
    assert d.method == "exact convolution" and d.numerical_error < 1e-9


def test_worst_case_k1_vertices():
    e0 = 0.9
    w = pure_dp_worst_case_tradeoff(e0, 1)
    p = math.exp(e0) / (1 + math.exp(e0))
    np.testing.assert_allclose(w.fpr, [0.0, 1 - p, 1.0], atol=1e-15)
    np.testing.assert_allclose(w.tpr, [0.0, p, 1.0], atol=1e-15)
    # That vertex is on the boundary of the ε0-DP region (paper 002, Thm 1 with δ = 0).
    assert dp_region_tpr_upper(1 - p, e0, 0.0) == pytest.approx(p, rel=1e-12)


def test_worst_case_auc_from_binomials():
    e0, k = 0.4, 9
    p = math.exp(e0) / (1 + math.exp(e0))
    j = np.arange(k + 1)
    p1, p0 = binom.pmf(j, k, p), binom.pmf(j, k, 1 - p)
    # AUC = P(J1 > J0) + ½ P(J1 = J0) for independent draws.
    auc = sum(p1[a] * p0[b] * (1.0 if a > b else 0.5 if a == b else 0.0)
              for a in j for b in j)
    assert pure_dp_worst_case_tradeoff(e0, k).auc() == pytest.approx(auc, abs=1e-12)


def test_dp_region_formula():
    f = np.array([0.0, 1e-3, 0.1, 0.5, 1.0])
    eps, delta = 1.2, 1e-3
    expected = np.minimum(1.0, np.minimum(math.exp(eps) * f + delta,
                                          1 - math.exp(-eps) * (1 - delta - f)))
    np.testing.assert_allclose(dp_region_tpr_upper(f, eps, delta), expected, rtol=1e-14)
    assert dp_region_tpr_upper(1.0, eps, delta) == pytest.approx(1.0)
    assert dp_region_tpr_upper(0.0, eps, delta) == pytest.approx(delta)
    with pytest.raises(InputError):
        dp_region_tpr_upper(f, -1.0, delta)


def test_mechanism_dispatch_and_errors():
    g = mechanism_tradeoff("gaussian", 2.0, 1.0, 4)
    assert g.auc() == pytest.approx(gaussian_tradeoff(1.0).auc())
    assert mechanism_tradeoff("laplace", 1.0, 1.0, 1).method == "closed form"
    assert mechanism_tradeoff("discrete_laplace", 1.0, 1, 2).method == "exact convolution"
    assert mechanism_tradeoff("discrete_gaussian", 1.0, 1, 2).method == "exact convolution"
    with pytest.raises(InputError, match="laplace"):
        mechanism_tradeoff("exponential", 1.0, 1.0, 1)
    with pytest.raises(InputError, match="whole number"):
        discrete_laplace_tradeoff(1.0, 1.5, 2)
    with pytest.raises(InputError):
        laplace_tradeoff(1.0, 1.0, 0)
    with pytest.raises(InputError):
        laplace_tradeoff(-1.0, 1.0, 2)
    with pytest.raises(InputError):
        gaussian_tradeoff(0.0)


def _brute_upper_hull(x, y):
    """Andrew's monotone chain, one point at a time (the obvious reference)."""
    hx, hy = [], []
    for xi, yi in zip(x, y, strict=True):
        if hx and xi == hx[-1]:          # same x: keep the higher point
            if yi <= hy[-1]:
                continue
            hx.pop()
            hy.pop()
        while len(hx) >= 2 and (hx[-1] - hx[-2]) * (yi - hy[-2]) - (hy[-1] - hy[-2]) * (xi - hx[-2]) >= 0:
            hx.pop()
            hy.pop()
        hx.append(xi)
        hy.append(yi)
    return np.array(hx), np.array(hy)


def test_concave_majorant_matches_monotone_chain_with_dents_and_duplicates():
    g = np.random.default_rng(8)
    x = np.sort(np.concatenate(([0.0, 1.0], g.random(300))))
    x = np.repeat(x, g.integers(1, 3, x.size))          # duplicated x values
    y = np.sqrt(x) + g.normal(0, 0.01, x.size)           # concave curve with noisy dents
    y = np.clip(np.maximum.accumulate(y), 0, 1)
    y[0], y[-1] = 0.0, 1.0
    hx, hy = tr._concave_majorant(x, y)
    bx, by = _brute_upper_hull(x.tolist(), y.tolist())
    grid = np.linspace(0, 1, 2001)
    np.testing.assert_allclose(np.interp(grid, hx, hy), np.interp(grid, bx, by), atol=1e-12)


def test_many_observations_stay_fast_and_sane():
    a100 = laplace_tradeoff(10.0, 1.0, 100)
    a1000 = laplace_tradeoff(10.0, 1.0, 1000)
    assert a100.auc() < a1000.auc() <= 1.0
    # The likelihood-ratio tail repair keeps the FFT's roundoff out of the low-FPR corner.
    assert a1000.numerical_error < 5e-3
    assert pure_dp_worst_case_tradeoff(0.1, 1000).tpr_at(0.01) >= a1000.tpr_at(0.01) - \
        a1000.numerical_error


@pytest.mark.parametrize("k", [60, 200])
def test_fft_path_agrees_with_direct_convolution_within_its_stated_error(monkeypatch, k):
    """The FFT path's numerical_error is a real bound: compare it with the direct path."""
    direct = tr.discrete_gaussian_tradeoff(5.0, 1, k)
    assert direct.numerical_error < 1e-12
    monkeypatch.setattr(tr, "_DIRECT_CONVOLUTION_BUDGET", 0)
    fft = tr.discrete_gaussian_tradeoff(5.0, 1, k)
    assert 0 < fft.numerical_error < 1e-6
    grid = np.r_[np.geomspace(1e-6, 1, 300)]
    gap = np.max(np.abs(fft.tpr_at(grid) - direct.tpr_at(grid)))
    assert gap <= fft.numerical_error
    assert abs(fft.auc() - direct.auc()) <= fft.numerical_error


def test_laplace_many_observations_matches_monte_carlo():
    """k = 1000 (FFT path): AUC and TPR at 0.1 % FPR against a seeded simulation of Σ clip."""
    b, k, n = 10.0, 1000, 20000
    g = np.random.default_rng(11)
    s0 = np.zeros(n)
    s1 = np.zeros(n)
    for _ in range(10):  # 10 chunks of 100 observations keep memory small
        s0 += np.clip(g.laplace(0.0, b, (n, k // 10)), 0, 1).sum(axis=1)
        s1 += np.clip(g.laplace(1.0, b, (n, k // 10)), 0, 1).sum(axis=1)
    curve = laplace_tradeoff(b, 1.0, k)
    from scipy.stats import mannwhitneyu
    auc_mc = mannwhitneyu(s1, s0).statistic / n / n
    a = auc_mc  # Hanley & McNeil (1982) standard error of an AUC with n per class
    q1, q2 = a / (2 - a), 2 * a * a / (1 + a)
    se = math.sqrt((a * (1 - a) + (n - 1) * (q1 - a * a) + (n - 1) * (q2 - a * a)) / (n * n))
    assert abs(curve.auc() - auc_mc) < 4 * se + curve.numerical_error
    thr = np.quantile(s0, 1 - 1e-3)
    tpr_mc = np.mean(s1 > thr)
    fpr_mc = np.mean(s0 > thr)
    # The exact curve at the achieved FPR, within 4 binomial SEs (plus the FPR's own noise).
    lo, hi = curve.tpr_at(max(fpr_mc - 4 * math.sqrt(fpr_mc / n), 0)), curve.tpr_at(
        fpr_mc + 4 * math.sqrt(fpr_mc / n))
    se_t = math.sqrt(tpr_mc * (1 - tpr_mc) / n)
    assert lo - 4 * se_t - curve.numerical_error <= tpr_mc <= hi + 4 * se_t + curve.numerical_error


def test_dp_region_for_a_huge_epsilon_is_delta_at_zero_fpr():
    """ε past exp's range (DP-SGD with σ = 0.1 reports ε ≈ 5,000): δ at FPR 0, not NaN."""
    import warnings

    with warnings.catch_warnings():
        warnings.simplefilter("error")
        tpr = dp_region_tpr_upper(np.array([0.0, 1e-4, 0.5]), 5326.0, 1e-5)
    assert tpr.tolist() == [1e-5, 1.0, 1.0]


def test_a_near_perfect_attack_gives_a_finite_curve_without_warnings():
    """Discrete Gaussian noise at ε = 10 over 300 observations: the exact ROC has FPR steps of
    1e-323, whose slopes overflowed to inf (a RuntimeWarning on the user's console, and NaN
    one subtraction later) before such steps were merged."""
    import warnings

    from engine.mechanisms.calibration import noise_scale
    from engine.mechanisms.tradeoff import mechanism_tradeoff

    scale = noise_scale("discrete_gaussian", 10.0, 1e-5, 1.0)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        curve = mechanism_tradeoff("discrete_gaussian", scale, 1.0, 300)
        fpr, tpr = curve.fpr, curve.tpr
    assert np.all(np.isfinite(fpr)) and np.all(np.isfinite(tpr))
    assert fpr[0] == 0.0 and fpr[-1] == 1.0 and curve.accuracy() == pytest.approx(1.0)
