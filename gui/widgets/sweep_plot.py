"""What-if sweep: how the optimal attacker's success moves with ε per observation or with k.

All three curves are exact theory (no sampling), so they are smooth and cheap; the vertical
line marks the setting being audited so the officer sees which way is safer. Other audits draw
their own (measured) sweeps through :meth:`SweepPlot.show_curves`.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np
import pyqtgraph as pg
from PySide6.QtCore import Qt
from PySide6.QtGui import QColor, QPen
from PySide6.QtWidgets import QLabel, QVBoxLayout, QWidget

from engine.plots import series
from engine.results.loaded import load_result
from engine.results.mechanism import InverseAnswer, MechanismTheory
from gui.formatting import fpr_label, is_number, number, pct
from gui.widgets.plot_view import PlotView
from gui.widgets.roc_plot import style_pen


@dataclass(frozen=True)
class SweepCurve:
    """One curve of a sweep: its name, its y value at each swept value (None = not measured)
    and colour; optionally [lo, hi] intervals drawn as error bars, and markers at the points
    (measured sweeps have few points, theory curves many)."""

    name: str
    values: Sequence
    color: QColor
    intervals: Sequence | None = None
    style: Qt.PenStyle = Qt.PenStyle.SolidLine
    markers: bool = False
    style_pen: QPen | None = None       # a series style's pen (engine.plots.series), if any
    key: str = ""


def padded_log_range(values: np.ndarray) -> tuple[float, float]:
    """log10 range of the swept values; a single value gets half a decade either side."""
    lo, hi = float(np.log10(values.min())), float(np.log10(values.max()))
    return (lo - 0.5, hi + 0.5) if hi <= lo else (lo, hi)


def padded_range(values: np.ndarray) -> tuple[float, float]:
    """Range of the swept values on a linear axis, 6 % room either side (as the report's)."""
    lo, hi = float(values.min()), float(values.max())
    if hi <= lo:
        return lo - 0.5 * abs(lo or 1.0), hi + 0.5 * abs(hi or 1.0)
    pad = 0.06 * (hi - lo)
    return lo - pad, hi + pad


PARAMETER_AXIS = {
    "epsilon": "ε per observation",
    "observations": "observations per person k",
}
LOG_WORDS = series.LOG_WORDS
# Rates in %, as the banner and the tables write them; the AUC, 0–1 elsewhere, is drawn ×100
# on the same axis and the title says so (engine.plots.series.SWEEP_PERCENT_WORDS).
SUCCESS_AXIS = "Best possible attacker's success" + series.SWEEP_PERCENT_WORDS


def guide_line(guide: series.Guide, log_x: bool) -> pg.InfiniteLine:
    """A series' reference line (engine.plots.series.Guide) as the report draws it: the
    random-guess level across the plot, the audited setting up it with its words beside it.
    A vertical line's position is in view coordinates (log10 x on a log axis)."""
    pos = math.log10(guide.value) if guide.vertical and log_x else guide.value
    opts = ({"label": guide.note, "labelOpts": {"position": 0.92, "color": (40, 40, 40),
                                                "fill": (255, 255, 255, 200)}}
            if guide.note else {})
    line = pg.InfiniteLine(pos=pos, angle=90 if guide.vertical else 0, movable=False,
                           pen=style_pen(guide.style), **opts)
    line.guide = guide
    return line


def inverse_sentence(inverse: InverseAnswer | dict | None) -> str:
    """The answer to "how much ε can I afford?" as one sentence (theory.inverse, typed by
    engine.results.mechanism.InverseAnswer; a dict is read as one)."""
    if isinstance(inverse, dict):
        inverse = InverseAnswer.from_dict(inverse)
    if inverse is None:
        return ""
    fpr = fpr_label(inverse.fpr if inverse.fpr is not None else 0.01)
    limit = pct(inverse.max_tpr, 1)
    k = inverse.observations
    if not inverse.feasible:
        note = inverse.note
        return (f"No ε per observation keeps the best possible attacker at or below {limit} "
                f"of people "
                f"spotted at {fpr} false accusations with k = {k}. {note}").strip()
    eps = inverse.max_epsilon_per_observation
    scale = inverse.min_noise_scale
    scale_name = inverse.noise_scale_name or "noise scale"
    text = (f"To keep the best possible attacker at or below {limit} of people spotted at {fpr} "
            f"false accusations with k = {k} observations per person, use ε ≤ {number(eps)} per "
            f"observation")
    if is_number(scale):
        text += f" (a {scale_name} of at least {number(scale)})"
    text += f"; the attacker then spots {pct(inverse.achieved_tpr, 2)}."
    note = inverse.note
    return f"{text} {note}" if note else text


class SweepPlot(QWidget):
    """Accuracy, AUC and TPR at the policy FPR against the swept parameter."""

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.view = PlotView(min_height=260)
        self.plot_widget = self.view.plot_widget
        self.plot_item = self.view.plot_item
        self.plot_item.showGrid(x=True, y=True, alpha=0.2)
        self.plot_item.setLabel("left", "Best possible attacker's success")
        self.legend = self.view.add_legend()
        self.inverse_label = QLabel()
        self.inverse_label.setWordWrap(True)
        self.inverse_label.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
        layout = QVBoxLayout(self)
        layout.setContentsMargins(0, 0, 0, 0)
        layout.addWidget(self.view, 1)
        layout.addWidget(self.inverse_label)

    def set_result(self, result) -> None:
        """Show a mechanism result's what-if sweep (a loaded result or its dict, or None)."""
        r = load_result(result) if result else None
        theory = r.theory if r is not None and isinstance(r.theory, MechanismTheory) \
            else MechanismTheory()
        sweep = theory.sweep
        if sweep is None or not sweep.values:
            self.plot_item.clear()
            self.legend.clear()
            self.inverse_label.setText(inverse_sentence(theory.inverse))
            return
        parameter = sweep.parameter or "epsilon"
        # The curves, their words and colours: engine.plots.series, as in the report.
        curves = series.sweep_series(r)
        values = sorted({x for c in curves for x in c.x})
        self.show_curves(values,
                         [SweepCurve(c.label, [dict(zip(c.x, c.y, strict=True)).get(v)
                                               for v in values],
                                     QColor(*c.style.color), style_pen=style_pen(c.style),
                                     key=c.key)
                          for c in curves],
                         axis_label=PARAMETER_AXIS.get(parameter, parameter),
                         current=sweep.current,
                         current_symbol="ε" if parameter == "epsilon" else "k",
                         y_label=SUCCESS_AXIS, y_percent=True,
                         text=inverse_sentence(theory.inverse))

    def show_curves(self, values, curves: Sequence[SweepCurve], *, axis_label: str,
                    current=None, current_symbol: str = "", y_label: str | None = None,
                    text: str = "", guides: Sequence[series.Guide] | None = None,
                    log_x: bool = True, y_percent: bool = False) -> None:
        """Draw ``curves`` against the swept ``values``, rates in [0, 1]; a dashed line marks
        the ``current`` setting; ``text`` goes under the plot. ``guides`` (engine.plots.series
        reference lines, as the report draws them) replace ``current``; ``log_x`` is the
        series' choice of axis (the mechanism's theory sweep is always log), and the axis
        title says "log scale" only when it is. ``y_percent`` writes the y ticks in % (rates
        that read in % elsewhere; an AUC axis stays 0–1).

        Any audit's sweep (theory curves or measured points with intervals) draws through
        this, so all sweeps look and zoom alike.
        """
        self.plot_item.clear()
        self.legend.clear()
        self.inverse_label.setText(text)
        values = np.array([np.nan if not is_number(v) else v for v in values], dtype=float)
        order = np.argsort(values, kind="stable")       # lines run left to right
        values = values[order]
        self.plot_item.setLogMode(x=log_x, y=False)
        self.plot_item.getAxis("left").set_percent(y_percent)
        self.plot_item.setLabel("bottom", axis_label + (LOG_WORDS if log_x else ""))
        if y_label is not None:
            self.plot_item.setLabel("left", y_label)
        positive = values > 0 if log_x else np.isfinite(values)
        # Error bars and lines are placed in view coordinates: log10 x on a log axis.
        logx = np.log10(np.where(values > 0, values, 1.0)) if log_x else values
        for curve in curves:
            y = np.array([np.nan if not is_number(v) else v for v in curve.values],
                         dtype=float)
            if y.size != values.size:
                continue
            y = y[order]
            keep = np.isfinite(y) & positive
            pen = curve.style_pen or pg.mkPen(curve.color, width=2, style=curve.style)
            marks = ({"symbol": "o", "symbolSize": 7, "symbolBrush": curve.color,
                      "symbolPen": curve.color} if curve.markers else {})
            item = pg.PlotDataItem(values[keep], y[keep], name=curve.name, pen=pen, **marks)
            item.series_key = curve.key
            self.plot_item.addItem(item)
            if curve.intervals is not None and len(curve.intervals) == values.size:
                ci = [curve.intervals[i] or [None, None] for i in order]
                lo = np.array([np.nan if not is_number(c[0]) else c[0] for c in ci])
                hi = np.array([np.nan if not is_number(c[1]) else c[1] for c in ci])
                bars = keep & np.isfinite(lo) & np.isfinite(hi)
                if bars.any():
                    self.plot_item.addItem(pg.ErrorBarItem(
                        x=logx[bars], y=y[bars], top=hi[bars] - y[bars],
                        bottom=y[bars] - lo[bars], beam=0.02, pen=pg.mkPen(curve.color)))
        if guides is not None:
            for guide in guides:
                if guide.vertical and log_x and not guide.value > 0:
                    continue
                self.plot_item.addItem(guide_line(guide, log_x))
                # The legend lists it in the series' words, as the report's does.
                self.legend.addItem(pg.PlotDataItem(pen=style_pen(guide.style)), guide.label)
        elif is_number(current) and current > 0:
            line = pg.InfiniteLine(pos=np.log10(current), angle=90,
                                   pen=pg.mkPen(QColor(60, 60, 60), width=1.5,
                                                style=Qt.PenStyle.DashLine),
                                   label=(f"now: {current_symbol} = {number(current)}"
                                          if current_symbol else f"now: {number(current)}"),
                                   labelOpts={"position": 0.08, "color": (40, 40, 40),
                                              "fill": (255, 255, 255, 200)})
            self.plot_item.addItem(line)
        # Success rates live in [0, 1]; the swept values span the x axis (log10 units on a log
        # axis), the audited setting in view too.
        shown = values[positive]
        marks = [g.value for g in guides or () if g.vertical and (g.value > 0 or not log_x)]
        if shown.size or marks:
            span = np.r_[shown, marks]
            self.view.set_home(padded_log_range(span) if log_x else padded_range(span),
                               (0.0, 1.0))
