"""The defences of a model audit in the results (issue 9; paper 004): the recommendation with
its reasons, the privacy–utility chart (every defence a curve through its settings, the
undefended model a star, the user's limit a line with the allowed side shaded, the
recommended setting ringed; hovering a point says what it is, clicking it selects its row),
the table of every setting with its intervals, and the export of a setting's model.

Like every results view it only displays the result's defences block, read typed
(engine.results.model_defences; issue 33 item 1); the export is asked of the page
(``export_requested``), which holds the fitted models of this session or retrains the setting.
The chart is gui/widgets/defences_chart.py (issue 33 item 2).
"""

from __future__ import annotations

from PySide6.QtCore import Signal
from PySide6.QtWidgets import QHBoxLayout, QLabel, QPushButton, QVBoxLayout, QWidget

from engine.results.loaded import load_result
from engine.results.model_defences import DefencesBlock, defences_of
from gui.formatting import fpr_label, interval, is_number, number, pct
from gui.widgets.defences_chart import TradeoffChart, point_text, risk_value
from gui.widgets.results_view import escape, rich_label
from gui.widgets.tables import fill_table, make_table


def defences_block(result) -> DefencesBlock | None:
    """The result's defences block typed, or None when the audit ran none (``result``: a dict
    or a LoadedResult; engine.results.loaded)."""
    if result is None:
        return None
    theory = load_result(result).theory
    if hasattr(theory, "defences"):
        return theory.defences
    return defences_of(theory.get("defences")) if isinstance(theory, dict) else None


def _or(value, default):
    """``value``, or ``default`` when the block has none."""
    return default if value is None else value


