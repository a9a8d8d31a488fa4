"""Errors reach users as sentences; the traceback waits behind "Show Details…" (ARCHITECTURE §7).

The box is window-modal but opened without a nested event loop (``open()``, not ``exec()``):
a running job keeps reporting and tests are never stuck behind an unseen dialog.

:class:`InternalErrorReporter` is the last line of defence (issue 18): an exception nobody
caught — in a slot, a paint event, a timer or a background thread — is written to the error
log and shown in the same box, and the window stays open with everything the user typed.

What the box and the log say of an unexpected error (issue 31 item 11): its type, where it
happened (files, lines, code) and its message masked by
:func:`engine.data.errors.without_record_values` — every quoted value, every number, date, id or
e-mail address and every word outside the vocabulary of error messages becomes '…', whether a
library quoted it or not. The rule needs no knowledge of the data, so it also holds for an error
raised while a file is half-read, in a background thread or with no page open. errors.log is the
user's alone: the file is created 0600 and its ``logs`` folder 0700, and a log or folder found
with looser modes (written by an earlier version) is tightened before anything is appended
(:func:`private_log_file`).
"""

from __future__ import annotations

import contextlib
import datetime as _dt
import os
import stat
import sys
import threading
from collections.abc import Iterator
from pathlib import Path

from PySide6.QtCore import QObject, QStandardPaths, Qt, Signal
from PySide6.QtWidgets import QApplication, QMessageBox, QWidget

from engine.data.errors import internal_error_text, internal_traceback
from gui.job_runner import JobError

LOG_NAME = "errors.log"
LOG_LIMIT_BYTES = 1_000_000          # the log starts again past this: it must never fill a disk
LOG_FILE_MODE = 0o600                # the log is the user's alone (issue 31 item 11) …
LOG_FOLDER_MODE = 0o700              # … and so is its folder


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


@contextlib.contextmanager
def exceptions_caught() -> Iterator[list[BaseException]]:
    """Collect the exceptions that reach ``sys.excepthook`` inside the block — those raised
    in Python code Qt calls back (a slot, a paint event), which never reach the caller — so
    the caller can treat them as its own (e.g. a saved result that cannot be drawn)."""
    caught: list[BaseException] = []
    previous = sys.excepthook
    sys.excepthook = lambda t, e, tb: caught.append(e if e is not None else t())
    try:
        yield caught
    finally:
        sys.excepthook = previous


def log_folder() -> Path:
    """The app's per-user log folder: ``logs`` in the platform's app-data folder
    (QStandardPaths.AppDataLocation — e.g. ~/.local/share/PrivacyRiskAuditor/Privacy Risk
    Auditor/logs on Linux, %APPDATA%\\PrivacyRiskAuditor\\Privacy Risk Auditor\\logs on
    Windows, ~/Library/Application Support/… on macOS)."""
    base = QStandardPaths.writableLocation(QStandardPaths.StandardLocation.AppDataLocation)
    return Path(base or Path.home() / ".privacy-risk-auditor") / "logs"


def private_log_file(path: Path, *, restart: bool = False) -> int:
    """Open ``path`` for appending (emptied first when ``restart``) as a file only its owner may
    read: its folder is made (or tightened to) :data:`LOG_FOLDER_MODE` and the file created (or
    tightened to) :data:`LOG_FILE_MODE` — an errors.log an earlier version left 0644 is fixed
    before a line is added. Returns the descriptor; raises OSError. A link at ``path`` is not
    followed and anything but a regular file (a FIFO would block) is refused. On Windows the
    modes mean little and the folder under %APPDATA% is already the user's."""
    folder = path.parent
    folder.mkdir(mode=LOG_FOLDER_MODE, parents=True, exist_ok=True)
    if os.name == "posix" and stat.S_IMODE(folder.stat().st_mode) != LOG_FOLDER_MODE:
        os.chmod(folder, LOG_FOLDER_MODE)
    flags = (os.O_WRONLY | os.O_CREAT | os.O_APPEND | (os.O_TRUNC if restart else 0)
             | getattr(os, "O_NOFOLLOW", 0) | getattr(os, "O_NONBLOCK", 0))
    fd = os.open(path, flags, LOG_FILE_MODE)
    try:
        info = os.fstat(fd)
        if not stat.S_ISREG(info.st_mode):
            raise OSError(f"{path} is not a regular file")
        if os.name == "posix" and stat.S_IMODE(info.st_mode) != LOG_FILE_MODE:
            os.fchmod(fd, LOG_FILE_MODE)
    except BaseException:
        os.close(fd)
        raise
    return fd


