"""Noise scale from a privacy target (ε, δ) and the sensitivity Δ.

Sources:

* Laplace: b = Δ/ε gives pure ε-DP (Dwork, McSherry, Nissim, Smith 2006).
* Analytic Gaussian mechanism: Balle & Wang 2018, "Improving the Gaussian mechanism for
  differential privacy", Thm 8 / Alg. 1 — the *smallest* σ whose exact privacy profile
  δ(ε) = Φ(Δ/(2σ) − εσ/Δ) − e^ε Φ(−Δ/(2σ) − εσ/Δ) stays below δ.
* Gaussian differential privacy: Dong, Roth & Su 2019, "Gaussian differential privacy", Cor. 2.13:
  μ-GDP ⇔ (ε, δ(ε))-DP for all ε ≥ 0 with δ(ε) = Φ(−ε/μ + μ/2) − e^ε Φ(−ε/μ − μ/2).
* Discrete Laplace: pmf ∝ exp(−|x|/t) on the integers is (Δ/t)-DP for integer Δ
  (Canonne, Kamath & Steinke 2020, "The discrete Gaussian for differential privacy", §2).
* Discrete Gaussian: exact privacy profile, CKS 2020 Thm 7, summed over the integer support.
"""

from __future__ import annotations

import math

import numpy as np
from scipy.optimize import brentq
from scipy.special import log_ndtr

from engine.data.errors import InputError, given_value
from engine.mechanisms.arguments import (
    open_delta,
    positive,
    unknown_mechanism,
)
from engine.mechanisms.arguments import sensitivity as check_sensitivity

# --------------------------------------------------------------------------- validation

def _diff_of_normal_cdfs(a: float, b: float, epsilon: float) -> float:
    """Φ(a) − e^ε Φ(b), computed without cancellation or overflow.

    Written as Φ(a)·(1 − exp(ε + log Φ(b) − log Φ(a))) so that tiny tails (δ ≈ 1e-12 at large ε,
    where both terms underflow in linear space) keep their relative precision.
    """
    la = float(log_ndtr(a))
    lb = float(log_ndtr(b))
    expo = epsilon + lb - la
    # expo ≥ 0 only through rounding (the exact value is never negative): report 0.
    return max(0.0, float(math.exp(la) * -math.expm1(expo)))


# --------------------------------------------------------------------------- Laplace

def laplace_scale(epsilon: float, sensitivity: float) -> float:
    """Laplace scale b = Δ/ε, which makes one release pure ε-DP (Dwork et al. 2006)."""
    return check_sensitivity(sensitivity) / positive(epsilon, "epsilon", "epsilon")


def discrete_laplace_scale(epsilon: float, sensitivity: float) -> float:
    """Discrete Laplace scale t = Δ/ε (pmf ∝ exp(−|x|/t)): pure ε-DP for integer Δ (CKS 2020 §2)."""
    return check_sensitivity(sensitivity, integer=True) / positive(epsilon, "epsilon", "epsilon")


# --------------------------------------------------------------------------- Gaussian

def analytic_gaussian_delta(sigma: float, epsilon: float, sensitivity: float) -> float:
    """Exact δ(ε) of the Gaussian mechanism N(0, σ²) with sensitivity Δ (Balle & Wang 2018, Thm 8)."""
    r = sensitivity / (2.0 * sigma)
    s = epsilon * sigma / sensitivity
    return _diff_of_normal_cdfs(r - s, -r - s, epsilon)


def analytic_gaussian_sigma(epsilon: float, delta: float, sensitivity: float) -> float:
    """Smallest σ with Φ(Δ/(2σ) − εσ/Δ) − e^ε Φ(−Δ/(2σ) − εσ/Δ) ≤ δ.

    Balle & Wang 2018, Thm 8 (the condition is necessary and sufficient), solved as in their
    Alg. 1 by root finding; here brentq on log σ over a bracket that is widened until it holds
    the root. δ(σ) is strictly decreasing in σ, so the root is the smallest valid σ.
    """
    eps = positive(epsilon, "epsilon", "epsilon")
    dlt = open_delta(delta)
    sens = check_sensitivity(sensitivity)

    def excess(log_sigma: float) -> float:
        return analytic_gaussian_delta(math.exp(log_sigma), eps, sens) - dlt

    lo, hi = math.log(sens) - 1.0, math.log(sens) + 1.0
    while excess(lo) <= 0:  # too much noise even at lo: move the bracket down
        lo -= 2.0
    while excess(hi) > 0:   # too little noise at hi: move the bracket up
        hi += 2.0
    log_sigma = brentq(excess, lo, hi, xtol=1e-14, rtol=1e-14, maxiter=500)
    sigma = math.exp(log_sigma)
    # brentq may stop a hair below the root; the caller is promised δ(σ) ≤ δ.
    while analytic_gaussian_delta(sigma, eps, sens) > dlt:
        sigma = math.nextafter(sigma, math.inf) * (1 + 1e-15)
    return sigma


def gaussian_delta(epsilon: float, mu: float) -> float:
    """δ(ε) = Φ(−ε/μ + μ/2) − e^ε Φ(−ε/μ − μ/2) for μ-GDP (Dong, Roth & Su 2019, Cor. 2.13)."""
    eps = float(epsilon)
    if eps < 0:
        raise InputError(f"Epsilon must not be negative, got {given_value(epsilon)}.", key="epsilon")
    m = positive(mu, "Gaussian-DP parameter mu", "mu")
    return _diff_of_normal_cdfs(-eps / m + m / 2.0, -eps / m - m / 2.0, eps)


