"""The schema of the protected microdata, shown and editable (paper 003 §2.1: each attribute's
domain V_i and whether the attacker knows it).

One row per CSV column: its name, its role (quasi-identifier = known to the attacker,
sensitive = what the attacker tries to learn, ignore), its kind, a summary of its domain and
the domain itself as editable text:

* categorical: the values separated by "|" — ``Female | Male``;
* integer: a range ``0 – 115`` (both ends included), or bins ``bins 0, 18, 65, 116``;
* continuous: bins ``bins 0, 0.5, 1.5, 3``.

and what the audit does with the column's empty cells (issue 21): count them as the category
"missing" (categories only; what an inferred schema does where the file has blanks, since a
published table counts "not stated" like any other value), leave those records out (the only
way for numbers), or refuse the file. The choice is saved with the schema (``missing``),
recorded per column in result.json and said in the report's list of inputs.

The editor keeps exactly what the user typed (a half-typed range stays in the dict, so the
engine's sentence names it and nothing is lost) and checks the schema with the engine's own
rules after every change, so a mistake is a sentence under the table, never a traceback. The
sensitive-attribute chooser above the table and the role column are kept in step: one column at
most is sensitive. :func:`inspect_records` reads a records file with the schema being edited
(or infers one), so the Data step can say at once whether the file fits it. The table mechanics
it shares with the model page's editor are in :mod:`gui.widgets.schema_table`.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from pathlib import Path

from PySide6.QtWidgets import (
    QComboBox,
    QHBoxLayout,
    QLabel,
    QTableWidgetItem,
    QWidget,
)

from engine.data.microdata import (
    KINDS,
    MISSING_CATEGORY,
    ROLES,
    SCHEMA_VERSION,
    Schema,
    load_microdata_csv,
    missing_choices,
    unique_targets,
)
from gui.widgets.form import parse_value
from gui.widgets.schema_table import CHOICES_ROLE, SchemaTable, csv_header

ROLE_TEXTS = {"quasi_identifier": "Quasi-identifier (attacker knows it)",
              "sensitive": "Sensitive (attacker tries to learn it)",
              "ignore": "Ignore (not used)"}
KIND_TEXTS = {"categorical": "Categories", "integer": "Whole numbers",
              "continuous": "Real numbers (binned)"}
MISSING_TEXTS = {"own_category": f"A category of their own ('{MISSING_CATEGORY}')",
                 "drop_rows": "Leave those records out",
                 "error": "Refuse the file"}
MISSING_TIP = (f"What the audit does with the column's empty cells. A category of their own: "
               f"'{MISSING_CATEGORY}' is one more value, counted like the others (a published "
               f"table counts 'not stated' too). Leave those records out: the only way for "
               f"numbers, whose blanks have no place in the range. Refuse the file: the check "
               f"lists every column with empty cells. The report says what was done.")
HEADERS = ("Column", "Role", "Kind", "Values", "Empty cells", "Domain (editable)")
COL_NAME, COL_ROLE, COL_KIND, COL_SIZE, COL_MISSING, COL_DOMAIN = range(len(HEADERS))
NO_SENSITIVE = ""
_RANGE = re.compile(r"^\s*(-?\d+)\s*(?:–|—|-|to|\.\.)\s*(-?\d+)\s*$")
_MAX_CATEGORIES_FROM_RANGE = 1000     # integer → categorical lists at most this many values


# ====================================================================== text <-> column dict

def domain_text(column: dict) -> str:
    """The editable text of a column's domain (see the module docstring)."""
    kind = column.get("kind", "categorical")
    if kind == "categorical":
        return " | ".join(str(c) for c in column.get("categories") or [])
    bins = column.get("bins")
    if bins is not None:
        return "bins " + ", ".join(_number_text(b) for b in bins)
    low, high = column.get("low"), column.get("high")
    if high is None:
        return "" if low is None else str(low)
    return f"{_number_text(low)} – {_number_text(high)}"


