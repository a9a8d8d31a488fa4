"""The Compare step of every audit page (issue 34 item 1): run the page's audit over 2–8
candidate releases that differ in what the releaser controls, or open saved projects of one
audit type side by side, and read one table and one chart of risk against the cost to the
data's users, which candidates meet the policy and which one is the most useful that does.

The window is a view over the engine's comparison (engine.compare; docs/methods/compare.md):

* the page's current settings are the **base**; the candidate table (gui/widgets/
  compare_candidates.py) holds each candidate's label and the settings it changes, and becomes
  the engine's :class:`engine.compare.CandidateSet` — one seed, the base's, for every candidate
  (common random numbers), so a difference between candidates is theirs;
* the estimate of the whole set (``estimate_comparison``) sits beside "Run comparison";
* the run is one job on the window's JobRunner (ARCHITECTURE §3) with progress and Cancel; the
  engine streams each finished candidate to the comparison's folder, so a Cancel or a failure
  keeps the finished candidates, and they are shown; the table keeps whatever was typed;
* bad input gets the engine's sentence at the cell it names (``validate``'s InputError);
* each comparison lives in a folder of its own under the app's data folder
  (``comparisons/<audit>-<time>/``: comparison.json, candidate-<i>/result.json) and the last one
  of the audit type is shown again when the window is opened in a later session;
* "Export comparison report (PDF)…" writes engine.report.comparison's report; "Open
  candidate" opens a candidate's result in its audit page (MainWindow.open_candidate).
"""

from __future__ import annotations

import os
from pathlib import Path

from PySide6.QtCore import Qt, QTimer
from PySide6.QtWidgets import (
    QComboBox,
    QFileDialog,
    QFormLayout,
    QHBoxLayout,
    QLabel,
    QLineEdit,
    QMessageBox,
    QPushButton,
    QVBoxLayout,
    QWidget,
)

from engine.audits.registry import config_from_dict
from engine.compare import (
    COMPARISON_FILE,
    MAX_CANDIDATES,
    MIN_CANDIDATES,
    CandidateSet,
    Comparison,
    compare_projects,
    estimate_comparison,
    read_comparison,
    run_comparison,
    validate,
)
from engine.data.errors import InputError
from gui.error_dialog import show_job_error, show_message_error
from gui.job_runner import JobError, JobRunner
from gui.pages.audit_forms import field_sentence
from gui.widgets.compare_candidates import CandidateTable, CellError
from gui.widgets.compare_results import ComparisonView
from gui.widgets.compare_store import (
    comparisons_folder,
    latest_comparison,
    new_comparison_folder,
    read_candidate,
)
from gui.widgets.run_bar import RunBar
from gui.widgets.steps import scrolled, step_title

SOURCE = "compare"          # the CandidateSet's source: stripped from the engine's sentences
PROJECT_FILTER = "Privacy audit projects (*.praudit.json);;All files (*)"
LEVELS = (("low", "low only"), ("medium", "low or medium"))
ESTIMATE_DELAY_MS = 400
INTRO = ("Run this audit over 2 to 8 candidate releases that differ in what you control, and "
         "choose the most useful one your policy accepts. Every candidate starts from this "
         "page's current settings (the base); fill in only the cells a candidate changes — an "
         "empty cell keeps the base's value. All candidates use the same random seed, so a "
         "difference between two of them is theirs, not chance's draws.")


def plain(message: str) -> str:
    """An engine sentence without the set's source in front, starting with a capital."""
    text = " ".join(message.split())
    if text.startswith(SOURCE + ": "):
        text = text[len(SOURCE) + 2:]
    return text[:1].upper() + text[1:]


