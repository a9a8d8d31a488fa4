"""The machine-learning model audit page: "Does this model reveal who it was trained on?"
(papers 001 and 004 §4).

Data & model → Attacks & run, then the Results and Report steps every audit page has
(:class:`gui.pages.audit_page.AuditPage` owns the steps, run bar, inline errors, export and
project state). This module holds only what is this audit's own: its fields with their
plain-language tooltips, the two ways in (train in the app from a CSV or a synthetic dataset,
or bring the model's predictions), a one-line preview of a training CSV, the attack check list
with a cost estimate before running, and the mapping between the form and a ``ModelConfig``
dict.
"""

from __future__ import annotations

from pathlib import Path

from PySide6.QtWidgets import (
    QButtonGroup,
    QCheckBox,
    QFileDialog,
    QFormLayout,
    QGridLayout,
    QGroupBox,
    QHBoxLayout,
    QLabel,
    QLineEdit,
    QPushButton,
    QRadioButton,
    QVBoxLayout,
)

import engine.audits.model as model_audit
from engine.audits.model import (
    ATTACKS,
    DEFAULT_ATTACKS,
    NEEDS_REFERENCE,
    ModelConfig,
)
from engine.data.errors import InputError
from gui.pages.audit_page import AuditPage, FormStep, audit_steps, policy_fields
from gui.widgets.form import (
    FieldSpec,
    add_row,
    choice_combo,
    clear_invalid,
    select_data,
)
from gui.widgets.model_results import ModelResultsView
from gui.widgets.steps import note

REPO_ROOT = Path(__file__).resolve().parents[2]
SAMPLE_CONFIG = REPO_ROOT / "resources" / "configs" / "model_demo.toml"
SAMPLE_DATA = "resources/model/mixed_sample.csv"
PREVIEW_BYTES = 20_000_000      # larger CSVs are checked when the audit runs, not on entry
CSV_FILTER = "CSV files (*.csv *.txt);;All files (*)"
COMBO_WIDTH = 620
SYNTHETIC_CLASSES = {"purchase": 100, "mixed": 2}
# The sample (4,000 purchase-style records, 1 + 8 + 16 MLPs, 30 epochs) is about 0.8 million
# record-passes and takes about a minute and a half on a laptop CPU, attacks included.
SAMPLE_PASSES = 800_000
SAMPLE_SECONDS = 90

FORM_STEPS = (
    FormStep("Data & model", "Which model, trained on which records?",
             "Train the model here from a CSV of records (or a synthetic dataset to try the "
             "audit out), or bring the predictions of a model built elsewhere — no model file "
             "is ever loaded or executed.",
             "Next: 2 Attacks & run."),
    FormStep("Attacks & run", "Attacks and how much the attacker may train",
             "An outsider queries the model and tries to tell whether a person's record was in "
             "its training data. The attacker learns from look-alike models (shadow models, "
             "trained on data from the same population) or, for LiRA and RMIA, from reference "
             "models trained like the audited one. The defaults suit most audits."),
)
STEPS = audit_steps(FORM_STEPS)
STEP_DATA, STEP_ATTACKS, STEP_RESULTS, STEP_REPORT = range(len(STEPS))

RECORD_CHOICES = (("csv", "Records from a CSV file"),
                  ("purchase", "Synthetic purchase-style records (600 yes/no features, "
                               "100 classes, like Purchase100)"),
                  ("mixed", "Synthetic mixed table (numbers and categories, 2 classes)"))
FAMILY_CHOICES = (("mlp", "Neural network (MLP, trained with torch)"),
                  ("logistic", "Logistic regression"),
                  ("random_forest", "Random forest"),
                  ("gradient_boosting", "Gradient boosting (slow with many classes)"))
ARCHITECTURE_CHOICES = (("small", "Small: one hidden layer of 128 units"),
                        ("purchase", "Paper 004's 1024-512-256-128 with tanh (wide yes/no data)"))
KIND_CHOICES = (("probabilities", "Class probabilities (p_<class> columns)"),
                ("logits", "Logits, before softmax (logit_<class> columns)"),
                ("loss", "Loss per record (one loss column)"))
