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

import os
import tomllib
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any, ClassVar

from PySide6.QtCore import Qt, QTimer, Signal
from PySide6.QtWidgets import (
    QAbstractButton,
    QButtonGroup,
    QFileDialog,
    QFormLayout,
    QFrame,
    QHBoxLayout,
    QLabel,
    QLineEdit,
    QMessageBox,
    QPushButton,
    QRadioButton,
    QStackedWidget,
    QToolButton,
    QVBoxLayout,
    QWidget,
)

from engine.audits.config_fields import every_error
from engine.audits.presets import CUSTOM, TITLES, apply_preset, matching_preset, presets
from engine.data.errors import InputError
from engine.data.paths import resolve_path as engine_resolve_path
from engine.policy import VerdictPolicy
from gui.error_dialog import show_job_error
from gui.job_runner import JobError, JobFunction, JobProgress, JobRunner
from gui.widgets.form import (
    FieldSpec,
    add_row,
    clear_invalid,
    format_value,
    mark_invalid,
    nested_get,
    nested_set,
    number_field,
    parse_value,
    show_field_error,
)
from gui.widgets.results_scaffold import ReportStep, ResultsStep
from gui.widgets.results_view import ResultsView
from gui.widgets.run_bar import RunBar
from gui.widgets.steps import next_hint, note, numbered, scrolled, step_list, step_page

RESULT_STEPS = ("Results", "Report")
CSV_FILTER = "CSV files (*.csv *.txt);;All files (*)"
SOURCE_PREFIXES = ("settings: ", "config: ", "schema: ")
STATUS_COLOUR, ERROR_COLOUR = "#444", "#c62828"


@dataclass(frozen=True)
class FormStep:
    """One form step: its name in the step list, its title, its intro sentence, and the
    "Next: …" hint at its bottom ("" for none)."""

    name: str
    title: str
    intro: str
    next_hint: str = ""


POLICY_KEYS = ("policy.fpr", "policy.high_tpr", "policy.medium_tpr", "policy.high_accuracy",
               "policy.medium_accuracy")


def policy_fields(step: int) -> dict[str, FieldSpec]:
    """The verdict-policy fields every audit has (config keys "policy.x"), shown on ``step``
    by :meth:`AuditPage.build_policy_box`."""
    return {
        "policy.fpr": FieldSpec(
            "False-positive rate judged", step,
            "The share of absent people an attacker may wrongly accuse when we judge how many "
            "present people it spots (0.01 = 1 %)."),
        "policy.high_tpr": FieldSpec(
            "High risk if people spotted ≥", step,
            "High risk if the attacker spots at least this share of the people present at that "
            "false-positive rate (0.10 = 10 %)."),
        "policy.medium_tpr": FieldSpec(
            "Medium risk if people spotted ≥", step,
            "Medium risk if the attacker spots at least this share (0.02 = 2 %)."),
        "policy.high_accuracy": FieldSpec(
            "High risk if accuracy ≥", step,
            "High risk if the attacker is right at least this often (0.75 = 75 %; 0.5 is "
            "guessing)."),
        "policy.medium_accuracy": FieldSpec(
            "Medium risk if accuracy ≥", step,
            "Medium risk if the attacker is right at least this often (0.60 = 60 %)."),
    }


def resolve_path(text: str) -> Path:
    """A typed path as the engines read it — the engine's one rule
    (:func:`engine.data.paths.resolve_path`: ``~`` expanded; as written, or in the app folder
    for the bundled samples), so what a field previews is what the run reads."""
    return engine_resolve_path(text)


def plain_sentence(message: str) -> str:
    """An engine sentence without the "settings: " / "config: " / "schema: " the page's own
    validation puts in front (the user did not write a file of that name)."""
    for prefix in SOURCE_PREFIXES:
        if message.startswith(prefix):
            message = message[len(prefix):]
    return message


def field_sentence(message: str, key: str, label: str | None = None) -> str:
    """An engine sentence about config ``key`` as it reads under that field: the field's own
    label names it, so a leading internal key and the "settings [defences]:" trail before it
    go ("'epsilon' must be greater than 0" → "Must be greater than 0"); a key quoted inside
    the sentence ("lower 'trials'") becomes the field's ``label``."""
    text = plain_sentence(" ".join(message.split()))
    for name in (key, key.rsplit(".", 1)[-1]):
        quoted = f"'{name}'"
        at = text.find(quoted + " ") if name else -1
        if at >= 0 and (at == 0 or text[:at].endswith(": ")):
            rest = text[at + len(quoted) + 1:]
            return rest[:1].upper() + rest[1:]
        if name and label and quoted in text:
            return text.replace(quoted, f"“{label}”")
    return text


