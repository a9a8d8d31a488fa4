"""The table both schema editors are made of: one row per column of a CSV, its name, drop-downs
for what the audit does with it, a few read-only summaries and a one-line check under it.

The count-tables page edits a microdata schema (:mod:`gui.widgets.schema_editor`: quasi-
identifier / sensitive / ignore, domains) and the model page a training-data schema
(:mod:`gui.widgets.model_schema_editor`: feature / label / members / ignore, one-hot or scaled
numbers). What they share lives here, so both behave alike:

* the schema is kept as the dict the project saves, exactly as the user left it (a half-made
  schema stays in the dict, so the engine's sentence names it and nothing is lost);
* role and kind cells are drawn as drop-downs and a click opens a real one just for the choice
  (:class:`ChoiceDelegate`): a file of hundreds of columns builds in a blink, and the mouse
  wheel over the table scrolls the page (as over the plots, ARCHITECTURE §7) — it never changes
  a role by accident;
* a mistake is the engine's sentence under the table and a shaded row, never a traceback;
* ``changed`` is emitted after every edit by the user, never while the table is being filled.
"""

from __future__ import annotations

import csv
import io
import re
from collections.abc import Iterable, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import ClassVar

from PySide6.QtCore import QSize, Qt, QTimer, Signal
from PySide6.QtGui import QBrush, QColor
from PySide6.QtWidgets import (
    QAbstractItemDelegate,
    QAbstractItemView,
    QComboBox,
    QHeaderView,
    QLabel,
    QStyle,
    QStyledItemDelegate,
    QStyleOptionComboBox,
    QTableWidget,
    QTableWidgetItem,
    QVBoxLayout,
    QWidget,
)

from engine.data.errors import InputError
from engine.data.paths import open_regular_file, resolve_path

ERROR_BACKGROUND = QColor(255, 205, 210)
STATUS_COLOUR, ERROR_COLOUR = "#444", "#c62828"
SOURCE_PREFIXES = ("schema: ", "settings: ", "config: ")
VALUE_ROLE = Qt.ItemDataRole.UserRole            # a choice cell's value ("feature", …)
CHOICES_ROLE = Qt.ItemDataRole.UserRole + 1      # its ((value, text), …) choices


class ChoiceCombo(QComboBox):
    """The drop-down that opens on a choice cell. It leaves the mouse wheel to the page (a
    wheel turn must scroll, not change a role), and says when its list closes, chosen or not,
    so the cell takes the choice and the drop-down goes."""

    popup_closed = Signal()

    def wheelEvent(self, event) -> None:  # noqa: N802 (Qt's name)
        event.ignore()

    def hidePopup(self) -> None:  # noqa: N802 (Qt's name)
        super().hidePopup()
        self.popup_closed.emit()


