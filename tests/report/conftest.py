"""A realistic mechanism-audit result.json, built by hand to the contract.

docs/dev/mechanism_audit_contract.md fixes the ``theory`` block; ARCHITECTURE §4 the rest. The
attack entries come from ``engine.auditing.evaluate_attack`` on a small simulated game (Laplace
noise, ε = 1 per observation, k = 10, N = 2 000 per hypothesis — too few non-members to measure
TPR at 0.1 % FPR, which the report must say). The theory curves are computed here directly
(Monte Carlo of the clipped-sum statistic, KOV binomials), not by the engine under test.
"""

from __future__ import annotations

import copy

import numpy as np
import pytest
from scipy import stats

from engine.policy import VerdictPolicy

EPS0, K, DELTA, N = 1.0, 10, 1e-5, 2000
FPR_TARGETS = (0.001, 0.01, 0.1)


def _roc(scores_pos: np.ndarray, scores_neg: np.ndarray) -> tuple[list, list]:
    from engine.metrics import downsample_roc, roc_curve

    s = np.r_[scores_pos, scores_neg]
    y = np.r_[np.ones(scores_pos.size, bool), np.zeros(scores_neg.size, bool)]
    fpr, tpr, _ = roc_curve(s, y)
    return downsample_roc(fpr, tpr)


def _summary(fpr: list, tpr: list, statistic: str, method: str, err: float) -> dict:
    f, t = np.asarray(fpr), np.asarray(tpr)
    return {
        "statistic": statistic, "method": method, "numerical_error": err,
        "accuracy": float(np.max((t + 1 - f) / 2)),
        "auc": float(np.trapezoid(t, f)),
        "advantage": float(np.max(t - f)),
        "tpr_at_fpr": [{"fpr": a, "tpr": float(np.interp(a, f, t))} for a in FPR_TARGETS],
        "roc": {"fpr": fpr, "tpr": tpr},
    }


def _kov(eps0: float, k: int) -> tuple[list, list]:
    """Worst case of k-fold ε0-DP: Binomial(k, p) vs Binomial(k, 1 − p) (ARCHITECTURE §6)."""
    p = np.exp(eps0) / (1 + np.exp(eps0))
    j = np.arange(k, -1, -1)                       # thresholds from most to least "member"
    tpr = np.r_[0.0, np.cumsum(stats.binom.pmf(j, k, p))]
    fpr = np.r_[0.0, np.cumsum(stats.binom.pmf(j, k, 1 - p))]
    return fpr.clip(0, 1).tolist(), tpr.clip(0, 1).tolist()


