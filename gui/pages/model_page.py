"""The machine-learning model audit page: "Does this model reveal who it was trained on?"
(papers 001 and 004 §4).

Data & model → Attacks & run, then the Results and Report steps every audit page has
(:class:`gui.pages.audit_page.AuditPage` owns the steps, run bar, inline errors, export and
project state). This module holds only what is this audit's own: its fields with their
plain-language tooltips, the attack check list with a cost estimate before running, and the
mapping between the form and a ``ModelConfig`` dict. The data step — the two ways in (train in
the app from a CSV or a synthetic dataset, or bring the model's predictions) and the columns of
a training CSV, saved with the project as ``schema`` — is :mod:`gui.pages.model_data_step`; the
defences step is :mod:`gui.pages.model_defences`.
"""

from __future__ import annotations

from pathlib import Path

from PySide6.QtWidgets import (
    QCheckBox,
    QComboBox,
    QFormLayout,
    QGridLayout,
    QLabel,
    QVBoxLayout,
)

from engine.audits.model import (
    ATTACKS,
    DEFAULT_ATTACKS,
    ModelConfig,
)
from engine.data.errors import InputError
from engine.data.paths import APP_FOLDER
from engine.data.tabular import TabularSchema
from engine.games.model import NEEDS_REFERENCE
from gui.pages.audit_page import (
    AuditPage,
    FormStep,
    audit_steps,
    plain_sentence,
    policy_fields,
    run_fields,
    show_status,
)
from gui.pages.model_data_step import NO_SENSITIVE, ModelDataStep, wide_combo
from gui.pages.model_defences import ENGINE_KEYS, DefencesStep, defence_fields
from gui.widgets.form import (
    FieldSpec,
    attack_box_texts,
    select_data,
)
from gui.widgets.model_results import ModelResultsView
from gui.widgets.schema_table import error_sentence

SAMPLE_CONFIG = APP_FOLDER / "resources" / "configs" / "model_demo.toml"
SAMPLE_DATA = "resources/model/mixed_sample.csv"
SYNTHETIC_CLASSES = {"purchase": 100, "mixed": 2}

FORM_STEPS = (
    FormStep("Data & model", "Which model, trained on which records?",
             "Train the model here from a CSV of records (or a synthetic dataset to try the "
             "audit out), or bring the predictions of a model built elsewhere — no model file "
             "is ever loaded or executed.",
             "Next: 2 Attacks & run."),
    FormStep("Attacks & run", "Attacks and how much the attacker may train",
             "An outsider queries the model and tries to tell whether a person's record was in "
             "its training data. The attacker learns from look-alike models (shadow models, "
             "trained on data from the same population) or, for the copies-of-your-model and "
             "comparison-with-other-records attacks, from reference models trained like the "
             "audited one. The defaults suit most audits.",
             "Next: 3 Defences (optional), or Run audit."),
    FormStep("Defences", "What would make the model safer, and at what cost?",
             "Optional. The model is trained again with each defence below, every version is "
             "attacked the same way, and all are placed on one chart of accuracy against risk, "
             "with the setting that keeps the risk under your limit at the least cost in "
             "accuracy (paper 004)."),
)
STEPS = audit_steps(FORM_STEPS)
STEP_DATA, STEP_ATTACKS, STEP_DEFENCES, STEP_RESULTS, STEP_REPORT = range(len(STEPS))

PARTITION_CHOICES = (("PTL", "PTL: by true label"), ("PPL", "PPL: by predicted label"),
                     ("PTC", "PTC: by confidence in the true label"),
                     ("PPC", "PPC: by confidence in the predicted label"),
                     ("PTL+PTC", "PTL+PTC: true label × its confidence"),
                     ("PPL+PPC", "PPL+PPC: predicted label × its confidence"))
ATTRIBUTE_CHOICES = (("logistic", "Logistic regression"),
                     ("boosting", "Gradient boosting (slower, finds interactions)"))
