"""The privacy–utility chart of a model's defences (paper 004; issue 33 item 2: split from
engine/report/charts.py): test accuracy against the strongest attack's risk, one curve per
defence, the undefended model, the user's limit and the recommended setting."""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np
from reportlab.graphics.shapes import Drawing, Line, Rect
from reportlab.lib import colors

from engine.plots import series
from engine.report import styles as st
from engine.report.charts_base import (
    ATTACK_STYLES,
    SeriesDrawing,
    rl_color,
    rl_style,
)
from engine.report.plotkit import (
    BLACK,
    WIDTH,
    Axis,
    LegendEntry,
    Plot,
    Rect4,
    clip_polyline,
    finite_pair,
    legend,
    marker,
    padded_range,
    place_labels,
    polyline,
    text,
    text_width,
)

# --------------------------------------------------------------------------- privacy–utility

TRADEOFF_HEIGHT = 330.0
# The limit, the undefended model and the recommendation look as on screen (engine.plots
# .series); the light green fill prints as a light grey.
LIMIT_FILL = rl_color(tuple(round(255 - (255 - c) * series.LIMIT_FILL[3] / 255)
                             for c in series.LIMIT_FILL[:3]))   # opaque: as over white
LIMIT_STYLE = rl_style(series.LIMIT_STYLE)
UNDEFENDED_STYLE = rl_style(series.UNDEFENDED_STYLE)
RECOMMENDED_STYLE = rl_style(series.RECOMMENDED_STYLE)
LEADER_GREY = colors.Color(0.55, 0.55, 0.55)


@dataclass(frozen=True)
class TradeoffPoint:
    """One model of :func:`tradeoff_chart`: risk ``x`` and utility ``y`` with their 95 %
    intervals (None: none known) and a short label drawn beside it ("α=0.5", "σ=2")."""

    x: float
    y: float
    x_ci: Sequence[float] | None = None
    y_ci: Sequence[float] | None = None
    label: str = ""
    recommended: bool = False


@dataclass(frozen=True)
class TradeoffCurve:
    """One defence: its settings in knob order, joined by ``style`` (a series style, as the
    screen draws it, or an index into ``ATTACK_STYLES``)."""

    label: str
    points: Sequence[TradeoffPoint]
    style: int | series.Style = 0


TRADEOFF_PLOT_W = 300.0


def _tradeoff_points(curves: Sequence[TradeoffCurve],
                     baseline: TradeoffPoint | None) -> list[TradeoffPoint]:
    pts = [p for c in curves for p in c.points] + ([baseline] if baseline else [])
    return [p for p in pts if math.isfinite(p.x) and math.isfinite(p.y)]


def _tradeoff_ranges(pts: Sequence[TradeoffPoint], x_floor: float | None,
                     x_cap: float | None, limit: float | None):
    xs = [p.x for p in pts] + [c for p in pts if finite_pair(p.x_ci) for c in p.x_ci]
    ys = [p.y for p in pts] + [c for p in pts if finite_pair(p.y_ci) for c in p.y_ci]
    if limit is not None and math.isfinite(limit):
        xs.append(limit)
    return padded_range(xs or [0.0, 1.0], x_floor, x_cap), padded_range(ys or [0.0, 1.0], 0.0, 1.0)


