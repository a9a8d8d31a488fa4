"""Composition accounting: PLD bracket, GDP closed form, KOV optimal composition."""

from __future__ import annotations

import math

import numpy as np
import pytest

from engine.data.errors import InputError
from engine.mechanisms.accounting import (
    ComposedPrivacy,
    compose,
    kov_composed_epsilon,
    kov_delta,
)
from engine.mechanisms.calibration import gaussian_delta


@pytest.mark.parametrize("sigma,k", [(3.0, 10), (1.0, 1), (8.0, 50)])
def test_gaussian_pld_bracket_contains_exact_gdp(sigma, k):
    c = compose("gaussian", sigma, 1.0, k, 1e-5)
    mu = math.sqrt(k) / sigma
    assert c.gdp_mu == pytest.approx(mu)
    assert gaussian_delta(c.epsilon_gdp, mu) <= 1e-5
    assert c.epsilon_pld_optimistic <= c.epsilon_gdp <= c.epsilon_pld_pessimistic
    assert c.epsilon_pld_pessimistic - c.epsilon_pld_optimistic < 1e-2
    assert c.epsilon == c.epsilon_gdp
    assert c.epsilon_kov_worst_case is None and c.epsilon_basic is None


def test_laplace_single_release_is_eps0_dp():
    for b in (0.5, 1.0, 3.0):
        c = compose("laplace", b, 1.0, 1, 1e-12)
        assert c.epsilon_pld_pessimistic == pytest.approx(1.0 / b, abs=1e-3)
        assert c.epsilon_pld_optimistic <= c.epsilon_pld_pessimistic
        assert c.epsilon_basic == pytest.approx(1.0 / b)
        assert c.epsilon == c.epsilon_pld_pessimistic


@pytest.mark.parametrize("b,k,delta", [(1.0, 10, 1e-5), (4.0, 30, 1e-6), (0.5, 3, 1e-3)])
def test_kov_between_pld_and_basic(b, k, delta):
    c = compose("laplace", b, 1.0, k, delta)
    e0 = 1.0 / b
    assert c.epsilon_kov_worst_case <= c.epsilon_basic + 1e-12
    assert c.epsilon_basic == pytest.approx(k * e0)
    # Laplace is one particular ε0-DP mechanism, so it can only be better than the worst case.
    assert c.epsilon_pld_optimistic <= c.epsilon_kov_worst_case + 1e-9


def test_kov_single_step_and_zero_delta():
    assert kov_composed_epsilon(0.8, 1, 1e-12) == pytest.approx(0.8, abs=1e-9)
    assert kov_composed_epsilon(0.8, 7, 0.0) == pytest.approx(5.6)
    # Monotone: more δ budget, less ε.
    eps = [kov_composed_epsilon(0.5, 20, d) for d in (1e-9, 1e-6, 1e-3, 1e-1)]
    assert all(a > b for a, b in zip(eps, eps[1:], strict=False))


@pytest.mark.parametrize("e0,k", [(0.3, 10), (1.0, 7), (0.05, 40)])
def test_kov_delta_matches_kov_theorem_3_3(e0, k):
    """At ε = (k − 2i)ε0 the hockey stick equals KOV 2015 Thm 3.3's δ_i."""
    for i in range(0, k // 2 + 1):
        delta_i = sum(math.comb(k, m) * (math.exp((k - m) * e0) - math.exp((k - 2 * i + m) * e0))
                      for m in range(i)) / (1 + math.exp(e0)) ** k
        assert kov_delta((k - 2 * i) * e0, e0, k) == pytest.approx(delta_i, rel=1e-9, abs=1e-15)


def test_kov_epsilon_is_the_root():
    e0, k, delta = 0.2, 25, 1e-5
    eps = kov_composed_epsilon(e0, k, delta)
    assert kov_delta(eps, e0, k) <= delta < kov_delta(eps * (1 - 1e-6), e0, k)


def test_discrete_laplace_unit_sensitivity_pld_equals_kov():
    """Discrete Laplace with Δ = 1 has privacy loss ±1/t only: it *is* the KOV worst case."""
    c = compose("discrete_laplace", 2.0, 1, 15, 1e-5)
    assert c.epsilon_pld_pessimistic == pytest.approx(c.epsilon_kov_worst_case, abs=1e-3)


def test_discrete_gaussian_close_to_gaussian_for_large_sigma():
    d = compose("discrete_gaussian", 20.0, 2, 8, 1e-5)
    g = compose("gaussian", 20.0, 2.0, 8, 1e-5)
    assert d.epsilon_gdp is None and d.epsilon_kov_worst_case is None
    assert d.epsilon == pytest.approx(g.epsilon, rel=1e-2)


def test_pld_matches_dp_accounting_event_api():
    from dp_accounting import dp_event
    from dp_accounting.pld import pld_privacy_accountant

    acc = pld_privacy_accountant.PLDAccountant(value_discretization_interval=1e-4)
    acc.compose(dp_event.SelfComposedDpEvent(dp_event.LaplaceDpEvent(noise_multiplier=2.0), 6))
    ours = compose("laplace", 2.0, 1.0, 6, 1e-5)
    assert acc.get_epsilon(1e-5) == pytest.approx(ours.epsilon_pld_pessimistic, abs=2e-3)


def test_to_dict_and_headline():
    c = compose("laplace", 1.0, 1.0, 3, 1e-5, epsilon0=1.2)
    d = c.to_dict()
    assert set(d) == {"delta", "epsilon_pld_pessimistic", "epsilon_pld_optimistic",
                      "epsilon_gdp", "gdp_mu", "epsilon_kov_worst_case", "epsilon_basic",
                      "epsilon"}
    assert d["epsilon"] == c.epsilon_pld_pessimistic
    assert d["epsilon_basic"] == pytest.approx(3.6)      # claimed ε0, not Δ/b
    assert isinstance(c, ComposedPrivacy)
    assert all(v is None or np.isfinite(v) for v in d.values())


@pytest.mark.parametrize("call", [
    lambda: compose("exponential", 1.0, 1.0, 1, 1e-5),
    lambda: compose("laplace", 0.0, 1.0, 1, 1e-5),
    lambda: compose("laplace", 1.0, 1.0, 0, 1e-5),
    lambda: compose("laplace", 1.0, 1.0, 2, 0.0),
    lambda: compose("discrete_laplace", 1.0, 1.5, 2, 1e-5),
    lambda: compose("laplace", 1.0, 1.0, 2, 1e-5, epsilon0=-1.0),
    lambda: kov_composed_epsilon(0.0, 3, 1e-5),
    lambda: kov_composed_epsilon(1.0, 2.5, 1e-5),
])
def test_bad_inputs(call):
    with pytest.raises(InputError):
        call()