def _build() -> dict:
    from engine.auditing import evaluate_attack

    rng = np.random.default_rng(7)
    b = 1.0 / EPS0
    members = 1.0 + rng.laplace(0, b, (N, K))
    others = rng.laplace(0, b, (N, K))
    x = np.r_[members, others]
    labels = np.r_[np.ones(N, bool), np.zeros(N, bool)]
    opt_words = "sum over the k releases of clip(x − others, 0, Δ)"
    attacks = [
        evaluate_attack("np_optimal",
                        "Neyman–Pearson optimal attacker (likelihood-ratio test; paper 002 Thm 1)",
                        np.clip(x, 0, 1).sum(1), labels, delta=DELTA,
                        fpr_targets=FPR_TARGETS,
                        details={"statistic": opt_words, "paper": "002 §3, Thm 1"}),
        evaluate_attack("naive_sum", "Naive sum attacker (adds up the k releases)",
                        x.sum(1), labels, delta=DELTA, fpr_targets=FPR_TARGETS,
                        details={"statistic": "sum over the k releases of (x − others)",
                                 "paper": "002 §3, Thm 1"}),
    ]
    big = np.random.default_rng(8)
    mc = 200_000
    t_pos = np.clip(1.0 + big.laplace(0, b, (mc, K)), 0, 1).sum(1)
    t_neg = np.clip(big.laplace(0, b, (mc, K)), 0, 1).sum(1)
    opt = _summary(*_roc(t_pos, t_neg), opt_words, "numerical convolution", 2e-4)
    worst = _summary(*_kov(EPS0, K), "number of releases above Δ/2", "exact convolution", 0.0)
    eps_total = 6.92
    region_fpr = np.unique(np.r_[0.0, np.geomspace(1e-6, 1.0, 300)])
    upper = np.minimum.reduce([np.ones_like(region_fpr),
                               np.exp(eps_total) * region_fpr + DELTA,
                               1 - np.exp(-eps_total) * (1 - DELTA - region_fpr)])
    sweep_vals = sorted({*np.round(np.geomspace(0.1, 10, 24), 6).tolist(), 1.0})
    mu = np.sqrt(K) * np.asarray(sweep_vals) * 0.75
    policy = VerdictPolicy()
    best_tpr = max(opt["tpr_at_fpr"][1]["tpr"], attacks[0]["tpr_at_fpr"][1]["tpr"])
    best_acc = max(opt["accuracy"], attacks[0]["accuracy"])
    level, reasons = policy.level(best_tpr, best_acc)
    config = {
        "schema_version": 1, "name": "Weekly footfall counts, Laplace ε = 1",
        "mechanism": "laplace", "noise_from": "epsilon", "epsilon": EPS0, "noise_scale": None,
        "delta": DELTA, "sensitivity": 1.0, "observations": K, "trials": N,
        "postprocess": "none", "baseline_count": 100.0, "confidence": 0.95,
        "fpr_targets": list(FPR_TARGETS), "sweep": "epsilon", "limit_fpr": 0.01,
        "limit_tpr": 0.05, "seed": 7, "policy": policy.to_dict(),
    }
    return {
        "schema_version": 1,
        "audit_type": "mechanism",
        "name": config["name"],
        "seed": 7,
        "created": "2025-11-21T04:46:12+00:00",
        "config": config,
        "config_sha256": "3f5a" * 16,
        "inputs": [],
        "software": {"app": "0.1.0", "python": "3.11.7", "numpy": np.__version__,
                     "scipy": "1.17.1", "torch": "2.13.0", "dp_accounting": "0.6.0",
                     "device": "cpu"},
        "runtime_s": 3.412,
        "summary": (f"An attacker who already knows everyone else's data can tell whether a given "
                    f"person is in this release correctly at most {best_acc:.0%} of the time; "
                    f"with ε = 1 per observation and 10 observations per person, that risk is "
                    f"{level}. Accepting to wrongly accuse only 1% of the people who are absent, "
                    f"the attacker still correctly spots {best_tpr:.1%} of the people who are "
                    "present."),
        "attacks": attacks,
        "baselines": [{"name": "random_guess", "label": "Random guess (no information)",
                       "n_positive": N, "n_negative": N, "auc": 0.5, "accuracy": 0.5,
                       "advantage": 0.0,
                       "tpr_at_fpr": [{"fpr_target": t, "tpr": t} for t in FPR_TARGETS]}],
        "theory": {
            "mechanism": "laplace", "mechanism_label": "Laplace",
            "noise_scale": b, "noise_scale_name": "scale b",
            "epsilon_per_observation": EPS0, "delta": DELTA, "sensitivity": 1.0,
            "observations": K,
            "composed": {"delta": DELTA, "epsilon_pld_pessimistic": 6.92,
                         "epsilon_pld_optimistic": 6.88, "epsilon_gdp": None, "gdp_mu": None,
                         "epsilon_kov_worst_case": 7.31, "epsilon_basic": 10.0},
            "epsilon_total": eps_total,
            "optimal_attacker": opt,
            "worst_case_dp": worst,
            "dp_region": {"epsilon": eps_total, "delta": DELTA, "fpr": region_fpr.tolist(),
                          "tpr_upper": upper.tolist()},
            "sweep": {"parameter": "epsilon", "values": sweep_vals,
                      "accuracy": stats.norm.cdf(mu / 2).tolist(),
                      "auc": stats.norm.cdf(mu / np.sqrt(2)).tolist(),
                      "tpr_at_fpr": stats.norm.cdf(stats.norm.ppf(0.01) + mu).tolist(),
                      "fpr": 0.01, "current": EPS0},
            "inverse": {"fpr": 0.01, "max_tpr": 0.05, "observations": K,
                        "max_epsilon_per_observation": 0.1234, "min_noise_scale": 8.104,
                        "noise_scale_name": "scale b", "achieved_tpr": 0.0499,
                        "feasible": True, "note": ""},
        },
        "exposed_records": [],
        "verdict": {"level": level, "policy": policy.name, "policy_rules": policy.rules(),
                    "reasons": reasons},
        "warnings": [f"TPR at 0.1% FPR is not measurable with {N:,} non-members (needs at least "
                     "3,000); the exact theory value is still reported."],
    }


@pytest.fixture(scope="session")
def _mechanism_result_master() -> dict:
    return _build()


@pytest.fixture
def mechanism_result(_mechanism_result_master) -> dict:
    """A fresh deep copy per test, so tests may edit it."""
    return copy.deepcopy(_mechanism_result_master)
