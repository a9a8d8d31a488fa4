"""How thorough an audit is (issue 20, presets): Quick look, Standard, Thorough, Custom.

The presets only set how deep the attack goes (attacks, simulated releases, reference models);
the data, release, policy and seed of the user's config are never touched, Standard is the
config class's own defaults, and the engine's estimate orders them quickest first.
"""

from __future__ import annotations

import pytest

from engine.audits.presets import (
    CUSTOM,
    QUICK,
    STANDARD,
    THOROUGH,
    apply_preset,
    matching_preset,
    presets,
)
from engine.audits.registry import AUDIT_TYPES, config_from_dict, demo_config
from engine.estimates import estimate

TYPES = tuple(AUDIT_TYPES)


@pytest.mark.parametrize("audit_type", TYPES)
def test_every_preset_of_the_sample_is_a_valid_config_ordered_by_cost(audit_type):
    base = demo_config(audit_type).to_dict()
    table = presets(audit_type)
    assert [p.key for p in table] == [QUICK, STANDARD, THOROUGH]
    seconds = []
    for preset in table:
        config = config_from_dict(apply_preset(base, preset), source="test")
        plain = config.to_dict()
        # The preset's values arrive in the engine's config as set...
        assert matching_preset(audit_type, plain) == preset.key
        # ...and nothing else of the user's config moved.
        for key, value in base.items():
            if key not in preset.settings and key != "schema_version":
                assert plain[key] == value, key
        seconds.append(estimate(config, slowdown=1.0).seconds)
    assert seconds[0] < seconds[1] < seconds[2], seconds


@pytest.mark.parametrize("audit_type", TYPES)
def test_standard_is_the_config_classes_own_defaults(audit_type):
    defaults = config_from_dict({"audit_type": audit_type}, source="test").to_dict()
    assert matching_preset(audit_type, defaults) == STANDARD
    standard = next(p for p in presets(audit_type) if p.key == STANDARD)
    assert all(defaults[key] == value for key, value in standard.settings.items())


def test_a_size_no_preset_has_is_custom_and_attack_order_does_not_matter():
    quick = next(p for p in presets("location") if p.key == QUICK)
    config = apply_preset(demo_config("location").to_dict(), quick)
    config["attacks"] = list(reversed(config["attacks"]))
    assert matching_preset("location", config) == QUICK
    config["test_aggregates"] = 5_001
    assert matching_preset("location", config) == CUSTOM


def test_a_half_typed_value_is_custom_not_an_error():
    config = demo_config("model").to_dict()
    config["reference_models"] = "lots"
    assert matching_preset("model", config) == CUSTOM
    assert matching_preset("no such type", config) == CUSTOM


def test_applying_a_preset_does_not_share_its_lists():
    thorough = next(p for p in presets("model") if p.key == THOROUGH)
    config = apply_preset({}, thorough)
    config["attacks"].append("changed")
    assert "changed" not in thorough.settings["attacks"]
