"""ROC plot: what the attackers achieve against what (ε, δ)-DP permits (paper 002, Thm 1).

Linear axes show the whole trade-off; log-log axes show the low false-positive corner where
confident accusations live (Carlini et al. 2022), so both are one click apart. On log axes,
points with FPR or TPR ≤ 0 cannot be drawn and are dropped, never replaced by a fake value.
"""

from __future__ import annotations

import numpy as np
import pyqtgraph as pg
from PySide6.QtCore import Qt
from PySide6.QtGui import QColor
from PySide6.QtWidgets import QCheckBox, QHBoxLayout, QLabel, QVBoxLayout, QWidget

LOG_FLOOR = 1e-6          # where the shaded DP region starts on log axes
REGION_COLOR = QColor(76, 175, 80, 60)
OPTIMAL_COLOR = QColor(183, 28, 28)
WORST_CASE_COLOR = QColor(230, 120, 0)
ATTACK_COLORS = [QColor(21, 101, 192), QColor(106, 27, 154), QColor(0, 121, 107),
                 QColor(93, 64, 55)]


def _positive(x, y) -> tuple[np.ndarray, np.ndarray]:
    """Keep only points that exist on log axes (both coordinates > 0)."""
    x = np.asarray(x, dtype=float)
    y = np.asarray(y, dtype=float)
    keep = np.isfinite(x) & np.isfinite(y) & (x > 0) & (y > 0)
    return x[keep], y[keep]


def _finite(x, y) -> tuple[np.ndarray, np.ndarray]:
    x = np.asarray(x, dtype=float)
    y = np.asarray(y, dtype=float)
    keep = np.isfinite(x) & np.isfinite(y)
    return x[keep], y[keep]


