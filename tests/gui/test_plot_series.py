"""The screen and the report draw the same series (issue 19 item 4; issue 21 "the same series
and colours on screen and in the PDF"): for a saved result of every audit type, each curve of
the GUI's plot and of the PDF's chart has the same legend words, the same colour and the same
number of points, because both come from engine.plots.series."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pyqtgraph as pg
import pytest
from reportlab.graphics.shapes import Circle, Drawing, Line, Polygon, PolyLine, Rect, String

from engine.plots import count_sweeps, observations, series
from engine.plots import tradeoff as tradeoff_plot
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


def marker_colours(drawing) -> set[tuple]:
    """Outline colours of the markers: a curve of one point is a marker and no line."""
    return {(round(p.strokeColor.red, 4), round(p.strokeColor.green, 4),
             round(p.strokeColor.blue, 4)) for p in walk(drawing)
            if isinstance(p, (Circle, Polygon, Rect)) and p.strokeColor is not None}


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


def assert_same(screen: dict, curves, drawing, colours: set | None = None) -> None:
    written = drawn_text(drawing)
    colours = stroke_colours(drawing) if colours is None else colours
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


def test_the_strongest_attacks_band_is_in_both_legends(qtbot):
    """The shaded 95 % band of the strongest attack has the same legend words on screen and
    in the report (issue 19 item 4: the report listed it, the screen did not)."""
    from gui.widgets.roc_plot import RocPlot

    result = saved_result("model")
    plot = RocPlot()
    qtbot.addWidget(plot)
    plot.set_result(result)
    plot.set_log(True)          # the same axes: a log band's words say where it is drawn
    drawing = roc_chart(result, log_scale=True)
    shown = [b for b in drawing.plot_series.bands if b.shown]
    assert len(shown) == 1
    assert shown[0].label in [label.text for _, label in plot.legend.items]
    assert "".join(shown[0].label.split()) in drawn_text(drawing)


def test_the_recommended_setting_has_the_same_legend_words(qtbot):
    """The ringed recommended setting: the report's legend said "Recommended setting
    (ringed)", the screen's "Recommended"; both now say the series' words, ring its point in
    the series' colour, and write the same point labels."""
    from engine.report.defences import defences_chart
    from gui.widgets.defences_results import DefencesView
    from tests.gui.test_defences_chart_labels import demo_block

    block = demo_block()
    view = DefencesView()
    qtbot.addWidget(view)
    view.set_result({"theory": {"defences": block}})
    drawing = defences_chart(block)[0]
    names = [i.name() for i in view.chart.plot_item.listDataItems() if i.name()]
    assert series.RECOMMENDED_LABEL in names
    assert "".join(series.RECOMMENDED_LABEL.split()) in drawn_text(drawing)
    ring = rgb(series.Curve("ring", "", (), (), series.RECOMMENDED_STYLE))
    assert ring in marker_colours(drawing)
    tradeoff = view.chart.tradeoff_series()
    assert tradeoff.recommended is not None
    screen_labels = {t.textItem.toPlainText() for t in view.chart.labels[0]}
    for curve in tradeoff.curves:
        for label in curve.point_labels:
            assert label in screen_labels or f"{label} (recommended)" in screen_labels


def test_the_defences_chart_comes_from_the_same_series(qtbot):
    """The privacy–utility chart: each defence's curve and the undefended model have the
    same legend words, colours and points on screen and in the report, and the points carry
    the same labels (the report's legend said "KCD, by α" where the screen said "KCD
    (knowledge distillation)")."""
    from engine.report.defences import defences_chart
    from gui.widgets.defences_results import DefencesView

    result = saved_result("model")
    view = DefencesView()
    qtbot.addWidget(view)
    view.set_result(result)
    block = result["theory"]["defences"]
    drawing, _close_up, metric, _missing = defences_chart(block)
    tradeoff = tradeoff_plot.tradeoff_series(block, tradeoff_plot.default_metric(block))
    assert tradeoff == view.chart.tradeoff_series()
    assert metric == view.chart.metric() == tradeoff.metric
    assert len(tradeoff.curves) >= 3 and tradeoff.baseline is not None
    assert_same(screen_curves(view.chart.plot_item), tradeoff.curves, drawing,
                colours=marker_colours(drawing))
    for curve in tradeoff.curves:           # a curve of two or more settings is a line too
        assert len(curve.x) < 2 or rgb(curve) in stroke_colours(drawing), curve.key
    written = drawn_text(drawing)
    base = tradeoff.baseline
    assert "".join(base.label.split()) in written
    legend = {i.name(): i for i in view.chart.plot_item.listDataItems() if i.name()}
    star = legend[base.label].opts["symbolBrush"]
    assert star.color().getRgb()[:3] == base.style.color
    assert rgb(base) in marker_colours(drawing)
    # Every point label the report writes is one the screen writes for that point.
    screen_labels = {t.textItem.toPlainText() for t in view.chart.labels[0]}
    for curve in tradeoff.curves:
        for label in curve.point_labels:
            assert label in screen_labels, label
    assert any("".join(label.split()) in written for c in tradeoff.curves
               for label in c.point_labels)
    assert getattr(drawing, "plot_series", None) == tradeoff       # what the report drew


