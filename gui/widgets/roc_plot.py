"""ROC plot: what the attackers achieve against what (ε, δ)-DP permits (paper 002, Thm 1).

Linear axes show the whole trade-off; log-log axes show the low false-positive corner where
confident accusations live (Carlini et al. 2022), so both are one click apart. What is drawn —
curves, bands, legend words, colours, dashes, which band is shown by default and, on log
axes, where each curve starts (engine.plots.series.log_roc: a measured attack at its first
vertex with FPR > 0, theory at the axes' floor) — is engine.plots.series.roc_series, which the
report's ROC chart draws too.
"""

from __future__ import annotations

import math

import numpy as np
import pyqtgraph as pg
from PySide6.QtGui import QColor, QPen
from PySide6.QtWidgets import QCheckBox, QLabel, QVBoxLayout, QWidget

from engine.plots import series
from engine.results.loaded import LoadedResult, load_result
from gui.widgets.plot_view import PlotView

REGION_COLOR = QColor(*series.REGION_FILL)
OPTIMAL_COLOR = QColor(*series.OPTIMAL_STYLE.color)
WORST_CASE_COLOR = QColor(*series.WORST_STYLE.color)
# The attacks' colours (engine.plots.series.ATTACK_STYLES): the same in the report.
ATTACK_COLORS = [QColor(*style.color) for style in series.ATTACK_STYLES]
PIXELS_PER_POINT = 1.6    # a report line width in points, drawn on screen
FILL_Z = -20              # the DP region and the bands: under every line
BAR_Z = 5                 # the policy-rate error bars: over the curves they annotate
SYMBOLS = {"circle": "o", "square": "s", "triangle": "t1", "diamond": "d", "cross": "x",
           "star": "star"}


def style_pen(style: series.Style) -> QPen:
    """A series style (engine.plots.series) as a pen: the report's colour and dash pattern,
    the width scaled to the screen."""
    width = max(1.0, style.width * PIXELS_PER_POINT)
    pen = pg.mkPen(QColor(*style.color), width=width)
    if style.dash:
        # Qt's dash lengths are in pen widths, the report's in points.
        pen.setDashPattern([max(0.5, d * PIXELS_PER_POINT / width) for d in style.dash])
    return pen


