"""The columns of a model's training CSV, shown and editable: what the model learns from, what it
predicts, which records it was trained on (issue 8: "label column, feature roles (one-hot for
categories, scaling for numbers; schema inferred, shown, editable, saved with the project)").

One row per CSV column (the table mechanics are :class:`gui.widgets.schema_table.SchemaTable`'s,
shared with the count-tables page):

* Role — feature (the model learns from it), label (what it predicts; exactly one), members
  (1 = trained on, 0 = not; at most one), ignore (ids, free text);
* Encoding of a feature — categories one-hot coded, a number standardised on the training
  records, or a number used as written (0/1 purchase flags, paper 004 §4.1);
* Inputs — how many inputs of the model the column becomes, and Values — what the file holds;
* Empty cells — what is done with the column's empty cells (issue 21): filled with the median
  or the most frequent value, a category of their own, the rows left out, or the file refused;
  the defaults (engine.data.tabular.default_missing) are pre-selected and the count of empty
  cells found in the file is shown beside the values.

The schema is the dict :meth:`engine.data.tabular.TabularSchema.to_dict` writes, kept exactly as
the user left it, checked with the engine's own rules after every change (a mistake is a
sentence under the table, never a traceback). Roles move as the engine's
``TabularSchema.with_roles`` moves them: a new label makes the old one a feature, a new members
column makes the old one ignored, so the label and members fields of the page can follow the
table and the table the fields.

:func:`read_training_file` (Qt-free, so a large file can be read on the job runner) infers the
schema of a new file — also when no column is named like a label, so the user can pick it in
the table — or reads the file with the schema being edited, and says in one sentence what the
model will train on.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path

from PySide6.QtWidgets import QWidget

from engine.data.errors import InputError
from engine.data.tabular import (
    SCHEMA_VERSION,
    TabularColumn,
    TabularSchema,
    default_missing,
    features_phrase,
    infer_tabular_schema,
    load_tabular_csv,
    missing_choices,
)
from gui.widgets.schema_table import CHOICES_ROLE as CHOICES_ROLE_KEY
from gui.widgets.schema_table import SchemaTable, csv_header, error_sentence

ROLES = ("feature", "label", "member", "ignore")
ROLE_TEXTS = {"feature": "Feature (model input)",
              "label": "Label (predicted)",
              "member": "Members (1 = trained on)",
              "ignore": "Ignore (not used)"}
ENCODINGS = ("onehot", "scaled", "raw")
ENCODING_TEXTS = {"onehot": "Categories, one-hot",
                  "scaled": "Number, scaled",
                  "raw": "Number, as written"}
FIXED_ENCODING_TEXTS = {"label": "Classes", "member": "0 or 1"}
MISSING_TEXTS = {"median": "Fill with the median",
                 "most_frequent": "Fill with the most frequent value",
                 "own_category": "A category of their own",
                 "drop_rows": "Leave those records out",
                 "error": "Refuse the file"}
HEADERS = ("Column", "Role", "Encoding", "Inputs", "Values", "Empty cells")
COL_NAME, COL_ROLE, COL_ENCODING, COL_INPUTS, COL_VALUES, COL_MISSING = range(len(HEADERS))
MAX_VISIBLE_ROWS = 14          # a wider file scrolls inside the table
PREVIEW_VALUES = 6             # categories listed in the Values cell (all in its tooltip)

ROLE_TIP = ("Feature: the model learns from it. Label: the column the model predicts (one). "
            "Members: 1 for a record the model was trained on, 0 for one it was not (at most "
            "one; without it the app draws the training records at random). Ignore: not used "
            "(ids, free text).")
ENCODING_TIP = ("Categories, one-hot: one input per value (sex=F, sex=M). Number, scaled: "
                "standardised with the mean and spread of the training records only. Number, "
                "as written: the values as they are (0/1 flags).")

MISSING_TIP = ("What to do with the column's empty cells. Fill with the median: numbers, plus an "
               "input saying the value was missing. Fill with the most frequent value. A "
               "category of their own: 'missing' becomes one more category (the usual choice "
               "for survey data). Leave those records out. Refuse the file: the check lists "
               "every column with empty cells. The values filling the cells come from all the "
               "records of the file; every model of the audit is trained the same way.")


# ====================================================================== column dicts

def missing_of(column: dict) -> str:
    """The column's choice for its empty cells: as saved, else the default for its role and
    kind (a choice that no longer fits them counts as the default)."""
    role = column.get("role", "feature")
    kind = column.get("kind", "numeric")
    chosen = column.get("missing")
    return chosen if chosen in missing_choices(role, kind) else default_missing(role, kind)


def _keep_missing(old: dict, new: dict) -> dict:
    """``new`` with ``old``'s empty-cell choice when it still fits the role and kind."""
    chosen = old.get("missing")
    if chosen and chosen in missing_choices(new.get("role", "feature"),
                                            new.get("kind", "numeric")):
        new["missing"] = chosen
    if "indicator" in old and new.get("kind") == "numeric" \
            and new.get("role", "feature") == "feature":
        new["indicator"] = old["indicator"]
    return new