def count_table_result() -> dict:
    """The saved count-tables result with both sweeps: its 'fraction' sweep as saved, and a
    'noise' sweep built from it with a second attack (the saved one has one)."""
    result = saved_result("aggregates")
    sweeps = result["theory"]["sweeps"]
    fraction = sweeps["fraction"]
    rows = fraction["attacks"]["data_only"]
    sweeps["noise"] = {"parameter": "noise", "values": [0.1, 1.0, 10.0],
                       "queries": fraction["queries"][:1] * 3,
                       "determined_share": [0.0, 0.1, 0.2], "noise_scale": [2.0, 0.5, 0.125],
                       "attacks": {"desia_deterministic_only": [
                           {"auc": 0.55, "auc_ci": [0.4, 0.7]},
                           {"auc": 0.62, "auc_ci": [0.45, 0.8]},
                           {"auc": 0.71, "auc_ci": [0.5, 0.9]}],
                           "data_only": [rows[0]] * 3},
                       "labels": {"data_only": fraction["labels"]["data_only"]}}
    return result


@pytest.mark.parametrize("key", ["fraction", "noise"])
def test_the_count_table_sweeps_come_from_the_same_series(qtbot, key):
    from engine.report import aggregates_bounds
    from gui.widgets.aggregates_results import SweepsView

    result = count_table_result()
    view = SweepsView()
    qtbot.addWidget(view)
    view.set_result(result)
    drawings = [d for f in aggregates_bounds.sweeps(result) for d in walk_flowables(f)
                if isinstance(d, Drawing)]
    assert len(drawings) == 2
    drawing = drawings[["fraction", "noise"].index(key)]
    curves = count_sweeps.count_sweep_series(result, key)
    assert any(c.key == "determined_share" for c in curves)
    assert sum(c.key.startswith("attack:") for c in curves) == (1 if key == "fraction" else 2)
    assert_same(screen_curves(view.plots[key].plot_item), curves, drawing)
    assert getattr(drawing, "plot_series", None) == curves         # what the report drew


def walk_flowables(flowable):
    yield flowable
    for child in getattr(flowable, "_content", None) or []:
        yield from walk_flowables(child)


# ------------------------------------------------------------------ issue 19 item 4 / 21 (2)


def screen_data(plot_item) -> dict[str, tuple[np.ndarray, np.ndarray]]:
    out = {}
    for item in plot_item.listDataItems():
        key = getattr(item, "series_key", None)
        if key:
            x, y = item.getOriginalDataset()
            out[key] = (np.asarray(x, float), np.asarray(y, float))
    return out


def in_plot_polylines(drawing, colour: tuple) -> list[list[float]]:
    """Point lists of the polylines of ``colour`` inside the plot (the legend's samples lie to
    its right)."""
    xa, _ya = drawing.plot_axes
    right = xa.start + xa.length + 0.5
    out = []
    for p in walk(drawing):
        if isinstance(p, PolyLine) and p.strokeColor is not None and \
                (round(p.strokeColor.red, 4), round(p.strokeColor.green, 4),
                 round(p.strokeColor.blue, 4)) == colour and max(p.points[0::2]) <= right:
            out.append(list(p.points))
    return out


