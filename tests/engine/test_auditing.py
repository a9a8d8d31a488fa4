"""Empirical ε lower bounds (paper 002 Cor. 1) on cases whose answer is known."""

import math

import numpy as np
import pytest
from scipy import stats

from engine.auditing import empirical_epsilon_lower_bound, epsilon_from_counts


def test_bound_formula_from_counts_matches_hand_computation():
    tp, fn, fp, tn = 900, 100, 10, 990
    alpha = 0.05
    e_pos, e_neg = epsilon_from_counts(tp, fn, fp, tn, delta=0.0, alpha=alpha)
    tpr_l = stats.beta.ppf(alpha / 2, tp, fn + 1)
    fpr_u = stats.beta.ppf(1 - alpha / 2, fp + 1, tn)
    tnr_l = stats.beta.ppf(alpha / 2, tn, fp + 1)
    fnr_u = stats.beta.ppf(1 - alpha / 2, fn + 1, tp)
    assert float(e_pos) == pytest.approx(math.log(tpr_l / fpr_u))
    assert float(e_neg) == pytest.approx(math.log(tnr_l / fnr_u))


def test_delta_lowers_the_bound():
    e0 = epsilon_from_counts(500, 500, 5, 995, delta=0.0, alpha=0.05)[0]
    e1 = epsilon_from_counts(500, 500, 5, 995, delta=0.1, alpha=0.05)[0]
    assert float(e1) < float(e0)


def test_perfect_attack_reaches_the_counting_limit():
    n = 10000
    y = np.r_[np.zeros(n, bool), np.ones(n, bool)]
    s = y.astype(float)
    b = empirical_epsilon_lower_bound(s, y, delta=0.0)
    # Evaluation split: 5000 per class, all correct: ln(TPR_L / FPR_U) with α/2 each side.
    m = n // 2
    expected = math.log(0.025 ** (1 / m) / (1 - 0.025 ** (1 / m)))
    assert b["value"] == pytest.approx(expected, rel=1e-9)
    assert b["value"] == pytest.approx(b["max_certifiable"], rel=1e-9)
    assert b["threshold_selection"] == "split" and b["method"] == "clopper-pearson"


def test_useless_attack_certifies_almost_nothing():
    g = np.random.default_rng(0)
    n = 5000
    y = np.r_[np.zeros(n, bool), np.ones(n, bool)]
    values = [empirical_epsilon_lower_bound(g.normal(size=2 * n), y, delta=0.0)["value"]
              for _ in range(20)]
    # A valid 95 % bound is 0 here except by chance; it must never be large.
    assert np.mean(np.array(values) > 0) <= 0.25
    assert max(values) < 0.3


def test_randomized_response_bound_is_valid_and_informative():
    # Randomised response with ε = 1: the attacker sees the true bit w.p. e/(1+e).
    eps = 1.0
    p = math.exp(eps) / (1 + math.exp(eps))
    g = np.random.default_rng(1)
    n = 20000
    y = np.r_[np.zeros(n, bool), np.ones(n, bool)]
    out = np.where(g.random(2 * n) < p, y, ~y).astype(float)
    b = empirical_epsilon_lower_bound(out, y, delta=0.0)
    assert 0.8 < b["value"] <= eps


def test_jeffreys_is_available_and_labelled():
    g = np.random.default_rng(2)
    n = 3000
    y = np.r_[np.zeros(n, bool), np.ones(n, bool)]
    s = g.normal(size=2 * n) + 2 * y
    cp = empirical_epsilon_lower_bound(s, y, delta=0.0)
    jf = empirical_epsilon_lower_bound(s, y, delta=0.0, method="jeffreys")
    assert jf["method"] == "jeffreys"
    assert jf["value"] >= cp["value"] - 1e-9  # Jeffreys intervals are shorter
