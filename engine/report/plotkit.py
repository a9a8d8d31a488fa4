"""A small plotting toolkit on reportlab.graphics for the report's charts (no matplotlib, no Qt).

reportlab's chart widgets cannot draw shaded regions between curves on log axes, clip a curve
at the plot's edge, or place point labels where they cover nothing, so the report's charts
(:mod:`engine.report.charts`) draw with these pieces instead: :class:`Axis` (linear or log,
1-2-5 or decade ticks), clipping of polylines (Liang–Barsky) and polygons
(Sutherland–Hodgman) to the plot rectangle, :func:`densify` for straight ROC segments on log
axes, text with Greek runs in the embedded Symbol font, markers that differ in black and
white, :class:`Plot` (one plot area and its frame) and a wrapping :func:`legend` drawn beside
the plot, outside the area the curves use. Label placement is :func:`engine.plots.series
.place_labels` measured in this module's fonts.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np
from reportlab.graphics.shapes import Drawing, Group, Line, Polygon, Rect
from reportlab.lib import colors
from reportlab.lib.attrmap import AttrMap, AttrMapValue
from reportlab.lib.validators import isAnything, isString

from engine.numbers import is_finite
from engine.plots.series import nice_step, percent_tick
from engine.plots.series import place_labels as place_free
from engine.report.plotkit_text import (
    marker,
    polyline,
    text,
    text_width,
    wrap,
)

# The names the charts import from here (the text and marks live in plotkit_text).
__all__ = ["BLACK", "WIDTH", "Axis", "ChartDrawing", "LegendEntry", "LegendLabel", "Plot",
           "Rect4", "clip_polygon", "clip_polyline", "densify", "finite_pair", "legend",
           "marker", "nice_step", "padded_range", "place_labels", "polyline", "text",
           "text_width", "wrap"]

WIDTH = 480.0                 # fits the 17 cm text width of an A4 page with 2 cm margins
FAR = 1e6                     # drawing coordinate used for "off the chart" (log of a value ≤ 0)

BLACK = colors.black
AXIS_GREY = colors.Color(0.45, 0.45, 0.45)
GRID_GREY = colors.Color(0.88, 0.88, 0.88)

# --------------------------------------------------------------------------- axes

@dataclass(frozen=True)
class Axis:
    """Maps data values on [lo, hi] to drawing coordinates on [start, start + length].

    On a log axis, values ≤ 0 map far outside the plot (``FAR``), and the clipping helpers
    cut them off at the plot edge: an ROC point with FPR = 0 then enters the chart at its left
    edge instead of crashing ``log10`` or being silently dropped.
    """

    lo: float
    hi: float
    start: float
    length: float
    log: bool = False

    def _t(self, v: np.ndarray) -> np.ndarray:
        if not self.log:
            return v
        with np.errstate(divide="ignore", invalid="ignore"):
            out = np.log10(np.where(v > 0, v, np.nan))
        return out

    def __call__(self, values) -> np.ndarray:
        v = np.asarray(values, dtype=float)
        t, a, b = self._t(v), self._t(np.array(self.lo)), self._t(np.array(self.hi))
        pos = self.start + (t - a) / (b - a) * self.length
        return np.where(np.isfinite(pos), pos, -FAR)

    def ticks(self, percent: bool = False) -> list[tuple[float, str]]:
        """Decade ticks on a log axis, 1-2-5 steps on a linear one, with their labels."""
        if self.log:
            lo_e = math.ceil(math.log10(self.lo) - 1e-9)
            hi_e = math.floor(math.log10(self.hi) + 1e-9)
            vals = [10.0 ** e for e in range(lo_e, hi_e + 1)]
        else:
            step = nice_step((self.hi - self.lo) / 5)
            first = math.ceil(self.lo / step - 1e-9) * step
            vals = list(np.arange(first, self.hi + step * 1e-6, step))
        return [(v, tick_label(v, percent)) for v in vals]

    def minor_ticks(self) -> list[float]:
        """2…9 × each decade on a log axis (none on a linear one)."""
        if not self.log:
            return []
        out = []
        for e in range(math.floor(math.log10(self.lo)), math.ceil(math.log10(self.hi))):
            out += [m * 10.0 ** e for m in range(2, 10)
                    if self.lo < m * 10.0 ** e < self.hi]
        return out


def tick_label(v: float, percent: bool) -> str:
    if percent:         # as the screen's percent axes write it (engine.plots.series)
        return percent_tick(v)
    if v == 0:
        return "0"
    if abs(v) >= 1 and abs(v - round(v)) < 1e-9:
        return f"{round(v):d}"
    return f"{v:.3g}"


# --------------------------------------------------------------------------- clipping

Rect4 = tuple[float, float, float, float]   # x0, y0, x1, y1


def clip_polyline(xs: np.ndarray, ys: np.ndarray, rect: Rect4) -> list[list[float]]:
    """Cut a polyline to a rectangle (Liang–Barsky per segment); returns flat point lists."""
    x0, y0, x1, y1 = rect
    pieces: list[list[float]] = []
    current: list[float] = []
    for i in range(len(xs) - 1):
        ax, ay, bx, by = float(xs[i]), float(ys[i]), float(xs[i + 1]), float(ys[i + 1])
        dx, dy = bx - ax, by - ay
        t0, t1, keep = 0.0, 1.0, True
        for p, q in ((-dx, ax - x0), (dx, x1 - ax), (-dy, ay - y0), (dy, y1 - ay)):
            if p == 0:
                if q < 0:
                    keep = False
                    break
                continue
            r = q / p
            if p < 0:
                t0 = max(t0, r)
            else:
                t1 = min(t1, r)
            if t0 > t1:
                keep = False
                break
        if not keep:
            if len(current) >= 4:
                pieces.append(current)
            current = []
            continue
        px, py = ax + t0 * dx, ay + t0 * dy
        qx, qy = ax + t1 * dx, ay + t1 * dy
        if current and (abs(current[-2] - px) > 1e-6 or abs(current[-1] - py) > 1e-6):
            if len(current) >= 4:
                pieces.append(current)
            current = []
        if not current:
            current = [px, py]
        current += [qx, qy]
        if t1 < 1.0:
            pieces.append(current)
            current = []
    if len(current) >= 4:
        pieces.append(current)
    return pieces


def clip_polygon(xs: np.ndarray, ys: np.ndarray, rect: Rect4) -> list[float]:
    """Cut a polygon to a rectangle (Sutherland–Hodgman); returns a flat point list."""
    pts = list(zip((float(x) for x in xs), (float(y) for y in ys), strict=True))
    x0, y0, x1, y1 = rect
    edges = [(lambda p: p[0] >= x0, lambda a, b: _at_x(a, b, x0)),
             (lambda p: p[0] <= x1, lambda a, b: _at_x(a, b, x1)),
             (lambda p: p[1] >= y0, lambda a, b: _at_y(a, b, y0)),
             (lambda p: p[1] <= y1, lambda a, b: _at_y(a, b, y1))]
    for inside, cut in edges:
        if not pts:
            break
        out = []
        prev = pts[-1]
        for cur in pts:
            if inside(cur):
                if not inside(prev):
                    out.append(cut(prev, cur))
                out.append(cur)
            elif inside(prev):
                out.append(cut(prev, cur))
            prev = cur
        pts = out
    return [c for p in pts for c in p]


def _at_x(a, b, x):
    t = (x - a[0]) / (b[0] - a[0])
    return (x, a[1] + t * (b[1] - a[1]))


def _at_y(a, b, y):
    t = (y - a[1]) / (b[1] - a[1])
    return (a[0] + t * (b[0] - a[0]), y)


def densify(xs: np.ndarray, ys: np.ndarray, per_segment: int = 24) -> tuple[np.ndarray, ...]:
    """Insert points along segments that span more than a few percent of a decade.

    A ROC vertex list means *linear* interpolation between vertices (randomised tests, paper
    002 §3); on log axes such a segment is a curve, so it must be sampled before the transform.
    Points are spaced geometrically from the segment's start to reach down to low FPR.
    """
    if xs.size < 2:
        return xs, ys
    out_x, out_y = [xs[:1]], [ys[:1]]
    t = np.r_[np.geomspace(1e-4, 1.0, per_segment)]
    for i in range(xs.size - 1):
        a, b, ya, yb = xs[i], xs[i + 1], ys[i], ys[i + 1]
        if (a <= 0 < b) or (a > 0 and b / a > 1.05) or (ya <= 0 < yb) or \
                (ya > 0 and yb / ya > 1.05):
            out_x.append(a + t * (b - a))
            out_y.append(ya + t * (yb - ya))
        else:
            out_x.append(xs[i + 1:i + 2])
            out_y.append(ys[i + 1:i + 2])
    return np.concatenate(out_x), np.concatenate(out_y)


# --------------------------------------------------------------------------- frame

MARKER_REACH = 4.2      # half the width of the largest marker (a diamond or a star's arms)


def _overlap(a: Rect4, b: Rect4) -> bool:
    return a[0] < b[2] and b[0] < a[2] and a[1] < b[3] and b[1] < a[3]


@dataclass
class Plot:
    """A drawing with one plot area; collects layers in drawing order."""

    drawing: Drawing
    x: Axis
    y: Axis

    @property
    def rect(self) -> Rect4:
        return (self.x.start, self.y.start, self.x.start + self.x.length,
                self.y.start + self.y.length)

    def curve(self, xs, ys, style, width: float = 1.2, dense: bool = False
              ) -> list[list[float]]:
        """A polyline through the points; on log axes its straight segments are sampled first
        (:func:`densify`) unless ``dense`` says the points are already as the screen draws
        them (engine.plots.series.log_roc)."""
        if len(xs) < 2:
            return []
        if (self.x.log or self.y.log) and not dense:
            xs, ys = densify(np.asarray(xs, float), np.asarray(ys, float))
        pieces = clip_polyline(self.x(xs), self.y(ys), self.rect)
        for p in pieces:
            self.drawing.add(polyline(p, style, width))
        return pieces

    def area(self, xs, ys, fill) -> None:
        if len(xs) < 3:
            return
        pts = clip_polygon(self.x(xs), self.y(ys), self.rect)
        if len(pts) >= 6:
            self.drawing.add(Polygon(pts, fillColor=fill, strokeColor=None, strokeWidth=0))

    def markers(self, xs, ys, style, slot: int, n_slots: int, count: int = 6
                ) -> list[Rect4]:
        """Markers spread evenly across the plot width, offset per series so they never
        stack; returns their boxes (a label placed later keeps clear of them)."""
        color, _, kind = style
        if kind is None or len(xs) < 2:
            return []
        px, py = self.x(xs), self.y(ys)
        order = np.argsort(px, kind="stable")
        px, py = px[order], py[order]
        x0, y0, x1, y1 = self.rect
        boxes = []
        for j in range(count):
            f = (j + (slot + 1) / (n_slots + 1)) / count
            mx = x0 + f * (x1 - x0)
            if mx < px[0] or mx > px[-1]:
                continue
            my = float(np.interp(mx, px, py))
            if y0 - 0.5 <= my <= y1 + 0.5:
                self.drawing.add(marker(kind, mx, my, color))
                boxes.append((mx - MARKER_REACH, my - MARKER_REACH, mx + MARKER_REACH,
                              my + MARKER_REACH))
        return boxes

    def line_label(self, cx: float, label: str, size: float, avoid: Sequence[Rect4],
                   curves: Sequence[Sequence[float]] = (), top_first: bool = True
                   ) -> tuple[float, float, str, Rect4]:
        """Where to write the label of a vertical line at ``cx`` (the audited setting): at
        the top or the bottom of the plot, on the side of the line with more room, wherever
        it covers no box in ``avoid`` (markers) and the fewest points of ``curves`` (flat
        x, y lists). Returns the text's x, its baseline y, its anchor and its box."""
        x0, y0, x1, y1 = self.rect
        w, h = text_width(label, size), size + 2
        sides = ["start", "end"] if cx < (x0 + x1) / 2 else ["end", "start"]
        rows = [y1 - h - 1, y0 + 2] if top_first else [y0 + 2, y1 - h - 1]
        best, best_cost = None, None
        for bottom in rows:
            for anchor in sides:
                left = cx + 3 if anchor == "start" else cx - 3 - w
                if left < x0 + 1 or left + w > x1 - 1:
                    continue
                box = (left - 1, bottom, left + w + 1, bottom + h)
                clear = (box[0] - 2, box[1] - 2, box[2] + 2, box[3] + 2)   # 2 pt apart
                cost = 1000 * sum(_overlap(clear, b) for b in avoid)
                for pts in curves:
                    xs, ys = np.asarray(pts[0::2]), np.asarray(pts[1::2])
                    cost += int(np.sum((xs >= box[0]) & (xs <= box[2]) & (ys >= box[1])
                                       & (ys <= box[3])))
                if best_cost is None or cost < best_cost:
                    best, best_cost = (left if anchor == "start" else left + w, anchor, box), cost
                if cost == 0:
                    break
            if best_cost == 0:
                break
        if best is None:                    # no room either side: as before, at the top
            anchor = sides[0]
            left = cx + 3 if anchor == "start" else cx - 3 - w
            best = (left if anchor == "start" else left + w, anchor,
                    (left - 1, rows[0], left + w + 1, rows[0] + h))
        tx, anchor, box = best
        return tx, box[1] + 2.8, anchor, box

    def frame(self, x_title: str, y_title: str, percent: bool, grid: bool = True,
              y_percent: bool | None = None) -> None:
        """Ticks, labels and titles; ``percent`` for both axes unless ``y_percent`` says
        otherwise for the y axis."""
        d = self.drawing
        y_percent = percent if y_percent is None else y_percent
        x0, y0, x1, y1 = self.rect
        for v in self.x.minor_ticks():
            xv = float(self.x(v))
            d.add(Line(xv, y0, xv, y0 + 2.5, strokeColor=AXIS_GREY, strokeWidth=0.5))
        for v in self.y.minor_ticks():
            yv = float(self.y(v))
            d.add(Line(x0, yv, x0 + 2.5, yv, strokeColor=AXIS_GREY, strokeWidth=0.5))
        for v, label in self.x.ticks(percent):
            xv = float(self.x(v))
            if grid:
                d.add(Line(xv, y0, xv, y1, strokeColor=GRID_GREY, strokeWidth=0.4))
            d.add(Line(xv, y0, xv, y0 - 3, strokeColor=BLACK, strokeWidth=0.6))
            d.add(text(xv, y0 - 12, label, 7, "middle"))
        for v, label in self.y.ticks(y_percent):
            yv = float(self.y(v))
            if grid:
                d.add(Line(x0, yv, x1, yv, strokeColor=GRID_GREY, strokeWidth=0.4))
            d.add(Line(x0, yv, x0 - 3, yv, strokeColor=BLACK, strokeWidth=0.6))
            d.add(text(x0 - 5, yv - 2.5, label, 7, "end"))
        d.add(Rect(x0, y0, x1 - x0, y1 - y0, fillColor=None, strokeColor=BLACK,
                   strokeWidth=0.7))
        d.add(text((x0 + x1) / 2, y0 - 25, x_title, 8, "middle"))
        d.add(text(x0 - 34, (y0 + y1) / 2, y_title, 8, "middle", angle=90))

    def grid_under(self, percent: bool) -> None:
        """Grid lines drawn first, so fills and curves sit on top of them."""
        x0, y0, x1, y1 = self.rect
        for v, _ in self.x.ticks(percent):
            xv = float(self.x(v))
            self.drawing.add(Line(xv, y0, xv, y1, strokeColor=GRID_GREY, strokeWidth=0.4))
        for v, _ in self.y.ticks(percent):
            yv = float(self.y(v))
            self.drawing.add(Line(x0, yv, x1, yv, strokeColor=GRID_GREY, strokeWidth=0.4))

    def message(self, s: str) -> None:
        x0, y0, x1, y1 = self.rect
        self.drawing.add(text((x0 + x1) / 2, (y0 + y1) / 2, s, 9, "middle", color=AXIS_GREY))


