"""Read-only result tables shared by the results views: a table with headers and a tooltip,
filled with rows of text and sized to show at most ``max_visible`` rows without an inner
scroll bar (the results page scrolls as a whole).

Text is never cut (issue 21: "AUC, targets no… determined", attack names ending in "…"):
headers wrap at word boundaries and grow as high as their longest label needs at the
column's width (:class:`WrapHeader`), cells wrap and rows grow to their text, and every cell
carries its whole text as its tooltip, for a column too narrow even so.
"""

from __future__ import annotations

from PySide6.QtCore import QRect, QSize, Qt, QTimer
from PySide6.QtWidgets import (
    QAbstractItemView,
    QHeaderView,
    QStyle,
    QStyleOptionHeader,
    QTableView,
    QTableWidget,
    QTableWidgetItem,
)

HEADER_PADDING = 12         # the style's margins around a header label, in pixels


class WrapHeader(QHeaderView):
    """A horizontal header whose labels wrap at word boundaries instead of being elided, and
    that is as high as the most-wrapped label needs at its column's current width."""

    def __init__(self, parent: QTableView) -> None:
        super().__init__(Qt.Orientation.Horizontal, parent)
        self.setDefaultAlignment(Qt.AlignmentFlag.AlignCenter | Qt.TextFlag.TextWordWrap)
        self.setTextElideMode(Qt.TextElideMode.ElideNone)
        self.setSectionsClickable(False)
        self.on_height_changed = None         # the table's refit, called when widths change
        self._pending = False
        self.sectionResized.connect(self._schedule_refit)

    def label_height(self, logical: int) -> int:
        """Height of column ``logical``'s label wrapped at the column's width."""
        text = self.model().headerData(logical, self.orientation(),
                                       Qt.ItemDataRole.DisplayRole) if self.model() else ""
        width = max(self.sectionSize(logical) - HEADER_PADDING, 24)
        rect = self.fontMetrics().boundingRect(
            QRect(0, 0, width, 100_000),
            int(Qt.AlignmentFlag.AlignCenter | Qt.TextFlag.TextWordWrap), str(text or ""))
        return rect.height() + HEADER_PADDING

    def needed_height(self) -> int:
        heights = [self.label_height(i) for i in range(self.count()) if not self.isSectionHidden(i)]
        return max(heights, default=self.fontMetrics().lineSpacing() + HEADER_PADDING)

    def paintSection(self, painter, rect: QRect, logical: int) -> None:  # noqa: N802 - Qt API
        """The style's section (frame, background) without its one-line label, then the
        label wrapped at word boundaries: styles elide or clip a header label, never wrap it."""
        if not rect.isValid():
            return
        text = self.model().headerData(logical, self.orientation(),
                                       Qt.ItemDataRole.DisplayRole) if self.model() else ""
        option = QStyleOptionHeader()
        self.initStyleOption(option)
        option.rect = rect
        option.section = logical
        option.text = ""
        painter.save()
        self.style().drawControl(QStyle.ControlElement.CE_Header, option, painter, self)
        painter.restore()
        half = HEADER_PADDING // 2
        painter.save()
        painter.setFont(self.font())
        painter.drawText(rect.adjusted(half, 2, -half, -2),
                         int(Qt.AlignmentFlag.AlignCenter | Qt.TextFlag.TextWordWrap),
                         str(text or ""))
        painter.restore()

    def sectionSizeFromContents(self, logical: int) -> QSize:   # noqa: N802 - Qt API
        size = super().sectionSizeFromContents(logical)
        return QSize(size.width(), max(size.height(), self.label_height(logical)))

    def sizeHint(self) -> QSize:                                # noqa: N802 - Qt API
        hint = super().sizeHint()
        return QSize(hint.width(), max(hint.height(), self.needed_height()))

    def _schedule_refit(self, *_args) -> None:
        """Widths change one column at a time while a table is laid out: refit once after."""
        if not self._pending:
            self._pending = True
            # With the header as the timer's context: a table closed before the timer fires
            # takes the pending refit with it (no call into a deleted header).
            QTimer.singleShot(0, self, self._refit)

    def _refit(self) -> None:
        self._pending = False
        self.updateGeometry()
        if self.on_height_changed is not None:
            self.on_height_changed()


def wrap_headers(table: QTableView) -> WrapHeader:
    """Give ``table`` a :class:`WrapHeader` (before its columns are configured: a new header
    starts with default section settings). The refit also runs after cells or columns change
    (a subclass that adds columns after the table was fitted)."""
    header = WrapHeader(table)
    table.setHorizontalHeader(header)
    model = table.model()
    model.dataChanged.connect(header._schedule_refit)
    model.columnsInserted.connect(header._schedule_refit)
    model.headerDataChanged.connect(header._schedule_refit)
    return header


def make_table(headers: list[str], tip: str = "", stretch: int = -1) -> QTableWidget:
    table = QTableWidget(0, len(headers))
    wrap_headers(table)
    table.setTextElideMode(Qt.TextElideMode.ElideNone)
    table.setHorizontalHeaderLabels(headers)
    table.verticalHeader().setVisible(False)
    table.setEditTriggers(QAbstractItemView.EditTrigger.NoEditTriggers)
    table.setAlternatingRowColors(True)
    table.setWordWrap(True)
    table.setToolTip(tip)
    header = table.horizontalHeader()
    header.setSectionResizeMode(QHeaderView.ResizeMode.ResizeToContents)
    header.setSectionResizeMode(stretch % len(headers), QHeaderView.ResizeMode.Stretch)
    return table


def fill_table(table: QTableWidget, rows: list[list[str]], max_visible: int = 12) -> None:
    table.setRowCount(len(rows))
    for r, cells in enumerate(rows):
        for c, text in enumerate(cells):
            item = QTableWidgetItem(text)
            item.setToolTip(text)
            table.setItem(r, c, item)
    _fit_rows(table, max_visible)
    header = table.horizontalHeader()
    if isinstance(header, WrapHeader):
        header.on_height_changed = lambda: _fit_rows(table, max_visible)


def _fit_rows(table: QTableWidget, max_visible: int) -> None:
    """Rows as high as their wrapped text, the header as high as its wrapped labels, and the
    table as high as ``max_visible`` rows (at the columns' current widths)."""
    table.resizeRowsToContents()
    shown = sum(table.rowHeight(r) for r in range(min(table.rowCount(), max_visible)))
    header = table.horizontalHeader()
    height = header.needed_height() if isinstance(header, WrapHeader) else \
        header.sizeHint().height()
    header.setFixedHeight(height)
    table.setFixedHeight(shown + height + 2 * table.frameWidth() + 4)


def shorten_unmeasurable(table: QTableWidget) -> None:
    """"not measurable with N non-members" in two words, the rest in its tooltip: with this
    many columns the long text is cut off mid-sentence."""
    for r in range(table.rowCount()):
        for c in range(table.columnCount()):
            item = table.item(r, c)
            if item is not None and item.text().startswith("not measurable with"):
                item.setToolTip(" ".join(item.text().split()) + ": too few trials to certify "
                                "a true-positive rate at so low a false-positive rate.")
                item.setText("not\nmeasurable")