def gaussian_epsilon(delta: float, mu: float) -> float:
    """Smallest ε ≥ 0 with gaussian_delta(ε, μ) ≤ δ (inverse of Dong, Roth & Su 2019, Cor. 2.13).

    δ(ε) is strictly decreasing in ε, so brentq on a widened bracket finds the unique root.
    """
    dlt = open_delta(delta)
    m = positive(mu, "Gaussian-DP parameter mu", "mu")
    if gaussian_delta(0.0, m) <= dlt:
        return 0.0
    hi = max(1.0, m * m)
    while gaussian_delta(hi, m) > dlt:
        hi *= 2.0
    eps = brentq(lambda e: gaussian_delta(e, m) - dlt, 0.0, hi, xtol=1e-13, rtol=1e-13,
                 maxiter=500)
    while gaussian_delta(eps, m) > dlt:  # report a valid (never optimistic) ε
        eps = math.nextafter(eps, math.inf) * (1 + 1e-15)
    return float(eps)


# --------------------------------------------------------------------------- discrete Gaussian

def _discrete_gaussian_log_pmf(sigma: float, half_width: int) -> tuple[np.ndarray, np.ndarray]:
    """Support −L..L and normalised log pmf of N_Z(0, σ²) (pmf ∝ exp(−x²/(2σ²)))."""
    x = np.arange(-half_width, half_width + 1, dtype=np.float64)
    logw = -(x * x) / (2.0 * sigma * sigma)
    logz = float(np.log(np.sum(np.exp(logw - logw.max())))) + float(logw.max())
    return x, logw - logz


def discrete_gaussian_delta(sigma: float, epsilon: float, sensitivity: int) -> float:
    """Exact δ(ε) of the discrete Gaussian mechanism N_Z(0, σ²), integer sensitivity Δ.

    CKS 2020, Thm 7: with X ~ N_Z(0, σ²),
        δ = P[X > εσ²/Δ − Δ/2] − e^ε · P[X > εσ²/Δ + Δ/2].
    (The privacy loss at output x is (Δ² − 2xΔ)/(2σ²) for the pair N_Z(0) vs N_Z(Δ), so
    loss > ε ⇔ x < Δ/2 − εσ²/Δ; by symmetry that is the first tail, the second is the same event
    under the shifted law.) The tails are summed over the integer support |x| ≤ 14σ + 2Δ + 10
    (mass beyond is below e^−98) and the normaliser is summed too, so nothing is approximated by
    the continuous Gaussian.
    """
    sig = positive(sigma, "sigma", "sigma")
    delta_sens = float(sensitivity)
    half = int(math.ceil(14.0 * sig + 2.0 * delta_sens + 10.0))
    x, logp = _discrete_gaussian_log_pmf(sig, half)
    c = epsilon * sig * sig / delta_sens
    m1 = x > c - delta_sens / 2.0
    m2 = x > c + delta_sens / 2.0
    t1 = float(np.sum(np.exp(logp[m1]))) if m1.any() else 0.0
    t2 = float(np.sum(np.exp(logp[m2]))) if m2.any() else 0.0
    return max(0.0, t1 - math.exp(epsilon) * t2) if t2 > 0 else t1


def discrete_gaussian_sigma(epsilon: float, delta: float, sensitivity: float) -> float:
    """Smallest σ whose exact discrete-Gaussian δ(ε) is at most δ (CKS 2020, Thm 7).

    Bisection on σ between a value that fails and one that holds; the returned σ always
    satisfies the target (it is the upper end of the final bracket, relative width 1e-10).
    """
    eps = positive(epsilon, "epsilon", "epsilon")
    dlt = open_delta(delta)
    sens = int(round(check_sensitivity(sensitivity, integer=True)))
    # The continuous analytic σ is a good starting point: the two profiles are close.
    guess = analytic_gaussian_sigma(eps, dlt, sens)
    lo, hi = guess / 2.0, guess * 2.0
    # As σ → 0 the profile tends to δ = 1 (> target), so this loop ends.
    while discrete_gaussian_delta(lo, eps, sens) <= dlt:
        lo /= 2.0
    while discrete_gaussian_delta(hi, eps, sens) > dlt:
        hi *= 2.0
    while hi - lo > 1e-10 * hi:
        mid = 0.5 * (lo + hi)
        if discrete_gaussian_delta(mid, eps, sens) > dlt:
            lo = mid
        else:
            hi = mid
    return hi


# --------------------------------------------------------------------------- dispatch

def noise_scale(mechanism: str, epsilon: float, delta: float, sensitivity: float) -> float:
    """Noise scale for ``mechanism`` at (ε, δ): b (Laplace), σ (Gaussian), t or σ (discrete)."""
    if mechanism == "laplace":
        return laplace_scale(epsilon, sensitivity)
    if mechanism == "gaussian":
        return analytic_gaussian_sigma(epsilon, delta, sensitivity)
    if mechanism == "discrete_laplace":
        return discrete_laplace_scale(epsilon, sensitivity)
    if mechanism == "discrete_gaussian":
        return discrete_gaussian_sigma(epsilon, delta, sensitivity)
    raise unknown_mechanism(mechanism)
