"""Each attack family's name → attack table (engine/attacks/<family>/__init__.py, issue 19
item 1) holds exactly the names its audit's config accepts, in the same order: the games
look names up there, and a name the config accepts without an entry would be skipped."""

from __future__ import annotations

import engine.attacks.aggregates as aggregate_attacks
import engine.attacks.location as location_attacks
import engine.attacks.model as model_attacks
from engine.audits import aggregates as aggregates_audit
from engine.audits import location as location_audit
from engine.audits import model as model_audit


def test_every_accepted_attack_name_has_one_table_entry():
    assert tuple(aggregate_attacks.ATTRIBUTE_ATTACKS) == aggregates_audit.ATTACKS
    assert tuple(aggregate_attacks.MEMBERSHIP_ATTACKS) == aggregates_audit.MIA_ATTACKS
    assert tuple(location_attacks.ATTACKS) == location_audit.ATTACKS
    assert tuple(model_attacks.ATTACKS) == model_audit.ATTACKS


def test_defaults_and_sweeps_name_table_entries():
    table = aggregate_attacks.ATTRIBUTE_ATTACKS
    for names in (aggregates_audit.DEFAULT_ATTACKS, aggregates_audit.SWEEP_ALLOWED,
                  aggregates_audit.SWEEP_ATTACKS):
        assert set(names) <= set(table)
    assert set(aggregates_audit.DEFAULT_MIA_ATTACKS) <= set(aggregate_attacks.MEMBERSHIP_ATTACKS)
    assert set(location_audit.DEFAULT_ATTACKS) <= set(location_attacks.ATTACKS)
    assert set(model_audit.DEFAULT_ATTACKS) <= set(model_attacks.ATTACKS)


def test_the_table_3_ablations_are_named_options_of_desia():
    table = aggregate_attacks.ATTRIBUTE_ATTACKS
    published = aggregate_attacks.AS_PUBLISHED
    assert table["desia"].deterministic == published
    assert table["desia"].fallback == "stochastic"
    assert table["desia_no_verification"].deterministic.verify is False
    assert table["desia_no_uniqueness"].deterministic.uniqueness is False
    assert table["desia_stochastic_only"].deterministic is None
    assert table["desia_deterministic_only"].fallback == "uniform"
    assert table["desia_synthetic"].reconstruction == "rap_rand"
    # Every reconstruction an attack reads is one the game knows how to make.
    readers = [a for a in (*table.values(), *aggregate_attacks.MEMBERSHIP_ATTACKS.values())
               if isinstance(a, aggregate_attacks.FromReconstructions)]
    assert {a.reconstruction for a in readers} <= set(aggregate_attacks.RECONSTRUCTIONS)