def tradeoff_crowd(curves: Sequence[TradeoffCurve], baseline: TradeoffPoint | None, *,
                   x_floor: float | None = 0.0, x_cap: float | None = None,
                   limit: float | None = None, height: float = TRADEOFF_HEIGHT,
                   radius: float = 22.0, least: int = 5
                   ) -> tuple[tuple[float, float], tuple[float, float]] | None:
    """Where :func:`tradeoff_chart` would pile ``least`` or more points within ``radius``
    points of each other (too close to label): the (x, y) ranges of a close-up of that crowd,
    or None. Pass the same arguments as to the chart."""
    pts = _tradeoff_points(curves, baseline)
    if len(pts) < least:
        return None
    (x_lo, x_hi), (y_lo, y_hi) = _tradeoff_ranges(pts, x_floor, x_cap, limit)
    sx = TRADEOFF_PLOT_W / (x_hi - x_lo)
    sy = (height - 62) / (y_hi - y_lo)
    xy = np.array([[p.x * sx, p.y * sy] for p in pts])
    near = (np.abs(xy[:, None, 0] - xy[None, :, 0]) <= radius) & \
        (np.abs(xy[:, None, 1] - xy[None, :, 1]) <= radius)
    counts = near.sum(axis=1)
    best = int(np.argmax(counts))
    if counts[best] < least:
        return None
    member = (np.abs(xy[:, 0] - xy[best, 0]) <= 1.5 * radius) & \
        (np.abs(xy[:, 1] - xy[best, 1]) <= 1.5 * radius)
    cx = [p.x for p, m in zip(pts, member, strict=True) if m]
    cy = [p.y for p, m in zip(pts, member, strict=True) if m]

    def padded(lo: float, hi: float, span: float) -> tuple[float, float]:
        w = max(hi - lo, 0.02 * span, 0.045)    # ≥ 1-point ticks on a percent axis
        return lo - 0.12 * w, hi + 0.12 * w

    return padded(min(cx), max(cx), x_hi - x_lo), padded(min(cy), max(cy), y_hi - y_lo)


