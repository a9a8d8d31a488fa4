"""The defences of a model audit in the results (issue 9; paper 004): the recommendation with
its reasons, the privacy–utility chart (every defence a curve through its settings, the
undefended model a star, the user's limit a line with the allowed side shaded, the
recommended setting ringed; hovering a point says what it is, clicking it selects its row),
the table of every setting with its intervals, and the export of a setting's model.

Like every results view it only displays ``theory["defences"]`` of the result dict; the export
is asked of the page (``export_requested``), which holds the fitted models of this session or
retrains the setting.
"""

from __future__ import annotations

import pyqtgraph as pg
from PySide6.QtCore import Qt, Signal
from PySide6.QtGui import QColor
from PySide6.QtWidgets import (
    QComboBox,
    QHBoxLayout,
    QLabel,
    QPushButton,
    QVBoxLayout,
    QWidget,
)

from gui.formatting import fpr_label, interval, is_number, number, pct
from gui.widgets.plot_view import PlotView
from gui.widgets.results_view import escape, rich_label
from gui.widgets.tables import fill_table, make_table

DEFENCE_ORDER = ("kcd", "dmp", "l2", "early_stopping", "dp_sgd")
DEFENCE_TITLES = {"none": "No defence", "kcd": "KCD", "dmp": "DMP", "l2": "L2 weight decay",
                  "early_stopping": "Early stopping", "dp_sgd": "DP-SGD"}
DEFENCE_COLORS = {"kcd": QColor(21, 101, 192), "dmp": QColor(0, 121, 107),
                  "l2": QColor(106, 27, 154), "early_stopping": QColor(93, 64, 55),
                  "dp_sgd": QColor(194, 24, 91)}
UNDEFENDED_COLOR = QColor(183, 28, 28)
LIMIT_COLOR = QColor(46, 125, 50)
ALLOWED_COLOR = QColor(76, 175, 80, 40)
RECOMMENDED_COLOR = QColor(255, 160, 0)
X_CHOICES = (("tpr", "Members spotted at the limit's false-positive rate (TPR)"),
             ("accuracy", "Attack's balanced accuracy"), ("auc", "Attack's AUC"),
             ("advantage", "Attack's advantage"), ("epsilon", "Empirical ε lower bound"))
CHART_HINT = ("Each point is the model retrained with one defence at one setting: up is more "
              "accurate on people it never saw, left is harder to attack (the strongest of the "
              "attacks). The star is the model as audited; the green side of the line is "
              "within your limit; the ringed point is the recommendation. Hover over a point "
              "for its numbers; click it to find it in the table.")


def defences_block(result: dict | None) -> dict | None:
    block = ((result or {}).get("theory") or {}).get("defences")
    return block if isinstance(block, dict) and block.get("rows") else None


def risk_value(row: dict, metric: str, fpr: float | None) -> tuple[float | None, list | None]:
    """The strongest attack's value of ``metric`` for a row and its interval (None when it
    could not be measured)."""
    risk = row.get("risk") or {}
    if metric == "tpr":
        entry = next((r for r in risk.get("tpr_at_fpr") or []
                      if fpr is not None and abs(r.get("fpr", -1) - fpr) < 1e-12), None)
        if entry is None or not entry.get("measurable", True):
            return None, None
    else:
        entry = risk.get(metric)
    if not isinstance(entry, dict) or not is_number(entry.get("value")):
        return None, None
    return float(entry["value"]), entry.get("ci")


def value_text(metric: str, value, ci=None) -> str:
    fmt = pct if metric == "tpr" else number
    if value is None:
        return "not measurable"
    ci_text = interval(ci, fmt) if ci else ""
    return f"{fmt(value)} {ci_text}".strip()


