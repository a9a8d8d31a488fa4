"""What every audit page shares (ARCHITECTURE §7): a guided sequence of steps, a form whose
errors are shown inline, one run bar wired to the window's JobRunner, the results step with
export, the report step, the decision log and the project config get/set API.

A new audit type subclasses :class:`AuditPage` and supplies only what is its own — the form of
each step, the engine config class, the engine call and the results view — so all audits
behave alike: the same Run/Cancel/ETA, the same sentences for bad settings at the field that
holds them, the same export.

The form never validates by itself: on Run the page builds a plain dict and hands it to the
engine's ``Config.from_dict``, so the GUI, the CLI and config files obey the same rules and
the same sentences. An :class:`InputError` names the config key at fault; the page maps the key
to its field and step, marks the field and keeps whatever the user typed.

The builders every page's form is made of live here too, so a path field, its Browse… button and
the sentence under it look and behave the same on every audit: :meth:`AuditPage.add_name_row`,
:meth:`AuditPage.add_radio_row`, :meth:`AuditPage.path_row` with :meth:`AuditPage.ask_file`,
and :func:`show_status` for the grey (or red) sentence right under a field.
"""

from __future__ import annotations

import tomllib
from collections.abc import Callable
from pathlib import Path
from typing import Any, ClassVar

from PySide6.QtCore import QTimer, Signal
from PySide6.QtWidgets import (
    QHBoxLayout,
    QLineEdit,
    QMessageBox,
    QPushButton,
    QStackedWidget,
    QVBoxLayout,
    QWidget,
)

from engine.audits import registry
from engine.data.errors import InputError
from engine.policy import VerdictPolicy
from gui.job_runner import JobRunner
from gui.pages.audit_form_rows import FormRows
from gui.pages.audit_forms import (
    CSV_FILTER,
    ERROR_COLOUR,
    POLICY_KEYS,
    RESULT_STEPS,
    SOURCE_PREFIXES,
    STATUS_COLOUR,
    FormStep,
    add_read_notes,
    audit_steps,
    field_sentence,
    plain_sentence,
    policy_fields,
    read_notes_sentence,
    resolve_path,
    run_fields,
    show_status,
    status_label,
)
from gui.pages.audit_running import Running
from gui.widgets.form import (
    FieldSpec,
)
from gui.widgets.results_scaffold import ReportStep, ResultsStep
from gui.widgets.results_view import ResultsView
from gui.widgets.run_bar import RunBar
from gui.widgets.signoff_panel import PageSigning
from gui.widgets.steps import next_hint, scrolled, step_list, step_page

# The helpers the audit pages import from here moved to gui.pages.audit_forms (issue 33 item 2);
# this module still offers them, so a page imports its whole kit from one place.
__all__ = ["CSV_FILTER", "ERROR_COLOUR", "POLICY_KEYS", "RESULT_STEPS", "SOURCE_PREFIXES",
           "STATUS_COLOUR", "AuditPage", "FormStep", "add_read_notes", "audit_steps",
           "field_sentence", "plain_sentence", "policy_fields", "read_notes_sentence",
           "resolve_path", "run_fields", "show_status", "status_label"]


