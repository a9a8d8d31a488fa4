"""A plot that lives inside a scrolling page without stealing the mouse wheel (ARCHITECTURE §7).

pyqtgraph zooms on every wheel notch, so an officer scrolling down the results page with the
pointer over a plot zooms it instead, until both axes run from −300 to 300 and the curves are a
dot. Here the plain wheel is handed on to the page (it scrolls); Ctrl + wheel zooms; dragging
pans; the view can never leave the meaningful range (set by each plot: rates in [0, 1], log axes
to the decades that hold data); and "Reset view" is always one visible click away. Every plot
of the app is built from :class:`PlotView`.

Readability (issue 21, "Charts a reader can read"): axes never rescale their numbers with an SI
prefix ("300 … 650 (x0.001)" after a zoom); a log axis labels only the decades, fewer of them
when they crowd, and the 2s and 5s between them only where there is room (pyqtgraph's own labels
ran together: "6·10¹ 7·10¹8·10¹9·10¹10²"); the legend sits below the plot, outside the area the
curves use, so it never covers one; and a plot with nothing to show says so in a sentence
instead of drawing empty axes.
"""

from __future__ import annotations

import math

import pyqtgraph as pg
from PySide6.QtCore import Qt
from PySide6.QtGui import QWheelEvent
from PySide6.QtWidgets import (
    QAbstractScrollArea,
    QApplication,
    QHBoxLayout,
    QLabel,
    QPushButton,
    QStackedLayout,
    QVBoxLayout,
    QWidget,
)

from engine.plots.series import percent_tick

ZOOM_HINT = "Ctrl + wheel zooms, drag pans"
PADDING = 0.02


# Pixels a tick label needs along the axis before the next may start (a label such as
# "0.0001" at the 8-9 pt of the axes); below it a label is left out rather than overlapped.
LABEL_ROOM_PX = 46
LABEL_ROOM_V_PX = 20            # the same on a vertical axis: one line of text high
NARROW_PX = 760                 # below this width the legend lists its curves in one column
LEGEND_SAMPLE_PX = 50           # a legend entry's sample and the gap before its words
LEGEND_ROW = 4                  # PlotItem's layout: 0 title, 1 top axis, 2 view, 3 bottom axis
# How far a tick label of a vertical axis may reach past the plot's top or bottom edge: about
# half a line, so the labels of ticks at the very ends (0 and 1 of a rate) are drawn.
EDGE_LABEL_PX = 10


def tick_number(x: float) -> str:
    """A tick value as a reader writes it: 0.001, 0.5, 20, 1,000 — powers of ten below 10⁻⁴ and
    above 10⁶ as such (10⁻⁵), never in an exponent notation a non-programmer must decode."""
    if x == 0 or not math.isfinite(x):
        return "0" if x == 0 else ""
    exponent = math.log10(abs(x))
    if 1e-4 <= abs(x) < 1e6:
        text = f"{x:,.6f}".rstrip("0").rstrip(".") if abs(x) < 1 else f"{x:,.6g}"
        return text
    supers = str.maketrans("-0123456789", "⁻⁰¹²³⁴⁵⁶⁷⁸⁹")
    if abs(exponent - round(exponent)) < 1e-9:
        return f"10{str(int(round(exponent))).translate(supers)}"
    # 5·10⁻⁵, not "5.0e-05" (seen at the left edge of the log-log ROC).
    mantissa, power = f"{x:.1e}".split("e")
    mantissa = mantissa.rstrip("0").rstrip(".")
    return f"{mantissa}·10{str(int(power)).translate(supers)}"


