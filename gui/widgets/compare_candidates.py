"""The Compare step's table of candidate releases (issue 34 item 1): one row per candidate, a
label and one column per setting the releaser controls (engine.compare.CONTROLLABLE), with an
editor fit to each setting — a drop-down for a choice, a text field for a number, a text field
for a table of settings (written as in the config file).

An empty cell (or "as the base" in a drop-down) means "the same as the base settings", so a
candidate's overrides are exactly the cells the officer filled in, and "what differs" reads off
the row. Cells never validate by themselves: the values go to the engine
(``CandidateSet.configs`` / ``engine.compare.validate``), whose sentence is shown at the cell it
names, with the typed text kept (ARCHITECTURE §7: bad input gets a sentence at the field).
"""

from __future__ import annotations

import json
import tomllib
from collections.abc import Mapping

from PySide6.QtCore import QEvent, Signal
from PySide6.QtWidgets import (
    QAbstractItemView,
    QComboBox,
    QHBoxLayout,
    QHeaderView,
    QLabel,
    QLineEdit,
    QPushButton,
    QTableWidget,
    QVBoxLayout,
    QWidget,
)

from engine.compare import CONTROLLABLE, MAX_CANDIDATES, Candidate
from gui.widgets.form import ERROR_STYLE, ERROR_TEXT_COLOUR, format_value, parse_value

LABEL_COLUMN = 0
AS_BASE = "as the base"


class CellError(ValueError):
    """A cell whose text cannot be read as a value (a table of settings with a typo)."""

    def __init__(self, row: int, key: str, sentence: str) -> None:
        super().__init__(sentence)
        self.row, self.key, self.sentence = row, key, sentence


def choices_for(audit_type: str, key: str) -> tuple[str, ...] | None:
    """The values a choice setting accepts: the very tuples the audit's ``Config.from_dict``
    checks against, so the drop-down offers nothing the engine would refuse."""
    from engine.aggregates.release import BUDGETS
    from engine.aggregates.release import MECHANISMS as TABLE_NOISES
    from engine.audits import aggregates, location, mechanism, model
    from engine.mechanisms.arguments import MECHANISM_NAMES

    table = {("mechanism", "mechanism"): tuple(MECHANISM_NAMES),
             ("mechanism", "postprocess"): mechanism.POSTPROCESS_MODES,
             ("location", "mechanism"): location.MECHANISMS,
             ("aggregates", "release"): aggregates.RELEASE_KINDS,
             ("aggregates", "mechanism"): tuple(TABLE_NOISES),
             ("aggregates", "budget"): tuple(BUDGETS),
             ("model", "family"): model.FAMILIES,
             ("model", "architecture"): model.ARCHITECTURES}
    return table.get((audit_type, key))


def plain_choice(value: str) -> str:
    return str(value).replace("_", " ")


def is_table_value(value) -> bool:
    return isinstance(value, (Mapping, list, tuple))


def value_text(value) -> str:
    """A value as its cell shows it: a number as written, a table of settings as JSON."""
    if is_table_value(value):
        return json.dumps(value, ensure_ascii=False, default=str)
    return format_value(value)


def read_table_text(text: str):
    """A table of settings typed in a cell: JSON, or a TOML inline table / array (as a
    config file writes it); ValueError when it is neither."""
    try:
        return json.loads(text)
    except ValueError:
        pass
    try:
        return tomllib.loads(f"v = {text}")["v"]
    except tomllib.TOMLDecodeError:
        raise ValueError(text) from None