def encoding_of(column: dict) -> str:
    """"onehot", "scaled" or "raw" for a column dict."""
    if column.get("kind", "numeric") == "categorical":
        return "onehot"
    return "scaled" if column.get("scale", True) is not False else "raw"


def with_encoding(column: dict, encoding: str, categories: list[str] | None = None) -> dict:
    """The column encoded as ``encoding``. What belonged to the old encoding goes (categories,
    fitted scaling); ``categories``: the values known for the column, used when it becomes
    one-hot (none: the values found in the file, read when it loads)."""
    out = {k: column[k] for k in ("name", "role") if k in column}
    if encoding == "onehot":
        out["kind"] = "categorical"
        cats = column.get("categories") if column.get("kind") == "categorical" else categories
        if cats:
            out["categories"] = list(cats)
        return _keep_missing(column, out)
    out["kind"] = "numeric"
    out["scale"] = encoding == "scaled"
    if column.get("kind") == "numeric" and out["scale"] and column.get("scale", True) \
            and "mean" in column and "sd" in column:
        out["mean"], out["sd"] = column["mean"], column["sd"]
    return _keep_missing(column, out)


def move_role(columns: list[dict], name: str, role: str) -> list[dict]:
    """``name`` takes ``role``, as ``TabularSchema.with_roles`` moves roles: the old label
    becomes a feature, the old members column is ignored; a label is a set of classes."""
    out = []
    for column in columns:
        c = dict(column)
        if c.get("name") == name:
            if role == "label":
                if c.get("kind") != "categorical":
                    c.pop("categories", None)
                c["kind"] = "categorical"
                for key in ("scale", "mean", "sd"):
                    c.pop(key, None)
            elif role == "member":
                for key in ("categories", "mean", "sd"):
                    c.pop(key, None)
            c["role"] = role
            if role in ("label", "member"):
                c.pop("missing", None)
                c.pop("indicator", None)
        elif role in ("label", "member") and c.get("role") == role:
            c["role"] = "feature" if role == "label" else "ignore"
            c.pop("missing", None)
        out.append(c)
    return out


def inputs_of(column: dict, empty_cells: int = 0) -> int | None:
    """How many inputs of the model the column becomes once the file, with ``empty_cells`` empty
    cells in this column, is loaded (None: its categories are read from the file when it loads).
    The engine's own rule (``TabularColumn.width_with_gaps``), so a "was missing" flag or a
    "missing" category is counted here as the loaded model counts it (issue 32 item 6)."""
    if column.get("role", "feature") != "feature":
        return 0
    categorical = column.get("kind", "numeric") == "categorical"
    if categorical and not column.get("categories"):
        return None
    try:
        engine_column = TabularColumn(
            name=str(column.get("name")), role="feature", kind=column.get("kind", "numeric"),
            categories=tuple(str(c) for c in column.get("categories") or ()),
            missing=column.get("missing", ""), indicator=column.get("indicator"))
    except (InputError, TypeError, ValueError):     # a half-edited column: count its values
        return len(column.get("categories") or []) if categorical else 1
    return engine_column.width_with_gaps(int(empty_cells or 0))