class AuditPage(FormRows, Running, PageSigning, QWidget):
    """Steps, form, run bar, results and report of one audit type.

    A subclass sets the class attributes ``AUDIT_TYPE``, ``AUDIT_LABEL``, ``CONFIG_CLASS``,
    ``FORM_STEPS`` and ``FIELDS`` (optionally ``KEY_STEPS`` and ``SAMPLE_CONFIG``) and implements
    :meth:`build_step`, :meth:`build_results_view`, :meth:`form_dict`, :meth:`fill_form` and
    :meth:`run_audit`.
    """

    home_requested = Signal()
    result_ready = Signal(dict)          # a finished run's result.json dict
    decision_logged = Signal(dict)       # a new decision-log entry
    report_written = Signal(str)

    # ------------------------------------------------------------ supplied by the subclass
    AUDIT_TYPE: ClassVar[str] = ""                  # project audit_type, e.g. "mechanism"
    AUDIT_LABEL: ClassVar[str] = "Audit"            # names the job, e.g. "Mechanism audit"
    CONFIG_CLASS: ClassVar[Any] = None              # engine config: (), from_dict, to_dict
    FORM_STEPS: ClassVar[tuple[FormStep, ...]] = ()
    FIELDS: ClassVar[dict[str, FieldSpec]] = {}     # number fields by config key
    KEY_STEPS: ClassVar[dict[str, int]] = {}        # step of every other config key
    SAMPLE_CONFIG: ClassVar[Path | None] = None     # bundled sample (TOML), if any
    BROWSE_FOLDER: ClassVar[Path] = Path.home()     # where Browse… opens for an empty field
    ESTIMATE_MS: ClassVar[int] = 700                # how often the run's estimate is refreshed

    def build_step(self, index: int, layout: QVBoxLayout) -> None:
        """Add the form of form step ``index`` to ``layout`` (below the step's title)."""
        raise NotImplementedError

    def build_results_view(self) -> ResultsView:
        """The results view of this audit (a :class:`ResultsView`, maybe with sections)."""
        return ResultsView()

    def form_dict(self) -> dict:
        """The form as a config dict, exactly as typed (not validated), on top of
        :attr:`loaded_config`."""
        raise NotImplementedError

    def fill_form(self, config: dict) -> None:
        """Show ``config`` (complete: defaults merged in) in the form."""
        raise NotImplementedError

    @staticmethod
    def run_audit(config, progress, cancel):
        """Run the audit on a worker thread: the registry's run (engine.audits.registry), so
        every page starts its job one way (issue 33 item 2). Returns the AuditResult, whose
        result.json dict the job makes (a subclass may return that dict itself).

        Runs off the main thread: it must use only its arguments, never the page's widgets.
        """
        return registry.run_audit(config, progress=progress, cancel=cancel)

    def take_attachments(self, attachments: dict, config) -> None:
        """A finished run's attachments — what its result.json does not hold
        (AuditResult.attachments, e.g. the model audit's defended models) — with the config it
        ran, on the main thread; the base keeps nothing."""

    def reveal_key(self, key: str) -> None:
        """Make the field of ``key`` visible (e.g. unfold a collapsed box); the step is
        already shown. The base unfolds the verdict-policy box for "policy.x" keys."""
        toggle = getattr(self, "policy_toggle", None)
        if key.startswith("policy.") and toggle is not None and not toggle.isChecked():
            toggle.setChecked(True)

    # ------------------------------------------------------------ config defaults

    @classmethod
    def default_config(cls) -> dict:
        return cls.CONFIG_CLASS().to_dict()

    @classmethod
    def sample_config(cls) -> dict:
        """The bundled sample config as a validated dict; the defaults if there is none."""
        path = cls.SAMPLE_CONFIG
        if path is None or not path.exists():
            return cls.default_config()
        with open(path, "rb") as fh:
            data = tomllib.load(fh)
        return cls.CONFIG_CLASS.from_dict(data, source=str(path)).to_dict()

    def complete_config(self, config: dict) -> dict:
        """``config`` with the defaults filled in for every key it lacks (and every policy
        threshold it lacks, for audits with a verdict policy)."""
        defaults = self.default_config()
        merged = {**defaults, **(config or {})}
        if isinstance(defaults.get("policy"), dict):
            merged["policy"] = {**VerdictPolicy().to_dict(), **defaults["policy"],
                                **(merged.get("policy") or {})}
        return merged

    # ------------------------------------------------------------ building

    def __init__(self, runner: JobRunner, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.runner = runner
        self._base_config: dict = self.default_config()
        self._result: dict | None = None
        self._decision_log: list[dict] = []
        self._job_id: int | None = None
        self._read_job: int | None = None
        # Asked before other data is loaded (the window's question when the page holds a saved
        # project, MainWindow.confirm_other_data); True goes on.
        self.confirm_other_data: Callable[[str], bool] = lambda path: True
        self.fields: dict[str, QLineEdit] = {}
        self.results_step = len(self.FORM_STEPS)
        self.report_step = self.results_step + 1

        self.step_list = step_list(audit_steps(self.FORM_STEPS))
        self.steps = QStackedWidget()
        self.step_list.currentRowChanged.connect(self.steps.setCurrentIndex)
        for index, step in enumerate(self.FORM_STEPS):
            self.steps.addWidget(scrolled(self._build_form_step(index, step)))

        self.results_view = self.build_results_view()
        self.results_view.note_added.connect(self._on_note_added)
        self.init_signing()                  # the Decision box (issue 34 item 3)
        results = ResultsStep(self.results_view)
        report = ReportStep()
        self.export_button_results = results.export_button
        self.export_button = report.export_button
        self.export_status = report.status_label
        for button in (self.export_button, self.export_button_results):
            button.clicked.connect(self.export_report)
        self.steps.addWidget(scrolled(results))
        self.steps.addWidget(scrolled(report))

        self.run_bar = RunBar()
        self.error_label = self.run_bar.error_label
        self.run_button = self.run_bar.run_button
        self.cancel_button = self.run_bar.cancel_button
        self.progress_bar = self.run_bar.progress_bar
        self.status_label = self.run_bar.status_label
        self.run_button.clicked.connect(self.start_run)
        self.cancel_button.clicked.connect(self.cancel_run)

        home = QPushButton("← Home")
        home.setToolTip("Back to the list of audits (this audit stays open).")
        home.clicked.connect(self.home_requested)
        left = QVBoxLayout()
        left.addWidget(home)
        left.addWidget(self.step_list, 1)
        # The Compare step (issue 34 item 1): this audit over 2–8 candidate releases.
        self.compare_button = QPushButton("Compare candidates…")
        self.compare_button.setToolTip("Run this audit over several candidate releases (or "
                                       "open saved projects) and choose the most useful one "
                                       "your policy accepts.")

        def open_compare(_checked: bool = False) -> None:
            from gui.pages.compare_page import open_compare as show  # loaded when first used
            show(self)

        self.compare_button.clicked.connect(open_compare)
        left.addWidget(self.compare_button)
        body = QHBoxLayout()
        body.addLayout(left)
        body.addWidget(self.steps, 1)
        layout = QVBoxLayout(self)
        layout.addLayout(body, 1)
        layout.addWidget(self.run_bar)
        self.step_list.setCurrentRow(0)
        self.set_config(self._base_config)
        self.runner.busy_changed.connect(lambda _busy: self._refresh_controls())
        self._refresh_controls()
        # The estimate follows the form: a cheap look at the settings every ESTIMATE_MS while
        # the page is shown (no signal covers every widget a page builds, rows added later
        # included); the estimate is recomputed only when the settings changed.
        self._estimated_form: dict | None = None
        self._shown_estimate: tuple | None = None     # (form, CostEstimate) the page shows
        self._settings_error_shown = False      # the run bar's error is about the settings
        self._estimate_timer = QTimer(self)
        self._estimate_timer.setInterval(self.ESTIMATE_MS)
        self._estimate_timer.timeout.connect(self.update_estimate)
        self._estimate_timer.start()

    def _build_form_step(self, index: int, step: FormStep) -> QWidget:
        page, layout = step_page(step.title, step.intro)
        self.build_step(index, layout)
        layout.addStretch(1)
        if step.next_hint:
            layout.addWidget(next_hint(step.next_hint))
        return page

    # ------------------------------------------------------------ shared form builders

    # ------------------------------------------------------------ form <-> dict

    # ------------------------------------------------------------ how thorough (presets)

    # ------------------------------------------------------------ the verdict policy box

    @property
    def loaded_config(self) -> dict:
        """The config last loaded or run, defaults filled in. ``form_dict`` starts from it, so
        keys the form does not show are kept."""
        return self._base_config

    def set_config(self, config: dict) -> None:
        """Fill the form from a config dict (validated or as saved from a half-typed form).

        Keys the form does not show are kept and sent with the next run, so opening a project
        and running it again never silently drops a setting.
        """
        self._base_config = self.complete_config(config)
        self.fill_form(self._base_config)
        self.update_policy_rules()
        self.clear_error()
        self.sync_depth(self._base_config)

    def validated_config(self):
        """The form as the engine's config object; InputError names the first problem."""
        return self.CONFIG_CLASS.from_dict(self.form_dict(), source="settings")

    def config_for_saving(self) -> dict:
        """A validated config dict when the form is valid, else the form as typed (kept)."""
        try:
            return self.validated_config().to_dict()
        except InputError:
            return self.form_dict()

    # ------------------------------------------------------------ state for projects

    def result(self) -> dict | None:
        return self._result

    def decision_log(self) -> list[dict]:
        return list(self._decision_log)

    def load_state(self, config: dict, result: dict | None, decision_log: list[dict]) -> None:
        """Restore a project: the form, the results view and the decision log; unsigned (a
        project's sign-off follows with :meth:`load_signoff`)."""
        self.set_config(config)
        self._decision_log = list(decision_log or [])
        self.results_view.set_decision_log(self._decision_log)
        self.clear_signing()
        self.restore_result(result)

    def restore_result(self, result: dict | None) -> None:
        """Show a project's saved result (or none) as the page's last result."""
        self.show_result(result)
        self.status_label.setText("Project opened." if result is None else
                                  "Project opened with its last result.")
        self.run_bar.set_fraction(1.0 if result else 0.0)
        self.export_status.setText("")
        self._update_export_enabled()
        self.step_list.setCurrentRow(self.results_step if result else 0)

    def show_result(self, result: dict | None) -> None:
        self._result = result
        self.results_view.set_result(result)
        self.show_signoff()
        self._update_export_enabled()

    def start_new_project(self) -> None:
        """Other data starts a new project on this page (issue 31, item 1): the form stays as
        it is; the result, the decision log and the sign-off belong to the saved project and
        are left to it."""
        self._decision_log = []
        self.clear_signing()
        self.results_view.set_decision_log(self._decision_log)
        self.show_result(None)
        self.run_bar.set_fraction(0.0)
        self.export_status.setText("")
        self.status_label.setText("A new project: press “Run audit” when ready.")

    def _on_note_added(self, entry: dict) -> None:
        self._decision_log.append(entry)
        self.decision_logged.emit(entry)

    # ------------------------------------------------------------ running

    # ------------------------------------------------------------ cost before running

    def update_estimate(self, force: bool = False) -> None:
        """Show the run's estimated time and memory under the form (engine.estimates); a
        sentence saying why there is none while the settings do not validate."""
        if not force and (not self.isVisible() or self.is_running()):
            return
        try:
            form = self.form_dict()
        except Exception:  # noqa: BLE001 - a half-built form: try again at the next tick
            return
        if not force and form == self._estimated_form:
            return
        self._estimated_form = form
        self.refresh_signoff()              # a setting changed after sign-off unsigns it
        self.sync_depth(form)
        self.update_depth_estimates(form)
        from engine.estimates import estimate, preflight
        try:
            config = self.CONFIG_CLASS.from_dict(form, source="settings")
        except InputError:
            self.show_form_errors(self.form_errors(form))
            self.run_bar.show_estimate("The time and memory of the run are estimated once "
                                       "the settings are valid.")
            return
        self.show_form_errors([])
        try:
            cost = estimate(config)
            check = preflight(cost)
        except InputError:
            self.run_bar.show_estimate("The time and memory of the run are estimated once "
                                       "the settings are valid.")
            return
        except Exception:  # noqa: BLE001 - an estimate must never break the page
            self.run_bar.show_estimate("")
            return
        # The one estimate of these settings: the question before a long run and the time
        # left when it starts read it too, never a second estimate taken a moment later on a
        # machine whose load has moved ("18–47 min" beside "17–45 min", issue 32 item 6).
        self._shown_estimate = (form, cost)
        if check.refusal is not None:
            self.run_bar.show_estimate(plain_sentence(str(check.refusal)), warn=True)
        else:
            # The estimate's warnings (e.g. a column with too many values) beside it, before
            # the run (issue 18).
            self.run_bar.show_estimate(" ".join(("Estimated: " + check.estimate.sentence(),
                                                 *check.notes)),
                                       warn=check.concern is not None or bool(check.notes))

    def confirm_long_run(self, question: str) -> bool:
        """Ask before a run estimated above the confirmation line (tests replace this)."""
        answer = QMessageBox.question(self, "A long run", question,
                                      QMessageBox.StandardButton.Yes
                                      | QMessageBox.StandardButton.No,
                                      QMessageBox.StandardButton.No)
        return answer == QMessageBox.StandardButton.Yes

    def preflight_allows(self, config) -> bool:
        """Refuse a run that cannot fit in memory (a sentence at the setting to lower) and ask
        before a long one; True when the run may start."""
        from engine.estimates import estimate, preflight
        shown = getattr(self, "_shown_estimate", None)
        try:
            form = self.form_dict()
        except Exception:  # noqa: BLE001 - a half-built form: estimate afresh
            form = None
        try:
            if shown is not None and form is not None and shown[0] == form:
                check = preflight(shown[1])         # the estimate the status line shows
            else:
                check = preflight(estimate(config))
                if form is not None:
                    # Settings changed since the last tick: show this estimate under the form
                    # too, so the question and the status line still say one thing.
                    self._shown_estimate = (form, check.estimate)
                    self._estimated_form = form
                    if check.refusal is None:
                        self.run_bar.show_estimate(
                            " ".join(("Estimated: " + check.estimate.sentence(), *check.notes)),
                            warn=check.concern is not None or bool(check.notes))
        except InputError as exc:
            self.show_input_error(exc)
            return False
        except Exception:  # noqa: BLE001 - no estimate is no reason to refuse the run
            self._run_estimate_s = None
            return True
        # What the run bar's time left starts from (engine.estimates.remaining).
        self._run_estimate_s = check.estimate.expected_seconds
        if check.refusal is not None:
            self.show_input_error(check.refusal)
            return False
        return check.question is None or self.confirm_long_run(self.plain_question(check))

    def plain_question(self, check) -> str:
        """The engine's question before a long run, with the config key it names ("… goes to
        training 25 models ('shadow_models')") replaced by the field's own label, as every
        sentence on the page names settings (the command line keeps the key)."""
        question = check.question or ""
        slowest = check.estimate.slowest_part()
        key = getattr(slowest, "setting", "") if slowest is not None else ""
        if key and f"('{key}')" in question:
            spec = self.FIELDS.get(key)
            words = f" (the setting “{spec.label}”)" if spec is not None else ""
            question = question.replace(f" ('{key}')", words)
        return question

    # ------------------------------------------------------------ inline errors

    # ------------------------------------------------------------ report





