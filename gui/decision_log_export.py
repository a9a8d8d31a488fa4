"""File → "Export decision log…" (issue 34 item 3): a folder of projects into one decision log,
CSV or JSON (engine.decision_log), read on the window's job runner so the window never freezes
on a folder of large projects.
"""

from __future__ import annotations

import os
from pathlib import Path

from PySide6.QtWidgets import QFileDialog

from gui.error_dialog import show_job_error

LOG_FILTER = "Decision log as CSV (*.csv);;Decision log as JSON (*.json)"


def ask_folder_and_file(window) -> tuple[str, str] | None:
    """The folder of projects, then the file to write (tests replace this)."""
    start = (os.path.dirname(window.project_path) if window.project_path
             else str(Path.home()))
    folder = QFileDialog.getExistingDirectory(window, "Folder of projects to list", start)
    if not folder:
        return None
    path, chosen = QFileDialog.getSaveFileName(window, "Export decision log",
                                               os.path.join(folder, "decision-log.csv"),
                                               LOG_FILTER)
    if not path:
        return None
    if not path.lower().endswith((".csv", ".json")):
        path += ".json" if "JSON" in chosen else ".csv"
    return folder, path


def export_decision_log(window, choice: tuple[str, str] | None = None) -> int | None:
    """Ask for the folder and the file (unless ``choice`` gives them), then collect and write
    the log on the job runner; the status bar says where it went. Returns the job id."""
    if window._refuse_while_busy():
        return None
    choice = choice or ask_folder_and_file(window)
    if choice is None:
        return None
    folder, path = choice

    def job(progress, cancel, folder=folder, path=path):
        from engine.decision_log import collect, write_log

        rows = collect(folder, progress, cancel)
        write_log(rows, path)
        return path, len(rows)

    def done(answer) -> None:
        written, count = answer
        window.statusBar().showMessage(
            f"Decision log of {count} project{'s' if count != 1 else ''} written to "
            f"{os.path.normpath(written)}", 15_000)

    def failed(error) -> None:
        show_job_error(window, "The decision log could not be written", error)

    window.statusBar().showMessage(f"Reading the projects in {folder}…")
    return window.runner.submit(job, done, failed, label="Decision log")
