"""The run's estimated time and memory on every audit page (issue 11, "Long jobs"): shown
beside the Run button as the form changes; a run that cannot fit in memory is refused at the
setting to lower; a long one asks first, and No starts nothing."""

from __future__ import annotations

import pytest

import engine.estimates as est

TIMEOUT_MS = 30_000
ESTIMATED = ("Estimated: About", "Estimated: Under 10 seconds")


@pytest.mark.parametrize("audit_type", ["mechanism", "location", "aggregates", "model"])
def test_every_page_shows_its_estimate_and_follows_the_form(main_window, qtbot, audit_type):
    page = main_window.audit_pages[audit_type]
    main_window.show_audit(audit_type)
    label = page.run_bar.estimate_label
    qtbot.waitUntil(lambda: label.text().startswith(ESTIMATED), timeout=TIMEOUT_MS)
    assert "of memory" in label.text()


def test_the_estimate_follows_typing_and_waits_for_valid_settings(main_window, qtbot):
    page = main_window.mechanism_page
    main_window.show_audit("mechanism")
    label = page.run_bar.estimate_label
    qtbot.waitUntil(lambda: label.text().startswith(ESTIMATED), timeout=TIMEOUT_MS)
    first = label.text()
    page.fields["trials"].setText("many")
    qtbot.waitUntil(lambda: "once the settings are valid" in label.text(), timeout=TIMEOUT_MS)
    page.fields["trials"].setText("2000000")
    page.fields["observations"].setText("5000")
    qtbot.waitUntil(lambda: label.text().startswith(ESTIMATED) and label.text() != first,
                    timeout=TIMEOUT_MS)
    # The label says what the engine estimates for the typed settings (here the exact theory
    # over 5,000 observations is most of the time).
    from engine.estimates import estimate
    cost = estimate(page.validated_config())
    assert cost.seconds > 30 and label.text() == "Estimated: " + cost.sentence()
    assert "5,000 observations" in label.text()


def test_a_run_that_cannot_fit_is_refused_at_its_setting(main_window, qtbot, monkeypatch):
    page = main_window.mechanism_page
    main_window.show_audit("mechanism")
    monkeypatch.setattr(est, "available_memory_bytes", lambda: 1e6)
    submitted = []
    monkeypatch.setattr(page.runner, "submit", lambda *a, **k: submitted.append(a))
    page.run_button.click()
    assert not submitted and not page.is_running()
    assert page.error_label.isVisible()
    trials = page.FIELDS["trials"].label
    assert f"lower “{trials}”" in page.error_label.text()     # the field's words, not its key
    assert "'trials'" not in page.error_label.text()
    assert "c62828" in page.fields["trials"].styleSheet()        # the field is marked


def test_a_long_run_asks_and_no_starts_nothing(main_window, qtbot, monkeypatch):
    page = main_window.mechanism_page
    main_window.show_audit("mechanism")
    page.fields["trials"].setText("1000")
    monkeypatch.setattr(est, "CONFIRM_SECONDS", 0.0)
    asked = []

    def answer(question, reply):
        asked.append(question)
        return reply

    monkeypatch.setattr(page, "confirm_long_run", lambda q: answer(q, False))
    page.run_button.click()
    assert asked and asked[0].endswith("Start it anyway?") and not page.is_running()
    # The setting that drives the time by its label on the page, not its config key.
    assert "('" not in asked[0] and "“" in asked[0], asked[0]
    monkeypatch.setattr(page, "confirm_long_run", lambda q: answer(q, True))
    page.run_button.click()
    assert len(asked) == 2
    qtbot.waitUntil(lambda: page.result() is not None and not page.is_running(),
                    timeout=TIMEOUT_MS)


def test_a_quasi_identifier_with_many_values_is_warned_about_beside_run(main_window, qtbot,
                                                                       tmp_path):
    """Issue 18: a 2,000-value column is named, with its count and the advice to bin it,
    beside the Run button before anything runs (and the demo shows no such sentence)."""
    from tests.engine.test_estimates_aggregates import _many_zip_schema

    page = main_window.audit_pages["aggregates"]
    main_window.show_audit("aggregates")
    label = page.run_bar.estimate_label
    qtbot.waitUntil(lambda: label.text().startswith(ESTIMATED), timeout=TIMEOUT_MS)
    assert "different values" not in label.text()
    rows = ["zip,sex,smoker"] + [f"z{i % 2000:05d},{'FM'[i % 2]},{('no', 'yes')[i % 3 == 0]}"
                                 for i in range(400)]
    data = tmp_path / "people.csv"
    data.write_text("\n".join(rows) + "\n", encoding="utf-8")
    config = dict(page.loaded_config, data=str(data), auxiliary="", schema=_many_zip_schema(),
                  sensitive="smoker", release="marginals", release_options={"ways": [1, 2]})
    page.set_config(config)
    page.update_estimate(force=True)
    qtbot.waitUntil(lambda: "Column 'zip' has 2,000 different values" in label.text(),
                    timeout=TIMEOUT_MS)
    assert label.text().startswith(ESTIMATED) and "bins" in label.text()
    assert "b26a00" in label.styleSheet()                     # shown as a warning