def point_text(row: dict, block: dict) -> str:
    """What a hovered point is, in plain text (the chart's tooltip and the line under it)."""
    limit = block.get("limit") or {}
    fpr = limit.get("fpr")
    tpr, tpr_ci = risk_value(row, "tpr", fpr)
    auc, auc_ci = risk_value(row, "auc", None)
    acc, acc_ci = risk_value(row, "accuracy", None)
    lines = [row.get("label", ""),
             f"test accuracy {pct(row.get('test_accuracy'))} "
             f"{interval(row.get('test_accuracy_ci'), pct)}".strip(),
             f"generalization gap {pct(row.get('generalization_gap'))}",
             f"strongest attack: AUC {value_text('auc', auc, auc_ci)}, balanced accuracy "
             f"{value_text('accuracy', acc, acc_ci)}"]
    strongest = row.get("strongest") if isinstance(row.get("strongest"), dict) else {}
    if strongest.get("label"):
        lines.append(f"strongest attack on this setting: {strongest['label']}")
    if fpr is not None:
        lines.append(f"members spotted at {fpr_label(fpr)} FPR: "
                     f"{value_text('tpr', tpr, tpr_ci)}")
    if "dp" in row:
        dp = row["dp"]
        lines.append(f"DP-SGD: accountant ε = {number(dp.get('accountant_epsilon'))}, attacks "
                     f"certify ε ≥ {number(dp.get('empirical_epsilon_lower_bound'))}")
    return "\n".join(lines)


def knob_text(row: dict) -> str:
    """The short label of a point on its curve: α = 1, T = 2, σ = 0.5 …"""
    label = str(row.get("label", ""))
    for prefix in ("No defence", "KCD ", "DMP ", "L2 ", "Early stopping ", "DP-SGD "):
        if label.startswith(prefix):
            label = label[len(prefix):]
    return label.split(",")[0]