def read_notes_sentence(path) -> str:
    """"How the file was read: …" when reading it needed an assumption (a ';' separator, a
    byte-order mark, old-Mac line ends; engine.data.text_input), else ""."""
    from engine.data.text_input import read_notes

    notes = read_notes(path)
    return f"How the file was read: {'; '.join(notes)}." if notes else ""


def add_read_notes(label: QLabel, path) -> None:
    """Append :func:`read_notes_sentence` to a status line (not to an error sentence)."""
    extra = read_notes_sentence(path)
    if extra and ERROR_COLOUR not in label.styleSheet():
        label.setText(f"{label.text()} {extra}".strip())


def status_label() -> QLabel:
    """The sentence under a field: wrapped, hidden while there is nothing to say (so it takes
    no space); set it with :func:`show_status`."""
    label = QLabel("")
    label.setWordWrap(True)
    label.setVisible(False)
    return label


def show_status(label: QLabel, text: str, error: bool = False) -> None:
    """Say ``text`` under a field: grey, or red for a problem; an empty text hides the line."""
    label.setStyleSheet(f"color: {ERROR_COLOUR if error else STATUS_COLOUR};")
    label.setText(text)
    label.setVisible(bool(text))


def run_fields(step: int) -> dict[str, FieldSpec]:
    """The seed and confidence-level fields every audit has, shown on ``step``."""
    return {
        "seed": FieldSpec(
            "Random seed", step,
            "Any whole number. The same settings and seed always give the same numbers, so a "
            "colleague can reproduce the audit.", integer=True),
        "confidence": FieldSpec(
            "Confidence level", step,
            "Confidence of the intervals shown around measured numbers, e.g. 0.95 for 95 %."),
    }


def audit_steps(form_steps: Sequence[FormStep]) -> tuple[str, ...]:
    """The numbered step list of an audit: its form steps, then Results and Report."""
    return numbered([step.name for step in form_steps] + list(RESULT_STEPS))