@dataclass(frozen=True)
class LegendEntry:
    label: str
    style: tuple | None = None      # line style (colour, dash, marker)
    fill: object | None = None      # or a filled box
    line: bool = True               # False: the marker alone (a single point, a ring)


class ChartDrawing(Drawing):
    """A chart's drawing that keeps, in its final coordinates, the rectangle of its plot area
    (``plot_rect``) and of its legend (``legend_box``), so a test can check that the legend
    never covers the curves."""

    _attrMap = AttrMap(BASE=Drawing, plot_rect=AttrMapValue(isAnything),
                       legend_box=AttrMapValue(isAnything))


class LegendLabel(Group):
    """One legend entry's sample and text; ``label`` is the whole text it stands for."""

    _attrMap = AttrMap(BASE=Group, label=AttrMapValue(isString))


LEGEND_SAMPLE = 22.0          # length of an entry's line sample, before its text
LEGEND_GAP = 5.0              # between entries
LEGEND_BELOW_GAP = 6.0        # between the x-axis title and a legend below the plot


def _legend_lines(entries: Sequence[LegendEntry], width: float, size: float
                  ) -> list[list[str]]:
    return [wrap(e.label, width - LEGEND_SAMPLE - 6, size) for e in entries]


def _lines_height(lines: list[str], size: float) -> float:
    return len(lines) * (size + 1.5)


