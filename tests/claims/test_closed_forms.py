"""Ground truth of ARCHITECTURE §6 for the mechanism engine, re-derived here from first
principles (quadrature, Monte Carlo with stated standard errors, explicit Neyman–Pearson tests).
No number is copied from elsewhere; a failure is an engine bug, never a reason to loosen a claim.
"""

from __future__ import annotations

import math

import numpy as np
import pytest
from scipy import integrate
from scipy.stats import laplace, norm

from engine.mechanisms.accounting import compose
from engine.mechanisms.calibration import analytic_gaussian_sigma
from engine.mechanisms.tradeoff import (
    dp_region_tpr_upper,
    gaussian_tradeoff,
    laplace_tradeoff,
    mechanism_tradeoff,
    pure_dp_worst_case_tradeoff,
)
from engine.runtime import rng as make_rng

FPR_TARGETS = (0.001, 0.01, 0.1)
Z = 5.0  # Monte Carlo tolerance: 5 standard errors (fixed seeds, so the outcome is fixed too)


# --------------------------------------------------------------------------- Gaussian

@pytest.mark.parametrize("sigma,k,sens", [(1.0, 1, 1.0), (4.0, 10, 1.0), (2.5, 3, 2.0)])
def test_gaussian_tradeoff_is_the_np_test_on_the_sum(sigma, k, sens):
    """k releases N(0, σ²) vs N(Δ, σ²): the NP test thresholds Σx ~ N(0 or kΔ, kσ²)."""
    curve = mechanism_tradeoff("gaussian", sigma, sens, k)
    sd = math.sqrt(k) * sigma
    thresholds = np.linspace(-5 * sd, k * sens + 5 * sd, 41)
    fpr = norm.sf(thresholds, 0.0, sd)
    tpr = norm.sf(thresholds, k * sens, sd)
    np.testing.assert_allclose(curve.tpr_at(fpr), tpr, rtol=1e-9, atol=1e-12)
    # AUC = P(S1 > S0) = Φ(kΔ/√(2kσ²)); accuracy = max over thresholds of (TPR + TNR)/2.
    assert curve.auc() == pytest.approx(norm.cdf(k * sens / math.sqrt(2 * k * sigma**2)),
                                        abs=1e-12)
    fine = np.linspace(-5 * sd, k * sens + 5 * sd, 200_001)
    acc_grid = np.max((norm.sf(fine, k * sens, sd) + norm.cdf(fine, 0.0, sd)) / 2)
    assert curve.accuracy() == pytest.approx(acc_grid, abs=1e-9)
    auc_quad, _ = integrate.quad(lambda a: curve.tpr_at(a), 0, 1, limit=200,
                                 points=[1e-6, 1e-3, 1e-2])
    assert curve.auc() == pytest.approx(auc_quad, abs=1e-6)
    for a in FPR_TARGETS:  # 3-decimal agreement with the exact value
        assert abs(curve.tpr_at(a) - norm.sf(norm.isf(a, 0, sd), k * sens, sd)) < 1e-3


# --------------------------------------------------------------------------- Laplace k = 1

def _laplace_np_roc(b: float, sens: float, n: int = 120):
    """ROC of the NP test for one release, by quadrature of the two Laplace densities.

    The likelihood ratio exp((2·clip(x,0,Δ) − Δ)/b) is constant for x ≥ Δ, so the tests are
    'x ≥ c' for c ∈ (0, Δ], with randomisation on the flat part: linear from (0, 0) to the point
    at c = Δ. Each rate is integrated on [c, Δ] and [Δ, Δ + 60b] separately so that quad never
    straddles a density's kink (at 0 for H0, at Δ for H1).
    """
    def mass(loc, c):
        inner, _ = integrate.quad(lambda x: laplace.pdf(x, loc, b), c, sens,
                                  epsabs=1e-14, epsrel=1e-12)
        outer, _ = integrate.quad(lambda x: laplace.pdf(x, loc, b), sens, sens + 60 * b,
                                  epsabs=1e-14, epsrel=1e-12)
        return inner + outer

    fpr, tpr = [0.0], [0.0]
    for c in np.linspace(sens, 0.0, n):
        fpr.append(mass(0.0, c))
        tpr.append(mass(sens, c))
    fpr.append(1.0)
    tpr.append(1.0)
    return np.array(fpr), np.array(tpr)


