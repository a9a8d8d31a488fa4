"""Calibration: noise scale from (ε, δ, Δ). Checked against first-principles hockey-stick
divergences, never against copied numbers."""

from __future__ import annotations

import math

import numpy as np
import pytest
from scipy import integrate
from scipy.stats import norm

from engine.data.errors import InputError
from engine.mechanisms import calibration as cal


def _gaussian_hockey_stick(sigma: float, epsilon: float, sensitivity: float) -> float:
    """δ(ε) = ∫ max(0, p(x) − e^ε q(x)) dx for p = N(0, σ²), q = N(Δ, σ²), by quadrature.

    The integrand is positive exactly where the privacy loss exceeds ε, i.e. for
    x < Δ/2 − εσ²/Δ, so the integral is taken over that half-line only.
    """
    cut = sensitivity / 2.0 - epsilon * sigma**2 / sensitivity

    def f(x):
        return norm.pdf(x, 0, sigma) - math.exp(epsilon) * norm.pdf(x, sensitivity, sigma)

    val, _ = integrate.quad(f, cut - 40 * sigma, cut, epsabs=1e-14, epsrel=1e-10, limit=200)
    return val


def _discrete_gaussian_hockey_stick(sigma: float, epsilon: float, sensitivity: int) -> float:
    """Σ_x max(0, P(x) − e^ε Q(x)) for P = N_Z(0, σ²), Q = N_Z(Δ, σ²), summed directly."""
    half = int(30 * sigma + 5 * sensitivity + 30)
    x = np.arange(-half, half + 1)
    w = np.exp(-(x.astype(float) ** 2) / (2 * sigma**2))
    p = w / w.sum()
    q = np.exp(-((x - sensitivity).astype(float) ** 2) / (2 * sigma**2)) / w.sum()
    return float(np.sum(np.maximum(0.0, p - math.exp(epsilon) * q)))


def test_laplace_scales_are_sensitivity_over_epsilon():
    assert cal.laplace_scale(0.5, 2.0) == pytest.approx(4.0)
    assert cal.discrete_laplace_scale(2.0, 3) == pytest.approx(1.5)
    assert cal.noise_scale("laplace", 1.0, 1e-5, 1.0) == pytest.approx(1.0)


@pytest.mark.parametrize("eps,delta,sens", [(0.1, 1e-5, 1.0), (1.0, 1e-5, 1.0),
                                            (1.0, 1e-10, 3.0), (5.0, 1e-6, 0.5),
                                            (10.0, 1e-3, 2.0)])
def test_analytic_gaussian_sigma_is_smallest_valid(eps, delta, sens):
    sigma = cal.analytic_gaussian_sigma(eps, delta, sens)
    # Valid (by the exact profile and by an independent quadrature) ...
    assert cal.analytic_gaussian_delta(sigma, eps, sens) <= delta
    assert _gaussian_hockey_stick(sigma, eps, sens) <= delta * (1 + 1e-6)
    # ... and minimal: 0.1 % less noise already breaks δ.
    assert _gaussian_hockey_stick(0.999 * sigma, eps, sens) > delta


def test_analytic_gaussian_scales_linearly_and_beats_classical_bound():
    s1 = cal.analytic_gaussian_sigma(0.5, 1e-5, 1.0)
    assert cal.analytic_gaussian_sigma(0.5, 1e-5, 4.0) == pytest.approx(4 * s1, rel=1e-9)
    # Dwork & Roth 2014 Thm A.1 (valid for ε < 1) is sufficient, hence never smaller.
    classical = math.sqrt(2 * math.log(1.25 / 1e-5)) / 0.5
    assert s1 < classical


def test_gaussian_delta_matches_balle_wang_profile_and_quadrature():
    # μ-GDP with μ = Δ/σ is exactly the single Gaussian mechanism (Dong, Roth & Su 2019).
    for sigma, eps in [(1.0, 0.5), (3.0, 1.0), (0.7, 2.0)]:
        mu = 1.0 / sigma
        d = cal.gaussian_delta(eps, mu)
        assert d == pytest.approx(cal.analytic_gaussian_delta(sigma, eps, 1.0), rel=1e-12)
        assert d == pytest.approx(_gaussian_hockey_stick(sigma, eps, 1.0), rel=1e-6, abs=1e-14)


@pytest.mark.parametrize("mu", [0.1, 0.5, 1.0, 3.0, 8.0])
def test_gaussian_epsilon_inverts_gaussian_delta(mu):
    for delta in (1e-9, 1e-5, 1e-2):
        eps = cal.gaussian_epsilon(delta, mu)
        if eps == 0.0:
            assert cal.gaussian_delta(0.0, mu) <= delta
            continue
        assert cal.gaussian_delta(eps, mu) <= delta
        assert cal.gaussian_delta(eps * (1 - 1e-6), mu) > delta


def test_discrete_gaussian_delta_is_the_exact_hockey_stick():
    # CKS 2020 Thm 7 (tail form) against the brute-force divergence over the integers.
    for sigma, eps, sens in [(0.6, 1.0, 1), (2.0, 0.5, 1), (3.0, 1.0, 2), (5.0, 3.0, 3)]:
        assert cal.discrete_gaussian_delta(sigma, eps, sens) == pytest.approx(
            _discrete_gaussian_hockey_stick(sigma, eps, sens), rel=1e-9, abs=1e-16)


@pytest.mark.parametrize("eps,delta,sens", [(0.5, 1e-5, 1), (1.0, 1e-6, 2), (4.0, 1e-5, 1)])
def test_discrete_gaussian_sigma_is_smallest_valid(eps, delta, sens):
    sigma = cal.discrete_gaussian_sigma(eps, delta, sens)
    assert _discrete_gaussian_hockey_stick(sigma, eps, sens) <= delta * (1 + 1e-9)
    assert _discrete_gaussian_hockey_stick(0.99 * sigma, eps, sens) > delta
    # For σ ≫ 1 the discrete and continuous Gaussians nearly coincide.
    if sigma > 3:
        assert sigma == pytest.approx(cal.analytic_gaussian_sigma(eps, delta, sens), rel=0.02)


@pytest.mark.parametrize("call", [
    lambda: cal.laplace_scale(0.0, 1.0),
    lambda: cal.laplace_scale(-1.0, 1.0),
    lambda: cal.laplace_scale(float("nan"), 1.0),
    lambda: cal.laplace_scale(1.0, 0.0),
    lambda: cal.analytic_gaussian_sigma(1.0, 0.0, 1.0),
    lambda: cal.analytic_gaussian_sigma(1.0, 1.0, 1.0),
    lambda: cal.analytic_gaussian_sigma(1.0, 1e-5, -2.0),
    lambda: cal.discrete_laplace_scale(1.0, 1.5),
    lambda: cal.discrete_gaussian_sigma(1.0, 1e-5, 0.5),
    lambda: cal.gaussian_epsilon(2.0, 1.0),
    lambda: cal.gaussian_delta(1.0, 0.0),
    lambda: cal.noise_scale("exponential", 1.0, 1e-5, 1.0),
])
def test_bad_inputs_raise_input_error_with_a_sentence(call):
    with pytest.raises(InputError) as info:
        call()
    message = str(info.value)
    assert message.endswith(".") and len(message.split()) >= 5


def test_unknown_mechanism_message_lists_allowed_values():
    with pytest.raises(InputError, match="discrete_gaussian"):
        cal.noise_scale("exponential", 1.0, 1e-5, 1.0)