# The attacks in plain words (the engine's labels carry the papers).
ATTACK_TEXTS = {
    "btta": "BTTA: a record the model gets right is called a member (paper 001, Alg. 1)",
    "cbtta": "Categorical BTTA: the same, group by group (paper 001)",
    "correctness": "Correctness: right label ⇒ member (Yeom et al.)",
    "confidence": "Confidence in the true class, a threshold per class (Song and Mittal)",
    "entropy": "Uncertainty of the prediction (entropy), per class",
    "modified_entropy": "Modified entropy, per class (Song and Mittal)",
    "top1": "Top-1 confidence (Salem et al.)",
    "ml_leaks": "ML-Leaks: an attack model on the top probabilities (Salem et al.)",
    "shokri": "Shadow-model attack: one attack model per class (Shokri et al.)",
    "lira_online": "LiRA online: compares with reference models trained with and without "
                   "each record (strongest, slowest)",
    "lira_offline": "LiRA offline: reference models trained without the record",
    "rmia": "RMIA: relative membership against the population (Zarifzadeh et al.)",
    "label_only": "Label-only: uses only the predicted label",
}
SHADOW_ATTACKS = ("btta", "cbtta", "correctness", "confidence", "entropy", "modified_entropy",
                  "top1", "ml_leaks", "shokri")

# Keys are ModelConfig fields ("policy.x" for the verdict policy). Tooltips are for privacy
# officers, not programmers.
FIELDS: dict[str, FieldSpec] = {
    "data": FieldSpec(
        "Records file", STEP_DATA,
        "The CSV of the records the model learns from: one row per person, a header naming "
        "the columns, one of them the label the model predicts. Relative paths are read from "
        "the app folder.", text=True),
    "synthetic_records": FieldSpec(
        "Records generated", STEP_DATA,
        "How many synthetic records are generated (the sample: 4,000).", integer=True),
    "label": FieldSpec(
        "Label column", STEP_DATA,
        "The column the model predicts. Empty: a column named label, class, target or y. The "
        "Role column of the table below follows it, and it follows the table.", text=True),
    "member_column": FieldSpec(
        "Members column (optional)", STEP_DATA,
        "A 0/1 column saying which records the model was trained on (1). Empty: the app "
        "draws the training records at random (seeded). The table below follows it, and it "
        "follows the table.", text=True),
    "attacker_fraction": FieldSpec(
        "Attacker's share", STEP_DATA,
        "The share of the records given to the attacker as data from the same population; "
        "the model never trains on them (0.5 = half; then its look-alike models train on as many records as the audited one)."),
    "train_fraction": FieldSpec(
        "Training share", STEP_DATA,
        "The share of the other records the model trains on; the rest are the non-members "
        "it is compared with (0.5 = half)."),
    "epochs": FieldSpec(
        "Epochs", STEP_DATA,
        "How many passes over the training records the neural network makes. More epochs "
        "usually mean more overfitting, and more exposure.", integer=True),
    "batch_size": FieldSpec(
        "Batch size", STEP_DATA,
        "Records per training step of the neural network.", integer=True),
    "weight_decay": FieldSpec(
        "Weight decay", STEP_DATA,
        "L2 regularisation of the neural network or logistic regression, e.g. 0.0005; 0 = "
        "none. Regularisation usually lowers the exposure."),
    "predictions": FieldSpec(
        "Predictions file", STEP_DATA,
        "A CSV with, per record, the model's outputs (p_<class> columns, or logit_<class>, "
        "or loss), the true label and member (1 = trained on).", text=True),
    "reference_predictions": FieldSpec(
        "Shadow predictions (optional)", STEP_DATA,
        "A second CSV of the same columns from a look-alike model trained on other data: "
        "the attacker learns from it. Empty: the attacker is assumed to know half of the "
        "members and non-members and is measured on the rest.", text=True),
    "shadow_models": FieldSpec(
        "Shadow models", STEP_ATTACKS,
        "Look-alike models the attacker trains on halves of its own data (paper 001: 8 or "
        "more). More make the threshold-based attacks steadier.", integer=True),
    "reference_models": FieldSpec(
        "Reference models", STEP_ATTACKS,
        "Models trained like the audited one on halves of the candidate records, for LiRA "
        "and RMIA (16 is a good start; 64+ for the strongest LiRA).", integer=True),
    "exposed_count": FieldSpec(
        "Most exposed records listed", STEP_ATTACKS,
        "How many of the training records the strongest attack is surest about are listed "
        "(row numbers).", integer=True),
    **run_fields(STEP_ATTACKS),
    **policy_fields(STEP_ATTACKS),
    **defence_fields(STEP_DEFENCES),
    "compute.cluster": FieldSpec(
        "Train the copies of the model on", STEP_ATTACKS,
        "Where the shadow and reference models, and the defended models with theirs, are "
        "trained. Empty: on this computer. \"local\": a private Ray instance on this "
        "computer. A Ray address such as ray://head:10001: that cluster — it receives your "
        "records, so use only a cluster on a trusted network (docs/methods/scale.md).",
        text=True),
}
# Fields the form assembles itself (paths by source).
SPECIAL_KEYS = ("data", "predictions", "reference_predictions")

