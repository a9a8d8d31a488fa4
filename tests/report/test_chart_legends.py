"""Every legend entry of the report's charts shows its whole text and never covers the plot
(issue 21, "Legends never cover curves"; the PDF cut an entry after three lines, four in the
count-table sweeps, and a long legend ran past the drawing's bottom edge).

Each chart of the four saved sample projects (tests/data/projects) is built as the report
builds it; per legend entry, the strings it draws, joined, must be the entry's whole label, and
the legend's box must overlap neither the plot area nor anything else the chart draws."""

from __future__ import annotations

import copy
import json
from pathlib import Path

import pytest
from reportlab.graphics.shapes import Drawing, Group, String, mmult, transformPoint

from engine.report import styles as st
from engine.report.charts import SeriesDrawing, roc_chart
from engine.report.pdf import build_story
from engine.report.plotkit import ChartDrawing, LegendLabel

PROJECTS = Path(__file__).resolve().parents[1] / "data" / "projects"
AUDIT_TYPES = ["mechanism", "location", "aggregates", "model"]
IDENTITY = (1, 0, 0, 1, 0, 0)


def saved_result(audit_type: str) -> dict:
    return json.loads((PROJECTS / f"{audit_type}.praudit.json").read_text("utf-8"))["result"]


def flowables(f):
    """A story's flowables and those nested in KeepTogether and the like."""
    yield f
    for child in getattr(f, "_content", None) or []:
        yield from flowables(child)


def charts_of(result: dict) -> list[ChartDrawing]:
    return [f for top in build_story(result) for f in flowables(top)
            if isinstance(f, ChartDrawing)]


def leaves(group, transform=IDENTITY, in_legend=False):
    """(shape, its transform to drawing coordinates, whether it belongs to a legend entry)."""
    for item in getattr(group, "contents", []):
        if isinstance(item, Group):
            yield from leaves(item, mmult(transform, item.transform),
                              in_legend or isinstance(item, LegendLabel))
        else:
            yield item, transform, in_legend


def box(shape, transform) -> tuple[float, float, float, float]:
    x0, y0, x1, y1 = shape.getBounds()
    pts = [transformPoint(transform, p) for p in ((x0, y0), (x0, y1), (x1, y0), (x1, y1))]
    return (min(p[0] for p in pts), min(p[1] for p in pts),
            max(p[0] for p in pts), max(p[1] for p in pts))


def overlap(a, b, slack: float = 0.5) -> bool:
    return a[0] < b[2] - slack and b[0] < a[2] - slack and \
        a[1] < b[3] - slack and b[1] < a[3] - slack


def squeezed(label: str) -> str:
    """A label as the PDF's fonts can write it (10⁻⁵ as 10−5: styles.plain_text), without
    spaces."""
    return "".join(st.plain_text(label).split())


def entries(drawing: Drawing) -> list[tuple[str, str]]:
    """(the entry's label, what the entry writes), both without spaces: wrapping drops the
    spaces at line ends, and Greek letters are separate runs in the Symbol font."""
    out = []
    for item, _, _ in leaves_with_groups(drawing):
        written = "".join("".join(s.text.split()) for s, _, _ in leaves(item)
                          if isinstance(s, String))
        out.append((squeezed(item.label), written))
    return out


def leaves_with_groups(group):
    for item in getattr(group, "contents", []):
        if isinstance(item, LegendLabel):
            yield item, None, True
        elif isinstance(item, Group):
            yield from leaves_with_groups(item)


def assert_legend_whole_and_clear(drawing: ChartDrawing) -> None:
    found = entries(drawing)
    assert found, "the chart has no legend"
    for label, written in found:
        assert written == label, f"legend entry cut: {written!r} for {label!r}"
    legend_box, plot = drawing.legend_box, drawing.plot_rect
    assert not overlap(legend_box, plot), (legend_box, plot)
    for shape, transform, in_legend in leaves(drawing):
        if in_legend:
            # inside the drawing: not cut at the page's edge
            b = box(shape, transform)
            assert b[0] >= -0.5 and b[1] >= -0.5, b
            assert b[2] <= drawing.width + 0.5 and b[3] <= drawing.height + 0.5, b
            continue
        assert not overlap(box(shape, transform), legend_box), (shape, legend_box)


