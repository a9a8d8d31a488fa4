"""Issue 31, item 1: nothing the officer saved is ever overwritten.

A project file (*.praudit.json) is written only when the officer saves it; autosave keeps a
page's unsaved work in a recovery copy of its own, offered after a crash; other data chosen on a
page that holds a saved project asks whether to start a new project. Each test drives the real
window offscreen.
"""

from __future__ import annotations

import json
import os
import shutil
import signal
import stat
import subprocess
import sys
import textwrap
import threading
from pathlib import Path

import pytest
from PySide6.QtWidgets import QFileDialog, QMessageBox

from engine.project import backup_path, load_project, recovery_path
from gui.main_window import CANCEL, DISCARD, NEW, SAVE, MainWindow
from tests.gui.test_location_page import open_location
from tests.gui.test_location_page import run_to_completion as run_location
from tests.gui.test_mechanism_page import open_mechanism, run_to_completion

ROOT = Path(__file__).resolve().parents[2]
SAMPLE_TRACES = ROOT / "resources" / "location" / "sample_city.csv"
LOCATION_PROJECT = ROOT / "tests" / "data" / "projects" / "location.praudit.json"
CRASH_GUARD_S = 600          # a hang guard for the crashing app, not a speed limit


def answer(monkeypatch, name: str, *answers: str) -> list[str]:
    """Answer the window's question ``name`` with ``answers`` in turn (then as the conftest
    does: the window is closed again when the test ends); the questions asked."""
    asked: list[str] = []
    queue = list(answers)
    default = DISCARD if name == "ask_save_changes" else NEW

    def ask(self, text, *rest):
        asked.append(text)
        return queue.pop(0) if queue else default

    monkeypatch.setattr(MainWindow, name, ask)
    return asked


def choose_file(monkeypatch, path: Path) -> None:
    monkeypatch.setattr(QFileDialog, "getOpenFileName",
                        staticmethod(lambda *a, **k: (str(path), "")))


def save_as(monkeypatch, window: MainWindow, path: Path) -> bytes:
    monkeypatch.setattr(QFileDialog, "getSaveFileName",
                        staticmethod(lambda *a, **k: (str(path), "")))
    assert window.save_project()
    return path.read_bytes()


# ----------------------------------------------------------------- (a) save, other data, run, quit

def test_a_saved_project_stays_byte_identical_through_other_data_a_run_and_quit(
        main_window, qtbot, tmp_path, monkeypatch):
    """The defect: titanic.praudit.json, then another CSV run on the same page — the Titanic
    file held the other audit. Now the page asks, starts a new project, and A is untouched."""
    page = open_location(main_window, attacks=("one_threshold",), sweep_targets=0)
    saved = tmp_path / "titanic.praudit.json"
    before = save_as(monkeypatch, main_window, saved)

    other = tmp_path / "slid.csv"
    shutil.copyfile(SAMPLE_TRACES, other)
    choose_file(monkeypatch, other)
    asked_new = answer(monkeypatch, "ask_new_project", NEW)
    page.browse_button.click()
    assert len(asked_new) == 1 and "titanic.praudit.json" in asked_new[0]
    assert "slid.csv" in asked_new[0]
    assert page.fields["traces"].text() == str(other)
    assert main_window.project_path_of(page) is None          # A is no longer the target

    run_location(page, qtbot)
    assert page.result() is not None
    assert saved.read_bytes() == before                        # the run wrote nothing to A
    # A new project's run is said to be unsaved too (GUI walk-through: it said nothing).
    assert main_window.statusBar().currentMessage() == (
        "The results are not saved in a project file yet: press Save project to keep them.")

    asked_save = answer(monkeypatch, "ask_save_changes", DISCARD)
    assert main_window.close()
    assert len(asked_save) == 1 and "not saved yet" in asked_save[0]
    assert saved.read_bytes() == before
    assert not backup_path(saved).exists()                     # A was never saved over
    assert not any(main_window.recovery_folder.glob(f"{os.getpid()}-*"))  # a clean quit