class TradeoffChart(QWidget):
    """Test accuracy against the strongest attack, every defence a curve (module docstring)."""

    point_clicked = Signal(int)        # the row's index in the block

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self._block: dict | None = None
        self.view = PlotView(min_height=360)
        self.plot_item = self.view.plot_item
        self.plot_item.showGrid(x=True, y=True, alpha=0.2)
        self.plot_item.setLabel("left", "Test accuracy (people the model never saw)")
        for side in ("left", "bottom"):        # 0.45, not "450 (×0.001)"
            self.plot_item.getAxis(side).enableAutoSIPrefix(False)
        self.legend = self.view.add_legend()
        self.x_combo = QComboBox()
        for value, text in X_CHOICES:
            self.x_combo.addItem(text, value)
        self.x_combo.setToolTip("Which measure of the strongest attack the chart's "
                                "horizontal axis shows.")
        self.x_combo.currentIndexChanged.connect(self._redraw)
        self.view.add_tool(self.x_combo)
        self.hover_label = QLabel("")
        self.hover_label.setWordWrap(True)
        self.hover_label.setStyleSheet("color: #333;")
        hint = QLabel(CHART_HINT)
        hint.setWordWrap(True)
        hint.setStyleSheet("color: #666;")
        layout = QVBoxLayout(self)
        layout.setContentsMargins(0, 0, 0, 0)
        layout.addWidget(self.view, 1)
        layout.addWidget(self.hover_label)
        layout.addWidget(hint)
        self.scatters: list[pg.ScatterPlotItem] = []

    def set_block(self, block: dict | None) -> None:
        self._block = block
        metric = (block or {}).get("limit", {}).get("metric", "tpr")
        index = self.x_combo.findData(metric)
        self.x_combo.blockSignals(True)
        self.x_combo.setCurrentIndex(max(index, 0))
        self.x_combo.blockSignals(False)
        self._redraw()

    def metric(self) -> str:
        return self.x_combo.currentData()

    def _redraw(self, *_args) -> None:
        self.plot_item.clear()
        self.legend.clear()
        self.scatters = []
        self.hover_label.setText("")
        block = self._block
        if not block:
            return
        metric = self.metric()
        limit = block.get("limit") or {}
        fpr = limit.get("fpr")
        self.plot_item.setLabel("bottom", dict(X_CHOICES)[metric]
                                + (f" ({fpr_label(fpr)} FPR)" if metric == "tpr" and fpr
                                   else "") + " — strongest attack")
        rows = block["rows"]
        xs, ys = [], []
        by: dict[str, list[tuple[float, float, dict]]] = {}
        for row in rows:
            x, _ci = risk_value(row, metric, fpr)
            y = row.get("test_accuracy")
            if x is None or not is_number(y):
                continue
            by.setdefault(row["defence"], []).append((x, float(y), row))
            xs.append(x)
            ys.append(float(y))
        if not xs:
            self.hover_label.setText("No setting could be measured on this axis; choose "
                                     "another measure above.")
            return
        x_lo = 0.0 if metric in ("tpr", "advantage", "epsilon") else 0.5
        x_hi = max(max(xs), limit.get("value", 0) if limit.get("metric") == metric else 0)
        x_hi = 1.0 if metric != "epsilon" else max(x_hi * 1.1, 0.5)
        # The allowed side of the limit (only when the axis is the limit's measure).
        if limit.get("metric") == metric and is_number(limit.get("value")):
            v = float(limit["value"])
            region = pg.LinearRegionItem((x_lo, v), movable=False,
                                         brush=pg.mkBrush(ALLOWED_COLOR),
                                         pen=pg.mkPen(None))
            region.setZValue(-10)
            self.plot_item.addItem(region)
            line = pg.InfiniteLine(v, angle=90, movable=False,
                                   pen=pg.mkPen(LIMIT_COLOR, width=2, style=Qt.PenStyle.DashLine),
                                   label=f"your limit {value_text(metric, v)}",
                                   labelOpts={"position": 0.95, "color": LIMIT_COLOR})
            self.plot_item.addItem(line)
        placed: list[tuple[float, float]] = []
        if by.get("none"):                 # the star's own place is taken
            placed += [(x, y) for x, y, _r in by["none"]]
        y_span = max(max(ys), 0.05)
        for name in DEFENCE_ORDER:
            points = by.get(name)
            if not points:
                continue
            points.sort(key=lambda p: _knob_key(p[2]))
            color = DEFENCE_COLORS[name]
            self.plot_item.plot([p[0] for p in points], [p[1] for p in points],
                                pen=pg.mkPen(color, width=2), name=DEFENCE_TITLES[name])
            self._scatter(points, color, "o", 9)
            # The ends of each curve carry their setting (the rest are said on hover): with
            # ~15 settings, many of them near the same corner, every label would overlap.
            for x, y, row in (points if len(points) <= 2 else (points[0], points[-1])):
                # A label near one already placed is left out (hover still names the point).
                near = [(px, py) for px, py in placed
                        if abs(px - x) < 0.12 * (x_hi - x_lo) and abs(py - y) < 0.04 * y_span]
                if near:
                    continue
                placed.append((x, y))
                # right of the point, or left of it near the right edge (kept on the plot)
                anchor = (1, 1) if x > x_lo + 0.75 * (x_hi - x_lo) else (0, 1)
                label = pg.TextItem(knob_text(row), color=color, anchor=anchor)
                label.setPos(x, y)
                self.plot_item.addItem(label)
        base = by.get("none")
        if base:
            self._scatter(base, UNDEFENDED_COLOR, "star", 18)
            self.plot_item.plot([], [], pen=None, symbol="star", symbolSize=12,
                                symbolBrush=pg.mkBrush(UNDEFENDED_COLOR),
                                name="As audited (no defence)")
        rec = (block.get("recommendation") or {}).get("index")
        chosen = next(((x, y) for pts in by.values() for x, y, r in pts
                       if r.get("index") == rec), None)
        if chosen is not None:
            ring = pg.ScatterPlotItem([chosen[0]], [chosen[1]], symbol="o", size=24,
                                      pen=pg.mkPen(RECOMMENDED_COLOR, width=3),
                                      brush=pg.mkBrush(None))
            self.plot_item.addItem(ring)
            self.plot_item.plot([], [], pen=None, symbol="o", symbolSize=12,
                                symbolPen=pg.mkPen(RECOMMENDED_COLOR, width=3),
                                symbolBrush=pg.mkBrush(None), name="Recommended")
        y_hi = max(ys)
        self.view.set_home((x_lo, x_hi), (0.0, min(1.0, max(y_hi * 1.15, 0.05))),
                           x_bounds=(x_lo, x_hi), y_bounds=(0.0, 1.0))

    def _scatter(self, points, color: QColor, symbol: str, size: int) -> None:
        block = self._block
        spots = pg.ScatterPlotItem(
            [p[0] for p in points], [p[1] for p in points], data=[p[2]["index"] for p in points],
            symbol=symbol, size=size, pen=pg.mkPen("w"), brush=pg.mkBrush(color),
            hoverable=True, hoverSize=size + 5,
            tip=lambda x, y, data: point_text(self._row(data), block))
        spots.sigHovered.connect(self._hovered)
        spots.sigClicked.connect(self._clicked)
        self.plot_item.addItem(spots)
        self.scatters.append(spots)

    def _row(self, index: int) -> dict:
        return next(r for r in self._block["rows"] if r.get("index") == index)

    def _hovered(self, _item, points, _ev) -> None:
        if len(points):
            self.show_point(int(points[0].data()))

    def show_point(self, index: int) -> None:
        """Say what the point of row ``index`` is, under the chart."""
        self.hover_label.setText(point_text(self._row(index), self._block).replace("\n", " · "))

    def _clicked(self, _item, points, _ev) -> None:
        if len(points):
            self.point_clicked.emit(int(points[0].data()))