def parse_domain(kind: str, text: str) -> dict:
    """The domain keys of a column (categories, or low/high, or bins) from its edited text.

    Text that is not understood is kept as typed (e.g. ``low = "5 -"``) so the engine's
    sentence names it and the user's entry survives a save.
    """
    raw = text.strip()
    if kind == "categorical":
        return {"categories": [part.strip() for part in raw.split("|")] if raw else []}
    body = raw[4:] if raw.lower().startswith("bins") else None
    if kind == "continuous" and body is None:
        body = raw
    if body is not None:
        tokens = [t for t in re.split(r"[,;\s]+", body.strip()) if t]
        return {"bins": [parse_value(t, integer=kind == "integer") for t in tokens]}
    match = _RANGE.match(raw)
    if match:
        return {"low": int(match.group(1)), "high": int(match.group(2))}
    return {"low": raw or None, "high": None}


def domain_summary(column: dict) -> str:
    """"2 categories", "116 values", "10 bins", "open (any value)"."""
    kind = column.get("kind", "categorical")
    if kind == "categorical":
        n = len(column.get("categories") or [])
        return "open (any value)" if n == 0 else f"{n:,} categor{'y' if n == 1 else 'ies'}"
    bins = column.get("bins")
    if bins is not None:
        return f"{max(len(bins) - 1, 0):,} bins"
    low, high = column.get("low"), column.get("high")
    if isinstance(low, int) and isinstance(high, int) and high >= low:
        return f"{high - low + 1:,} values"
    return "—"


def missing_of(column: dict) -> str:
    """The column's choice for its empty cells: as saved when it fits the kind, else what the
    engine does by default (:attr:`engine.data.microdata.ColumnSchema.missing_choice`)."""
    kind = column.get("kind", "categorical")
    chosen = column.get("missing")
    if chosen in missing_choices(kind):
        return chosen
    if kind != "categorical":
        return "drop_rows"
    cats = [str(c).strip() for c in column.get("categories") or []]
    return "own_category" if MISSING_CATEGORY in cats else "error"


def convert_kind(column: dict, kind: str) -> dict:
    """The column as ``kind``, keeping as much of its domain as the new kind can hold (an
    integer range becomes its list of values, whole-number categories become a range…);
    what cannot be converted is left empty, and the check then asks for it."""
    old = column.get("kind", "categorical")
    out = {"name": column["name"], "role": column.get("role", "quasi_identifier"), "kind": kind}
    if kind == old:
        return dict(column)
    if column.get("missing") in missing_choices(kind):
        out["missing"] = column["missing"]
    cats = column.get("categories") or []
    low, high, bins = column.get("low"), column.get("high"), column.get("bins")
    if kind == "categorical":
        ranged = isinstance(low, int) and isinstance(high, int) and bins is None
        out["categories"] = ([str(v) for v in range(low, high + 1)] if ranged
                             and high - low < _MAX_CATEGORIES_FROM_RANGE else [])
    elif kind == "integer":
        whole = [_whole(c) for c in cats]
        if old == "categorical" and whole and all(w is not None for w in whole):
            out["low"], out["high"] = min(whole), max(whole)
        elif bins and all(_whole(b) is not None for b in bins):
            out["bins"] = [_whole(b) for b in bins]
        else:
            out["low"], out["high"] = None, None
    else:  # continuous
        if bins:
            out["bins"] = list(bins)
        elif isinstance(low, int) and isinstance(high, int) and high > low:
            out["bins"] = [low, high]
        else:
            out["bins"] = []
    return out


def _whole(value) -> int | None:
    try:
        f = float(value)
    except (TypeError, ValueError):
        return None
    return int(f) if f.is_integer() else None


def _number_text(value) -> str:
    if isinstance(value, float) and value.is_integer():
        return str(int(value))
    return str(value)


# ====================================================================== the widget