class RocPlot(QWidget):
    """ROC curves of the result with a linear / log-log toggle."""

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self._result: LoadedResult | None = None
        self.view = PlotView(min_height=360)
        self.plot_widget = self.view.plot_widget
        self.plot_item = self.view.plot_item
        self.plot_item.setLabel("bottom", "False-positive rate (people wrongly accused)")
        self.plot_item.setLabel("left", "True-positive rate (people correctly spotted)")
        self.plot_item.showGrid(x=True, y=True, alpha=0.2)
        # Rates in percent, as the tables, the summary and the report's chart write them.
        for side in ("left", "bottom"):
            self.plot_item.getAxis(side).set_percent(True)
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
        self.every_band.setToolTip("Off: only the strongest attack's confidence band and its "
                                   "interval at the policy's false-positive rate are drawn (as "
                                   "in the report); on: every attack's, which can crowd the "
                                   "plot when several overlap.")
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

    def set_result(self, result) -> None:
        """Show ``result`` (a loaded result, engine.results.loaded, or its dict; None: empty)."""
        self._result = load_result(result) if result else None
        self._redraw()

    def curve_names(self) -> list[str]:
        """Names of the curves drawn now (for tests and the legend)."""
        return [item.name() for item in self.plot_item.listDataItems() if item.name()]

    # ------------------------------------------------------------------ drawing

    def _curve(self, x, y, name: str | None, pen) -> pg.PlotDataItem:
        item = pg.PlotDataItem(np.asarray(x, dtype=float), np.asarray(y, dtype=float), pen=pen, name=name)
        self.plot_item.addItem(item)
        return item

    def roc_series(self) -> series.RocSeries | None:
        """What the plot draws (engine.plots.series.roc_series on the axes shown now; the
        report draws the same)."""
        return series.roc_series(self._result, log=self.is_log()) if self._result else None

    def _redraw(self) -> None:
        log = self.is_log()
        self.plot_item.clear()
        self.legend.clear()
        self.plot_item.setLogMode(x=log, y=log)
        roc = self.roc_series()
        if roc is None:         # empty axes, as a result would open them
            self._set_home(series.roc_log_floor({}) if log else None)
            return

        # Fills lie under every line (explicit z-values, not the order items were added in):
        # a curve is never covered by a filled area (issue 32 item 8).
        if roc.region is not None:
            region = roc.region
            upper = pg.PlotDataItem(np.asarray(region.x), np.asarray(region.upper),
                                    pen=pg.mkPen(REGION_COLOR.darker(180), width=1),
                                    name=region.label)
            upper.series_key = region.key
            lower = pg.PlotDataItem(np.asarray(region.x), np.asarray(region.lower),
                                    pen=pg.mkPen(None))
            self.plot_item.addItem(upper)
            self.plot_item.addItem(lower)
            fill = pg.FillBetweenItem(upper, lower, brush=pg.mkBrush(REGION_COLOR))
            fill.setZValue(FILL_Z)
            self.plot_item.addItem(fill)

        every = self.every_band.isChecked()
        for band in roc.bands:
            if not (band.shown or every):
                continue
            bx = np.asarray(band.x, dtype=float)
            lo = np.asarray(band.lower, dtype=float)
            hi = np.asarray(band.upper, dtype=float)
            if bx.size >= 2:
                c_lo = pg.PlotDataItem(bx, lo, pen=pg.mkPen(None))
                c_hi = pg.PlotDataItem(bx, hi, pen=pg.mkPen(None))
                self.plot_item.addItem(c_lo)
                self.plot_item.addItem(c_hi)
                fill = pg.FillBetweenItem(c_lo, c_hi, brush=pg.mkBrush(QColor(*band.fill)))
                fill.setZValue(FILL_Z)
                fill.series_key = band.key
                self.plot_item.addItem(fill)
                self._band_legend(band, fill)

        for curve in roc.curves():
            item = self._curve(curve.x, curve.y, curve.label, style_pen(curve.style))
            item.series_key = curve.key
        for bar in roc.intervals:
            if bar.shown or every:
                self._interval(bar, log)
        self.view.fit_legend()
        self._set_home(roc.floor)

    def interval_items(self) -> list[pg.GraphicsObject]:
        """The error bars drawn now at the policy's false-positive rate (for tests)."""
        return [i for i in self.plot_item.items if getattr(i, "interval_key", None)]

    def _interval(self, bar: series.Curve, log: bool) -> None:
        """An attack's TPR at the policy's false-positive rate with its 95 % interval, as the
        tables quote it (engine.plots.series.policy_interval): a vertical bar with caps and
        the attack's marker; on log axes a lower end of 0 runs to the axes' floor, and a TPR
        of 0 has no marker (it lies below every log axis)."""
        color = QColor(*bar.style.color)
        x, y, lo, hi = bar.x[0], bar.y[0], bar.lower[0], bar.upper[0]
        view = math.log10 if log else float      # ErrorBarItem works in view coordinates
        vx, vy = view(x), (view(y) if y > 0 or not log else view(lo))
        bars = pg.ErrorBarItem(x=np.asarray([vx]), y=np.asarray([vy]),
                               top=np.asarray([view(hi) - vy]),
                               bottom=np.asarray([vy - view(lo)]),
                               beam=0.06 if log else 0.015, pen=pg.mkPen(color, width=1.6))
        bars.interval_key = bar.key
        bars.setZValue(BAR_Z)
        self.plot_item.addItem(bars)
        if y > 0 or not log:
            # A PlotDataItem, not a bare scatter: it follows the plot's log mode.
            dot = pg.PlotDataItem([x], [y], pen=None, symbol=SYMBOLS.get(bar.style.marker, "o"),
                                  symbolSize=8, symbolPen=pg.mkPen(color, width=1.4),
                                  symbolBrush=pg.mkBrush(255, 255, 255))
            dot.interval_key = bar.key        # not a curve: no series_key, no legend name
            dot.setZValue(BAR_Z + 1)
            self.plot_item.addItem(dot)
        sample = pg.PlotDataItem([0.0], [0.0], pen=None, symbol=SYMBOLS.get(bar.style.marker,
                                                                              "o"),
                                 symbolPen=pg.mkPen(color, width=1.4), symbolBrush="w")
        self.legend.addItem(sample, bar.label)

    def _band_legend(self, band: series.Band, fill: pg.FillBetweenItem) -> None:
        """A legend entry for a shaded band, in the series' words (the report lists it too):
        a filled square; clicking it hides and shows the band, as for the curves."""
        sample = pg.BarGraphItem(x=[0], height=[0], width=0, pen=None,
                                 brush=pg.mkBrush(QColor(*band.fill)))
        sample.series_key = band.key
        sample.visibleChanged.connect(lambda: fill.setVisible(sample.isVisible()))
        self.legend.addItem(sample, band.label)

    def _set_home(self, floor: float | None) -> None:
        """Rates live in [0, 1]: linear axes show exactly that; log axes (``floor`` not None)
        run from the series' floor to 1, as in the report."""
        if floor is None:
            self.view.set_home((0.0, 1.0), (0.0, 1.0))
            return
        low = math.log10(floor)
        self.view.set_home((low, 0.0), (low, 0.0))
