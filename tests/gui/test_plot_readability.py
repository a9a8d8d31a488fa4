"""Charts a reader can read (issue 21): no SI-prefix rescaling, log tick labels that never
collide at any size or zoom, the legend outside the curves' area, a sentence on an empty plot."""

from __future__ import annotations

import numpy as np
import pytest

from gui.widgets.plot_view import (
    LABEL_ROOM_PX,
    LABEL_ROOM_V_PX,
    LEGEND_ROW,
    PlotView,
    tick_number,
)
from gui.widgets.roc_plot import RocPlot


def labelled_positions(axis) -> list[float]:
    """Pixel positions along ``axis`` of the ticks that carry a label now."""
    lo, hi = axis.range
    horizontal = axis.orientation in ("top", "bottom")
    length = axis.geometry().width() if horizontal else axis.geometry().height()
    out = []
    axis.start_labels()                 # as one drawing does: levels coarse to fine
    for spacing, values in axis.tickValues(min(lo, hi), max(lo, hi), length):
        strings = axis.tickStrings(values, axis.autoSIPrefixScale * axis.scale, spacing)
        out += [(v - min(lo, hi)) / abs(hi - lo) * length
                for v, text in zip(values, strings, strict=True) if text]
    return sorted(out)


def roc_result(n=400):
    fpr = np.r_[0.0, np.geomspace(1e-4, 1.0, n)]
    tpr = np.sqrt(fpr)
    return {"attacks": [{"name": "a", "label": "An attack", "roc": {"fpr": fpr.tolist(),
                                                                    "tpr": tpr.tolist()},
                         "tpr_at_fpr": [], "auc": 0.8}], "theory": {}}


@pytest.mark.parametrize("size", [(1280, 720), (600, 380), (1600, 1000)])
@pytest.mark.parametrize("zoom", [1.0, 0.35, 0.08])
def test_log_tick_labels_never_collide(qtbot, size, zoom):
    plot = RocPlot()
    qtbot.addWidget(plot)
    plot.resize(*size)
    plot.set_result(roc_result())
    plot.set_log(True)
    plot.show()
    qtbot.waitExposed(plot)
    plot.view.view_box.scaleBy((zoom, zoom))
    qtbot.wait(20)
    for side, room in (("bottom", LABEL_ROOM_PX), ("left", LABEL_ROOM_V_PX)):
        axis = plot.plot_item.getAxis(side)
        positions = labelled_positions(axis)
        assert positions, f"{side} axis has no label at all"
        gaps = np.diff(positions)
        assert (gaps >= room - 1e-6).all(), (side, size, zoom, positions)


def test_axes_never_rescale_with_an_si_prefix(qtbot):
    view = PlotView()
    qtbot.addWidget(view)
    view.plot_item.plot([0.0003, 0.00065], [0.0003, 0.00065])
    view.set_home((0.0003, 0.00065), (0.0003, 0.00065))
    view.show()
    qtbot.waitExposed(view)
    for side in ("left", "bottom"):
        axis = view.plot_item.getAxis(side)
        assert axis.autoSIPrefixScale == 1.0 and "x0.001" not in axis.labelString()


def test_tick_numbers_read_as_people_write_them():
    assert [tick_number(x) for x in (1e-3, 0.5, 1.0, 20.0, 1000.0, 1e-5, 1e7, 5e-5)] == \
        ["0.001", "0.5", "1", "20", "1,000", "10⁻⁵", "10⁷", "5·10⁻⁵"]


def test_the_legend_sits_below_the_plot_not_over_the_curves(qtbot):
    plot = RocPlot()
    qtbot.addWidget(plot)
    plot.resize(900, 600)
    plot.set_result(roc_result())
    plot.show()
    qtbot.waitExposed(plot)
    legend = plot.plot_item.legend
    assert plot.plot_item.layout.itemAt(LEGEND_ROW, 1) is legend
    view_rect = plot.plot_item.vb.sceneBoundingRect()
    legend_rect = legend.sceneBoundingRect()
    assert legend_rect.top() >= view_rect.bottom() and not legend_rect.intersects(view_rect)


def test_an_empty_plot_says_so(qtbot):
    from gui.pages.location_preview import DataPreviewPlot

    preview = DataPreviewPlot()
    qtbot.addWidget(preview)
    assert preview.view.showing_message()
    assert "No data loaded yet" in preview.view.message_label.text()
    preview.set_aggregate(np.ones((24, 5)))
    assert not preview.view.showing_message()


def drawn_labels(axis) -> list[str]:
    """The tick labels the axis draws now (pyqtgraph leaves out those it finds no room for)."""
    from PySide6.QtGui import QImage, QPainter

    image = QImage(10, 10, QImage.Format.Format_ARGB32)
    painter = QPainter(image)
    try:
        _, _, texts = axis.generateDrawSpecs(painter)
    finally:
        painter.end()
    return [t[2] for t in texts]


@pytest.mark.parametrize("height", [300, 330, 360, 390])
def test_a_rate_axis_labels_both_ends(qtbot, height):
    """A short rate plot with its grid lost the labels of 0 and 1.0 (screenshots of the
    count-table sweep at 1280×720, issue 21): pyqtgraph drops a vertical axis' edge labels
    once a grid is shown."""
    from PySide6.QtGui import QColor

    from gui.widgets.sweep_plot import SweepCurve, SweepPlot

    plot = SweepPlot()
    qtbot.addWidget(plot)
    plot.resize(900, height)
    plot.show_curves([0.5, 1.0], [SweepCurve("AUC", [0.2, 0.4], QColor(0, 0, 0))],
                     axis_label="share")
    plot.show()
    qtbot.waitExposed(plot)
    qtbot.wait(20)
    labels = drawn_labels(plot.plot_item.getAxis("left"))
    assert "0" in labels and "1.0" in labels, labels


def test_the_sweep_caption_names_the_dashed_line_only_when_it_is_drawn(qtbot):
    """The count-table sweep's caption said "the dashed line marks the release audited" on a
    sample that releases every count (fraction 0), where no line is drawn (screenshots)."""
    import copy
    import json
    from pathlib import Path

    import pyqtgraph as pg

    from gui.widgets.aggregates_results import SweepsView

    saved = Path(__file__).resolve().parents[1] / "data" / "projects" / "aggregates.praudit.json"
    result = json.loads(saved.read_text("utf-8"))["result"]
    assert result["config"]["fraction"] == 0
    for fraction, drawn in ((0, False), (0.5, True)):
        shown = copy.deepcopy(result)
        shown["config"]["fraction"] = fraction
        view = SweepsView()
        qtbot.addWidget(view)
        view.set_result(shown)
        plot = view.plots["fraction"]
        lines = [i for i in plot.plot_item.items if isinstance(i, pg.InfiniteLine)
                 and i.angle == 90]          # the audited setting; the other is chance
        assert bool(lines) is drawn
        assert ("dashed line" in plot.inverse_label.text()) is drawn
