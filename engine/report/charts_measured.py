"""Measured-sweep and histogram charts of the report (issue 33 item 2: split from
engine/report/charts.py): any measured metric of several attacks against one swept setting
(the count-tables audit's AUC against m/|D| and ε, paper 003 Fig. 6 and 8), and overlaid
histograms with model curves."""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np
from reportlab.graphics.shapes import Drawing, Line, Rect
from reportlab.lib import colors

from engine.numbers import is_finite
from engine.plots import count_sweeps, series
from engine.report import styles as st
from engine.report.charts_base import (
    SeriesDrawing,
    rl_style,
)
from engine.report.plotkit import (
    WIDTH,
    Axis,
    ChartDrawing,
    LegendEntry,
    Plot,
    clip_polyline,
    legend,
    marker,
    polyline,
    text,
    text_width,
)

# --------------------------------------------------------------------------- measured sweeps

MEASURED_SWEEP_HEIGHT = 250.0
CHANCE_STYLE = rl_style(series.CHANCE_STYLE)


def attack_sweep_chart(values: Sequence[float], attacks: dict[str, Sequence[dict]],
                       labels: dict[str, str], *, title: str, x_title: str,
                       y_title: str = "AUC", metric: str = "auc", ci_key: str = "auc_ci",
                       chance: float | None = 0.5, current: float | None = None,
                       current_label: str = "audited setting",
                       styles: dict[str, int] | None = None,
                       curves: Sequence[series.Curve] | None = None,
                       guides: Sequence[series.Guide] | None = None,
                       log_x: bool | None = None,
                       height: float = MEASURED_SWEEP_HEIGHT) -> Drawing:
    """A measured metric of several attacks against one swept setting (paper 003 Fig. 6, 8).

    What is drawn is ``curves`` (engine.plots.series: the count-tables audit passes
    :func:`engine.plots.count_sweeps.count_sweep_series`, which the GUI draws too); without them,
    :func:`engine.plots.count_sweeps.measured_sweep_series` of ``attacks`` (name → one row per
    entry of ``values`` with ``metric`` and its interval ``ci_key``; ``styles`` maps an
    attack to its style index, to match the ROC chart). Each curve is drawn as markers with
    interval whiskers (shifted sideways per series so whiskers never overlap) joined by its
    dash pattern. ``chance`` draws the random-guess level, ``current`` marks the audited
    setting with a dotted vertical line. ``guides`` (engine.plots.series reference lines, the
    ones the screen draws) replace ``chance`` and ``current``. The x axis is logarithmic when
    ``log_x`` says so, or without it when the values span 20× or more
    (:func:`engine.plots.series.log_axis`).
    """
    st.register_fonts()
    if guides is None:
        guides = (() if chance is None else (series.chance_guide(chance),)) + (
            (series.Guide("current", "Audited setting", float(current), True,
                          series.CURRENT_STYLE, current_label),)
            if is_finite(current) else ())
    guides = tuple(guides)
    chance_guide = next((g for g in guides if not g.vertical), None)
    current_guide = next((g for g in guides if g.vertical), None)
    chance = chance_guide.value if chance_guide is not None else None
    current = current_guide.value if current_guide is not None else None
    if curves is None:
        curves = count_sweeps.measured_sweep_series(values, attacks, labels, styles, metric=metric,
                                              ci_key=ci_key)
    d = SeriesDrawing(WIDTH, height)
    d.plot_series = tuple(curves)        # what was drawn (tests compare it with the screen's)
    d.plot_guides = guides
    xs = np.asarray([v if isinstance(v, (int, float)) and not isinstance(v, bool) else np.nan
                     for v in values or []], float)
    finite = list(xs[np.isfinite(xs)]) + [x for c in curves for x in c.x]
    span = finite + ([float(current)] if is_finite(current) else [])
    if log_x is None:
        log_x = series.log_axis(span)
    log_x = bool(log_x and span and min(span) > 0)     # a log axis needs values > 0
    d.plot_log_x = log_x
    plot_w, plot_h = 290.0, height - 62
    if log_x:   # a little room either side, so edge markers and whiskers stay readable
        xa = Axis(min(span) / 1.3, max(span) * 1.3, 48.0, plot_w, True)
    elif len(span) >= 2 and max(span) > min(span):
        pad = 0.06 * (max(span) - min(span))
        lo = min(span) - pad
        xa = Axis(max(0.0, lo) if min(span) >= 0 else lo, max(span) + pad, 48.0, plot_w,
                  False)
    else:
        c = span[0] if span and span[0] > 0 else 1.0
        xa = Axis(c / 2, c * 1.5, 48.0, plot_w, False)

    lows = [0.5 if chance is None else min(0.5, chance)]
    for c in curves:
        lows += [v for v in (*c.y, *(c.lower or ())) if v is not None]
    y_lo = max(0.0, math.floor(min(lows) * 10 - 1e-9) / 10)
    ya = Axis(y_lo, 1.0, 40.0, plot_h, False)
    d.plot_axes = (xa, ya)
    p = Plot(d, xa, ya)
    p.grid_under(percent=False)
    x0, y0, x1, y1 = p.rect
    entries: list[LegendEntry] = []

    if chance_guide is not None and y_lo <= chance <= 1.0:
        cy = float(ya(chance))
        d.add(polyline([x0, cy, x1, cy], rl_style(chance_guide.style),
                       chance_guide.style.width))

    drawn = 0
    for slot, curve in enumerate(curves):
        style = rl_style(curve.style)
        color = style[0]
        off = (slot - (len(curves) - 1) / 2) * 6.0
        pts = []
        for i, (xv, val) in enumerate(zip(curve.x, curve.y, strict=True)):
            px = float(xa(xv)) + off
            if not x0 - 4 <= px <= x1 + 4:
                continue
            lo_v = curve.lower[i] if curve.lower else None
            hi_v = curve.upper[i] if curve.upper else None
            if lo_v is not None and hi_v is not None:
                lo_y = min(max(float(ya(lo_v)), y0), y1)
                hi_y = min(max(float(ya(hi_v)), y0), y1)
                d.add(Line(px, lo_y, px, hi_y, strokeColor=color, strokeWidth=0.8))
                for yy in (lo_y, hi_y):
                    d.add(Line(px - 2.2, yy, px + 2.2, yy, strokeColor=color, strokeWidth=0.8))
            pts.append((px, float(ya(val))))
        if len(pts) >= 2:
            for piece in clip_polyline(np.asarray([a for a, _ in pts]),
                                       np.asarray([b for _, b in pts]), p.rect):
                d.add(polyline(piece, (color, style[1], None), 0.9))
        for px, py in pts:
            if y0 - 0.5 <= py <= y1 + 0.5:
                d.add(marker(style[2], px, py, color))
        if pts and curve.key.startswith("attack:"):
            drawn += 1
        entries.append(LegendEntry(curve.label, style))
    if chance_guide is not None:
        entries.append(LegendEntry(chance_guide.label, rl_style(chance_guide.style)))

    if current_guide is not None:
        cx = float(xa(current))
        if x0 <= cx <= x1:
            style = rl_style(current_guide.style)
            d.add(Line(cx, y0, cx, y1, strokeColor=style[0],
                       strokeWidth=current_guide.style.width, strokeDashArray=style[1]))
            lab = current_guide.note or "audited setting"
            anchor = "end" if cx > (x0 + x1) / 2 else "start"
            tx = cx - 3 if anchor == "end" else cx + 3
            w = text_width(lab, 7)
            d.add(Rect(tx - w - 1 if anchor == "end" else tx - 1, y1 - 12, w + 2, 9,
                       fillColor=colors.white, strokeColor=None))
            d.add(text(tx, y1 - 10, lab, 7, anchor))
            entries.append(LegendEntry(current_guide.label, style))
    if not drawn:
        p.message("no sweep data")
    p.frame(x_title + (series.LOG_WORDS if log_x else ""), y_title, percent=False, grid=False)
    d.add(text(xa.start, height - 8, title, 9, bold=True))
    lx = x1 + 14
    legend(d, entries, lx, y1, WIDTH - lx, plot_rect=p.rect)
    return d


