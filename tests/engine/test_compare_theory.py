"""A comparison of ε candidates on location data checked against exact theory (issue 34,
"How this will be checked"): what DP per hour allows grows with ε, the exact optimal attacker
never weakens as ε grows, no measured risk interval sits above what DP allows, and the cost to
users — the noise's mean error per released count — is the Laplace scale b = C/ε that theory
gives (E|X| = b), within its sampling error."""

from __future__ import annotations

import math
from pathlib import Path

import pytest

from engine.compare import run_comparison
from engine.compare.utility import DRAWS, noise_error
from engine.results.loaded import load_result
from tests.engine.compare_helpers import EPSILONS, tiny_set


@pytest.fixture(scope="module")
def comparison_and_results(tmp_path_factory):
    import json
    out = tmp_path_factory.mktemp("theory")
    comparison = run_comparison(tiny_set(), out)
    results = [load_result(json.loads((out / r.folder / "result.json").read_text("utf-8")))
               for r in comparison.rows]
    return comparison, results


def test_the_dp_bound_and_the_exact_optimum_grow_with_epsilon(comparison_and_results):
    comparison, results = comparison_and_results
    bounds = [r.risk.bound for r in comparison.rows]
    assert all(b is not None for b in bounds)
    assert all(a < b for a, b in zip(bounds, bounds[1:], strict=False)), bounds   # ε grows
    optimum = [res.theory.optimal_attacker.accuracy for res in results]
    assert all(a <= b + 1e-12 for a, b in zip(optimum, optimum[1:], strict=False)), optimum
    # the exact optimum is an attacker DP must allow: never above the bound
    assert all(o <= b + 1e-9 for o, b in zip(optimum, bounds, strict=True))


def test_no_risk_interval_sits_above_what_dp_allows(comparison_and_results):
    comparison, _ = comparison_and_results
    for row in comparison.rows:
        assert row.risk.ci is not None
        assert row.risk.ci[0] <= row.risk.bound, (row.label, row.risk.ci, row.risk.bound)


def test_the_cost_is_the_laplace_scale_theory_gives(comparison_and_results):
    comparison, results = comparison_and_results
    for row, res, eps in zip(comparison.rows, results, EPSILONS, strict=True):
        b = res.theory.noise_scale
        assert b == pytest.approx(1.0 / eps)           # C = 1 place per hour: b = C/ε
        # E|X| = b and sd(|X|) = b for Laplace: the mean of DRAWS draws is within 4 SE
        assert abs(row.cost.value - b) <= 4 * b / math.sqrt(DRAWS)
    costs = [r.cost.value for r in comparison.rows]
    assert costs == sorted(costs, reverse=True)        # more ε, less error


def test_gaussian_and_discrete_noise_errors_match_their_exact_means():
    sigma = 3.0
    m = noise_error("gaussian", sigma, seed=1)
    exact = sigma * math.sqrt(2 / math.pi)             # E|N(0, σ²)|
    sd = sigma * math.sqrt(1 - 2 / math.pi)
    assert abs(m["mean_abs_error"] - exact) <= 4 * sd / math.sqrt(DRAWS)
    t = 2.0                                            # discrete Laplace, P(x) ∝ exp(-|x|/t)
    q = math.exp(-1 / t)
    share_nonzero = 2 * q / (1 + q)                    # 1 − P(0), P(0) = (1 − q)/(1 + q)
    d = noise_error("discrete_laplace", t, seed=1)
    se = math.sqrt(share_nonzero * (1 - share_nonzero) / DRAWS)
    assert abs(d["share_changed"] - share_nonzero) <= 4 * se
    assert noise_error("none", None, seed=1)["mean_abs_error"] == 0.0


def test_every_audit_type_gets_a_risk_and_a_measured_cost():
    """The saved sample projects of all four audit types, compared without a run: each row
    has its headline risk and a cost that agrees with what the result holds."""
    from engine.compare import compare_results
    from engine.project import load_project

    for kind in ("mechanism", "location", "aggregates", "model"):
        result = load_project(Path(__file__).resolve().parents[2] / "tests" / "data"
                              / "projects" / f"{kind}.praudit.json").result
        row = compare_results(["a", "b"], [result, result]).rows[0]
        loaded = load_result(result)
        assert row.risk.value is not None and row.risk.ci is not None, kind
        assert row.risk.ci[0] <= row.risk.value <= row.risk.ci[1], kind
        th = loaded.theory
        if kind in ("mechanism", "location"):
            b = th.noise_scale                          # both samples use Laplace noise
            assert th.mechanism == "laplace"
            assert abs(row.cost.value - b) <= 4 * b / math.sqrt(DRAWS), kind
        elif kind == "aggregates":
            assert th.release.mechanism in (None, "none")   # exact counts: nothing changed
            assert row.cost.details["share_changed"] == 0.0
        else:
            assert row.cost.value == pytest.approx(1 - th.model.test_accuracy)