@pytest.mark.parametrize("audit_type", ["mechanism", "location", "aggregates", "model"])
def test_the_log_log_roc_draws_the_same_points_on_screen_and_in_the_report(qtbot, audit_type):
    """On log-log axes the screen started each attack at its first vertex above zero while
    the report also drew the straight line from (0, 0), bent into a curve diving to the
    corner (the model sample's curves differed at low FPR). Both now draw
    engine.plots.series.log_roc: measured attacks from their first vertex with FPR > 0,
    theory from the axes' floor, on axes from that floor."""
    from gui.widgets.model_results import ModelRocPlot
    from gui.widgets.roc_plot import RocPlot

    result = saved_result(audit_type)
    plot = ModelRocPlot() if audit_type == "model" else RocPlot()
    qtbot.addWidget(plot)
    plot.set_log(True)
    plot.set_result(result)
    drawing = roc_chart(result, log_scale=True)
    roc = drawing.plot_series
    assert roc.floor == series.roc_log_floor(result)
    assert roc == plot.roc_series()
    screen = screen_data(plot.plot_item)
    for curve in roc.curves():
        x, y = screen[curve.key]
        np.testing.assert_array_equal(x, curve.x, err_msg=curve.key)
        np.testing.assert_array_equal(y, curve.y, err_msg=curve.key)
        assert not len(x) or min(x) >= roc.floor, curve.key
    xa, ya = drawing.plot_axes
    assert (xa.lo, ya.lo) == (roc.floor, roc.floor)
    # The screen's home view is the report's axes.
    (x0, _x1), (y0, _y1) = plot.view._home
    assert (x0, y0) == (np.log10(roc.floor), np.log10(roc.floor))
    linear = series.roc_series(result)
    checked = 0
    for raw, curve in zip(linear.attacks, roc.attacks, strict=True):
        first = next(((a, b) for a, b in zip(raw.x, raw.y, strict=True) if a > 0 and b > 0),
                     None)
        if first is None:
            assert curve.x == ()
            continue
        assert (curve.x[0], curve.y[0]) == first, curve.key
        # The report's line starts there too, not at the plot's left edge.
        lines = in_plot_polylines(drawing, rgb(curve))
        assert lines, curve.key
        start = min(min(p[0::2]) for p in lines)
        assert start == pytest.approx(float(xa(first[0])), abs=0.01), curve.key
        checked += first[0] > roc.floor
    if audit_type == "model":
        assert checked >= 4         # the sample whose curves differed


def test_the_defences_chart_reads_in_percent_with_intervals_on_screen_too(qtbot):
    """The screen wrote test accuracy as 0.005–0.025 and drew no intervals; the report (and
    the table) write percent and draw every point's 95 % intervals. Both now read the unit
    from engine.plots.tradeoff_plot.TradeoffSeries and draw the series' intervals."""
    from engine.report.defences import defences_chart
    from gui.widgets.defences_results import DefencesView

    result = saved_result("model")
    view = DefencesView()
    qtbot.addWidget(view)
    view.set_result(result)
    block = result["theory"]["defences"]
    drawing = defences_chart(block)[0]
    tradeoff = view.chart.tradeoff_series()
    assert tradeoff == drawing.plot_series and tradeoff.y_percent
    left = view.chart.plot_item.getAxis("left")
    bottom = view.chart.plot_item.getAxis("bottom")
    assert (left.percent, bottom.percent) == (tradeoff.y_percent, tradeoff.x_percent)
    assert left.tickStrings([0.005, 0.015, 0.025], 1.0, 0.005) == ["0.5%", "1.5%", "2.5%"]
    xa, ya = drawing.plot_axes
    written = {s.text for s in walk(drawing) if isinstance(s, String)}
    for v, _ in ya.ticks(percent=True):         # the report's ticks, in the same words
        assert series.percent_tick(v) in written, v

    expected = set()
    for curve in (*tradeoff.curves, tradeoff.baseline):
        for along, lows, highs in (("y", curve.lower, curve.upper),
                                   ("x", curve.x_lower, curve.x_upper)):
            for x, y, lo, hi in zip(curve.x, curve.y, lows, highs, strict=True):
                if lo is not None and hi is not None:
                    expected.add((curve.key, along, round(x, 9), round(y, 9), round(lo, 9),
                                  round(hi, 9)))
    assert len({e for e in expected if e[1] == "y"}) >= 5
    screen = set()
    for item in view.chart.plot_item.items:
        if isinstance(item, pg.ErrorBarItem) and getattr(item, "series_key", None):
            o = item.opts
            centre = o["y"] if item.along == "y" else o["x"]
            low = o["bottom"] if item.along == "y" else o["left"]
            high = o["top"] if item.along == "y" else o["right"]
            for x, y, c, a, b in zip(o["x"], o["y"], centre, low, high, strict=True):
                screen.add((item.series_key, item.along, round(float(x), 9),
                            round(float(y), 9), round(float(c - a), 9), round(float(c + b), 9)))
    assert screen == expected
    # The report draws the same vertical whiskers (each cut at the plot's edges).
    whisker = rl_color(series.WHISKER_COLOR)
    x0, x1 = xa.start, xa.start + xa.length
    y0, y1 = ya.start, ya.start + ya.length
    verticals = [(round(ln.x1, 3), round(min(ln.y1, ln.y2), 3), round(max(ln.y1, ln.y2), 3))
                 for ln in walk(drawing) if isinstance(ln, Line) and ln.x1 == ln.x2
                 and ln.strokeColor == whisker]
    for key, along, x, y, lo, hi in expected:
        px, py = float(xa(x)), float(ya(y))
        a, b = min(max(float(ya(lo)), y0), y1), min(max(float(ya(hi)), y0), y1)
        if along == "y" and x0 <= px <= x1 and y0 <= py <= y1 and b - a > 1.0:
            assert (round(px, 3), round(a, 3), round(b, 3)) in verticals, (key, x, y)


