"""The main window's autosave and recovery (moved out of gui/main_window.py, issue 33 item 2):
a page's unsaved work kept in its recovery copy (issue 31: never in its project file), and the
offer to restore it after the app closed unexpectedly. :class:`AutosaveRecovery` is a mixin of
:class:`gui.main_window.MainWindow`; it reads the window's pages and project paths.
"""

from __future__ import annotations

import contextlib
import os

from PySide6.QtWidgets import (
    QMessageBox,
)

from engine.project import (
    Recovery,
    orphaned_recoveries,
    remove_recovery,
    save_recovery,
)
from gui.pages.audit_page import AuditPage


class AutosaveRecovery:
    """Autosave and recovery (a mixin of MainWindow)."""

    def _after_run(self, page: AuditPage) -> None:
        """A finished run: into the recovery copy, and the officer is told it is not saved."""
        self._autosave(page)
        path = self.project_path_of(page)
        where = f"in {os.path.basename(path)}" if path is not None else "in a project file"
        # Also for a page with no file yet (the GUI walk-through: a new project's run said
        # nothing about being unsaved).
        self.statusBar().showMessage(
            f"The results are not saved {where} yet: press Save project to keep them.", 15_000)

    def _autosave(self, page: AuditPage) -> None:
        """Keep ``page``'s unsaved work in its recovery copy (issue 31: never in its project
        file, which only Save writes); a page with nothing unsaved has no copy."""
        try:
            if self.has_unsaved_changes(page):
                save_recovery(self.recovery_folder, self.current_project(page),
                              self.project_path_of(page))
            else:
                remove_recovery(self.recovery_folder, page.AUDIT_TYPE)
        except OSError as exc:
            self.statusBar().showMessage(
                f"Unsaved work could not be copied to {self.recovery_folder} "
                f"({exc.strerror or exc}); save the project to keep it.", 15_000)

    def autosave_all(self) -> None:
        """Every page's unsaved work into its recovery copy (a job starts; the timer)."""
        for page in self.audit_pages.values():
            self._autosave(page)

    def offer_recovery(self) -> bool:
        """At start: offer the work a session that closed unexpectedly had not saved (its
        recovery copies, engine.project.orphaned_recoveries). Yes restores each page — its
        project file, when it had one, stays as saved until the officer saves; No deletes
        the copies. True when something was restored."""
        newest: dict[str, Recovery] = {}
        for found in orphaned_recoveries(self.recovery_folder):
            if found.project.audit_type in self.audit_pages:
                newest.setdefault(found.project.audit_type, found)
        if not newest:
            return False
        names = [self._describe(self.audit_pages[kind], r.project_path or "")
                 for kind, r in newest.items()]
        listed = names[0] if len(names) == 1 else ", ".join(names[:-1]) + " and " + names[-1]
        restore = self.ask_restore(
            f"The app closed unexpectedly while {listed} {'was' if len(names) == 1 else 'were'}"
            " open; restore the unsaved work?\n\nYes opens it as it was last kept "
            f"({max(r.project.saved for r in newest.values())[:16].replace('T', ' ')} UTC); it "
            "is written to a project file only when you save it. No deletes the recovery copy.")
        first = None
        for kind, found in newest.items():
            if restore and self._restore_recovery(self.audit_pages[kind], found):
                first = first or kind
            with contextlib.suppress(OSError):
                found.file.unlink()
        if first is not None:
            self.show_audit(first)
            self.autosave_all()                 # kept again, under this session
        return first is not None

    def ask_restore(self, text: str) -> bool:
        """The question after a crash (tests answer it through QMessageBox.question)."""
        answer = QMessageBox.question(
            self, "Restore unsaved work?", text,
            QMessageBox.StandardButton.Yes | QMessageBox.StandardButton.No,
            QMessageBox.StandardButton.Yes)
        return answer == QMessageBox.StandardButton.Yes

    def _restore_recovery(self, page: AuditPage, found: Recovery) -> bool:
        if not self._restore_settings(page, found.project, str(found.file)):
            return False
        if found.project.result is not None and found.project.result_problem is None:
            self._restore_result(page, found.project.result)
        page.load_signoff(found.project.signoff, found.project.history,     # issue 34 item 3
                          found.project.signoff_problem)
        path = found.project_path
        self._project_paths[page.AUDIT_TYPE] = (os.path.abspath(path)
                                                if path and os.path.exists(path) else None)
        self._mark_clean(page, unsaved=True)
        page.status_label.setText("Unsaved work restored. Save the project to keep it.")
        return True