class DefencesView(QWidget):
    """The defences box of the model results (module docstring)."""

    export_requested = Signal(int)     # the row's index: export that setting's model

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self._block: DefencesBlock | None = None
        self.recommendation_label = rich_label()
        self.chart = TradeoffChart()
        self.chart.point_clicked.connect(self.select_row)
        self.table = make_table(["Setting", "Test accuracy", "Gap", "Strongest AUC",
                                 "Balanced accuracy", "Members spotted (TPR)",
                                 "ε lower bound"],
                                "Every setting measured the same way; the intervals are 95 %.",
                                stretch=0)
        self.table.itemSelectionChanged.connect(self._selection_changed)
        self.export_recommended_button = QPushButton("Export the recommended model…")
        self.export_recommended_button.setToolTip(
            "Save its weights (safetensors, never pickle), a JSON model card (training data "
            "hash, defence, setting, measured risk) and its predictions as CSV.")
        self.export_recommended_button.clicked.connect(self._export_recommended)
        self.export_selected_button = QPushButton("Export the selected setting…")
        self.export_selected_button.setToolTip("The same files for the setting selected in "
                                               "the table.")
        self.export_selected_button.clicked.connect(self._export_selected)
        self.export_status = QLabel("")
        self.export_status.setWordWrap(True)
        buttons = QHBoxLayout()
        buttons.addWidget(self.export_recommended_button)
        buttons.addWidget(self.export_selected_button)
        buttons.addStretch(1)
        self.details_label = rich_label()
        layout = QVBoxLayout(self)
        layout.addWidget(self.recommendation_label)
        layout.addWidget(self.chart, 1)
        layout.addWidget(self.table)
        layout.addLayout(buttons)
        layout.addWidget(self.export_status)
        layout.addWidget(self.details_label)
        self.set_result(None)

    # ------------------------------------------------------------------ showing

    def set_result(self, result: dict | None) -> None:
        block = defences_block(result)
        self._block = block
        self.export_status.setText("")
        self.chart.set_block(block)
        if block is None:
            self.recommendation_label.setText(
                "Defences were not tested in this audit. Tick “Test defences” in step 3 and "
                "run it again to see what retraining with cross-distillation, distillation on "
                "reference records, private training, weight decay or early stopping would "
                "change, and at what cost in accuracy.")
            fill_table(self.table, [])
            self.table.setVisible(False)
            self.chart.setVisible(False)
            self.details_label.setText("")
            for button in (self.export_recommended_button, self.export_selected_button):
                button.setVisible(False)
            return
        self.table.setVisible(True)
        self.chart.setVisible(True)
        for button in (self.export_recommended_button, self.export_selected_button):
            button.setVisible(True)
        rec = block.recommendation
        sentences = block.sentences or (rec.statement or "",)
        if rec.needed is False:
            # Issue 32 item 4: no defence unless the model as trained fails the limit
            # measurably; not measurable is said as such, never in red.
            head = ("<b>No defence needed.</b> " if rec.met
                    else "<b>Not decided at this size.</b> ") + escape(sentences[0])
        elif rec.met:
            head = f"<b>Recommendation:</b> {escape(sentences[0])}"
        else:
            head = (f"<b style='color:#c62828'>No setting meets your limit.</b> "
                    f"{escape(sentences[0])}")
        parts = [head, f"Limit: {escape(block.limit.text or '')}."]
        parts += [escape(s) for s in sentences[1:]]
        self.recommendation_label.setText("<br><br>".join(parts))
        self.export_recommended_button.setEnabled(rec.chosen is not None)
        self._fill_table(block)
        self.details_label.setText(self._details(block))
        self._selection_changed()

    def _fill_table(self, block: DefencesBlock) -> None:
        fpr = block.limit.fpr
        header = self.table.horizontalHeaderItem(5)
        if header is not None and fpr is not None:
            header.setText(f"Members spotted at {fpr_label(fpr)} FPR")
        rec = block.recommendation.index
        rows = []
        for row in block.rows:
            tpr, tpr_ci = risk_value(row, "tpr", fpr)
            auc, auc_ci = risk_value(row, "auc", None)
            acc, acc_ci = risk_value(row, "accuracy", None)
            eps = row.risk.epsilon
            label = row.label or ""
            if row.index == rec:
                label = "★ " + label + " (recommended)"
            eps_text = number(eps.value if eps is not None else None)
            if row.dp is not None:
                eps_text += f" (accountant: {number(row.dp.accountant_epsilon)})"
            rows.append([label,
                         f"{pct(row.test_accuracy)}\n"
                         f"{interval(row.test_accuracy_ci, pct)}",
                         pct(row.generalization_gap),
                         f"{number(auc)}\n{interval(auc_ci)}" if auc is not None else "—",
                         f"{number(acc)}\n{interval(acc_ci)}" if acc is not None else "—",
                         f"{pct(tpr)}\n{interval(tpr_ci, pct)}" if tpr is not None
                         else "not\nmeasurable",
                         eps_text])
        fill_table(self.table, rows, max_visible=16)

    def _details(self, block: DefencesBlock) -> str:
        data = block.data
        most = block.most_vulnerable
        lines = [escape(block.threat_model_text or "")]
        if block.reference_threat_model_text:
            lines.append(escape(block.reference_threat_model_text))
        if data is not None:
            lines.append(f"Each model trained on the same {_or(data.members, 0):,} records "
                         f"and was measured on {_or(data.non_members, 0):,} others; δ of "
                         f"every ε = {_or(block.delta, 0):.0e}.")
        if block.reference:
            lines.append(f"DMP's reference records: {escape(block.reference)}.")
        if most is not None and not most.is_undefended:
            lines.append(
                f"{escape(most.label or '')} is attacked a little more successfully than "
                "the model as audited (AUC " + number(most.auc) + ")"
                + ("; within the measurement's uncertainty."
                   if most.undefended_within_interval else
                   " — beyond the interval: this defence setting makes the model more "
                   "exposed."))
        lines.append(f"Trained and attacked in {_or(block.runtime_s, 0):.0f} s on "
                     f"{escape(str(_or(block.device, 'the CPU')))}.")
        return "<br>".join(lines)

    # ------------------------------------------------------------------ selection, export

    def select_row(self, index: int) -> None:
        rows = [r.index for r in (self._block.rows if self._block is not None else ())]
        if index in rows:
            self.table.selectRow(rows.index(index))
            self.table.scrollToItem(self.table.item(rows.index(index), 0))

    def selected_index(self) -> int | None:
        items = self.table.selectedItems()
        if not items or self._block is None:
            return None
        return self._block.rows[items[0].row()].index

    def _selection_changed(self) -> None:
        self.export_selected_button.setEnabled(self.selected_index() is not None)
        index = self.selected_index()
        if index is not None:
            self.chart.show_point(index)

    def _export_recommended(self) -> None:
        chosen = self._block.recommendation.chosen if self._block is not None else None
        if chosen is not None:
            self.export_requested.emit(int(chosen))

    def _export_selected(self) -> None:
        index = self.selected_index()
        if index is not None:
            self.export_requested.emit(int(index))

    def show_export_status(self, text: str, error: bool = False) -> None:
        self.export_status.setStyleSheet("color: #c62828;" if error else "color: #2e7d32;")
        self.export_status.setText(text)


def chart_points(block: DefencesBlock | dict, metric: str) -> list[tuple[float, float, int]]:
    """(x, y, row index) of every drawable point (for tests and screenshots)."""
    block = defences_of(block) or DefencesBlock()
    out = []
    for row in block.rows:
        x, _ = risk_value(row, metric, block.limit.fpr)
        if x is not None and is_number(row.test_accuracy):
            out.append((x, float(row.test_accuracy), int(row.index)))
    return out


__all__ = ["DefencesView", "TradeoffChart", "chart_points", "defences_block", "point_text",
           "risk_value"]