def _listed(values: list, limit: int = PREVIEW_VALUES) -> str:
    shown = ", ".join(str(v) for v in values[:limit])
    return shown + (", …" if len(values) > limit else "")


def values_text(column: dict) -> tuple[str, str]:
    """(what the Values cell says, its tooltip)."""
    role = column.get("role", "feature")
    cats = [str(c) for c in column.get("categories") or []]
    if role == "member":
        return "1 = trained on, 0 = not", "The model was trained on the records marked 1."
    if role == "ignore":
        return "not used by the model", "Set the role to Feature to use it."
    if role == "label" or column.get("kind") == "categorical":
        word = "class" if role == "label" else "categor"
        if not cats:
            return (f"{'classes' if role == 'label' else 'categories'}: read from the file",
                    "The values found in the file, in a natural order.")
        n = len(cats)
        noun = (f"{n:,} class{'es' if n != 1 else ''}" if role == "label"
                else f"{n:,} {word}{'y' if n == 1 else 'ies'}")
        return f"{noun}: {_listed(cats)}", ", ".join(cats)
    if encoding_of(column) == "raw":
        return "numbers", "Used as written, not scaled: suits 0/1 flags and counts."
    if "mean" in column and "sd" in column:
        return (f"numbers: (value − {column['mean']:.4g}) / {column['sd']:.4g}",
                "Scaled with the mean and standard deviation of the training records.")
    return ("numbers", "Standardised (mean 0, sd 1) with the mean and spread of the records "
                       "the model trains on, never of the others.")


def model_schema_sentence(schema: TabularSchema, columns: list[dict],
                          gaps: dict[str, int] | None = None) -> str:
    """What the model will train on, in one or two sentences (``gaps``: the empty cells the file
    has, by column, which can add inputs)."""
    features = [c for c in columns if c.get("role", "feature") == "feature"]
    widths = [inputs_of(c, (gaps or {}).get(str(c.get("name")), 0)) for c in features]
    known = sum(w for w in widths if w)
    unknown = [str(c.get("name")) for c, w in zip(features, widths, strict=True) if w is None]
    if unknown:
        counted = (f"{len(features):,} feature column{'s' if len(features) != 1 else ''} "
                   f"({known:,} input{'s' if known != 1 else ''} + the categories of "
                   f"{', '.join(repr(n) for n in unknown)}, read from the file)")
    else:       # the words of the results page and the report
        counted = features_phrase(len(features), known)
    classes = schema.class_labels
    label = f"'{schema.label}'" + (f" ({len(classes):,} classes)" if classes else "")
    text = f"The model learns from {counted} and predicts {label}."
    member = schema.member_column
    text += (f" Column '{member}' says which records it was trained on." if member else
             " No members column: the app draws the training records at random (seeded).")
    ignored = [c.name for c in schema.columns if c.role == "ignore"]
    if ignored:
        text += f" Not used: {_listed(ignored, 8)}."
    return text


# ====================================================================== the widget