def test_a_run_on_a_saved_project_goes_to_the_recovery_copy_until_saved(main_window, qtbot,
                                                                        tmp_path, monkeypatch):
    """Autosave protects the run in a private recovery copy; Save (here: "save changes?"
    answered Save on quitting) is what writes the project file."""
    page = open_mechanism(main_window)
    saved = tmp_path / "a.praudit.json"
    before = save_as(monkeypatch, main_window, saved)
    copy = recovery_path(main_window.recovery_folder, "mechanism")
    assert not copy.exists()

    run_to_completion(page, qtbot)
    page.results_view.note_edit.setPlainText("Checked with the DPO.")
    page.results_view.add_note_button.click()
    assert saved.read_bytes() == before
    kept = json.loads(copy.read_text(encoding="utf-8"))
    assert kept["result"] == page.result() and kept["recovers"] == str(saved)
    assert kept["decision_log"][0]["text"] == "Checked with the DPO."
    if os.name == "posix":
        assert stat.S_IMODE(copy.stat().st_mode) == 0o600
        assert stat.S_IMODE(copy.parent.stat().st_mode) == 0o700

    asked = answer(monkeypatch, "ask_save_changes", CANCEL, SAVE)
    assert not main_window.close()                             # Cancel: nothing changes
    assert main_window.isVisible() and saved.read_bytes() == before and copy.exists()
    assert main_window.close()                                 # Save, then quit
    assert len(asked) == 2 and "a.praudit.json" in asked[0]
    project = load_project(saved)
    assert project.result == page.result()
    assert project.decision_log[0]["text"] == "Checked with the DPO."
    assert not copy.exists()


# ----------------------------------------------------------------- (c) other data: asked, Cancel

def test_other_data_on_a_saved_project_asks_and_cancel_keeps_everything(main_window, tmp_path,
                                                                        monkeypatch):
    saved = tmp_path / "trips.praudit.json"
    shutil.copyfile(LOCATION_PROJECT, saved)
    before = saved.read_bytes()
    assert main_window.open_project(str(saved))
    page = main_window.location_page
    state = (page.form_dict(), page.result(), page.decision_log())
    assert state[1] is not None and state[2]
    traces = page.fields["traces"].text()

    other = tmp_path / "other.csv"
    shutil.copyfile(SAMPLE_TRACES, other)
    choose_file(monkeypatch, other)
    asked = answer(monkeypatch, "ask_new_project", CANCEL, NEW)
    page.browse_button.click()                                 # Cancel
    assert len(asked) == 1 and "trips.praudit.json" in asked[0]
    assert page.fields["traces"].text() == traces
    assert (page.form_dict(), page.result(), page.decision_log()) == state
    assert main_window.project_path_of(page) == str(saved)
    assert not main_window.has_unsaved_changes(page)

    page.browse_button.click()                                 # New project
    assert page.fields["traces"].text() == str(other)
    assert main_window.project_path_of(page) is None
    assert page.result() is None and page.decision_log() == []
    assert saved.read_bytes() == before

    # A page without a saved project loads other data without a question.
    choose_file(monkeypatch, SAMPLE_TRACES)
    page.browse_button.click()
    assert len(asked) == 2 and page.fields["traces"].text() == str(SAMPLE_TRACES)


def test_open_and_new_over_unsaved_work_ask_first(main_window, tmp_path, monkeypatch):
    page = open_mechanism(main_window)
    page.fields["epsilon"].setText("0.37")
    asked = answer(monkeypatch, "ask_save_changes", CANCEL, CANCEL)
    main_window.new_action.trigger()
    assert not main_window.open_project(str(LOCATION_PROJECT.with_name("mechanism.praudit.json")))
    assert len(asked) == 2 and "unsaved changes" in asked[0]
    assert page.fields["epsilon"].text() == "0.37"


# ----------------------------------------------------------------- (b) a crash mid-run

CRASHING_APP = textwrap.dedent("""
    import sys, time
    from PySide6.QtWidgets import QApplication, QFileDialog
    app = QApplication([])
    import pyqtgraph as pg
    from gui.app import configure_plots
    from gui.main_window import MainWindow
    configure_plots(pg)
    window = MainWindow()
    window.show()

    def wait(condition):
        while not condition():
            app.processEvents()
            time.sleep(0.02)

    window.open_sample("mechanism")
    page = window.mechanism_page
    page.fields["trials"].setText("2000")
    QFileDialog.getSaveFileName = staticmethod(lambda *a, **k: (sys.argv[1], ""))
    assert window.save_project()
    page.run_button.click()
    wait(lambda: page.result() is not None and not page.is_running())
    page.results_view.note_edit.setPlainText("Checked with the DPO.")
    page.results_view.add_note_button.click()
    page.fields["epsilon"].setText("0.41")               # typed, then a long run started
    page.fields["trials"].setText("2000000")
    page.run_button.click()
    wait(lambda: page.progress_bar.value() > 0)
    print("running", flush=True)
    wait(lambda: False)
""")


