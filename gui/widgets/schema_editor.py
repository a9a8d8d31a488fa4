"""The schema of the protected microdata, shown and editable (paper 003 §2.1: each attribute's
domain V_i and whether the attacker knows it).

One row per CSV column: its name, its role (quasi-identifier = known to the attacker,
sensitive = what the attacker tries to learn, ignore), its kind, a summary of its domain and
the domain itself as editable text:

* categorical: the values separated by "|" — ``Female | Male``;
* integer: a range ``0 – 115`` (both ends included), or bins ``bins 0, 18, 65, 116``;
* continuous: bins ``bins 0, 0.5, 1.5, 3``.

The editor keeps exactly what the user typed (a half-typed range stays in the dict, so the
engine's sentence names it and nothing is lost) and checks the schema with the engine's own
rules after every change, so a mistake is a sentence under the table, never a traceback. The
sensitive-attribute chooser above the table and the role column are kept in step: one column at
most is sensitive. :func:`inspect_records` reads a records file with the schema being edited
(or infers one), so the Data step can say at once whether the file fits it.
"""

from __future__ import annotations

import csv
import re
from dataclasses import dataclass
from pathlib import Path

from PySide6.QtCore import Qt, Signal
from PySide6.QtGui import QBrush, QColor
from PySide6.QtWidgets import (
    QAbstractItemView,
    QComboBox,
    QHBoxLayout,
    QHeaderView,
    QLabel,
    QTableWidget,
    QTableWidgetItem,
    QVBoxLayout,
    QWidget,
)

from engine.data.errors import InputError
from engine.data.microdata import (
    KINDS,
    ROLES,
    SCHEMA_VERSION,
    Schema,
    load_microdata_csv,
    unique_targets,
)
from gui.widgets.form import parse_value

ROLE_TEXTS = {"quasi_identifier": "Quasi-identifier (attacker knows it)",
              "sensitive": "Sensitive (attacker tries to learn it)",
              "ignore": "Ignore (not used)"}
KIND_TEXTS = {"categorical": "Categories", "integer": "Whole numbers",
              "continuous": "Real numbers (binned)"}
HEADERS = ("Column", "Role", "Kind", "Values", "Domain (editable)")
COL_NAME, COL_ROLE, COL_KIND, COL_SIZE, COL_DOMAIN = range(len(HEADERS))
NO_SENSITIVE = ""
_RANGE = re.compile(r"^\s*(-?\d+)\s*(?:–|—|-|to|\.\.)\s*(-?\d+)\s*$")
_MAX_CATEGORIES_FROM_RANGE = 1000     # integer → categorical lists at most this many values
ERROR_BACKGROUND = QColor(255, 205, 210)


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


def convert_kind(column: dict, kind: str) -> dict:
    """The column as ``kind``, keeping as much of its domain as the new kind can hold (an
    integer range becomes its list of values, whole-number categories become a range…);
    what cannot be converted is left empty, and the check then asks for it."""
    old = column.get("kind", "categorical")
    out = {"name": column["name"], "role": column.get("role", "quasi_identifier"), "kind": kind}
    if kind == old:
        return dict(column)
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

