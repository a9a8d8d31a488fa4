"""Claims of paper 003 on a synthetic census block (engine only: the aggregates audit is not
registered yet). 150 records, 1,500 auxiliary records, race as the sensitive value re-drawn
uniformly for each of 40 unique targets (the AIA game, Fig. 2), P-tables released.

"A beats B" means B's DeLong upper bound is below A's lower bound (95 %), a strict reading."""

from __future__ import annotations

from functools import cache

import pytest

from engine.audits.aggregates import AggregatesConfig, evaluate, play_aia

ATTACKS = ("desia", "desia_no_verification", "desia_stochastic_only", "cip_rand", "data_only")


@cache
def game(fraction):
    config = AggregatesConfig(census_records=150, census_auxiliary=1500, max_targets=40,
                              n_shadow=2000, reconstructions=5, fraction=fraction,
                              attacks=ATTACKS)
    outcome = play_aia(config)
    return outcome, {a["name"]: a for a in evaluate(config, outcome)}


@pytest.mark.slow
def test_every_deterministically_vulnerable_target_is_truly_determined_and_right():
    outcome, _ = game(None)
    assert outcome.determined.sum() >= 1
    assert (outcome.determined_value[outcome.determined]
            == outcome.truth[outcome.determined]).all()


@pytest.mark.slow
def test_the_deterministic_module_only_adds_to_the_stochastic_one():
    _, attacks = game(None)
    assert attacks["desia"]["auc"] >= attacks["desia_stochastic_only"]["auc"] - 1e-12


@pytest.mark.slow
def test_more_released_aggregates_raise_desia_success():
    _, few = game(0.25)
    _, many = game(None)
    assert many["desia"]["auc_ci"][0] > few["desia"]["auc_ci"][1]


@pytest.mark.slow
def test_removing_verification_lowers_desia_auc():
    _, attacks = game(None)
    assert attacks["desia"]["auc_ci"][0] > attacks["desia_no_verification"]["auc_ci"][1]


@pytest.mark.slow
def test_desia_beats_the_data_only_guess():
    _, attacks = game(None)
    assert attacks["desia"]["auc_ci"][0] > attacks["data_only"]["auc_ci"][1]


@pytest.mark.slow
def test_exposed_records_name_the_cells_that_pin_them_down():
    from engine.audits.aggregates import exposed_records

    outcome, _ = game(None)
    exposed = exposed_records(outcome)
    assert len(exposed) == int(outcome.determined.sum())
    for entry in exposed:
        assert entry["record"] == "(redacted)" and entry["value_correct"]
        assert entry["pinning_cells"] and entry["tables"]


@cache
def mia_game():
    from engine.audits.aggregates import play_mia

    config = AggregatesConfig(census_records=150, census_auxiliary=1500, max_targets=40,
                              n_shadow=1000, reconstructions=5, fraction=None)
    return play_mia(config)


@pytest.mark.slow
def test_desia_mia_memberships_it_proves_are_right_and_it_beats_chance():
    from engine.metrics import delong_auc_ci

    outcome = mia_game()
    assert outcome.determined.sum() >= 1
    assert (outcome.determined_value[outcome.determined]
            == outcome.member[outcome.determined]).all()
    auc, (lo, _) = delong_auc_ci(outcome.scores["desia_mia"], outcome.member)
    assert lo > 0.5, auc
    auc_stochastic = delong_auc_ci(outcome.scores["desia_mia_stochastic_only"],
                                   outcome.member)[0]
    assert auc >= auc_stochastic - 1e-12