def _draw_entries(entries: Sequence[LegendEntry], lines: Sequence[list[str]], x: float,
                  y_top: float, size: float) -> tuple[Group, float]:
    """The entries in one column from ``y_top`` down; returns them and their lowest y."""
    g = Group()
    y = y_top
    for e, text_lines in zip(entries, lines, strict=True):
        item = LegendLabel()
        item.label = e.label
        mid = y - size * 0.35
        if e.fill is not None:
            item.add(Rect(x, mid - 4, LEGEND_SAMPLE, 8, fillColor=e.fill,
                          strokeColor=AXIS_GREY, strokeWidth=0.4))
        elif e.style is not None:
            if e.line:
                item.add(polyline([x, mid, x + LEGEND_SAMPLE, mid], e.style, 1.2))
            item.add(marker(e.style[2], x + LEGEND_SAMPLE / 2, mid, e.style[0]))
        for i, line in enumerate(text_lines):
            item.add(text(x + LEGEND_SAMPLE + 6, y - size * 0.7 - i * (size + 1.5), line,
                          size))
        g.add(item)
        y -= _lines_height(text_lines, size) + LEGEND_GAP
    return g, y + LEGEND_GAP


def legend(d: Drawing, entries: Sequence[LegendEntry], x: float, y_top: float,
           width: float, size: float = 7.2, plot_rect: Rect4 | None = None) -> Rect4:
    """The chart's legend, outside the plot area so it never covers a curve, every entry
    with its whole text (wrapped, never cut: issue 21) and its line, marker or fill.

    It stands in one column at the right of the plot, from ``x`` and ``y_top`` in ``width``
    points, when it fits there above the drawing's bottom edge; otherwise it goes below the
    plot in two columns across the drawing's width, and the drawing grows by its height
    (everything drawn so far moves up). Returns the legend's box in the drawing's final
    coordinates; a :class:`ChartDrawing` also keeps it and the moved ``plot_rect``."""
    if not entries:
        box = (x, y_top, x, y_top)
    else:
        lines = _legend_lines(entries, width, size)
        group, bottom = _draw_entries(entries, lines, x, y_top, size)
        if bottom >= 2.0:
            d.add(group)
            box = (x, bottom, d.width, y_top)
        else:
            box, shift = _legend_below(d, entries, size)
            if plot_rect is not None:
                plot_rect = _moved(plot_rect, shift)
    if isinstance(d, ChartDrawing):
        d.legend_box = box
        if plot_rect is not None:
            d.plot_rect = plot_rect
    return box


