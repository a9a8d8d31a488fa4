"""Running an audit from its page (moved out of gui/pages/audit_page.py, issue 33 item 2):
start, cancel, progress and the end of the job on the window's JobRunner, and the report's
export. The job is the registry's run (engine.audits.registry.run_audit), never an audit's own
``run``; :class:`Running` is a mixin of :class:`gui.pages.audit_page.AuditPage`.
"""

from __future__ import annotations

import os
from dataclasses import dataclass
from pathlib import Path

from PySide6.QtWidgets import (
    QFileDialog,
)

from engine.data.errors import InputError
from gui.error_dialog import show_job_error
from gui.job_runner import JobError, JobFunction, JobProgress


@dataclass(frozen=True)
class FinishedRun:
    """What an audit job hands back to its page (issue 33 item 2: the model page read its
    trade-off from a dictionary the worker thread filled): result.json's dict, the
    AuditResult's attachments and the config the run read."""

    result: dict
    attachments: dict
    config: object


class Running:
    """Run, cancel and export (a mixin of AuditPage)."""

    def is_running(self) -> bool:
        return self._job_id is not None

    def audit_job(self, config) -> JobFunction:
        """The job the runner executes: ``run_audit`` on a snapshot of the validated config.
        An AuditResult comes back as a :class:`FinishedRun`: its result.json dict made on the
        worker thread, its attachments and the config beside it."""
        run_audit = type(self).run_audit

        def job(progress, cancel):
            result = run_audit(config, progress, cancel)
            if isinstance(result, dict):
                return result
            return FinishedRun(result.to_dict(), dict(result.attachments), config)

        return job

    def start_run(self) -> None:
        """Validate the form with the engine's rules, check its cost, then run the audit on
        the job runner."""
        if self.is_running() or self.runner.is_busy():
            return
        self.clear_error()
        try:
            config = self.validated_config()
        except InputError as exc:
            errors = self.form_errors(self.form_dict())
            self.show_form_errors(errors)
            self.show_input_error(exc)             # its step, its field in view and focused
            if len(errors) > 1:
                self.run_bar.show_error(f"{len(errors)} settings need correcting: " + "; ".join(
                    self.labelled_sentence(e).rstrip(".") for e in errors) + ".")
            self._settings_error_shown = True
            return
        if not self.preflight_allows(config):
            return
        self._base_config = {**self._base_config, **config.to_dict()}
        self.run_bar.start(getattr(self, "_run_estimate_s", None))
        self.run_bar.set_fraction(0.0)
        self.status_label.setText("Starting…")
        self._job_id = self.runner.submit(self.audit_job(config), self._on_run_done,
                                          self._on_run_error, self._on_run_progress,
                                          on_cancelled=self._on_run_cancelled,
                                          label=self.AUDIT_LABEL)
        self._refresh_controls()

    def cancel_run(self) -> None:
        if not self.is_running():
            return
        self.runner.cancel()
        self.cancel_button.setEnabled(False)
        self.status_label.setText("Cancelling… (stops at the next checkpoint)")

    def _on_run_progress(self, update: JobProgress) -> None:
        self.run_bar.show_progress(update)

    def _on_run_done(self, result: dict | FinishedRun) -> None:
        if isinstance(result, FinishedRun):
            self.take_attachments(result.attachments, result.config)
            result = result.result
        self._job_id = None
        self._refresh_controls()
        self.run_bar.set_fraction(1.0)
        # A new result is not the one signed: the sign-off goes into the history (issue 34).
        self.supersede_signoff("the audit was run again")
        self.status_label.setText(f"Done in {result.get('runtime_s', 0):.1f} s.")
        self.export_status.setText("")
        self.show_result(result)
        self.step_list.setCurrentRow(self.results_step)
        self.result_ready.emit(result)

    def _on_run_error(self, error: JobError) -> None:
        self._job_id = None
        self._refresh_controls()
        if error.is_input_error:
            self.show_error_at(error.message, error.key)
        self.status_label.setText("The audit stopped with an error.")
        show_job_error(self, "The audit could not finish", error)

    def _on_run_cancelled(self) -> None:
        self._job_id = None
        self._refresh_controls()
        self.run_bar.set_fraction(0.0)
        self.status_label.setText("Audit cancelled. Your settings are unchanged.")

    def _refresh_controls(self) -> None:
        """One job at a time: Run and Export only when nothing runs, Cancel only for the audit."""
        busy = self.runner.is_busy()
        self.run_button.setEnabled(not busy)
        self.cancel_button.setEnabled(self.is_running() and busy)
        self._update_export_enabled()

    def _update_export_enabled(self) -> None:
        enabled = self._result is not None and not self.runner.is_busy()
        tip = "" if self._result is not None else (
            f"Run the audit first (step {len(self.FORM_STEPS)}, “Run audit”).")
        if self._result is None and not self.export_status.text():
            self.export_status.setText(tip)
        for button in (self.export_button, self.export_button_results):
            button.setEnabled(enabled)
            button.setToolTip(tip)

    def result_for_report(self) -> dict | None:
        """The result the PDF is written from: the run's, with the decision log (issue 32 item
        6: the officer's note must reach the report). A note typed in the box but not yet
        added is added to the log first, so exporting never leaves it behind."""
        if self._result is None:
            return None
        view = self.results_view
        if view.note_edit.toPlainText().strip():
            view.add_note_button.click()            # logs it with its time, as a click would
        # The sign-off and the signed history reach the report too (issue 34 item 3).
        history = [h["signoff"] for h in self.signoff_history()]
        return {**self._result, "decision_log": list(self._decision_log),
                "signoff": self.signoff(), "signoff_history": history}

    def export_report(self) -> None:
        """Ask where to save, then write the PDF on the job runner (the window never freezes)."""
        if self._result is None or self.runner.is_busy():
            return
        default_name = (self._result.get("name") or "privacy-audit").replace("/", "-")
        default_name = "".join(c for c in default_name if c not in '\\:*?"<>|')[:80]
        path, _ = QFileDialog.getSaveFileName(self, "Export PDF report",
                                              str(Path.home() / f"{default_name}.pdf"),
                                              "PDF report (*.pdf)")
        if not path:
            return
        if not path.lower().endswith(".pdf"):
            path += ".pdf"
        result = self.result_for_report()

        def report_job(progress, cancel, result=result, path=path):
            from engine.report import write_report

            progress(0.1, "Writing the PDF report")
            write_report(result, path, include_records=False)
            return path

        self.export_status.setText("Writing the report…")
        self.status_label.setText("Writing the PDF report…")
        self.runner.submit(report_job, self._on_report_done, self._on_report_error,
                           label="PDF report")
        self._refresh_controls()

    def _on_report_done(self, path: str) -> None:
        self._refresh_controls()
        message = f"Report written to {os.path.normpath(path)}"
        self.export_status.setText(message)
        self.status_label.setText(message)
        self.report_written.emit(path)

    def _on_report_error(self, error: JobError) -> None:
        self._refresh_controls()
        self.export_status.setText("The report could not be written.")
        self.status_label.setText("The report could not be written.")
        show_job_error(self, "The report could not be written", error)

