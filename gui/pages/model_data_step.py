"""Step 1 of the model page, "Data & model" (papers 001 and 004 §4): the two ways in — train in
the app from a CSV of records or a synthetic dataset, or bring the predictions of a model built
elsewhere — and, for a CSV, its columns (their roles and encodings inferred when the file is
chosen, shown and editable in :class:`gui.widgets.model_schema_editor.ModelSchemaEditor`; the
label and members fields follow the table and the table follows them) with a one-line preview
of the file.

:class:`ModelDataStep` is a part of :class:`gui.pages.model_page.ModelPage` (it is mixed into
the page and uses the page's fields, run bar and job runner); the page keeps the attacks step,
the form ↔ ``ModelConfig`` mapping and the run.
"""

from __future__ import annotations

from pathlib import Path

from PySide6.QtCore import QTimer
from PySide6.QtWidgets import (
    QComboBox,
    QFormLayout,
    QGroupBox,
    QHBoxLayout,
    QLabel,
    QLineEdit,
    QPushButton,
    QRadioButton,
    QSizePolicy,
    QVBoxLayout,
    QWidget,
)

from engine.data.errors import InputError
from engine.data.paths import require_regular_file
from gui.pages.audit_page import plain_sentence, resolve_path, show_status
from gui.widgets.form import ERROR_STYLE, choice_combo, clear_invalid, select_data
from gui.widgets.model_schema_editor import (
    ModelSchemaEditor,
    TrainingFileInfo,
    read_training_file,
)
from gui.widgets.schema_table import csv_header
from gui.widgets.steps import note

SYNC_BYTES = 5_000_000          # smaller CSVs are read at once, larger ones as a job
RECHECK_DELAY_MS = 400          # the file is read again with edited columns once they rest
COMBO_WIDTH = 620
COMBO_MIN_CHARACTERS = 28       # a drop-down may shrink to this many characters
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
NO_SENSITIVE = "(not run)"


def sensitive_candidates(schema: dict | None, synthetic: str | None) -> list[str]:
    """Feature columns worth offering for attribute inference, categories first: those of the
    file's columns table, or of the bundled mixed table (the purchase sample's 600 yes/no items
    are typed by name)."""
    if synthetic == "mixed":
        from engine.data.purchase import generate_mixed_table
        from engine.data.tabular import tabular_from_frame

        schema = tabular_from_frame(generate_mixed_table(0, 200), label="defaulted",
                                    source="mixed sample").schema.to_dict()
    columns = [c for c in (schema or {}).get("columns") or []
               if isinstance(c, dict) and c.get("role") == "feature" and c.get("name")]
    columns.sort(key=lambda c: c.get("kind") != "categorical")
    return [str(c["name"]) for c in columns]


def wide_combo(choices, tooltip: str) -> QComboBox:
    """A drop-down as wide as its longest choice up to ``COMBO_WIDTH``, that may shrink (its
    text elided, the list still whole) so a narrow window needs no sideways scrolling."""
    combo = choice_combo(choices, tooltip)
    combo.setMaximumWidth(COMBO_WIDTH)
    combo.setSizeAdjustPolicy(QComboBox.SizeAdjustPolicy.AdjustToMinimumContentsLengthWithIcon)
    combo.setMinimumContentsLength(COMBO_MIN_CHARACTERS)
    combo.setSizePolicy(QSizePolicy.Policy.Expanding, combo.sizePolicy().verticalPolicy())
    return combo


def file_sentence(path: Path, sentence: str) -> str:
    """An engine sentence about ``path`` naming the file, not its whole folder path (kept for
    a file that is not there: the folder may be what is wrong)."""
    sentence = plain_sentence(sentence)
    if not path.exists():
        return sentence
    for shown in (str(path), str(path.resolve())):
        if sentence.startswith(shown + ":"):
            return path.name + sentence[len(shown):]
    return sentence