class AuditPage(QWidget):
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
    def run_audit(config, progress, cancel) -> dict:
        """Run the audit on a worker thread and return its result.json dict.

        Runs off the main thread: it must use only its arguments, never the page's widgets.
        """
        raise NotImplementedError

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

    def number_field(self, key: str) -> QLineEdit:
        """The text field of number ``key`` of ``FIELDS``, registered in ``self.fields``."""
        edit = number_field(key, self.FIELDS[key])
        self.fields[key] = edit
        return edit

    def add_field_row(self, form: QFormLayout, key: str) -> QLineEdit:
        """A labelled row with the field of ``key``; returns the field."""
        edit = self.number_field(key)
        add_row(form, self.FIELDS[key], edit)
        return edit

    # ------------------------------------------------------------ shared form builders

    def add_name_row(self, form: QFormLayout) -> QLineEdit:
        """The "Audit name" row every audit starts with (``self.name_edit``)."""
        self.name_edit = QLineEdit()
        self.name_edit.setToolTip("A name for this audit; it appears on the report.")
        form.addRow("Audit name:", self.name_edit)
        return self.name_edit

    def add_radio_row(self, form: QFormLayout, label: str,
                      buttons: Sequence[QAbstractButton]) -> QButtonGroup:
        """A labelled row of exclusive radio buttons, one under the other."""
        group = QButtonGroup(self)
        column = QVBoxLayout()
        for button in buttons:
            group.addButton(button)
            column.addWidget(button)
        form.addRow(label, column)
        return group

    def path_row(self, form: QFormLayout, key: str, title: str,
                 browse=None) -> tuple[QLineEdit, QLabel]:
        """The field of path ``key`` (registered in ``self.fields``) with a Browse… button and
        the sentence about the file right under it (:func:`show_status`; hidden while there is
        nothing to say). ``browse`` runs on Browse…; by default it asks for a CSV file with
        ``title`` and puts it in the field. The button is ``edit.browse_button``."""
        edit = self.number_field(key)
        button = QPushButton("Browse…")
        button.setToolTip(title + ".")
        if browse is None:
            def browse(edit=edit, title=title):
                path = self.ask_file(edit, title)
                if path:
                    edit.setText(path)
                    clear_invalid(edit)
        button.clicked.connect(browse)
        status = status_label()
        row = QHBoxLayout()
        row.addWidget(edit, 1)
        row.addWidget(button)
        column = QVBoxLayout()
        column.setSpacing(2)
        column.addLayout(row)
        column.addWidget(status)
        add_row(form, self.FIELDS[key], column)
        edit.browse_button = button
        return edit, status

    def ask_file(self, edit: QLineEdit, title: str, filters: str = CSV_FILTER) -> str:
        """Ask for a file to open, starting in the folder of the path in ``edit`` (else in
        :attr:`BROWSE_FOLDER`); "" when the user cancels."""
        current = edit.text().strip()
        start = str(resolve_path(current).parent) if current else str(self.BROWSE_FOLDER)
        path, _ = QFileDialog.getOpenFileName(self, title, start, filters)
        # Other data on a page that holds a saved project (issue 31, item 1): the window asks
        # whether to start a new project; "" (as if cancelled) keeps everything as it was.
        if path and (not current or os.path.abspath(resolve_path(current))
                     != os.path.abspath(path)) and not self.confirm_other_data(path):
            return ""
        return path

    def read_data(self, path: Path, read: Callable[[], Any], done: Callable[[Any], None],
                  failed: Callable[[str, str], None], status: QLabel,
                  sync_bytes: int) -> None:
        """Read a data file at once when it is small, on the job runner when it is larger
        than ``sync_bytes`` (the window never freezes). ``read()`` must use only what it was
        given (it may run off the main thread); ``done(result)`` or ``failed(sentence, key)``
        run on the main thread; ``status`` says "Reading the file…" meanwhile, then whatever
        ``done`` says plus what was assumed to read the file (:func:`add_read_notes`)."""
        if self._read_job is not None:
            return
        if not (path.is_file() and path.stat().st_size > sync_bytes):
            try:
                result = read()
            except InputError as exc:
                failed(exc.one_line(), exc.key or "")
                return
            done(result)
            add_read_notes(status, path)
            return
        if self.runner.is_busy():
            show_status(status, "Another job is running; the file is read when it has "
                                "finished (or press Run).")
            return

        def finished(result) -> None:
            self._read_job = None
            done(result)
            add_read_notes(status, path)

        def stopped(error: JobError) -> None:
            self._read_job = None
            failed(error.message, error.key)

        show_status(status, "Reading the file…")
        self._read_job = self.runner.submit(lambda progress, cancel: read(), finished, stopped,
                                            label="Reading the records")

    # ------------------------------------------------------------ form <-> dict

    def field_values(self) -> dict[str, Any]:
        """Every number field's text as a number where it is one, else as typed; text
        fields exactly as typed."""
        return {key: edit.text() if self.FIELDS[key].text
                else parse_value(edit.text(), self.FIELDS[key].integer)
                for key, edit in self.fields.items()}

    def apply_fields(self, config: dict, skip: Sequence[str] = ()) -> dict:
        """Write every field's value into ``config`` ("policy.fpr" into config["policy"]),
        except the keys in ``skip``; returns ``config``."""
        for key, value in self.field_values().items():
            if key not in skip:
                nested_set(config, key, value)
        return config

    # ------------------------------------------------------------ how thorough (presets)

    def build_depth_box(self, layout: QVBoxLayout) -> QVBoxLayout:
        """"How thorough?": Quick look, Standard, Thorough — each with what it runs and its
        estimated time — or Custom (issue 20, presets). Returns the layout of the Custom panel,
        where the page puts its full list of attacks: shown only when Custom is chosen, so the
        officer picks a depth, not an attack. Choosing a preset sets its values
        (:mod:`engine.audits.presets`) and leaves every other setting as typed."""
        box = QFrame()
        box.setFrameShape(QFrame.Shape.StyledPanel)
        box_layout = QVBoxLayout(box)
        title = QLabel("How thorough should the audit be?")
        title.setStyleSheet("font-weight: bold;")
        box_layout.addWidget(title)
        self.depth_group = QButtonGroup(self)
        self.depth_buttons: dict[str, QRadioButton] = {}
        self.depth_notes: dict[str, QLabel] = {}
        choices = [(p.key, p.title, p.sentence) for p in presets(self.AUDIT_TYPE)]
        choices.append((CUSTOM, TITLES[CUSTOM], "Choose the attacks and sizes yourself."))
        for key, text, sentence in choices:
            button = QRadioButton(text)
            button.setToolTip(sentence)
            self.depth_group.addButton(button)
            self.depth_buttons[key] = button
            box_layout.addWidget(button)
            sentence_label = note(sentence)
            sentence_label.setContentsMargins(24, 0, 0, 4)
            self.depth_notes[key] = sentence_label
            box_layout.addWidget(sentence_label)
            button.toggled.connect(lambda on, key=key: on and self._depth_chosen(key))
        layout.addWidget(box)
        self.custom_panel = QWidget()
        custom_layout = QVBoxLayout(self.custom_panel)
        custom_layout.setContentsMargins(0, 0, 0, 0)
        layout.addWidget(self.custom_panel)
        self._depth_estimates: dict[str, str] = {}
        return custom_layout

    def _depth_chosen(self, key: str) -> None:
        """A depth button was clicked (or set to match the form): apply a preset's values, or
        show the full list for Custom."""
        self.custom_panel.setVisible(key == CUSTOM)
        if key == CUSTOM or getattr(self, "_syncing_depth", False):
            return
        preset = next(p for p in presets(self.AUDIT_TYPE) if p.key == key)
        try:
            form = self.form_dict()
        except Exception:  # noqa: BLE001 - a half-built form: nothing to apply to yet
            return
        self._base_config = self.complete_config(apply_preset(form, preset))
        self._syncing_depth = True
        try:
            self.fill_form(self._base_config)
        finally:
            self._syncing_depth = False

    def sync_depth(self, config: dict | None = None) -> None:
        """Tick the depth the form's settings match (Custom when none), e.g. after a project is
        opened or a size is typed by hand."""
        buttons = getattr(self, "depth_buttons", None)
        if not buttons:
            return
        if config is None:
            try:
                config = self.form_dict()
            except Exception:  # noqa: BLE001 - a half-built form: try again later
                return
        key = matching_preset(self.AUDIT_TYPE, config)
        if not buttons[key].isChecked():
            self._syncing_depth = True
            try:
                buttons[key].setChecked(True)
            finally:
                self._syncing_depth = False
        self.custom_panel.setVisible(key == CUSTOM)

    def update_depth_estimates(self, form: dict) -> None:
        """Each preset's estimated time beside its name, from the engine's estimate of the
        config it would give (the same estimate the run bar shows)."""
        buttons = getattr(self, "depth_buttons", None)
        if not buttons:
            return
        from engine.estimates import duration_range, estimate
        for preset in presets(self.AUDIT_TYPE):
            try:
                config = self.CONFIG_CLASS.from_dict(apply_preset(form, preset),
                                                     source="settings")
                words = duration_range(estimate(config).expected_seconds)
            except Exception:  # noqa: BLE001 - no estimate for settings not yet valid
                words = ""
            buttons[preset.key].setText(preset.title + (f" — {words}" if words else ""))

    # ------------------------------------------------------------ the verdict policy box

    def build_policy_box(self, layout: QVBoxLayout) -> None:
        """A folded "Verdict policy" box with the ``policy.x`` fields of ``FIELDS`` and the
        rules they make, in words (every audit has a verdict policy)."""
        self.policy_toggle = QToolButton()
        self.policy_toggle.setText("Verdict policy — when is the risk high, medium or low?")
        self.policy_toggle.setCheckable(True)
        self.policy_toggle.setToolButtonStyle(Qt.ToolButtonStyle.ToolButtonTextBesideIcon)
        self.policy_toggle.setArrowType(Qt.ArrowType.RightArrow)
        self.policy_toggle.setStyleSheet("QToolButton { border: none; font-weight: bold; }")
        self.policy_toggle.setToolTip("The thresholds that turn the measured attack success "
                                      "into a low, medium or high risk verdict.")
        self.policy_toggle.toggled.connect(self._toggle_policy)
        self.policy_box = QFrame()
        self.policy_box.setFrameShape(QFrame.Shape.StyledPanel)
        policy_form = QFormLayout(self.policy_box)
        for key in POLICY_KEYS:
            self.add_field_row(policy_form, key).textEdited.connect(self.update_policy_rules)
        self.policy_rules_label = note("")
        policy_form.addRow(self.policy_rules_label)
        self.policy_box.setVisible(False)
        layout.addWidget(self.policy_toggle)
        layout.addWidget(self.policy_box)

    def _toggle_policy(self, shown: bool) -> None:
        self.policy_box.setVisible(shown)
        self.policy_toggle.setArrowType(Qt.ArrowType.DownArrow if shown
                                        else Qt.ArrowType.RightArrow)

    def update_policy_rules(self) -> None:
        """Say in words what the policy fields make (or why they are not valid yet)."""
        label = getattr(self, "policy_rules_label", None)
        if label is None:
            return
        policy = self.form_dict().get("policy") or {}
        try:
            rules = VerdictPolicy.from_dict(policy).rules()
        except InputError as exc:
            label.setText(exc.one_line())
            return
        label.setText("\n".join(rules))

    def fill_fields(self, config: dict) -> None:
        """Show the values of ``config`` in the number fields ("a.b" reads config["a"]["b"])."""
        for key, edit in self.fields.items():
            edit.setText(format_value(nested_get(config, key)))
            clear_invalid(edit)

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
        """Restore a project: the form, the results view and the decision log."""
        self.set_config(config)
        self._decision_log = list(decision_log or [])
        self.results_view.set_decision_log(self._decision_log)
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
        self._update_export_enabled()

    def start_new_project(self) -> None:
        """Other data starts a new project on this page (issue 31, item 1): the form stays as
        it is; the result and the decision log belong to the saved project and are left to
        it."""
        self._decision_log = []
        self.results_view.set_decision_log(self._decision_log)
        self.show_result(None)
        self.run_bar.set_fraction(0.0)
        self.export_status.setText("")
        self.status_label.setText("A new project: press “Run audit” when ready.")

    def _on_note_added(self, entry: dict) -> None:
        self._decision_log.append(entry)
        self.decision_logged.emit(entry)

    # ------------------------------------------------------------ running

    def is_running(self) -> bool:
        return self._job_id is not None

    def audit_job(self, config) -> JobFunction:
        """The job the runner executes: ``run_audit`` on a snapshot of the validated config."""
        run_audit = type(self).run_audit

        def job(progress, cancel):
            return run_audit(config, progress, cancel)

        return job

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

    def _on_run_done(self, result: dict) -> None:
        self._job_id = None
        self._refresh_controls()
        self.run_bar.set_fraction(1.0)
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

    # ------------------------------------------------------------ inline errors

    def step_of_key(self, key: str) -> int | None:
        """The step that holds the setting ``key`` ("policy.fpr" falls back to "policy")."""
        if key in self.FIELDS:
            return self.FIELDS[key].step
        return self.KEY_STEPS.get(key.split(".")[0])

    def form_errors(self, form: dict) -> list[InputError]:
        """Every problem of the form at once (engine.audits.config_fields.every_error)."""
        return every_error(self.CONFIG_CLASS.from_dict, form, source="settings")

    def show_form_errors(self, errors: list[InputError]) -> None:
        """Each problem under its field in the field's own words, every field without one
        cleared; problems of settings without a field go under the form (issue 21). Called as
        the form changes, so a corrected value loses its mark at once."""
        by_key = {e.key: e for e in errors if e.key}
        for key, edit in self.fields.items():
            error = by_key.pop(key, None)
            if error is not None:
                show_field_error(edit, field_sentence(str(error), key, self.FIELDS[key].label
                                                      if key in self.FIELDS else None))
            elif getattr(edit, "error_label", None) is not None or edit.styleSheet():
                clear_invalid(edit)
        rest = [plain_sentence(e.one_line()) for e in errors if not e.key or e.key in by_key]
        if rest:
            self.run_bar.show_error("\n".join(rest))
            self._settings_error_shown = True
        elif not errors and self._settings_error_shown:
            # What the run bar says about the settings goes once they are valid; a problem
            # found while running (a data file) stays until the next run.
            self.run_bar.clear_error()
            self._settings_error_shown = False

    def labelled_sentence(self, error: InputError) -> str:
        """"ε per observation: must be greater than 0 …" — the field's label, then the
        engine's sentence in the field's words; a setting without a field keeps its sentence."""
        spec = self.FIELDS.get(error.key or "")
        text = plain_sentence(error.one_line())
        if spec is None:
            return text
        sentence = field_sentence(text, error.key, spec.label).rstrip(".")
        return f"{spec.label}: {sentence[:1].lower()}{sentence[1:]}."

    def show_input_error(self, error: InputError) -> None:
        """Show the engine's sentence in red under the form, mark the field, go to its step."""
        self.show_error_at(error.one_line(), error.key or "")

    def show_error_at(self, text: str, key: str) -> None:
        """Show ``text`` under the form and mark the field of config ``key`` (if the page has
        one): used for bad settings and for input errors found while the audit runs (e.g. a
        data file that does not load)."""
        text = plain_sentence(text)
        self.run_bar.show_error(self.labelled_sentence(InputError(text, key=key or None)))
        step = self.step_of_key(key)
        if step is not None:
            self.step_list.setCurrentRow(step)
        self.reveal_key(key)
        edit = self.fields.get(key)
        if edit is not None:
            spec = self.FIELDS.get(key)
            show_field_error(edit, field_sentence(text, key, spec.label if spec else None))
            mark_invalid(edit)
        self.status_label.setText("Please correct the highlighted setting.")

    def clear_error(self) -> None:
        self.run_bar.clear_error()
        for edit in self.fields.values():
            clear_invalid(edit)

    # ------------------------------------------------------------ report

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
        return {**self._result, "decision_log": list(self._decision_log)}

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
