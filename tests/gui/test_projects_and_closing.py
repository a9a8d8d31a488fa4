"""Projects (save, reopen, autosave, decision log) and quitting while an audit runs."""

from __future__ import annotations

import json

from PySide6.QtCore import QThreadPool
from PySide6.QtWidgets import QFileDialog, QMessageBox

from engine.project import load_project, recovery_path
from gui.main_window import MainWindow
from tests.gui.test_mechanism_page import RUN_TIMEOUT_MS, open_mechanism, run_to_completion


def patch_save_dialog(monkeypatch, path):
    monkeypatch.setattr(QFileDialog, "getSaveFileName",
                        staticmethod(lambda *args, **kwargs: (str(path), "")))


def test_save_and_reopen_restores_form_result_and_log(main_window, qtbot, tmp_path, monkeypatch):
    page = open_mechanism(main_window)
    page.fields["epsilon"].setText("0.5")
    page.fields["observations"].setText("4")
    page.mechanism_combo.setCurrentIndex(page.mechanism_combo.findData("gaussian"))
    page.fields["policy.high_tpr"].setText("0.2")
    run_to_completion(page, qtbot)
    page.results_view.note_edit.setPlainText("Approved for publication.")
    page.results_view.add_note_button.click()

    path = tmp_path / "audit"
    patch_save_dialog(monkeypatch, path)
    main_window.save_action.trigger()
    saved = tmp_path / "audit.praudit.json"
    assert saved.exists()
    project = load_project(saved)
    assert project.config["epsilon"] == 0.5 and project.config["mechanism"] == "gaussian"
    assert project.result["verdict"]["level"] in ("low", "medium", "high")
    assert project.decision_log[0]["text"] == "Approved for publication."
    assert project.decision_log[0]["time"]

    other = MainWindow()
    qtbot.addWidget(other)
    assert other.open_project(str(saved))
    restored = other.mechanism_page
    assert restored.fields["epsilon"].text() == "0.5"
    assert restored.fields["observations"].text() == "4"
    assert restored.mechanism_combo.currentData() == "gaussian"
    assert restored.fields["policy.high_tpr"].text() == "0.2"
    assert restored.result() == project.result
    assert restored.results_view.metrics_table.rowCount() >= 2
    assert restored.results_view.notes_list.count() == 1
    assert str(saved) in other.home_page.recent_list.item(0).data(0x0100)


def test_autosave_after_run_keeps_a_recovery_copy_not_the_project(main_window, qtbot, tmp_path,
                                                                    monkeypatch):
    """Issue 31, item 1: a finished run is kept in the page's recovery copy; the project file
    changes only when the officer saves."""
    page = open_mechanism(main_window)
    patch_save_dialog(monkeypatch, tmp_path / "auto.praudit.json")
    main_window.save_project()
    saved = tmp_path / "auto.praudit.json"
    before = saved.read_bytes()
    assert json.loads(before)["result"] is None
    run_to_completion(page, qtbot)
    assert saved.read_bytes() == before
    copy = recovery_path(main_window.recovery_folder, "mechanism")
    assert json.loads(copy.read_text())["result"]["audit_type"] == "mechanism"
    assert json.loads(copy.read_text())["recovers"] == str(saved)
    main_window.save_action.trigger()
    assert json.loads(saved.read_text())["result"]["audit_type"] == "mechanism"
    assert not copy.exists()


def test_bad_project_file_gives_a_sentence(main_window, tmp_path, monkeypatch):
    bad = tmp_path / "broken.praudit.json"
    bad.write_text("not json")
    shown = []
    monkeypatch.setattr("gui.main_window.show_message_error",
                        lambda parent, title, message: shown.append(message))
    assert not main_window.open_project(str(bad))
    assert "not a Privacy Risk Auditor project file" in shown[0]


def test_close_while_running_asks_and_leaves_no_thread(main_window, qtbot, monkeypatch):
    page = open_mechanism(main_window, trials=2_000_000)
    answers = [QMessageBox.StandardButton.No, QMessageBox.StandardButton.Yes]
    asked = []

    def fake_question(parent, title, text, *args, **kwargs):
        asked.append(text)
        return answers[len(asked) - 1]

    monkeypatch.setattr(QMessageBox, "question", staticmethod(fake_question))
    page.run_button.click()
    qtbot.waitUntil(lambda: page.progress_bar.value() > 0, timeout=RUN_TIMEOUT_MS)

    assert not main_window.close()                      # "No": keep running
    assert asked == ["An audit is running. Cancel it and quit?"]
    assert main_window.runner.is_busy()

    assert main_window.close()                          # "Yes": cancel, wait, close
    assert len(asked) == 2
    assert QThreadPool.globalInstance().activeThreadCount() == 0
    qtbot.waitUntil(lambda: not main_window.runner.is_busy(), timeout=60_000)   # a hang guard


def test_new_resets_the_page(main_window, qtbot):
    page = open_mechanism(main_window)
    run_to_completion(page, qtbot)
    main_window.new_action.trigger()
    assert page.result() is None
    assert main_window.stack.currentWidget() is main_window.home_page
    assert main_window.project_path is None


def test_a_damaged_project_offers_its_last_good_version(main_window, qtbot, tmp_path,
                                                        monkeypatch):
    """Issue 11: a corrupt project gets its sentence and the last good version is offered;
    declining leaves the page as it was."""
    from engine.project import backup_path

    page = open_mechanism(main_window)
    patch_save_dialog(monkeypatch, tmp_path / "p.praudit.json")
    page.fields["epsilon"].setText("0.7")
    main_window.save_project()
    page.fields["epsilon"].setText("0.9")
    main_window.save_project()                      # keeps the ε = 0.7 version as backup
    saved = tmp_path / "p.praudit.json"
    assert backup_path(saved).exists()
    saved.write_text('{"audit_type": "mechan')        # damaged afterwards

    asked = []

    def fake_question(parent, title, text, *args, **kwargs):
        asked.append(text)
        return answers.pop(0)

    monkeypatch.setattr(QMessageBox, "question", staticmethod(fake_question))
    other = MainWindow()
    qtbot.addWidget(other)
    answers = [QMessageBox.StandardButton.No]
    assert not other.open_project(str(saved))
    assert "not valid JSON" in asked[0] and "last-good" in asked[0]
    answers = [QMessageBox.StandardButton.Yes]
    assert other.open_project(str(saved))
    assert other.mechanism_page.fields["epsilon"].text() == "0.7"