class SchemaEditor(QWidget):
    """The schema table with the sensitive-attribute chooser and a one-line check.

    ``changed`` is emitted after every edit by the user (not by :meth:`set_schema`).
    """

    changed = Signal()

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self._columns: list[dict] = []
        self._editable = True
        self._filling = False

        self.sensitive_combo = QComboBox()
        self.sensitive_combo.setToolTip(
            "The attribute the attacker tries to learn about a person (paper 003: e.g. race). "
            "Every other column the attacker knows is a quasi-identifier.")
        self.sensitive_combo.currentIndexChanged.connect(self._on_sensitive_chosen)
        self.sensitive_combo.setMinimumWidth(220)
        self.sensitive_combo.setSizeAdjustPolicy(QComboBox.SizeAdjustPolicy.AdjustToContents)
        self.table = QTableWidget(0, len(HEADERS))
        self.table.setHorizontalHeaderLabels(list(HEADERS))
        self.table.verticalHeader().setVisible(False)
        # One line per column of the file: a long category list is elided (its tooltip and the
        # editor show it whole) — wrapped rows made the role and kind boxes grow tall.
        self.table.setWordWrap(False)
        self.table.setTextElideMode(Qt.TextElideMode.ElideRight)
        self.table.setSelectionMode(QAbstractItemView.SelectionMode.NoSelection)
        header = self.table.horizontalHeader()
        for col in (COL_NAME, COL_ROLE, COL_KIND, COL_SIZE):
            header.setSectionResizeMode(col, QHeaderView.ResizeMode.ResizeToContents)
        header.setSectionResizeMode(COL_DOMAIN, QHeaderView.ResizeMode.Stretch)
        self.table.setToolTip(
            "Double-click a domain to edit it: categories separated by '|' (Female | Male), a "
            "range of whole numbers (0 – 115) or bins (bins 0, 18, 65, 116).")
        self.table.itemChanged.connect(self._on_item_changed)
        self.status_label = QLabel()
        self.status_label.setWordWrap(True)
        self.status_label.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)

        chooser = QHBoxLayout()
        chooser.setContentsMargins(0, 0, 0, 0)
        label = QLabel("Sensitive attribute:")
        label.setToolTip(self.sensitive_combo.toolTip())
        chooser.addWidget(label)
        chooser.addWidget(self.sensitive_combo)
        chooser.addStretch(1)
        layout = QVBoxLayout(self)
        layout.setContentsMargins(0, 0, 0, 0)
        layout.addLayout(chooser)
        layout.addWidget(self.table)
        layout.addWidget(self.status_label)
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
        columns = (schema or {}).get("columns") if isinstance(schema, dict) else None
        self._columns = [dict(c) for c in columns if isinstance(c, dict)] \
            if isinstance(columns, list) else []
        self._choices = sensitive_choices
        if sensitive:
            self._make_sensitive(sensitive)
        self._fill_table()
        self._fill_chooser()
        self.check()

    def schema_dict(self) -> dict:
        """The schema as typed ({} when there are no columns), ready for config["schema"]."""
        if not self._columns:
            return {}
        return {"schema_version": SCHEMA_VERSION, "columns": [dict(c) for c in self._columns]}

    def sensitive(self) -> str:
        """The chosen sensitive attribute ("" for none)."""
        return str(self.sensitive_combo.currentData() or "")

    def column_names(self) -> list[str]:
        return [str(c.get("name", "")) for c in self._columns]

    def is_editable(self) -> bool:
        return self._editable

    def set_sensitive(self, name: str) -> None:
        """Make ``name`` the sensitive attribute (the previous one becomes a quasi-identifier)."""
        index = self.sensitive_combo.findData(name)
        if index >= 0:
            self.sensitive_combo.setCurrentIndex(index)

    def set_role(self, name: str, role: str) -> None:
        """Set the role of column ``name`` as if the user chose it in its combo."""
        row = self.column_names().index(name)
        combo = self.table.cellWidget(row, COL_ROLE)
        combo.setCurrentIndex(combo.findData(role))

    def set_domain_text(self, name: str, text: str) -> None:
        """Type ``text`` into the domain cell of column ``name`` (as a user would)."""
        row = self.column_names().index(name)
        self.table.item(row, COL_DOMAIN).setText(text)

    def validated(self) -> Schema:
        """The schema with the engine's rules (InputError otherwise), sensitive applied."""
        schema = Schema.from_dict(self.schema_dict(), source="schema")
        if self.sensitive():
            schema = schema.with_roles(sensitive=self.sensitive())
        return schema

    # ------------------------------------------------------------------ checking

    def check(self) -> bool:
        """Check the schema with the engine's rules; show the sentence (or a summary)."""
        self._clear_marks()
        if not self._columns:
            self.show_message("No schema yet: choose a CSV file of records and it is inferred "
                              "from the file.")
            return False
        try:
            schema = self.validated()
            schema.validate_for_audit()
        except InputError as exc:
            self.show_message(_sentence(exc), error=True)
            self.mark_key(exc.key or "")
            return False
        self.show_message(schema_sentence(schema))
        return True

    def show_message(self, text: str, error: bool = False) -> None:
        self.status_label.setStyleSheet("color: #c62828;" if error else "color: #444;")
        self.status_label.setText(text)

    def mark_key(self, key: str) -> bool:
        """Shade the row of the column an engine error names (by name or "schema.columns[i]");
        True if a row was found."""
        match = re.search(r"columns\[(\d+)\]", key)
        names = self.column_names()
        row = int(match.group(1)) if match else (names.index(key) if key in names else -1)
        if not 0 <= row < self.table.rowCount():
            return False
        was = self._filling
        self._filling = True            # a colour change is not an edit by the user
        for col in (COL_NAME, COL_SIZE, COL_DOMAIN):
            item = self.table.item(row, col)
            if item is not None:
                item.setBackground(QBrush(ERROR_BACKGROUND))
        self._filling = was
        return True

    def _clear_marks(self) -> None:
        was = self._filling
        self._filling = True
        for row in range(self.table.rowCount()):
            for col in (COL_NAME, COL_SIZE, COL_DOMAIN):
                item = self.table.item(row, col)
                if item is not None:
                    item.setBackground(QBrush())
        self._filling = was

    # ------------------------------------------------------------------ building the table

    def _fill_table(self) -> None:
        self._filling = True
        self.table.setRowCount(len(self._columns))
        for row, column in enumerate(self._columns):
            name = QTableWidgetItem(str(column.get("name", "")))
            name.setFlags(Qt.ItemFlag.ItemIsEnabled)
            self.table.setItem(row, COL_NAME, name)
            self.table.setCellWidget(row, COL_ROLE, self._combo(
                ROLES, ROLE_TEXTS, column.get("role", "quasi_identifier"),
                lambda _i, r=row: self._on_role_changed(r),
                "Quasi-identifier: the attacker knows it about the target. Sensitive: what the "
                "attacker tries to learn. Ignore: not used by the audit."))
            self.table.setCellWidget(row, COL_KIND, self._combo(
                KINDS, KIND_TEXTS, column.get("kind", "categorical"),
                lambda _i, r=row: self._on_kind_changed(r),
                "Categories: a list of values. Whole numbers: a range or bins. Real numbers: "
                "always cut into bins so the values fall in a finite domain."))
            size = QTableWidgetItem()
            size.setFlags(Qt.ItemFlag.ItemIsEnabled)
            self.table.setItem(row, COL_SIZE, size)
            domain = QTableWidgetItem()
            flags = Qt.ItemFlag.ItemIsEnabled
            if self._editable:
                flags |= Qt.ItemFlag.ItemIsEditable | Qt.ItemFlag.ItemIsSelectable
            domain.setFlags(flags)
            self.table.setItem(row, COL_DOMAIN, domain)
            self._show_row(row)
        self._filling = False
        self._fit_height()

    def _combo(self, values, texts, current, on_change, tip) -> QComboBox:
        combo = QComboBox()
        for value in values:
            combo.addItem(texts[value], value)
        index = combo.findData(current)
        if index < 0:                       # a value the engine will name in its sentence
            combo.addItem(str(current), current)
            index = combo.count() - 1
        combo.setCurrentIndex(index)
        combo.setEnabled(self._editable)
        combo.setToolTip(tip)
        combo.currentIndexChanged.connect(on_change)
        return combo

    def _show_row(self, row: int) -> None:
        """Refresh the summary and domain cells of ``row`` from its dict."""
        was = self._filling
        self._filling = True
        column = self._columns[row]
        self.table.item(row, COL_SIZE).setText(domain_summary(column))
        text = domain_text(column)
        item = self.table.item(row, COL_DOMAIN)
        item.setText(text)
        item.setToolTip(text if len(text) > 40 else self.table.toolTip())
        self._filling = was

    def _fit_height(self) -> None:
        """Every row visible: the table sits in a scrolling step page, and an inner scroll bar
        would hide columns of the file."""
        self.table.resizeRowsToContents()
        for row in range(self.table.rowCount()):       # never squeeze the role/kind combos
            combo = self.table.cellWidget(row, COL_ROLE)
            if combo is not None:
                self.table.setRowHeight(row, max(self.table.rowHeight(row),
                                                 combo.sizeHint().height() + 2))
        rows = sum(self.table.rowHeight(r) for r in range(self.table.rowCount()))
        header = self.table.horizontalHeader().sizeHint().height()
        self.table.setFixedHeight(max(rows + header + 2 * self.table.frameWidth() + 4, 90))

    def resizeEvent(self, event) -> None:  # noqa: N802 (Qt's name)
        """The domain column takes the width left, so wrapped rows change height with it."""
        super().resizeEvent(event)
        self._fit_height()

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
        self._edited()

    def _on_role_changed(self, row: int) -> None:
        if self._filling:
            return
        role = self.table.cellWidget(row, COL_ROLE).currentData()
        column = self._columns[row]
        if role == "sensitive":
            self._make_sensitive(column["name"])
        else:
            column["role"] = role
        self._sync_role_combos()
        self._sync_chooser()
        self._edited()

    def _on_kind_changed(self, row: int) -> None:
        if self._filling:
            return
        kind = self.table.cellWidget(row, COL_KIND).currentData()
        self._columns[row] = convert_kind(self._columns[row], kind)
        self._show_row(row)
        self._fill_chooser()
        self._edited()

    def _on_item_changed(self, item: QTableWidgetItem) -> None:
        if self._filling or item.column() != COL_DOMAIN:
            return
        row = item.row()
        column = self._columns[row]
        keep = {k: column[k] for k in ("name", "role", "kind") if k in column}
        self._columns[row] = {**keep, **parse_domain(column.get("kind", "categorical"),
                                                     item.text())}
        self._filling = True
        self.table.item(row, COL_SIZE).setText(domain_summary(self._columns[row]))
        self._filling = False
        self._fill_chooser()
        self._edited()

    def _sync_role_combos(self) -> None:
        self._filling = True
        for row, column in enumerate(self._columns):
            combo = self.table.cellWidget(row, COL_ROLE)
            index = combo.findData(column.get("role"))
            if index >= 0:
                combo.setCurrentIndex(index)
        self._filling = False

    def _sync_chooser(self) -> None:
        current = next((str(c.get("name")) for c in self._columns
                        if c.get("role") == "sensitive"), NO_SENSITIVE)
        self.sensitive_combo.blockSignals(True)
        index = self.sensitive_combo.findData(current)
        self.sensitive_combo.setCurrentIndex(max(index, 0))
        self.sensitive_combo.blockSignals(False)

    def _edited(self) -> None:
        self.check()
        self.changed.emit()


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


def _sentence(exc: InputError) -> str:
    text = exc.one_line() if hasattr(exc, "one_line") else str(exc)
    for prefix in ("schema: ", "settings: ", "config: "):
        if text.startswith(prefix):
            text = text[len(prefix):]
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


def csv_header(path: Path) -> list[str] | None:
    """The column names of a CSV (None when the file cannot be read: loading says why)."""
    try:
        with open(path, encoding="utf-8-sig", newline="") as fh:
            for row in csv.reader(fh):
                if any(cell.strip() for cell in row):
                    return [cell.strip() for cell in row]
    except (OSError, UnicodeDecodeError, csv.Error):
        return None
    return None


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
