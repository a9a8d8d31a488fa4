"""The DP-mechanism audit page: "What does this ε really allow an attacker to do?" (paper 002).

A guided sequence (ARCHITECTURE §7): Release → Attacker → Attacks & run → Results → Report,
as steps in a left column. The form never validates by itself: on Run it builds a plain dict
and hands it to ``MechanismConfig.from_dict``, so the GUI, the CLI and config files obey the
same rules and the same sentences. Number fields are text fields on purpose: whatever the user
typed stays visible next to the error that explains it.
"""

from __future__ import annotations

import os
from pathlib import Path

from PySide6.QtCore import Qt, Signal
from PySide6.QtWidgets import (
    QButtonGroup,
    QComboBox,
    QFileDialog,
    QFormLayout,
    QFrame,
    QHBoxLayout,
    QLabel,
    QLineEdit,
    QListWidget,
    QProgressBar,
    QPushButton,
    QRadioButton,
    QScrollArea,
    QSizePolicy,
    QStackedWidget,
    QToolButton,
    QVBoxLayout,
    QWidget,
)

from engine.audits.mechanism import MechanismConfig
from engine.data.errors import InputError
from engine.mechanisms import MECHANISM_LABELS, SCALE_NAMES
from engine.policy import VerdictPolicy
from gui.error_dialog import show_job_error
from gui.job_runner import JobError, JobProgress, JobRunner, format_eta
from gui.widgets.mechanism_results import MechanismResultsView

STEPS = ("1  Release", "2  Attacker", "3  Attacks & run", "4  Results", "5  Report")
STEP_RELEASE, STEP_ATTACKER, STEP_RUN, STEP_RESULTS, STEP_REPORT = range(5)

POSTPROCESS_CHOICES = (("none", "None (publish the noisy value as is)"),
                       ("round", "Round to whole numbers"),
                       ("round_nonnegative", "Round, and replace negative values by 0"))
SWEEP_CHOICES = (("epsilon", "ε per observation"), ("observations", "observations per person k"))

# key: (label, step, tooltip, is_integer). Keys are MechanismConfig fields ("policy.x" for the
# verdict policy). Tooltips are for privacy officers, not programmers.
NUMBER_FIELDS: dict[str, tuple[str, int, str, bool]] = {
    "epsilon": ("ε per observation", STEP_RELEASE,
                "Privacy-loss budget for ONE release of a person's data. Smaller is more "
                "private. 1 is a common choice; above 5 gives little protection.", False),
    "noise_scale": ("Noise scale", STEP_RELEASE,
                    "How much random noise is added to each released value (the Laplace scale b "
                    "or the Gaussian standard deviation σ). Larger noise is more private.", False),
    "delta": ("δ (failure probability)", STEP_RELEASE,
              "Small probability that the ε guarantee does not hold. Keep it far below one over "
              "the number of people, e.g. 0.00001 (1e-5). Needed for Gaussian noise.", False),
    "sensitivity": ("Sensitivity Δ", STEP_RELEASE,
                    "The most one person can change one released value, e.g. 1 for a count of "
                    "people. Contributions are clipped to this.", False),
    "observations": ("Observations per person k", STEP_ATTACKER,
                     "In how many released values the same person appears (e.g. 10 hourly counts). "
                     "Each observation spends ε again, so risk grows with k.", True),
    "baseline_count": ("Everyone else's contribution", STEP_ATTACKER,
                       "The value without the person (e.g. 100 other people in the count). The "
                       "attacker is assumed to know it exactly — the worst case DP protects "
                       "against.", False),
    "trials": ("Simulated games N", STEP_RUN,
               "How many times the membership game is played per case (person present / absent). "
               "More games give tighter confidence intervals but take longer. 20 000 is a good "
               "default.", True),
    "seed": ("Random seed", STEP_RUN,
             "Any whole number. The same settings and seed always give the same numbers, so a "
             "colleague can reproduce the audit.", True),
    "confidence": ("Confidence level", STEP_RUN,
                   "Confidence of the intervals shown around measured numbers, e.g. 0.95 for "
                   "95 %.", False),
    "limit_tpr": ("Highest acceptable TPR", STEP_RUN,
                  "The inverse question: the largest share of people present that an attacker "
                  "may spot (0.05 = 5 %) …", False),
    "limit_fpr": ("… at a false-positive rate of", STEP_RUN,
                  "… while wrongly accusing this share of the people absent (0.01 = 1 %). The "
                  "audit then tells you the largest ε per observation that keeps to this limit.",
                  False),
    "policy.fpr": ("False-positive rate judged", STEP_RUN,
                   "The share of absent people an attacker may wrongly accuse when we judge how "
                   "many present people it spots (0.01 = 1 %).", False),
    "policy.high_tpr": ("High risk if TPR ≥", STEP_RUN,
                        "High risk if the attacker spots at least this share of the people "
                        "present at that false-positive rate (0.10 = 10 %).", False),
    "policy.medium_tpr": ("Medium risk if TPR ≥", STEP_RUN,
                          "Medium risk if the attacker spots at least this share (0.02 = 2 %).",
                          False),
    "policy.high_accuracy": ("High risk if accuracy ≥", STEP_RUN,
                             "High risk if the attacker is right at least this often (0.75 = "
                             "75 %; 0.5 is guessing).", False),
    "policy.medium_accuracy": ("Medium risk if accuracy ≥", STEP_RUN,
                               "Medium risk if the attacker is right at least this often "
                               "(0.60 = 60 %).", False),
}
BOUND_INTERVAL_CHOICES = (("clopper-pearson", "Clopper–Pearson (exact, recommended)"),
                          ("jeffreys", "Jeffreys (tighter, approximate)"))
