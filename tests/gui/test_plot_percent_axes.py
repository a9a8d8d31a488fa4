"""An axis whose figures the pages write in % is in % (issue 32 item 8): the ROC's rates (linear
and log-log), the what-if sweep's accuracy and TPR, the location audit's accuracy against k and
the defences chart's test accuracy and its risk when it is a TPR, a balanced accuracy or an
advantage — on screen and in the report, read from the tick texts each draws. An AUC or an ε
axis is not in %."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from reportlab.graphics.shapes import Group, String

from engine.report.charts import observations_chart, roc_chart, sweep_chart
from tests.gui.test_defences_chart_labels import SETTINGS, demo_block
from tests.gui.test_plot_readability import drawn_labels

PROJECTS = Path(__file__).resolve().parents[1] / "data" / "projects"


def saved_result(audit_type: str) -> dict:
    return json.loads((PROJECTS / f"{audit_type}.praudit.json").read_text("utf-8"))["result"]


def percent(labels) -> bool:
    labels = [t for t in labels if t]
    return bool(labels) and all(t.endswith("%") for t in labels)


def report_ticks(drawing) -> tuple[list[str], list[str]]:
    """The tick texts of a report chart's x and y axes: the 7-pt texts just under the plot
    and just left of it (engine.report.plotkit.Plot.frame)."""
    xa, ya = drawing.plot_axes
    x0, y0 = xa.start, ya.start
    xs, ys = [], []

    def walk(group, dx=0.0, dy=0.0):
        for item in getattr(group, "contents", []):
            if isinstance(item, Group):
                t = item.transform
                strings = [s for s in item.contents if isinstance(s, String)]
                if strings and t[1] == 0 and strings[0].fontSize == 7:
                    x, y = dx + t[4], dy + t[5]
                    text = "".join(s.text for s in strings)
                    if abs(y - (y0 - 12)) < 0.5:
                        xs.append(text)
                    elif abs(x - (x0 - 5)) < 0.5 and y0 - 5 <= y <= ya.start + ya.length:
                        ys.append(text)
                walk(item, dx + t[4], dy + t[5])
    walk(drawing)
    return xs, ys


# ---------------------------------------------------------------------------- the report

@pytest.mark.parametrize("log", [False, True])
def test_report_roc_axes_are_in_percent(log):
    xs, ys = report_ticks(roc_chart(saved_result("model"), log_scale=log))
    assert percent(xs) and percent(ys), (xs, ys)


def test_report_sweep_and_accuracy_against_k_are_in_percent():
    _, ys = report_ticks(sweep_chart(saved_result("mechanism")))
    assert percent(ys), ys
    _, ys = report_ticks(observations_chart(saved_result("location")))
    assert percent(ys), ys


@pytest.mark.parametrize("metric,in_percent", [("tpr", True), ("accuracy", True),
                                               ("advantage", True), ("auc", False)])
def test_report_defences_axes(metric, in_percent):
    from engine.plots import tradeoff as tradeoff_plot
    from engine.report.charts import TradeoffCurve, TradeoffPoint, tradeoff_chart

    block = demo_block(SETTINGS)
    for row in block["rows"]:         # every measure of the risk, from the AUC
        auc = row["risk"]["auc"]["value"]
        row["risk"].update({"accuracy": {"value": auc}, "advantage": {"value": 2 * auc - 1},
                            "tpr_at_fpr": [{"fpr_target": 0.01, "tpr": auc - 0.5,
                                            "measurable": True}]})
    tradeoff = tradeoff_plot.tradeoff_series(block, metric)
    curves = [TradeoffCurve(c.label, [TradeoffPoint(x, y) for x, y in zip(c.x, c.y,
                                                                          strict=True)], c.style)
              for c in tradeoff.curves]
    d = tradeoff_chart(curves, None, title="t", x_title=metric, x_percent=tradeoff.x_percent)
    xs, ys = report_ticks(d)
    assert percent(ys), ys                       # test accuracy
    assert percent(xs) is in_percent, xs


# ---------------------------------------------------------------------------- the screen

@pytest.mark.parametrize("log", [False, True])
def test_screen_roc_axes_are_in_percent(qtbot, log):
    from gui.widgets.roc_plot import RocPlot

    plot = RocPlot()
    qtbot.addWidget(plot)
    plot.resize(900, 700)
    plot.set_result(saved_result("model"))
    plot.set_log(log)
    plot.show()
    qtbot.waitExposed(plot)
    for side in ("left", "bottom"):
        labels = drawn_labels(plot.plot_item.getAxis(side))
        assert percent(labels), (side, labels)


def test_screen_sweep_and_accuracy_against_k_are_in_percent(qtbot):
    from gui.widgets.location_results import ObservationsPlot
    from gui.widgets.sweep_plot import SweepPlot

    sweep = SweepPlot()
    sweep.set_result(saved_result("mechanism"))
    k_plot = ObservationsPlot()
    k_plot.set_result(saved_result("location"))
    for plot in (sweep, k_plot):
        qtbot.addWidget(plot)
        plot.resize(900, 500)
        plot.show()
        qtbot.waitExposed(plot)
        labels = drawn_labels(plot.plot_item.getAxis("left"))
        assert percent(labels), (type(plot).__name__, labels)
    assert "%" in sweep.plot_item.getAxis("left").labelText


@pytest.mark.parametrize("metric,in_percent", [("accuracy", True), ("advantage", True),
                                               ("auc", False)])
def test_screen_defences_axes(qtbot, metric, in_percent):
    from gui.widgets.defences_results import TradeoffChart

    block = demo_block(SETTINGS)
    for row in block["rows"]:
        auc = row["risk"]["auc"]["value"]
        row["risk"].update({"accuracy": {"value": auc}, "advantage": {"value": 2 * auc - 1}})
    chart = TradeoffChart()
    qtbot.addWidget(chart)
    chart.resize(1000, 800)
    chart.set_block(block)
    chart.x_combo.setCurrentIndex(chart.x_combo.findData(metric))
    chart.show()
    qtbot.waitExposed(chart)
    assert percent(drawn_labels(chart.plot_item.getAxis("left")))
    assert percent(drawn_labels(chart.plot_item.getAxis("bottom"))) is in_percent