# --------------------------------------------------------------------------- histograms

HIST_HEIGHT = 230.0


@dataclass(frozen=True)
class HistogramSeries:
    """One series of :func:`histogram_chart`: counts per bin (bars) or per bin centre (a
    curve). ``style`` is (colour, dash pattern or None, marker or None); bars also take a
    ``fill`` (translucent, so overlapping bars both show)."""

    label: str
    values: Sequence[float]
    style: tuple
    fill: object | None = None


def histogram_chart(centres: Sequence[float], bars: Sequence[HistogramSeries],
                    curves: Sequence[HistogramSeries], title: str, x_title: str,
                    y_title: str = "Count", height: float = HIST_HEIGHT) -> Drawing:
    """Overlaid histograms on shared bins (step outlines over translucent fills, each with its
    own dash pattern) and model curves through the bin centres, with a legend at the right.

    The x axis shows the bins where any bar is non-zero or any curve reaches ½, plus one bin
    either side, so a law over 0…k does not squeeze the data into a corner. Series whose
    length differs from ``centres`` are left out; with nothing to draw the chart says so.
    """
    st.register_fonts()
    d = ChartDrawing(WIDTH, height)
    x = np.asarray([v if isinstance(v, (int, float)) else np.nan for v in centres], float)
    order = np.argsort(x, kind="stable")
    x = x[order]

    def values(hist: HistogramSeries) -> np.ndarray | None:
        v = np.asarray([u if isinstance(u, (int, float)) else np.nan
                        for u in hist.values or []], float)
        return v[order] if v.size == x.size and x.size else None

    bar_data = [(s, values(s)) for s in bars]
    bar_data = [(s, np.nan_to_num(v)) for s, v in bar_data if v is not None]
    curve_data = [(s, v) for s, v in ((s, values(s)) for s in curves) if v is not None]
    if x.size and np.all(np.isfinite(x)):
        if x.size == 1:
            edges = np.array([x[0] - 0.5, x[0] + 0.5])
        else:
            mids = 0.5 * (x[1:] + x[:-1])
            edges = np.concatenate([[2 * x[0] - mids[0]], mids, [2 * x[-1] - mids[-1]]])
    else:
        edges, bar_data, curve_data = np.array([0.0, 1.0]), [], []
    used = np.zeros(x.size, bool)
    for _, v in bar_data:
        used |= v > 0
    for _, v in curve_data:
        used |= np.nan_to_num(v) >= 0.5
    if used.any():
        i0, i1 = max(int(np.argmax(used)) - 1, 0), min(int(x.size - np.argmax(used[::-1])),
                                                       x.size)
        lo, hi = float(edges[i0]), float(edges[i1])
    else:
        lo, hi = float(edges[0]), float(edges[-1])
    top = max([float(v.max(initial=0)) for _, v in bar_data]
              + [float(np.nanmax(v, initial=0)) for _, v in curve_data] + [0.0])
    plot_w, plot_h = 290.0, height - 62
    xa = Axis(lo, hi, 48.0, plot_w, False)
    ya = Axis(0.0, top * 1.08 if top > 0 else 1.0, 40.0, plot_h, False)
    p = Plot(d, xa, ya)
    p.grid_under(percent=False)
    x0, y0, x1, y1 = p.rect
    entries: list[LegendEntry] = []
    for hist, v in bar_data:
        xs = np.repeat(edges, 2)[1:-1]
        ys = np.repeat(v, 2)
        if hist.fill is not None:
            px = np.concatenate([[edges[0]], xs, [edges[-1]]])
            py = np.concatenate([[0.0], ys, [0.0]])
            p.area(px, py, hist.fill)
        outline = np.concatenate([[edges[0]], xs, [edges[-1]]]), np.concatenate([[0.0], ys,
                                                                                  [0.0]])
        for piece in clip_polyline(xa(outline[0]), ya(outline[1]), p.rect):
            d.add(polyline(piece, (hist.style[0], hist.style[1], None), 1.0))
        entries.append(LegendEntry(hist.label, (hist.style[0], hist.style[1], None)))
    for hist, v in curve_data:
        ok = np.isfinite(v)
        p.curve(x[ok], v[ok], hist.style, 1.4)
        if hist.style[2] is not None:
            # No markers along the baseline, where the law expects (almost) nothing.
            pts = [(float(xa(a)), float(ya(b))) for a, b in zip(x[ok], v[ok], strict=True)
                   if b >= 0.01 * top]
            pts = [(a, b) for a, b in pts if x0 <= a <= x1 and y0 <= b <= y1]
            step = max(1, len(pts) // 30)            # at most ~30 markers per curve
            for a, b in pts[::step]:
                d.add(marker(hist.style[2], a, b, hist.style[0], 2.2))
        entries.append(LegendEntry(hist.label, hist.style))
    if not bar_data and not curve_data:
        p.message("no scores recorded")
    p.frame(x_title, y_title, percent=False, grid=False)
    d.add(text(xa.start, height - 8, title, 9, bold=True))
    lx = x1 + 14
    legend(d, entries, lx, y1, WIDTH - lx, plot_rect=p.rect)
    return d
