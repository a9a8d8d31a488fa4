"""Paths in the GUI (issue 18, defect 1; issue 19, item 6): a named pipe opened as a project
shows the error dialog instead of freezing the window, the path fields say what a pipe is
instead of "file not found", and ``~`` in a field means what the run will read.

The FIFO cases carry the engine tests' hang guard (:func:`fifo_watchdog`, 60 s): a regression
fails instead of freezing CI. It is not a speed claim.
"""

from __future__ import annotations

import os

from engine.audits import model as model_audit
from engine.data.paths import resolve_path as engine_resolve_path
from engine.games import aggregates_parts
from gui.job_runner import JobRunner
from gui.pages.audit_page import resolve_path as gui_resolve_path
from gui.pages.model_page import ModelPage
from gui.widgets.schema_table import csv_header
from tests.engine.test_input_paths import TRACES, fifo_watchdog


def test_a_named_pipe_as_a_project_shows_the_error_dialog(main_window, tmp_path, monkeypatch):
    fifo = tmp_path / "audit.praudit.json"
    os.mkfifo(fifo)
    shown = []
    monkeypatch.setattr("gui.main_window.show_message_error",
                        lambda parent, title, message: shown.append(message))
    with fifo_watchdog(fifo):
        assert not main_window.open_project(str(fifo))
    assert len(shown) == 1, shown
    assert "audit.praudit.json: is a named pipe" in shown[0], shown[0]
    assert not main_window.open_project("/dev/zero")
    assert "/dev/zero: is a device, not a file" in shown[1], shown[1]


def test_the_predictions_field_says_what_a_pipe_is(qtbot, plots_configured, tmp_path):
    page = ModelPage(JobRunner())
    qtbot.addWidget(page)
    fifo = tmp_path / "predictions.csv"
    os.mkfifo(fifo)
    page.predictions_edit.setText(str(fifo))
    with fifo_watchdog(fifo):
        page.check_file(page.predictions_edit, page.predictions_status)
        assert csv_header(fifo) is None           # the schema editors' look at the header
    text = page.predictions_status.text()
    assert "predictions.csv: is a named pipe" in text and "not found" not in text, text


def test_tilde_in_a_field_is_what_the_run_reads(main_window, qtbot, tmp_path, monkeypatch):
    """The GUI expanded ``~`` and the engine did not: a typed ``~/records.csv`` previewed on
    one page and was "file not found" in the run, and failed on the location page."""
    home = tmp_path / "home"
    home.mkdir()
    (home / "records.csv").write_text(TRACES)
    monkeypatch.setenv("HOME", str(home))
    typed = "~/records.csv"
    want = home / "records.csv"
    assert gui_resolve_path(typed) == engine_resolve_path(typed) == want
    assert model_audit.resolve_path(typed) == aggregates_parts.resolve_path(typed) == want
    main_window.open_sample("location")
    page = main_window.location_page
    page.fields["traces"].setText(typed)
    page.preview_button.click()
    text = page.preview_label.text()
    assert "2 people, 2 sites, 2 hours" in text and "not found" not in text, text
