"""The "How thorough should the audit be?" box on every audit page (issue 20, presets)."""

from __future__ import annotations

import pytest

from engine.audits.presets import CUSTOM, QUICK, STANDARD, THOROUGH, presets

TYPES = ("mechanism", "location", "aggregates", "model")


@pytest.mark.parametrize("audit_type", TYPES)
def test_a_preset_sets_its_values_and_hides_the_attack_list(main_window, audit_type):
    main_window.open_sample(audit_type)
    page = main_window.audit_pages[audit_type]
    before = page.validated_config().to_dict()
    page.depth_buttons[QUICK].setChecked(True)
    after = page.validated_config().to_dict()
    quick = next(p for p in presets(audit_type) if p.key == QUICK)
    for key, value in quick.settings.items():
        want = sorted(value) if isinstance(value, list) else value
        have = sorted(after[key]) if isinstance(after[key], list) else after[key]
        assert have == want, key
    # Everything else the user set is as it was (data, release, policy, seed).
    assert {k: v for k, v in after.items() if k not in quick.settings} == \
           {k: v for k, v in before.items() if k not in quick.settings}
    assert page.custom_panel.isHidden()
    page.depth_buttons[CUSTOM].setChecked(True)
    assert not page.custom_panel.isHidden()
    assert page.validated_config().to_dict() == after       # Custom keeps what was there


def test_an_opened_config_ticks_the_depth_it_matches(main_window):
    page = main_window.audit_pages["model"]
    main_window.open_sample("model")
    assert page.depth_buttons[STANDARD].isChecked()
    config = page.validated_config().to_dict()
    page.set_config({**config, "reference_models": 12})
    assert page.depth_buttons[CUSTOM].isChecked()
    assert not page.custom_panel.isHidden()
    page.depth_buttons[THOROUGH].setChecked(True)
    assert page.validated_config().reference_models == 64


def test_a_size_typed_by_hand_moves_the_choice_to_custom(main_window):
    page = main_window.audit_pages["location"]
    main_window.open_sample("location")
    page.depth_buttons[QUICK].setChecked(True)
    page.fields["test_aggregates"].setText("7000")
    page.update_estimate(force=True)
    assert page.depth_buttons[CUSTOM].isChecked()
    assert page.validated_config().test_aggregates == 7000


def test_each_preset_shows_its_estimated_time(main_window):
    page = main_window.audit_pages["aggregates"]
    main_window.open_sample("aggregates")
    page.update_estimate(force=True)
    for key in (QUICK, STANDARD, THOROUGH):
        assert " — " in page.depth_buttons[key].text()
        assert any(unit in page.depth_buttons[key].text()
                   for unit in ("seconds", "minutes", "hours"))
