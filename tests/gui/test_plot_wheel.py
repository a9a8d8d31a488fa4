"""Plots never steal the mouse wheel (issue: a few notches over the ROC zoomed it to ±300).

The wheel over any plot scrolls the page and leaves the view alone; Ctrl + wheel zooms, but
never beyond the meaningful range; "Reset view" restores the home view."""

from __future__ import annotations

import numpy as np
import pytest
from PySide6.QtCore import QPoint, QPointF, Qt
from PySide6.QtGui import QWheelEvent
from PySide6.QtWidgets import QApplication, QScrollArea

from gui.pages.mechanism_page import STEP_RESULTS
from tests.gui.test_mechanism_page import open_mechanism, run_to_completion


def wheel(widget, notches: int, modifiers=Qt.KeyboardModifier.NoModifier) -> None:
    """Turn the wheel ``notches`` times (negative = towards the user = scroll down) over the
    centre of ``widget``'s viewport, as Qt delivers it."""
    target = widget.viewport()
    pos = QPointF(target.width() / 2, target.height() / 2)
    for _ in range(abs(notches)):
        event = QWheelEvent(pos, QPointF(target.mapToGlobal(pos.toPoint())), QPoint(0, 0),
                            QPoint(0, 120 if notches > 0 else -120),
                            Qt.MouseButton.NoButton, modifiers, Qt.ScrollPhase.NoScrollPhase,
                            False)
        QApplication.sendEvent(target, event)


def scroll_area_of(widget) -> QScrollArea:
    parent = widget.parent()
    while parent is not None and not isinstance(parent, QScrollArea):
        parent = parent.parent()
    assert parent is not None, "the results are not inside a scrolling page"
    return parent


@pytest.fixture
def results_page(main_window, qtbot):
    page = open_mechanism(main_window)
    run_to_completion(page, qtbot)
    page.steps.setCurrentIndex(STEP_RESULTS)
    main_window.resize(1100, 700)       # small enough that the results page must scroll
    qtbot.wait(50)
    return page


def plots_of(page):
    view = page.results_view
    return {"roc": view.roc_plot.view, "what-if": view.sweep_plot.view}


def assert_wheel_scrolls_page(plot, qtbot):
    """A plain wheel turn over ``plot`` (a PlotView) scrolls its page and leaves its view."""
    area = scroll_area_of(plot)
    bar = area.verticalScrollBar()
    assert bar.maximum() > 0, "page does not scroll at this size"
    area.ensureWidgetVisible(plot.plot_widget)
    bar.setValue(min(bar.value(), bar.maximum() // 2))
    before_view = plot.view_range()
    before_scroll = bar.value()
    wheel(plot.plot_widget, -3)
    qtbot.wait(20)
    assert bar.value() > before_scroll, "the page did not scroll"
    assert plot.view_range() == pytest.approx(before_view), "the plot zoomed"


@pytest.mark.parametrize("which", ["roc", "what-if"])
def test_wheel_over_plot_scrolls_page_and_keeps_view(results_page, qtbot, which):
    assert_wheel_scrolls_page(plots_of(results_page)[which], qtbot)


@pytest.mark.parametrize("which", ["roc", "what-if"])
def test_ctrl_wheel_zooms_within_limits_and_reset_restores(results_page, qtbot, which):
    plot = plots_of(results_page)[which]
    home = plot.view_range()
    bar = scroll_area_of(plot).verticalScrollBar()
    scroll = bar.value()
    wheel(plot.plot_widget, 3, Qt.KeyboardModifier.ControlModifier)     # zoom in
    zoomed = plot.view_range()
    assert zoomed[1] - zoomed[0] < home[1] - home[0]
    assert bar.value() == scroll                                         # no page scroll
    wheel(plot.plot_widget, -40, Qt.KeyboardModifier.ControlModifier)   # try to zoom far out
    x0, x1, y0, y1 = plot.view_range()
    limits = plot.view_box.state["limits"]
    eps = 1e-9                                                          # float rounding
    assert limits["xLimits"][0] - eps <= x0 and x1 <= limits["xLimits"][1] + eps
    assert limits["yLimits"][0] - eps <= y0 and y1 <= limits["yLimits"][1] + eps
    plot.reset_button.click()
    assert plot.view_range() == pytest.approx(home)


def test_roc_limits_are_rates_on_linear_axes_and_data_decades_on_log_axes(results_page):
    roc = results_page.results_view.roc_plot
    limits = roc.view.view_box.state["limits"]
    assert limits["xLimits"] == pytest.approx([-0.02, 1.02])
    assert limits["yLimits"] == pytest.approx([-0.02, 1.02])
    roc.log_axes.click()
    limits = roc.view.view_box.state["limits"]
    # The report's log axes (engine.plots.series.roc_log_floor: the decade of 1/N
    # non-members, at most 10⁻⁴) to 1; nothing lies beyond 1 (log10 = 0).
    floor = float(np.log10(roc.roc_series().floor))
    assert floor <= -4
    assert limits["xLimits"][0] == pytest.approx(1.02 * floor) and \
        0 <= limits["xLimits"][1] <= 0.2
    assert limits["yLimits"][1] <= 0.2
    x0, x1, _, _ = roc.view.view_range()
    assert x0 == pytest.approx(1.02 * floor, abs=0.05) and x1 <= 0.2


def test_reset_view_is_visible_on_every_plot(results_page):
    for plot in plots_of(results_page).values():
        assert plot.reset_button.isVisibleTo(results_page)
        assert not plot.plot_item.menuEnabled()