def internal_error_message(exc: BaseException, log: Path | None) -> str:
    """The box's sentence for an unexpected error: what it was (without record values, quoted
    or not, as :func:`internal_error_text` writes it), that nothing typed is lost, and where the log is."""
    where = (f"The details were written to {log}; please send that file with your report."
             if log is not None else "The details could not be written to the error log; "
                                     "copy them from “Show Details…” for your report.")
    return (f"Something went wrong inside the app ({internal_error_text(exc)}). Your settings "
            f"and results are still open: save the project to keep them, then carry on or "
            f"restart the app. {where}")


class InternalErrorReporter(QObject):
    """``sys.excepthook`` and ``threading.excepthook`` for the desktop app.

    Each uncaught exception is appended to :attr:`log_path` (its traceback without quoted
    values, :func:`internal_traceback`) and shown in one box on the GUI thread; a second error
    while that box is open is logged only, so an error repeated by every repaint does not
    bury the window in boxes. Nothing closes the window, so what the user typed stays.
    """

    _report = Signal(str, str)            # message, details: queued to the GUI thread

    def __init__(self, log_path: Path | None = None, parent: QObject | None = None) -> None:
        super().__init__(parent)
        self.log_path = Path(log_path) if log_path is not None else log_folder() / LOG_NAME
        self.box: QMessageBox | None = None
        self.shown = 0                    # boxes opened
        self.logged_only = 0              # errors logged while a box was already open
        self._previous: tuple | None = None
        self._lock = threading.Lock()
        self._report.connect(self._show, Qt.ConnectionType.QueuedConnection)

    def install(self) -> None:
        if self._previous is None:
            self._previous = (sys.excepthook, threading.excepthook)
        sys.excepthook = self.excepthook
        threading.excepthook = self.thread_excepthook

    def uninstall(self) -> None:
        if self._previous is not None:
            sys.excepthook, threading.excepthook = self._previous
            self._previous = None

    # ------------------------------------------------------------------ the hooks

    def excepthook(self, exc_type, exc, tb) -> None:
        if issubclass(exc_type, KeyboardInterrupt):      # Ctrl+C in the terminal: quit as usual
            sys.__excepthook__(exc_type, exc, tb)
            return
        if exc is None:
            exc = exc_type()
        if tb is not None and exc.__traceback__ is None:
            exc = exc.with_traceback(tb)
        self._report_or_print(exc)

    def thread_excepthook(self, args) -> None:
        if args.exc_type is SystemExit:
            return
        exc = args.exc_value if args.exc_value is not None else args.exc_type()
        self._report_or_print(exc)

    def _report_or_print(self, exc: BaseException) -> None:
        try:
            self.report(exc)
        except Exception:  # noqa: BLE001 - the reporter itself failed: the console is all left
            sys.__excepthook__(type(exc), exc, exc.__traceback__)

    def report(self, exc: BaseException) -> None:
        """Log ``exc`` and show it in a box (from any thread); neither shows a record's value
        (module docstring)."""
        details = internal_traceback(exc)
        log = self._write_log(details)
        self._report.emit(internal_error_message(exc, log), details)

    def log(self, exc: BaseException) -> Path | None:
        """Only log ``exc`` (an error the app handled with its own sentence)."""
        return self._write_log(internal_traceback(exc))

    # ------------------------------------------------------------------ log and box

    def _write_log(self, details: str) -> Path | None:
        stamp = _dt.datetime.now(_dt.UTC).replace(microsecond=0).isoformat()
        try:
            with self._lock:
                restart = (self.log_path.is_file()
                           and self.log_path.stat().st_size > LOG_LIMIT_BYTES)
                fd = private_log_file(self.log_path, restart=restart)
                with open(fd, "a", encoding="utf-8") as fh:
                    fh.write(f"--- {stamp}\n{details}\n")
        except OSError:
            return None
        return self.log_path

    def _show(self, message: str, details: str) -> None:
        if self.box is not None:
            self.logged_only += 1
            return
        parent = QApplication.activeWindow()
        self.box = show_job_error(parent, "Something went wrong",
                                  JobError(message=message, details=details))
        self.box.finished.connect(self._box_closed)
        self.shown += 1

    def _box_closed(self, _result: int = 0) -> None:
        self.box = None
