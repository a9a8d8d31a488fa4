"""The DP-mechanism audit page: "What does this ε really allow an attacker to do?" (paper 002).

Release → Attacker → Attacks & run, then the Results and Report steps every audit page has
(:class:`gui.pages.audit_page.AuditPage` owns the steps, run bar, inline errors, export and
project state). This module holds only what is the mechanism audit's own: its fields with
their plain-language tooltips, the noise-given-as choice, the verdict-policy box and the
mapping between the form and a ``MechanismConfig`` dict.
"""

from __future__ import annotations

from PySide6.QtWidgets import (
    QButtonGroup,
    QFormLayout,
    QHBoxLayout,
    QLabel,
    QLineEdit,
    QRadioButton,
    QVBoxLayout,
)

from engine.audits.mechanism import MechanismConfig
from engine.data.paths import APP_FOLDER
from engine.mechanisms import MECHANISM_LABELS, SCALE_NAMES
from gui.pages.audit_page import AuditPage, FormStep, audit_steps, policy_fields
from gui.widgets.form import FieldSpec, add_row, choice_combo, select_data
from gui.widgets.mechanism_results import MechanismResultsView
from gui.widgets.steps import note

SAMPLE_CONFIG = APP_FOLDER / "resources" / "configs" / "mechanism_demo.toml"

FORM_STEPS = (
    FormStep("Release", "What is published, and how is it protected?",
             "Describe the noisy release: which differential-privacy mechanism adds noise, and "
             "how much. Hover over any field for an explanation.",
             "Next: 2 Attacker — how often each person appears."),
    FormStep("Attacker", "What does the attacker know?",
             "We assume the strongest attacker differential privacy protects against: they know "
             "everyone else's data exactly, and want to find out whether one particular person "
             "is in the data. They see every release in which that person appears.",
             "Next: 3 Attacks & run."),
    FormStep("Attacks & run", "Attacks and what-if questions",
             "The defaults suit most audits. Press Run when ready; you can keep reading while it "
             "runs."),
)
STEPS = audit_steps(FORM_STEPS)
STEP_RELEASE, STEP_ATTACKER, STEP_RUN, STEP_RESULTS, STEP_REPORT = range(len(STEPS))

POSTPROCESS_CHOICES = (("none", "None (publish the noisy value as is)"),
                       ("round", "Round to whole numbers"),
                       ("round_nonnegative", "Round, and replace negative values by 0"))
SWEEP_CHOICES = (("epsilon", "ε per observation"), ("observations", "observations per person k"))
BOUND_INTERVAL_CHOICES = (("clopper-pearson", "Clopper–Pearson (exact, recommended)"),
                          ("jeffreys", "Jeffreys (tighter, approximate)"))