class ModelDataStep:
    """The data step's widgets and their behaviour, as methods of the model page (module
    docstring)."""

    def _build_data_step(self, layout: QVBoxLayout) -> None:
        # Built first (AuditPage.__init__ builds the steps before this class's __init__ would
        # run), so the page's own state starts here.
        self._filling = False
        self._csv_classes: int | None = None
        self._csv_records: int | None = None
        self._previewed = ""
        # After an edit of the columns the (small) file is read again with them, so a column
        # that does not fit its new encoding is a sentence at once, not minutes into the run.
        self._recheck_timer = QTimer(self)
        self._recheck_timer.setSingleShot(True)
        self._recheck_timer.setInterval(RECHECK_DELAY_MS)
        self._recheck_timer.timeout.connect(self.recheck_data)

        form = QFormLayout()
        self.add_name_row(form)
        self.source_train = QRadioButton("Train the model here")
        self.source_train.setToolTip("The app trains the model on your records (or a "
                                     "synthetic dataset) and audits it.")
        self.source_predictions = QRadioButton("Bring the predictions of a model built "
                                               "elsewhere")
        self.source_predictions.setToolTip("Audit a model trained in R, SAS, XGBoost… from "
                                           "its outputs per record; no model file is loaded.")
        self.source_group = self.add_radio_row(form, "Model:",
                                               (self.source_train, self.source_predictions))
        self.source_train.toggled.connect(self._update_source)
        layout.addLayout(form)

        # --- train in the app
        self.train_box = QGroupBox("Train in the app")
        train = QFormLayout(self.train_box)
        self.records_combo = wide_combo(RECORD_CHOICES, "Your records, or a generated "
                                        "dataset to try the audit out (no file needed).")
        self.records_combo.currentIndexChanged.connect(self._update_source)
        train.addRow("Records:", self.records_combo)
        self.data_edit, self.data_status = self.path_row(
            train, "data", "Choose the CSV file of records", self.browse_data)
        self.data_edit.editingFinished.connect(self._data_path_edited)
        self.synthetic_edit = self.add_field_row(train, "synthetic_records")
        self.label_edit = self.add_field_row(train, "label")
        self.member_edit = self.add_field_row(train, "member_column")
        for edit in (self.label_edit, self.member_edit):
            edit.editingFinished.connect(self._columns_edited)
        self.columns_panel = self._build_columns_panel()
        train.addRow(self.columns_panel)
        self._train_form = train
        self.add_field_row(train, "attacker_fraction")
        self.add_field_row(train, "train_fraction")
        self.family_combo = wide_combo(FAMILY_CHOICES, "The kind of model trained. Neural "
                                       "networks train on the GPU when there is one.")
        self.family_combo.currentIndexChanged.connect(self._update_family)
        train.addRow("Model family:", self.family_combo)
        self.architecture_combo = wide_combo(ARCHITECTURE_CHOICES, "The layers of the "
                                             "neural network.")
        train.addRow("Architecture:", self.architecture_combo)
        self.add_field_row(train, "epochs")
        self.add_field_row(train, "batch_size")
        self.add_field_row(train, "weight_decay")
        layout.addWidget(self.train_box)

        # --- bring predictions
        self.predictions_box = QGroupBox("Bring predictions")
        preds = QFormLayout(self.predictions_box)
        self.predictions_edit, self.predictions_status = self.path_row(
            preds, "predictions", "Choose the predictions CSV",
            lambda: self._browse_into(self.predictions_edit, "Choose the predictions CSV"))
        self.kind_combo = wide_combo(KIND_CHOICES, "What the predictions file holds per "
                                     "record.")
        preds.addRow("The file holds:", self.kind_combo)
        self.reference_edit, self.reference_status = self.path_row(
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

    def _build_columns_panel(self) -> QWidget:
        """The columns of the training CSV (shown when the records come from a CSV): what the
        model learns from, what it predicts, which records it was trained on."""
        panel = QWidget()
        column = QVBoxLayout(panel)
        column.setContentsMargins(0, 6, 0, 6)
        title = QLabel("Columns of the file: what the model learns from")
        title.setStyleSheet("font-weight: bold;")
        column.addWidget(title)
        column.addWidget(note(
            "Inferred from the file: numbers are scaled, categories one-hot coded, ids and "
            "free text ignored. Change a role or an encoding where the guess is wrong; the "
            "columns are saved with the project."))
        self.schema_editor = ModelSchemaEditor()
        self.schema_editor.changed.connect(self._schema_edited)
        column.addWidget(self.schema_editor)
        self.reinfer_button = QPushButton("Infer the columns again from the file")
        self.reinfer_button.setToolTip("Replace the roles and encodings above by those read "
                                       "from the file (your changes to them are lost).")
        self.reinfer_button.clicked.connect(lambda: self.preview_data(reinfer=True))
        row = QHBoxLayout()
        row.addWidget(self.reinfer_button)
        row.addStretch(1)
        column.addLayout(row)
        return panel

    # ================================================================== reading the file

    def browse_data(self) -> None:
        path = self.ask_file(self.data_edit, "Choose the CSV file of records")
        if path:
            self.choose_data_file(path)

    def choose_data_file(self, path: str) -> None:
        """Use the records in ``path`` (as Browse… does): read its columns and say what they
        hold."""
        self.data_edit.setText(path)
        clear_invalid(self.data_edit)
        self.source_train.setChecked(True)
        select_data(self.records_combo, "csv")
        self.preview_data()

    def _browse_into(self, edit: QLineEdit, title: str) -> None:
        path = self.ask_file(edit, title)
        if path:
            edit.setText(path)
            clear_invalid(edit)
            status = (self.predictions_status if edit is self.predictions_edit
                      else self.reference_status)
            self.check_file(edit, status)

    def _data_path_edited(self) -> None:
        if self.data_edit.text().strip() != self._previewed:
            self.preview_data()

    def preview_data(self, reinfer: bool = False) -> None:
        """Read the training CSV: its columns go into the table (inferred for a new file, the
        edited ones kept for the same file) and one line under the field says what the model
        trains on — or, for a file that does not read, the engine's sentence; the path, the
        table and the fields are kept. Small files are read at once, large ones on the job
        runner (the window never freezes)."""
        text = self.data_edit.text().strip()
        self._previewed = text
        self._csv_classes = self._csv_records = None
        self._recheck_timer.stop()
        if not text:
            show_status(self.data_status, "")
            self.update_cost()
            return
        path = resolve_path(text)
        schema = self.schema_editor.schema_dict()
        label, member = self._names_for(path)
        self.read_data(path, lambda: read_training_file(path, schema, label, member, reinfer),
                       lambda info: self._data_read(info, path, (label, member)),
                       lambda message, _key: self._data_failed(path, message),
                       self.data_status, SYNC_BYTES)

    def _names_for(self, path: Path) -> tuple[str, str]:
        """The label and members column to infer a file's columns with: as typed, except a
        name that only echoes the table of another file and is not in this one (a new file
        is then inferred afresh, not refused for the old file's label)."""
        names = []
        header = None
        for edit, shown in ((self.label_edit, self.schema_editor.label()),
                            (self.member_edit, self.schema_editor.member_column())):
            name = edit.text().strip()
            if name and name == shown:
                header = csv_header(path) if header is None else header
                if header is not None and name.lower() not in {h.lower() for h in header}:
                    name = ""
            names.append(name)
        return names[0], names[1]

    def _data_failed(self, path: Path, message: str) -> None:
        """The file does not read: the sentence under the field; the table and the fields are
        kept as they were."""
        show_status(self.data_status, file_sentence(path, message), error=True)
        self.update_cost()

    def _data_read(self, info: TrainingFileInfo, path: Path, names: tuple[str, str]) -> None:
        """``names``: the label and members column the file was read with."""
        editor = self.schema_editor
        if info.schema is not None:
            editor.set_schema(info.schema)
        if info.categories:
            editor.add_categories(info.categories)
        editor.set_gap_counts(info.gaps)
        # A typed label or members column the file lacks stays typed (and marked).
        edits = (self.label_edit, self.member_edit)
        wrong = [edit for edit, name in zip(edits, names, strict=True)
                 if info.error and name and name == info.key]
        self._sync_column_fields(keep=wrong)
        no_label = info.error and info.key == "label" and not editor.label() \
            and self.label_edit not in wrong
        if no_label:
            wrong.append(self.label_edit)          # no column is named like a label: choose
        for edit in wrong:
            edit.setStyleSheet(ERROR_STYLE)
        if info.error:
            sentence = file_sentence(path, info.sentence)
            if no_label:
                sentence += " Type it under Label column, or set its role in the table below."
            show_status(self.data_status, sentence, error=True)
            editor.mark_key(info.key)
        else:
            self._csv_classes, self._csv_records = info.classes, info.records
            show_status(self.data_status, info.sentence)
            clear_invalid(self.data_edit)
        self._refresh_sensitive()
        self.update_cost()

    # ------------------------------------------------------------------ label, members, table

    def _sync_column_fields(self, keep=()) -> None:
        """The label and members fields say what the table says (except the fields in
        ``keep``, whose typed text is kept)."""
        if not self.schema_editor.column_names():
            return
        for edit, name in ((self.label_edit, self.schema_editor.label()),
                           (self.member_edit, self.schema_editor.member_column())):
            if edit in keep:
                continue
            if edit.text().strip() != name:
                edit.setText(name)
            clear_invalid(edit)

    def _apply_column_fields(self, empty_member_clears: bool = True) -> bool:
        """Move the label and members roles in the table to the columns typed in their fields;
        a name the file lacks is a sentence under the file and a marked field (kept as typed).
        An empty label field keeps the table's label; a members field the user emptied means
        no members column (``empty_member_clears``)."""
        editor = self.schema_editor
        problems = []
        for edit, what, current, move in (
                (self.label_edit, "label", editor.label, editor.set_label),
                (self.member_edit, "members column", editor.member_column,
                 editor.set_member_column)):
            typed = edit.text().strip()
            name = editor.find_column(typed) if typed else ""
            if typed and not name:
                problems.append((edit, typed, what))
            elif name and name != current():
                move(name)
            elif not typed and current() and edit is self.member_edit and empty_member_clears:
                move("")
        self._sync_column_fields(keep=[edit for edit, _name, _what in problems])
        if problems:
            names = editor.column_names()
            shown = ", ".join(names[:12]) + (", …" if len(names) > 12 else "")
            edit, typed, what = problems[0]
            edit.setStyleSheet(ERROR_STYLE)
            show_status(self.data_status, f"The file has no column '{typed}' for the {what}; "
                        f"type one of its columns ({shown}), or choose the role in the table "
                        f"below.", error=True)
            return False
        return True

    def _columns_edited(self) -> None:
        """The label or members field was edited: the table follows, and the file is read
        again with it."""
        if self._filling or self._records_choice() != "csv" \
                or not self.data_edit.text().strip():
            return
        if not self.schema_editor.column_names():
            self.preview_data()            # the first read uses the typed names
            return
        if self._apply_column_fields():
            self.recheck_data()

    def _refresh_sensitive(self, keep: str | None = None) -> None:
        """Offer the feature columns as sensitive features, keeping what the user typed."""
        combo = getattr(self, "sensitive_combo", None)
        if combo is None:
            return
        current = combo.currentText().strip() if keep is None else keep
        choice = self._records_choice()
        names = sensitive_candidates(self.schema_editor.schema_dict() if choice == "csv"
                                     else None, None if choice == "csv" else choice)
        combo.blockSignals(True)
        combo.clear()
        combo.addItems([NO_SENSITIVE, *names])
        combo.setCurrentText(current or NO_SENSITIVE)
        combo.blockSignals(False)

    def _schema_edited(self) -> None:
        """A role or an encoding was changed in the table: the fields follow, and the file is
        read again with the edited columns once the edits rest."""
        self._refresh_sensitive()
        self._sync_column_fields()
        self._csv_classes = self._csv_records = None
        self._recheck_timer.start()
        self.update_cost()

    def recheck_data(self) -> None:
        """Read the file again with the columns as edited (small files; a large one is read
        when the audit runs). An incomplete table is not read: its sentence says what to do."""
        self._recheck_timer.stop()
        text = self.data_edit.text().strip()
        if self._records_choice() != "csv" or not text:
            return
        if not self.schema_editor.check():
            show_status(self.data_status, "")
            return
        path = resolve_path(text)
        if path.is_file() and path.stat().st_size > SYNC_BYTES:
            show_status(self.data_status, f"{path.name}: a large file; it is read with these "
                                          "columns when the audit runs.")
            return
        self.preview_data()

    def check_file(self, edit: QLineEdit, status: QLabel) -> None:
        """A predictions file that is not there, or is not a file (a named pipe, a device, a
        link loop), is a sentence at once (its columns are checked when the audit runs)."""
        text = edit.text().strip()
        if not text:
            show_status(status, "")
            return
        try:
            require_regular_file(resolve_path(text), "CSV file")
        except InputError as exc:
            show_status(status, plain_sentence(exc.one_line()), error=True)
        else:
            show_status(status, "")
            clear_invalid(edit)

    # ------------------------------------------------------------------ source and family

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
        self.sensitive_combo.setEnabled(train)
        self.attribute_combo.setEnabled(train)
        self._refresh_sensitive()
        self.data_status.setVisible(csv and bool(self.data_status.text()))
        self._train_form.setRowVisible(self.columns_panel, csv)
        self.update_cost()

    def _update_family(self, *_args) -> None:
        mlp = self.family_combo.currentData() == "mlp"
        self.architecture_combo.setEnabled(mlp)
        for key in ("epochs", "batch_size"):
            self.fields[key].setEnabled(mlp)
        self.update_cost()