class ReadableAxis(pg.AxisItem):
    """An axis without SI-prefix rescaling whose log-mode labels never collide (module
    docstring)."""

    def __init__(self, orientation: str, **kwargs) -> None:
        super().__init__(orientation, **kwargs)
        self.enableAutoSIPrefix(False)
        self._labelled: list[float] = []     # pixel positions labelled so far in this drawing
        self.percent = False        # rates written in percent, as the report writes them

    def set_percent(self, on: bool) -> None:
        """Write this axis' rates in percent (0.025 → 2.5%; on a log axis 0.001 → 0.1%), as
        the report's axis and the tables do (engine.plots.series.percent_tick)."""
        self.percent = on
        self.picture = None
        self.update()

    def tickStrings(self, values, scale, spacing):  # noqa: N802 (pyqtgraph's name)
        if self.percent and not self.logMode:
            return [percent_tick(v * scale) for v in values]
        return super().tickStrings(values, scale, spacing)

    def start_labels(self) -> None:
        """Forget the labels of the last drawing (pyqtgraph asks for each tick level's labels
        in turn, coarse to fine, within one drawing; a finer level's labels must keep clear of
        the coarser ones')."""
        self._labelled = []

    def generateDrawSpecs(self, p):  # noqa: N802 (pyqtgraph's name)
        self.start_labels()
        return super().generateDrawSpecs(p)

    def boundingRect(self):  # noqa: N802 (Qt's name)
        """The area tick labels may use: pyqtgraph lets a vertical axis' labels reach 15
        pixels past its ends, but not when the plot shows a grid (every plot here does), so a
        rate axis of a short plot lost its "0" and "1.0" — the labels a reader looks for
        first. Here they may reach :data:`EDGE_LABEL_PX` past either end, grid or not."""
        rect = super().boundingRect()
        if self.orientation in ("left", "right"):
            ends = self.mapRectFromParent(self.geometry())
            rect = rect.united(ends.adjusted(0, -EDGE_LABEL_PX, 0, EDGE_LABEL_PX))
        return rect

    def _pixels_per_decade(self) -> float:
        lo, hi = self.range
        span = abs(hi - lo) or 1.0
        length = self.geometry().height() if self.orientation in ("left", "right") \
            else self.geometry().width()
        return max(length, 1.0) / span

    def logTickStrings(self, values, scale, spacing):  # noqa: N802 (pyqtgraph's name)
        """Labels for the log ticks ``values`` (log10 units): decades first, then 5s, then 2s,
        then the rest, each kept only if it stands at least a label's room from every label
        already kept — so labels never run together at any size or zoom."""
        room = LABEL_ROOM_PX if self.orientation in ("top", "bottom") else LABEL_ROOM_V_PX
        per_decade = self._pixels_per_decade()
        lo = min(self.range)

        def rank(v: float) -> int:
            if abs(v - round(v)) < 1e-6:
                return 0
            mantissa = round(10 ** (v - math.floor(v + 1e-9)))
            return {5: 1, 2: 2}.get(mantissa, 3)

        shown = set()
        for i in sorted(range(len(values)), key=lambda i: (rank(values[i]), values[i])):
            at = (float(values[i]) - lo) * per_decade
            if all(abs(at - other) >= room for other in self._labelled):
                self._labelled.append(at)
                shown.add(i)
        write = percent_tick if self.percent else tick_number
        return [write(10 ** float(v) * scale) if i in shown else ""
                for i, v in enumerate(values)]


class RoomyLegend(pg.LegendItem):
    """A legend that tells its plot how tall it has become (PlotView makes room for it)."""

    resized = None          # callable(height) set by PlotView.add_legend

    def updateSize(self) -> None:  # noqa: N802 (pyqtgraph's name)
        super().updateSize()
        if self.resized is not None:
            self.resized(self.layout.preferredHeight() if self.items else 0.0)


def readable_axes() -> dict[str, ReadableAxis]:
    return {side: ReadableAxis(side) for side in ("left", "bottom")}