def crash_mid_run(app_data: Path, project: Path) -> None:
    """Run the app in a process of its own and kill it (SIGKILL) while an audit runs."""
    env = {**os.environ, "PRA_APP_DATA": str(app_data), "QT_QPA_PLATFORM": "offscreen",
           "PRA_DEVICE": "cpu"}
    proc = subprocess.Popen([sys.executable, "-c", CRASHING_APP, str(project)], cwd=ROOT,
                            env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    guard = threading.Timer(CRASH_GUARD_S, proc.kill)
    guard.start()
    try:
        line = proc.stdout.readline()
        assert line.strip() == "running", proc.stderr.read()[-2000:]
        proc.send_signal(signal.SIGKILL)
        proc.wait()
    finally:
        guard.cancel()
        proc.kill()
        proc.wait()
        proc.stdout.close()
        proc.stderr.close()


@pytest.mark.skipif(os.name != "posix", reason="kills the app with SIGKILL")
def test_a_crash_mid_run_offers_the_unsaved_work_at_the_next_start(run_main, tmp_path,
                                                                   monkeypatch):
    app_data = tmp_path / "app-data"
    saved = tmp_path / "a.praudit.json"
    crash_mid_run(app_data, saved)
    folder = app_data / "recovery"
    left = list(folder.glob("*.recovery.json"))
    assert len(left) == 1 and stat.S_IMODE(left[0].stat().st_mode) == 0o600
    assert stat.S_IMODE(folder.stat().st_mode) == 0o700
    before = saved.read_bytes()
    assert load_project(saved).result is None                 # saved before the runs
    kept = left[0].read_bytes()

    monkeypatch.setenv("PRA_APP_DATA", str(app_data))
    asked: list[str] = []
    answers = [QMessageBox.StandardButton.No, QMessageBox.StandardButton.Yes]

    def question(parent, title, text, *args, **kwargs):
        asked.append(text)
        return answers.pop(0)

    monkeypatch.setattr(QMessageBox, "question", staticmethod(question))

    # Declined: the copy is deleted, the page starts empty, the project file is as saved.
    window = run_main([])
    assert len(asked) == 1 and "closed unexpectedly" in asked[0]
    assert "Mechanism audit (a.praudit.json)" in asked[0]
    assert "restore the unsaved work?" in asked[0]
    assert not left[0].exists() and window.mechanism_page.result() is None
    assert window.stack.currentWidget() is window.home_page
    window.close()

    # Accepted (the same copy again): the page holds the work as it was when the app died —
    # the typed settings, the first run's result and the note — and Save writes it to a.
    left[0].write_bytes(kept)
    window = run_main([])
    assert len(asked) == 2
    page = window.mechanism_page
    assert window.stack.currentWidget() is page
    assert page.fields["epsilon"].text() == "0.41" and page.fields["trials"].text() == "2000000"
    assert page.result() is not None and page.result()["audit_type"] == "mechanism"
    assert [e["text"] for e in page.decision_log()] == ["Checked with the DPO."]
    assert window.project_path_of(page) == str(saved)
    assert window.has_unsaved_changes(page)
    assert not left[0].exists()                                # now kept under this session
    assert recovery_path(folder, "mechanism").exists()
    assert saved.read_bytes() == before
    asked_save = answer(monkeypatch, "ask_save_changes", SAVE)
    assert page.status_label.text().startswith("Unsaved work restored")
    assert window.close()
    assert len(asked_save) == 1
    assert load_project(saved).config["epsilon"] == 0.41
    # The page's line no longer asks to save what was just saved (GUI walk-through).
    assert page.status_label.text() == "Restored work saved to a.praudit.json."
    assert not any(folder.glob("*.recovery.json"))