# Keys are MechanismConfig fields ("policy.x" for the verdict policy). Tooltips are for privacy
# officers, not programmers.
FIELDS: dict[str, FieldSpec] = {
    "epsilon": FieldSpec(
        "ε per observation", STEP_RELEASE,
        "Privacy-loss budget for ONE release of a person's data. Smaller is more private. 1 "
        "is a common choice; above 5 gives little protection."),
    "noise_scale": FieldSpec(
        "Noise scale", STEP_RELEASE,
        "How much random noise is added to each released value (the Laplace scale b or the "
        "Gaussian standard deviation σ). Larger noise is more private."),
    "delta": FieldSpec(
        "δ (failure probability)", STEP_RELEASE,
        "Small probability that the ε guarantee does not hold. Keep it far below one over the"
        " number of people, e.g. 0.00001 (1e-5). Needed for Gaussian noise."),
    "sensitivity": FieldSpec(
        "Sensitivity", STEP_RELEASE,
        "The most one person can change one released value, e.g. 1 for a count of people. "
        "Contributions are clipped to this."),
    "observations": FieldSpec(
        "Observations per person", STEP_ATTACKER,
        "In how many released values the same person appears (e.g. 10 hourly counts). Each "
        "observation spends ε again, so risk grows with their number.", integer=True),
    "baseline_count": FieldSpec(
        "Everyone else's contribution", STEP_ATTACKER,
        "The value without the person (e.g. 100 other people in the count). The attacker is "
        "assumed to know it exactly — the worst case DP protects against."),
    "trials": FieldSpec(
        "Simulated games per case (N)", STEP_RUN,
        "How many times the membership game is played per case (person present / absent). "
        "More games give tighter confidence intervals but take longer. 20 000 is a good "
        "default.", integer=True),
    "seed": FieldSpec(
        "Random seed", STEP_RUN,
        "Any whole number. The same settings and seed always give the same numbers, so a "
        "colleague can reproduce the audit.", integer=True),
    "confidence": FieldSpec(
        "Confidence level", STEP_RUN,
        "Confidence of the intervals shown around measured numbers, e.g. 0.95 for 95 %."),
    "limit_tpr": FieldSpec(
        "Highest acceptable share of people spotted", STEP_RUN,
        "The inverse question: the largest share of people present that an attacker may spot "
        "(0.05 = 5 %) …"),
    "limit_fpr": FieldSpec(
        "… at a false-positive rate of", STEP_RUN,
        "… while wrongly accusing this share of the people absent (0.01 = 1 %). The audit "
        "then tells you the largest ε per observation that keeps to this limit."),
    **policy_fields(STEP_RUN),
}

KEY_STEPS = {"bound_interval": STEP_RUN, "name": STEP_RELEASE, "mechanism": STEP_RELEASE,
             "noise_from": STEP_RELEASE, "postprocess": STEP_RELEASE, "sweep": STEP_RUN,
             "fpr_targets": STEP_RUN, "policy": STEP_RUN}


