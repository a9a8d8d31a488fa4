""""Measure this machine" (Tools menu; issue 21): fit the time estimates to this computer.

The measuring itself is engine.estimates.machine.measure_machine, a job like an audit
(ARCHITECTURE §3): it runs on the window's job runner, with a progress dialog whose Cancel
stops it at the next checkpoint (a cancelled measurement stores nothing). It is refused while
an audit runs — the runner runs one job at a time, and an audit running beside the probes
would both slow them and be cancelled by them.
"""

from __future__ import annotations

from PySide6.QtCore import QObject, Qt, Signal
from PySide6.QtWidgets import QMessageBox, QProgressDialog, QWidget

from gui.error_dialog import show_job_error, show_message_error
from gui.job_runner import JobError, JobProgress, JobRunner

STEPS = 1000
INTRO = ("Measuring how fast this computer runs each kind of audit: one small audit of each "
         "kind, about 40 seconds to a minute. Programs running meanwhile are counted and their "
         "share taken off, but a quiet computer measures best.")


class MachineMeasurer(QObject):
    """Starts the measurement on the runner and tells the user how it went."""

    measured = Signal()     # new constants are in use: estimates shown should be redone

    def __init__(self, parent: QWidget, runner: JobRunner, *,
                 scale: float = 1.0, types: tuple[str, ...] | None = None) -> None:
        super().__init__(parent)
        self._parent = parent
        self.runner = runner
        self.scale = scale          # tests measure at a tiny scale
        self.types = types
        self.dialog: QProgressDialog | None = None
        self.last_message = ""

    def start(self) -> bool:
        """Start measuring; False (and a sentence) when an audit is running."""
        if self.runner.is_busy():
            show_message_error(self._parent, "An audit is running",
                               "An audit or report is still running. Measure this machine "
                               "once it has finished (or after pressing Cancel).")
            return False
        from engine.estimates.measuring import measure_machine

        scale, types = self.scale, self.types

        def job(progress, cancel):
            kw = {"types": types} if types else {}
            return measure_machine(progress, cancel, scale=scale, **kw)

        dialog = QProgressDialog(INTRO, "Cancel", 0, STEPS, self._parent)
        dialog.setWindowTitle("Measure this machine")
        dialog.setWindowModality(Qt.WindowModality.WindowModal)
        dialog.setMinimumDuration(0)
        dialog.setAutoClose(False)
        dialog.setAutoReset(False)
        dialog.canceled.connect(self._cancel)
        dialog.setValue(0)
        self.dialog = dialog
        self.runner.submit(job, self._done, self._failed, self._progress,
                           on_cancelled=self._cancelled, label="Measuring this machine")
        return True

    def _progress(self, update: JobProgress) -> None:
        if self.dialog is None:
            return
        self.dialog.setValue(int(min(update.fraction, 0.995) * STEPS))
        if update.message and update.message.lower().rstrip(".") != "done":
            self.dialog.setLabelText(f"{INTRO}\n\n{update.message}")

    def _cancel(self) -> None:
        self.runner.cancel()
        if self.dialog is not None:
            self.dialog.setLabelText("Cancelling… (stops at the next checkpoint)")

    def _close_dialog(self) -> None:
        if self.dialog is not None:
            self.dialog.canceled.disconnect(self._cancel)
            self.dialog.close()
            self.dialog.deleteLater()
            self.dialog = None

    def _done(self, measured) -> None:
        from engine.estimates.machine import KIND_WORDS, in_use
        self._close_dialog()
        slower = [f"{KIND_WORDS.get(name, name)} {factor:.1f} times" for name, factor in
                  sorted(measured.factors.items())]
        self.last_message = (f"{in_use()} Against the reference computer, this one takes "
                             f"{', '.join(slower)} the time.")
        self.measured.emit()
        self.show_information("This machine was measured", self.last_message)

    def _failed(self, error: JobError) -> None:
        self._close_dialog()
        self.last_message = error.message
        show_job_error(self._parent, "This machine could not be measured", error)

    def _cancelled(self) -> None:
        from engine.estimates.machine import in_use
        self._close_dialog()
        self.last_message = f"Measuring was cancelled; nothing was changed. {in_use()}"
        self.show_information("Measuring cancelled", self.last_message)

    def show_information(self, title: str, text: str) -> None:
        """A box the user closes (tests replace this)."""
        box = QMessageBox(QMessageBox.Icon.Information, title, text,
                          QMessageBox.StandardButton.Ok, self._parent)
        box.setAttribute(Qt.WidgetAttribute.WA_DeleteOnClose)
        box.open()
