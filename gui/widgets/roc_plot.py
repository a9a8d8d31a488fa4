"""ROC plot: what the attackers achieve against what (ε, δ)-DP permits (paper 002, Thm 1).

Linear axes show the whole trade-off; log-log axes show the low false-positive corner where
confident accusations live (Carlini et al. 2022), so both are one click apart. On log axes,
points with FPR or TPR ≤ 0 cannot be drawn and are dropped, never replaced by a fake value.
What is drawn — curves, bands, legend words, colours, dashes and which band is shown by
default — is engine.plots.series.roc_series, which the report's ROC chart draws too.
"""

from __future__ import annotations

import numpy as np
import pyqtgraph as pg
from PySide6.QtGui import QColor, QPen
from PySide6.QtWidgets import QCheckBox, QLabel, QVBoxLayout, QWidget

from engine.plots import series
from gui.widgets.plot_view import PlotView, log_decades

LOG_FLOOR = 1e-6          # where the shaded DP region starts on log axes
HOME_LOG_X = (-4.5, 0.0)  # log10 FPR shown on log axes before any zoom
HOME_LOG_Y = (-4.0, 0.0)
REGION_COLOR = QColor(*series.REGION_FILL)
OPTIMAL_COLOR = QColor(*series.OPTIMAL_STYLE.color)
WORST_CASE_COLOR = QColor(*series.WORST_STYLE.color)
# The attacks' colours (engine.plots.series.ATTACK_STYLES): the same in the report.
ATTACK_COLORS = [QColor(*style.color) for style in series.ATTACK_STYLES]
PIXELS_PER_POINT = 1.6    # a report line width in points, drawn on screen


def style_pen(style: series.Style) -> QPen:
    """A series style (engine.plots.series) as a pen: the report's colour and dash pattern,
    the width scaled to the screen."""
    width = max(1.0, style.width * PIXELS_PER_POINT)
    pen = pg.mkPen(QColor(*style.color), width=width)
    if style.dash:
        # Qt's dash lengths are in pen widths, the report's in points.
        pen.setDashPattern([max(0.5, d * PIXELS_PER_POINT / width) for d in style.dash])
    return pen