class ComparePage(QWidget):
    """The Compare window of one audit page (module docstring)."""

    #: The run's engine call; tests replace it with a fake of the same contract.
    run_function = staticmethod(run_comparison)

    def __init__(self, runner: JobRunner, audit_type: str, audit_label: str, base: dict,
                 parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setWindowFlag(Qt.WindowType.Window, True)
        self.setWindowTitle(f"Compare candidate releases — {audit_label}")
        self.resize(1180, 860)
        self.runner = runner
        self.audit_type, self.audit_label = audit_type, audit_label
        self.base: dict = dict(base)
        self.comparison: Comparison | None = None
        self.folder: Path | None = None
        self._job_id: int | None = None
        self._run_folder: Path | None = None
        # What "Open candidate" does (the audit page sets it; MainWindow.open_candidate).
        self.open_result = lambda config, result, label: None
        self.open_project = lambda path: None
        self.signoff_of_page = lambda: None

        self.base_label = QLabel("")
        self.base_label.setWordWrap(True)
        self.name_edit = QLineEdit("")
        self.name_edit.setPlaceholderText(f"e.g. Which ε for the {audit_label.lower()}?")
        self.level_combo = QComboBox()
        for value, words in LEVELS:
            self.level_combo.addItem(words, value)
        self.level_combo.setToolTip("The verdicts your policy accepts: a candidate meets the "
                                    "policy when its verdict is one of these.")
        form = QFormLayout()
        form.addRow("Comparison name", self.name_edit)
        form.addRow("Verdicts the policy accepts", self.level_combo)
        self.candidates = CandidateTable()
        self.candidates.changed.connect(self._schedule_estimate)
        self.level_combo.currentIndexChanged.connect(lambda _i: self._schedule_estimate())
        self.projects_button = QPushButton("Open saved projects…")
        self.projects_button.setToolTip("Show saved projects of this audit side by side, "
                                        "without running anything again.")
        self.projects_button.clicked.connect(self.choose_projects)
        self.saved_button = QPushButton("Open saved comparison…")
        self.saved_button.setToolTip("Show a comparison run before (a folder holding "
                                     "comparison.json).")
        self.saved_button.clicked.connect(self.choose_saved_comparison)
        self.folder_label = QLabel("")
        self.folder_label.setWordWrap(True)
        self.folder_label.setStyleSheet("color: #555;")
        self.folder_label.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
        other = QHBoxLayout()
        other.addWidget(QLabel("Or:"))
        other.addWidget(self.projects_button)
        other.addWidget(self.saved_button)
        other.addStretch(1)
        self.view = ComparisonView()
        self.view.export_requested.connect(self.export_report)
        self.view.open_requested.connect(self.open_candidate)

        body = QWidget()
        inner = QVBoxLayout(body)
        inner.addWidget(step_title("Compare candidate releases", INTRO))
        inner.addWidget(self.base_label)
        inner.addLayout(form)
        inner.addWidget(self.candidates)
        inner.addLayout(other)
        inner.addWidget(step_title("Results", "The most useful candidate that meets the "
                                   "policy is marked ★; the chart shows each candidate's risk "
                                   "with its 95 % interval against what it costs the data's "
                                   "users."))
        inner.addWidget(self.folder_label)
        inner.addWidget(self.view)
        inner.addStretch(1)

        self.run_bar = RunBar()
        self.run_bar.run_button.setText("Run comparison")
        self.run_bar.run_button.setToolTip("Check the candidates and run the audit on each.")
        self.run_bar.cancel_button.setToolTip("Stop the comparison; finished candidates and "
                                              "the table are kept.")
        self.run_bar.run_button.clicked.connect(self.start_run)
        self.run_bar.cancel_button.clicked.connect(self.cancel_run)
        layout = QVBoxLayout(self)
        layout.addWidget(scrolled(body), 1)
        layout.addWidget(self.run_bar)

        self._estimate_timer = QTimer(self)
        self._estimate_timer.setSingleShot(True)
        self._estimate_timer.setInterval(ESTIMATE_DELAY_MS)
        self._estimate_timer.timeout.connect(self.update_estimate)
        self.runner.busy_changed.connect(lambda _busy: self._refresh_controls())
        self.set_base(base)
        self._refresh_controls()

    # ------------------------------------------------------------------ the base and the rows

    def set_base(self, base: dict) -> None:
        """The page's current settings as the base; the rows typed so far are kept."""
        self.base = dict(base)
        self.candidates.set_base(self.audit_type, self.base)
        name = self.base.get("name") or self.audit_label
        self.base_label.setText(f"<b>Base settings:</b> the {self.audit_label} page's current "
                                f"settings (“{name}”, seed {self.base.get('seed', '—')}).")
        if self.candidates.table.rowCount() == 0:
            self.candidates.add_candidate("Current settings")
            self.candidates.add_candidate("")
        self._schedule_estimate()

    def candidate_set(self, *, show: bool = True) -> CandidateSet | None:
        """The table as the engine's CandidateSet, checked by the engine; None (and, when
        ``show``, the sentence at its cell) when it is not valid. Nothing typed changes."""
        table = self.candidates
        if show:
            table.clear_errors()
        try:
            candidates = table.candidates()
        except CellError as exc:
            return self._refuse(show, exc.sentence, exc.row, exc.key)
        n = len(candidates)
        if not MIN_CANDIDATES <= n <= MAX_CANDIDATES:
            what = ("press “Add candidate” (or “Duplicate”) and change what differs"
                    if n < MIN_CANDIDATES else "remove the ones you would not publish anyway")
            return self._refuse(show, f"A comparison needs {MIN_CANDIDATES} to {MAX_CANDIDATES} "
                                f"candidates and this one has {n}: {what}.")
        kwargs = {"audit_type": self.audit_type, "base": self.base,
                  "name": self.name_edit.text().strip() or "Comparison",
                  "highest_level": self.level_combo.currentData(), "source": SOURCE}
        # The base first: a setting the page's form holds half-typed is the page's to correct.
        try:
            config_from_dict({**self.base, "audit_type": self.audit_type}, source=SOURCE)
        except InputError as exc:
            return self._refuse(show, f"The {self.audit_label} page's settings, which every "
                                f"candidate starts from, need correcting first: "
                                f"{plain(exc.one_line())}")
        # Then each candidate's own settings, so the sentence lands on the cell at fault.
        for row, c in enumerate(candidates):
            try:
                CandidateSet(candidates=(c,), **kwargs).configs()
            except InputError as exc:
                return self._refuse(show, self.cell_sentence(exc, row), row, exc.key or "")
        cset = CandidateSet(candidates=tuple(candidates), **kwargs)
        try:
            validate(cset)
        except InputError as exc:
            text = plain(exc.one_line())
            rows = [r for r, c in enumerate(candidates)
                    if c.label and f"“{c.label}”" in text] or \
                   [r for r, c in enumerate(candidates) if not c.label]
            return self._refuse(show, text, rows[-1] if rows else None,
                                "label" if rows else None)
        return cset

    def cell_sentence(self, exc: InputError, row: int) -> str:
        """"Candidate 2, ε per hour: must be greater than 0 (got -1)." from the engine's
        sentence about one candidate's setting."""
        key = (exc.key or "").split(".")[0]
        label = dict(self.candidates.keys).get(key, key)
        text = " ".join(str(exc).split())
        marker = "”: "
        if text.startswith(SOURCE) and marker in text:
            text = text.split(marker, 1)[1]
        text = field_sentence(text, exc.key or "", label)
        return f"Candidate {row + 1}{', ' + label if label else ''}: {text[:1].lower()}{text[1:]}"

    def _refuse(self, show: bool, sentence: str, row: int | None = None,
                key: str | None = None) -> None:
        if show:
            self.candidates.show_error(sentence, row, key)
        return None

    # ------------------------------------------------------------------ estimate

    def _schedule_estimate(self) -> None:
        self._estimate_timer.start()

    def update_estimate(self) -> None:
        """The whole set's estimated time and memory beside Run (engine.compare.
        estimate_comparison), or why there is none yet."""
        if self.is_running():
            return
        cset = self.candidate_set(show=False)
        if cset is None:
            self.run_bar.show_estimate("The time and memory of the comparison are estimated "
                                       "once the candidates are valid.")
            return
        try:
            cost = estimate_comparison(cset)
        except InputError as exc:
            self.run_bar.show_estimate(plain(exc.one_line()), warn=True)
            return
        except Exception:  # noqa: BLE001 - an estimate must never break the window
            self.run_bar.show_estimate("")
            return
        self.run_bar.show_estimate(f"Estimated for all {len(cset.candidates)} candidates, "
                                   f"one after another: {cost.sentence()}")

    def confirm_long_run(self, question: str) -> bool:
        """Ask before a comparison estimated above the confirmation line (tests replace it)."""
        answer = QMessageBox.question(self, "A long comparison", question,
                                      QMessageBox.StandardButton.Yes
                                      | QMessageBox.StandardButton.No,
                                      QMessageBox.StandardButton.No)
        return answer == QMessageBox.StandardButton.Yes

    def _preflight_allows(self, cset: CandidateSet) -> bool:
        from engine.estimates import preflight
        try:
            check = preflight(estimate_comparison(cset))
        except InputError as exc:
            self.candidates.show_error(plain(exc.one_line()))
            return False
        except Exception:  # noqa: BLE001 - no estimate is no reason to refuse the run
            self._estimate_s = None
            return True
        self._estimate_s = check.estimate.expected_seconds
        if check.refusal is not None:
            self.candidates.show_error(plain(str(check.refusal)))
            return False
        return check.question is None or self.confirm_long_run(check.question)

    # ------------------------------------------------------------------ running

    def is_running(self) -> bool:
        return self._job_id is not None

    def start_run(self) -> None:
        if self.is_running():
            return
        if self.runner.is_busy():
            self.candidates.show_error("Another audit or report is running; wait for it to "
                                       "finish or cancel it first.")
            return
        cset = self.candidate_set()
        if cset is None or not self._preflight_allows(cset):
            return
        folder = new_comparison_folder(self.audit_type)
        self._run_folder = folder
        run = type(self).run_function

        def job(progress, cancel, cset=cset, folder=folder):
            return run(cset, folder, progress=progress, cancel=cancel)

        self.run_bar.clear_error()
        self.run_bar.start(getattr(self, "_estimate_s", None))
        self.run_bar.set_fraction(0.0)
        self.run_bar.set_status("Starting…")
        self._job_id = self.runner.submit(job, self._on_done, self._on_error,
                                          self.run_bar.show_progress,
                                          on_cancelled=self._on_cancelled, label="Comparison")
        self._refresh_controls()

    def cancel_run(self) -> None:
        if not self.is_running():
            return
        self.runner.cancel()
        self.run_bar.cancel_button.setEnabled(False)
        self.run_bar.set_status("Cancelling… (the candidates that finished are kept)")

    def _ended(self) -> None:
        self._job_id = None
        self._refresh_controls()

    def _on_done(self, comparison: Comparison) -> None:
        self._ended()
        self.run_bar.set_fraction(1.0)
        done = len(comparison.finished)
        self.run_bar.set_status(f"Comparison done: {done} of {len(comparison.rows)} candidates "
                                "finished.")
        self.show_comparison(comparison, self._run_folder)

    def _partial(self) -> Comparison | None:
        """What the engine streamed to the run's folder before it stopped (None: nothing)."""
        folder = self._run_folder
        if folder is None or not (folder / COMPARISON_FILE).is_file():
            return None
        try:
            return read_comparison(folder)
        except InputError:
            return None

    def _on_cancelled(self) -> None:
        self._ended()
        self.run_bar.set_fraction(0.0)
        partial = self._partial()
        kept = len(partial.finished) if partial is not None else 0
        self.run_bar.set_status(f"Comparison cancelled: {kept} finished candidate"
                                f"{'' if kept == 1 else 's'} kept; your table is unchanged.")
        if partial is not None:
            self.show_comparison(partial, self._run_folder)

    def _on_error(self, error: JobError) -> None:
        self._ended()
        partial = self._partial()
        if partial is not None:
            self.show_comparison(partial, self._run_folder)
        self.run_bar.set_status("The comparison stopped with an error; your table is "
                                "unchanged.")
        if error.is_input_error:
            self.candidates.show_error(plain(error.message))
        else:
            show_job_error(self, "The comparison could not finish", error)

    def _refresh_controls(self) -> None:
        busy = self.runner.is_busy()
        self.run_bar.run_button.setEnabled(not busy)
        self.run_bar.cancel_button.setEnabled(self.is_running() and busy)
        self.projects_button.setEnabled(not busy)
        self.saved_button.setEnabled(not busy)
        self.candidates.set_editable(not self.is_running())
        self.view.export_button.setEnabled(not busy and self.comparison is not None
                                           and bool(self.comparison.finished))

    # ------------------------------------------------------------------ showing, saved ones

    def show_comparison(self, comparison: Comparison | None, folder: Path | None) -> None:
        self.comparison, self.folder = comparison, folder
        self.view.set_comparison(comparison)
        self.folder_label.setText(f"Kept in {os.path.normpath(folder)}" if folder else "")
        self._refresh_controls()

    def show_latest(self) -> bool:
        """Show the last comparison of this audit kept in the app's folder (a comparison
        survives closing the app); False when there is none."""
        found = latest_comparison(self.audit_type)
        if found is None:
            return False
        folder, comparison = found
        self.show_comparison(comparison, folder)
        self.run_bar.set_status("The last comparison of this audit is shown.")
        return True

    def choose_saved_comparison(self) -> None:
        start = str(comparisons_folder() if comparisons_folder().is_dir() else Path.home())
        folder = QFileDialog.getExistingDirectory(self, "Open a saved comparison", start)
        if folder:
            self.open_saved_comparison(folder)

    def open_saved_comparison(self, folder) -> bool:
        try:
            comparison = read_comparison(folder)
        except InputError as exc:
            self.candidates.show_error(exc.one_line())
            return False
        if comparison.audit_type not in ("", self.audit_type):
            self.candidates.show_error(f"{folder}: is a comparison of {comparison.audit_type} "
                                       f"audits; open it from the {comparison.audit_type} "
                                       "audit's page.")
            return False
        self.candidates.clear_errors()
        self.show_comparison(comparison, Path(folder))
        return True

    def choose_projects(self) -> None:
        paths, _ = QFileDialog.getOpenFileNames(self, "Open saved projects side by side",
                                                str(Path.home()), PROJECT_FILTER)
        if paths:
            self.compare_saved_projects(paths)

    def compare_saved_projects(self, paths: list[str]) -> None:
        """Saved projects side by side (engine.compare.compare_projects), on the job runner:
        their data files are hashed to check that each result still describes its file."""
        if self.runner.is_busy():
            self.candidates.show_error("Another audit or report is running; wait for it to "
                                       "finish first.")
            return
        level = self.level_combo.currentData()
        folder = new_comparison_folder(self.audit_type)

        chosen = tuple(paths)

        def job(progress, cancel, paths=chosen, folder=folder):
            from engine.compare.run import write_comparison

            progress(0.1, "Reading the saved projects")
            comparison = compare_projects(list(paths), highest_level=level)
            folder.mkdir(parents=True, exist_ok=True)
            write_comparison(folder, comparison)
            return comparison

        def done(comparison: Comparison) -> None:
            self._refresh_controls()
            if comparison.audit_type != self.audit_type:
                self.candidates.show_error(
                    f"These projects are {comparison.audit_type} audits; open them from the "
                    f"{comparison.audit_type} audit's page (this is the {self.audit_label}).")
                return
            self.candidates.clear_errors()
            self.run_bar.set_status(f"{len(paths)} saved projects shown side by side (nothing "
                                    "was run again).")
            self.show_comparison(comparison, folder)

        def failed(error: JobError) -> None:
            self._refresh_controls()
            self.candidates.show_error(error.message)
            if not error.is_input_error:
                show_job_error(self, "The projects could not be compared", error)

        self.candidates.clear_errors()
        self.runner.submit(job, done, failed, self.run_bar.show_progress,
                           label="Saved projects side by side")
        self._refresh_controls()

    # ------------------------------------------------------------------ actions on results

    def export_report(self) -> None:
        """The comparison's own PDF (engine.report.comparison), written on the job runner."""
        if self.comparison is None or self.runner.is_busy():
            return
        start = (self.folder or Path.home()) / "comparison.pdf"
        path, _ = QFileDialog.getSaveFileName(self, "Export comparison report", str(start),
                                              "PDF report (*.pdf)")
        if path:
            self.write_report(path if path.lower().endswith(".pdf") else path + ".pdf")

    def report_signoff(self):
        """The audit page's sign-off when it judges one of the candidates' results (the same
        result.json), else None: a decision on another result must not seem to be this one's."""
        from engine.signoff import signoff_or_none
        signoff = signoff_or_none(self.signoff_of_page())
        shas = {r.result_sha256 for r in self.comparison.rows if r.result_sha256}
        return signoff if signoff is not None and signoff.result_sha256 in shas else None

    def write_report(self, path: str) -> None:
        comparison, signoff = self.comparison, self.report_signoff()

        def job(progress, cancel, comparison=comparison, path=path, signoff=signoff):
            from engine.report.comparison import write_comparison_report

            progress(0.1, "Writing the comparison report")
            return str(write_comparison_report(comparison, path, signoff=signoff))

        def done(written: str) -> None:
            self._refresh_controls()
            self.run_bar.set_status(f"Comparison report written to {os.path.normpath(written)}")

        def failed(error: JobError) -> None:
            self._refresh_controls()
            self.run_bar.set_status("The comparison report could not be written.")
            show_job_error(self, "The comparison report could not be written", error)

        self.run_bar.set_status("Writing the comparison report…")
        self.runner.submit(job, done, failed, label="Comparison report")
        self._refresh_controls()

    def open_candidate(self, index: int) -> None:
        """Open candidate ``index``'s result in its audit page: a saved project as itself, a
        run candidate from its folder (gui.widgets.compare_store.read_candidate)."""
        if self.comparison is None:
            return
        row = self.comparison.row(index)
        if row.folder and str(row.folder).endswith(".praudit.json"):
            self.open_project(str(row.folder))
            return
        if not row.folder or self.folder is None:
            show_message_error(self, "The candidate cannot be opened",
                               f"“{row.label}” has no result kept on disk.")
            return
        try:
            config, result = read_candidate(self.folder, row)
        except InputError as exc:
            show_message_error(self, "The candidate cannot be opened", exc.one_line())
            return
        self.open_result(config, result, row.label)


def open_compare(page) -> ComparePage:
    """The Compare window of an audit page (one per page, kept while the app runs, so what
    was typed survives closing it): its base is the page's current settings, as typed."""
    window = getattr(page, "compare_window", None)
    try:
        base = page.config_for_saving()
    except Exception:  # noqa: BLE001 - a half-built form: the last loaded settings
        base = dict(page.loaded_config)
    if window is None:
        window = ComparePage(page.runner, page.AUDIT_TYPE, page.AUDIT_LABEL, base, parent=page)
        host = page.window()

        def open_result(config, result, label, page=page, host=host):
            opener = getattr(host, "open_candidate", None)
            if opener is not None:
                opener(page, config, result, label)
            else:
                page.load_state(config, result, [])

        window.open_result = open_result
        window.open_project = lambda path, host=host: getattr(host, "open_project",
                                                              lambda p: None)(path)
        window.signoff_of_page = page.signoff
        page.compare_window = window
        window.show_latest()
    else:
        window.set_base(base)
    window.show()
    window.raise_()
    window.activateWindow()
    return window


__all__ = ["ComparePage", "comparisons_folder", "latest_comparison", "open_compare"]
