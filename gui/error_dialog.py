"""Errors reach users as sentences; the traceback waits behind "Show Details…" (ARCHITECTURE §7).

The box is window-modal but opened without a nested event loop (``open()``, not ``exec()``):
a running job keeps reporting and tests are never stuck behind an unseen dialog.
"""

from __future__ import annotations

from PySide6.QtCore import Qt
from PySide6.QtWidgets import QMessageBox, QWidget

from gui.job_runner import JobError


def show_job_error(parent: QWidget | None, title: str, error: JobError) -> QMessageBox:
    """Show ``error.message``; its traceback (if any) goes behind the Details button."""
    box = QMessageBox(parent)
    box.setObjectName("jobErrorBox")
    box.setIcon(QMessageBox.Icon.Warning if error.is_input_error else QMessageBox.Icon.Critical)
    box.setWindowTitle(title)
    box.setText(error.message)
    if error.details:
        box.setDetailedText(error.details)
    box.setStandardButtons(QMessageBox.StandardButton.Ok)
    box.setAttribute(Qt.WidgetAttribute.WA_DeleteOnClose)
    box.open()
    return box


def show_message_error(parent: QWidget | None, title: str, message: str) -> QMessageBox:
    """Same box for a plain sentence (e.g. a project file that cannot be read)."""
    return show_job_error(parent, title, JobError(message=message, is_input_error=True))