def _knob_key(row: dict):
    knobs = row.get("knobs") or {}
    main = {"kcd": "alpha", "dmp": "temperature", "l2": "weight_decay",
            "early_stopping": "epochs", "dp_sgd": "noise_multiplier"}.get(row.get("defence"))
    value = knobs.get(main)
    if value is None and row.get("defence") == "dp_sgd":
        value = -float(knobs.get("target_epsilon") or 0)   # a larger ε is less noise
    return float(value) if is_number(value) else 0.0


class DefencesView(QWidget):
    """The defences box of the model results (module docstring)."""

    export_requested = Signal(int)     # the row's index: export that setting's model

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self._block: dict | None = None
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
                "run it again to see what retraining with KCD, DMP, DP-SGD, L2 or early "
                "stopping would change, and at what cost in accuracy.")
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
        rec = block.get("recommendation") or {}
        sentences = block.get("sentences") or [rec.get("statement", "")]
        head = (f"<b>Recommendation:</b> {escape(sentences[0])}" if rec.get("met") else
                f"<b style='color:#c62828'>No setting meets your limit.</b> "
                f"{escape(sentences[0])}")
        parts = [head, f"Limit: {escape((block.get('limit') or {}).get('text', ''))}."]
        parts += [escape(s) for s in sentences[1:]]
        self.recommendation_label.setText("<br><br>".join(parts))
        self.export_recommended_button.setEnabled(bool(rec.get("met")))
        self._fill_table(block)
        self.details_label.setText(self._details(block))
        self._selection_changed()

    def _fill_table(self, block: dict) -> None:
        limit = block.get("limit") or {}
        fpr = limit.get("fpr")
        header = self.table.horizontalHeaderItem(5)
        if header is not None and fpr is not None:
            header.setText(f"Members spotted at {fpr_label(fpr)} FPR")
        rec = (block.get("recommendation") or {}).get("index")
        rows = []
        for row in block["rows"]:
            tpr, tpr_ci = risk_value(row, "tpr", fpr)
            auc, auc_ci = risk_value(row, "auc", None)
            acc, acc_ci = risk_value(row, "accuracy", None)
            eps = (row.get("risk") or {}).get("epsilon") or {}
            label = row.get("label", "")
            if row.get("index") == rec:
                label = "★ " + label + " (recommended)"
            eps_text = number(eps.get("value"))
            if "dp" in row:
                eps_text += f" (accountant: {number(row['dp'].get('accountant_epsilon'))})"
            rows.append([label,
                         f"{pct(row.get('test_accuracy'))}\n"
                         f"{interval(row.get('test_accuracy_ci'), pct)}",
                         pct(row.get("generalization_gap")),
                         f"{number(auc)}\n{interval(auc_ci)}" if auc is not None else "—",
                         f"{number(acc)}\n{interval(acc_ci)}" if acc is not None else "—",
                         f"{pct(tpr)}\n{interval(tpr_ci, pct)}" if tpr is not None
                         else "not\nmeasurable",
                         eps_text])
        fill_table(self.table, rows, max_visible=16)

    def _details(self, block: dict) -> str:
        data = block.get("data") or {}
        most = block.get("most_vulnerable") or {}
        lines = [escape(block.get("threat_model_text", ""))]
        if block.get("reference_threat_model_text"):
            lines.append(escape(block["reference_threat_model_text"]))
        if data:
            lines.append(f"Each model trained on the same {data.get('members', 0):,} records "
                         f"and was measured on {data.get('non_members', 0):,} others; δ of "
                         f"every ε = {block.get('delta', 0):.0e}.")
        if block.get("reference"):
            lines.append(f"DMP's reference records: {escape(block['reference'])}.")
        if most and not most.get("is_undefended"):
            lines.append(
                f"{escape(most.get('label', ''))} is attacked a little more successfully than "
                "the model as audited (AUC " + number(most.get("auc")) + ")"
                + ("; within the measurement's uncertainty."
                   if most.get("undefended_within_interval") else
                   " — beyond the interval: this defence setting makes the model more "
                   "exposed."))
        lines.append(f"Trained and attacked in {block.get('runtime_s', 0):.0f} s on "
                     f"{escape(str(block.get('device', 'the CPU')))}.")
        return "<br>".join(lines)

    # ------------------------------------------------------------------ selection, export

    def select_row(self, index: int) -> None:
        rows = [r.get("index") for r in (self._block or {}).get("rows", [])]
        if index in rows:
            self.table.selectRow(rows.index(index))
            self.table.scrollToItem(self.table.item(rows.index(index), 0))

    def selected_index(self) -> int | None:
        items = self.table.selectedItems()
        if not items or self._block is None:
            return None
        return self._block["rows"][items[0].row()].get("index")

    def _selection_changed(self) -> None:
        self.export_selected_button.setEnabled(self.selected_index() is not None)
        index = self.selected_index()
        if index is not None:
            self.chart.show_point(index)

    def _export_recommended(self) -> None:
        rec = (self._block or {}).get("recommendation") or {}
        if rec.get("met"):
            self.export_requested.emit(int(rec["index"]))

    def _export_selected(self) -> None:
        index = self.selected_index()
        if index is not None:
            self.export_requested.emit(int(index))

    def show_export_status(self, text: str, error: bool = False) -> None:
        self.export_status.setStyleSheet("color: #c62828;" if error else "color: #2e7d32;")
        self.export_status.setText(text)


def chart_points(block: dict, metric: str) -> list[tuple[float, float, int]]:
    """(x, y, row index) of every drawable point (for tests and screenshots)."""
    fpr = (block.get("limit") or {}).get("fpr")
    out = []
    for row in block["rows"]:
        x, _ = risk_value(row, metric, fpr)
        if x is not None and is_number(row.get("test_accuracy")):
            out.append((x, float(row["test_accuracy"]), int(row["index"])))
    return out


__all__ = ["DefencesView", "TradeoffChart", "chart_points", "defences_block", "point_text",
           "risk_value"]
