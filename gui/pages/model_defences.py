"""The "Defences" step of the model page (issue 9; paper 004): which defences to train, at which
settings of their knobs, what each costs before it runs, and the limit the recommendation must
keep the strongest attack under.

The step's fields are ``defences.*`` keys of the model config (engine.defences.config): lists of
knob values are typed as "0.25, 0.5, 1" — an empty field leaves that defence out, so switching a
defence off never loses what was typed. Everything is checked by the engine's own rules when the
audit runs; a wrong value is a sentence at its field.
"""

from __future__ import annotations

from PySide6.QtWidgets import (
    QCheckBox,
    QFormLayout,
    QGroupBox,
    QLabel,
    QVBoxLayout,
)

from engine.data.errors import InputError
from engine.defences.config import DefenceConfig, cost_in_models, reference_models_run
from engine.estimates import about_duration
from gui.widgets.form import FieldSpec, choice_combo, select_data
from gui.widgets.steps import note

DEFENCE_NAMES = {"none": "the undefended model", "kcd": "KCD", "dmp": "DMP", "l2": "L2",
                 "early_stopping": "early stopping", "dp_sgd": "DP-SGD"}
LIST_KEYS = ("defences.kcd_alphas", "defences.dmp_temperatures", "defences.l2_weight_decays",
             "defences.early_stopping_epochs", "defences.dpsgd_noise_multipliers",
             "defences.dpsgd_target_epsilons")
INTEGER_LISTS = ("defences.early_stopping_epochs",)
LIMIT_CHOICES = (("tpr", "Members spotted (TPR) at a false-positive rate"),
                 ("accuracy", "Attack's balanced accuracy (0.5 = guessing)"),
                 ("auc", "Attack's AUC (0.5 = guessing)"),
                 ("advantage", "Attack's advantage (TPR − FPR at its best threshold)"),
                 ("epsilon", "Empirical ε lower bound certified by the attacks"))
# Engine keys of errors raised while the defences train, mapped to the field that fixes them.
ENGINE_KEYS = {"alpha": "defences.kcd_alphas", "n_teachers": "defences.kcd_teachers",
               "temperature": "defences.dmp_temperatures",
               "reference": "defences.dmp_reference",
               "reference_size": "defences.dmp_reference_size",
               "drop_high_entropy": "defences.dmp_drop_high_entropy",
               "noise_multiplier": "defences.dpsgd_noise_multipliers",
               "target_epsilon": "defences.dpsgd_target_epsilons",
               "limit": "defences.limit_value", "limit.value": "defences.limit_value",
               "limit.fpr": "defences.limit_fpr", "limit.metric": "defences.limit_metric"}


