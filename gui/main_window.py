"""Main window: a stack of pages (home, one per audit type), the File menu and projects.

The window owns the single :class:`JobRunner` and the project files. Each audit page has its own
project file (a page's project holds that page's audit only), and the page shown is the one
Save writes.

Issue 31, item 1 (a saved Titanic project was overwritten by a SLID run on the same page): a
project file is written only when the officer saves it — Save, Save As, or a "save changes?"
answered Save. Autosave keeps a page's unsaved work in a recovery copy of its own
(engine.project.save_recovery, in the app-data folder), after every finished run and note, when
a job starts and every :data:`AUTOSAVE_MS`; a copy left by a session that closed unexpectedly
is offered at the next start (:meth:`MainWindow.offer_recovery`), and the copies are removed
on a clean save and a clean quit. Choosing other data on a page that holds a saved project asks
whether to start a new project (Cancel keeps everything as it was). Quitting, New, opening a
project or a sample over unsaved work asks "save changes?" first. Closing while a job runs asks
first, then cancels and waits for the worker: a half-finished thread must never outlive the
window.
"""

from __future__ import annotations

import contextlib
import json
import os
from pathlib import Path

from PySide6.QtCore import Qt, QTimer
from PySide6.QtGui import QAction, QKeySequence
from PySide6.QtWidgets import (
    QApplication,
    QFileDialog,
    QMainWindow,
    QMessageBox,
    QStackedWidget,
)

from engine.audits.samples import EXTRA_SAMPLES, sample_dict
from engine.data.errors import InputError
from engine.estimates.machine import app_data_folder
from engine.project import (
    PROJECT_SUFFIX,
    Project,
    last_good_project,
    load_project,
    remove_recovery,
    save_project,
)
from gui.decision_log_export import export_decision_log
from gui.error_dialog import exceptions_caught, show_message_error
from gui.job_runner import JobRunner
from gui.measure_machine import MachineMeasurer
from gui.pages.audit_page import AuditPage
from gui.pages.home_page import HomePage
from gui.pages.registry import AUDIT_PAGES
from gui.recent_projects import add_recent_project, recent_projects
from gui.window_recovery import AutosaveRecovery

APP_TITLE = "Privacy Risk Auditor"
PROJECT_FILTER = f"Privacy audit projects (*{PROJECT_SUFFIX});;All files (*)"
QUIT_WAIT_MS = 30_000
#: How often unsaved work is copied to the recovery folder besides after runs and notes.
AUTOSAVE_MS = 30_000
#: The answers of the "save changes?" and "start a new project?" questions.
SAVE, DISCARD, CANCEL, NEW = "save", "discard", "cancel", "new"


def default_recovery_folder() -> Path:
    """Where the recovery copies of unsaved work live: ``recovery`` in the app's per-user data
    folder (engine.estimates.machine.app_data_folder; ``PRA_APP_DATA`` when set)."""
    return app_data_folder() / "recovery"


#: The window's preferred size; a smaller screen gets the window that fits it (initial_size).
PREFERRED_SIZE = (1280, 860)
#: Room left for the title bar and the desktop's panels that availableGeometry may not count.
FRAME_ALLOWANCE = 40


def initial_size(screen) -> tuple[int, int]:
    """The window's first size: the preferred one, shrunk to the screen's free area.

    Walk-through 2026-11-26: at 1280 × 860 on a 1280 × 720 screen the bottom bar with Run audit
    lay below the screen's edge, so a new user saw "Press Run when ready" and no Run button.
    """
    width, height = PREFERRED_SIZE
    if screen is None:
        return width, height
    free = screen.availableGeometry()
    return (max(640, min(width, free.width())),
            max(480, min(height, free.height() - FRAME_ALLOWANCE)))