class CandidateTable(QWidget):
    """The candidates as a table with Add / Duplicate / Remove (module docstring)."""

    changed = Signal()

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.audit_type = ""
        self.base: dict = {}
        self.keys: tuple[tuple[str, str], ...] = ()
        self.table = QTableWidget(0, 1)
        self.table.setObjectName("compareCandidates")
        self.table.setSelectionBehavior(QAbstractItemView.SelectionBehavior.SelectRows)
        self.table.setSelectionMode(QAbstractItemView.SelectionMode.SingleSelection)
        self.table.verticalHeader().setDefaultSectionSize(32)
        self.table.setMinimumHeight(170)
        self.add_button = QPushButton("Add candidate")
        self.add_button.setToolTip("Another candidate release, with the base settings; change "
                                   "the cells that differ.")
        self.duplicate_button = QPushButton("Duplicate")
        self.duplicate_button.setToolTip("A copy of the selected candidate, to change one "
                                         "setting of it.")
        self.remove_button = QPushButton("Remove")
        self.remove_button.setToolTip("Leave the selected candidate out of the comparison.")
        self.add_button.clicked.connect(lambda: self.add_candidate())
        self.duplicate_button.clicked.connect(self.duplicate_selected)
        self.remove_button.clicked.connect(self.remove_selected)
        self.error_label = QLabel("")
        self.error_label.setObjectName("compareError")
        self.error_label.setWordWrap(True)
        self.error_label.setStyleSheet(f"color: {ERROR_TEXT_COLOUR}; font-weight: bold;")
        self.error_label.setVisible(False)
        buttons = QHBoxLayout()
        for b in (self.add_button, self.duplicate_button, self.remove_button):
            buttons.addWidget(b)
        buttons.addStretch(1)
        layout = QVBoxLayout(self)
        layout.setContentsMargins(0, 0, 0, 0)
        layout.addWidget(self.table, 1)
        layout.addLayout(buttons)
        layout.addWidget(self.error_label)

    # ------------------------------------------------------------------ building

    def set_base(self, audit_type: str, base: Mapping) -> None:
        """The audit type and the base settings; the rows are kept when the columns do not
        change (a new base keeps what was typed). A key the base leaves out shows the
        audit's default, which is what the engine will use for it."""
        from engine.audits.registry import AUDIT_TYPES

        entry = AUDIT_TYPES.get(audit_type)
        full = {**(entry.config().to_dict() if entry is not None else {}), **dict(base)}
        keys = tuple((k, label) for k, label in CONTROLLABLE.get(audit_type, ())
                     if k in full)
        rows = self.rows_text() if keys == self.keys else []
        self.audit_type, self.base, self.keys = audit_type, full, keys
        self.table.clear()
        self.table.setRowCount(0)
        self.table.setColumnCount(1 + len(keys))
        self.table.setHorizontalHeaderLabels(["Label", *(label for _, label in keys)])
        for col, (key, label) in enumerate(keys, 1):
            item = self.table.horizontalHeaderItem(col)
            item.setToolTip(f"{label} (the setting '{key}'); empty: as the base, "
                            f"{value_text(self.base.get(key)) or 'not set'}.")
        header = self.table.horizontalHeader()
        # Each column as wide as its header and editors ("as the base (discrete laplace)"), so
        # no label is cut; the table scrolls sideways when the window is narrower.
        header.setSectionResizeMode(QHeaderView.ResizeMode.ResizeToContents)
        header.setStretchLastSection(True)
        header.setMinimumSectionSize(90)
        for row in rows:
            self._append(row)

    def _editor(self, key: str) -> QWidget:
        base_value = self.base.get(key)
        choices = choices_for(self.audit_type, key)
        if choices is not None and not is_table_value(base_value):
            combo = QComboBox()
            combo.addItem(f"{AS_BASE} ({plain_choice(base_value)})", None)
            for value in choices:
                combo.addItem(plain_choice(value), value)
            combo.currentIndexChanged.connect(lambda _i, w=combo: self._edited(w))
            return combo
        edit = QLineEdit()
        edit.setPlaceholderText(value_text(base_value) or AS_BASE)
        edit.setToolTip("Empty: the base's value. " + (
            "A table of settings, written as in the config file." if is_table_value(base_value)
            else ""))
        edit.textEdited.connect(lambda _t, w=edit: self._edited(w))
        return edit

    def _edited(self, widget: QWidget) -> None:
        widget.setStyleSheet("")
        widget.setToolTip(getattr(widget, "plain_tip", widget.toolTip()))
        self.changed.emit()

    def _append(self, texts: Mapping) -> int:
        row = self.table.rowCount()
        self.table.insertRow(row)
        label = QLineEdit(str(texts.get("label", "")))
        label.setPlaceholderText("a short name, e.g. “ε = 1”")
        label.textEdited.connect(lambda _t, w=label: self._edited(w))
        label.plain_tip = ""
        label.installEventFilter(self)
        self.table.setCellWidget(row, LABEL_COLUMN, label)
        for col, (key, _label) in enumerate(self.keys, 1):
            editor = self._editor(key)
            editor.plain_tip = editor.toolTip()
            text = texts.get(key)
            if isinstance(editor, QComboBox):
                index = editor.findData(text) if text is not None else 0
                editor.setCurrentIndex(max(index, 0))
            elif text is not None:
                editor.setText(str(text))
            editor.installEventFilter(self)
            self.table.setCellWidget(row, col, editor)
        self._update_buttons()
        self.changed.emit()
        return row

    def add_candidate(self, label: str = "", overrides: Mapping | None = None) -> int:
        """A new row (``overrides`` as values); returns its row."""
        texts: dict = {"label": label}
        for key, value in (overrides or {}).items():
            texts[key] = value if choices_for(self.audit_type, key) else value_text(value)
        return self._append(texts)

    def eventFilter(self, watched, event) -> bool:  # noqa: N802 (Qt's name)
        """A click into a cell's editor selects its row (an editor takes the click, so the
        table alone would not), so Duplicate and Remove act on the row being edited."""
        if event.type() == QEvent.Type.FocusIn and isinstance(watched, QWidget):
            row = self.table.indexAt(watched.pos()).row()
            if row >= 0 and row != self.selected_row():
                self.table.selectRow(row)
        return super().eventFilter(watched, event)

    def selected_row(self) -> int:
        rows = self.table.selectionModel().selectedRows() if self.table.selectionModel() else []
        if rows:
            return rows[0].row()
        current = self.table.currentRow()
        return current if current >= 0 else self.table.rowCount() - 1

    def duplicate_selected(self) -> None:
        row = self.selected_row()
        if row < 0:
            return
        texts = self.rows_text()[row]
        texts["label"] = (texts.get("label") or f"candidate {row + 1}") + " (copy)"
        self.table.selectRow(self._append(texts))

    def remove_selected(self) -> None:
        row = self.selected_row()
        if row >= 0:
            self.table.removeRow(row)
            self._update_buttons()
            self.changed.emit()

    def clear_rows(self) -> None:
        self.table.setRowCount(0)
        self._update_buttons()

    def _update_buttons(self) -> None:
        full = self.table.rowCount() >= MAX_CANDIDATES
        self.add_button.setEnabled(not full and self.isEnabled())
        self.duplicate_button.setEnabled(not full and self.table.rowCount() > 0)
        self.remove_button.setEnabled(self.table.rowCount() > 0)
        tip = (f"A comparison takes at most {MAX_CANDIDATES} candidates." if full else "")
        self.add_button.setStatusTip(tip)

    # ------------------------------------------------------------------ reading

    def cell(self, row: int, key: str) -> QWidget | None:
        if key == "label":
            return self.table.cellWidget(row, LABEL_COLUMN)
        for col, (k, _label) in enumerate(self.keys, 1):
            if k == key:
                return self.table.cellWidget(row, col)
        return None

    def rows_text(self) -> list[dict]:
        """Every row as typed: {"label": text, key: text (or the choice's value)} — what a
        failed or cancelled run must keep, and what the window saves."""
        out = []
        for row in range(self.table.rowCount()):
            label = self.table.cellWidget(row, LABEL_COLUMN)
            texts: dict = {"label": label.text() if label is not None else ""}
            for col, (key, _label) in enumerate(self.keys, 1):
                w = self.table.cellWidget(row, col)
                if isinstance(w, QComboBox):
                    if w.currentData() is not None:
                        texts[key] = w.currentData()
                elif w is not None and w.text().strip():
                    texts[key] = w.text()
            out.append(texts)
        return out

    def set_rows_text(self, rows: list[Mapping]) -> None:
        self.clear_rows()
        for texts in rows:
            self._append(texts)

    def candidates(self) -> list[Candidate]:
        """The rows as engine candidates: the label and the cells filled in (numbers read as
        numbers; a table of settings read from its text); CellError names a cell whose table
        text cannot be read."""
        out = []
        for row, texts in enumerate(self.rows_text()):
            overrides = {}
            for key, _label in self.keys:
                if key not in texts:
                    continue
                overrides[key] = self._value(row, key, texts[key])
            out.append(Candidate(label=str(texts.get("label", "")).strip(),
                                 overrides=overrides))
        return out

    def _value(self, row: int, key: str, text):
        base_value = self.base.get(key)
        if choices_for(self.audit_type, key) and not is_table_value(base_value):
            return text
        if is_table_value(base_value):
            try:
                return read_table_text(str(text).strip())
            except ValueError:
                label = dict(self.keys).get(key, key)
                raise CellError(row, key, f"Candidate {row + 1}, “{label}”: cannot be read as "
                                "a table of settings; write it as the base's value is written "
                                f"(e.g. {value_text(base_value)[:60]}), or leave the cell "
                                "empty to keep the base's.") from None
        integer = isinstance(base_value, int) and not isinstance(base_value, bool)
        return parse_value(str(text), integer)

    # ------------------------------------------------------------------ errors at the cell

    def show_error(self, sentence: str, row: int | None = None, key: str | None = None) -> None:
        """The sentence under the table, and the cell it is about marked (its tooltip the
        sentence), with the text left as typed."""
        self.error_label.setText(sentence)
        self.error_label.setVisible(True)
        widget = self.cell(row, key.split(".")[0]) if row is not None and key else None
        if widget is not None:
            widget.setStyleSheet(ERROR_STYLE)
            widget.setToolTip(sentence)
            column = self.table.indexAt(widget.pos()).column()
            self.table.scrollTo(self.table.model().index(row, max(column, 0)))
            widget.setFocus()

    def clear_errors(self) -> None:
        self.error_label.setText("")
        self.error_label.setVisible(False)
        for row in range(self.table.rowCount()):
            for col in range(self.table.columnCount()):
                w = self.table.cellWidget(row, col)
                if w is not None:
                    w.setStyleSheet("")
                    w.setToolTip(getattr(w, "plain_tip", ""))

    def marked_cells(self) -> list[tuple[int, str]]:
        """(row, key) of every cell marked with an error (the tests read it)."""
        out = []
        for row in range(self.table.rowCount()):
            for key in ("label", *(k for k, _ in self.keys)):
                w = self.cell(row, key)
                if w is not None and w.styleSheet() == ERROR_STYLE:
                    out.append((row, key))
        return out

    def set_editable(self, on: bool) -> None:
        self.table.setEnabled(on)
        for b in (self.add_button, self.duplicate_button, self.remove_button):
            b.setEnabled(on)
        if on:
            self._update_buttons()