KEY_STEPS = {"name": STEP_DATA, "audit_type": STEP_DATA, "schema_version": STEP_DATA,
             "source": STEP_DATA, "synthetic": STEP_DATA, "schema": STEP_DATA,
             "role": STEP_DATA, "columns": STEP_DATA,
             "family": STEP_DATA, "architecture": STEP_DATA, "prediction_kind": STEP_DATA,
             "attacks": STEP_ATTACKS, "cbtta_partition": STEP_ATTACKS,
             "list_exposed_records": STEP_ATTACKS, "fpr_targets": STEP_ATTACKS,
             "sensitive_feature": STEP_ATTACKS, "attribute_classifier": STEP_ATTACKS,
             "policy": STEP_ATTACKS, "defences": STEP_DEFENCES, "compute": STEP_ATTACKS}


def cost_estimate(config: dict, classes: int | None, records: int | None = None
                  ) -> tuple[str, bool]:
    """(sentence, is a warning): roughly how much training the run asks for, before it
    starts. Rough on purpose: models to train × records × epochs. ``records``: the CSV's
    record count when it is known."""
    attacks = set(config.get("attacks") or [])
    if config.get("source") == "predictions":
        return ("No model is trained: the attacks read the predictions, which takes seconds "
                "to a minute.", False)
    n = config.get("synthetic_records") if not config.get("data") else records
    shadows = config.get("shadow_models") if attacks & set(SHADOW_ATTACKS) else 0
    references = config.get("reference_models") if attacks & set(NEEDS_REFERENCE) else 0
    try:
        shadows, references = int(shadows or 0), int(references or 0)
        attacker = float(config.get("attacker_fraction"))
        train = float(config.get("train_fraction"))
        epochs = int(config.get("epochs")) if config.get("family") == "mlp" else 1
    except (TypeError, ValueError):
        return "The cost is estimated once the numbers above are valid.", False
    models = 1 + shadows + references
    text = (f"About {models:,} models to train (1 audited, {shadows:,} shadow, "
            f"{references:,} reference)")
    warn = False
    if isinstance(n, int) and n > 0:
        passes = epochs * n * ((1 - attacker) * train + shadows * attacker / 2
                               + references * (1 - attacker) / 2)
        text += (f", about {passes / 1e6:,.2g} million record-passes (records × epochs); "
                 "the time and memory this takes are estimated beside the Run button.")
    else:
        text += "; the time grows with the records × epochs of your file."
    if config.get("family") == "gradient_boosting" and (classes or 2) > 10:
        text += (f" Gradient boosting trains one set of trees per class: with {classes:,} "
                 f"classes each of the {models:,} models takes minutes.")
        warn = True
    elif config.get("family") in ("random_forest", "gradient_boosting") and models > 10:
        text += " Forests and boosting train one model after another: this may take minutes."
        warn = True
    return text, warn


# ====================================================================== the page

