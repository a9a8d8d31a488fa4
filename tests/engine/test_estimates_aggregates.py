"""The count-tables audit's cost estimate (engine/estimates/aggregates.py, issue 11): finite for
the demo, growing with every size that drives the run, a run that cannot fit refused with the
setting to lower. Nothing is run here; how close the estimates come to measured runs is
bench/bench_estimates.py's job."""

from __future__ import annotations

from dataclasses import replace

import pytest

from engine.audits.registry import demo_config
from engine.estimates import estimate, preflight
from engine.estimates.aggregates import released, shape, targets


@pytest.fixture(scope="module")
def demo():
    return demo_config("aggregates")


def _synthetic(demo, **kw):
    """The demo's settings on the synthetic census block (sizes set in the config)."""
    return replace(demo, data="", auxiliary="", schema={}, sensitive="", release_options={},
                   **kw)


def test_the_demo_has_a_finite_estimate_with_every_step(demo):
    cost = estimate(demo)
    assert cost.audit_type == "aggregates"
    assert 0 < cost.seconds < 3600 and 0 < cost.peak_bytes < 16e9
    names = {p.name for p in cost.parts}
    assert {"deterministic", "stochastic", "cip", "membership",
            "membership_stochastic"} <= names
    assert all(p.what and p.setting and p.seconds >= 0 and p.bytes >= 0 for p in cost.parts)
    assert cost.sentence().startswith(("About ", "Under 10 seconds"))


def test_sizes_come_from_the_config_and_the_release(demo):
    sh = shape(demo)                                   # the bundled CSV's first megabyte
    assert sh.n == 450 and sh.n_aux == 4000 and sh.k == 2
    assert sh.candidates == 460                        # P12, P12A–G, P12H, P12I × 46 cells
    assert released(sh, demo.fraction) == 112          # m = 0.25·|D|
    assert released(sh, 0.0) == 460
    assert targets(demo, sh) == demo.max_targets
    syn = shape(_synthetic(demo, census_records=1000, census_auxiliary=9000))
    assert syn.n == 1000 and syn.n_aux == 9000 and syn.k == 7 and syn.candidates == 368


def test_estimates_grow_with_what_drives_them(demo):
    base = estimate(demo)
    grows = [dict(n_shadow=4 * demo.n_shadow), dict(max_targets=2 * demo.max_targets),
             dict(reconstructions=5 * demo.reconstructions), dict(fraction=1.0),
             dict(attacks=(*demo.attacks, "rap_rand")), dict(attacks=(*demo.attacks,
                                                                       "likelihood")),
             dict(sweep_fractions=(0.1, 0.5)), dict(sweep_epsilons=(1.0, 0.1)),
             dict(mia_attacks=(*demo.mia_attacks, "rap_rand_mia"))]
    for kw in grows:
        assert estimate(replace(demo, **kw)).seconds > base.seconds, kw
    assert estimate(replace(demo, membership=False)).seconds < base.seconds
    assert estimate(replace(demo, mechanism="laplace")).seconds >= base.seconds   # CIP's L1
    assert estimate(replace(demo, n_shadow=10 * demo.n_shadow)).peak_bytes > base.peak_bytes
    small = estimate(_synthetic(demo, census_records=300, census_auxiliary=2700))
    big = estimate(_synthetic(demo, census_records=3000, census_auxiliary=27000))
    assert big.seconds > small.seconds and big.peak_bytes > small.peak_bytes


def test_a_solver_time_limit_bounds_the_solver_steps(demo):
    slow = replace(demo, attacks=("desia", "cip_rand"), membership=False)
    free = estimate(replace(slow, solver_time_limit=3600)).seconds_of("deterministic", "cip")
    capped = estimate(replace(slow, solver_time_limit=0.1)).seconds_of("deterministic", "cip")
    assert capped <= free


def test_a_published_table_has_an_estimate(demo):
    config = replace(demo, release="published", data="resources/aggregates/sample_auxiliary.csv",
                     auxiliary="", published_records=450,
                     release_options={"path": "resources/aggregates/sample_published_p_tables.csv"})
    cost = estimate(config)
    assert "published" in {p.name for p in cost.parts}
    assert "membership" not in {p.name for p in cost.parts}
    assert 0 < cost.seconds < 3600


def test_a_huge_run_is_refused_naming_the_setting_to_lower(demo):
    # Every 1- and 2-way marginal (1,563 counts) and a million shadow datasets.
    shadows = replace(demo, n_shadow=1_000_000, fraction=0.0, release="marginals",
                      release_options={})
    check = preflight(estimate(shadows), available=16e9)
    assert check.refusal is not None and check.refusal.key == "n_shadow"
    rap = _synthetic(demo, census_records=50_000, census_auxiliary=450_000, fraction=0.25,
                     attacks=("desia", "rap_rand"), membership=False, reconstructions=1000)
    check = preflight(estimate(rap), available=16e9)
    assert check.refusal is not None and check.refusal.key == "reconstructions"
    assert preflight(estimate(demo), available=16e9).refusal is None