class MechanismPage(AuditPage):
    """Form, run controls and results of one mechanism audit."""

    AUDIT_TYPE = "mechanism"
    AUDIT_LABEL = "Mechanism audit"
    CONFIG_CLASS = MechanismConfig
    FORM_STEPS = FORM_STEPS
    FIELDS = FIELDS
    KEY_STEPS = KEY_STEPS
    SAMPLE_CONFIG = SAMPLE_CONFIG

    # ================================================================== building the steps

    def build_step(self, index: int, layout: QVBoxLayout) -> None:
        (self._build_release_step, self._build_attacker_step, self._build_run_step)[index](layout)

    def build_results_view(self) -> MechanismResultsView:
        return MechanismResultsView()

    def _build_release_step(self, layout: QVBoxLayout) -> None:
        form = QFormLayout()
        self.name_edit = QLineEdit()
        self.name_edit.setToolTip("A name for this audit; it appears on the report.")
        form.addRow("Audit name:", self.name_edit)

        self.mechanism_combo = choice_combo(
            MECHANISM_LABELS.items(),
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
        self.add_field_row(form, "epsilon")
        self.scale_label = add_row(form, FIELDS["noise_scale"], self.number_field("noise_scale"))
        self.add_field_row(form, "delta")
        self.add_field_row(form, "sensitivity")

        self.postprocess_combo = choice_combo(
            POSTPROCESS_CHOICES,
            "What happens to the noisy value before publication. Rounding and clamping can only "
            "make attacks harder, never easier.")
        form.addRow("Post-processing:", self.postprocess_combo)
        layout.addLayout(form)

    def _build_attacker_step(self, layout: QVBoxLayout) -> None:
        form = QFormLayout()
        self.add_field_row(form, "observations")
        self.add_field_row(form, "baseline_count")
        layout.addLayout(form)
        layout.addWidget(note(
            "Two attackers are played against the release: the best possible attacker (the "
            "Neyman–Pearson likelihood-ratio test, the best any attacker can do) and the adding-up "
            "attacker, which simply adds up the releases. The best possible attacker is also "
            "computed exactly, from DP theory."))

    def _build_run_step(self, layout: QVBoxLayout) -> None:
        self.build_depth_box(layout)              # no attack list: the depth is the rounds
        form = QFormLayout()
        self.add_field_row(form, "trials")
        self.add_field_row(form, "seed")
        self.add_field_row(form, "confidence")
        self.sweep_combo = choice_combo(
            SWEEP_CHOICES,
            "Draw how risk changes when this setting changes (exact theory), with the current "
            "value marked.")
        form.addRow("What-if: vary", self.sweep_combo)
        self.bound_interval_combo = choice_combo(
            BOUND_INTERVAL_CHOICES,
            "How the empirical ε lower bound accounts for chance. Clopper–Pearson is exact: the "
            "bound holds with at least the stated confidence. Jeffreys is a little tighter but "
            "only approximately so; the report says which was used.")
        form.addRow("ε lower bound interval", self.bound_interval_combo)
        limit_row = QHBoxLayout()
        # The officer's words, not TPR/FPR: the same as the glossary's "members spotted while
        # wrongly accusing 1 %" and the results' answer to this question.
        limit_row.addWidget(QLabel("spots at most"))
        limit_row.addWidget(self.number_field("limit_tpr"))
        limit_row.addWidget(QLabel("of the people present while wrongly accusing"))
        limit_row.addWidget(self.number_field("limit_fpr"))
        limit_row.addWidget(QLabel("of those absent (0.05 = 5 %)"))
        limit_row.addStretch(1)
        limit_label = QLabel("Largest ε that keeps the attacker to:")
        limit_label.setToolTip("The audit answers: what is the largest ε per observation that "
                               "keeps the best attacker under this limit?")
        form.addRow(limit_label, limit_row)
        layout.addLayout(form)

        self.build_policy_box(layout)

    # ================================================================== form <-> dict

    def form_dict(self) -> dict:
        """The form as a config dict: the loaded config with every field of the form applied.

        Keys the form does not show (fpr_targets, policy name...) come from the loaded config,
        so opening a project and running it again never silently drops a setting.
        """
        d = dict(self.loaded_config)
        d["name"] = self.name_edit.text()
        d["mechanism"] = self.mechanism_combo.currentData()
        d["noise_from"] = "scale" if self.noise_from_scale.isChecked() else "epsilon"
        d["postprocess"] = self.postprocess_combo.currentData()
        d["sweep"] = self.sweep_combo.currentData()
        d["bound_interval"] = self.bound_interval_combo.currentData()
        self.apply_fields(d, skip=("noise_scale",))
        # The noise scale is only read when the noise is given as a scale; otherwise a number
        # typed there is kept (saved with the project) and anything else is ignored.
        value = self.field_values()["noise_scale"]
        if d["noise_from"] == "scale" or not isinstance(value, str):
            d["noise_scale"] = value
        else:
            d.pop("noise_scale", None)
        return d

    def fill_form(self, config: dict) -> None:
        self.name_edit.setText(str(config.get("name", "")))
        select_data(self.mechanism_combo, config.get("mechanism"))
        if config.get("noise_from") == "scale":
            self.noise_from_scale.setChecked(True)
        else:
            self.noise_from_epsilon.setChecked(True)
        select_data(self.postprocess_combo, config.get("postprocess"))
        select_data(self.sweep_combo, config.get("sweep"))
        select_data(self.bound_interval_combo, config.get("bound_interval"))
        self.fill_fields(config)
        self._update_noise_from()
        self._update_scale_label()

    # ================================================================== running


    # ================================================================== small reactions

    def _update_noise_from(self) -> None:
        from_scale = self.noise_from_scale.isChecked()
        self.fields["epsilon"].setEnabled(not from_scale)
        self.fields["noise_scale"].setEnabled(from_scale)

    def _update_scale_label(self) -> None:
        mechanism = self.mechanism_combo.currentData()
        name = SCALE_NAMES.get(mechanism, "scale")
        self.scale_label.setText(f"Noise scale ({name.removeprefix('scale ')}):")