class ChoiceDelegate(QStyledItemDelegate):
    """Choice cells drawn as drop-downs, with a real one only while the user chooses: a file of
    hundreds of columns would otherwise need two widgets a row (seconds to build, and each
    one a trap for the mouse wheel). Other cells are drawn as usual."""

    def __init__(self, parent=None) -> None:
        super().__init__(parent)
        self._sizes: dict[tuple[str, ...], QSize] = {}

    @staticmethod
    def _choices(index) -> tuple | None:
        choices = index.data(CHOICES_ROLE)
        return tuple(choices) if choices else None

    @staticmethod
    def _text(index) -> str:
        value = index.data(VALUE_ROLE)
        return next((text for v, text in index.data(CHOICES_ROLE) or () if v == value),
                    str(value))

    def _option(self, option, index) -> QStyleOptionComboBox:
        widget = option.widget
        opt = QStyleOptionComboBox()
        if widget is not None:
            opt.initFrom(widget)
        opt.rect = option.rect.adjusted(1, 1, -1, -1)
        opt.currentText = self._text(index)
        opt.frame = True
        opt.editable = False
        flags = index.flags()
        if flags & Qt.ItemFlag.ItemIsEnabled and flags & Qt.ItemFlag.ItemIsEditable:
            opt.state |= QStyle.StateFlag.State_Enabled
            if option.state & QStyle.StateFlag.State_MouseOver:
                opt.state |= QStyle.StateFlag.State_MouseOver
        else:
            opt.state &= ~QStyle.StateFlag.State_Enabled
            opt.palette.setCurrentColorGroup(opt.palette.ColorGroup.Disabled)
        return opt

    def paint(self, painter, option, index) -> None:
        if self._choices(index) is None:
            super().paint(painter, option, index)
            return
        widget = option.widget
        style = widget.style() if widget is not None else None
        if style is None:
            super().paint(painter, option, index)
            return
        opt = self._option(option, index)
        style.drawComplexControl(QStyle.ComplexControl.CC_ComboBox, opt, painter, widget)
        style.drawControl(QStyle.ControlElement.CE_ComboBoxLabel, opt, painter, widget)

    def sizeHint(self, option, index) -> QSize:  # noqa: N802 (Qt's name)
        choices = self._choices(index)
        widget = option.widget
        if choices is None or widget is None:
            return super().sizeHint(option, index)
        # The header sizes its columns from many rows on every layout: measure each list of
        # choices once.
        key = tuple(text for _value, text in choices)
        size = self._sizes.get(key)
        if size is None:
            metrics = option.fontMetrics
            width = max(metrics.horizontalAdvance(text) for text in key)
            opt = self._option(option, index)
            size = widget.style().sizeFromContents(QStyle.ContentsType.CT_ComboBox, opt,
                                                   QSize(width, metrics.height()), widget)
            self._sizes[key] = size
        return size

    def createEditor(self, parent, option, index):  # noqa: N802 (Qt's name)
        choices = self._choices(index)
        if choices is None:
            return super().createEditor(parent, option, index)
        combo = ChoiceCombo(parent)
        for value, text in choices:
            combo.addItem(text, value)
        combo.setToolTip(str(index.data(Qt.ItemDataRole.ToolTipRole) or ""))

        def commit(_row: int, combo=combo) -> None:
            self.commitData.emit(combo)

        def close(combo=combo) -> None:
            # Once: the view's own focus handling must not close (or commit) it again.
            if combo.property("closed"):
                return
            combo.setProperty("closed", True)
            combo.removeEventFilter(self)
            self.closeEditor.emit(combo, QAbstractItemDelegate.EndEditHint.NoHint)

        # A choice is committed when made ("activated" comes after the list has closed); the
        # drop-down goes when its list closes, chosen or not (Esc, a click elsewhere).
        combo.activated.connect(commit)
        combo.popup_closed.connect(lambda combo=combo: QTimer.singleShot(0, combo, close))
        QTimer.singleShot(0, combo, combo.showPopup)      # one click opens the list
        return combo

    def setEditorData(self, editor, index) -> None:  # noqa: N802 (Qt's name)
        if isinstance(editor, ChoiceCombo):
            editor.setCurrentIndex(max(editor.findData(index.data(VALUE_ROLE)), 0))
        else:
            super().setEditorData(editor, index)

    def setModelData(self, editor, model, index) -> None:  # noqa: N802 (Qt's name)
        if isinstance(editor, ChoiceCombo):
            model.setData(index, editor.currentData(), VALUE_ROLE)
        else:
            super().setModelData(editor, model, index)

    def updateEditorGeometry(self, editor, option, index) -> None:  # noqa: N802 (Qt's name)
        editor.setGeometry(option.rect)


def error_sentence(exc: Exception) -> str:
    """The engine's sentence without the source prefix ("schema: …") the editor adds."""
    text = exc.one_line() if hasattr(exc, "one_line") else str(exc)
    for prefix in SOURCE_PREFIXES:
        if text.startswith(prefix):
            text = text[len(prefix):]
    return text


def csv_header(path: Path) -> list[str] | None:
    """The column names of a CSV (None when the file cannot be read: loading says why)."""
    try:
        # A regular file only (a named pipe would freeze the window in open(), a device never
        # ends), and no more of it than its size.
        raw, size = open_regular_file(resolve_path(path), "CSV file")
        with raw, io.TextIOWrapper(raw, encoding="utf-8-sig", newline="") as fh:
            for row in csv.reader(_bounded_lines(fh, size)):
                if any(cell.strip() for cell in row):
                    return [cell.strip() for cell in row]
    except (InputError, OSError, UnicodeDecodeError, csv.Error):
        return None
    return None


def _bounded_lines(fh, size: int):
    """The lines of ``fh`` until ``size`` characters were read (a file that grows while the
    header is looked for is not followed further)."""
    read = 0
    for line in fh:
        read += len(line)
        if read > size + 1:
            return
        yield line


