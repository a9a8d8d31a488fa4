"""A plot that lives inside a scrolling page without stealing the mouse wheel (ARCHITECTURE §7).

pyqtgraph zooms on every wheel notch, so an officer scrolling down the results page with the
pointer over a plot zooms it instead, until both axes run from −300 to 300 and the curves are a
dot. Here the plain wheel is handed on to the page (it scrolls); Ctrl + wheel zooms; dragging
pans; the view can never leave the meaningful range (set by each plot: rates in [0, 1], log axes
to the decades that hold data); and "Reset view" is always one visible click away. Every plot
of the app is built from :class:`PlotView`.
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
    QVBoxLayout,
    QWidget,
)

ZOOM_HINT = "Ctrl + wheel zooms, drag pans"
PADDING = 0.02


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
        self.plot_widget = ScrollFriendlyPlotWidget()
        self.plot_widget.setMinimumHeight(min_height)
        self.plot_item = self.plot_widget.getPlotItem()
        self.plot_item.setMenuEnabled(False)
        self.plot_item.hideButtons()        # the corner "A" button is replaced by Reset view
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
        layout = QVBoxLayout(self)
        layout.setContentsMargins(0, 0, 0, 0)
        layout.addLayout(self.toolbar)
        layout.addWidget(self.plot_widget, 1)

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
