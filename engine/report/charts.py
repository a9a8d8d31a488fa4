"""Vector charts of the report, drawn with reportlab.graphics (no matplotlib, no Qt).

* :func:`roc_chart` — the ROC of every attack we ran against what DP theory says: the exact
  optimal attacker (Neyman–Pearson, ARCHITECTURE §6), the worst case any ε0-DP mechanism
  composed k times allows (Kairouz–Oh–Viswanath), and the region the composed (ε, δ)
  guarantee permits (paper 002 Thm 1: TPR ≤ e^ε·FPR + δ and TNR ≤ e^ε·FNR + δ).
  The log-log version is the one that matters for privacy: an attack that is confident about a
  few people shows up only at low FPR (Carlini et al. 2022; paper 003 reports TPR at low FPR).
* :func:`sweep_chart` — the optimal attacker's accuracy, AUC and TPR at the policy FPR as one
  parameter (ε per observation or number of observations k) varies.
* :func:`observations_chart` — location audit (paper 000 Fig. 13/14): measured accuracy of the
  sweep attacks, with interval whiskers, against the target's number of observations k, beside
  the exact optimum and the most ε-DP per epoch allows.
* :func:`attack_sweep_chart` — any measured metric (with interval whiskers) of several attacks
  against one swept setting; the count-tables audit's AUC against m/|D| and against ε (paper
  003 Fig. 6 and 8).
* :func:`tradeoff_chart` — privacy against utility of a model's defences (paper 004): test
  accuracy against the strongest attack's risk, one curve per defence through its settings, the
  undefended model, the user's limit and the recommended setting.

The report is printed and photocopied, so every series differs by dash pattern *and* marker,
not only by colour. The drawing pieces (axes, clipping, text, markers, legends) are
:mod:`engine.report.plotkit`; what each chart shows — its series, labels, colours and which
layers are shown — comes from :mod:`engine.plots.series`, which the GUI's plots draw from too.
"""

from __future__ import annotations

import dataclasses
import math
from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np
from reportlab.graphics.shapes import Drawing, Line, Rect
from reportlab.lib import colors
from reportlab.lib.attrmap import AttrMap, AttrMapValue
from reportlab.lib.validators import isAnything