@pytest.mark.parametrize("b", [0.3, 1.0, 2.5])
def test_laplace_k1_closed_form_vs_quadrature(b):
    sens = 1.0
    curve = laplace_tradeoff(b, sens, 1)
    fpr, tpr = _laplace_np_roc(b, sens)
    np.testing.assert_allclose(curve.tpr_at(fpr), tpr, atol=1e-9)
    # Accuracy = (1 + TV)/2 with TV = ∫ max(0, p1 − p0) dx.
    tv, _ = integrate.quad(lambda x: max(0.0, laplace.pdf(x, sens, b) - laplace.pdf(x, 0, b)),
                           -30 * b, 30 * b + sens, points=[0.0, sens / 2, sens], limit=200)
    assert curve.accuracy() == pytest.approx((1 + tv) / 2, abs=1e-9)
    # AUC: area under the piecewise ROC, integrated numerically.
    auc_quad, _ = integrate.quad(lambda a: curve.tpr_at(a), 0, 1, limit=400,
                                 points=[math.exp(-sens / b) / 2, 0.5])
    assert curve.auc() == pytest.approx(auc_quad, abs=1e-9)
    for a in FPR_TARGETS:
        assert abs(curve.tpr_at(a) - np.interp(a, fpr, tpr)) < 1e-3


def test_laplace_k1_auc_by_monte_carlo():
    """AUC = P(S1 > S0) + ½ P(S1 = S0) with S = clip(x, 0, Δ) (ties at the atoms 0 and Δ)."""
    b, sens, n = 0.8, 1.0, 1_000_000
    g = make_rng(2024, "claims", "laplace-k1-auc")
    s0 = np.clip(g.laplace(0.0, b, n), 0, sens)
    s1 = np.clip(g.laplace(sens, b, n), 0, sens)
    score = (s1 > s0) + 0.5 * (s1 == s0)
    se = score.std(ddof=1) / math.sqrt(n)
    assert abs(score.mean() - laplace_tradeoff(b, sens, 1).auc()) < Z * se


# --------------------------------------------------------------------------- Laplace k > 1

@pytest.mark.parametrize("b,k", [(1.0, 5), (2.0, 3)])
def test_laplace_k_releases_numerical_convolution_vs_monte_carlo(b, k):
    sens, n = 1.0, 1_000_000
    curve = laplace_tradeoff(b, sens, k)
    g = make_rng(99, "claims", "laplace-sum", k)
    s0 = np.clip(g.laplace(0.0, b, (n, k)), 0, sens).sum(axis=1)
    s1 = np.clip(g.laplace(sens, b, (n, k)), 0, sens).sum(axis=1)
    # ROC points of thresholds on S: TPR at the Monte Carlo FPR, with the CI of both rates.
    for c in np.quantile(s0, [0.5, 0.9, 0.99, 0.999]):
        f = np.mean(s0 >= c)
        t = np.mean(s1 >= c)
        h = 1e-3 * max(f, 1e-4)
        slope = (curve.tpr_at(min(1.0, f + h)) - curve.tpr_at(max(0.0, f - h))) / (2 * h)
        se = math.sqrt(t * (1 - t) / n) + slope * math.sqrt(f * (1 - f) / n)
        assert abs(curve.tpr_at(f) - t) < Z * se + curve.numerical_error
    # AUC with ties counted ½ (S has atoms at 0 and kΔ).
    s0p = np.sort(s0)
    below = np.searchsorted(s0p, s1, side="left")
    equal = np.searchsorted(s0p, s1, side="right") - below
    auc_mc = (below + 0.5 * equal).sum() / n / n
    # Standard error of a two-sample AUC (Hanley–McNeil style bound): ≤ sqrt(AUC(1−AUC)/n)·√2.
    se = math.sqrt(2 * auc_mc * (1 - auc_mc) / n)
    assert abs(curve.auc() - auc_mc) < Z * se + curve.numerical_error