class RocPlot(QWidget):
    """ROC curves of the result with a linear / log-log toggle."""

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self._result: dict | None = None
        self.plot_widget = pg.PlotWidget()
        self.plot_widget.setMinimumHeight(360)
        self.plot_item = self.plot_widget.getPlotItem()
        self.plot_item.setLabel("bottom", "False-positive rate (people wrongly accused)")
        self.plot_item.setLabel("left", "True-positive rate (people correctly spotted)")
        self.plot_item.showGrid(x=True, y=True, alpha=0.2)
        self.plot_item.setMenuEnabled(False)
        self.legend = self.plot_item.addLegend(offset=(-10, -10), labelTextSize="8pt")

        self.log_axes = QCheckBox("Log-log axes (zoom on rare, confident accusations)")
        self.log_axes.setToolTip("Log scales stretch the corner of small false-positive rates, "
                                 "where an attacker is confident about a few people.")
        self.log_axes.toggled.connect(self._redraw)
        hint = QLabel("Green area: every result (ε, δ)-DP allows. A curve above it would mean "
                      "the privacy guarantee is broken.")
        hint.setWordWrap(True)
        hint.setStyleSheet("color: #555;")

        top = QHBoxLayout()
        top.addWidget(self.log_axes)
        top.addStretch(1)
        layout = QVBoxLayout(self)
        layout.setContentsMargins(0, 0, 0, 0)
        layout.addLayout(top)
        layout.addWidget(self.plot_widget, 1)
        layout.addWidget(hint)

    def is_log(self) -> bool:
        return self.log_axes.isChecked()

    def set_log(self, on: bool) -> None:
        self.log_axes.setChecked(on)

    def set_result(self, result: dict | None) -> None:
        self._result = result
        self._redraw()

    def curve_names(self) -> list[str]:
        """Names of the curves drawn now (for tests and the legend)."""
        return [item.name() for item in self.plot_item.listDataItems() if item.name()]

    # ------------------------------------------------------------------ drawing

    def _xy(self, x, y):
        return _positive(x, y) if self.is_log() else _finite(x, y)

    def _curve(self, x, y, name: str | None, pen) -> pg.PlotDataItem:
        x, y = self._xy(x, y)
        item = pg.PlotDataItem(x, y, pen=pen, name=name)
        self.plot_item.addItem(item)
        return item

    def _redraw(self) -> None:
        log = self.is_log()
        self.plot_item.clear()
        self.legend.clear()
        self.plot_item.setLogMode(x=log, y=log)
        result = self._result
        if not result:
            return
        theory = result.get("theory") or {}
        floor = LOG_FLOOR if log else 0.0

        region = theory.get("dp_region")
        if region and region.get("fpr"):
            eps = region.get("epsilon")
            name = f"Allowed by ({eps:.3g}, {region.get('delta', 0):.0e})-DP" if eps else \
                "Allowed by (ε, δ)-DP"
            x, y = self._xy(region["fpr"], region["tpr_upper"])
            upper = pg.PlotDataItem(x, y, pen=pg.mkPen(REGION_COLOR.darker(180), width=1),
                                    name=name)
            lower = pg.PlotDataItem(x, np.full_like(x, max(floor, LOG_FLOOR if log else 0.0)),
                                    pen=pg.mkPen(None))
            self.plot_item.addItem(upper)
            self.plot_item.addItem(lower)
            self.plot_item.addItem(pg.FillBetweenItem(upper, lower, brush=pg.mkBrush(REGION_COLOR)))

        # Random guessing: TPR = FPR.
        diag = np.r_[LOG_FLOOR if log else 0.0, 1.0]
        self._curve(diag, diag, "Random guess",
                    pg.mkPen(QColor(120, 120, 120), width=1, style=Qt.PenStyle.DotLine))

        worst = theory.get("worst_case_dp")
        if worst and worst.get("roc"):
            self._curve(worst["roc"]["fpr"], worst["roc"]["tpr"],
                        "Worst case ε₀-DP allows (k-fold)",
                        pg.mkPen(WORST_CASE_COLOR, width=2, style=Qt.PenStyle.DashLine))

        for i, attack in enumerate(result.get("attacks") or []):
            color = ATTACK_COLORS[i % len(ATTACK_COLORS)]
            band = (attack.get("details") or {}).get("roc_band")
            if band and band.get("fpr"):
                bx = np.asarray(band["fpr"], dtype=float)
                lo = np.asarray(band["tpr_lower"], dtype=float)
                hi = np.asarray(band["tpr_upper"], dtype=float)
                if log:
                    keep = (bx > 0) & (lo > 0) & (hi > 0)
                    bx, lo, hi = bx[keep], lo[keep], hi[keep]
                if bx.size >= 2:
                    fill_color = QColor(color)
                    fill_color.setAlpha(45)
                    c_lo = pg.PlotDataItem(bx, lo, pen=pg.mkPen(None))
                    c_hi = pg.PlotDataItem(bx, hi, pen=pg.mkPen(None))
                    self.plot_item.addItem(c_lo)
                    self.plot_item.addItem(c_hi)
                    self.plot_item.addItem(pg.FillBetweenItem(c_lo, c_hi,
                                                              brush=pg.mkBrush(fill_color)))
            roc = attack.get("roc") or {}
            if roc.get("fpr"):
                self._curve(roc["fpr"], roc["tpr"], attack.get("label") or attack.get("name"),
                            pg.mkPen(color, width=2))

        optimal = theory.get("optimal_attacker")
        if optimal and optimal.get("roc"):
            self._curve(optimal["roc"]["fpr"], optimal["roc"]["tpr"],
                        "Optimal attacker (exact theory)", pg.mkPen(OPTIMAL_COLOR, width=2.5))

        if log:
            self.plot_item.setXRange(-4.5, 0, padding=0.02)
            self.plot_item.setYRange(-4, 0, padding=0.02)
        else:
            self.plot_item.setXRange(0, 1, padding=0.02)
            self.plot_item.setYRange(0, 1, padding=0.02)
