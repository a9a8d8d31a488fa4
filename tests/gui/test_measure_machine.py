"""'Measure this machine' in the window (issue 21): a job on the runner with progress and
Cancel; the estimates use what it measured, and say which times they use."""

from __future__ import annotations

import pytest

from engine.estimates.machine import constants_path
from gui.job_runner import JobRunner
from gui.measure_machine import MachineMeasurer
from gui.widgets.run_bar import RunBar


@pytest.fixture
def app_data(tmp_path, monkeypatch):
    monkeypatch.setenv("PRA_APP_DATA", str(tmp_path))
    return tmp_path


def _measurer(qtbot, parent, runner) -> tuple[MachineMeasurer, list]:
    shown = []
    measurer = MachineMeasurer(parent, runner, scale=0.01, types=("mechanism",))
    measurer.show_information = lambda title, text: shown.append((title, text))
    return measurer, shown


def test_the_window_offers_to_measure_this_machine(main_window):
    texts = [a.text() for menu in main_window.menuBar().actions() if menu.menu()
             for a in menu.menu().actions()]
    assert "&Measure this machine…" in texts


def test_measuring_runs_on_the_runner_and_the_estimates_say_they_use_it(qtbot, app_data):
    bar = RunBar()
    qtbot.addWidget(bar)
    bar.show_estimate("Estimated: about 10 seconds.")
    assert "built-in times" in bar.estimate_label.toolTip()
    runner = JobRunner()
    measurer, shown = _measurer(qtbot, bar, runner)
    assert measurer.start()
    assert runner.is_busy() and measurer.dialog is not None
    qtbot.waitUntil(lambda: bool(shown), timeout=120_000)
    assert shown[0][0] == "This machine was measured"
    assert "use times measured on this machine on" in shown[0][1]
    assert "mechanism audits" in shown[0][1]
    assert constants_path().exists() and measurer.dialog is None
    bar.show_estimate("Estimated: about 10 seconds.")
    assert "measured on this machine on" in bar.estimate_label.toolTip()
    runner.wait(10_000)


def test_measuring_is_refused_while_an_audit_runs(qtbot, app_data, monkeypatch):
    bar = RunBar()
    qtbot.addWidget(bar)
    runner = JobRunner()
    refused = []
    monkeypatch.setattr("gui.measure_machine.show_message_error",
                        lambda parent, title, text: refused.append(text))
    monkeypatch.setattr(runner, "is_busy", lambda: True)
    measurer, _ = _measurer(qtbot, bar, runner)
    assert not measurer.start()
    assert refused and "still running" in refused[0]


def test_a_cancelled_measurement_changes_nothing(qtbot, app_data):
    bar = RunBar()
    qtbot.addWidget(bar)
    runner = JobRunner()
    measurer, shown = _measurer(qtbot, bar, runner)
    assert measurer.start()
    from PySide6.QtWidgets import QPushButton
    [button] = measurer.dialog.findChildren(QPushButton)
    assert button.text() == "Cancel"
    button.click()
    qtbot.waitUntil(lambda: bool(shown), timeout=120_000)
    assert shown[0][0] == "Measuring cancelled"
    assert not constants_path().exists()
    runner.wait(10_000)


def test_a_damaged_file_of_measured_times_is_said_beside_the_estimate(qtbot, app_data):
    constants_path().parent.mkdir(parents=True, exist_ok=True)
    constants_path().write_text("{ not json", encoding="utf-8")
    bar = RunBar()
    qtbot.addWidget(bar)
    bar.show_estimate("Estimated: about 10 seconds.")
    assert bar.estimate_label.text().startswith("Estimated: about 10 seconds. The speed "
                                                "measured on this computer")
    assert "built-in times" in bar.estimate_label.toolTip()
