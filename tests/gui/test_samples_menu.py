"""The app's samples (issue 33 item 3): the home page's "Other samples" lists every audit type's
quick sample and the thorough model sample, each with its estimated time; the quick ones start
without "Start it anyway?", the thorough one opens the model page with the whole sweep."""

from __future__ import annotations

import engine.estimates as est
from engine.audits.model import thorough_config
from engine.audits.registry import AUDIT_TYPES
from engine.audits.samples import sample_config
from engine.estimates import duration_range, estimate


def quiet_machine(monkeypatch):
    """Estimates as on a quiet computer with memory to spare: the tests then see the samples'
    own times, not what else the test machine runs meanwhile."""
    monkeypatch.setattr(est, "machine_slowdown", lambda **kw: 1.0)
    monkeypatch.setattr(est, "available_memory_bytes", lambda: 16e9)


def test_other_samples_lists_every_sample_with_its_estimate(main_window, monkeypatch):
    quiet_machine(monkeypatch)
    home = main_window.home_page
    assert home.other_samples_button.isVisible()
    assert list(home.sample_actions) == [*AUDIT_TYPES, "model-thorough"]
    home.show_sample_estimates()             # what opening the menu does
    for name, (action, words) in home.sample_actions.items():
        seconds = estimate(sample_config(name)).expected_seconds
        assert action.text() == f"{words} ({duration_range(seconds)})"
    thorough, _ = home.sample_actions["model-thorough"]
    assert "thorough" in thorough.text() and "minutes" in thorough.text()
    assert "14 settings" in thorough.toolTip()


def test_the_quick_samples_start_without_asking(main_window, monkeypatch):
    quiet_machine(monkeypatch)
    asked = []
    for audit_type in AUDIT_TYPES:
        main_window.home_page.sample_actions[audit_type][0].trigger()
        page = main_window.audit_pages[audit_type]
        assert main_window.stack.currentWidget() is page
        monkeypatch.setattr(page, "confirm_long_run", lambda q: asked.append(q) or False)
        assert page.preflight_allows(page.validated_config()), audit_type
    assert not asked, asked


def test_the_thorough_sample_opens_the_whole_sweep(main_window):
    main_window.home_page.sample_actions["model-thorough"][0].trigger()
    page = main_window.audit_pages["model"]
    assert main_window.stack.currentWidget() is page
    assert page.name_edit.text().startswith("Thorough sample")
    assert page.fields["defences.kcd_alphas"].text() == "0, 0.25, 0.5, 0.75, 1"
    assert type(thorough_config()).from_dict(page.form_dict()) == thorough_config()
