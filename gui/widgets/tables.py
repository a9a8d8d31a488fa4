"""Read-only result tables shared by the results views: a table with headers and a tooltip,
filled with rows of text and sized to show at most ``max_visible`` rows without an inner
scroll bar (the results page scrolls as a whole)."""

from __future__ import annotations

from PySide6.QtWidgets import QAbstractItemView, QHeaderView, QTableWidget, QTableWidgetItem


def make_table(headers: list[str], tip: str = "", stretch: int = -1) -> QTableWidget:
    table = QTableWidget(0, len(headers))
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
    table.resizeRowsToContents()
    shown = sum(table.rowHeight(r) for r in range(min(len(rows), max_visible)))
    table.setFixedHeight(shown + table.horizontalHeader().sizeHint().height()
                         + 2 * table.frameWidth() + 4)


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