def guide_lines(plot_item) -> list:
    return [i for i in plot_item.items if isinstance(i, pg.InfiniteLine)
            and getattr(i, "guide", None) is not None]


def assert_same_guides(plot_item, legend, drawing, guides, log_x: bool) -> None:
    """The screen draws ``guides`` (random guess, audited setting) where the report does, on
    the same axis scale, and neither axis title claims a log scale that is not there."""
    assert drawing.plot_guides == guides
    assert drawing.plot_log_x is log_x
    assert any(not g.vertical for g in guides)          # random guessing, always
    lines = guide_lines(plot_item)
    assert [line.guide for line in lines] == list(guides)
    for line in lines:
        g = line.guide
        want = np.log10(g.value) if g.vertical and log_x else g.value
        assert line.value() == pytest.approx(want)
        assert line.angle == (90 if g.vertical else 0)
    names = [label.text for _, label in legend.items]
    written = drawn_text(drawing)
    for g in guides:
        assert g.label in names and "".join(g.label.split()) in written
        if g.note:
            assert "".join(g.note.split()) in written
    xa, ya = drawing.plot_axes
    chance = next(g for g in guides if not g.vertical)
    cy = float(ya(chance.value))
    assert any(abs(p[1] - cy) < 1e-6 and abs(p[3] - cy) < 1e-6
               for p in in_plot_polylines(drawing, rgb(series.Curve("", "", (), (),
                                                                    chance.style))))
    assert xa.log is log_x
    assert plot_item.getAxis("bottom").logMode is log_x
    screen_title = plot_item.getAxis("bottom").labelText
    assert (series.LOG_WORDS.strip(", ") in screen_title) is log_x
    assert ("logscale" in written) is log_x


@pytest.mark.parametrize("key", ["fraction", "noise"])
@pytest.mark.parametrize("audited", [False, True])
def test_the_count_table_sweeps_draw_the_same_lines_and_axis(qtbot, key, audited):
    """The screen drew neither the random-guess line nor the audited setting the report
    draws, and labelled the 0.5–1 share axis "log scale" where the report's is linear."""
    from engine.report import aggregates_bounds
    from gui.widgets.aggregates_results import SweepsView

    result = count_table_result()
    if audited:
        result["theory"]["release"].update(fraction=0.75, mechanism="laplace", epsilon=2.0)
    view = SweepsView()
    qtbot.addWidget(view)
    view.set_result(result)
    drawings = [d for f in aggregates_bounds.sweeps(result) for d in walk_flowables(f)
                if isinstance(d, Drawing)]
    drawing = drawings[["fraction", "noise"].index(key)]
    guides = count_sweeps.count_sweep_guides(result, key)
    assert any(g.vertical for g in guides) is audited
    log_x = count_sweeps.count_sweep_log_x(result, key)
    assert log_x is (key == "noise")            # 0.5–1 is linear; 0.1–10 is log
    plot = view.plots[key]
    assert_same_guides(plot.plot_item, plot.legend, drawing, guides, log_x)


