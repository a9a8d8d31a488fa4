"""Privacy of k observations of one person: composed (ε, δ) by several accountants.

* PLD (privacy loss distributions, Google ``dp-accounting`` 0.6.0): pessimistic and optimistic
  discretisations bracket the true composed ε (Meiser & Mohammadi 2018; Koskela et al. 2020;
  Doroshenko et al. 2022 "Connect the dots").
* Gaussian: exact closed form — k releases with noise σ are μ-GDP with μ = √k·Δ/σ, and μ-GDP is
  (ε, δ(ε))-DP with δ(ε) = Φ(−ε/μ + μ/2) − e^ε Φ(−ε/μ − μ/2) (Dong, Roth & Su 2019, Cor. 2.13 and
  Cor. 3.3 for composition).
* KOV worst case: the exact optimal composition of k mechanisms that are each ε0-DP
  (Kairouz, Oh & Viswanath 2015, Thm 3.3 / 3.4).
* Basic composition: k·ε0 (Dwork & Roth 2014, Thm 3.14).
"""

from __future__ import annotations

import math
from dataclasses import asdict, dataclass

import numpy as np
from scipy.optimize import brentq
from scipy.stats import binom

from engine.data.errors import InputError, given_value
from engine.mechanisms.arguments import (
    MECHANISM_NAMES,
    observations,
    open_delta,
    positive,
    unknown_mechanism,
)
from engine.mechanisms.arguments import sensitivity as check_sensitivity
from engine.mechanisms.calibration import gaussian_epsilon

_PLD_INTERVAL = 1e-4          # value discretisation of the privacy loss (dp_accounting default)
_PLD_MAX_POINTS = 4_000_000   # keep the composed PLD's support manageable


@dataclass(frozen=True)
class ComposedPrivacy:
    """Composed (ε, δ) of k observations, by every applicable accountant.

    ``epsilon_pld_optimistic`` ≤ true ε ≤ ``epsilon_pld_pessimistic`` (discretisation bracket).
    ``epsilon_gdp`` / ``gdp_mu``: exact, Gaussian only. ``epsilon_kov_worst_case``: what a claimed
    ε0-DP per observation allows in the worst case (Laplace family only). ``epsilon_basic``:
    k·ε0 (pure-DP mechanisms only).
    """

    delta: float
    epsilon_pld_pessimistic: float
    epsilon_pld_optimistic: float
    epsilon_gdp: float | None = None
    gdp_mu: float | None = None
    epsilon_kov_worst_case: float | None = None
    epsilon_basic: float | None = None

    @property
    def epsilon(self) -> float:
        """Headline composed ε: exact GDP value for the Gaussian, else the PLD upper estimate."""
        if self.epsilon_gdp is not None:
            return self.epsilon_gdp
        return self.epsilon_pld_pessimistic

    def to_dict(self) -> dict:
        d = asdict(self)
        d["epsilon"] = self.epsilon
        return {key: (None if v is None else float(v)) for key, v in d.items()}


def _check(scale, sens, k, delta, *, integer: bool) -> tuple[float, float, int, float]:
    return (positive(scale, "noise scale", "noise_scale"),
            check_sensitivity(sens, integer=integer), observations(k), open_delta(delta))


def _interval(k: int, loss_range: float) -> float:
    """PLD discretisation: 1e-4 unless the k-fold support would exceed ~4 million points."""
    return max(_PLD_INTERVAL, k * loss_range / _PLD_MAX_POINTS)


def _pld_epsilons(mechanism: str, scale: float, sens: float, k: int,
                  delta: float) -> tuple[float, float]:
    """(pessimistic, optimistic) composed ε from dp_accounting's PLD (imported lazily)."""
    from dp_accounting.pld import privacy_loss_distribution as pld

    out = []
    for pessimistic in (True, False):
        # Connect-the-dots only exists for pessimistic estimates; the optimistic side uses the
        # privacy-buckets rounding (asking for connect-dots there only logs a warning).
        if mechanism == "laplace":
            step = _interval(k, 2 * sens / scale)
            dist = pld.from_laplace_mechanism(scale, sensitivity=sens,
                                              pessimistic_estimate=pessimistic,
                                              value_discretization_interval=step,
                                              use_connect_dots=pessimistic)
        elif mechanism == "gaussian":
            # Privacy loss (Δ² − 2xΔ)/(2σ²) over |x| ≲ 12σ: range ≈ 24Δ/σ + Δ²/σ².
            step = _interval(k, 24 * sens / scale + (sens / scale) ** 2)
            dist = pld.from_gaussian_mechanism(scale, sensitivity=sens,
                                               pessimistic_estimate=pessimistic,
                                               value_discretization_interval=step,
                                               use_connect_dots=pessimistic)
        elif mechanism == "discrete_laplace":
            step = _interval(k, 2 * sens / scale)
            dist = pld.from_discrete_laplace_mechanism(1.0 / scale, sensitivity=int(round(sens)),
                                                       pessimistic_estimate=pessimistic,
                                                       value_discretization_interval=step)
        elif mechanism == "discrete_gaussian":
            step = _interval(k, 24 * sens / scale + (sens / scale) ** 2)
            dist = pld.from_discrete_gaussian_mechanism(scale, sensitivity=int(round(sens)),
                                                        pessimistic_estimate=pessimistic,
                                                        value_discretization_interval=step)
        else:  # pragma: no cover - guarded by compose()
            raise AssertionError(mechanism)
        composed = dist.self_compose(k) if k > 1 else dist
        out.append(float(composed.get_epsilon_for_delta(delta)))
    return out[0], out[1]