class ModelSchemaEditor(SchemaTable):
    """The training CSV's columns with their role and encoding, and a one-line check.

    ``changed`` is emitted after every edit by the user in the table (not by
    :meth:`set_schema`, :meth:`set_label` or :meth:`set_member_column`, which the page calls).
    """

    HEADERS = HEADERS
    ROLE_COLUMN = COL_ROLE
    STRETCH_COLUMN = COL_VALUES
    MARKED_COLUMNS = (COL_NAME, COL_INPUTS, COL_VALUES)
    MAX_VISIBLE_ROWS = MAX_VISIBLE_ROWS
    SCHEMA_VERSION = SCHEMA_VERSION
    EMPTY_MESSAGE = ("No columns yet: choose the CSV file of records above and its columns are "
                     "read from it.")

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self._seen: dict[str, list[str]] = {}     # categories once known, kept for one-hot
        self._gaps: dict[str, int] = {}           # empty cells found in the file, by column
        self.set_schema({})

    # ------------------------------------------------------------------ state in and out

    def set_schema(self, schema: dict | None) -> None:
        """Show ``schema`` (a ``TabularSchema.to_dict()``, maybe half-made; {} for none)."""
        self.load_columns(schema)
        self._seen = {str(c.get("name")): list(c["categories"]) for c in self._columns
                      if isinstance(c.get("categories"), list) and c["categories"]}
        self.fill_table()
        self.check()

    def label(self) -> str:
        """The label column ("" when none is chosen yet)."""
        return next((str(c.get("name")) for c in self._columns if c.get("role") == "label"), "")

    def member_column(self) -> str:
        """The members column ("" for none)."""
        return next((str(c.get("name")) for c in self._columns
                     if c.get("role") == "member"), "")

    def find_column(self, name: str) -> str:
        """The column called ``name`` (also in another case), "" if there is none."""
        names = self.column_names()
        if name in names:
            return name
        lower = {n.lower(): n for n in names}
        return lower.get(name.lower(), "")

    def set_label(self, name: str) -> None:
        """Make ``name`` the label (the old label becomes a feature); not an edit by the user."""
        self._move(name, "label")
        self.check()

    def set_member_column(self, name: str) -> None:
        """Make ``name`` the members column ("" for none: the old one is ignored)."""
        if name:
            self._move(name, "member")
        elif self.member_column():
            self._move(self.member_column(), "ignore")
        self.check()

    def set_encoding(self, name: str, encoding: str) -> None:
        """Encode column ``name`` as the user would choose it in its drop-down."""
        self.choose(self.row_of(name), COL_ENCODING, encoding)

    def add_categories(self, found: dict[str, list[str]]) -> None:
        """The values read from the file for columns that list none yet (a label or a one-hot
        feature): they are shown, counted and saved with the schema."""
        for row, column in enumerate(self._columns):
            name = str(column.get("name"))
            if name not in found or column.get("kind") != "categorical" \
                    or column.get("categories") or column.get("role") not in ("label", "feature"):
                continue
            column["categories"] = list(found[name])
            self._seen[name] = list(found[name])
            self._show_row(row)
        self.check()

    def set_gap_counts(self, counts: dict[str, int]) -> None:
        """The empty cells found in the file, by column, shown beside the values."""
        self._gaps = {str(k): int(v) for k, v in (counts or {}).items()}
        for row in range(len(self._columns)):
            self._show_row(row)
        if self._columns:       # gaps can add inputs: the sentence under the table counts them
            self.check()

    def set_missing(self, name: str, choice: str) -> None:
        """Choose what to do with column ``name``'s empty cells, as the user would."""
        self.choose(self.row_of(name), COL_MISSING, choice)

    def validated(self) -> TabularSchema:
        """The schema with the engine's rules (InputError otherwise)."""
        return TabularSchema.from_dict(self.schema_dict(), source="schema")

    # ------------------------------------------------------------------ checking

    def summary(self) -> str:
        return model_schema_sentence(self.validated(), self._columns, self._gaps)

    # ------------------------------------------------------------------ building the table

    def fill_row(self, row: int, column: dict) -> None:
        self.table.setItem(row, COL_ROLE, self.choice_item(
            ROLES, ROLE_TEXTS, column.get("role", "feature"), ROLE_TIP))
        self.table.setItem(row, COL_INPUTS, self.text_item(""))
        self.table.setItem(row, COL_VALUES, self.text_item(""))
        self.table.setItem(row, COL_MISSING, self.text_item(""))
        self._show_row(row)

    def _show_row(self, row: int) -> None:
        """Refresh the role, encoding, inputs and values cells of ``row`` from its dict."""
        column = self._columns[row]
        role = column.get("role", "feature")
        self.select(row, COL_ROLE, role)
        if role in FIXED_ENCODING_TEXTS:
            self.set_text(row, COL_ENCODING, FIXED_ENCODING_TEXTS[role],
                          "A label is a set of classes; a members column holds 0 or 1."
                          if role == "label" else "1 = trained on, 0 = not.")
        else:
            if not self.is_choice(row, COL_ENCODING):
                self.put(row, COL_ENCODING, self.choice_item(
                    ENCODINGS, ENCODING_TEXTS, encoding_of(column), ENCODING_TIP))
            self.select(row, COL_ENCODING, encoding_of(column))
            self.set_enabled(row, COL_ENCODING, role == "feature")
        self._show_missing(row, column, role)
        gaps = self._gaps.get(str(column.get("name")), 0)
        inputs = inputs_of(column, gaps)
        text, tip = values_text(column)
        if gaps and role != "ignore":
            text += f" — {gaps:,} empty"
            tip += f" The file has {gaps:,} empty cell{'s' if gaps != 1 else ''} here."
        with self.filling():
            self.table.item(row, COL_INPUTS).setText(
                "—" if inputs == 0 else "?" if inputs is None else f"{inputs:,}")
            self.table.item(row, COL_INPUTS).setToolTip(
                "Inputs of the model this column becomes." if inputs is not None else
                "One per category, read from the file when it loads.")
            item = self.table.item(row, COL_VALUES)
            item.setText(text)
            item.setToolTip(tip)

    def _show_missing(self, row: int, column: dict, role: str) -> None:
        """The empty-cells drop-down, offering only the choices that fit the role and kind."""
        choices = missing_choices(role, column.get("kind", "numeric"))
        gaps = self._gaps.get(str(column.get("name")), 0)
        tip = MISSING_TIP + (f" This column has {gaps:,} empty cell{'s' if gaps != 1 else ''} "
                             f"in the file." if gaps else "")
        if role == "ignore":
            self.set_text(row, COL_MISSING, "—", "Not used by the model.")
            return
        current = missing_of(column)
        item = self.table.item(row, COL_MISSING)
        if item is None or not self.is_choice(row, COL_MISSING) \
                or [v for v, _t in item.data(CHOICES_ROLE_KEY)] != list(choices):
            self.put(row, COL_MISSING, self.choice_item(choices, MISSING_TEXTS, current, tip))
        self.select(row, COL_MISSING, current)
        with self.filling():
            self.table.item(row, COL_MISSING).setToolTip(tip)

    # ------------------------------------------------------------------ reactions

    def _move(self, name: str, role: str) -> None:
        before = [c.get("role") for c in self._columns]
        self._columns = move_role(self._columns, name, role)
        for row, column in enumerate(self._columns):
            if column.get("role") != before[row] or column.get("name") == name:
                self._show_row(row)

    def choice_changed(self, row: int, col: int, value) -> None:
        if col == COL_ROLE:
            self._move(str(self._columns[row].get("name")), value)
            self.edited()
        elif col == COL_ENCODING:
            self._encode(row, value)
        elif col == COL_MISSING:
            self._columns[row]["missing"] = value
            self._show_row(row)
            self.edited()

    def _encode(self, row: int, encoding: str) -> None:
        column = self._columns[row]
        self._columns[row] = with_encoding(column, encoding,
                                           self._seen.get(str(column.get("name"))))
        self._show_row(row)
        self.edited()