def densified(x, y) -> tuple[np.ndarray, np.ndarray]:
    """A curve given by vertices joined with straight lines (an ROC, paper 002 §3) sampled
    finely enough to keep its shape on log axes, where a straight segment is a curve."""
    x = np.asarray(x, dtype=float)
    y = np.asarray(y, dtype=float)
    if x.size < 2:
        return x, y
    grid = np.unique(np.r_[np.geomspace(LOG_FLOOR, 1.0, 240), x])
    return grid, np.interp(grid, x, y)


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
        self.view = PlotView(min_height=360)
        self.plot_widget = self.view.plot_widget
        self.plot_item = self.view.plot_item
        self.plot_item.setLabel("bottom", "False-positive rate (people wrongly accused)")
        self.plot_item.setLabel("left", "True-positive rate (people correctly spotted)")
        self.plot_item.showGrid(x=True, y=True, alpha=0.2)
        self.legend = self.view.add_legend()

        self.log_axes = QCheckBox("Log-log axes (zoom on rare, confident accusations)")
        self.log_axes.setToolTip("Log scales stretch the corner of small false-positive rates, "
                                 "where an attacker is confident about a few people.")
        self.log_axes.toggled.connect(self._redraw)
        hint = QLabel("Green area: every result (ε, δ)-DP allows. A curve above it would mean "
                      "the privacy guarantee is broken.")
        hint.setWordWrap(True)
        hint.setStyleSheet("color: #555;")
        self.hint_label = hint      # an audit whose ROC has no DP region says something else

        self.every_band = QCheckBox("Every attack's 95 % band")
        self.every_band.setToolTip("Off: only the strongest attack's confidence band is shaded "
                                   "(as in the report); on: every attack's, which can hide the "
                                   "curves when several overlap.")
        self.every_band.toggled.connect(self._redraw)
        self.view.add_tool(self.log_axes)
        self.view.add_tool(self.every_band)
        layout = QVBoxLayout(self)
        layout.setContentsMargins(0, 0, 0, 0)
        layout.addWidget(self.view, 1)
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

    def roc_series(self) -> series.RocSeries | None:
        """What the plot draws (engine.plots.series.roc_series; the report draws the same)."""
        return series.roc_series(self._result) if self._result else None

    def _redraw(self) -> None:
        log = self.is_log()
        self.plot_item.clear()
        self.legend.clear()
        self.plot_item.setLogMode(x=log, y=log)
        roc = self.roc_series()
        if roc is None:
            self._set_home(log)
            return
        floor = LOG_FLOOR if log else 0.0

        if roc.region is not None:
            region = roc.region
            x, y = self._xy(region.x, region.upper)
            upper = pg.PlotDataItem(x, y, pen=pg.mkPen(REGION_COLOR.darker(180), width=1),
                                    name=region.label)
            lower = pg.PlotDataItem(x, np.full_like(x, floor), pen=pg.mkPen(None))
            self.plot_item.addItem(upper)
            self.plot_item.addItem(lower)
            self.plot_item.addItem(pg.FillBetweenItem(upper, lower, brush=pg.mkBrush(REGION_COLOR)))

        for band in roc.bands:
            if not (band.shown or self.every_band.isChecked()):
                continue
            bx = np.asarray(band.x, dtype=float)
            lo = np.asarray(band.lower, dtype=float)
            hi = np.asarray(band.upper, dtype=float)
            if log:
                # A lower end of 0 ("these trials cannot rule out TPR 0") is drawn down to
                # the floor of the log axes rather than dropped, so the band shows where
                # nothing is known as plainly as where it is tight.
                keep = (bx > 0) & (hi > 0)
                bx, lo, hi = bx[keep], np.maximum(lo[keep], LOG_FLOOR), hi[keep]
            if bx.size >= 2:
                c_lo = pg.PlotDataItem(bx, lo, pen=pg.mkPen(None))
                c_hi = pg.PlotDataItem(bx, hi, pen=pg.mkPen(None))
                self.plot_item.addItem(c_lo)
                self.plot_item.addItem(c_hi)
                fill = pg.FillBetweenItem(c_lo, c_hi, brush=pg.mkBrush(QColor(*band.fill)))
                self.plot_item.addItem(fill)
                self._band_legend(band, fill)

        diagonal = roc.diagonal
        x = np.array([LOG_FLOOR, 1.0]) if log else np.asarray(diagonal.x, dtype=float)
        self._curve(x, x, diagonal.label, style_pen(diagonal.style)).series_key = diagonal.key
        for curve in (*roc.references, *roc.attacks):
            x, y = curve.x, curve.y
            if log and curve.key == "btta_bound":
                x, y = densified(x, y)      # a few vertices joined by straight lines
            item = self._curve(x, y, curve.label, style_pen(curve.style))
            item.series_key = curve.key
        self._set_home(log)

    def _band_legend(self, band: series.Band, fill: pg.FillBetweenItem) -> None:
        """A legend entry for a shaded band, in the series' words (the report lists it too):
        a filled square; clicking it hides and shows the band, as for the curves."""
        sample = pg.BarGraphItem(x=[0], height=[0], width=0, pen=None,
                                 brush=pg.mkBrush(QColor(*band.fill)))
        sample.series_key = band.key
        sample.visibleChanged.connect(lambda: fill.setVisible(sample.isVisible()))
        self.legend.addItem(sample, band.label)

    def _set_home(self, log: bool) -> None:
        """Rates live in [0, 1]: linear axes show exactly that; log axes open on the low-FPR
        corner and may be zoomed out only to the decades that hold data."""
        if not log:
            self.view.set_home((0.0, 1.0), (0.0, 1.0))
            return
        xs, ys = [], []
        for item in self.plot_item.listDataItems():
            x, y = item.getOriginalDataset()
            if x is not None and len(x):
                xs.append(float(np.min(x)))
                ys.append(float(np.min(y)))
        x_low = min(log_decades(xs, LOG_FLOOR), HOME_LOG_X[0])
        y_low = min(log_decades(ys, LOG_FLOOR), HOME_LOG_Y[0])
        self.view.set_home(HOME_LOG_X, HOME_LOG_Y, (x_low, 0.0), (y_low, 0.0))