def _moved(rect: Rect4, dy: float) -> Rect4:
    return (rect[0], rect[1] + dy, rect[2], rect[3] + dy)


def _legend_below(d: Drawing, entries: Sequence[LegendEntry], size: float
                  ) -> tuple[Rect4, float]:
    """Two columns under the plot (entries in order, down the first column, then the second),
    the drawing made taller by their height. Returns the legend's box and how far the rest
    moved up."""
    left = 8.0
    col_w = (d.width - left) / 2
    lines = _legend_lines(entries, col_w - 8, size)
    heights = [_lines_height(t, size) + LEGEND_GAP for t in lines]
    total = sum(heights)
    split, run = len(entries), 0.0
    for i, h in enumerate(heights):     # first column: entries up to about half the height
        if run + h / 2 > total / 2 and i > 0:
            split = i
            break
        run += h
    columns = [(0, split), (split, len(entries))]
    height = max(sum(heights[a:b]) for a, b in columns) - LEGEND_GAP
    shift = height + LEGEND_BELOW_GAP + 2.0
    moved = Group(*d.contents)
    moved.translate(0, shift)
    d.contents = [moved]
    d.height += shift
    top = height + 2.0
    for c, (a, b) in enumerate(columns):
        if b > a:
            group, _ = _draw_entries(entries[a:b], lines[a:b], left + c * col_w, top, size)
            d.add(group)
    return (left, 2.0, d.width, top), shift