class MainWindow(AutosaveRecovery, QMainWindow):
    """Home page and audit pages in a QStackedWidget; File menu; project handling."""

    def __init__(self, recovery_folder: Path | None = None) -> None:
        super().__init__()
        self.recovery_folder = (Path(recovery_folder) if recovery_folder
                                else default_recovery_folder())
        # The offscreen platform (tests, screenshots) has no screen edge to fit.
        on_screen = QApplication.platformName() != "offscreen"
        self.resize(*initial_size(QApplication.primaryScreen() if on_screen else None))
        self.runner = JobRunner(self)
        self._project_paths: dict[str, str | None] = {}     # project file per audit type

        self.stack = QStackedWidget()
        self.home_page = HomePage(available_pages=[entry.name for entry in AUDIT_PAGES])
        self.stack.addWidget(self.home_page)
        self.audit_pages: dict[str, AuditPage] = {}    # by the registry entry's name
        for entry, page_class in AUDIT_PAGES.items():
            page = page_class(self.runner)
            self.audit_pages[entry.name] = page
            self.stack.addWidget(page)
            page.home_requested.connect(self.show_home)
            page.result_ready.connect(lambda _result, p=page: self._after_run(p))
            page.decision_logged.connect(lambda _entry, p=page: self._autosave(p))
            page.confirm_other_data = lambda path, p=page: self.confirm_other_data(p, path)
            page.report_written.connect(
                lambda path: self.statusBar().showMessage(f"Report written to {path}", 10_000))
        self.mechanism_page = self.audit_pages["mechanism"]
        self.location_page = self.audit_pages["location"]
        self.audit_page: AuditPage = self.mechanism_page   # the audit Save writes
        self.setCentralWidget(self.stack)

        self.home_page.audit_chosen.connect(self._start_audit)
        self.home_page.open_project_requested.connect(self.open_project_dialog)
        self.home_page.open_sample_requested.connect(self.open_sample)
        self.home_page.recent_project_chosen.connect(self.open_project)

        self._build_menus()
        self._refresh_recent()
        self._update_title()
        self.show_home()
        # What each page holds as last saved or opened (None: never saved, so unsaved work).
        self._clean_states: dict[str, str | None] = {}
        for page in self.audit_pages.values():
            self._mark_clean(page)
        self.runner.busy_changed.connect(lambda busy: busy and self.autosave_all())
        self._autosave_timer = QTimer(self)
        self._autosave_timer.setInterval(AUTOSAVE_MS)
        self._autosave_timer.timeout.connect(self.autosave_all)
        self._autosave_timer.start()

    # ------------------------------------------------------------------ project paths

    @property
    def project_path(self) -> str | None:
        """The project file of the audit page Save writes (None: not saved yet)."""
        return self._project_paths.get(self.audit_page.AUDIT_TYPE)

    @project_path.setter
    def project_path(self, path: str | None) -> None:
        self._project_paths[self.audit_page.AUDIT_TYPE] = path

    def project_path_of(self, page: AuditPage) -> str | None:
        return self._project_paths.get(page.AUDIT_TYPE)

    # ------------------------------------------------------------------ menus

    def _build_menus(self) -> None:
        file_menu = self.menuBar().addMenu("&File")
        self.new_action = _action(self, "&New", QKeySequence.StandardKey.New, self.new_project)
        self.open_action = _action(self, "&Open project…", QKeySequence.StandardKey.Open,
                                   self.open_project_dialog)
        self.save_action = _action(self, "&Save project", QKeySequence.StandardKey.Save,
                                   self.save_project)
        self.save_as_action = _action(self, "Save project &as…", QKeySequence.StandardKey.SaveAs,
                                      self.save_project_as)
        self.quit_action = _action(self, "&Quit", QKeySequence.StandardKey.Quit, self.close)
        file_menu.addAction(self.new_action)
        file_menu.addAction(self.open_action)
        self.recent_menu = file_menu.addMenu("Open &recent")
        self.recent_menu.aboutToShow.connect(self._fill_recent_menu)
        file_menu.addSeparator()
        file_menu.addAction(self.save_action)
        file_menu.addAction(self.save_as_action)
        file_menu.addSeparator()
        # A folder of projects as one decision log (issue 34 item 3; gui/decision_log_export).
        self.decision_log_action = QAction("Export decision &log…", self)
        self.decision_log_action.triggered.connect(
            lambda _checked=False: export_decision_log(self))
        file_menu.addAction(self.decision_log_action)
        file_menu.addSeparator()
        file_menu.addAction(self.quit_action)
        # Fit the time estimates to this computer (issue 21; gui/measure_machine.py).
        self.measurer = MachineMeasurer(self, self.runner)
        self.measure_action = QAction("&Measure this machine…", self)
        self.measure_action.triggered.connect(lambda _checked=False: self.measurer.start())
        self.measurer.measured.connect(lambda: self.audit_page.update_estimate(force=True))
        self.menuBar().addMenu("&Tools").addAction(self.measure_action)

    def _fill_recent_menu(self) -> None:
        self.recent_menu.clear()
        paths = recent_projects()
        if not paths:
            empty = self.recent_menu.addAction("(none yet)")
            empty.setEnabled(False)
        for path in paths:
            action = self.recent_menu.addAction(os.path.basename(path))
            action.setToolTip(path)
            action.triggered.connect(lambda _checked=False, p=path: self.open_project(p))

    def _refresh_recent(self) -> None:
        self.home_page.set_recent_projects(recent_projects())

    # ------------------------------------------------------------------ navigation

    def show_home(self) -> None:
        self._refresh_recent()
        self.stack.setCurrentWidget(self.home_page)

    def show_audit(self, audit_type: str) -> None:
        """Show the page of ``audit_type``; it becomes the audit the project holds."""
        self.audit_page = self.audit_pages[audit_type]
        self.stack.setCurrentWidget(self.audit_page)
        self._update_title()

    def _start_audit(self, audit_type: str) -> None:
        if audit_type in self.audit_pages:
            self.show_audit(audit_type)

    def _refuse_while_busy(self) -> bool:
        """True (and tells the user) if a job runs: one audit at a time keeps state simple."""
        if not self.runner.is_busy():
            return False
        show_message_error(self, "An audit is running",
                           "An audit or report is still running. Wait for it to finish or "
                           "press Cancel first.")
        return True

    # ------------------------------------------------------------------ projects

    def new_project(self) -> None:
        if self._refuse_while_busy():
            return
        if not self.settle_unsaved(list(self.audit_pages.values()), "starting a new project"):
            return
        self._project_paths.clear()
        for page in self.audit_pages.values():
            page.load_state(page.default_config(), None, [])
            page.status_label.setText("Ready.")
            self._mark_clean(page)
        self._update_title()
        self.show_home()

    def open_sample(self, audit_type: str = "mechanism") -> None:
        """Open the bundled sample audit (prefilled form, not yet run, no project file).
        ``audit_type``: an audit type (its quick sample) or an extra sample's name, such as
        "model-thorough" (engine.audits.samples; issue 33 item 3)."""
        if self._refuse_while_busy():
            return
        extra = EXTRA_SAMPLES.get(audit_type)
        if extra is not None:
            audit_type = extra.audit_type
        page = self.audit_pages.get(audit_type)
        if page is None:
            return
        try:
            config = page.sample_config() if extra is None else sample_dict(extra.name)
        except InputError as exc:
            show_message_error(self, "The sample could not be opened", exc.one_line())
            return
        if not self.settle_unsaved([page], "opening the sample"):
            return
        self._project_paths[audit_type] = None
        page.load_state(config, None, [])
        page.status_label.setText("Sample audit loaded. Press “Run audit”.")
        self._mark_clean(page)
        self.show_audit(audit_type)

    def open_project_dialog(self) -> None:
        if self._refuse_while_busy():
            return
        start = os.path.dirname(self.project_path) if self.project_path else str(Path.home())
        path, _ = QFileDialog.getOpenFileName(self, "Open project", start, PROJECT_FILTER)
        if path:
            self.open_project(path)

    def open_project(self, path: str) -> bool:
        """Restore the form, the results and the decision log from a project file.

        A file that does not open gets one sentence (and its last good version, when the app
        kept one). Issue 18: the settings and the result are read through the engine's own
        readers (engine.project.load_project); a saved result that is damaged — or that the
        results view cannot draw — is left out and the project opens with its settings,
        saying so; settings the form cannot show refuse the project with a sentence; a
        setting the audit would refuse (a half-typed form, as saved) opens with its sentence
        beside the field."""
        if self._refuse_while_busy():
            return False
        from_backup = False
        try:
            project = load_project(path)
            if project.audit_type not in self.audit_pages:
                raise InputError(f"{path}: this project is a '{project.audit_type}' audit, "
                                 "which this version of the app cannot open yet.")
        except InputError as exc:
            project = self._offer_last_good(path, exc)
            if project is None:
                return False
            from_backup = True
        page = self.audit_pages[project.audit_type]
        if not self.settle_unsaved([page], f"opening {os.path.basename(path)}"):
            return False
        if not self._restore_settings(page, project, path):
            return False
        notes = []
        problem = project.result_problem
        if project.result is not None and problem is None:
            problem = self._restore_result(page, project.result)
        if problem is not None:
            notes.append(f"{path}: the saved results are damaged ({problem}), so they were "
                         "left out; the settings and the decision log were opened — run the "
                         "audit again to get its results.")
        # The sign-off after the result it judges (issue 34 item 3); a result that no longer
        # matches its signed SHA-256 opens with that said, on the page and here.
        page.load_signoff(project.signoff, project.history, project.signoff_problem)
        if project.signoff_problem is not None:
            notes.append(project.signoff_problem)
        self._project_paths[project.audit_type] = os.path.abspath(path)
        # A last good version stands in for the damaged file until it is saved back there.
        self._mark_clean(page, unsaved=from_backup)
        self.show_audit(project.audit_type)
        if project.config_problem is not None:
            notes.append(f"{project.config_problem.one_line()} The project was opened with "
                         "this setting as it was saved; correct it before running the audit.")
            try:                                # the form's own check marks the field
                page.validated_config()
            except InputError as exc:
                page.show_input_error(exc)
        add_recent_project(self.project_path)
        self._refresh_recent()
        self.statusBar().showMessage(f"Opened {self.project_path}", 8000)
        if notes:
            show_message_error(self, "The project was opened with a problem", "\n\n".join(notes))
        return True

    def _restore_settings(self, page: AuditPage, project: Project, path: str) -> bool:
        """Fill ``page`` from the project's settings and decision log; if the form cannot show
        them, put back what the page held (nothing typed is lost) and refuse with a sentence."""
        before = (page.config_for_saving(), page.result(), page.decision_log())
        signing = page.signing_state()
        try:
            with exceptions_caught() as caught:
                page.load_state(project.config, None, project.decision_log)
            if caught:
                raise caught[0]
        except Exception as exc:  # noqa: BLE001 - a damaged file must not crash the window
            with contextlib.suppress(Exception), exceptions_caught():
                page.load_state(*before)
                page.load_signoff(*signing)
            self._log_internal(exc)
            show_message_error(self, "The project could not be opened",
                               f"{path}: is damaged — its settings could not be shown in the "
                               "form; open the last good version of the project, or start a "
                               "new one.")
            return False
        return True

    @staticmethod
    def _restore_result(page: AuditPage, result: dict) -> str | None:
        """Show a saved result on ``page`` — drawn once here, so that an error in any part of
        the results view (a slot, a paint) is met now; on one, the result is left out and the
        words for why are returned."""
        try:
            with exceptions_caught() as caught:
                page.restore_result(result)
                page.results_view.grab()
            if caught:
                raise caught[0]
        except Exception as exc:  # noqa: BLE001 - drop the result, keep the settings
            with contextlib.suppress(Exception), exceptions_caught():
                page.restore_result(None)
            MainWindow._log_internal(exc)
            return "part of them could not be drawn"
        return None

    @staticmethod
    def _log_internal(exc: BaseException) -> None:
        """Where a damaged project met the views: into the error log (if the app has its
        reporter installed), not into the sentence the user reads."""
        reporter = getattr(QApplication.instance(), "error_reporter", None)
        if reporter is not None:
            reporter.log(exc)

    def _offer_last_good(self, path: str, exc: InputError) -> Project | None:
        """A project that no longer opens: say why, and offer the last good version the app
        kept when it last saved over it (engine.project.backup_path). The damaged file is left
        as it is; the next save writes a good one."""
        found = last_good_project(path)
        if found is None or found[0].audit_type not in self.audit_pages:
            show_message_error(self, "The project could not be opened", exc.one_line())
            return None
        project, backup = found
        answer = QMessageBox.question(
            self, "Open the last good version?",
            f"{exc.one_line()}\n\nThe app kept the version it replaced when it last saved "
            f"this project ({project.saved or 'time unknown'}): {backup}. Open that one? "
            "Saving then writes it back to the project file.",
            QMessageBox.StandardButton.Yes | QMessageBox.StandardButton.No,
            QMessageBox.StandardButton.Yes)
        return project if answer == QMessageBox.StandardButton.Yes else None

    def current_project(self, page: AuditPage | None = None) -> Project:
        """The project of ``page`` (default: the page Save writes)."""
        page = page or self.audit_page
        config = page.config_for_saving()
        return Project(audit_type=page.AUDIT_TYPE, config=config, result=page.result(),
                       decision_log=page.decision_log(), name=str(config.get("name", "")),
                       signoff=page.signoff(), history=page.signoff_history())

    def save_project(self) -> bool:
        if self.project_path is None:
            return self.save_project_as()
        return self._write_project(self.project_path)

    def save_project_as(self) -> bool:
        name = str(self.audit_page.form_dict().get("name") or "privacy-audit")
        name = "".join(c for c in name if c not in '\\/:*?"<>|')[:80] or "privacy-audit"
        start = os.path.dirname(self.project_path) if self.project_path else str(Path.home())
        path, _ = QFileDialog.getSaveFileName(self, "Save project",
                                              os.path.join(start, name + PROJECT_SUFFIX),
                                              PROJECT_FILTER)
        if not path:
            return False
        if not path.endswith(PROJECT_SUFFIX):
            path = path[:-5] if path.endswith(".json") else path
            path += PROJECT_SUFFIX
        return self._write_project(path)

    def _write_project(self, path: str, *, page: AuditPage | None = None) -> bool:
        page = page or self.audit_page
        try:
            save_project(path, self.current_project(page))
        except OSError as exc:
            show_message_error(self, "The project could not be saved",
                               f"{path}: could not be written ({exc.strerror or exc}). Choose "
                               "another folder with “Save project as…”.")
            return False
        path = os.path.abspath(path)
        self._project_paths[page.AUDIT_TYPE] = path
        self._mark_clean(page)
        with contextlib.suppress(OSError):      # saved: its recovery copy is not needed
            remove_recovery(self.recovery_folder, page.AUDIT_TYPE)
        if page.status_label.text().startswith("Unsaved work restored"):
            # The walk-through: "Save the project to keep it" stayed beside "Saved to …".
            page.status_label.setText(f"Restored work saved to {os.path.basename(path)}.")
        add_recent_project(path)
        self._refresh_recent()
        self._update_title()
        self.statusBar().showMessage("Saved to " + path, 8000)
        return True

    # ------------------------------------------------------------------ unsaved work

    @staticmethod
    def _state_of(page: AuditPage) -> str:
        """What Save would write of ``page`` (less the time), as one comparable text."""
        return json.dumps([page.config_for_saving(), page.result(), page.decision_log(),
                           page.signoff(), page.signoff_history()],
                          sort_keys=True, ensure_ascii=False, default=str)

    def _mark_clean(self, page: AuditPage, unsaved: bool = False) -> None:
        """``page`` now holds what was last saved or opened (``unsaved``: it holds work that
        is in no project file — restored from a recovery copy, or a last good version)."""
        self._clean_states[page.AUDIT_TYPE] = None if unsaved else self._state_of(page)

    def has_unsaved_changes(self, page: AuditPage) -> bool:
        """Whether ``page`` holds settings, results or notes that no Save has written."""
        return self._clean_states.get(page.AUDIT_TYPE) != self._state_of(page)

    def unsaved_pages(self) -> list[AuditPage]:
        return [page for page in self.audit_pages.values() if self.has_unsaved_changes(page)]

    def _describe(self, page: AuditPage, path: str | None = None) -> str:
        """"the Location audit (trips.praudit.json)" — the page and its project file."""
        path = path if path is not None else self.project_path_of(page)
        where = os.path.basename(path) if path else "not saved yet"
        return f"the {page.AUDIT_LABEL} ({where})"

    def ask_save_changes(self, text: str) -> str:
        """Save, Discard or Cancel (:data:`SAVE`, :data:`DISCARD`, :data:`CANCEL`); the tests'
        conftest answers Discard unless a test answers itself."""
        box = QMessageBox(QMessageBox.Icon.Question, "Save changes?", text,
                          QMessageBox.StandardButton.Save | QMessageBox.StandardButton.Discard
                          | QMessageBox.StandardButton.Cancel, self)
        box.setDefaultButton(QMessageBox.StandardButton.Save)
        answer = box.exec()
        return {QMessageBox.StandardButton.Save: SAVE,
                QMessageBox.StandardButton.Discard: DISCARD}.get(
                    QMessageBox.StandardButton(answer), CANCEL)

    def settle_unsaved(self, pages: list[AuditPage], doing: str) -> bool:
        """Before ``doing`` something that replaces what ``pages`` hold: ask "save changes?"
        when any holds unsaved work. Save writes each (Save As for one never saved); True
        when the caller may go on, False when the officer cancelled (or a save failed)."""
        unsaved = [page for page in pages if self.has_unsaved_changes(page)]
        if not unsaved:
            return True
        names = [self._describe(page) for page in unsaved]
        listed = names[0] if len(names) == 1 else ", ".join(names[:-1]) + " and " + names[-1]
        answer = self.ask_save_changes(
            f"{listed[0].upper()}{listed[1:]} {'has' if len(names) == 1 else 'have'} unsaved "
            f"changes. Save them before {doing}?")
        if answer == CANCEL:
            return False
        if answer == SAVE:
            return all(self._save_page(page) for page in unsaved)
        return True

    def _save_page(self, page: AuditPage) -> bool:
        path = self.project_path_of(page)
        if path is not None:
            return self._write_project(path, page=page)
        self.show_audit(page.AUDIT_TYPE)                # Save As names the audit shown
        return self.save_project_as()

    def open_candidate(self, page: AuditPage, config: dict, result: dict, label: str) -> bool:
        """A compared candidate's result on its audit page (the Compare window's "Open
        candidate", gui/pages/compare_page.py; issue 34 item 1) as a new project, not saved
        yet: "save changes?" first for what the page holds, as for any other project."""
        if self._refuse_while_busy():
            return False
        if not self.settle_unsaved([page], f"opening the candidate “{label}”"):
            return False
        self._project_paths[page.AUDIT_TYPE] = None
        page.load_state(config, result, [])
        page.status_label.setText(f"Candidate “{label}” of the comparison opened; save it as "
                                  "a project to keep it.")
        self._mark_clean(page, unsaved=True)
        self.show_audit(page.AUDIT_TYPE)
        self._autosave(page)
        self.raise_()
        self.activateWindow()
        return True

    def confirm_other_data(self, page: AuditPage, path: str) -> bool:
        """Other data chosen on ``page`` (AuditPage.ask_file): when the page holds a saved
        project, ask whether to start a new project with it — the saved file stays as it
        is, and Save then asks for a new name; Cancel keeps everything as it was."""
        saved = self.project_path_of(page)
        if saved is None:
            return True
        unsaved = self.has_unsaved_changes(page)
        answer = self.ask_new_project(
            f"This page holds the project {os.path.basename(saved)}. Start a new project "
            f"with {os.path.basename(path)}? The saved project stays as it is in its file; "
            "the new one is saved under a name of its own."
            + (f" {os.path.basename(saved)} has unsaved changes." if unsaved else ""),
            unsaved)
        if answer == CANCEL or (answer == SAVE and not self._write_project(saved, page=page)):
            return False
        self._project_paths[page.AUDIT_TYPE] = None
        page.start_new_project()
        self._mark_clean(page, unsaved=True)
        self._update_title()
        self._autosave(page)
        return True

    def ask_new_project(self, text: str, unsaved: bool) -> str:
        """:data:`NEW` (start a new project), :data:`SAVE` (save the one held first, then
        start a new one) or :data:`CANCEL`; the tests' conftest answers New."""
        box = QMessageBox(QMessageBox.Icon.Question, "Start a new project?", text,
                          QMessageBox.StandardButton.NoButton, self)
        save = (box.addButton("Save, then start a new project",
                              QMessageBox.ButtonRole.AcceptRole) if unsaved else None)
        new = box.addButton("Start a new project" if not unsaved else
                            "Start a new project without saving",
                            QMessageBox.ButtonRole.DestructiveRole)
        cancel = box.addButton(QMessageBox.StandardButton.Cancel)
        box.setDefaultButton(cancel)
        box.exec()
        clicked = box.clickedButton()
        if save is not None and clicked is save:
            return SAVE
        return NEW if clicked is new else CANCEL

    def _update_title(self) -> None:
        if self.project_path:
            self.setWindowTitle(f"{os.path.basename(self.project_path)} — {APP_TITLE}")
        else:
            self.setWindowTitle(APP_TITLE)

    # ------------------------------------------------------------------ closing

    def closeEvent(self, event) -> None:  # noqa: N802 - Qt API
        """Ask before quitting a running job, then "save changes?" for unsaved work; a clean
        quit removes this session's recovery copies (a crash leaves them to be offered)."""
        if self.runner.is_busy():
            answer = QMessageBox.question(
                self, "Quit while an audit runs?", "An audit is running. Cancel it and quit?",
                QMessageBox.StandardButton.Yes | QMessageBox.StandardButton.No,
                QMessageBox.StandardButton.No)
            if answer != QMessageBox.StandardButton.Yes:
                event.ignore()
                return
            self.runner.cancel()
            self.setCursor(Qt.CursorShape.WaitCursor)
            self.runner.wait(QUIT_WAIT_MS)
            self.unsetCursor()
        if not self.settle_unsaved(self.unsaved_pages(), "quitting"):
            event.ignore()
            return
        self._autosave_timer.stop()
        with contextlib.suppress(OSError):
            remove_recovery(self.recovery_folder)
        event.accept()


def _action(parent, text: str, shortcut, slot) -> QAction:
    action = QAction(text, parent)
    action.setShortcut(QKeySequence(shortcut))
    action.triggered.connect(slot)
    return action