def test_laplace_numerical_3_decimals_against_closed_form_at_k1():
    from engine.mechanisms.tradeoff import _laplace_numerical

    for b in (0.5, 1.0, 2.0):
        exact = laplace_tradeoff(b, 1.0, 1)
        num = _laplace_numerical(b, 1.0, 1, 2048)
        assert abs(num.auc() - exact.auc()) < 1e-3
        assert abs(num.accuracy() - exact.accuracy()) < 1e-3
        for a in FPR_TARGETS:
            assert abs(num.tpr_at(a) - exact.tpr_at(a)) < 1e-3


# --------------------------------------------------------------------------- KOV worst case

GRID = np.concatenate((np.logspace(-6, 0, 121), np.linspace(0, 1, 201)))


@pytest.mark.parametrize("b,k", [(1.0, 1), (0.5, 3), (2.0, 10), (4.0, 25)])
def test_kov_worst_case_dominates_laplace(b, k):
    """Laplace with scale b is ε0 = Δ/b-DP, so its k-fold ROC lies under the KOV curve."""
    lap = laplace_tradeoff(b, 1.0, k)
    worst = pure_dp_worst_case_tradeoff(1.0 / b, k)
    assert np.all(worst.tpr_at(GRID) >= lap.tpr_at(GRID) - lap.numerical_error - 1e-12)


# --------------------------------------------------------------------------- DP region

@pytest.mark.parametrize("mechanism,scale,sens,k", [
    ("laplace", 1.0, 1.0, 1), ("laplace", 2.0, 1.0, 8), ("gaussian", 3.0, 1.0, 10),
    ("gaussian", 1.0, 2.0, 1), ("discrete_laplace", 1.5, 2, 4), ("discrete_gaussian", 2.0, 1, 6),
])
def test_every_tradeoff_inside_its_composed_dp_region(mechanism, scale, sens, k):
    """Paper 002 Thm 1: an (ε, δ)-DP mechanism allows TPR ≤ e^ε FPR + δ and TNR ≤ e^ε FNR + δ."""
    for delta in (1e-6, 1e-3):
        composed = compose(mechanism, scale, sens, k, delta)
        curve = mechanism_tradeoff(mechanism, scale, sens, k)
        upper = dp_region_tpr_upper(GRID, composed.epsilon, delta)
        assert np.all(curve.tpr_at(GRID) <= upper + curve.numerical_error + 1e-9)
        # The vertices themselves, not only the interpolated grid.
        upper_v = dp_region_tpr_upper(curve.fpr, composed.epsilon, delta)
        assert np.all(curve.tpr <= upper_v + curve.numerical_error + 1e-9)


def test_gaussian_tradeoff_touches_its_exact_region():
    """With the exact GDP ε the region is tight: some FPR gets within 1e-6 of the boundary."""
    composed = compose("gaussian", 2.0, 1.0, 4, 1e-5)
    curve = gaussian_tradeoff(composed.gdp_mu)
    f = np.logspace(-12, 0, 20001)
    gap = dp_region_tpr_upper(f, composed.epsilon, 1e-5) - curve.tpr_at(f)
    assert gap.min() >= -1e-9 and gap.min() < 1e-6


# --------------------------------------------------------------------------- analytic Gaussian

@pytest.mark.parametrize("eps,delta", [(0.3, 1e-5), (1.0, 1e-5), (3.0, 1e-8)])
def test_analytic_gaussian_sigma_tight(eps, delta):
    """δ(σ) by quadrature of max(0, p − e^ε q): ≤ δ at σ, > δ at 0.99σ (Balle & Wang 2018)."""
    sens = 1.0
    sigma = analytic_gaussian_sigma(eps, delta, sens)

    def hockey(s):
        cut = sens / 2 - eps * s**2 / sens
        val, _ = integrate.quad(lambda x: norm.pdf(x, 0, s) - math.exp(eps) * norm.pdf(x, sens, s),
                                cut - 40 * s, cut, epsabs=1e-15, epsrel=1e-10, limit=200)
        return val

    assert hockey(sigma) <= delta * (1 + 1e-6)
    assert hockey(0.99 * sigma) > delta