def finite_pair(ci) -> bool:
    return (isinstance(ci, (list, tuple)) and len(ci) == 2
            and all(is_finite(c) for c in ci))


def padded_range(values: list[float], lo_floor: float | None, hi_cap: float | None,
           extra: float = 0.04) -> tuple[float, float]:
    """An axis range covering ``values`` on a 1-2-5 grid, padded a little at both ends so
    points on the edge (an AUC of 1, a TPR of 100 %) keep their markers and labels inside."""
    lo, hi = min(values), max(values)
    if hi - lo < 1e-9:
        lo, hi = lo - 0.05, hi + 0.05
    step = nice_step((hi - lo) / 5)
    lo = math.floor(lo / step + 1e-9) * step
    hi = math.ceil(hi / step - 1e-9) * step
    if lo_floor is not None:
        lo = max(lo, lo_floor)
    if hi_cap is not None:
        hi = min(hi, hi_cap)
    pad = extra * (hi - lo)
    return lo - pad, hi + pad


def place_labels(points: Sequence[tuple[float, float, str]], occupied: list[Rect4],
                 bounds: Rect4, size: float = 6.5,
                 radii: Sequence[float] = (4.5, 10.0, 18.0, 28.0, 40.0, 54.0)
                 ) -> list[tuple[float, float, Rect4] | None]:
    """:func:`engine.plots.series.place_labels` (the screen's layout too) for texts in this
    module's font: per (x, y, text), the text's start (x, baseline y) and its box, or None
    when no spot is free; ``occupied`` grows with every placed box."""
    h = size * 0.95
    boxes = place_free([(px, py, text_width(s, size), h) for px, py, s in points], occupied,
                       bounds, radii)
    return [None if box is None else (box[0], box[1] + 0.18 * size, box)
            for box in boxes]