class SchemaEditor(SchemaTable):
    """The schema table with the sensitive-attribute chooser and a one-line check.

    ``changed`` is emitted after every edit by the user (not by :meth:`set_schema`).
    """

    HEADERS = HEADERS
    ROLE_COLUMN = COL_ROLE
    STRETCH_COLUMN = COL_DOMAIN
    MARKED_COLUMNS = (COL_NAME, COL_SIZE, COL_DOMAIN)
    SCHEMA_VERSION = SCHEMA_VERSION
    EMPTY_MESSAGE = ("No schema yet: choose a CSV file of records and it is inferred from the "
                     "file.")

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self._choices: tuple[str, ...] | None = None
        self.sensitive_combo = QComboBox()
        self.sensitive_combo.setToolTip(
            "The attribute the attacker tries to learn about a person (paper 003: e.g. race). "
            "Every other column the attacker knows is a quasi-identifier.")
        self.sensitive_combo.currentIndexChanged.connect(self._on_sensitive_chosen)
        self.sensitive_combo.setMinimumWidth(220)
        self.sensitive_combo.setSizeAdjustPolicy(QComboBox.SizeAdjustPolicy.AdjustToContents)
        self.table.setToolTip(
            "Double-click a domain to edit it: categories separated by '|' (Female | Male), a "
            "range of whole numbers (0 – 115) or bins (bins 0, 18, 65, 116).")

        chooser = QHBoxLayout()
        chooser.setContentsMargins(0, 0, 0, 0)
        label = QLabel("Sensitive attribute:")
        label.setToolTip(self.sensitive_combo.toolTip())
        chooser.addWidget(label)
        chooser.addWidget(self.sensitive_combo)
        chooser.addStretch(1)
        self.main_layout.insertLayout(0, chooser)
        self.set_schema({})

    # ------------------------------------------------------------------ state in and out

    def set_schema(self, schema: dict | None, *, editable: bool = True,
                   sensitive: str = NO_SENSITIVE,
                   sensitive_choices: tuple[str, ...] | None = None) -> None:
        """Show ``schema`` (a ``Schema.to_dict()``, maybe half-typed; {} for none).

        ``sensitive`` makes that column the sensitive one (if it exists). A read-only schema
        (``editable=False``, the synthetic block) still lets the user pick the sensitive
        attribute among ``sensitive_choices``.
        """
        self._editable = editable
        self.load_columns(schema)
        self._choices = sensitive_choices
        if sensitive:
            self._make_sensitive(sensitive)
        self.fill_table()
        self._fill_chooser()
        self.check()

    def sensitive(self) -> str:
        """The chosen sensitive attribute ("" for none)."""
        return str(self.sensitive_combo.currentData() or "")

    def set_sensitive(self, name: str) -> None:
        """Make ``name`` the sensitive attribute (the previous one becomes a quasi-identifier)."""
        index = self.sensitive_combo.findData(name)
        if index >= 0:
            self.sensitive_combo.setCurrentIndex(index)

    def set_domain_text(self, name: str, text: str) -> None:
        """Type ``text`` into the domain cell of column ``name`` (as a user would)."""
        self.table.item(self.row_of(name), COL_DOMAIN).setText(text)

    def validated(self) -> Schema:
        """The schema with the engine's rules (InputError otherwise), sensitive applied."""
        schema = Schema.from_dict(self.schema_dict(), source="schema")
        if self.sensitive():
            schema = schema.with_roles(sensitive=self.sensitive())
        return schema

    # ------------------------------------------------------------------ checking

    def summary(self) -> str:
        schema = self.validated()
        schema.validate_for_audit()
        return schema_sentence(schema)

    # ------------------------------------------------------------------ building the table

    def fill_row(self, row: int, column: dict) -> None:
        self.table.setItem(row, COL_ROLE, self.choice_item(
            ROLES, ROLE_TEXTS, column.get("role", "quasi_identifier"),
            "Quasi-identifier: the attacker knows it about the target. Sensitive: what the "
            "attacker tries to learn. Ignore: not used by the audit."))
        self.table.setItem(row, COL_KIND, self.choice_item(
            KINDS, KIND_TEXTS, column.get("kind", "categorical"),
            "Categories: a list of values. Whole numbers: a range or bins. Real numbers: "
            "always cut into bins so the values fall in a finite domain."))
        self.table.setItem(row, COL_SIZE, self.text_item(""))
        self.table.setItem(row, COL_MISSING, self.text_item(""))
        self.table.setItem(row, COL_DOMAIN, self.text_item("", editable=self._editable))
        self._show_row(row)

    def set_missing(self, name: str, choice: str) -> None:
        """Choose what to do with column ``name``'s empty cells, as the user would."""
        self.choose(self.row_of(name), COL_MISSING, choice)

    def _show_missing(self, row: int, column: dict) -> None:
        """The empty-cells drop-down, offering only the choices that fit the kind."""
        if column.get("role") == "ignore":
            self.set_text(row, COL_MISSING, "—", "Not used by the audit: blanks are fine.")
            return
        choices = missing_choices(column.get("kind", "categorical"))
        item = self.table.item(row, COL_MISSING)
        if item is None or not self.is_choice(row, COL_MISSING) \
                or [v for v, _t in item.data(CHOICES_ROLE)] != list(choices):
            self.put(row, COL_MISSING, self.choice_item(choices, MISSING_TEXTS,
                                                        missing_of(column), MISSING_TIP))
        self.select(row, COL_MISSING, missing_of(column))
        self.set_enabled(row, COL_MISSING, self._editable)

    def _show_row(self, row: int) -> None:
        """Refresh the summary, empty-cells and domain cells of ``row`` from its dict."""
        self._show_missing(row, self._columns[row])
        with self.filling():
            column = self._columns[row]
            self.table.item(row, COL_SIZE).setText(domain_summary(column))
            text = domain_text(column)
            item = self.table.item(row, COL_DOMAIN)
            item.setText(text)
            # The whole list on hover, however narrow the column ("Asian …", issue 21).
            item.setToolTip(text or self.table.toolTip())

    def _fill_chooser(self) -> None:
        combo = self.sensitive_combo
        combo.blockSignals(True)
        combo.clear()
        names = list(self._choices) if self._choices is not None else [
            str(c.get("name", "")) for c in self._columns
            if not (c.get("kind", "categorical") == "categorical" and not c.get("categories"))]
        current = next((str(c.get("name")) for c in self._columns
                        if c.get("role") == "sensitive"), NO_SENSITIVE)
        if self._choices is None:
            combo.addItem("— choose the attribute to infer —", NO_SENSITIVE)
        for name in names:
            combo.addItem(name, name)
        index = combo.findData(current)
        combo.setCurrentIndex(max(index, 0))
        combo.setEnabled(combo.count() > 1 or self._choices is None)
        combo.blockSignals(False)

    # ------------------------------------------------------------------ reactions

    def _make_sensitive(self, name: str) -> None:
        """``name`` becomes the only sensitive column; the old one becomes a quasi-identifier
        (what the engine's ``Schema.with_roles`` does)."""
        if name not in self.column_names():
            return
        for column in self._columns:
            if column.get("name") == name:
                column["role"] = "sensitive"
            elif column.get("role") == "sensitive":
                column["role"] = "quasi_identifier"

    def _on_sensitive_chosen(self, _index: int) -> None:
        name = self.sensitive()
        if name:
            self._make_sensitive(name)
        else:
            for column in self._columns:
                if column.get("role") == "sensitive":
                    column["role"] = "quasi_identifier"
        self._sync_role_combos()
        self.edited()

    def choice_changed(self, row: int, col: int, value) -> None:
        if col == COL_ROLE:
            self._on_role_changed(row, value)
        elif col == COL_KIND:
            self._on_kind_changed(row, value)
        elif col == COL_MISSING:
            self._columns[row]["missing"] = value
            self.edited()

    def _on_role_changed(self, row: int, role: str) -> None:
        column = self._columns[row]
        if role == "sensitive":
            self._make_sensitive(column["name"])
        else:
            column["role"] = role
        self._sync_role_combos()
        for r in range(len(self._columns)):     # an ignored column's blanks need no choice
            self._show_missing(r, self._columns[r])
        self._sync_chooser()
        self.edited()

    def _on_kind_changed(self, row: int, kind: str) -> None:
        self._columns[row] = convert_kind(self._columns[row], kind)
        self._show_row(row)
        self._fill_chooser()
        self.edited()

    def item_edited(self, item: QTableWidgetItem) -> None:
        if item.column() != COL_DOMAIN:
            return
        row = item.row()
        column = self._columns[row]
        keep = {k: column[k] for k in ("name", "role", "kind", "missing") if k in column}
        self._columns[row] = {**keep, **parse_domain(column.get("kind", "categorical"),
                                                     item.text())}
        with self.filling():
            self.table.item(row, COL_SIZE).setText(domain_summary(self._columns[row]))
        self._show_missing(row, self._columns[row])     # listing 'missing' changes the default
        self._fill_chooser()
        self.edited()

    def _sync_role_combos(self) -> None:
        for row, column in enumerate(self._columns):
            self.select(row, COL_ROLE, column.get("role"))

    def _sync_chooser(self) -> None:
        current = next((str(c.get("name")) for c in self._columns
                        if c.get("role") == "sensitive"), NO_SENSITIVE)
        self.sensitive_combo.blockSignals(True)
        index = self.sensitive_combo.findData(current)
        self.sensitive_combo.setCurrentIndex(max(index, 0))
        self.sensitive_combo.blockSignals(False)


