"""Chart helpers: log axes, clipping, and charts that survive empty or degenerate data."""

from __future__ import annotations

import numpy as np
import pytest
from reportlab.graphics import renderPDF
from reportlab.graphics.shapes import Drawing

from engine.report.charts import roc_chart, sweep_chart
from engine.report.plotkit import Axis, clip_polygon, clip_polyline, densify


def render(d: Drawing) -> bytes:
    data = renderPDF.drawToString(d)
    assert data[:5] == b"%PDF-"
    return data


def test_log_axis_maps_decades_and_sends_nonpositive_off_chart():
    ax = Axis(1e-4, 1.0, 0.0, 400.0, log=True)
    assert np.allclose(ax([1e-4, 1e-2, 1.0]), [0.0, 200.0, 400.0])
    assert (ax([0.0, -1.0]) < -1e5).all()
    assert [v for v, _ in ax.ticks()] == pytest.approx([1e-4, 1e-3, 1e-2, 1e-1, 1.0])
    assert [lbl for _, lbl in ax.ticks(percent=True)] == ["0.01%", "0.1%", "1%", "10%", "100%"]


def test_clip_polyline_enters_from_the_edge():
    # (0, 0) → (0, 0.5) → (1, 1) on a box [0, 1]² after a log transform put x = 0 far left
    pieces = clip_polyline(np.array([-1e6, -1e6, 0.5]), np.array([-1e6, 0.5, 1.0]),
                           (0.0, 0.0, 1.0, 1.0))
    assert len(pieces) == 1
    x0, y0 = pieces[0][:2]
    assert x0 == pytest.approx(0.0) and 0.5 <= y0 <= 1.0


def test_clip_polygon_inside_box():
    pts = clip_polygon(np.array([-1.0, 2.0, 2.0, -1.0]), np.array([-1.0, -1.0, 2.0, 2.0]),
                       (0.0, 0.0, 1.0, 1.0))
    xs, ys = pts[0::2], pts[1::2]
    assert min(xs) == 0 and max(xs) == 1 and min(ys) == 0 and max(ys) == 1


def test_densify_keeps_linear_interpolation():
    x, y = densify(np.array([0.0, 1e-3, 1.0]), np.array([0.0, 0.2, 1.0]))
    assert np.all(np.diff(x) >= 0)
    assert np.allclose(np.interp(x, [0.0, 1e-3, 1.0], [0.0, 0.2, 1.0]), y)


@pytest.mark.parametrize("log_scale", [False, True])
def test_roc_chart_with_real_fixture(mechanism_result, log_scale):
    render(roc_chart(mechanism_result, log_scale))


@pytest.mark.parametrize("log_scale", [False, True])
def test_roc_chart_empty_and_zero_tpr(log_scale):
    empty = {"attacks": [], "theory": {}}
    render(roc_chart(empty, log_scale))
    zero = {"attacks": [{"name": "a", "label": "All-zero attack", "n_negative": 100,
                         "roc": {"fpr": [0.0, 0.5, 1.0], "tpr": [0.0, 0.0, 0.0]},
                         "details": {"roc_band": {"fpr": [0.0, 1.0], "tpr_lower": [0.0, 0.0],
                                                  "tpr_upper": [0.0, 0.0]}}},
                        {"name": "b", "label": "Empty", "n_negative": 0,
                         "roc": {"fpr": [], "tpr": []}, "details": {}}],
            "theory": {"optimal_attacker": {"roc": {"fpr": [0.0, 1.0], "tpr": [0.0, 1.0]}},
                       "dp_region": {"epsilon": 0.0, "fpr": [0.0, 1.0],
                                     "tpr_upper": [0.0, 1.0]},
                       "worst_case_dp": None}}
    render(roc_chart(zero, log_scale))


def test_roc_chart_tolerates_nulls():
    r = {"attacks": [{"label": "x", "roc": {"fpr": [0.0, None, 1.0], "tpr": [0.0, 0.3, None]}}],
         "theory": {"dp_region": {"epsilon": None, "fpr": None, "tpr_upper": None}}}
    render(roc_chart(r, True))


def test_sweep_chart(mechanism_result):
    render(sweep_chart(mechanism_result))
    mechanism_result["theory"]["sweep"] = {"parameter": "observations", "values": [1, 2, 5, 10],
                                           "accuracy": [0.6, 0.7, 0.8, 0.9],
                                           "auc": [0.6, 0.7, 0.8, 0.9],
                                           "tpr_at_fpr": [0.0, 0.0, 0.1, 0.2],
                                           "fpr": 0.01, "current": 10}
    render(sweep_chart(mechanism_result))
    render(sweep_chart({"theory": {}}))
    render(sweep_chart({"theory": {"sweep": {"values": [1.0], "accuracy": [0.5]}}}))


def test_histogram_chart_draws_bars_curves_and_survives_empty_data():
    from reportlab.lib import colors

    from engine.report.charts import HistogramSeries, histogram_chart

    style = (colors.black, None, "circle")
    full = histogram_chart([0, 1, 2, 3], [HistogramSeries("bars", [0, 5, 3, 0], style,
                                                          colors.lightgrey)],
                           [HistogramSeries("law", [0.2, 4.8, 3.1, 0.1], style)],
                           "title", "score")
    assert len(render(full)) > 1000
    for centres, values in (([], []), ([1.0], [2]), ([0, 1], [1]), ([0, None], [1, 1])):
        render(histogram_chart(centres, [HistogramSeries("b", values, style)], [], "t", "x"))
