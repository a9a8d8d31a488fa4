"""Text never cut in result tables (issue 21: "Asian …" in value lists, a header "AUC, targets
no… determined", attack names ending in "…"): headers wrap and grow, rows grow to their
wrapped text, and every cell shows its whole text on hover."""

from __future__ import annotations

from PySide6.QtCore import QRect, Qt
from PySide6.QtWidgets import QHeaderView

from gui.widgets.metrics_table import NAME_COLUMN_WIDTH, MetricsTable
from gui.widgets.schema_table import SchemaTable
from gui.widgets.tables import WrapHeader, fill_table, make_table

LONG_NAME = ("Deterministic membership check over every released table, then the "
             "stochastic module with shadow releases and a meta-classifier (paper 003, §6.2)")


def _wrapped_height(widget, text: str, width: int) -> int:
    return widget.fontMetrics().boundingRect(
        QRect(0, 0, width, 100_000),
        int(Qt.AlignmentFlag.AlignLeft | Qt.TextFlag.TextWordWrap), text).height()


def _result() -> dict:
    attack = {"name": "long", "label": LONG_NAME, "auc": 0.8, "auc_ci": [0.7, 0.9],
              "accuracy": 0.7, "accuracy_ci": [0.6, 0.8], "advantage": 0.4,
              "advantage_ci": [0.2, 0.6],
              "tpr_at_fpr": [{"fpr_target": 0.01, "tpr": 0.1, "tpr_ci": [0.0, 0.2]}],
              "epsilon_lower_bound": {"value": 1.2}}
    return {"attacks": [attack]}


def test_a_long_attack_name_wraps_into_a_taller_row_and_is_whole_on_hover(qtbot):
    table = MetricsTable()
    qtbot.addWidget(table)
    table.resize(1000, 300)
    table.show()
    table.set_result(_result())
    qtbot.waitUntil(lambda: table.rowHeight(0) >= _wrapped_height(
        table, LONG_NAME, NAME_COLUMN_WIDTH - 6), timeout=5000)   # the cell's 3-pixel margins
    assert table.textElideMode() == Qt.TextElideMode.ElideNone
    # The whole name on hover (with the plain-words tooltip of engine.wording around it).
    assert LONG_NAME in table.item(0, 0).toolTip()
    for c in range(1, table.columnCount()):
        item = table.item(0, c)
        assert item.toolTip() == " ".join(item.text().split())


def test_a_long_header_in_a_narrow_column_wraps_and_the_header_grows(qtbot):
    label = "AUC, targets not determined by the released tables"
    table = make_table(["Attacker", label, "AUC", "Advantage", "Balanced accuracy"])
    qtbot.addWidget(table)
    header = table.horizontalHeader()
    assert isinstance(header, WrapHeader)
    table.resize(420, 300)
    table.show()
    fill_table(table, [["a", "0.5", "0.6", "0.1", "55 %"]])
    header.setSectionResizeMode(QHeaderView.ResizeMode.Interactive)
    for c in range(table.columnCount()):                # narrow columns, as on a small window
        header.resizeSection(c, 80)
    qtbot.waitUntil(lambda: header.height() >= header.label_height(1), timeout=5000)
    one_line = table.fontMetrics().lineSpacing()
    assert header.label_height(1) >= 3 * one_line        # it did wrap at 80 pixels
    assert header.textElideMode() == Qt.TextElideMode.ElideNone


def test_a_schema_cell_shows_its_whole_text_on_hover():
    values = "Asian, Black or African American, White, Some other race, Two or more races"
    assert SchemaTable.text_item(values).toolTip() == values
    assert SchemaTable.text_item(values, "Explained.").toolTip() == "Explained."