def schema_sentence(schema: Schema) -> str:
    """What the audit will use, in one sentence."""
    qi = schema.quasi_identifiers
    sensitive = schema.sensitive
    ignored = [c.name for c in schema.columns if c.role == "ignore"]
    text = (f"The attacker knows {len(qi)} quasi-identifier{'s' if len(qi) != 1 else ''} "
            f"({', '.join(qi) or 'none'})")
    if sensitive:
        size = schema.column(sensitive).domain_size
        text += (f" and tries to learn '{sensitive}' ({size} values: guessing is right "
                 f"{100 / size:.0f} % of the time)")
    text += "."
    if ignored:
        text += f" Ignored: {', '.join(ignored)}."
    return text


# ====================================================================== reading a records file
# (Qt-free: it also runs on the job runner for large files)

@dataclass(frozen=True)
class RecordsInfo:
    """What the Data step learnt from a records file."""

    records: int
    schema: dict | None          # the inferred schema, or None when the user's schema fits
    unique: int | None           # records unique on the quasi-identifiers (None: unknown)
    qi: tuple[str, ...] = ()


def inspect_records(path: Path, schema: dict, sensitive: str, reinfer: bool = False
                    ) -> RecordsInfo:
    """Load ``path`` with the user's schema when it names the file's columns (so edits are
    kept), else infer a new schema; InputError with the engine's sentence otherwise."""
    names = [c.get("name") for c in (schema or {}).get("columns") or []]
    if names and not reinfer and csv_header(path) == names:
        records = load_microdata_csv(path, Schema.from_dict(schema, source="schema"))
        inferred = None
    else:
        records = load_microdata_csv(path)
        inferred = records.schema.to_dict()
    known = records.schema
    if sensitive in known.names:
        known = known.with_roles(sensitive=sensitive)
    qi = tuple(c for c in known.quasi_identifiers if not known.column(c).is_open)
    unique = int(unique_targets(records, list(qi)).size) if qi else None
    return RecordsInfo(records.n_records, inferred, unique, qi)


def records_sentence(info: RecordsInfo, name: str) -> str:
    text = f"{info.records:,} records in {name}"
    if info.unique is not None:
        text += (f"; {info.unique:,} are unique on what the attacker knows "
                 f"({', '.join(info.qi)}): the possible targets")
    return text + "."