class ScrollFriendlyPlotWidget(pg.PlotWidget):
    """A PlotWidget whose plain wheel events scroll the page around it; only Ctrl + wheel
    reaches pyqtgraph's zoom."""

    def wheelEvent(self, ev) -> None:  # noqa: N802 (Qt's name)
        if ev.modifiers() & Qt.KeyboardModifier.ControlModifier:
            super().wheelEvent(ev)
            ev.accept()
            return
        area = self._scrolling_ancestor()
        if area is None:
            ev.ignore()
            return
        # Hand the event to the page explicitly rather than ignoring it: Qt 6 propagates only
        # spontaneous wheel events to parents, so forwarding behaves the same for a real wheel,
        # a touchpad and a synthesised event (the tests), and never scrolls twice.
        viewport = area.viewport()
        forwarded = QWheelEvent(viewport.mapFromGlobal(ev.globalPosition()), ev.globalPosition(),
                                ev.pixelDelta(), ev.angleDelta(), ev.buttons(), ev.modifiers(),
                                ev.phase(), ev.inverted(), ev.source())
        QApplication.sendEvent(viewport, forwarded)
        ev.accept()

    def _scrolling_ancestor(self) -> QAbstractScrollArea | None:
        parent = self.parentWidget()
        while parent is not None and not isinstance(parent, QAbstractScrollArea):
            parent = parent.parentWidget()
        return parent


def padded(lo: float, hi: float, padding: float = PADDING) -> tuple[float, float]:
    """[lo, hi] widened by ``padding`` of its span (by ½ each side when it has none)."""
    span = hi - lo
    if not span > 0:
        return lo - 0.5, hi + 0.5
    return lo - padding * span, hi + padding * span


def log_decades(values, floor: float = 1e-6) -> float:
    """log10 of the lowest decade that holds positive data (at least ``floor``)."""
    positive = [v for v in values if v is not None and math.isfinite(v) and v > 0]
    if not positive:
        return math.log10(floor)
    return max(math.floor(math.log10(min(positive))), math.log10(floor))