def compose(mechanism: str, scale: float, sensitivity: float, k: int, delta: float,
            epsilon0: float | None = None) -> ComposedPrivacy:
    """Composed privacy of k observations with noise ``scale`` (b, σ, t or σ) and sensitivity Δ.

    ``epsilon0`` is the per-observation ε the owner *claims* (used for the KOV worst case and
    basic composition of the Laplace family); by default the ε the noise actually gives, Δ/b or
    Δ/t.
    """
    if mechanism not in MECHANISM_NAMES:
        raise unknown_mechanism(mechanism)
    sc, sens, kk, dlt = _check(scale, sensitivity, k, delta,
                               integer=mechanism.startswith("discrete"))
    pess, opt = _pld_epsilons(mechanism, sc, sens, kk, dlt)
    gdp_eps = gdp_mu = kov = basic = None
    if mechanism == "gaussian":
        gdp_mu = math.sqrt(kk) * sens / sc
        gdp_eps = gaussian_epsilon(dlt, gdp_mu)
    if mechanism in ("laplace", "discrete_laplace"):
        e0 = sens / sc if epsilon0 is None else float(epsilon0)
        if not math.isfinite(e0) or e0 <= 0:
            raise InputError(f"The claimed epsilon per observation must be positive, got "
                             f"{given_value(epsilon0)}.", key="epsilon")
        kov = kov_composed_epsilon(e0, kk, dlt)
        basic = kk * e0
    return ComposedPrivacy(delta=dlt, epsilon_pld_pessimistic=pess, epsilon_pld_optimistic=opt,
                           epsilon_gdp=gdp_eps, gdp_mu=gdp_mu, epsilon_kov_worst_case=kov,
                           epsilon_basic=basic)


def kov_delta(epsilon: float, epsilon0: float, k: int) -> float:
    """δ(ε) of the k-fold composition of ε0-DP in the worst case (KOV 2015, Thm 3.3/3.4).

    The worst case is k-fold randomised response, so δ(ε) is the hockey-stick divergence
    Σ_j max(0, P1(j) − e^ε P0(j)) between P1 = Binomial(k, p) and P0 = Binomial(k, 1 − p),
    p = e^{ε0}/(1 + e^{ε0}). At ε = (k − 2i)ε0 this is KOV's
    δ_i = Σ_{l<i} C(k, l)(e^{(k−l)ε0} − e^{(k−2i+l)ε0})/(1 + e^{ε0})^k; in between, the same
    divergence is the exact (randomised-test) profile. Terms are P1(j)·(1 − e^{ε − L_j}) with
    L_j = ε0(2j − k) the privacy loss, summed where L_j > ε (no cancellation).
    """
    j = np.arange(k + 1)
    q = 1.0 / (1.0 + math.exp(epsilon0))
    log_p1 = binom.logpmf(j, k, 1.0 - q)
    loss = epsilon0 * (2 * j - k)
    m = loss > epsilon
    if not m.any():
        return 0.0
    return float(np.sum(np.exp(log_p1[m]) * -np.expm1(epsilon - loss[m])))


def kov_composed_epsilon(epsilon0: float, k: int, delta: float) -> float:
    """Smallest ε with worst-case δ(ε) ≤ δ for k-fold ε0-DP (Kairouz, Oh & Viswanath 2015, Thm 3.3).

    δ(ε) (see :func:`kov_delta`) is continuous and decreasing and reaches 0 at ε = kε0, so the
    root lies in [0, kε0]; δ = 0 gives kε0 (basic composition is then tight).
    """
    e0 = float(epsilon0)
    if not math.isfinite(e0) or e0 <= 0:
        raise InputError(f"Epsilon per observation must be positive, got {given_value(epsilon0)}.",
                         key="epsilon")
    if int(k) != k or int(k) < 1:
        raise InputError(f"The number of observations must be a whole number of at least 1, "
                         f"got {given_value(k)}.", key="observations")
    kk = int(k)
    dlt = float(delta)
    if not 0.0 <= dlt < 1.0:
        raise InputError(f"Delta must lie in [0, 1), got {given_value(delta)}.", key="delta")
    top = kk * e0
    if dlt == 0.0:
        return top
    if kov_delta(0.0, e0, kk) <= dlt:
        return 0.0
    eps = brentq(lambda e: kov_delta(e, e0, kk) - dlt, 0.0, top, xtol=1e-12, rtol=1e-12,
                 maxiter=500)
    while kov_delta(eps, e0, kk) > dlt and eps < top:  # never report an optimistic ε
        eps = min(top, math.nextafter(eps, math.inf) * (1 + 1e-15))
    return float(eps)