class SchemaTable(QWidget):
    """A schema as a table, one row per column; a subclass says what the cells hold.

    A subclass sets ``HEADERS``, ``ROLE_COLUMN`` (the column of the role choice),
    ``STRETCH_COLUMN`` (the one that takes the width left) and ``MARKED_COLUMNS`` (shaded when
    the engine names the row), and implements :meth:`fill_row`, :meth:`choice_changed` and
    :meth:`summary`. Column 0 is always the column's name. Choice cells (:meth:`choice_item`)
    look and work like drop-downs. ``MAX_VISIBLE_ROWS``: ``None`` shows every row (the table
    sits in a scrolling step page); a number caps the height and the table scrolls inside (a
    file of hundreds of columns), passing the wheel on to the page at its ends.
    """

    changed = Signal()

    HEADERS: ClassVar[tuple[str, ...]] = ("Column",)
    NAME_COLUMN: ClassVar[int] = 0
    ROLE_COLUMN: ClassVar[int] = 1
    STRETCH_COLUMN: ClassVar[int] = -1
    MARKED_COLUMNS: ClassVar[tuple[int, ...]] = (0,)
    MAX_VISIBLE_ROWS: ClassVar[int | None] = None
    MIN_HEIGHT: ClassVar[int] = 90
    SCHEMA_VERSION: ClassVar[int] = 1
    EMPTY_MESSAGE: ClassVar[str] = "No schema yet: choose a CSV file and it is read from it."

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self._columns: list[dict] = []
        self._editable = True
        self._filling = False

        self.table = QTableWidget(0, len(self.HEADERS))
        self.table.setHorizontalHeaderLabels(list(self.HEADERS))
        self.table.verticalHeader().setVisible(False)
        self.delegate = ChoiceDelegate(self.table)
        self.table.setItemDelegate(self.delegate)
        self.table.setMouseTracking(True)              # drop-downs light up under the mouse
        # One line per column of the file: a long text is elided (its tooltip shows it whole).
        self.table.setWordWrap(False)
        self.table.setTextElideMode(Qt.TextElideMode.ElideRight)
        self.table.setSelectionMode(QAbstractItemView.SelectionMode.NoSelection)
        self.table.setVerticalScrollMode(QAbstractItemView.ScrollMode.ScrollPerPixel)
        # Rows never wrap, so all are as high as a drop-down: no row is measured again when
        # the window is resized, even for a file of hundreds of columns.
        rows = self.table.verticalHeader()
        rows.setSectionResizeMode(QHeaderView.ResizeMode.Fixed)
        rows.setDefaultSectionSize(max(rows.defaultSectionSize(),
                                       QComboBox().sizeHint().height() + 2))
        header = self.table.horizontalHeader()
        header.setResizeContentsPrecision(200)     # widths from the first rows of a wide file
        stretch = self.STRETCH_COLUMN % len(self.HEADERS)
        for col in range(len(self.HEADERS)):
            header.setSectionResizeMode(col, QHeaderView.ResizeMode.Stretch if col == stretch
                                        else QHeaderView.ResizeMode.ResizeToContents)
        self.table.itemChanged.connect(self._item_changed)
        self.table.clicked.connect(self._clicked)
        self.status_label = QLabel()
        self.status_label.setWordWrap(True)
        self.status_label.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)

        self.main_layout = QVBoxLayout(self)
        self.main_layout.setContentsMargins(0, 0, 0, 0)
        self.main_layout.addWidget(self.table)
        self.main_layout.addWidget(self.status_label)

    # ------------------------------------------------------------------ supplied by a subclass

    def fill_row(self, row: int, column: dict) -> None:
        """Put the cells of ``row`` (all but the name) for ``column``; runs while filling."""
        raise NotImplementedError

    def choice_changed(self, row: int, col: int, value) -> None:
        """The user chose ``value`` in the choice cell (``row``, ``col``)."""
        raise NotImplementedError

    def summary(self) -> str:
        """What the schema means, in a sentence; InputError (the engine's rules) when it is
        not complete or not valid."""
        raise NotImplementedError

    def item_edited(self, item: QTableWidgetItem) -> None:
        """The user typed into an editable text cell (not called while filling)."""

    # ------------------------------------------------------------------ state in and out

    def load_columns(self, schema: dict | None) -> None:
        """Take the columns of ``schema`` (a saved dict, maybe half-typed; {} for none)."""
        columns = (schema or {}).get("columns") if isinstance(schema, dict) else None
        self._columns = [dict(c) for c in columns if isinstance(c, dict)] \
            if isinstance(columns, list) else []

    def schema_dict(self) -> dict:
        """The schema as typed ({} when there are no columns), ready for config["schema"]."""
        if not self._columns:
            return {}
        return {"schema_version": self.SCHEMA_VERSION,
                "columns": [dict(c) for c in self._columns]}

    def column_names(self) -> list[str]:
        return [str(c.get("name", "")) for c in self._columns]

    def is_editable(self) -> bool:
        return self._editable

    def row_of(self, name: str) -> int:
        """The row of column ``name`` (ValueError if there is none)."""
        return self.column_names().index(name)

    def set_role(self, name: str, role: str) -> None:
        """Set the role of column ``name`` as if the user chose it."""
        self.choose(self.row_of(name), self.ROLE_COLUMN, role)

    # ------------------------------------------------------------------ choice cells

    def choice_item(self, values: Iterable[str], texts: dict[str, str], current,
                    tip: str, enabled: bool = True) -> QTableWidgetItem:
        """A cell that is a drop-down of ``values`` shown as ``texts``; a value it does not
        know (a typo in a saved file) is offered as it is, so the engine's sentence can name
        it."""
        choices = [(value, texts[value]) for value in values]
        if current not in {value for value, _text in choices}:
            choices.append((current, str(current)))
        item = QTableWidgetItem()
        item.setData(CHOICES_ROLE, choices)
        item.setData(VALUE_ROLE, current)
        item.setToolTip(tip)
        self._set_flags(item, enabled)
        return item

    def _set_flags(self, item: QTableWidgetItem, enabled: bool) -> None:
        on = enabled and self._editable
        item.setFlags(Qt.ItemFlag.ItemIsEnabled | Qt.ItemFlag.ItemIsEditable if on
                      else Qt.ItemFlag.NoItemFlags)

    def is_choice(self, row: int, col: int) -> bool:
        item = self.table.item(row, col)
        return item is not None and bool(item.data(CHOICES_ROLE))

    def value(self, row: int, col: int):
        """The value chosen in a choice cell (None for another cell)."""
        item = self.table.item(row, col)
        return item.data(VALUE_ROLE) if item is not None and self.is_choice(row, col) else None

    def is_enabled(self, row: int, col: int) -> bool:
        item = self.table.item(row, col)
        return item is not None and bool(item.flags() & Qt.ItemFlag.ItemIsEditable)

    def choose(self, row: int, col: int, value) -> None:
        """Choose ``value`` in a choice cell as the user would."""
        item = self.table.item(row, col)
        if item is not None and self.is_enabled(row, col):
            item.setData(VALUE_ROLE, value)

    def select(self, row: int, col: int, value) -> None:
        """Show ``value`` in a choice cell without it counting as an edit."""
        if not self.is_choice(row, col):
            return
        item = self.table.item(row, col)
        with self.filling():
            choices = [tuple(c) for c in item.data(CHOICES_ROLE)]
            if value not in {v for v, _text in choices}:
                item.setData(CHOICES_ROLE, [*choices, (value, str(value))])
            item.setData(VALUE_ROLE, value)

    def set_enabled(self, row: int, col: int, enabled: bool) -> None:
        item = self.table.item(row, col)
        if item is not None:
            with self.filling():
                self._set_flags(item, enabled)

    def put(self, row: int, col: int, item: QTableWidgetItem) -> None:
        """Put ``item`` in a cell (a choice or a text), not as an edit by the user."""
        with self.filling():
            self.table.setItem(row, col, item)

    # ------------------------------------------------------------------ building the table

    @contextmanager
    def filling(self) -> Iterator[None]:
        """Changes made inside are the editor's own, not edits by the user."""
        was = self._filling
        self._filling = True
        try:
            yield
        finally:
            self._filling = was

    def is_filling(self) -> bool:
        return self._filling

    def fill_table(self) -> None:
        """One row per column: its name, then what :meth:`fill_row` puts."""
        with self.filling():
            self.table.setRowCount(len(self._columns))
            for row, column in enumerate(self._columns):
                self.table.setItem(row, self.NAME_COLUMN,
                                   self.text_item(str(column.get("name", ""))))
                self.fill_row(row, column)
        self.fit_height()

    @staticmethod
    def text_item(text: str, tip: str = "", editable: bool = False) -> QTableWidgetItem:
        """A cell of text, read-only unless ``editable``."""
        item = QTableWidgetItem(text)
        flags = Qt.ItemFlag.ItemIsEnabled
        if editable:
            flags |= Qt.ItemFlag.ItemIsEditable | Qt.ItemFlag.ItemIsSelectable
        item.setFlags(flags)
        # A cell is one line and elided when too long: without a tip of its own, its whole
        # text shows on hover (issue 21).
        if tip or text:
            item.setToolTip(tip or text)
        return item

    def set_text(self, row: int, col: int, text: str, tip: str = "") -> None:
        """Show ``text`` in a read-only cell (replacing a choice that was there)."""
        item = self.table.item(row, col)
        if item is None or self.is_choice(row, col):
            self.put(row, col, self.text_item(text, tip))
            return
        with self.filling():
            item.setText(text)
            item.setToolTip(tip or text)

    def fit_height(self) -> None:
        """Every row visible (no inner scroll bar to hide columns of the file), up to
        ``MAX_VISIBLE_ROWS`` rows; a longer table scrolls inside."""
        shown = self.table.rowCount()
        if self.MAX_VISIBLE_ROWS is not None:
            shown = min(shown, self.MAX_VISIBLE_ROWS)
        rows = shown * self.table.verticalHeader().defaultSectionSize()
        header = self.table.horizontalHeader().sizeHint().height()
        bar = self.table.horizontalScrollBar()
        extra = bar.sizeHint().height() if bar.isVisible() else 0
        self.table.setFixedHeight(max(rows + header + extra + 2 * self.table.frameWidth() + 4,
                                      self.MIN_HEIGHT))

    def resizeEvent(self, event) -> None:  # noqa: N802 (Qt's name)
        """A narrower window may bring the sideways scroll bar, which needs its room."""
        super().resizeEvent(event)
        self.fit_height()

    # ------------------------------------------------------------------ messages and marks

    def show_message(self, text: str, error: bool = False) -> None:
        self.status_label.setStyleSheet(f"color: {ERROR_COLOUR if error else STATUS_COLOUR};")
        self.status_label.setText(text)

    def mark_key(self, key: str) -> bool:
        """Shade the row of the column an engine error names (by name or "columns[i]"); True
        if a row was found (and scrolled into view)."""
        match = re.search(r"columns\[(\d+)\]", key)
        names = self.column_names()
        row = int(match.group(1)) if match else (names.index(key) if key in names else -1)
        if not 0 <= row < self.table.rowCount():
            return False
        with self.filling():            # a colour change is not an edit by the user
            for col in self.MARKED_COLUMNS:
                item = self.table.item(row, col)
                if item is not None:
                    item.setBackground(QBrush(ERROR_BACKGROUND))
        name = self.table.item(row, self.NAME_COLUMN)
        if name is not None:
            self.table.scrollToItem(name)
        return True

    def clear_marks(self) -> None:
        with self.filling():
            for row in range(self.table.rowCount()):
                for col in self.MARKED_COLUMNS:
                    item = self.table.item(row, col)
                    if item is not None:
                        item.setBackground(QBrush())

    # ------------------------------------------------------------------ reactions

    def _clicked(self, index) -> None:
        """One click on a drop-down cell opens its list."""
        if self.is_choice(index.row(), index.column()) \
                and self.is_enabled(index.row(), index.column()):
            self.table.edit(index)

    def _item_changed(self, item: QTableWidgetItem) -> None:
        if self._filling:
            return
        if item.data(CHOICES_ROLE):
            self.choice_changed(item.row(), item.column(), item.data(VALUE_ROLE))
        else:
            self.item_edited(item)

    def check(self) -> bool:
        """Check the schema with the engine's rules and say under the table what it means, or
        what is wrong (the row at fault shaded)."""
        self.clear_marks()
        if not self._columns:
            self.show_message(self.EMPTY_MESSAGE)
            return False
        try:
            text = self.summary()
        except InputError as exc:
            self.show_message(error_sentence(exc), error=True)
            self.mark_key(exc.key or "")
            return False
        self.show_message(text)
        return True

    def edited(self) -> None:
        """After an edit by the user: check, then tell the page."""
        self.check()
        self.changed.emit()