PARTITION_CHOICES = (("PTL", "PTL: by true label"), ("PPL", "PPL: by predicted label"),
                     ("PTC", "PTC: by confidence in the true label"),
                     ("PPC", "PPC: by confidence in the predicted label"),
                     ("PTL+PTC", "PTL+PTC: true label × its confidence"),
                     ("PPL+PPC", "PPL+PPC: predicted label × its confidence"))
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
        "The column the model predicts. Empty: a column named label, class, target or y.",
        text=True),
    "member_column": FieldSpec(
        "Members column (optional)", STEP_DATA,
        "A 0/1 column saying which records the model was trained on (1). Empty: the app "
        "draws the training records at random (seeded).", text=True),
    "attacker_fraction": FieldSpec(
        "Attacker's share", STEP_DATA,
        "The share of the records given to the attacker as data from the same population; "
        "the model never trains on them (0.4 = 40 %)."),
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
    "seed": FieldSpec(
        "Random seed", STEP_ATTACKS,
        "Any whole number. The same settings and seed always give the same numbers, so a "
        "colleague can reproduce the audit.", integer=True),
    "confidence": FieldSpec(
        "Confidence level", STEP_ATTACKS,
        "Confidence of the intervals shown around measured numbers, e.g. 0.95 for 95 %."),
    **policy_fields(STEP_ATTACKS),
}
# Fields the form assembles itself (paths by source).
SPECIAL_KEYS = ("data", "predictions", "reference_predictions")

KEY_STEPS = {"name": STEP_DATA, "audit_type": STEP_DATA, "schema_version": STEP_DATA,
             "source": STEP_DATA, "synthetic": STEP_DATA, "schema": STEP_DATA,
             "family": STEP_DATA, "architecture": STEP_DATA, "prediction_kind": STEP_DATA,
             "attacks": STEP_ATTACKS, "cbtta_partition": STEP_ATTACKS,
             "list_exposed_records": STEP_ATTACKS, "fpr_targets": STEP_ATTACKS,
             "policy": STEP_ATTACKS}


def resolve_path(text: str) -> Path:
    """A typed path as the engine reads it (relative paths also from the app folder)."""
    return model_audit.resolve_path(str(Path(text).expanduser()))


def _strip(message: str) -> str:
    for prefix in ("settings: ", "config: "):
        if message.startswith(prefix):
            message = message[len(prefix):]
    return message


def csv_preview(path: str, label: str = "", member_column: str = ""
                ) -> tuple[str, int | None, int | None]:
    """(sentence, number of classes, number of records) about a training CSV; raises
    InputError with a sentence when it does not load."""
    from engine.data.tabular import load_tabular_csv

    p = resolve_path(path)
    if p.is_file() and p.stat().st_size > PREVIEW_BYTES:
        return (f"{p.name}: a large file ({p.stat().st_size / 1e6:,.0f} MB); it is checked "
                "when the audit runs.", None, None)
    data = load_tabular_csv(p, label=label or None, member_column=member_column or None)
    label_name = next((c.name for c in data.schema.columns if c.role == "label"), "")
    text = (f"{data.n_records:,} records, {data.X.shape[1]:,} features (encoded), "
            f"{data.n_classes:,} classes")
    if label_name:
        text += f" of '{label_name}'"
    if data.member is not None:
        text += f"; {int(data.member.sum()):,} marked as trained on"
    return text + ".", data.n_classes, data.n_records


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
        text += f", about {passes / 1e6:,.2g} million record-passes (records × epochs)"
        if config.get("family") == "mlp":
            seconds = SAMPLE_SECONDS * passes / SAMPLE_PASSES
            text += (f": roughly {_duration(seconds)} on a laptop CPU, less on a GPU "
                     f"(the sample: about {SAMPLE_SECONDS // 60} to 2 minutes)")
        text += "."
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


def _duration(seconds: float) -> str:
    if seconds < 60:
        return "under a minute"
    if seconds < 3600:
        return f"{seconds / 60:.0f} minutes"
    return f"{seconds / 3600:.1f} hours"


# ====================================================================== the page

