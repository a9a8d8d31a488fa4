"""The location audit's cost model (engine/estimates/location.py): finite for the demo, growing
with the sizes that drive it, refusing a run that cannot fit with the setting to lower. How
close it comes to measured runs is a benchmark (``python -m bench.bench_estimates location``)."""

from __future__ import annotations

from dataclasses import replace

import pytest

from engine.audits.registry import demo_config
from engine.estimates import estimate, preflight


@pytest.fixture(scope="module")
def demo():
    return demo_config("location")


@pytest.fixture(scope="module")
def city(demo):
    return replace(demo, traces="", city_users=8000, city_epochs=400)


def test_the_demo_has_a_finite_estimate(demo):
    cost = estimate(demo)
    assert cost.audit_type == "location"
    assert 0 < cost.seconds < 600 and 0 < cost.peak_bytes < 8e9
    names = {p.name for p in cost.parts}
    assert {"load", "game", "attacks", "theory", "sweep"} <= names
    assert all(p.what and p.setting and p.seconds >= 0 and p.bytes >= 0 for p in cost.parts)
    assert cost.sentence().startswith(("About ", "Under 10 seconds"))


@pytest.mark.parametrize("key, factor", [("test_aggregates", 10), ("shadow_aggregates", 20),
                                         ("city_users", 8), ("city_epochs", 8),
                                         ("sweep_targets", 4), ("repetitions", 3),
                                         ("large_shadow_aggregates", None)])
def test_estimates_grow_with_what_drives_them(city, key, factor):
    base = estimate(city)
    value = 100_000 if factor is None else getattr(city, key) * factor
    if key == "city_users":
        value = min(value, 200_000)
    if key == "sweep_targets":
        value = min(value, 50)
    bigger = estimate(replace(city, **{key: value}))
    assert bigger.seconds > base.seconds
    if key in ("test_aggregates", "shadow_aggregates", "large_shadow_aggregates", "city_users"):
        assert bigger.peak_bytes > base.peak_bytes


def test_an_attacker_who_knows_less_costs_more(city):
    informed = estimate(city)
    auxiliary = estimate(replace(city, attacker="auxiliary"))
    assert auxiliary.seconds > informed.seconds
    assert estimate(replace(city, mechanism="discrete_gaussian")).seconds > informed.seconds
    fewer = estimate(replace(city, attacks=("one_threshold",)))
    assert fewer.seconds < informed.seconds


def test_the_target_with_more_observations_costs_more(city):
    few = estimate(replace(city, target="observations", target_observations=10))
    many = estimate(replace(city, target="observations", target_observations=300))
    assert many.seconds > few.seconds and many.peak_bytes > few.peak_bytes


def test_a_csv_is_sized_from_its_first_megabyte(demo, tmp_path):
    path = tmp_path / "traces.csv"
    rows = ["user_id,site,epoch"] + [f"u{u},r{u % 7}c0,{e}" for u in range(300)
                                     for e in range(0, 40, 2)]
    path.write_text("\n".join(rows) + "\n", encoding="utf-8")
    small = estimate(replace(demo, traces=str(path), aggregate_size=99))
    assert 0 < small.seconds < estimate(demo).seconds * 10
    assert estimate(replace(demo, traces=str(tmp_path / "missing.csv"))).seconds > 0


def test_a_huge_location_audit_is_refused_naming_the_setting(city):
    huge = replace(city, test_aggregates=2_000_000, shadow_aggregates=2_000_000,
                   large_shadow_aggregates=2_000_000, city_users=200_000, city_epochs=20_000)
    check = preflight(estimate(huge), available=16e9)
    assert check.refusal is not None
    assert check.refusal.key in ("test_aggregates", "shadow_aggregates",
                                 "large_shadow_aggregates")
    tests_only = replace(city, test_aggregates=2_000_000, city_epochs=4000)
    check = preflight(estimate(tests_only), available=16e9)
    assert check.refusal is not None and check.refusal.key == "test_aggregates"
