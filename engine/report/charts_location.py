"""The location audit's chart of the report (issue 33 item 2: split from
engine/report/charts.py): measured accuracy of the sweep attacks against the target's number
of observations k (paper 000 Fig. 13/14)."""

from __future__ import annotations

import math

import numpy as np
from reportlab.graphics.shapes import Drawing, Line, Rect
from reportlab.lib import colors

from engine.plots import observations, series
from engine.report import styles as st
from engine.report.charts_base import (
    SeriesDrawing,
    rl_style,
)
from engine.report.plotkit import (
    WIDTH,
    Axis,
    LegendEntry,
    Plot,
    clip_polyline,
    legend,
    marker,
    polyline,
    text,
    text_width,
)

# --------------------------------------------------------------------------- accuracy vs k

OBS_HEIGHT = 260.0


def observations_chart(result: dict) -> Drawing:
    """Balanced accuracy against the number of the target's observations k (``theory.sweep``).

    Each sweep attack: its measured accuracy at every swept target, as a marker with its
    confidence-interval whisker (series offset sideways so whiskers never overlap), joined by
    its dash pattern; the exact optimal (informed) attacker as a solid line; the most that ε-DP
    per epoch allows over the target's epochs as a long-dashed line. The audited target's k is
    marked with a dotted vertical line. Axis k is logarithmic when it spans 20× or more.
    """
    st.register_fonts()
    d = SeriesDrawing(WIDTH, OBS_HEIGHT)
    # The location audit's typed sweep (engine.results.location.Sweep): its targets' k.
    sweep = observations.load_location(result).theory.sweep
    ks = np.asarray([v if isinstance(v, (int, float)) else np.nan
                     for v in getattr(sweep, "observations", None) or ()], float)
    finite = ks[np.isfinite(ks) & (ks > 0)]
    plot_w, plot_h = 290.0, OBS_HEIGHT - 62
    # The random-guess level, the audited target and the axis scale: engine.plots.series,
    # which the screen draws too.
    guides = observations.observations_guides(result)
    d.plot_guides = guides
    current = next((g.value for g in guides if g.vertical), None)
    span = list(finite) + ([current] if current is not None else [])
    log_x = observations.observations_log_x(result)
    d.plot_log_x = log_x
    if log_x:
        # Lower end on a decade (k ≥ 1 starts at 1); upper end just past the largest k, so a
        # k of 117 does not leave most of a decade up to 1000 empty.
        xa = Axis(10 ** math.floor(math.log10(min(span)) + 1e-9), max(span) * 1.25,
                  48.0, plot_w, True)
    elif len(span) >= 2 and max(span) > min(span):
        pad = 0.05 * (max(span) - min(span))
        xa = Axis(max(0.0, min(span) - pad), max(span) + pad, 48.0, plot_w, False)
    else:
        c = span[0] if span else 1.0
        xa = Axis(max(0.0, c - 1), c + 1, 48.0, plot_w, False)
    ya = Axis(0.5, 1.0, 40.0, plot_h, False)
    d.plot_axes = (xa, ya)
    p = Plot(d, xa, ya)
    p.grid_under(percent=False)
    x0, y0, x1, y1 = p.rect
    entries: list[LegendEntry] = []
    drawn = 0
    for guide in guides:            # balanced accuracy 0.5: the axis' floor, drawn over it
        if not guide.vertical:
            cy = float(ya(guide.value))
            d.add(polyline([x0, cy, x1, cy], rl_style(guide.style), guide.style.width))
            entries.append(LegendEntry(guide.label, rl_style(guide.style)))

    curves = observations.observations_series(result)
    d.plot_series = curves
    measured = [c for c in curves if c.key.startswith("attack:")]
    for curve in curves:
        if curve.key.startswith("attack:"):
            continue
        style = rl_style(curve.style)
        xs_, ys_ = np.asarray(curve.x), np.asarray(curve.y)
        if xs_.size >= 2:
            for piece in clip_polyline(xa(xs_), ya(ys_), p.rect):
                d.add(polyline(piece, style, curve.style.width))
        for px, py in zip(xa(xs_), ya(ys_), strict=True):   # a tick at every swept target
            if x0 <= px <= x1 and y0 <= py <= y1:
                d.add(Line(px - 3, py, px + 3, py, strokeColor=style[0],
                           strokeWidth=curve.style.width))
        entries.append(LegendEntry(curve.label, style))
        drawn += 1

    for slot, curve in enumerate(measured):
        style = rl_style(curve.style)
        color = style[0]
        off = (slot - (len(measured) - 1) / 2) * 6.0          # points, sideways per series
        pts = []
        for i, (k, acc) in enumerate(zip(curve.x, curve.y, strict=True)):
            px = float(xa(k)) + off
            if not x0 - 4 <= px <= x1 + 4:
                continue
            lo, hi = curve.lower[i], curve.upper[i]
            if lo is not None and hi is not None:
                lo_y = min(max(float(ya(lo)), y0), y1)
                hi_y = min(max(float(ya(hi)), y0), y1)
                d.add(Line(px, lo_y, px, hi_y, strokeColor=color, strokeWidth=0.8))
                for yy in (lo_y, hi_y):
                    d.add(Line(px - 2.2, yy, px + 2.2, yy, strokeColor=color, strokeWidth=0.8))
            pts.append((px, float(ya(acc))))
        if len(pts) >= 2:
            flat = [c for pt in pts for c in pt]
            for piece in clip_polyline(np.asarray(flat[0::2]), np.asarray(flat[1::2]), p.rect):
                d.add(polyline(piece, (color, style[1], None), 0.9))
        for px, py in pts:
            if y0 - 0.5 <= py <= y1 + 0.5:
                d.add(marker(style[2], px, py, color))
        if pts:
            drawn += 1
        entries.append(LegendEntry(f"{curve.label} (measured, 95% interval)", style))

    target = next((g for g in guides if g.vertical), None)
    if target is not None:
        cx = float(xa(current))
        if x0 <= cx <= x1:
            style = rl_style(target.style)
            d.add(Line(cx, y0, cx, y1, strokeColor=style[0], strokeWidth=target.style.width,
                       strokeDashArray=style[1]))
            lab = target.note
            anchor = "end" if cx > (x0 + x1) / 2 else "start"
            tx = cx - 3 if anchor == "end" else cx + 3
            w = text_width(lab, 7)
            d.add(Rect(tx - w - 1 if anchor == "end" else tx - 1, y0 + 3, w + 2, 9,
                       fillColor=colors.white, strokeColor=None))
            d.add(text(tx, y0 + 5, lab, 7, anchor))
            entries.append(LegendEntry(target.label, style))
    if not drawn:
        p.message("no sweep data")
    # Balanced accuracy in %, as the summary and the tables write it (issue 32 item 8).
    p.frame("Target's observations k (after clipping)" + (series.LOG_WORDS if log_x else ""),
            "Balanced accuracy", percent=False, grid=False, y_percent=True)
    d.add(text(xa.start, OBS_HEIGHT - 8, "Balanced accuracy of each swept target", 9,
               bold=True))
    lx = x1 + 14
    legend(d, entries, lx, y1, WIDTH - lx, plot_rect=p.rect)
    return d