# ====================================================================== reading the file
# (Qt-free: it also runs on the job runner for large files)

@dataclass(frozen=True)
class TrainingFileInfo:
    """What the Data step learnt from a training CSV."""

    schema: dict | None            # a newly inferred schema to show; None: the user's was used
    records: int | None = None     # None when the file does not load with the schema
    classes: int | None = None
    sentence: str = ""             # what the model trains on, or the engine's sentence
    error: bool = False
    key: str = ""                  # the column or setting the engine's sentence names
    categories: dict[str, list[str]] = field(default_factory=dict)   # values read, by column
    gaps: dict[str, int] = field(default_factory=dict)   # empty cells found, by column


def infer_schema(path: Path, label: str = "", member: str = ""
                 ) -> tuple[dict, InputError | None]:
    """The inferred schema of ``path`` as a dict, and the problem to tell the user, if any.

    A typed label or members column that is not in the file, or a file with no column named
    like a label, still gives the columns (all inferred, the label left for the user to choose),
    with the engine's sentence; a file that cannot be read raises InputError.
    """
    problem: InputError | None = None
    for want_label, want_member in dict.fromkeys(((label, member), (label, ""), ("", ""))):
        try:
            schema = infer_tabular_schema(path, want_label or None,
                                          member_column=want_member or None)
        except InputError as exc:
            if exc.key not in ("label", want_label, want_member) or not exc.key:
                raise
            problem = problem or exc
            continue
        return schema.to_dict(), problem
    header = csv_header(path) or []
    if len(header) < 2:
        raise problem
    # No column is named like a label: infer every column as a feature (twice, so that the
    # column standing in as the label is inferred too), and let the user choose the label.
    first = infer_tabular_schema(path, header[0]).to_dict()["columns"]
    second = infer_tabular_schema(path, header[1]).to_dict()["columns"]
    columns = [second[0], *first[1:]]
    return {"schema_version": SCHEMA_VERSION, "columns": columns}, problem


