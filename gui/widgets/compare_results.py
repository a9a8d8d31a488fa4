"""The Compare step's results (issue 34 item 1): the best candidate's sentence, one table —
candidate, what differs, risk with its interval, cost to the data's users, verdict, meets the
policy — with the best row highlighted, one chart of risk (with its interval as an error bar)
against cost, each point labelled, and the policy's limit as a line, and the pairs that cannot
be told apart at this size in words.

Everything shown is read from the engine's typed :class:`engine.compare.Comparison` (never
from raw result dicts): the best candidate, the pairs and every sentence are the engine's, so
the window, the PDF (engine.report.comparison) and ``main.py compare`` say the same thing.
"""

from __future__ import annotations

import math

import numpy as np
import pyqtgraph as pg
from PySide6.QtCore import Qt, Signal
from PySide6.QtGui import QBrush, QColor
from PySide6.QtWidgets import (
    QAbstractItemView,
    QHBoxLayout,
    QHeaderView,
    QLabel,
    QPushButton,
    QTableWidget,
    QTableWidgetItem,
    QVBoxLayout,
    QWidget,
)

from engine.compare import Comparison
from engine.compare.candidates import label_of
from engine.wording import COMPARE_TERMS
from gui.widgets.plot_view import PlotView
from gui.widgets.results_scaffold import GlossaryStrip

HEADERS = ("", "Candidate", "What differs", "Risk (95 % interval)", "Cost to the data's users",
           "Verdict", "Meets policy")
BEST_FILL = QColor(214, 237, 214)
BEST_MARK = "★"
MEETS = {True: "✓ yes", False: "✗ no", None: "—"}


def pct(x) -> str:
    return "—" if x is None or not math.isfinite(x) else f"{x:.1%}"


def risk_text(risk) -> str:
    if risk is None or risk.value is None:
        return "—"
    ci = f" ({pct(risk.ci[0])} to {pct(risk.ci[1])})" if risk.ci is not None else ""
    return pct(risk.value) + ci


def cost_text(cost) -> str:
    if cost is None or cost.value is None:
        return "—"
    return pct(cost.value) if cost.unit == "share" else f"{cost.value:.3g}"


def differs_text(audit_type: str, row) -> str:
    """The settings a candidate changes, by their plain labels ("ε per hour = 0.1")."""
    if not row.overrides:
        return "saved project" if row.folder and not str(row.folder).startswith(
            "candidate-") else "the base settings"
    return "; ".join(f"{label_of(audit_type, k)} = {v}" for k, v in row.overrides.items())


def policy_limit(comparison: Comparison) -> tuple[float, str] | None:
    """The risk above which a candidate misses the policy, on the comparison's risk axis: the
    verdict policy's threshold of the level just above the highest accepted one (engine.policy:
    "medium" starts at medium_tpr / medium_accuracy), or None when the policy says none."""
    policy = comparison.policy or {}
    verdict = policy.get("verdict_policy") or {}
    level = policy.get("highest_level", "low")
    metric = policy.get("risk_metric") or (comparison.finished[0].risk.metric
                                           if comparison.finished and
                                           comparison.finished[0].risk else "tpr")
    step = "medium" if level == "low" else "high"
    key = f"{step}_{'tpr' if metric == 'tpr' else 'accuracy'}"
    value = verdict.get(key)
    if not isinstance(value, (int, float)):
        return None
    return float(value), f"policy limit: {step} risk from {value:.0%}"


