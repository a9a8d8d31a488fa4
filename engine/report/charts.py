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

Split by chart kind (issue 33 item 2): the shared styles are :mod:`charts_base`, the location
chart :mod:`charts_location`, the measured sweeps and histograms :mod:`charts_measured`, the
privacy–utility chart :mod:`charts_tradeoff`; this module draws the ROC and what-if charts
and names the others, so ``from engine.report.charts import …`` keeps working.
"""

from __future__ import annotations

import dataclasses
import math
from collections.abc import Sequence

import numpy as np
from reportlab.graphics.shapes import Drawing, Line, Rect
from reportlab.lib import colors

from engine.numbers import is_finite
from engine.plots import series
from engine.report import styles as st
from engine.report.charts_base import (
    ATTACK_STYLES,
    BOUND_STYLE,
    DIAGONAL_STYLE,
    REGION_FILL,
    THEORY_STYLE,
    WORST_STYLE,
    SeriesDrawing,
    rl_color,
    rl_style,
)
from engine.report.charts_location import OBS_HEIGHT, observations_chart
from engine.report.charts_measured import (
    CHANCE_STYLE,
    HIST_HEIGHT,
    MEASURED_SWEEP_HEIGHT,
    HistogramSeries,
    attack_sweep_chart,
    histogram_chart,
)
from engine.report.charts_tradeoff import (
    LEADER_GREY,
    LIMIT_FILL,
    LIMIT_STYLE,
    RECOMMENDED_STYLE,
    TRADEOFF_HEIGHT,
    TRADEOFF_PLOT_W,
    UNDEFENDED_STYLE,
    TradeoffCurve,
    TradeoffPoint,
    tradeoff_chart,
    tradeoff_crowd,
)
from engine.report.plotkit import (
    BLACK,
    WIDTH,
    Axis,
    LegendEntry,
    Plot,
    Rect4,
    legend,
    marker,
    text,
    text_width,
)
from engine.results.loaded import load_result
from engine.results.mechanism import MechanismSweep

__all__ = [
    "ATTACK_STYLES", "BOUND_STYLE", "CHANCE_STYLE", "DIAGONAL_STYLE", "HIST_HEIGHT",
    "LEADER_GREY", "LIMIT_FILL", "LIMIT_STYLE", "MEASURED_SWEEP_HEIGHT", "OBS_HEIGHT",
    "RECOMMENDED_STYLE", "REGION_FILL", "ROC_HEIGHT", "SWEEP_HEIGHT", "THEORY_STYLE",
    "TRADEOFF_HEIGHT", "TRADEOFF_PLOT_W", "UNDEFENDED_STYLE", "WORST_STYLE", "HistogramSeries",
    "SeriesDrawing", "TradeoffCurve", "TradeoffPoint", "attack_sweep_chart", "histogram_chart",
    "observations_chart", "rl_color", "rl_style", "roc_chart", "short_label", "sweep_chart",
    "text", "text_width", "tradeoff_chart", "tradeoff_crowd", "worst_case_label",
]

ROC_HEIGHT = 280.0
SWEEP_HEIGHT = 250.0


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


def sweep_chart(result) -> Drawing:
    """Optimal attacker vs the swept parameter, current setting marked (a what-if view).
    ``result``: a loaded mechanism result (or its dict); its typed ``theory.sweep``
    (engine.results.mechanism.MechanismSweep)."""
    st.register_fonts()
    d = SeriesDrawing(WIDTH, SWEEP_HEIGHT)
    r = load_result(result)
    sweep = getattr(r.theory, "sweep", None)
    if not isinstance(sweep, MechanismSweep):
        sweep = MechanismSweep()
    param = sweep.parameter or ""
    vals = np.asarray([v if v is not None else np.nan for v in sweep.values], float)
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

    curves = series.sweep_series(r)
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

    cur = sweep.current
    x0, y0, x1, y1 = p.rect
    if is_finite(cur):
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
