"""Claims of paper 000 (and of the likelihood-ratio attack beyond it) on a synthetic city.

Seeded, small sizes (8,000 people over a week of hours, releases of 500 people drawn from a pool
of 4,000, 10,000 test aggregates). With pools much smaller than that, an auxiliary attacker's
shadow thresholds transfer badly to the release pool and every comparison drowns in that. Comparisons of two attacks are paired: both score the same test aggregates, so
the difference of their per-aggregate correctness has a small standard error and "A beats B"
means a one-sided z > 2.33 (1 %), never a hand-picked margin.
"""

from __future__ import annotations

import math
from functools import cache

import numpy as np
import pytest

from engine.attacks.location.base import AttackData
from engine.audits import location as L
from engine.games import location as location_game
from engine.games import location_setup, location_theory
from engine.metrics import rates_at_threshold

BASE = dict(city_users=8000, city_epochs=168, aggregate_size=499, test_aggregates=10_000,
            shadow_aggregates=2000, sweep_targets=0, target="random", seed=11,
            attacks=("one_threshold", "two_threshold", "meta_classifier", "reference",
                     "likelihood_ratio"))


@cache
def scenario(mechanism: str, attacker: str, large: int = 0, rank: int = 0):
    """(config, Scenario, {name: AttackOutcome}) for one setting, computed once."""
    config = L.LocationConfig(**BASE, mechanism=mechanism, attacker=attacker,
                              large_shadow_aggregates=large)
    from engine.data.traces import clip_per_epoch
    from engine.runtime import NEVER, NO_PROGRESS, rng

    traces, _ = location_setup.load_population(config)
    clipped = clip_per_epoch(traces, config.clip_per_epoch, rng(config.seed, "clipping"))
    g = rng(config.seed, "target-and-pools")
    # The paper's targets have tens of positive observations (60 in §5); take the person whose
    # count is closest to 40 (a random person of this small city has a handful).
    k_all = clipped.getnnz(axis=1)
    target = int(np.argsort(np.abs(k_all - TARGET_OBSERVATIONS), kind="stable")[rank])
    others = g.permutation(np.delete(np.arange(traces.n_users), target))
    aux, rel = np.sort(others[: others.size // 2]), np.sort(others[others.size // 2:])
    scale = location_setup.cell_noise_scale(config)
    sc = location_game.build_scenario(config, traces, clipped, target, rel, aux, scale, ("claims", rank),
                          n_test=config.test_aggregates, with_reference=True,
                          with_large=large > 0, progress=NO_PROGRESS, cancel=NEVER)
    outs = location_game.run_attacks(config, sc, config.attacks, "cpu", progress=NO_PROGRESS, cancel=NEVER)
    return config, sc, {o.name: o for o in outs}


def correct(outcome, data: AttackData) -> np.ndarray:
    """Per test aggregate: did the attack's own rule get it right? (balanced test set)"""
    pred = outcome.scores >= outcome.threshold
    return pred == data.test.labels


def accuracy(outcome, data: AttackData) -> float:
    tp, fn, fp, tn = rates_at_threshold(outcome.scores, data.test.labels, outcome.threshold)
    return 0.5 * (tp / (tp + fn) + tn / (tn + fp))


def paired_z(better, worse, data: AttackData) -> float:
    d = correct(better, data).astype(float) - correct(worse, data).astype(float)
    se = d.std(ddof=1) / math.sqrt(d.size)
    return float(d.mean() / se) if se > 0 else (math.inf if d.mean() > 0 else 0.0)


Z = 2.33
TARGET_OBSERVATIONS = 40


@pytest.mark.slow
def test_two_threshold_beats_one_threshold_under_laplace_informed():
    _, sc, out = scenario("laplace", "informed")
    assert paired_z(out["two_threshold"], out["one_threshold"], sc.data) > Z


@pytest.mark.slow
def test_two_threshold_beats_one_threshold_under_laplace_auxiliary_over_targets():
    """For the auxiliary attacker the gap depends on who else visits the target's cells (a
    person with the same home and hours looks like the target), so the claim is judged over
    three targets with about 40 observations: the pooled paired difference of correctness."""
    diffs = []
    for rank in range(3):
        _, sc, out = scenario("laplace", "auxiliary", rank=rank)
        diffs.append(correct(out["two_threshold"], sc.data).astype(float)
                     - correct(out["one_threshold"], sc.data).astype(float))
    d = np.concatenate(diffs)
    assert d.mean() / (d.std(ddof=1) / math.sqrt(d.size)) > Z


@pytest.mark.slow
def test_one_threshold_at_least_as_good_as_two_threshold_under_gaussian():
    _, sc, out = scenario("gaussian", "informed")
    assert paired_z(out["one_threshold"], out["two_threshold"], sc.data) > -Z
    assert accuracy(out["one_threshold"], sc.data) >= accuracy(out["two_threshold"], sc.data)


@pytest.mark.slow
@pytest.mark.parametrize("attacker", ["informed", "auxiliary"])
def test_meta_classifier_with_2000_shadows_is_near_one_threshold_below_two_threshold(attacker):
    _, sc, out = scenario("laplace", attacker)
    mlp, one, two = (accuracy(out[n], sc.data) for n in
                     ("meta_classifier", "one_threshold", "two_threshold"))
    assert abs(mlp - one) < 0.03, (mlp, one)
    assert paired_z(out["two_threshold"], out["meta_classifier"], sc.data) > Z


@pytest.mark.slow
@pytest.mark.claims     # 200,000 shadow aggregates: the longest test here (issue 18)
def test_meta_classifier_with_200000_shadows_approaches_two_threshold():
    _, sc, out = scenario("laplace", "informed", large=200_000)
    small, large = out["meta_classifier"], out["meta_classifier_large"]
    two = accuracy(out["two_threshold"], sc.data)
    assert paired_z(large, small, sc.data) > Z
    assert accuracy(large, sc.data) >= two - 0.01, (accuracy(large, sc.data), two)


@pytest.mark.slow
@pytest.mark.parametrize("mechanism", ["laplace", "gaussian"])
def test_informed_attacker_beats_auxiliary(mechanism):
    _, sc_i, out_i = scenario(mechanism, "informed")
    _, sc_a, out_a = scenario(mechanism, "auxiliary")
    for name in ("one_threshold", "two_threshold", "likelihood_ratio"):
        assert accuracy(out_i[name], sc_i.data) > accuracy(out_a[name], sc_a.data) + 0.01, name


@pytest.mark.slow
@pytest.mark.parametrize("mechanism, attacker", [("laplace", "informed"),
                                                 ("laplace", "auxiliary"),
                                                 ("gaussian", "informed")])
def test_likelihood_ratio_is_at_least_as_good_as_every_attack(mechanism, attacker):
    _, sc, out = scenario(mechanism, attacker)
    for name, other in out.items():
        if name != "likelihood_ratio":
            assert paired_z(out["likelihood_ratio"], other, sc.data) > -Z, name


@pytest.mark.slow
@pytest.mark.parametrize("mechanism", ["laplace", "gaussian"])
def test_informed_likelihood_ratio_is_within_one_percent_of_the_exact_optimum(mechanism):
    from engine.mechanisms.tradeoff import mechanism_tradeoff

    config, sc, out = scenario(mechanism, "informed")
    optimum = mechanism_tradeoff(mechanism, sc.data.scale, 1.0, sc.k).accuracy()
    assert abs(accuracy(out["likelihood_ratio"], sc.data) - optimum) <= 0.01


@pytest.mark.slow
@pytest.mark.parametrize("mechanism, attacker", [("laplace", "informed"),
                                                 ("laplace", "auxiliary"),
                                                 ("gaussian", "informed")])
def test_every_accuracy_stays_below_the_dp_bound(mechanism, attacker):
    from engine.metrics import balanced_accuracy_with_ci

    config, sc, out = scenario(mechanism, attacker)
    bound = location_theory.dp_bound_accuracy(config, sc.data.scale, sc.k_epochs)
    for name, o in out.items():
        _, (lo, _) = balanced_accuracy_with_ci(*rates_at_threshold(o.scores, sc.data.test.labels,
                                                                    o.threshold))
        assert lo <= bound, (name, lo, bound)