def tradeoff_chart(curves: Sequence[TradeoffCurve], baseline: TradeoffPoint | None, *,
                   title: str, x_title: str,
                   y_title: str = "Test accuracy (records no model trained on)",
                   x_percent: bool = False, x_floor: float | None = 0.0,
                   x_cap: float | None = None, limit: float | None = None,
                   limit_label: str = "", baseline_label: str = series.UNDEFENDED_LABEL,
                   x_range: tuple[float, float] | None = None,
                   y_range: tuple[float, float] | None = None,
                   zoom: tuple[float, float, float, float] | None = None,
                   height: float = TRADEOFF_HEIGHT) -> Drawing:
    """Privacy against utility: each defence a curve through its settings (knob order), each
    point with its label and whiskers for its 95 % intervals; the undefended model a star; the
    user's limit a vertical line, the allowed side (left: less risk) lightly shaded; the
    recommended setting ringed. Labels are placed where they overlap no marker or other label
    (with a thin leader line when set apart); a label that finds no room is left out (the
    report's table lists every setting).

    ``x_range`` and ``y_range`` fix the axes (a close-up; whiskers and curves are cut at its
    edges). ``zoom`` = (x_lo, x_hi, y_lo, y_hi) marks a crowded region shown in a close-up
    elsewhere: a dotted box, and no labels for the points inside it."""
    st.register_fonts()
    d = SeriesDrawing(WIDTH, height)
    pts_all = _tradeoff_points(curves, baseline)
    plot_w, plot_h = TRADEOFF_PLOT_W, height - 62
    (x_lo, x_hi), (y_lo, y_hi) = _tradeoff_ranges(pts_all, x_floor, x_cap, limit)
    x_lo, x_hi = x_range if x_range else (x_lo, x_hi)
    y_lo, y_hi = y_range if y_range else (y_lo, y_hi)
    xa = Axis(x_lo, x_hi, 48.0, plot_w, False)
    ya = Axis(y_lo, y_hi, 40.0, plot_h, False)
    d.plot_axes = (xa, ya)
    p = Plot(d, xa, ya)
    p.grid_under(percent=x_percent)
    x0, y0, x1, y1 = p.rect
    entries: list[LegendEntry] = []
    occupied: list[Rect4] = []

    if limit is not None and math.isfinite(limit) and float(xa(limit)) > x0:
        lx = float(xa(limit))
        d.add(Rect(x0, y0, min(lx, x1) - x0, y1 - y0, fillColor=LIMIT_FILL,
                   strokeColor=None, strokeWidth=0))
        if x0 <= lx <= x1:
            d.add(polyline([lx, y0, lx, y1], LIMIT_STYLE, 1.3))
            lab = "your limit"
            w = text_width(lab, 7)
            tx = lx + 3 if lx + 3 + w <= x1 - 2 else lx - 3 - w
            d.add(Rect(tx - 1, y1 - 11, w + 2, 9, fillColor=colors.white, strokeColor=None))
            d.add(text(tx, y1 - 9, lab, 7, color=LIMIT_STYLE[0]))
            occupied.append((tx - 1, y1 - 11, tx + w + 1, y1 - 2))
            entries.append(LegendEntry(f"Your limit: {limit_label}" if limit_label else
                                       "Your limit", LIMIT_STYLE))
        entries.append(LegendEntry("Within the limit (shaded side)", fill=LIMIT_FILL))

    def inside(px: float, py: float) -> bool:
        return x0 - 0.5 <= px <= x1 + 0.5 and y0 - 0.5 <= py <= y1 + 0.5

    def whiskers(pt: TradeoffPoint, color) -> None:
        px, py = float(xa(pt.x)), float(ya(pt.y))
        if not inside(px, py):
            return
        if finite_pair(pt.x_ci):      # an end cut at the plot's edge gets no cap
            ra, rb = float(xa(pt.x_ci[0])), float(xa(pt.x_ci[1]))
            a, b = min(max(ra, x0), x1), min(max(rb, x0), x1)
            if b - a > 1.0:
                d.add(Line(a, py, b, py, strokeColor=color, strokeWidth=0.45))
                for xx, raw in ((a, ra), (b, rb)):
                    if xx == raw:
                        d.add(Line(xx, py - 1.6, xx, py + 1.6, strokeColor=color,
                                   strokeWidth=0.45))
        if finite_pair(pt.y_ci):
            ra, rb = float(ya(pt.y_ci[0])), float(ya(pt.y_ci[1]))
            a, b = min(max(ra, y0), y1), min(max(rb, y0), y1)
            if b - a > 1.0:
                d.add(Line(px, a, px, b, strokeColor=color, strokeWidth=0.45))
                for yy, raw in ((a, ra), (b, rb)):
                    if yy == raw:
                        d.add(Line(px - 1.6, yy, px + 1.6, yy, strokeColor=color,
                                   strokeWidth=0.45))

    faint = rl_color(series.WHISKER_COLOR)          # as the screen's error bars
    drawn = []             # (point, style) in drawing order
    for c in curves:
        style = rl_style(c.style) if isinstance(c.style, series.Style) else \
            ATTACK_STYLES[c.style % len(ATTACK_STYLES)]
        pts = [pt for pt in c.points if math.isfinite(pt.x) and math.isfinite(pt.y)]
        for pt in pts:
            whiskers(pt, faint)
        if len(pts) >= 2:
            for piece in clip_polyline(xa([pt.x for pt in pts]), ya([pt.y for pt in pts]),
                                       p.rect):
                d.add(polyline(piece, (style[0], style[1], None), 1.1))
        drawn += [(pt, style) for pt in pts]
        entries.append(LegendEntry(c.label, style, line=len(pts) >= 2))
    if baseline is not None and math.isfinite(baseline.x) and math.isfinite(baseline.y):
        whiskers(baseline, faint)
    for pt, style in drawn:
        px, py = float(xa(pt.x)), float(ya(pt.y))
        if inside(px, py):
            d.add(marker(style[2], px, py, style[0]))
            occupied.append((px - 3.4, py - 3.4, px + 3.4, py + 3.4))
    base_xy = None
    if baseline is not None and math.isfinite(baseline.x) and math.isfinite(baseline.y):
        bx, by = float(xa(baseline.x)), float(ya(baseline.y))
        if inside(bx, by):
            d.add(marker("star", bx, by, UNDEFENDED_STYLE[0], 3.6))
            occupied.append((bx - 6, by - 6, bx + 6, by + 6))
            base_xy = (bx, by)
        entries.append(LegendEntry(baseline_label, UNDEFENDED_STYLE, line=False))
    rec = [(pt, float(xa(pt.x)), float(ya(pt.y))) for pt, _ in drawn if pt.recommended]
    rec += [(baseline, *base_xy)] if baseline is not None and baseline.recommended \
        and base_xy else []
    for _, px, py in rec:
        if inside(px, py):
            d.add(marker("ring", px, py, RECOMMENDED_STYLE[0]))
            occupied.append((px - 8, py - 8, px + 8, py + 8))
    if rec:
        entries.append(LegendEntry(series.RECOMMENDED_LABEL, RECOMMENDED_STYLE,
                                   line=False))

    zoom_box = None
    if zoom is not None and all(math.isfinite(v) for v in zoom):
        zx0, zx1 = sorted((float(xa(zoom[0])), float(xa(zoom[1]))))
        zy0, zy1 = sorted((float(ya(zoom[2])), float(ya(zoom[3]))))
        zx0, zx1 = max(zx0 - 5, x0), min(zx1 + 5, x1)
        zy0, zy1 = max(zy0 - 5, y0), min(zy1 + 5, y1)
        d.add(Rect(zx0, zy0, zx1 - zx0, zy1 - zy0, fillColor=None, strokeColor=BLACK,
                   strokeWidth=0.6, strokeDashArray=(1.5, 1.5)))
        lab = "close-up below"
        w = text_width(lab, 6.5)
        tx = zx0 - 2 - w if zx0 - 2 - w >= x0 + 2 else min(zx1 + 2, x1 - w - 2)
        ty = max(zy0 - 9, y0 + 2) if zx0 - 2 - w < x0 + 2 else zy0
        d.add(text(tx, ty, lab, 6.5))
        occupied += [(zx0, zy0, zx1, zy1), (tx, ty - 1, tx + w, ty + 6.5)]
        zoom_box = (zx0, zy0, zx1, zy1)

    def zoomed(px: float, py: float) -> bool:
        return zoom_box is not None and zoom_box[0] <= px <= zoom_box[2] \
            and zoom_box[1] <= py <= zoom_box[3]

    # Labels: the undefended model and the recommendation first, then each curve in order.
    wanted: list[tuple[float, float, str, object]] = []
    if base_xy is not None:
        wanted.append((*base_xy, "no defence", BLACK))
    for pt, px, py in rec:
        if pt is not baseline and pt.label:
            wanted.append((px, py, f"{pt.label} (recommended)", BLACK))
    for pt, style in drawn:
        px, py = float(xa(pt.x)), float(ya(pt.y))
        if pt.label and not pt.recommended and inside(px, py):
            wanted.append((px, py, pt.label, style[0]))
    wanted = [w for w in wanted if not zoomed(w[0], w[1])]
    spots = place_labels([(a, b, s) for a, b, s, _ in wanted], occupied,
                         (x0 + 1, y0 + 1, x1 - 1, y1 - 1))
    for (px, py, s, color), spot in zip(wanted, spots, strict=True):
        if spot is None:
            continue
        tx, ty, box = spot
        cx = min(max(px, box[0]), box[2])
        cy = min(max(py, box[1]), box[3])
        if math.hypot(cx - px, cy - py) > 7:
            d.add(Line(px, py, cx, cy, strokeColor=LEADER_GREY, strokeWidth=0.4))
        d.add(Rect(box[0] - 0.5, box[1] - 0.3, box[2] - box[0] + 1, box[3] - box[1] + 0.6,
                   fillColor=colors.Color(1, 1, 1, alpha=0.8), strokeColor=None,
                   strokeWidth=0))
        d.add(text(tx, ty, s, 6.5, color=color))

    if not pts_all:
        p.message("no setting could be drawn")
    p.frame(x_title, y_title, percent=x_percent, grid=False, y_percent=True)
    d.add(text(xa.start, height - 8, title, 9, bold=True))
    lx = x1 + 14
    legend(d, entries, lx, y1, WIDTH - lx, plot_rect=p.rect)
    return d