class PlotView(QWidget):
    """A plot with a toolbar row (``toolbar`` takes extra widgets on the left), a zoom hint
    and a "Reset view" button.

    The owner calls :meth:`set_home` with the view to show and the bounds the view may never
    leave, in view coordinates (log10 units on log axes, as pyqtgraph uses).
    """

    def __init__(self, min_height: int = 260, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.plot_widget = ScrollFriendlyPlotWidget(axisItems=readable_axes())
        self.plot_widget.setMinimumHeight(min_height)
        self._min_height = min_height
        self.plot_item = self.plot_widget.getPlotItem()
        self.plot_item.setMenuEnabled(False)
        self.plot_item.hideButtons()        # the corner "A" button is replaced by Reset view
        # Room above the plot for the top tick label, which reaches past the plot's top edge
        # (ReadableAxis.boundingRect) and would otherwise be cut by the widget's edge.
        left, top, right, bottom = self.plot_item.layout.getContentsMargins()
        self.plot_item.layout.setContentsMargins(left, max(top, EDGE_LABEL_PX), right, bottom)
        self.view_box = self.plot_item.getViewBox()
        self._home: tuple[tuple[float, float], tuple[float, float]] | None = None

        self.reset_button = QPushButton("Reset view")
        self.reset_button.setToolTip("Show the whole plot again after zooming or panning.")
        self.reset_button.clicked.connect(self.reset_view)
        hint = QLabel(ZOOM_HINT)
        hint.setStyleSheet("color: #666;")
        self.toolbar = QHBoxLayout()
        self.toolbar.addStretch(1)
        self.toolbar.addWidget(hint)
        self.toolbar.addWidget(self.reset_button)
        # The plot, or in its place a sentence when there is nothing to draw (show_message).
        self.message_label = QLabel()
        self.message_label.setWordWrap(True)
        self.message_label.setAlignment(Qt.AlignmentFlag.AlignCenter)
        self.message_label.setStyleSheet("color: #555; border: 1px dashed #bbb; padding: 12px;")
        self.message_label.setMinimumHeight(min(min_height, 120))
        self._stack = QStackedLayout()
        self._stack.addWidget(self.plot_widget)
        self._stack.addWidget(self.message_label)
        layout = QVBoxLayout(self)
        layout.setContentsMargins(0, 0, 0, 0)
        layout.addLayout(self.toolbar)
        layout.addLayout(self._stack, 1)

    def add_legend(self, columns: int = 2) -> pg.LegendItem:
        """A legend below the plot, outside the curves' area (module docstring); items given a
        ``name`` are listed in it as with ``PlotItem.addLegend``."""
        legend = RoomyLegend(labelTextSize="8pt", colCount=columns)
        legend.resized = self._make_room_for_legend
        self.plot_item.layout.addItem(legend, LEGEND_ROW, 1)
        self.plot_item.legend = legend
        self._legend_columns = columns
        self._fit_legend()
        return legend

    def resizeEvent(self, event) -> None:  # noqa: N802 (Qt's name)
        super().resizeEvent(event)
        self._fit_legend()

    def _make_room_for_legend(self, legend_height: float) -> None:
        """Grow the plot by the legend's height, so a legend of several rows is never cut at
        the widget's bottom edge nor squeezes the curves' area below its minimum."""
        height = max(0.0, legend_height)
        self.plot_item.layout.setRowMinimumHeight(LEGEND_ROW, height)
        self.plot_widget.setMinimumHeight(int(self._min_height + height))

    def _fit_legend(self) -> None:
        """One column on a narrow plot, or when two columns of the longest name would not fit
        the plot's width, so long curve names are not cut at the right edge (pyqtgraph then
        widens the plot past its widget and cuts the curves' right side too)."""
        legend = self.plot_item.legend
        if legend is not None and hasattr(self, "_legend_columns"):
            # The words' own width (a LabelItem's rectangle stretches to the legend's).
            widths = [label.item.document().idealWidth() for _, label in legend.items]
            # A sample, its gap and the label per column, with the axes' margin beside them.
            two_fit = 2 * (max(widths, default=0.0) + LEGEND_SAMPLE_PX) + 80 <= self.width()
            wide = self.width() >= NARROW_PX and two_fit
            legend.setColumnCount(self._legend_columns if wide else 1)

    def fit_legend(self) -> None:
        """Lay the legend out again for its entries now (call after adding them)."""
        self._fit_legend()

    def show_message(self, text: str | None) -> None:
        """Show ``text`` instead of the plot (an empty plot draws axes that mean nothing); None
        shows the plot again."""
        self.message_label.setText(text or "")
        self._stack.setCurrentWidget(self.plot_widget if text is None else self.message_label)
        self.reset_button.setEnabled(text is None)

    def showing_message(self) -> bool:
        return self._stack.currentWidget() is self.message_label

    def add_tool(self, widget: QWidget) -> None:
        """Put a control (e.g. an axis toggle) at the left of the toolbar row."""
        self.toolbar.insertWidget(self.toolbar.count() - 3, widget)

    def set_home(self, x_range: tuple[float, float], y_range: tuple[float, float],
                 x_bounds: tuple[float, float] | None = None,
                 y_bounds: tuple[float, float] | None = None) -> None:
        """Show ``x_range`` × ``y_range`` and forbid views beyond the bounds (default: the
        home view itself, padded)."""
        x_bounds = padded(*(x_bounds or x_range))
        y_bounds = padded(*(y_bounds or y_range))
        self.view_box.setLimits(xMin=x_bounds[0], xMax=x_bounds[1],
                                yMin=y_bounds[0], yMax=y_bounds[1],
                                maxXRange=x_bounds[1] - x_bounds[0],
                                maxYRange=y_bounds[1] - y_bounds[0])
        self._home = (tuple(x_range), tuple(y_range))
        self.reset_view()

    def reset_view(self) -> None:
        if self._home is None:
            self.view_box.autoRange()
            return
        (x0, x1), (y0, y1) = self._home
        self.view_box.setRange(xRange=(x0, x1), yRange=(y0, y1), padding=PADDING)

    def view_range(self) -> tuple[float, float, float, float]:
        """The current view in view coordinates: (x0, x1, y0, y1)."""
        (x0, x1), (y0, y1) = self.view_box.viewRange()
        return x0, x1, y0, y1