def read_training_file(path: Path, schema: dict | None, label: str = "", member: str = "",
                       reinfer: bool = False) -> TrainingFileInfo:
    """Read ``path`` with the schema being edited when it names the file's columns (so edits
    are kept), else infer a new one (with the label and members column typed, if any).

    A file that cannot be read raises InputError (the page keeps the schema shown); a file that
    reads but does not load with the schema gives the engine's sentence in the info.
    """
    names = [c.get("name") for c in (schema or {}).get("columns") or [] if isinstance(c, dict)]
    if reinfer or not names or csv_header(path) != names:
        try:                    # inferred and loaded in one read of the file
            data = load_tabular_csv(path, label=label or None, member_column=member or None)
        except InputError as exc:
            # Still show the columns (a file that cannot be read raises here), and say why.
            inferred, problem = infer_schema(path, label, member)
            problem = problem or exc
            return TrainingFileInfo(inferred, sentence=error_sentence(problem), error=True,
                                    key=problem.key or "")
        inferred = data.schema.unfitted().to_dict()     # scaling is fitted on members only
        return TrainingFileInfo(inferred, data.n_records, data.n_classes,
                                _data_sentence(data), gaps=_gap_counts(data))
    try:
        data = load_tabular_csv(path, TabularSchema.from_dict(schema, source="schema"))
    except InputError as exc:
        return TrainingFileInfo(None, sentence=error_sentence(exc), error=True,
                                key=exc.key or "")
    listed = {c.get("name") for c in schema["columns"] if c.get("categories")}
    found = {c.name: list(c.categories) for c in data.schema.columns
             if c.kind == "categorical" and c.role in ("label", "feature")
             and c.name not in listed}
    return TrainingFileInfo(None, data.n_records, data.n_classes, _data_sentence(data),
                            categories=found, gaps=_gap_counts(data))


def _gap_counts(data) -> dict[str, int]:
    report = data.missing_values or {}
    return {e["column"]: int(e["empty_cells"]) for e in report.get("per_column", ())}


def _data_sentence(data) -> str:
    text = (f"{data.n_records:,} records, "
            f"{features_phrase(len(data.schema.features), data.X.shape[1])}, "
            f"{data.n_classes:,} classes of '{data.schema.label}'")
    if data.member is not None:
        text += f"; {int(data.member.sum()):,} marked as trained on"
    text += "."
    if data.missing_values:
        text += " " + data.missing_values["sentence"]
    return text