def defence_fields(step: int) -> dict[str, FieldSpec]:
    """The step's fields (config keys ``defences.x``), tooltips for privacy officers."""
    return {
        "defences.kcd_alphas": FieldSpec(
            "Cross-distillation: mixing shares (α)", step,
            "Knowledge cross-distillation (paper 004, Alg. 2) needs no extra data: the records "
            "are split into parts, a teacher model is trained without each part, and the final "
            "model learns each record from a teacher that never saw it. α weighs the teachers' "
            "answers against the true labels: 0 = no defence, 1 = teachers only. Several "
            "values, e.g. 0, 0.5, 1; empty = not tested.", text=True),
        "defences.kcd_teachers": FieldSpec(
            "Cross-distillation: teacher models", step,
            "How many parts (and teachers). 5 in the paper; each is one more model to train.",
            integer=True),
        "defences.dmp_temperatures": FieldSpec(
            "Distillation: temperatures", step,
            "Distillation for membership privacy (paper 004, Alg. 1): the final model learns "
            "only from the audited model's soft answers on reference records it was never "
            "trained on. The temperature softens those answers. e.g. 1, 2, 4; empty = not "
            "tested.", text=True),
        "defences.dmp_reference": FieldSpec(
            "Distillation: reference records (optional)", step,
            "A CSV of records like the training data (same columns, the label may be missing) "
            "that were not used for training. Empty: the records set aside for the attacker "
            "are used.", text=True),
        "defences.dmp_drop_high_entropy": FieldSpec(
            "Distillation: share of uncertain records removed", step,
            "Paper 004 §2.3: removing the reference records the model is least sure about "
            "can improve privacy (0 = keep all, 0.2 = remove the most uncertain fifth)."),
        "defences.dmp_reference_size": FieldSpec(
            "Distillation: reference records used", step,
            "How many reference records DMP learns from (0 = all).", integer=True),
        "defences.l2_weight_decays": FieldSpec(
            "Weight decay: strengths", step,
            "The classic regulariser, for comparison: it needs no extra data. e.g. 0.0001, "
            "0.001, 0.01; empty = not tested.", text=True),
        "defences.early_stopping_epochs": FieldSpec(
            "Early stopping: epochs", step,
            "Stop training after fewer passes over the records, for comparison (one run for "
            "all the values). e.g. 5, 10; empty = not tested.", text=True),
        "defences.dpsgd_noise_multipliers": FieldSpec(
            "Private training: noise multipliers", step,
            "Differentially private training (Opacus): each record's influence is clipped and "
            "noise is added; more noise = a smaller ε = more privacy and less accuracy. "
            "e.g. 0.5, 1, 2; empty = none at a fixed noise.", text=True),
        "defences.dpsgd_target_epsilons": FieldSpec(
            "Private training: target ε values", step,
            "Or ask for the privacy guarantee directly: the noise is found for each ε (at the "
            "δ shown with the results). e.g. 1, 3, 8; empty = none.", text=True),
        "defences.dpsgd_clip_norm": FieldSpec(
            "Private training: clipping norm", step,
            "The most one record's gradient may weigh (C; 1 is common)."),
        "defences.limit_value": FieldSpec(
            "Limit", step,
            "The recommendation is the most accurate setting whose strongest attack stays at "
            "or under this value (a TPR of 0.02 = 2 % of members spotted)."),
        "defences.limit_fpr": FieldSpec(
            "At false-positive rate", step,
            "For a TPR limit: the share of non-members the attacker may wrongly accuse "
            "(0.01 = 1 %)."),
    }


def parse_list(text: str, integer: bool = False) -> list:
    """"0.25, 0.5; 1" → [0.25, 0.5, 1.0]. A token that is not a number is kept as typed, so
    the engine's sentence names it; empty text is the empty list (the defence is off)."""
    out: list = []
    for token in text.replace(";", ",").replace(",", " ").split():
        try:
            value = float(token)
        except ValueError:
            out.append(token)
            continue
        out.append(int(value) if integer and value.is_integer() else value)
    return out


def format_list(values) -> str:
    """[0.0, 0.25, 1.0] → "0, 0.25, 1" (a value that is not a list is shown as it is)."""
    if not isinstance(values, list | tuple):
        return "" if values is None else str(values)
    return ", ".join(f"{v:g}" if isinstance(v, float) else str(v) for v in values)


def defence_times(config: dict) -> dict[str, float] | None:
    """Seconds of each defence of the sweep (engine.estimates.model.defence_seconds, the
    calibrated cost model the run bar's estimate uses), or None while the form is invalid."""
    from engine.audits.model import ModelConfig
    from engine.estimates.model import defence_seconds
    try:
        return defence_seconds(ModelConfig.from_dict(config, source="settings"))
    except Exception:  # noqa: BLE001 - an invalid form or no calibration: counts only
        return None


def cost_sentence(config: dict, records: int | None = None) -> tuple[str, dict[str, str]]:
    """(the whole sweep in a sentence, a sentence per defence) before anything runs: model
    trainings per defence and, once the whole form is valid, the estimated time (its students
    trained until they converge; attacks included). ``records`` is not needed any more (the
    estimate reads the data's size itself) and kept for callers."""
    try:
        d = DefenceConfig.from_dict(config.get("defences") or {}, source="settings")
    except InputError:
        return "The cost is estimated once the values above are valid.", {}
    attacks = config.get("attacks")     # None: the audit's defaults, which include LiRA
    costs = cost_in_models(d, attacks)  # models; their time is the calibrated estimate's
    n_ref = reference_models_run(d, attacks)
    times = defence_times(config)
    per: dict[str, str] = {}
    for name, models in costs.items():
        if name == "none":
            continue
        text = f"≈ {models:g} models trained"
        if name == "dp_sgd":
            text += " (per-sample gradients: each much slower than a plain model)"
        if times and name in times:
            text += ", " + about_duration(times[name])
        per[name] = text
    total = sum(costs.values())
    if len(costs) == 1:
        return "No defence is chosen: fill in at least one list of values.", per
    sentence = (f"About {total:g} models trained in all (the undefended model again, then "
                + ", ".join(f"{DEFENCE_NAMES[n]} {c:g}" for n, c in costs.items()
                            if n != "none") + "), each attacked")
    if times:
        sentence += (f": {about_duration(sum(times.values()))} on a 2-core CPU, less "
                     "on a GPU (distilled students train until they converge)")
    return sentence + "." + reference_cost_words(n_ref), per


