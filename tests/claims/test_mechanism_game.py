"""Claims: the simulated membership game agrees with exact DP theory (paper 002; ARCHITECTURE §6).

* The optimal attacker's empirical AUC and TPR at 1 % FPR fall inside their confidence
  intervals around the exact values, for several mechanisms, ε and k.
* The empirical ε lower bound never exceeds the composed ε, over many seeds.
* For Laplace noise and k > 1 the naive sum is strictly weaker than Σ clip(xᵢ, 0, Δ).
"""

import numpy as np
import pytest

from engine.attacks.dp_mechanism import naive_sum_statistic, optimal_statistic
from engine.auditing import empirical_epsilon_lower_bound, evaluate_attack
from engine.audits.mechanism import MechanismConfig, resolve_noise
from engine.games.membership import MechanismGame, play
from engine.mechanisms.accounting import compose
from engine.mechanisms.tradeoff import mechanism_tradeoff
from engine.runtime import rng

CASES = [
    ("laplace", 1.0, 1), ("laplace", 0.5, 10), ("laplace", 2.0, 3),
    ("gaussian", 1.0, 1), ("gaussian", 0.3, 10),
    ("discrete_laplace", 1.0, 4), ("discrete_gaussian", 0.5, 5),
]


def _scores(mech, eps, k, trials, seed, stats=None):
    cfg = MechanismConfig(mechanism=mech, epsilon=eps, observations=k, trials=trials, seed=seed)
    scale, _ = resolve_noise(cfg)
    game = MechanismGame(mech, scale, 1.0, k, trials, baseline=100.0)
    opt, _ = optimal_statistic(mech, 1.0)
    stats = stats or {"opt": opt}
    scores, labels = play(game, stats, rng(seed, "claims"))
    return scale, scores, labels


@pytest.mark.parametrize("mech, eps, k", CASES)
def test_optimal_attacker_matches_exact_theory(mech, eps, k):
    scale, scores, labels = _scores(mech, eps, k, 20000, seed=3)
    theory = mechanism_tradeoff(mech, scale, 1.0, k)
    r = evaluate_attack("opt", "opt", scores["opt"], labels, delta=1e-5)
    tol = theory.numerical_error
    lo, hi = r["auc_ci"]
    assert lo - tol <= theory.auc() <= hi + tol, (r["auc"], theory.auc())
    # Empirical balanced accuracy cannot beat the optimal attacker (beyond sampling noise).
    assert r["accuracy_ci"][0] <= theory.accuracy() + tol
    # The TPR interval carries the uncertainty of the threshold's own FPR (engine.metrics,
    # tpr_interval_at_fpr), so it must contain the exact value itself, not a widened range.
    # For discrete noise it covers the randomised optimum too (ties are handled by the same
    # argument); tests/claims/test_interval_coverage.py checks the rate over many seeds.
    for row in r["tpr_at_fpr"]:
        exact = float(theory.tpr_at(row["fpr_target"]))
        assert row["tpr_ci"][0] - tol <= exact <= row["tpr_ci"][1] + tol, (row, exact)


@pytest.mark.parametrize("mech, eps, k", [("laplace", 1.0, 1), ("laplace", 0.5, 4),
                                          ("gaussian", 1.0, 2), ("discrete_laplace", 2.0, 1)])
def test_empirical_epsilon_never_exceeds_composed_epsilon(mech, eps, k):
    delta = 1e-5
    cfg = MechanismConfig(mechanism=mech, epsilon=eps, observations=k)
    scale, _ = resolve_noise(cfg)
    composed = compose(mech, scale, 1.0, k, delta, epsilon0=eps)
    bounds = []
    for seed in range(12):
        _, scores, labels = _scores(mech, eps, k, 5000, seed)
        bounds.append(empirical_epsilon_lower_bound(scores["opt"], labels, delta=delta)["value"])
    assert max(bounds) <= composed.epsilon_pld_pessimistic + 1e-9
    assert max(bounds) > 0  # and the audit is not vacuous: it certifies real leakage


def test_naive_sum_is_weaker_than_clipped_sum_for_laplace():
    opt, _ = optimal_statistic("laplace", 1.0)
    _, scores, labels = _scores("laplace", 1.0, 10, 20000, seed=5,
                                stats={"opt": opt, "naive": naive_sum_statistic})
    r_opt = evaluate_attack("o", "o", scores["opt"], labels, delta=0)
    r_naive = evaluate_attack("n", "n", scores["naive"], labels, delta=0)
    assert r_naive["auc_ci"][1] < r_opt["auc_ci"][0]


def test_same_seed_same_numbers():
    a = _scores("laplace", 1.0, 3, 3000, seed=9)[1]["opt"]
    b = _scores("laplace", 1.0, 3, 3000, seed=9)[1]["opt"]
    c = _scores("laplace", 1.0, 3, 3000, seed=10)[1]["opt"]
    assert np.array_equal(a, b) and not np.array_equal(a, c)


def test_gdp_heuristic_bound_is_valid_and_tighter_for_gaussian_noise():
    """The μ-GDP lower bound (Nasr et al. 2023) holds with 95 % confidence for the Gaussian
    mechanism, and certifies clearly more than paper 002 Cor. 1 on average.

    The bound is tight, so the 5 % of runs where a 95 % bound may fail really occur (the loose
    Cor. 1 bound never gets near the truth). The claim tested is the guarantee itself: over 30
    seeds, at most 4 violations (P[Binomial(30, 0.05) ≥ 5] ≈ 1.6 %).
    """
    from engine.auditing import gdp_heuristic_epsilon_lower_bound

    delta, eps, k = 1e-5, 1.0, 3
    cfg = MechanismConfig(mechanism="gaussian", epsilon=eps, observations=k)
    scale, _ = resolve_noise(cfg)
    true_eps = compose("gaussian", scale, 1.0, k, delta).epsilon_gdp
    gdp, cp = [], []
    for seed in range(30):
        _, scores, labels = _scores("gaussian", eps, k, 3000, seed)
        gdp.append(gdp_heuristic_epsilon_lower_bound(scores["opt"], labels, delta=delta)["value"])
        cp.append(empirical_epsilon_lower_bound(scores["opt"], labels, delta=delta)["value"])
    violations = sum(g > true_eps for g in gdp)
    assert violations <= 4, (violations, max(gdp), true_eps)
    assert np.mean(gdp) > 1.3 * np.mean(cp)