class ComparisonView(QWidget):
    """The table, the chart and the pairs of one comparison (module docstring)."""

    export_requested = Signal()
    open_requested = Signal(int)          # a row's index (1-based, as the engine numbers them)

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.comparison: Comparison | None = None
        self.summary_label = QLabel("")
        self.summary_label.setWordWrap(True)
        self.best_label = QLabel("")
        self.best_label.setObjectName("compareBest")
        self.best_label.setWordWrap(True)
        self.best_label.setStyleSheet("font-weight: bold; padding: 6px; "
                                      "background: #eef6ee; border: 1px solid #9c9;")
        self.table = QTableWidget(0, len(HEADERS))
        self.table.setObjectName("compareResults")
        self.table.setHorizontalHeaderLabels(list(HEADERS))
        self.table.setEditTriggers(QAbstractItemView.EditTrigger.NoEditTriggers)
        self.table.setSelectionBehavior(QAbstractItemView.SelectionBehavior.SelectRows)
        self.table.setSelectionMode(QAbstractItemView.SelectionMode.SingleSelection)
        self.table.setWordWrap(False)
        self.table.verticalHeader().setDefaultSectionSize(28)
        self.table.verticalHeader().setVisible(False)
        header = self.table.horizontalHeader()
        header.setSectionResizeMode(QHeaderView.ResizeMode.ResizeToContents)
        header.setSectionResizeMode(2, QHeaderView.ResizeMode.Stretch)
        self.table.itemSelectionChanged.connect(self._update_buttons)
        self.table.cellDoubleClicked.connect(lambda r, _c: self._open_row(r))
        self.chart = PlotView(min_height=330)
        self.chart.plot_item.showGrid(x=True, y=True, alpha=0.25)
        self.pairs_title = QLabel("<b>Which candidates can be told apart</b>")
        self.pairs_label = QLabel("")
        self.pairs_label.setObjectName("comparePairs")
        self.pairs_label.setWordWrap(True)
        self.glossary = GlossaryStrip()
        self.glossary.terms = dict(COMPARE_TERMS)      # the comparison report's glossary too
        self.glossary.set_colour(None)
        self.export_button = QPushButton("Export comparison report (PDF)…")
        self.export_button.clicked.connect(self.export_requested)
        self.open_button = QPushButton("Open candidate")
        self.open_button.setToolTip("Open the selected candidate's result in its audit page, "
                                    "to read every figure or sign it off.")
        self.open_button.clicked.connect(lambda: self._open_row(self.table.currentRow()))
        buttons = QHBoxLayout()
        buttons.addWidget(self.open_button)
        buttons.addStretch(1)
        buttons.addWidget(self.export_button)
        layout = QVBoxLayout(self)
        layout.setContentsMargins(0, 0, 0, 0)
        layout.addWidget(self.summary_label)
        layout.addWidget(self.best_label)
        layout.addWidget(self.table)
        layout.addLayout(buttons)
        layout.addWidget(self.chart)
        layout.addWidget(self.pairs_title)
        layout.addWidget(self.pairs_label)
        layout.addWidget(self.glossary)
        self.set_comparison(None)

    # ------------------------------------------------------------------ showing

    def set_comparison(self, comparison: Comparison | None) -> None:
        self.comparison = comparison
        self.table.setRowCount(0)
        self.table.setVisible(comparison is not None)
        if comparison is None:
            self.summary_label.setText("No comparison yet: fill in the candidates and press "
                                       "“Run comparison”, or open saved projects.")
            self.best_label.setVisible(False)
            self.pairs_label.setText("")
            self.chart.show_message("The chart of risk against cost appears once candidates "
                                    "have finished.")
            self._update_buttons()
            return
        self.summary_label.setText(comparison.sentence)
        self.best_label.setText(("★ " if comparison.best is not None else "")
                                + comparison.best_sentence)
        self.best_label.setVisible(True)
        self._fill_table(comparison)
        self._draw_chart(comparison)
        self.pairs_label.setText(self.pairs_text(comparison))
        self._update_buttons()

    @staticmethod
    def pairs_text(comparison: Comparison) -> str:
        """The pairs that cannot be told apart, in the engine's words; the others counted."""
        if not comparison.pairs:
            return "Fewer than two candidates have finished, so none can be compared yet."
        apart = [p for p in comparison.pairs if not p.distinguishable]
        lines = [f"• {p.sentence}" for p in apart]
        others = len(comparison.pairs) - len(apart)
        if not apart:
            lines.append("Every pair of candidates can be told apart: their risk intervals do "
                         "not overlap.")
        elif others:
            lines.append(f"The other {others} pair{'s' if others > 1 else ''} can be told "
                         "apart (their risk intervals do not overlap).")
        return "\n".join(lines)

    def _fill_table(self, comparison: Comparison) -> None:
        self.table.setRowCount(len(comparison.rows))
        for i, row in enumerate(comparison.rows):
            best = row.index == comparison.best
            status = "" if row.status == "finished" else f" ({row.status})"
            verdict = row.verdict_level or ("" if row.status == "finished" else row.status)
            cells = (BEST_MARK if best else str(row.index), row.label + status,
                     differs_text(comparison.audit_type, row), risk_text(row.risk),
                     cost_text(row.cost), verdict or "—", MEETS[row.meets_policy])
            tips = ("The best candidate that meets the policy" if best else "",
                    row.error or "", "", row.risk.sentence if row.risk else "",
                    row.cost.sentence if row.cost else "", row.verdict_sentence or "",
                    "")
            for col, (text, tip) in enumerate(zip(cells, tips, strict=True)):
                item = QTableWidgetItem(text)
                item.setToolTip(tip or (row.error or ""))
                if best:
                    item.setBackground(QBrush(BEST_FILL))
                    font = item.font()
                    font.setBold(True)
                    item.setFont(font)
                if row.status == "failed" and row.error and col == 2:
                    item.setText(row.error)
                    item.setForeground(QBrush(QColor("#c62828")))
                self.table.setItem(i, col, item)
        # Every row in view (at most 8): the table is read whole, beside the chart.
        height = (self.table.horizontalHeader().sizeHint().height()
                  + sum(self.table.rowHeight(i) for i in range(len(comparison.rows))) + 6)
        self.table.setFixedHeight(height)

    def best_row(self) -> int | None:
        """The table row showing the best candidate (None when there is none)."""
        c = self.comparison
        if c is None or c.best is None:
            return None
        return next(i for i, r in enumerate(c.rows) if r.index == c.best)

    def _draw_chart(self, comparison: Comparison) -> None:
        plot = self.chart.plot_item
        plot.clear()
        rows = [r for r in comparison.finished if r.risk is not None and r.risk.value is not None
                and r.cost is not None and r.cost.value is not None]
        if not rows:
            self.chart.show_message("The chart of risk against cost appears once candidates "
                                    "have finished.")
            return
        self.chart.show_message(None)
        share = rows[0].cost.unit == "share"
        self.chart.plot_item.getAxis("bottom").set_percent(share)
        self.chart.plot_item.getAxis("left").set_percent(True)
        plot.setLabel("bottom", rows[0].cost.label + " (lower is better)")
        plot.setLabel("left", rows[0].risk.label)
        xs = [r.cost.value for r in rows]
        ys = [r.risk.value for r in rows]
        lows = [r.risk.value - r.risk.ci[0] if r.risk.ci else 0.0 for r in rows]
        highs = [r.risk.ci[1] - r.risk.value if r.risk.ci else 0.0 for r in rows]
        plot.addItem(pg.ErrorBarItem(x=np.array(xs), y=np.array(ys),
                                     bottom=np.array(lows), top=np.array(highs),
                                     beam=0.0, pen=pg.mkPen("#555", width=1.5)))
        brushes = [pg.mkBrush("#2e7d32" if r.index == comparison.best else "#ffffff")
                   for r in rows]
        plot.addItem(pg.ScatterPlotItem(x=xs, y=ys, size=11, brush=brushes,
                                        pen=pg.mkPen("#222", width=1.2)))
        middle = (min(ys) + max(ys)) / 2
        for r in rows:
            # Right of the point; above it in the lower half, clear of the policy and
            # guessing lines near 0, beside it in the upper half, inside the 100 % edge.
            anchor = (-0.1, 0.5) if r.risk.value > middle else (-0.1, 1.0)
            text = pg.TextItem(f"{r.index}. {r.label}", color="#222", anchor=anchor)
            text.setPos(r.cost.value, r.risk.value)
            plot.addItem(text)
        y_all = [v for r in rows for v in ((r.risk.ci or (r.risk.value,) * 2) + (r.risk.value,))]
        y_all.append(rows[0].risk.baseline)
        limit = policy_limit(comparison)
        if limit is not None:
            line = pg.InfiniteLine(pos=limit[0], angle=0, label=limit[1],
                                   pen=pg.mkPen("#c62828", width=1.2, style=Qt.PenStyle.DashLine),
                                   labelOpts={"position": 0.55, "color": "#c62828"})
            plot.addItem(line)
            y_all.append(limit[0])
        base = rows[0].risk.baseline
        plot.addItem(pg.InfiniteLine(pos=base, angle=0, label="guessing",
                                     pen=pg.mkPen("#888", width=1, style=Qt.PenStyle.DotLine),
                                     labelOpts={"position": 0.1, "color": "#666"}))
        x0, x1 = min(xs), max(xs)
        pad = (x1 - x0) * 0.15 or max(abs(x1) * 0.15, 0.05)
        y0, y1 = max(0.0, min(y_all)), min(1.0, max(y_all))
        ypad = (y1 - y0) * 0.12 or 0.05
        home_x = (x0 - pad, x1 + 2.5 * pad)          # room for the labels right of the points
        # A rate never beyond 100 %: the labels sit right of their points, not above them.
        home_y = (max(0.0, y0 - ypad), min(1.02, y1 + ypad))
        self.chart.set_home(home_x, home_y)

    # ------------------------------------------------------------------ actions

    def selected_index(self) -> int | None:
        """The engine index (1-based) of the selected row, None when none is selected."""
        row = self.table.currentRow()
        if self.comparison is None or not 0 <= row < len(self.comparison.rows):
            return None
        return self.comparison.rows[row].index

    def _open_row(self, row: int) -> None:
        if self.comparison is None or not 0 <= row < len(self.comparison.rows):
            return
        r = self.comparison.rows[row]
        if r.status == "finished":
            self.open_requested.emit(r.index)

    def _update_buttons(self) -> None:
        c = self.comparison
        self.export_button.setEnabled(c is not None and bool(c.finished))
        index = self.selected_index()
        ok = index is not None and c is not None and c.row(index).status == "finished"
        self.open_button.setEnabled(ok)
        self.open_button.setToolTip("Open the selected candidate's result in its audit page."
                                    if ok else "Select a finished candidate in the table first.")