OTHER_FIELD_STEPS = {"bound_interval": STEP_RUN, "name": STEP_RELEASE, "mechanism": STEP_RELEASE, "noise_from": STEP_RELEASE,
                     "postprocess": STEP_RELEASE, "sweep": STEP_RUN, "fpr_targets": STEP_RUN,
                     "policy": STEP_RUN}
ERROR_STYLE = "border: 2px solid #c62828; border-radius: 3px; padding: 1px;"


def _format_value(value) -> str:
    if value is None:
        return ""
    if isinstance(value, float):
        return f"{value:g}"
    return str(value)


def _parse_value(text: str, integer: bool):
    """The typed text as a number when it is one; otherwise the raw text, so that the engine's
    validation names exactly what the user typed."""
    raw = text.strip()
    candidate = raw.replace(",", ".") if raw.count(",") == 1 and "." not in raw else raw
    try:
        value = float(candidate)
    except ValueError:
        return raw
    if integer and value.is_integer():
        return int(value)
    return value


class MechanismPage(QWidget):
    """Form, run controls and results of one mechanism audit."""

    home_requested = Signal()
    result_ready = Signal(dict)          # a finished run's result.json dict
    decision_logged = Signal(dict)       # a new decision-log entry
    report_written = Signal(str)

    def __init__(self, runner: JobRunner, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.runner = runner
        self._base_config: dict = MechanismConfig().to_dict()
        self._result: dict | None = None
        self._decision_log: list[dict] = []
        self._job_id: int | None = None
        self.fields: dict[str, QLineEdit] = {}

        self.step_list = QListWidget()
        self.step_list.addItems(STEPS)
        self.step_list.setFixedWidth(170)
        self.step_list.setObjectName("stepList")
        self.step_list.setStyleSheet("#stepList { font-size: 11pt; } #stepList::item "
                                     "{ padding: 10px 6px; }")
        self.steps = QStackedWidget()
        self.step_list.currentRowChanged.connect(self.steps.setCurrentIndex)

        self.steps.addWidget(_scrolled(self._build_release_step()))
        self.steps.addWidget(_scrolled(self._build_attacker_step()))
        self.steps.addWidget(_scrolled(self._build_run_step()))
        self.results_view = MechanismResultsView()
        self.results_view.note_added.connect(self._on_note_added)
        self.steps.addWidget(_scrolled(self._build_results_step()))
        self.steps.addWidget(_scrolled(self._build_report_step()))

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
        layout.addWidget(self._build_run_bar())
        self.step_list.setCurrentRow(STEP_RELEASE)
        self.set_config(self._base_config)
        self.runner.busy_changed.connect(lambda _busy: self._refresh_controls())
        self._refresh_controls()

    # ================================================================== building the steps

    def _title(self, text: str, sentence: str) -> QWidget:
        box = QWidget()
        layout = QVBoxLayout(box)
        layout.setContentsMargins(0, 0, 0, 8)
        title = QLabel(text)
        font = title.font()
        font.setPointSizeF(font.pointSizeF() * 1.5)
        font.setBold(True)
        title.setFont(font)
        explanation = QLabel(sentence)
        explanation.setWordWrap(True)
        explanation.setStyleSheet("color: #444;")
        layout.addWidget(title)
        layout.addWidget(explanation)
        return box

    def _number_field(self, key: str) -> QLineEdit:
        label, _, tip, _ = NUMBER_FIELDS[key]
        edit = QLineEdit()
        edit.setObjectName(f"field_{key}")
        edit.setToolTip(tip)
        edit.setAccessibleName(label)
        edit.setMaximumWidth(160)
        edit.textEdited.connect(lambda _text, e=edit: e.setStyleSheet(""))
        self.fields[key] = edit
        return edit

    def _form_row(self, form: QFormLayout, key: str) -> None:
        label = QLabel(NUMBER_FIELDS[key][0] + ":")
        label.setToolTip(NUMBER_FIELDS[key][2])
        form.addRow(label, self._number_field(key))

    def _build_release_step(self) -> QWidget:
        page = QWidget()
        layout = QVBoxLayout(page)
        layout.addWidget(self._title(
            "What is published, and how is it protected?",
            "Describe the noisy release: which differential-privacy mechanism adds noise, and how "
            "much. Hover over any field for an explanation."))
        form = QFormLayout()
        self.name_edit = QLineEdit()
        self.name_edit.setToolTip("A name for this audit; it appears on the report.")
        form.addRow("Audit name:", self.name_edit)

        self.mechanism_combo = QComboBox()
        for name, label in MECHANISM_LABELS.items():
            self.mechanism_combo.addItem(label, name)
        self.mechanism_combo.setToolTip(
            "The kind of random noise added to each released value. Laplace noise gives pure "
            "ε-DP; Gaussian noise needs a small δ. The discrete versions add whole numbers.")
        self.mechanism_combo.currentIndexChanged.connect(self._update_scale_label)
        form.addRow("Noise mechanism:", self.mechanism_combo)

        self.noise_from_epsilon = QRadioButton("as ε per observation (the noise is calibrated "
                                               "from ε and δ)")
        self.noise_from_scale = QRadioButton("as the noise scale itself")
        self.noise_from_epsilon.setToolTip("Choose this if the data owner states an ε.")
        self.noise_from_scale.setToolTip("Choose this if you know how much noise is added "
                                         "(e.g. 'Laplace noise with scale 2').")
        self.noise_from_group = QButtonGroup(self)
        self.noise_from_group.addButton(self.noise_from_epsilon)
        self.noise_from_group.addButton(self.noise_from_scale)
        self.noise_from_epsilon.toggled.connect(self._update_noise_from)
        radios = QVBoxLayout()
        radios.addWidget(self.noise_from_epsilon)
        radios.addWidget(self.noise_from_scale)
        form.addRow("Noise given:", radios)
        self._form_row(form, "epsilon")
        self.scale_label = QLabel("Noise scale:")
        self.scale_label.setToolTip(NUMBER_FIELDS["noise_scale"][2])
        form.addRow(self.scale_label, self._number_field("noise_scale"))
        self._form_row(form, "delta")
        self._form_row(form, "sensitivity")

        self.postprocess_combo = QComboBox()
        for name, label in POSTPROCESS_CHOICES:
            self.postprocess_combo.addItem(label, name)
        self.postprocess_combo.setToolTip(
            "What happens to the noisy value before publication. Rounding and clamping can only "
            "make attacks harder, never easier.")
        form.addRow("Post-processing:", self.postprocess_combo)
        layout.addLayout(form)
        layout.addStretch(1)
        layout.addWidget(_next_hint("Next: 2 Attacker — how often each person appears."))
        return page

    def _build_attacker_step(self) -> QWidget:
        page = QWidget()
        layout = QVBoxLayout(page)
        layout.addWidget(self._title(
            "What does the attacker know?",
            "We assume the strongest attacker differential privacy protects against: they know "
            "everyone else's data exactly, and want to find out whether one particular person is "
            "in the data. They see every release in which that person appears."))
        form = QFormLayout()
        self._form_row(form, "observations")
        self._form_row(form, "baseline_count")
        layout.addLayout(form)
        note = QLabel("Two attackers are played against the release: the optimal one (the "
                      "Neyman–Pearson likelihood-ratio test, the best any attacker can do) and a "
                      "naive one that simply adds up the releases. The exact optimal attacker of "
                      "DP theory is computed as well.")
        note.setWordWrap(True)
        note.setStyleSheet("color: #444;")
        layout.addWidget(note)
        layout.addStretch(1)
        layout.addWidget(_next_hint("Next: 3 Attacks & run."))
        return page

    def _build_run_step(self) -> QWidget:
        page = QWidget()
        layout = QVBoxLayout(page)
        layout.addWidget(self._title(
            "Attacks and what-if questions",
            "The defaults suit most audits. Press Run when ready; you can keep reading while it "
            "runs."))
        form = QFormLayout()
        self._form_row(form, "trials")
        self._form_row(form, "seed")
        self._form_row(form, "confidence")
        self.sweep_combo = QComboBox()
        for name, label in SWEEP_CHOICES:
            self.sweep_combo.addItem(label, name)
        self.sweep_combo.setToolTip("Draw how risk changes when this setting changes (exact "
                                    "theory), with the current value marked.")
        form.addRow("What-if: vary", self.sweep_combo)
        self.bound_interval_combo = QComboBox()
        for name, label in BOUND_INTERVAL_CHOICES:
            self.bound_interval_combo.addItem(label, name)
        self.bound_interval_combo.setToolTip(
            "How the empirical ε lower bound accounts for chance. Clopper–Pearson is exact: the "
            "bound holds with at least the stated confidence. Jeffreys is a little tighter but "
            "only approximately so; the report says which was used.")
        form.addRow("ε lower bound interval", self.bound_interval_combo)
        limit_row = QHBoxLayout()
        limit_row.addWidget(QLabel("Keep TPR ≤"))
        limit_row.addWidget(self._number_field("limit_tpr"))
        limit_row.addWidget(QLabel("at FPR"))
        limit_row.addWidget(self._number_field("limit_fpr"))
        limit_row.addStretch(1)
        limit_label = QLabel("Limit for the inverse question:")
        limit_label.setToolTip("The audit answers: what is the largest ε per observation that "
                               "keeps the best attacker under this limit?")
        form.addRow(limit_label, limit_row)
        layout.addLayout(form)

        self.policy_toggle = QToolButton()
        self.policy_toggle.setText("Verdict policy — when is the risk high, medium or low?")
        self.policy_toggle.setCheckable(True)
        self.policy_toggle.setToolButtonStyle(Qt.ToolButtonStyle.ToolButtonTextBesideIcon)
        self.policy_toggle.setArrowType(Qt.ArrowType.RightArrow)
        self.policy_toggle.setStyleSheet("QToolButton { border: none; font-weight: bold; }")
        self.policy_toggle.toggled.connect(self._toggle_policy)
        self.policy_box = QFrame()
        self.policy_box.setFrameShape(QFrame.Shape.StyledPanel)
        policy_form = QFormLayout(self.policy_box)
        for key in ("policy.fpr", "policy.high_tpr", "policy.medium_tpr", "policy.high_accuracy",
                    "policy.medium_accuracy"):
            self._form_row(policy_form, key)
            self.fields[key].textEdited.connect(self._update_policy_rules)
        self.policy_rules_label = QLabel()
        self.policy_rules_label.setWordWrap(True)
        self.policy_rules_label.setStyleSheet("color: #444;")
        policy_form.addRow(self.policy_rules_label)
        self.policy_box.setVisible(False)
        layout.addWidget(self.policy_toggle)
        layout.addWidget(self.policy_box)
        layout.addStretch(1)
        return page

    def _build_results_step(self) -> QWidget:
        page = QWidget()
        layout = QVBoxLayout(page)
        head = QHBoxLayout()
        head.addWidget(self._title("Results", "Read the verdict first; the plots and tables "
                                   "show the evidence behind it."), 1)
        self.export_button_results = QPushButton("Export PDF report…")
        self.export_button_results.clicked.connect(self.export_report)
        head.addWidget(self.export_button_results, 0, Qt.AlignmentFlag.AlignTop)
        layout.addLayout(head)
        layout.addWidget(self.results_view)
        return page

    def _build_report_step(self) -> QWidget:
        page = QWidget()
        layout = QVBoxLayout(page)
        layout.addWidget(self._title(
            "Report for your DPIA",
            "A PDF with the verdict, the two-sentence summary, the plots, the metrics with their "
            "confidence intervals and the settings used, ready to attach to a data-protection "
            "impact assessment."))
        self.export_button = QPushButton("Export PDF report…")
        self.export_button.setMinimumHeight(36)
        self.export_button.clicked.connect(self.export_report)
        self.export_status = QLabel("")
        self.export_status.setWordWrap(True)
        self.export_status.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
        row = QHBoxLayout()
        row.addWidget(self.export_button)
        row.addStretch(1)
        layout.addLayout(row)
        layout.addWidget(self.export_status)
        layout.addStretch(1)
        return page

    def _build_run_bar(self) -> QWidget:
        bar = QFrame()
        bar.setObjectName("runBar")
        bar.setStyleSheet("#runBar { border-top: 1px solid #ccc; }")
        self.error_label = QLabel("")
        self.error_label.setObjectName("inlineError")
        self.error_label.setWordWrap(True)
        self.error_label.setStyleSheet("color: #c62828; font-weight: bold;")
        self.error_label.setVisible(False)
        self.run_button = QPushButton("Run audit")
        self.run_button.setMinimumHeight(34)
        self.run_button.setMinimumWidth(130)
        self.run_button.setDefault(True)
        self.run_button.setToolTip("Check the settings and run the audit.")
        self.run_button.clicked.connect(self.start_run)
        self.cancel_button = QPushButton("Cancel")
        self.cancel_button.setMinimumHeight(34)
        self.cancel_button.setToolTip("Stop the audit; your settings are kept.")
        self.cancel_button.clicked.connect(self.cancel_run)
        self.progress_bar = QProgressBar()
        self.progress_bar.setRange(0, 1000)
        self.progress_bar.setTextVisible(True)
        self.progress_bar.setFormat("%p %")
        self.status_label = QLabel("Ready.")
        self.status_label.setSizePolicy(QSizePolicy.Policy.Expanding,
                                        QSizePolicy.Policy.Preferred)
        row = QHBoxLayout()
        row.addWidget(self.run_button)
        row.addWidget(self.cancel_button)
        row.addWidget(self.progress_bar, 1)
        row.addWidget(self.status_label, 2)
        layout = QVBoxLayout(bar)
        layout.setContentsMargins(6, 6, 6, 6)
        layout.addWidget(self.error_label)
        layout.addLayout(row)
        return bar

    # ================================================================== form <-> dict

    def form_dict(self) -> dict:
        """The form as a config dict: the loaded config with every field of the form applied.

        Keys the form does not show (fpr_targets, policy name...) come from the loaded config,
        so opening a project and running it again never silently drops a setting.
        """
        d = {k: v for k, v in self._base_config.items() if k != "policy"}
        policy = dict(self._base_config.get("policy") or VerdictPolicy().to_dict())
        d["name"] = self.name_edit.text()
        d["mechanism"] = self.mechanism_combo.currentData()
        d["noise_from"] = "scale" if self.noise_from_scale.isChecked() else "epsilon"
        d["postprocess"] = self.postprocess_combo.currentData()
        d["sweep"] = self.sweep_combo.currentData()
        d["bound_interval"] = self.bound_interval_combo.currentData()
        for key, edit in self.fields.items():
            integer = NUMBER_FIELDS[key][3]
            value = _parse_value(edit.text(), integer)
            if key.startswith("policy."):
                policy[key.split(".", 1)[1]] = value
            elif key == "noise_scale":
                # Only read when the noise is given as a scale; otherwise a number typed there
                # is kept (saved with the project) and anything else is ignored.
                if d["noise_from"] == "scale" or not isinstance(value, str):
                    d[key] = value
                else:
                    d.pop(key, None)
            else:
                d[key] = value
        d["policy"] = policy
        return d

    def set_config(self, config: dict) -> None:
        """Fill the form from a config dict (validated or as saved from a half-typed form)."""
        merged = {**MechanismConfig().to_dict(), **(config or {})}
        merged["policy"] = {**VerdictPolicy().to_dict(), **(merged.get("policy") or {})}
        self._base_config = merged
        self.name_edit.setText(str(merged.get("name", "")))
        _select_data(self.mechanism_combo, merged.get("mechanism"))
        if merged.get("noise_from") == "scale":
            self.noise_from_scale.setChecked(True)
        else:
            self.noise_from_epsilon.setChecked(True)
        _select_data(self.postprocess_combo, merged.get("postprocess"))
        _select_data(self.sweep_combo, merged.get("sweep"))
        _select_data(self.bound_interval_combo, merged.get("bound_interval"))
        for key, edit in self.fields.items():
            if key.startswith("policy."):
                value = merged["policy"].get(key.split(".", 1)[1])
            else:
                value = merged.get(key)
            edit.setText(_format_value(value))
            edit.setStyleSheet("")
        self._update_noise_from()
        self._update_scale_label()
        self._update_policy_rules()
        self.clear_error()

    def validated_config(self) -> MechanismConfig:
        """The form as a MechanismConfig; InputError names the first problem."""
        return MechanismConfig.from_dict(self.form_dict(), source="settings")

    def config_for_saving(self) -> dict:
        """A validated config dict when the form is valid, else the form as typed (kept)."""
        try:
            return self.validated_config().to_dict()
        except InputError:
            return self.form_dict()

    # ================================================================== state for projects

    def result(self) -> dict | None:
        return self._result

    def decision_log(self) -> list[dict]:
        return list(self._decision_log)

    def load_state(self, config: dict, result: dict | None, decision_log: list[dict]) -> None:
        """Restore a project: the form, the results view and the decision log."""
        self.set_config(config)
        self._decision_log = list(decision_log or [])
        self.results_view.set_decision_log(self._decision_log)
        self.show_result(result)
        self.status_label.setText("Project opened." if result is None else
                                  "Project opened with its last result.")
        self.progress_bar.setValue(1000 if result else 0)
        self.export_status.setText("")
        self._update_export_enabled()
        self.step_list.setCurrentRow(STEP_RESULTS if result else STEP_RELEASE)

    def show_result(self, result: dict | None) -> None:
        self._result = result
        self.results_view.set_result(result)
        self._update_export_enabled()

    # ================================================================== running

    def is_running(self) -> bool:
        return self._job_id is not None

    def start_run(self) -> None:
        """Validate the form with the engine's rules, then run the audit on the job runner."""
        if self.is_running() or self.runner.is_busy():
            return
        self.clear_error()
        try:
            config = self.validated_config()
        except InputError as exc:
            self.show_input_error(exc)
            return
        self._base_config = {**self._base_config, **config.to_dict()}

        def audit_job(progress, cancel, config=config):
            from engine.audits.mechanism import run

            return run(config, progress=progress, cancel=cancel).to_dict()

        self.progress_bar.setValue(0)
        self.status_label.setText("Starting…")
        self._job_id = self.runner.submit(audit_job, self._on_run_done, self._on_run_error,
                                          self._on_run_progress,
                                          on_cancelled=self._on_run_cancelled,
                                          label="Mechanism audit")
        self._set_running(True)

    def cancel_run(self) -> None:
        if not self.is_running():
            return
        self.runner.cancel()
        self.cancel_button.setEnabled(False)
        self.status_label.setText("Cancelling… (stops at the next checkpoint)")

    def _on_run_progress(self, update: JobProgress) -> None:
        self.progress_bar.setValue(int(round(1000 * update.fraction)))
        eta = format_eta(update.eta_s)
        self.status_label.setText(f"{update.message} — {eta}" if eta else update.message)

    def _on_run_done(self, result: dict) -> None:
        self._job_id = None
        self._set_running(False)
        self.progress_bar.setValue(1000)
        self.status_label.setText(f"Done in {result.get('runtime_s', 0):.1f} s.")
        self.export_status.setText("")
        self.show_result(result)
        self.step_list.setCurrentRow(STEP_RESULTS)
        self.result_ready.emit(result)

    def _on_run_error(self, error: JobError) -> None:
        self._job_id = None
        self._set_running(False)
        self.status_label.setText("The audit stopped with an error.")
        if error.is_input_error:
            self.error_label.setText(error.message)
            self.error_label.setVisible(True)
        show_job_error(self, "The audit could not finish", error)

    def _on_run_cancelled(self) -> None:
        self._job_id = None
        self._set_running(False)
        self.progress_bar.setValue(0)
        self.status_label.setText("Audit cancelled. Your settings are unchanged.")

    def _set_running(self, running: bool) -> None:
        self._refresh_controls()

    def _refresh_controls(self) -> None:
        """One job at a time: Run and Export only when nothing runs, Cancel only for the audit."""
        busy = self.runner.is_busy()
        self.run_button.setEnabled(not busy)
        self.cancel_button.setEnabled(self.is_running() and busy)
        self._update_export_enabled()

    # ================================================================== inline errors

    def show_input_error(self, error: InputError) -> None:
        """Show the engine's sentence in red under the form, mark the field, go to its step."""
        text = error.one_line()
        for prefix in ("settings: ", "config: "):
            if text.startswith(prefix):
                text = text[len(prefix):]
        key = error.key or ""
        label = NUMBER_FIELDS.get(key, (None,))[0]
        self.error_label.setText(f"{label}: {text}" if label else text)
        self.error_label.setVisible(True)
        edit = self.fields.get(key)
        step = NUMBER_FIELDS[key][1] if key in NUMBER_FIELDS else OTHER_FIELD_STEPS.get(
            key.split(".")[0])
        if step is not None:
            self.step_list.setCurrentRow(step)
        if key.startswith("policy.") and not self.policy_toggle.isChecked():
            self.policy_toggle.setChecked(True)
        if edit is not None:
            edit.setStyleSheet(ERROR_STYLE)
            edit.setFocus()
        self.status_label.setText("Please correct the highlighted setting.")

    def clear_error(self) -> None:
        self.error_label.setText("")
        self.error_label.setVisible(False)
        for edit in self.fields.values():
            edit.setStyleSheet("")

    # ================================================================== report

    def _update_export_enabled(self) -> None:
        enabled = self._result is not None and not self.runner.is_busy()
        self.export_button.setEnabled(enabled)
        self.export_button_results.setEnabled(enabled)
        tip = "" if self._result is not None else "Run the audit first (step 3, “Run audit”)."
        if self._result is None and not self.export_status.text():
            self.export_status.setText(tip)
        self.export_button.setToolTip(tip)
        self.export_button_results.setToolTip(tip)

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
        result = self._result

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

    # ================================================================== small reactions

    def _on_note_added(self, entry: dict) -> None:
        self._decision_log.append(entry)
        self.decision_logged.emit(entry)

    def _update_noise_from(self) -> None:
        from_scale = self.noise_from_scale.isChecked()
        self.fields["epsilon"].setEnabled(not from_scale)
        self.fields["noise_scale"].setEnabled(from_scale)

    def _update_scale_label(self) -> None:
        mechanism = self.mechanism_combo.currentData()
        name = SCALE_NAMES.get(mechanism, "scale")
        self.scale_label.setText(f"Noise scale ({name}):")

    def _toggle_policy(self, shown: bool) -> None:
        self.policy_box.setVisible(shown)
        self.policy_toggle.setArrowType(Qt.ArrowType.DownArrow if shown
                                        else Qt.ArrowType.RightArrow)

    def _update_policy_rules(self) -> None:
        policy = self.form_dict()["policy"]
        try:
            rules = VerdictPolicy.from_dict(policy).rules()
        except InputError as exc:
            self.policy_rules_label.setText(exc.one_line())
            return
        self.policy_rules_label.setText("\n".join(rules))


def _select_data(combo: QComboBox, value) -> None:
    index = combo.findData(value)
    if index >= 0:
        combo.setCurrentIndex(index)


def _scrolled(widget: QWidget) -> QScrollArea:
    area = QScrollArea()
    area.setWidgetResizable(True)
    area.setFrameShape(QFrame.Shape.NoFrame)
    area.setWidget(widget)
    return area


def _next_hint(text: str) -> QLabel:
    label = QLabel(text)
    label.setStyleSheet("color: #1565c0;")
    return label
