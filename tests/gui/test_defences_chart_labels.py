"""The defences chart is readable (issue 21): the axes are ranged to the settings with the limit
in view instead of a 0–1 axis with every setting in one blob at its left; where settings crowd
a close-up shows them apart; and no point label covers another label or a point, on screen
and in the report.

The block has the demo's fifteen models (no defence; KCD α = 0 … 1; DMP T = 1, 2, 4; L2
λ = 10⁻⁴, 10⁻³, 10⁻²; DP-SGD σ = 0.5, 1, 2) at the places such a run puts them: most settings
within a few points of AUC 0.52 and accuracy 0.80, a few apart."""

from __future__ import annotations

import itertools

import pytest

from engine.plots import tradeoff as tradeoff_plot
from engine.report.charts import TradeoffCurve, TradeoffPoint, tradeoff_chart

SETTINGS = [  # (defence, knobs, label, AUC, test accuracy)
    ("none", {}, "No defence", 0.560, 0.815),
    ("kcd", {"alpha": 0.0}, "KCD α = 0, teachers = 5", 0.556, 0.812),
    ("kcd", {"alpha": 0.25}, "KCD α = 0.25, teachers = 5", 0.548, 0.810),
    ("kcd", {"alpha": 0.5}, "KCD α = 0.5, teachers = 5", 0.541, 0.806),
    ("kcd", {"alpha": 0.75}, "KCD α = 0.75, teachers = 5", 0.534, 0.803),
    ("kcd", {"alpha": 1.0}, "KCD α = 1, teachers = 5", 0.528, 0.798),
    ("dmp", {"temperature": 1.0}, "DMP T = 1", 0.531, 0.801),
    ("dmp", {"temperature": 2.0}, "DMP T = 2", 0.526, 0.797),
    ("dmp", {"temperature": 4.0}, "DMP T = 4", 0.522, 0.793),
    ("l2", {"weight_decay": 0.0001}, "L2 λ = 0.0001", 0.558, 0.814),
    ("l2", {"weight_decay": 0.001}, "L2 λ = 0.001", 0.551, 0.811),
    ("l2", {"weight_decay": 0.01}, "L2 λ = 0.01", 0.537, 0.804),
    ("dp_sgd", {"noise_multiplier": 0.5}, "DP-SGD σ = 0.5", 0.515, 0.742),
    ("dp_sgd", {"noise_multiplier": 1.0}, "DP-SGD σ = 1", 0.508, 0.701),
    ("dp_sgd", {"noise_multiplier": 2.0}, "DP-SGD σ = 2", 0.503, 0.642),
]


def demo_block(settings=SETTINGS) -> dict:
    rows = []
    for i, (defence, knobs, label, auc, acc) in enumerate(settings):
        rows.append({"index": i, "defence": defence, "knobs": knobs, "label": label,
                     "test_accuracy": acc, "test_accuracy_ci": [acc - 0.02, acc + 0.02],
                     "risk": {"auc": {"value": auc, "ci": [auc - 0.02, auc + 0.02]}}})
    return {"rows": rows, "limit": {"metric": "auc", "value": 0.54, "fpr": 0.01,
                                    "text": "AUC ≤ 0.54"},
            "recommendation": {"met": True, "index": 5}}


def apart(a, b) -> bool:
    return a[2] <= b[0] or b[2] <= a[0] or a[3] <= b[1] or b[3] <= a[1]


def test_the_axes_range_to_the_settings_with_the_limit_in_view():
    tradeoff = tradeoff_plot.tradeoff_series(demo_block(), "auc")
    (x0, x1), (y0, y1) = tradeoff_plot.tradeoff_ranges(tradeoff)
    xs = [x for x, _ in tradeoff.points()] + [tradeoff.limit]
    ys = [y for _, y in tradeoff.points()]
    assert x0 < min(xs) and max(xs) < x1 and y0 < min(ys) and max(ys) < y1
    # Not a 0–1 axis: the settings span most of it.
    assert (max(xs) - min(xs)) / (x1 - x0) > 0.6
    assert (max(ys) - min(ys)) / (y1 - y0) > 0.6