@pytest.mark.parametrize("audit_type", AUDIT_TYPES)
def test_every_chart_of_the_saved_projects_has_a_whole_legend_beside_its_plot(audit_type):
    result = saved_result(audit_type)
    drawings = charts_of(result)
    assert len(drawings) >= 3
    for drawing in drawings:
        assert_legend_whole_and_clear(drawing)
        if isinstance(drawing, SeriesDrawing):
            # every series the chart drew is named in its legend
            written = "".join(w for _, w in entries(drawing))
            series = drawing.plot_series
            curves = getattr(series, "curves", series)     # RocSeries, TradeoffSeries, tuple
            for curve in (curves() if callable(curves) else curves):
                assert squeezed(curve.label) in written, curve.label


LONG = ("Check of the released counts against the counts one would expect from the public "
        "population tables of the region, as the statistics office ran it before the release "
        "of the twenty-twenty census tables")


def test_a_long_attack_name_is_printed_whole_in_the_legend():
    """The old legend stopped after three lines and ended the third in an ellipsis."""
    result = copy.deepcopy(saved_result("mechanism"))
    result["attacks"][0]["name"] = "office_check"
    result["attacks"][0]["label"] = LONG
    drawing = roc_chart(result, log_scale=True)
    assert_legend_whole_and_clear(drawing)
    assert any(label == squeezed(f"{LONG} (measured)") for label, _ in entries(drawing))


def test_a_legend_too_tall_for_the_side_moves_below_the_plot():
    """Nine attacks with long names: beside the plot the legend ran past the drawing's bottom
    edge (cut off on the page); below it, the drawing grows to hold it."""
    result = copy.deepcopy(saved_result("mechanism"))
    first = result["attacks"][0]
    result["attacks"] = []
    for i in range(9):
        a = copy.deepcopy(first)
        a["name"] = f"office_check_{i}"
        a["label"] = f"Office check number {i + 1} of the released counts against the tables"
        result["attacks"].append(a)
    drawing = roc_chart(result, log_scale=False)
    assert_legend_whole_and_clear(drawing)
    assert drawing.legend_box[3] <= drawing.plot_rect[1]      # below the plot
    assert drawing.height > 280


def test_the_current_setting_label_is_not_covered_by_a_marker():
    """The what-if sweep wrote "current: ε = 1" with the AUC curve's marker at ε ≈ 1 against
    its last character, 0.8 pt away (the PDF of the mechanism sample): a label keeps at least
    2 pt clear of every marker."""
    from reportlab.graphics.shapes import Circle, Polygon, Rect

    from engine.report.charts import sweep_chart

    drawing = sweep_chart(saved_result("mechanism"))
    label = None
    marks = []
    for group, transform in groups(drawing):
        words = "".join(s.text for s in group.contents if isinstance(s, String))
        if words.startswith("current:"):
            label = box(group, transform)
    for shape, transform, in_legend in leaves(drawing):
        if in_legend or not isinstance(shape, (Circle, Polygon, Rect)):
            continue
        b = box(shape, transform)
        if b[2] - b[0] <= 10 and b[3] - b[1] <= 10:           # a marker, not a background
            marks.append(b)
    assert label is not None and marks
    clear = (label[0] - 2, label[1] - 2, label[2] + 2, label[3] + 2)
    assert not any(overlap(clear, m, slack=0.0) for m in marks), label


def groups(group, transform=IDENTITY):
    for item in getattr(group, "contents", []):
        if isinstance(item, Group):
            inner = mmult(transform, item.transform)
            yield item, transform
            yield from groups(item, inner)


def test_powers_of_ten_print_as_small_raised_digits():
    """The fonts have no superscript glyphs, and "δ = 10⁻⁵" printed as "δ = 10−5": ten minus
    five. The exponent is drawn small and raised, as on screen."""
    from engine.report.plotkit import text

    strings = [s for s in text(0, 0, "δ = 10⁻⁵", 8).contents if isinstance(s, String)]
    exponent = [s for s in strings if s.text == "−5"]
    assert exponent, [s.text for s in strings]
    assert exponent[0].fontSize < 8 and exponent[0].y > 0
    base = [s for s in strings if s.text.endswith("10")]
    assert base and base[0].fontSize == 8 and base[0].y == 0