def reference_cost_words(n_ref: int) -> str:
    """The defended reference models in words, before Run (issue 22 item 1: the cost up
    front)."""
    if not n_ref:
        return (" The attacks that train copies of the model are not re-run on the defended "
                "models, so the defences are judged on weaker attacks than the audit's "
                "verdict.")
    return (f" This is the audit's heaviest job: so that the attacks that train copies of the "
            f"model can be re-run on every setting, each setting is also trained as {n_ref} "
            "copies with the same defence — the whole sweep again for every copy.")


class DefencesStep:
    """Builds the step's widgets on a :class:`~gui.pages.model_page.ModelPage` and maps them
    to and from the config dict (the page owns the fields, this object the rest)."""

    def __init__(self, page, layout: QVBoxLayout) -> None:
        self.page = page
        self.enabled_box = QCheckBox("Test defences when the audit runs")
        self.enabled_box.setToolTip(
            "Retrain the model with each defence below, attack every version the same way, "
            "and place them on one privacy–utility chart with a recommendation. Needs the "
            "model to be trained here (not a predictions file), as a neural network.")
        self.enabled_box.setStyleSheet("font-weight: bold;")
        self.enabled_box.toggled.connect(self._update_enabled)
        layout.addWidget(self.enabled_box)
        self.availability = QLabel("")
        self.availability.setWordWrap(True)
        self.availability.setStyleSheet("color: #b26a00;")
        layout.addWidget(self.availability)

        self.cost_labels: dict[str, QLabel] = {}
        self.boxes: list[QGroupBox] = []
        groups = (
            ("kcd", "Cross-distillation: teachers that never saw each record (KCD; no extra data)",
             ("defences.kcd_alphas", "defences.kcd_teachers")),
            ("dmp", "Distillation on reference records (DMP)",
             ("defences.dmp_temperatures", "defences.dmp_reference",
              "defences.dmp_drop_high_entropy", "defences.dmp_reference_size")),
            ("l2", "Weight decay (L2; classic, for comparison)",
             ("defences.l2_weight_decays",)),
            ("early_stopping", "Early stopping (classic, for comparison)",
             ("defences.early_stopping_epochs",)),
            ("dp_sgd", "Private training with noise (DP-SGD, differentially private)",
             ("defences.dpsgd_noise_multipliers", "defences.dpsgd_target_epsilons",
              "defences.dpsgd_clip_norm")),
        )
        for name, title, keys in groups:
            box = QGroupBox(title)
            form = QFormLayout(box)
            for key in keys:
                if key == "defences.dmp_reference":
                    self.reference_edit, self.reference_status = page.path_row(
                        form, key, "Choose a CSV of reference records")
                    edit = self.reference_edit
                else:
                    edit = page.add_field_row(form, key)
                    if key in LIST_KEYS:
                        edit.setPlaceholderText("empty = not tested")
                edit.textEdited.connect(self.update_cost)
            cost = QLabel("")
            cost.setStyleSheet("color: #444;")
            form.addRow("Cost:", cost)
            self.cost_labels[name] = cost
            self.boxes.append(box)
            layout.addWidget(box)

        limit_box = QGroupBox("The limit the recommendation must keep")
        limit_form = QFormLayout(limit_box)
        self.limit_combo = choice_combo(
            LIMIT_CHOICES, "Which measure of the strongest attack the limit is on.")
        self.limit_combo.currentIndexChanged.connect(self._update_limit)
        limit_form.addRow("Measure:", self.limit_combo)
        page.add_field_row(limit_form, "defences.limit_value")
        self.limit_fpr_edit = page.add_field_row(limit_form, "defences.limit_fpr")
        self.upper_box = QCheckBox("Cautious: the upper end of the 95 % interval must meet "
                                   "the limit, not just the estimate")
        self.upper_box.setToolTip("With few records the estimate may be under the limit by "
                                  "chance; the cautious reading guards against that.")
        limit_form.addRow(self.upper_box)
        self.limit_text = note("")
        limit_form.addRow(self.limit_text)
        self.boxes.append(limit_box)
        layout.addWidget(limit_box)
        for key in ("defences.limit_value", "defences.limit_fpr"):
            page.fields[key].textEdited.connect(self._update_limit)
        self.upper_box.toggled.connect(self._update_limit)

        self.total_label = QLabel("")
        self.total_label.setWordWrap(True)
        layout.addWidget(self.total_label)
        layout.addWidget(note(
            "Every defended model is attacked as paper 004 §4.3 does: the attacker knows half "
            "of the training records and half of the others (the same halves for every "
            "setting) and is measured on the rest. When the audit runs the attacks that train "
            "copies of the model (LiRA, RMIA), they are re-run on every defended model with "
            "copies trained under the same defence: the attacker knows the defence."))

    # ------------------------------------------------------------------ form <-> dict

    def write(self, d: dict) -> None:
        """The step's widgets into the config dict ``d`` (its fields are already in it)."""
        defences = dict(d.get("defences") or {})
        for key in LIST_KEYS:
            name = key.split(".", 1)[1]
            defences[name] = parse_list(self.page.fields[key].text(), key in INTEGER_LISTS)
        defences["enabled"] = self.enabled_box.isChecked()
        defences["limit_metric"] = self.limit_combo.currentData()
        defences["limit_use_upper"] = self.upper_box.isChecked()
        defences["dmp_reference"] = self.reference_edit.text()
        d["defences"] = defences

    def read(self, config: dict) -> None:
        """Show ``config``'s defences (the page has filled the plain number fields)."""
        defences = config.get("defences") if isinstance(config.get("defences"), dict) else {}
        defaults = DefenceConfig().to_dict()
        for key in LIST_KEYS:
            name = key.split(".", 1)[1]
            self.page.fields[key].setText(format_list(defences.get(name, defaults[name])))
        self.enabled_box.setChecked(defences.get("enabled") is True)
        select_data(self.limit_combo, defences.get("limit_metric", "tpr"))
        self.upper_box.setChecked(defences.get("limit_use_upper") is True)
        self.reference_edit.setText(str(defences.get("dmp_reference") or ""))
        self._update_enabled()
        self._update_limit()

    # ------------------------------------------------------------------ updates

    def set_available(self, reason: str) -> None:
        """"" when defences can run with the current data & model, else why not."""
        self.availability.setText(reason)
        self.availability.setVisible(bool(reason))

    def _update_enabled(self, *_args) -> None:
        on = self.enabled_box.isChecked()
        for box in self.boxes:
            box.setEnabled(on)
        self.update_cost()

    def _update_limit(self, *_args) -> None:
        tpr = self.limit_combo.currentData() == "tpr"
        self.limit_fpr_edit.setEnabled(tpr)
        d: dict = {}
        self.page.apply_fields(d)
        self.write(d)
        try:
            limit = DefenceConfig.from_dict(d["defences"], source="settings").risk_limit()
            self.limit_text.setText(f"Recommend the most accurate setting with "
                                    f"{limit.describe()}.")
        except InputError as exc:
            self.limit_text.setText(" ".join(str(exc).split()))

    def update_cost(self, *_args) -> None:
        page = self.page
        if getattr(page, "_filling", False):
            return
        if not self.enabled_box.isChecked():
            self.total_label.setText("Defences are not tested (tick the box above to test "
                                     "them).")
            for label in self.cost_labels.values():
                label.setText("")
            return
        d = page.form_dict()
        total, per = cost_sentence(d, page.defence_records())
        self.total_label.setText("Cost before running: " + total)
        for name, label in self.cost_labels.items():
            label.setText(per.get(name, "not tested"))