# DP-SGD so strong that its points stretch both axes: the other twelve settings, within a
# hundredth of AUC and two points of accuracy of each other, crowd in a corner.
CROWDED = [(d, k, lab, 0.56 - (0.56 - auc) / 4, 0.815 - (0.815 - acc) / 2)
           for d, k, lab, auc, acc in SETTINGS[:12]] + [("dp_sgd", {"noise_multiplier": 0.5}, "DP-SGD σ = 0.5", 0.40, 0.40),
                           ("dp_sgd", {"noise_multiplier": 1.0}, "DP-SGD σ = 1", 0.30, 0.25),
                           ("dp_sgd", {"noise_multiplier": 2.0}, "DP-SGD σ = 2", 0.20, 0.10)]


def cluster(n: int, seed: int) -> list:
    """``n`` settings (13 or more) of the four defences piled within ±0.006 of AUC and ±1
    point of accuracy around the limit, as a sweep of many mild settings gives: the labels'
    worst case."""
    import random

    rnd = random.Random(seed)
    kinds = [("kcd", "alpha", "KCD α = {v:g}, teachers = 5"), ("dmp", "temperature", "DMP T = {v:g}"),
             ("l2", "weight_decay", "L2 λ = {v:g}"), ("dp_sgd", "noise_multiplier", "DP-SGD σ = {v:g}")]
    out = [("none", {}, "No defence", 0.545, 0.80)]
    for i in range(n - 1):
        defence, knob, words = kinds[i % 4]
        v = ((1e-4, 1e-3, 1e-2, 0.1, 0.5) if defence == "l2" else (0.25, 0.5, 1, 2, 4))[i // 4]
        out.append((defence, {knob: v}, words.format(v=v), 0.54 + rnd.uniform(-0.006, 0.006),
                    0.80 + rnd.uniform(-0.01, 0.01)))
    return out


CASES = {"demo": SETTINGS, "crowded": CROWDED, "cluster of 16": cluster(16, 3),
         "cluster of 20": cluster(20, 5)}


def shown_chart(qtbot, size, settings):
    from gui.widgets.defences_results import DefencesView

    view = DefencesView()
    qtbot.addWidget(view)
    view.resize(*size)
    view.show()
    view.set_result({"theory": {"defences": demo_block(settings)}})
    qtbot.waitUntil(lambda: bool(view.chart.label_boxes(0)), timeout=60_000)
    view.chart.place_labels()
    return view


@pytest.mark.parametrize("size", [(1280, 720), (1600, 1000)])
def test_screen_labels_cover_no_label_and_no_point(qtbot, size):
    view = shown_chart(qtbot, size, SETTINGS)
    chart = view.chart
    # Ranged to the data, the demo's settings stand apart: each is labelled, no close-up.
    assert not chart.close_up.isVisible()
    assert len(chart.label_boxes(0)) == len(SETTINGS)
    assert_apart(chart, 0)


@pytest.mark.parametrize("size", [(1280, 720), (1600, 1000)])
def test_crowded_settings_get_a_close_up_whose_labels_stand_apart(qtbot, size):
    view = shown_chart(qtbot, size, CROWDED)
    chart = view.chart
    assert chart.close_up.isVisible()
    assert_apart(chart, 0)
    assert_apart(chart, 1)
    # The crowd is labelled in the close-up, not piled up in the main panel.
    assert len(chart.label_boxes(1)) >= 8


def assert_apart(chart, which: int) -> None:
    """Label boxes overlap neither each other, nor any point of the panel (each its marker's
    size: the star and the ring are larger), nor the words on the limit line."""
    labels = chart.label_boxes(which)
    points = chart.point_boxes(which)
    fixed = chart.fixed_label_boxes(which)
    assert labels, which
    for a, b in itertools.combinations(labels, 2):
        assert apart(a, b), (which, a, b)
    for label in labels:
        assert all(apart(label, p) for p in points), (which, label)
        assert all(apart(label, f) for f in fixed), (which, label, fixed)


@pytest.mark.parametrize("size", [(900, 700), (1280, 720)])
@pytest.mark.parametrize("case", list(CASES))
def test_screen_labels_never_collide(qtbot, size, case):
    """Every case, both panels: before issue 32 a setting's label sat on "your limit 0.54" at
    900 × 700 in the sample (the limit's words were no obstacle on screen, and a star or a
    ring was taken for a point)."""
    view = shown_chart(qtbot, size, CASES[case])
    chart = view.chart
    assert_apart(chart, 0)
    if chart.close_up.isVisible():
        assert_apart(chart, 1)
    if len(CASES[case]) >= 13 and case != "demo":
        assert chart.close_up.isVisible()


def test_report_labels_cover_no_label_and_no_point():
    from reportlab.graphics.shapes import Rect

    tradeoff = tradeoff_plot.tradeoff_series(demo_block(), "auc")
    curves = [TradeoffCurve(c.label, [TradeoffPoint(x, y, label=t) for x, y, t in
                                      zip(c.x, c.y, c.point_labels, strict=True)], i)
              for i, c in enumerate(tradeoff.curves)]
    base = TradeoffPoint(tradeoff.baseline.x[0], tradeoff.baseline.y[0])
    drawing = tradeoff_chart(curves, base, title="t", x_title="AUC", limit=0.54)
    # Label backgrounds are the translucent white boxes drawn under each label.
    boxes = [(r.x, r.y, r.x + r.width, r.y + r.height) for r in drawing.contents
             if isinstance(r, Rect) and r.fillColor is not None
             and getattr(r.fillColor, "alpha", 1) < 1 and r.width < 80]
    assert len(boxes) >= 5
    for a, b in itertools.combinations(boxes, 2):
        assert apart(a, b), (a, b)


# ---------------------------------------------------------------------------- the report

def _compose(t, u):
    a, b, c, d, e, f = t
    A, B, C, D, E, F = u
    return (a * A + c * B, b * A + d * B, a * C + c * D, b * C + d * D, a * E + c * F + e,
            b * E + d * F + f)


def report_texts(group, t=(1, 0, 0, 1, 0, 0)):
    """(text, box) of every unrotated text the drawing writes, measured from its strings
    (font metrics, the translation of its group): one box per text, its Greek and Latin runs
    together."""
    from reportlab.graphics.shapes import Group, String
    from reportlab.pdfbase.pdfmetrics import stringWidth

    out = []
    for item in getattr(group, "contents", []):
        if not isinstance(item, Group):
            continue
        tt = _compose(t, item.transform)
        strings = [s for s in item.contents if isinstance(s, String)]
        if strings and abs(tt[1]) < 1e-9:
            xs, ys = [], []
            for s in strings:
                x, y = tt[4] + s.x, tt[5] + s.y
                xs += [x, x + stringWidth(s.text, s.fontName, s.fontSize)]
                ys += [y - 0.21 * s.fontSize, y + 0.72 * s.fontSize]   # descender, cap height
            out.append(("".join(s.text for s in strings), (min(xs), min(ys), max(xs), max(ys))))
        out += report_texts(item, tt)
    return out


@pytest.mark.parametrize("case", list(CASES))
def test_report_labels_never_collide(case):
    """The report's chart and its close-up, measured on the texts drawn: inside the plot no
    two texts overlap (the settings' labels, "your limit", "close-up below") and none covers a
    point's marker."""
    from engine.report.defences import defences_chart

    main, close_up, _metric, _missing = defences_chart(demo_block(CASES[case]))
    tradeoff = main.plot_series
    pts = [(x, y, 6.0 if c is tradeoff.baseline else 3.2)
           for c in (*tradeoff.curves, tradeoff.baseline) for x, y in zip(c.x, c.y, strict=True)]
    for drawing in (main, close_up):
        if drawing is None:
            continue
        xa, ya = drawing.plot_axes
        x0, y0, x1, y1 = xa.start, ya.start, xa.start + xa.length, ya.start + ya.length
        texts = [(s, b) for s, b in report_texts(drawing)
                 if x0 <= b[0] and b[2] <= x1 and y0 <= b[1] and b[3] <= y1]
        assert texts
        for (s1, b1), (s2, b2) in itertools.combinations(texts, 2):
            assert apart(b1, b2), (case, s1, s2)
        for x, y, r in pts:
            px, py = float(xa(x)), float(ya(y))
            if x0 <= px <= x1 and y0 <= py <= y1:
                for s, b in texts:
                    assert apart(b, (px - r, py - r, px + r, py + r)), (case, s, x, y)