class ModelPage(AuditPage):
    """Data & model → Attacks & run for the machine-learning model audit."""

    AUDIT_TYPE = "model"
    AUDIT_LABEL = "Model audit"
    CONFIG_CLASS = ModelConfig
    FORM_STEPS = FORM_STEPS
    FIELDS = FIELDS
    KEY_STEPS = KEY_STEPS
    SAMPLE_CONFIG = SAMPLE_CONFIG

    @classmethod
    def default_config(cls) -> dict:
        return ModelConfig().to_dict()

    # ================================================================== building the steps

    def build_step(self, index: int, layout: QVBoxLayout) -> None:
        (self._build_data_step, self._build_attacks_step)[index](layout)

    def build_results_view(self) -> ModelResultsView:
        return ModelResultsView()

    def _build_data_step(self, layout: QVBoxLayout) -> None:
        # Built first (AuditPage.__init__ builds the steps before this class's __init__ would
        # run), so the page's own state starts here.
        self._filling = False
        self._csv_classes: int | None = None
        self._csv_records: int | None = None
        self._previewed = ""

        form = QFormLayout()
        self.name_edit = QLineEdit()
        self.name_edit.setToolTip("A name for this audit; it appears on the report.")
        form.addRow("Audit name:", self.name_edit)
        self.source_train = QRadioButton("Train the model here")
        self.source_train.setToolTip("The app trains the model on your records (or a "
                                     "synthetic dataset) and audits it.")
        self.source_predictions = QRadioButton("Bring the predictions of a model built "
                                               "elsewhere")
        self.source_predictions.setToolTip("Audit a model trained in R, SAS, XGBoost… from "
                                           "its outputs per record; no model file is loaded.")
        self.source_group = QButtonGroup(self)
        radios = QVBoxLayout()
        for button in (self.source_train, self.source_predictions):
            self.source_group.addButton(button)
            radios.addWidget(button)
        self.source_train.toggled.connect(self._update_source)
        form.addRow("Model:", radios)
        layout.addLayout(form)

        # --- train in the app
        self.train_box = QGroupBox("Train in the app")
        train = QFormLayout(self.train_box)
        self.records_combo = choice_combo(RECORD_CHOICES, "Your records, or a generated "
                                          "dataset to try the audit out (no file needed).")
        self.records_combo.setMaximumWidth(COMBO_WIDTH)
        self.records_combo.currentIndexChanged.connect(self._update_source)
        train.addRow("Records:", self.records_combo)
        self.data_edit, self.data_status = self._path_row(
            train, "data", "Choose the CSV file of records", self.browse_data)
        self.data_edit.editingFinished.connect(self._data_path_edited)
        self.synthetic_edit = self.add_field_row(train, "synthetic_records")
        self.label_edit = self.add_field_row(train, "label")
        self.member_edit = self.add_field_row(train, "member_column")
        for edit in (self.label_edit, self.member_edit):
            edit.editingFinished.connect(self._columns_edited)
        self.add_field_row(train, "attacker_fraction")
        self.add_field_row(train, "train_fraction")
        self.family_combo = choice_combo(FAMILY_CHOICES, "The kind of model trained. Neural "
                                         "networks train on the GPU when there is one.")
        self.family_combo.setMaximumWidth(COMBO_WIDTH)
        self.family_combo.currentIndexChanged.connect(self._update_family)
        train.addRow("Model family:", self.family_combo)
        self.architecture_combo = choice_combo(ARCHITECTURE_CHOICES, "The layers of the "
                                               "neural network.")
        self.architecture_combo.setMaximumWidth(COMBO_WIDTH)
        train.addRow("Architecture:", self.architecture_combo)
        self.add_field_row(train, "epochs")
        self.add_field_row(train, "batch_size")
        self.add_field_row(train, "weight_decay")
        layout.addWidget(self.train_box)

        # --- bring predictions
        self.predictions_box = QGroupBox("Bring predictions")
        preds = QFormLayout(self.predictions_box)
        self.predictions_edit, self.predictions_status = self._path_row(
            preds, "predictions", "Choose the predictions CSV",
            lambda: self._browse_into(self.predictions_edit, "Choose the predictions CSV"))
        self.kind_combo = choice_combo(KIND_CHOICES, "What the predictions file holds per "
                                       "record.")
        self.kind_combo.setMaximumWidth(COMBO_WIDTH)
        preds.addRow("The file holds:", self.kind_combo)
        self.reference_edit, self.reference_status = self._path_row(
            preds, "reference_predictions", "Choose the shadow model's predictions",
            lambda: self._browse_into(self.reference_edit,
                                      "Choose the shadow model's predictions"))
        for edit, status in ((self.predictions_edit, self.predictions_status),
                             (self.reference_edit, self.reference_status)):
            edit.editingFinished.connect(lambda e=edit, s=status: self.check_file(e, s))
        layout.addWidget(self.predictions_box)
        layout.addWidget(note(
            "Nothing the model was trained on leaves this computer. Exposed records are "
            "listed by row number only, unless you ask for their labels in step 2."))

    def _path_row(self, form: QFormLayout, key: str, title: str, browse) -> tuple:
        """A path field with Browse…, and the sentence about the file right under it (hidden
        while there is nothing to say, so it takes no space)."""
        edit = self.number_field(key)
        button = QPushButton("Browse…")
        button.setToolTip(title + ".")
        button.clicked.connect(browse)
        status = QLabel("")
        status.setWordWrap(True)
        status.setVisible(False)
        row = QHBoxLayout()
        row.addWidget(edit, 1)
        row.addWidget(button)
        column = QVBoxLayout()
        column.setSpacing(2)
        column.addLayout(row)
        column.addWidget(status)
        add_row(form, FIELDS[key], column)
        edit.browse_button = button
        return edit, status

    def _build_attacks_step(self, layout: QVBoxLayout) -> None:
        label = QLabel("Membership-inference attacks:")
        label.setStyleSheet("font-weight: bold;")
        layout.addWidget(label)
        grid = QGridLayout()
        self.attack_boxes: dict[str, QCheckBox] = {}
        for i, name in enumerate(ATTACKS):
            box = QCheckBox(ATTACK_TEXTS.get(name, name.replace("_", " ")))
            box.setToolTip(ATTACK_TEXTS.get(name, name))
            box.toggled.connect(self.update_cost)
            self.attack_boxes[name] = box
            grid.addWidget(box, i, 0)
        grid.setColumnStretch(1, 1)
        layout.addLayout(grid)

        form = QFormLayout()
        for key in ("shadow_models", "reference_models"):
            self.add_field_row(form, key).textEdited.connect(self.update_cost)
        self.partition_combo = choice_combo(
            PARTITION_CHOICES, "How Categorical BTTA groups the records before it estimates "
                               "each group's train and test accuracy (paper 001).")
        self.partition_combo.setMaximumWidth(COMBO_WIDTH)
        form.addRow("CBTTA groups:", self.partition_combo)
        self.add_field_row(form, "exposed_count")
        self.list_records_box = QCheckBox("List the exposed records' labels in the results")
        self.list_records_box.setToolTip(
            "Off by default: the results list the most exposed records by row number only. "
            "Turn on only if you may see their labels; they are saved in the project file.")
        form.addRow(self.list_records_box)
        self.add_field_row(form, "seed")
        self.add_field_row(form, "confidence")
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
        show, such as fpr_targets or a saved schema, are kept)."""
        d = dict(self.loaded_config)
        d["name"] = self.name_edit.text()
        self.apply_fields(d, skip=SPECIAL_KEYS)
        d["source"] = "train" if self.source_train.isChecked() else "predictions"
        choice = self._records_choice()
        d["data"] = self.data_edit.text() if choice == "csv" else ""
        if choice != "csv":
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
        return d

    def fill_form(self, config: dict) -> None:
        self._filling = True
        try:
            self.name_edit.setText(str(config.get("name", "")))
            self.fill_fields(config)
            self.data_edit.setText(str(config.get("data") or ""))
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
            (self.source_predictions if config.get("source") == "predictions"
             else self.source_train).setChecked(True)
            for label in (self.data_status, self.predictions_status, self.reference_status):
                self._say(label, "")
            self._csv_classes = self._csv_records = None
            self._previewed = ""
        finally:
            self._filling = False
        self._update_source()
        self._update_family()
        if config.get("data"):
            self.preview_data()
        self.update_cost()

    # ================================================================== running

    @staticmethod
    def run_audit(config: ModelConfig, progress, cancel) -> dict:
        result = model_audit.run(config, progress=progress, cancel=cancel)
        return result.to_dict() if hasattr(result, "to_dict") else result

    def validated_config(self):
        """The engine's rules, plus: "Records from a CSV file" with no file chosen is a
        sentence at the field (the engine would quietly use the synthetic dataset)."""
        config = super().validated_config()
        if (config.source == "train" and self._records_choice() == "csv"
                and not self.data_edit.text().strip()):
            raise InputError("choose the CSV file of records (Browse…), or pick a synthetic "
                             "dataset under Records.", source="settings", key="data")
        return config

    # ================================================================== data step

    def browse_data(self) -> None:
        path = self._ask_file(self.data_edit, "Choose the CSV file of records")
        if path:
            self.choose_data_file(path)

    def choose_data_file(self, path: str) -> None:
        """Use the records in ``path`` (as Browse… does) and say what they hold."""
        self.data_edit.setText(path)
        clear_invalid(self.data_edit)
        self.source_train.setChecked(True)
        select_data(self.records_combo, "csv")
        self.preview_data()

    def _browse_into(self, edit: QLineEdit, title: str) -> None:
        path = self._ask_file(edit, title)
        if path:
            edit.setText(path)
            clear_invalid(edit)
            status = (self.predictions_status if edit is self.predictions_edit
                      else self.reference_status)
            self.check_file(edit, status)

    def _ask_file(self, edit, title: str, filters: str = CSV_FILTER) -> str:
        current = edit.text().strip()
        start = str(resolve_path(current).parent) if current else \
            str(REPO_ROOT / "resources" / "model")
        path, _ = QFileDialog.getOpenFileName(self, title, start, filters)
        return path

    def _data_path_edited(self) -> None:
        if self.data_edit.text().strip() != self._previewed:
            self.preview_data()

    def _columns_edited(self) -> None:
        if self._records_choice() == "csv" and self.data_edit.text().strip():
            self.preview_data()

    def preview_data(self) -> None:
        """One line about the training CSV (records, features, classes), or the sentence
        saying why it does not load, right under the field; the entries are kept."""
        text = self.data_edit.text().strip()
        self._previewed = text
        self._csv_classes = self._csv_records = None
        if not text:
            self._say(self.data_status, "")
            self.update_cost()
            return
        try:
            sentence, classes, records = csv_preview(text, self.label_edit.text().strip(),
                                            self.member_edit.text().strip())
        except InputError as exc:
            self._say(self.data_status, _strip(exc.one_line()), error=True)
        except (OSError, ValueError) as exc:
            self._say(self.data_status, f"{Path(text).name}: could not be read ({exc}).",
                      error=True)
        else:
            self._csv_classes, self._csv_records = classes, records
            self._say(self.data_status, sentence)
            clear_invalid(self.data_edit)
        self.update_cost()

    def check_file(self, edit: QLineEdit, status: QLabel) -> None:
        """A predictions file that is not there is a sentence at once (its columns are
        checked when the audit runs)."""
        text = edit.text().strip()
        if not text:
            self._say(status, "")
        elif not resolve_path(text).is_file():
            self._say(status, f"{text}: file not found; check the path.", error=True)
        else:
            self._say(status, "")
            clear_invalid(edit)

    @staticmethod
    def _say(label: QLabel, text: str, error: bool = False) -> None:
        label.setStyleSheet("color: #c62828;" if error else "color: #444;")
        label.setText(text)
        label.setVisible(bool(text))

    def _update_source(self, *_args) -> None:
        if self._filling:
            return
        train = self.source_train.isChecked()
        self.train_box.setVisible(train)
        self.predictions_box.setVisible(not train)
        csv = self._records_choice() == "csv"
        for widget in (self.data_edit, self.data_edit.browse_button, self.label_edit,
                       self.member_edit):
            widget.setEnabled(csv)
        self.synthetic_edit.setEnabled(not csv)
        self.data_status.setVisible(csv and bool(self.data_status.text()))
        self.update_cost()

    def _update_family(self, *_args) -> None:
        mlp = self.family_combo.currentData() == "mlp"
        self.architecture_combo.setEnabled(mlp)
        for key in ("epochs", "batch_size"):
            self.fields[key].setEnabled(mlp)
        self.update_cost()

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

    def reveal_key(self, key: str) -> None:
        super().reveal_key(key)
        if key in ("data", "label", "member_column", "synthetic_records", "family",
                   "architecture", "epochs", "batch_size", "weight_decay",
                   "attacker_fraction", "train_fraction"):
            self.source_train.setChecked(True)
            if key in ("data", "label", "member_column"):
                select_data(self.records_combo, "csv")
        elif key in ("predictions", "reference_predictions", "prediction_kind"):
            self.source_predictions.setChecked(True)