def test_accuracy_against_k_draws_the_same_lines_and_axis(qtbot):
    """The location audit's accuracy against k: the screen drew neither the random-guess
    level nor the audited target's k that the report draws."""
    from gui.widgets.location_results import ObservationsPlot

    result = saved_result("location")
    plot = ObservationsPlot()
    qtbot.addWidget(plot)
    plot.set_result(result)
    drawing = observations_chart(result)
    guides = observations.observations_guides(result)
    assert [g.key for g in guides] == ["chance", "current"]
    assert_same_guides(plot.plot_item, plot.legend, drawing, guides,
                       observations.observations_log_x(result))


def test_empty_log_log_axes_open_where_a_result_would(qtbot):
    """With no result yet, the log-log ROC opens on the decades a result would use (10⁻⁴ to
    1), never on a linear 0–1 range read as log10 (an axis of 1 to 10)."""
    from gui.widgets.roc_plot import RocPlot

    plot = RocPlot()
    qtbot.addWidget(plot)
    plot.set_log(True)
    plot.set_result(None)
    (x0, x1), (y0, y1) = plot.view._home
    low = np.log10(series.roc_log_floor({}))
    assert (x0, x1, y0, y1) == (low, 0.0, low, 0.0)


def interval_ends(tradeoff: tradeoff_plot.TradeoffSeries) -> tuple[list[float], list[float]]:
    """Every end of every 95 % interval the chart draws, along x and along y."""
    xs, ys = [], []
    for curve in (*tradeoff.curves, *([tradeoff.baseline] if tradeoff.baseline else [])):
        xs += [v for v in (*(curve.x_lower or ()), *(curve.x_upper or ())) if v is not None]
        ys += [v for v in (*(curve.lower or ()), *(curve.upper or ())) if v is not None]
    return xs, ys


@pytest.mark.parametrize("size", [(1280, 720), (1600, 1000)])
@pytest.mark.parametrize("sample", ["saved model", "fifteen settings with a limit"])
def test_the_defences_chart_opens_with_the_whole_intervals_in_view(qtbot, size, sample):
    """The screen opened zoomed to the points, so the 95 % intervals ran past its edges until
    the reader zoomed out, while the report's axes hold them (issue 21). It now opens, as the
    report does, on every interval end, every point and the limit line."""
    from engine.report.defences import defences_chart
    from gui.widgets.defences_results import DefencesView
    from tests.gui.test_defences_chart_labels import demo_block

    if sample == "saved model":
        block = saved_result("model")["theory"]["defences"]
    else:
        block = demo_block()
    view = DefencesView()
    qtbot.addWidget(view)
    view.resize(*size)
    view.show()
    qtbot.waitExposed(view)
    view.set_result({"theory": {"defences": block}})
    tradeoff = view.chart.tradeoff_series()
    xs, ys = interval_ends(tradeoff)
    xs += [x for x, _ in tradeoff.points()] + ([tradeoff.limit] if tradeoff.limit else [])
    ys += [y for _, y in tradeoff.points()]
    # The sample is one whose intervals reach beyond the points, else nothing is checked.
    px, py = zip(*tradeoff.points(), strict=True)
    assert min(xs) < min(px) or max(xs) > max(px) or min(ys) < min(py) or max(ys) > max(py)
    x0, x1, y0, y1 = view.chart.view.view_range()
    assert x0 <= min(xs) and max(xs) <= x1, ((x0, x1), (min(xs), max(xs)))
    assert y0 <= min(ys) and max(ys) <= y1, ((y0, y1), (min(ys), max(ys)))
    # The report's axes hold the same ends (what "as the report does" means).
    xa, ya = defences_chart(block)[0].plot_axes
    assert xa.lo <= min(xs) and max(xs) <= xa.hi
    assert ya.lo <= min(ys) and max(ys) <= ya.hi
    if sample != "saved model":
        assert tradeoff.limit is not None and x0 < tradeoff.limit < x1