from engine.plots import series
from engine.report import styles as st
from engine.report.plotkit import (
    BLACK,
    WIDTH,
    Axis,
    ChartDrawing,
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

ROC_HEIGHT = 280.0
SWEEP_HEIGHT = 250.0


class SeriesDrawing(ChartDrawing):
    """A chart's drawing that keeps the series it drew (``plot_series``), so a test can put it
    beside the screen's."""

    _attrMap = AttrMap(BASE=ChartDrawing, plot_series=AttrMapValue(isAnything),
                       plot_axes=AttrMapValue(isAnything), plot_guides=AttrMapValue(isAnything),
                       plot_log_x=AttrMapValue(isAnything))



def rl_color(rgb, alpha: float | None = None):
    """A series colour (0–255, engine.plots.series) as reportlab's; RGBA keeps its alpha."""
    if len(rgb) == 4 and alpha is None:
        alpha = rgb[3] / 255
    return colors.Color(rgb[0] / 255, rgb[1] / 255, rgb[2] / 255,
                        alpha=1 if alpha is None else alpha)


def rl_style(style: series.Style) -> tuple:
    """A series style as the (colour, dash, marker) triple the plot toolkit draws."""
    return (rl_color(style.color), style.dash, style.marker)


# Series styles from engine.plots.series, so the report and the screen cannot disagree.
# Dark colours print as near-black; the dash pattern and the marker tell them apart in black
# and white.
REGION_FILL = rl_color(series.REGION_FILL)
ATTACK_STYLES = [rl_style(style) for style in series.ATTACK_STYLES]
THEORY_STYLE = rl_style(series.OPTIMAL_STYLE)
WORST_STYLE = rl_style(series.WORST_STYLE)
DIAGONAL_STYLE = rl_style(series.DIAGONAL_STYLE)
BOUND_STYLE = rl_style(series.BOUND_STYLE)     # extra reference lines of roc_chart


# --------------------------------------------------------------------------- the ROC chart

def _xy(block: dict | None, xkey: str = "fpr", ykey: str = "tpr") -> tuple[np.ndarray, ...]:
    x, y = series.finite_points(block, xkey, ykey)
    return np.asarray(x, float), np.asarray(y, float)


short_label = series.short_label
worst_case_label = series.worst_case_label


def roc_chart(result: dict, log_scale: bool, *, title: str | None = None,
              x_title: str | None = None, y_title: str | None = None,
              extra_lines: Sequence[tuple] = (),
              only: Sequence[str] | None = None) -> Drawing:
    """ROC curves of the attacks against the theory curves and the (ε, δ)-DP region.

    What is drawn — points, bands, legend words, colours and which band is shown — is
    :func:`engine.plots.series.roc_series`, which the GUI's ROC plot draws too. Layers, bottom
    to top: DP-permitted region (paper 002 Thm 1), the shown attack bands, random-guess
    diagonal, reference curves (worst case ε0-DP, exact optimal attacker, the model audit's
    Thm 2 bound), attacks. ``title``, ``x_title`` and ``y_title`` replace the membership-game
    wording (the count-tables audit's attribute game ranks values, not people).
    ``extra_lines`` are further reference curves, each ``(legend label, {"fpr": [...],
    "tpr": [...]})`` or ``(label, block, style)``; the default style is the Thm 2 bound's.
    ``only`` names the attacks to draw when a chart has room for fewer than the result holds;
    each keeps the colour and style it has on screen, where every attack is drawn.
    """
    st.register_fonts()
    # On log axes, the points the screen draws too (engine.plots.series.log_roc): measured
    # attacks from their first vertex with FPR > 0, theory from the axes' floor.
    roc = series.roc_series(result, log=log_scale)
    if only is not None:
        keep = {f"attack:{name}" for name in only}
        roc = dataclasses.replace(roc, attacks=tuple(c for c in roc.attacks if c.key in keep),
                                  bands=tuple(b for b in roc.bands if b.of in keep),
                                  intervals=tuple(c for c in roc.intervals
                                                  if "attack:" + c.key.split(":", 1)[1] in keep))
    d = SeriesDrawing(WIDTH, ROC_HEIGHT)
    d.plot_series = roc          # what was drawn (tests compare it with the screen's)
    plot_w = plot_h = ROC_HEIGHT - 56
    lo = roc.floor if log_scale else 0.0
    xa = Axis(lo, 1.0, 48.0, plot_w, log_scale)
    ya = Axis(lo, 1.0, 38.0, plot_h, log_scale)
    d.plot_axes = (xa, ya)
    p = Plot(d, xa, ya)
    p.grid_under(percent=True)
    entries: list[LegendEntry] = []

    if roc.region is not None:
        rx, ry = np.asarray(roc.region.x), np.asarray(roc.region.upper)
        rlo = np.asarray(roc.region.lower)
        # Between the upper edge and the lower one (0, or the log axes' floor).
        fill = rl_color(roc.region.fill)
        p.area(np.r_[rx, rx[::-1]], np.r_[ry, rlo[::-1]], fill)
        entries.append(LegendEntry(roc.region.label, fill=fill))

    # The band of the strongest attack only, as on screen: five overlapping bands on log axes
    # covered nearly the whole plot (issue 21); on log axes only where the attack has
    # measured points and the band lies above 0 (engine.plots.series.band_on_log, issue 32
    # item 8). Fills are drawn before every line, so none covers a curve.
    for band in roc.bands:
        if not band.shown:
            continue
        bx, blo, bhi = np.asarray(band.x), np.asarray(band.lower), np.asarray(band.upper)
        fill = rl_color(band.fill)
        p.area(np.r_[bx, bx[::-1]], np.r_[blo, bhi[::-1]], fill)
        entries.append(LegendEntry(band.label, fill=fill))
    if roc.region is not None:          # the region's edge: a line, so over every fill
        p.curve(np.asarray(roc.region.x), np.asarray(roc.region.upper),
                (rl_color(roc.region.fill[:3]), None, None), 0.6, dense=log_scale)

    diagonal = roc.diagonal
    p.curve(np.asarray(diagonal.x), np.asarray(diagonal.y), rl_style(diagonal.style),
            diagonal.style.width, dense=log_scale)
    lines = [(c, rl_style(c.style)) for c in roc.references]
    for extra in extra_lines:
        x, y = series.finite_points(extra[1])
        if log_scale:           # a theory curve: from the axes' floor, as the others
            x, y = series.from_floor(x, y, lo)
        curve = series.Curve(f"extra:{extra[0]}", str(extra[0]), x, y, series.BOUND_STYLE)
        given = extra[2] if len(extra) > 2 and extra[2] else None   # a reportlab style
        lines.append((curve, given or rl_style(curve.style)))
    for curve, style in lines:
        if len(curve.x) >= 2:
            p.curve(np.asarray(curve.x), np.asarray(curve.y), style, curve.style.width,
                    dense=log_scale)
            entries.append(LegendEntry(curve.label, style))

    for i, curve in enumerate(roc.attacks):
        style = rl_style(curve.style)
        ax_, ay_ = np.asarray(curve.x), np.asarray(curve.y)
        p.curve(ax_, ay_, style, curve.style.width, dense=log_scale)
        p.markers(ax_, ay_, style, i, len(roc.attacks))
        entries.append(LegendEntry(f"{curve.label} (measured)", style))
    for bar in roc.intervals:
        if bar.shown:
            entries.append(_policy_bar(p, bar))
    entries.append(LegendEntry(diagonal.label, rl_style(diagonal.style)))

    if not roc.attacks and not roc.references and not extra_lines:
        p.message("no ROC data")
    p.frame(x_title or "False-positive rate (people absent wrongly flagged)",
            y_title or "True-positive rate (people present found)", percent=True, grid=False)
    if title is None:
        title = ("ROC, log-log axes (low false-alarm region)" if log_scale
                 else "ROC, linear axes")
    d.add(text(xa.start, ROC_HEIGHT - 8, title, 9, bold=True))
    lx = xa.start + plot_w + 16
    legend(d, entries, lx, ya.start + plot_h, WIDTH - lx, plot_rect=p.rect)
    return d


def _policy_bar(p: Plot, bar: series.Curve) -> LegendEntry:
    """An attack's TPR at the policy's false-positive rate with its 95 % interval
    (engine.plots.series.policy_interval), as the screen draws it: a vertical bar with caps
    (none at an end cut by the plot's edge: a lower end of 0 on log axes) and the attack's
    marker at the measured TPR (none below a log axis)."""
    d = p.drawing
    x0, y0, x1, y1 = p.rect
    color, _, kind = rl_style(bar.style)
    px = float(p.x(bar.x[0]))
    raw = (float(p.y(bar.lower[0])), float(p.y(bar.upper[0])))
    lo, hi = (min(max(v, y0), y1) for v in raw)
    if x0 <= px <= x1 and hi - lo > 0.5:
        d.add(Line(px, lo, px, hi, strokeColor=color, strokeWidth=1.1))
        for yy, r in zip((lo, hi), raw, strict=True):
            if abs(yy - r) < 1e-6:
                d.add(Line(px - 3, yy, px + 3, yy, strokeColor=color, strokeWidth=1.1))
    py = float(p.y(bar.y[0]))
    if x0 <= px <= x1 and y0 - 0.5 <= py <= y1 + 0.5:
        d.add(marker(kind, px, py, color))
    return LegendEntry(bar.label, (color, None, kind), line=False)


def _eps_text(eps) -> str:
    return f"ε = {st.fmt_eps(eps)}" if eps is not None else "ε"


# --------------------------------------------------------------------------- the sweep chart

SWEEP_PARAMETER_TITLES = {
    "epsilon": "ε per observation",
    "observations": "Observations per person (k)",
}


def sweep_chart(result: dict) -> Drawing:
    """Optimal attacker vs the swept parameter, current setting marked (a what-if view)."""
    st.register_fonts()
    d = SeriesDrawing(WIDTH, SWEEP_HEIGHT)
    sweep = (result.get("theory") or {}).get("sweep") or {}
    param = str(sweep.get("parameter") or "")
    vals = np.asarray([v if v is not None else np.nan for v in sweep.get("values") or []],
                      float)
    plot_w, plot_h = 300.0, SWEEP_HEIGHT - 60
    finite = vals[np.isfinite(vals)]
    if finite.size >= 2 and finite.min() > 0 and finite.max() / finite.min() >= 20:
        xa = Axis(10 ** math.floor(math.log10(finite.min()) + 1e-9),
                  10 ** math.ceil(math.log10(finite.max()) - 1e-9), 48.0, plot_w, True)
    elif finite.size >= 2 and finite.max() > finite.min():
        xa = Axis(float(finite.min()), float(finite.max()), 48.0, plot_w, False)
    else:
        xa = Axis(0.0, 1.0, 48.0, plot_w, False)
    ya = Axis(0.0, 1.0, 40.0, plot_h, False)
    d.plot_axes = (xa, ya)
    p = Plot(d, xa, ya)
    p.grid_under(percent=False)

    curves = series.sweep_series(result)
    d.plot_series = curves
    entries = []
    marks: list[Rect4] = []
    pieces: list[list[float]] = []
    for slot, curve in enumerate(curves):
        style = rl_style(curve.style)
        if len(curve.x) >= 2:
            pieces += p.curve(np.asarray(curve.x), np.asarray(curve.y), style,
                              curve.style.width)
            marks += p.markers(np.asarray(curve.x), np.asarray(curve.y), style, slot,
                               len(curves), count=5)
        entries.append(LegendEntry(curve.label, style))
    drawn = sum(len(c.x) >= 2 for c in curves)

    cur = sweep.get("current")
    x0, y0, x1, y1 = p.rect
    if isinstance(cur, (int, float)) and math.isfinite(cur):
        cx = float(xa(cur))
        if x0 <= cx <= x1:
            d.add(Line(cx, y0, cx, y1, strokeColor=BLACK, strokeWidth=0.9,
                       strokeDashArray=(3, 2)))
            sym = "ε" if param == "epsilon" else "k"
            label = f"current: {sym} = {st.fmt_num(cur)}"
            # Where no marker covers it (a marker sat on the "1" of "ε = 1").
            tx, ty, anchor, box = p.line_label(cx, label, 7.5, marks, pieces)
            d.add(Rect(box[0], box[1], box[2] - box[0], box[3] - box[1],
                       fillColor=colors.white, strokeColor=None))
            d.add(text(tx, ty, label, 7.5, anchor))
            entries.append(LegendEntry("Current setting", (BLACK, (3, 2), None)))
    if not drawn:
        p.message("no sweep data")
    p.frame(SWEEP_PARAMETER_TITLES.get(param, param or "parameter"),
            "Accuracy and TPR" + series.SWEEP_PERCENT_WORDS, percent=False, grid=False,
            y_percent=True)             # rates in %, as every page writes them
    d.add(text(xa.start, SWEEP_HEIGHT - 8,
               "Best possible attacker (exact theory) as the setting varies", 9,
               bold=True))
    lx = x1 + 16
    legend(d, entries, lx, y1, WIDTH - lx, plot_rect=p.rect)
    return d


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
    theory = result.get("theory") or {}
    sweep = theory.get("sweep") or {}
    ks = np.asarray([v if isinstance(v, (int, float)) else np.nan
                     for v in sweep.get("observations") or []], float)
    finite = ks[np.isfinite(ks) & (ks > 0)]
    plot_w, plot_h = 290.0, OBS_HEIGHT - 62
    # The random-guess level, the audited target and the axis scale: engine.plots.series,
    # which the screen draws too.
    guides = series.observations_guides(result)
    d.plot_guides = guides
    current = next((g.value for g in guides if g.vertical), None)
    span = list(finite) + ([current] if current is not None else [])
    log_x = series.observations_log_x(result)
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

    curves = series.observations_series(result)
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
    :func:`engine.plots.series.count_sweep_series`, which the GUI draws too); without them,
    :func:`engine.plots.series.measured_sweep_series` of ``attacks`` (name → one row per
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
            if isinstance(current, (int, float)) and math.isfinite(current) else ())
    guides = tuple(guides)
    chance_guide = next((g for g in guides if not g.vertical), None)
    current_guide = next((g for g in guides if g.vertical), None)
    chance = chance_guide.value if chance_guide is not None else None
    current = current_guide.value if current_guide is not None else None
    if curves is None:
        curves = series.measured_sweep_series(values, attacks, labels, styles, metric=metric,
                                              ci_key=ci_key)
    d = SeriesDrawing(WIDTH, height)
    d.plot_series = tuple(curves)        # what was drawn (tests compare it with the screen's)
    d.plot_guides = guides
    xs = np.asarray([v if isinstance(v, (int, float)) and not isinstance(v, bool) else np.nan
                     for v in values or []], float)
    finite = list(xs[np.isfinite(xs)]) + [x for c in curves for x in c.x]
    span = finite + ([float(current)] if isinstance(current, (int, float))
                     and math.isfinite(current) else [])
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