class ModelPage(ModelDataStep, AuditPage):
    """Data & model → Attacks & run for the machine-learning model audit."""

    AUDIT_TYPE = "model"
    AUDIT_LABEL = "Model audit"
    CONFIG_CLASS = ModelConfig
    FORM_STEPS = FORM_STEPS
    FIELDS = FIELDS
    KEY_STEPS = KEY_STEPS
    SAMPLE_CONFIG = SAMPLE_CONFIG
    BROWSE_FOLDER = APP_FOLDER / "resources" / "model"

    @classmethod
    def default_config(cls) -> dict:
        return ModelConfig().to_dict()

    # ================================================================== building the steps

    def build_step(self, index: int, layout: QVBoxLayout) -> None:
        (self._build_data_step, self._build_attacks_step, self._build_defences_step)[index](
            layout)

    def build_results_view(self) -> ModelResultsView:
        view = ModelResultsView()
        view.defences_view.export_requested.connect(self.export_defended_model)
        return view

    def _build_defences_step(self, layout: QVBoxLayout) -> None:
        self._tradeoff = None           # the fitted defended models of this session's run
        self._tradeoff_config = None
        self.defences_step = DefencesStep(self, layout)

    def _build_attacks_step(self, layout: QVBoxLayout) -> None:
        custom = self.build_depth_box(layout)     # the attack list shows under Custom only
        label = QLabel("Membership-inference attacks:")
        label.setStyleSheet("font-weight: bold;")
        custom.addWidget(label)
        grid = QGridLayout()
        self.attack_boxes: dict[str, QCheckBox] = {}
        for i, name in enumerate(ATTACKS):
            text, tip = attack_box_texts(name, ATTACK_TEXTS.get(name, name.replace("_", " ")))
            box = QCheckBox(text)
            box.setToolTip(tip)
            box.toggled.connect(self.update_cost)
            self.attack_boxes[name] = box
            grid.addWidget(box, i, 0)
        grid.setColumnStretch(1, 1)
        custom.addLayout(grid)

        form = QFormLayout()
        for key in ("shadow_models", "reference_models"):
            self.add_field_row(form, key).textEdited.connect(self.update_cost)
        self.partition_combo = wide_combo(
            PARTITION_CHOICES, "How Categorical BTTA groups the records before it estimates "
                               "each group's train and test accuracy (paper 001).")
        form.addRow("Groups of the typical-output check by group:", self.partition_combo)
        self.sensitive_combo = QComboBox()
        self.sensitive_combo.setEditable(True)
        self.sensitive_combo.setInsertPolicy(QComboBox.InsertPolicy.NoInsert)
        self.sensitive_combo.setToolTip(
            "Attribute inference: can an outsider who knows a person's other features learn "
            "this one (a diagnosis, an ethnicity) from the model's outputs? Measured beside "
            "the same guess without the model, for training records and others apart. "
            f"{NO_SENSITIVE} = not run. Needs records (not a predictions file).")
        self.sensitive_combo.currentTextChanged.connect(self.update_cost)
        form.addRow("Feature an outsider tries to learn:", self.sensitive_combo)
        self.attribute_combo = wide_combo(
            ATTRIBUTE_CHOICES, "The attacker's predictor for the sensitive feature (trained on "
                               "its own records, where it knows the value).")
        form.addRow("How the outsider guesses it:", self.attribute_combo)
        self.add_field_row(form, "exposed_count")
        self.list_records_box = QCheckBox("List the exposed records' labels in the results")
        self.list_records_box.setToolTip(
            "Off by default: the results list the most exposed records by row number only. "
            "Turn on only if you may see their labels; they are saved in the project file.")
        form.addRow(self.list_records_box)
        self.add_field_row(form, "seed")
        self.add_field_row(form, "confidence")
        self.add_field_row(form, "compute.cluster").setPlaceholderText("this computer")
        layout.addLayout(form)
        self.cost_label = QLabel("")
        self.cost_label.setWordWrap(True)
        layout.addWidget(self.cost_label)
        self.build_policy_box(layout)
        for key in ("synthetic_records", "epochs", "attacker_fraction", "train_fraction"):
            self.fields[key].textEdited.connect(self.update_cost)

    # ================================================================== form <-> dict

    def _records_choice(self) -> str:
        return self.records_combo.currentData()

    def form_dict(self) -> dict:
        """The form as a config dict, on top of the loaded config (keys the form does not
        show, such as fpr_targets, are kept). The columns table is the schema, as edited."""
        d = dict(self.loaded_config)
        d["name"] = self.name_edit.text()
        self.apply_fields(d, skip=SPECIAL_KEYS)
        d["source"] = "train" if self.source_train.isChecked() else "predictions"
        choice = self._records_choice()
        d["data"] = self.data_edit.text() if choice == "csv" else ""
        if choice == "csv":
            d["schema"] = self.schema_editor.schema_dict()
        else:
            d["synthetic"] = choice
            d["schema"] = {}
        d["family"] = self.family_combo.currentData()
        d["architecture"] = self.architecture_combo.currentData()
        d["predictions"] = self.predictions_edit.text()
        d["reference_predictions"] = self.reference_edit.text()
        d["prediction_kind"] = self.kind_combo.currentData()
        d["attacks"] = [n for n, box in self.attack_boxes.items() if box.isChecked()]
        d["cbtta_partition"] = self.partition_combo.currentData()
        d["list_exposed_records"] = self.list_records_box.isChecked()
        sensitive = self.sensitive_combo.currentText().strip()
        d["sensitive_feature"] = "" if sensitive == NO_SENSITIVE else sensitive
        d["attribute_classifier"] = self.attribute_combo.currentData()
        if hasattr(self, "defences_step"):       # built after steps 1 and 2
            self.defences_step.write(d)
        return d

    def fill_form(self, config: dict) -> None:
        self._filling = True
        try:
            self.name_edit.setText(str(config.get("name", "")))
            self.fill_fields(config)
            self.data_edit.setText(str(config.get("data") or ""))
            schema = config.get("schema") if config.get("data") else {}
            self.schema_editor.set_schema(schema if isinstance(schema, dict) else {})
            self.predictions_edit.setText(str(config.get("predictions") or ""))
            self.reference_edit.setText(str(config.get("reference_predictions") or ""))
            select_data(self.records_combo, "csv" if config.get("data")
                        else config.get("synthetic", "purchase"))
            select_data(self.family_combo, config.get("family"))
            select_data(self.architecture_combo, config.get("architecture"))
            select_data(self.kind_combo, config.get("prediction_kind"))
            select_data(self.partition_combo, config.get("cbtta_partition"))
            chosen = config.get("attacks")
            chosen = set(chosen if isinstance(chosen, (list, tuple)) else DEFAULT_ATTACKS)
            for name, box in self.attack_boxes.items():
                box.setChecked(name in chosen)
            self.list_records_box.setChecked(config.get("list_exposed_records") is True)
            if hasattr(self, "defences_step"):
                self.defences_step.read(config)
            select_data(self.attribute_combo, config.get("attribute_classifier"))
            self._refresh_sensitive(str(config.get("sensitive_feature") or ""))
            (self.source_predictions if config.get("source") == "predictions"
             else self.source_train).setChecked(True)
            for label in (self.data_status, self.predictions_status, self.reference_status):
                show_status(label, "")
            self._csv_classes = self._csv_records = None
            self._previewed = ""
            self._recheck_timer.stop()
        finally:
            self._filling = False
        self._update_source()
        self._update_family()
        if config.get("data"):
            if self.schema_editor.column_names():
                # A hand-edited project: typed names move the roles (an empty field, as in
                # the engine, leaves the table's role where it is).
                self._apply_column_fields(empty_member_clears=False)
            self.preview_data()
        self.update_cost()

    # ================================================================== running

    def take_attachments(self, attachments: dict, config) -> None:
        """The defended models of this run's trade-off (AuditResult.attachments; the job hands
        them back with the result), kept for their export."""
        self._tradeoff = attachments.get("tradeoff")
        self._tradeoff_config = config

    # ================================================================== exporting a defended model

    def export_defended_model(self, index: int) -> None:
        """Save the model of trade-off row ``index`` (weights, card, predictions) in a folder
        the user chooses, on the job runner. The models of this session's run are written as
        they are; after the project was reopened the setting is trained again (the same seed
        gives the same model)."""
        from PySide6.QtWidgets import QFileDialog

        from engine.audits.model import export_setting
        from engine.results.loaded import load_result

        result = self.result()
        view = self.results_view.defences_view
        if result is None or self.runner.is_busy():
            view.show_export_status("Wait for the running job to finish, then export.", True)
            return
        folder = QFileDialog.getExistingDirectory(self, "Choose a folder for the model files",
                                                  str(Path.home()))
        if not folder:
            return
        trade = self._tradeoff if (self._tradeoff is not None and self._tradeoff_config
                                   is not None and self._tradeoff_config.to_dict()
                                   == dict(load_result(result).config)) else None
        view.show_export_status("Exporting…" if trade is not None else
                                "Training the setting again to export it (same seed, same "
                                "model)…")

        def job(progress, cancel):
            return export_setting(result, index, folder, tradeoff=trade, progress=progress,
                                  cancel=cancel)

        def done(paths) -> None:
            names = ", ".join(Path(v).name for v in paths.values())
            view.show_export_status(f"Saved in {folder}: {names}.")

        def failed(error) -> None:
            view.show_export_status(plain_sentence(error.message), True)

        self.runner.submit(job, done, failed, self._on_run_progress,
                           label="Exporting the model")

    def validated_config(self):
        """The engine's rules, plus: "Records from a CSV file" with no file chosen is a
        sentence at the field (the engine would quietly use the synthetic dataset)."""
        config = super().validated_config()
        if config.source == "train" and self._records_choice() == "csv":
            if not self.data_edit.text().strip():
                raise InputError("choose the CSV file of records (Browse…), or pick a "
                                 "synthetic dataset under Records.", source="settings",
                                 key="data")
            if config.schema:       # the engine checks the columns when it loads the file
                try:
                    TabularSchema.from_dict(config.schema, source="schema")
                except InputError as exc:
                    raise InputError(f"Columns of the file: {error_sentence(exc)}",
                                     source="settings", key=exc.key or "schema") from None
        return config

    def update_cost(self, *_args) -> None:
        """The cost estimate sentence under the attacks (step 2)."""
        label = getattr(self, "cost_label", None)
        if label is None or self._filling:
            return
        d = self.form_dict()
        classes = self._csv_classes if d.get("data") else SYNTHETIC_CLASSES.get(
            str(d.get("synthetic")))
        text, warn = cost_estimate(d, classes, self._csv_records if d.get("data") else None)
        label.setStyleSheet("color: #b26a00; font-weight: bold;" if warn else "color: #444;")
        label.setText("Cost before running: " + text)
        step = getattr(self, "defences_step", None)
        if step is not None:
            step.set_available(self.defences_unavailable(d))
            step.update_cost()

    def defence_records(self) -> int | None:
        """How many records the data step gives (for the defences' cost estimate)."""
        if self._records_choice() == "csv":
            return self._csv_records
        value = self.fields["synthetic_records"].text().strip()
        return int(value) if value.isdigit() else None

    @staticmethod
    def defences_unavailable(d: dict) -> str:
        """Why the defences cannot run with the data & model chosen ("" when they can)."""
        if d.get("source") == "predictions":
            return ("Defences retrain the model, so they need its training records: choose "
                    "“Train the model here” in step 1 to test them.")
        if d.get("family") != "mlp":
            return ("The defences train neural networks: choose the model family “Neural "
                    "network (MLP)” in step 1 to test them.")
        return ""

    def step_of_key(self, key: str) -> int | None:
        key = ENGINE_KEYS.get(key, key)
        step = super().step_of_key(key)
        if step is None and key in self.schema_editor.column_names():
            return STEP_DATA            # the engine names a column of the file
        return step

    def show_error_at(self, text: str, key: str) -> None:
        # An error raised while the defences train names the engine's knob; show it at the
        # field that sets it.
        super().show_error_at(text, ENGINE_KEYS.get(key, key))

    def reveal_key(self, key: str) -> None:
        super().reveal_key(key)
        column = key in self.schema_editor.column_names() or key.startswith("schema") \
            or key in ("role", "columns")
        if column or key in ("data", "label", "member_column", "synthetic_records", "family",
                             "architecture", "epochs", "batch_size", "weight_decay",
                             "attacker_fraction", "train_fraction"):
            self.source_train.setChecked(True)
            if column or key in ("data", "label", "member_column"):
                select_data(self.records_combo, "csv")
            if column:
                self.schema_editor.mark_key(key)
        elif key in ("predictions", "reference_predictions", "prediction_kind"):
            self.source_predictions.setChecked(True)
