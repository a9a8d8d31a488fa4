"""The screen and the report draw the same series (issue 19 item 4; issue 21 "the same series
and colours on screen and in the PDF"): for a saved result of every audit type, each curve of
the GUI's plot and of the PDF's chart has the same legend words, the same colour and the same
number of points, because both come from engine.plots.series."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from reportlab.graphics.shapes import PolyLine, String

from engine.plots import series
from engine.report.charts import observations_chart, rl_color, roc_chart, sweep_chart

PROJECTS = Path(__file__).resolve().parents[1] / "data" / "projects"


def saved_result(audit_type: str) -> dict:
    return json.loads((PROJECTS / f"{audit_type}.praudit.json").read_text("utf-8"))["result"]


def walk(group):
    for item in getattr(group, "contents", []):
        yield item
        yield from walk(item)


def drawn_text(drawing) -> str:
    """Everything the drawing writes, without spaces: the legend wraps a long label over
    lines, and Greek letters are separate runs in the Symbol font."""
    return "".join("".join(s.text.split()) for s in walk(drawing) if isinstance(s, String))


def stroke_colours(drawing) -> set[tuple]:
    return {(round(p.strokeColor.red, 4), round(p.strokeColor.green, 4),
             round(p.strokeColor.blue, 4)) for p in walk(drawing)
            if isinstance(p, PolyLine) and p.strokeColor is not None}


def rgb(curve: series.Curve) -> tuple:
    c = rl_color(curve.style.color)
    return (round(c.red, 4), round(c.green, 4), round(c.blue, 4))


def screen_curves(plot_item) -> dict[str, tuple[str, tuple, int]]:
    """series key → (legend name, pen colour, points) of the GUI plot's curves."""
    out = {}
    for item in plot_item.listDataItems():
        key = getattr(item, "series_key", None)
        if key:
            x, _ = item.getOriginalDataset()
            out[key] = (item.name(), item.opts["pen"].color().getRgb()[:3],
                        0 if x is None else len(x))
    return out


def assert_same(screen: dict, curves, drawing) -> None:
    written = drawn_text(drawing)
    colours = stroke_colours(drawing)
    assert curves, "the series is empty: nothing to compare"
    for curve in curves:
        assert screen[curve.key] == (curve.label, curve.style.color, len(curve.x)), curve.key
        assert "".join(curve.label.split()) in written, curve.label
        assert rgb(curve) in colours, curve.key


@pytest.mark.parametrize("audit_type", ["mechanism", "location", "aggregates", "model"])
def test_the_roc_on_screen_and_in_the_report_come_from_one_series(qtbot, audit_type):
    from gui.widgets.model_results import ModelRocPlot
    from gui.widgets.roc_plot import RocPlot

    result = saved_result(audit_type)
    plot = ModelRocPlot() if audit_type == "model" else RocPlot()
    qtbot.addWidget(plot)
    plot.set_log(False)              # linear axes draw every point (log axes drop zeros)
    plot.set_result(result)
    drawing = roc_chart(result, log_scale=False)
    roc = drawing.plot_series
    assert roc == plot.roc_series()
    assert_same(screen_curves(plot.plot_item), roc.curves(), drawing)
    shown = [b.key for b in roc.bands if b.shown]
    assert len(shown) <= 1 and (not roc.bands or shown)     # the strongest attack's band


def test_the_what_if_sweep_comes_from_the_same_series(qtbot):
    from gui.widgets.sweep_plot import SweepPlot

    result = saved_result("mechanism")
    plot = SweepPlot()
    qtbot.addWidget(plot)
    plot.set_result(result)
    drawing = sweep_chart(result)
    assert len(drawing.plot_series) == 3
    assert_same(screen_curves(plot.plot_item), drawing.plot_series, drawing)


def test_accuracy_against_k_comes_from_the_same_series(qtbot):
    from gui.widgets.location_results import ObservationsPlot

    result = saved_result("location")
    plot = ObservationsPlot()
    qtbot.addWidget(plot)
    plot.set_result(result)
    drawing = observations_chart(result)
    curves = drawing.plot_series
    assert {c.key for c in curves} >= {"optimal_accuracy", "dp_bound_accuracy"}
    assert any(c.key.startswith("attack:") and c.lower for c in curves)
    assert_same(screen_curves(plot.plot_item), curves, drawing)
