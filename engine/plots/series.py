"""The plot series of a result: what every chart shows, once for the screen and the report.

Issue 19 item 4 and issue 21 ("the same series and colours on screen and in the PDF"): the
pyqtgraph widgets of the GUI and the reportlab charts of the report both draw from these
functions, so a curve's points, its 95 % interval, its legend words, its colour, dash and
marker, and whether it is shown by default are decided here and nowhere else:

* :func:`roc_series` — the ROC chart: the region (ε, δ)-DP allows (paper 002 Thm 1), each
  attack's pointwise band (only the strongest attack's shown by default,
  :func:`engine.headline.banded_attack`), the random-guess diagonal, the worst case ε0-DP
  composed k times allows (Kairouz–Oh–Viswanath), the exact optimal attacker, the model
  audit's accuracy-only bound (paper 001 Thm 2) and the measured attacks.
* :func:`sweep_series` — the mechanism audit's what-if sweep (exact theory).
* :func:`count_sweep_series` — the count-tables audit's measured sweeps over the share of
  counts released and over the noise (paper 003 Fig. 6, 8), via
  :func:`measured_sweep_series`.
* :func:`observations_series` — the location audit's accuracy against the target's number of
  observations k (paper 000 Fig. 13/14), each measured point with its interval, and
  :func:`observations_note`, the sentence a point above "most that ε-DP allows" needs, from
  :func:`dp_bound_check`, the family-wise test of every point against that bound, and
  :func:`dp_bound_warning`, the warning a point that survives it gives (issue 32 item 5).
* :func:`tradeoff_series` — a model's defences: test accuracy against the strongest attack,
  one curve per defence (paper 004), the undefended model, the limit and the recommendation;
  :func:`tradeoff_ranges` ranges the axes to the data with the limit in view and finds where
  settings crowd (:func:`tradeoff_crowd`).
* :func:`place_labels` — the collision-avoiding label layout both media use.

Nothing here draws; colours are RGB(A) 0–255 tuples and dash patterns are in points, which
each medium converts. Qt-free and reportlab-free (ARCHITECTURE §7).
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, replace

from engine.headline import banded_attack
from engine.numbers import is_finite
from engine.results.blocks import AttackEntry, BttaBound, DpRegion, DpTheory, theory_block
from engine.results.loaded import load_result
from engine.results.mechanism import MechanismSweep
from engine.wording import attack_words

RGB = tuple[int, int, int]
RGBA = tuple[int, int, int, int]


@dataclass(frozen=True)
class Style:
    """How a series looks: colour, dash pattern (on/off lengths in points; None = solid),
    marker (circle, square, triangle, diamond, cross, star, ring or None) and line width in
    points. The report is printed in black and white, so attacks differ by dash and marker too."""

    color: RGB
    dash: tuple[float, ...] | None = None
    marker: str | None = None
    width: float = 1.2


@dataclass(frozen=True)
class Curve:
    """One line or set of points: ``x``/``y`` (finite points only, in the order drawn),
    optional per-point 95 % intervals ``lower``/``upper`` (None where none is known), its
    legend words and style. ``key`` names it for the code ("attack:btta", "optimal"…)."""

    key: str
    label: str
    x: tuple[float, ...]
    y: tuple[float, ...]
    style: Style
    lower: tuple[float | None, ...] | None = None
    upper: tuple[float | None, ...] | None = None
    shown: bool = True
    point_labels: tuple[str, ...] | None = None
    point_ids: tuple[int, ...] | None = None
    x_lower: tuple[float | None, ...] | None = None     # intervals along x (defences' risk)
    x_upper: tuple[float | None, ...] | None = None


@dataclass(frozen=True)
class Band:
    """A filled area between ``lower`` and ``upper`` over ``x``: the DP region (lower 0) or an
    attack's pointwise confidence band. ``shown`` is the default; ``of`` the curve it belongs
    to."""

    key: str
    label: str
    x: tuple[float, ...]
    lower: tuple[float, ...]
    upper: tuple[float, ...]
    fill: RGBA
    shown: bool = True
    of: str = ""


# ------------------------------------------------------------------------------ palette

# One hue per attack (never red or orange: those are theory's), each with its own dash and
# marker; dark enough to print as near-black and to read on screen.
ATTACK_STYLES: tuple[Style, ...] = (
    Style((21, 101, 192), (5, 2, 1, 2), "circle"),
    Style((106, 27, 154), (2, 2), "square"),
    Style((0, 121, 107), (8, 3), "triangle"),
    Style((93, 64, 55), (6, 2, 1, 2, 1, 2), "diamond"),
    Style((0, 131, 143), (1, 1.5), "cross"),
    Style((194, 24, 91), (4, 2), "circle"),
    Style((85, 139, 47), (3, 1, 1, 1), "square"),
    Style((69, 90, 100), (9, 2, 2, 2), "triangle"),
)
OPTIMAL_STYLE = Style((183, 28, 28), None, None, 1.6)
WORST_STYLE = Style((230, 120, 0), (7, 3), None, 1.2)
DIAGONAL_STYLE = Style((120, 120, 120), (1, 2), None, 0.9)
BOUND_STYLE = Style((183, 28, 28), (4, 2), None, 1.6)        # the model audit's Thm 2 bound
DP_BOUND_STYLE = WORST_STYLE          # most ε-DP allows (location): the same worst case
REGION_FILL: RGBA = (76, 175, 80, 60)
BAND_ALPHA = 50
SWEEP_STYLES = {
    "accuracy": Style((21, 101, 192), None, "circle", 1.3),
    "auc": Style((0, 121, 107), (6, 2), "square", 1.3),
    "tpr_at_fpr": Style((183, 28, 28), (4, 2, 1, 2), "triangle", 1.3),
}
DEFENCE_ORDER = ("kcd", "dmp", "l2", "early_stopping", "dp_sgd")
DEFENCE_TITLES = {"kcd": "KCD (knowledge cross-distillation)",
                  "dmp": "DMP (distillation on reference data)", "l2": "L2 weight decay",
                  "early_stopping": "Early stopping", "dp_sgd": "DP-SGD"}
UNDEFENDED_LABEL = "No defence (the model as audited)"
RECOMMENDED_LABEL = "Recommended setting (ringed)"
UNDEFENDED_STYLE = Style((183, 28, 28), None, "star", 1.2)
RECOMMENDED_STYLE = Style((255, 160, 0), None, "ring", 1.4)
LIMIT_STYLE = Style((46, 125, 50), (6, 2), None, 1.3)
LIMIT_FILL: RGBA = (76, 175, 80, 40)
WHISKER_COLOR: RGB = (158, 158, 158)      # a point's 95 % interval: faint, under the markers


def attack_style(index: int) -> Style:
    return ATTACK_STYLES[index % len(ATTACK_STYLES)]


def band_fill(style: Style) -> RGBA:
    return (*style.color, BAND_ALPHA)


# ------------------------------------------------------------------------------ helpers

def number_or_none(v) -> float | None:
    """``v`` as a float when it is a finite number (engine.numbers.is_finite), else None."""
    return float(v) if is_finite(v) else None


def finite_points(block: Mapping | None, xkey: str = "fpr", ykey: str = "tpr"
                  ) -> tuple[tuple[float, ...], tuple[float, ...]]:
    """The (x, y) pairs of ``block`` (a curve as stored: a table of two lists, such as an
    attack's ``roc`` or its band) where both are finite numbers, in stored order."""
    if not isinstance(block, Mapping):
        return (), ()
    return finite_pairs(block.get(xkey) or [], block.get(ykey) or [])


def finite_pairs(xs, ys) -> tuple[tuple[float, ...], tuple[float, ...]]:
    """The (x, y) pairs of two sequences where both are finite numbers, in stored order."""
    if not isinstance(xs, (list, tuple)) or not isinstance(ys, (list, tuple)):
        return (), ()
    pairs = [(number_or_none(a), number_or_none(b)) for a, b in zip(xs, ys, strict=False)]
    pairs = [(a, b) for a, b in pairs if a is not None and b is not None]
    return tuple(a for a, _ in pairs), tuple(b for _, b in pairs)


def short_label(label: str) -> str:
    """An attack label without its citation in parentheses."""
    return label.split(" (")[0] if " (" in label else label


def attack_label(attack: AttackEntry | Mapping) -> str:
    """An attack's name in a chart: its plain name where the catalogue knows it (issue 20:
    the same name as the tables beside the chart), else its label. ``attack``: a typed entry
    (or a table with its name and label, as the count-table sweeps pass)."""
    if isinstance(attack, AttackEntry):
        name, label = attack.name, attack.label
    else:
        name, label = attack.get("name"), attack.get("label")
    words = attack_words(name, label)
    if words.description:
        return words.plain_name
    return str(label or name or "attack")


def legend_name(label: str) -> str:
    """An attack's name in a legend, on screen and in the report alike: its label up to the
    citation in parentheses or the first colon ("Data-only guess", "LiRA online, global
    variance"); the tables and the hover text keep the whole label."""
    text = short_label(label)
    return text.split(": ")[0] if ": " in text else text


def number_words(v: float) -> str:
    """ε or δ as a reader writes it: 4, 0.5, 10⁻⁵."""
    if v == 0:
        return "0"
    e = math.log10(abs(v))
    if v < 1e-3 and abs(e - round(e)) < 1e-9:
        return "10" + str(int(round(e))).translate(str.maketrans("-0123456789", "⁻⁰¹²³⁴⁵⁶⁷⁸⁹"))
    return f"{v:.3g}"


def percent_tick(v: float) -> str:
    """A tick of a percent axis, on screen and in print alike: 0.5%, 2.5%, 20%."""
    p = 100.0 * v
    if abs(p) < 1e-9:
        return "0%"
    return f"{p:.3g}%"


def worst_case_label(theory) -> str:
    """What ε0 is per and what it is composed over (observations in the mechanism audit, the
    target's epochs in the location audit). ``theory``: typed (the location theory has
    ``epsilon_per_epoch``) or its dict."""
    per_epoch = ("epsilon_per_epoch" in theory if isinstance(theory, Mapping)
                 else getattr(theory, "epsilon_per_epoch", None) is not None
                 or "epsilon_per_epoch" in (getattr(theory, "raw", None) or {}))
    if per_epoch:
        return "Worst case allowed by the claimed ε per hour (composed over the target's hours)"
    return "Worst case allowed by the claimed ε per observation (composed over k)"


# ------------------------------------------------------------------------------ ROC

BOUND_LABEL = "Best attack knowing only the train/test accuracy (paper 001 Thm 2)"


def band_label(attack: AttackEntry | Mapping, strongest: bool) -> str:
    """The legend words of an attack's shaded band, the same on screen and in print."""
    who = "the strongest attack, " if strongest else ""
    return f"95% confidence band of {who}{legend_name(attack_label(attack))} (pointwise)"


LOG_BAND_WORDS = " (pointwise, drawn where it lies above 0)"


def interval_label(attack: AttackEntry | Mapping, fpr: float) -> str:
    """The legend words of an attack's error bar at the policy's false-positive rate: the
    TPR and 95 % interval the tables quote at that rate."""
    return (f"{legend_name(attack_label(attack))} at {rate_words(fpr)} false positives "
            "(95% interval)")


def policy_interval(attack: AttackEntry, fpr: float, style: Style, shown: bool
                    ) -> Curve | None:
    """The attack's measured TPR at the policy's false-positive rate ``fpr`` with its 95 %
    interval (``tpr_at_fpr``, :func:`engine.metrics.tpr_at_fpr`) as a one-point curve with
    an error bar, or None when the tables call it not measurable at this size (an interval
    of 0 %–100 % says nothing a bar could show)."""
    row = attack.tpr_at(fpr)
    if row is None or not row.measurable:
        return None
    tpr = number_or_none(row.tpr)
    ci = row.tpr_ci
    lo, hi = (number_or_none(ci[0]), number_or_none(ci[1])) if ci is not None else (None, None)
    if tpr is None or lo is None or hi is None:
        return None
    return Curve(f"interval:{attack.name}", interval_label(attack, fpr), (float(fpr),),
                 (tpr,), style, (lo,), (hi,), shown)


def result_policy_fpr(result) -> float:
    """The verdict policy's false-positive rate (1 % when the result does not say)."""
    fpr = load_result(result).policy_fpr
    return fpr if 0 < fpr < 1 else 0.01


def _theory_part(theory, name: str, read):
    """``theory.<name>`` typed: the audit's typed theory's attribute (``read`` types it when
    the audit left it a table), or ``read`` of the key of a theory still held as a dict (a
    placeholder's ``raw``) during the issue 33 migration; None when there is none."""
    if not isinstance(theory, Mapping):
        if hasattr(theory, name):
            value = getattr(theory, name)
            return read(value) if isinstance(value, Mapping) else value
        theory = getattr(theory, "raw", None)
    return read(theory.get(name)) if isinstance(theory, Mapping) else None


def _btta(d) -> BttaBound | None:
    """The model audit's bound read from a table (None when damaged: no curve)."""
    return theory_block({"btta_bound": d}, "btta_bound", BttaBound)


@dataclass(frozen=True)
class RocSeries:
    """Everything a ROC chart of one result shows, bottom layer first (:func:`roc_series`)."""

    region: Band | None
    bands: tuple[Band, ...]
    diagonal: Curve
    references: tuple[Curve, ...]       # worst case ε0-DP, optimal attacker, Thm 2 bound
    attacks: tuple[Curve, ...]
    banded: str | None = None           # the attack whose band is shown by default
    floor: float | None = None          # log-log axes: their smallest value; None: linear
    # Each attack's TPR at the policy's false-positive rate with its 95 % interval, drawn as
    # an error bar (issue 32 item 8); ``shown`` as its attack's band.
    intervals: tuple[Curve, ...] = ()

    def curves(self) -> tuple[Curve, ...]:
        """Every line, in drawing order (the legend lists them in this order)."""
        return (self.diagonal, *self.references, *self.attacks)


def roc_series(result, log: bool = False) -> RocSeries:
    """The ROC layers of ``result`` (a loaded result or its dict; module docstring); with
    ``log``, the points as log-log axes draw them (:func:`log_roc`)."""
    r = load_result(result)
    if log:
        return log_roc(roc_series(r), roc_log_floor(r))
    theory = r.theory
    attacks = r.attacks
    region = None
    rb = _theory_part(theory, "dp_region", DpRegion.from_dict)
    rx, ry = finite_pairs(list(rb.fpr), list(rb.tpr_upper)) if rb is not None else ((), ())
    if len(rx) >= 2:
        eps, delta = number_or_none(rb.epsilon), number_or_none(rb.delta)
        words = (f"ε = {number_words(eps)}, δ = {number_words(delta or 0.0)}"
                 if eps is not None else "ε, δ")
        region = Band("dp_region", f"Allowed by ({words})-DP: an attack must stay in the "
                      "shaded area", rx, tuple(0.0 for _ in rx), ry, REGION_FILL)

    banded = banded_attack(r)
    fpr = result_policy_fpr(r)
    bands, curves, intervals = [], [], []
    for i, a in enumerate(attacks):
        style = attack_style(i)
        key = f"attack:{a.name}"
        bar = policy_interval(a, fpr, style, a.name == banded)
        if bar is not None:
            intervals.append(bar)
        band = a.roc_band
        bx, lo = finite_points(band, "fpr", "tpr_lower")
        bx2, hi = finite_points(band, "fpr", "tpr_upper")
        if len(bx) >= 2 and bx == bx2:
            bands.append(Band(f"band:{a.name}", band_label(a, a.name == banded),
                              bx, lo, hi, band_fill(style), a.name == banded, key))
        x, y = finite_points(a.roc)
        curves.append(Curve(key, legend_name(attack_label(a)), x, y, style))

    refs = []
    dp = DpTheory.of(theory) if theory is not None else DpTheory()
    worst, opt = dp.worst_case_dp, dp.optimal_attacker
    x, y = finite_points(worst.roc) if worst is not None else ((), ())
    if len(x) >= 2:
        refs.append(Curve("worst_case", worst_case_label(theory), x, y, WORST_STYLE))
    x, y = finite_points(opt.roc) if opt is not None else ((), ())
    if len(x) >= 2:
        refs.append(Curve("optimal", "Best possible attacker (exact theory)", x, y, OPTIMAL_STYLE))
    bound = _theory_part(theory, "btta_bound", _btta)
    x, y = finite_pairs(*bound.curve) if bound is not None else ((), ())
    if len(x) >= 2:
        refs.append(Curve("btta_bound", BOUND_LABEL, x, y, BOUND_STYLE))
    diagonal = Curve("diagonal", "Random guess", (0.0, 1.0), (0.0, 1.0), DIAGONAL_STYLE)
    return RocSeries(region, tuple(bands), diagonal, tuple(refs), tuple(curves), banded,
                     intervals=tuple(intervals))


# ------------------------------------------------------------------------------ ROC, log-log

LOG_STEP = 1.05         # the largest ratio between neighbouring x of a densified segment


def roc_log_floor(result) -> float:
    """The smallest value of log-log ROC axes: 10⁻⁴, or 1/(number of non-members) if that is
    smaller, rounded down to a decade — below 1/N no FPR other than 0 can be observed."""
    lo = 1e-4
    for a in load_result(result).attacks:
        n = number_or_none(a.n_negative)
        if n is not None and n > 0:
            lo = min(lo, 1.0 / n)
    return 10.0 ** math.floor(math.log10(lo) + 1e-9)


def densify_log(x: Sequence[float], y: Sequence[float]
                ) -> tuple[tuple[float, ...], tuple[float, ...]]:
    """Vertices joined by straight lines (an ROC: randomised tests, paper 002 §3) sampled
    along x geometrically, no two neighbours more than :data:`LOG_STEP` apart, so the
    straight segment keeps its shape where log axes bend it. ``x`` must be > 0."""
    if len(x) < 2:
        return tuple(x), tuple(y)
    out_x, out_y = [x[0]], [y[0]]
    for a, b, ya, yb in zip(x, x[1:], y, y[1:], strict=False):
        steps = math.ceil(math.log(b / a) / math.log(LOG_STEP) - 1e-9) if b > a else 1
        for i in range(1, max(steps, 1)):
            xi = a * (b / a) ** (i / steps)
            out_x.append(xi)
            out_y.append(ya + (xi - a) / (b - a) * (yb - ya))
        out_x.append(b)
        out_y.append(yb)
    return tuple(out_x), tuple(out_y)


def measured_on_log(curve: Curve) -> Curve:
    """A measured ROC on log-log axes: from its first vertex with FPR > 0 (and TPR > 0).

    Below 1/N negatives no FPR but 0 is observed, so the straight line from (0, 0) to that
    vertex says nothing the data show; on log axes it would bend into a curve diving to the
    axis corner and make a strong attack look weak at low FPR (Carlini et al. 2022 plot only
    the measured vertices)."""
    pts = [(a, b) for a, b in zip(curve.x, curve.y, strict=True) if a > 0 and b > 0]
    x, y = densify_log([a for a, _ in pts], [b for _, b in pts])
    return replace(curve, x=x, y=y)


def from_floor(x: Sequence[float], y: Sequence[float], floor: float
               ) -> tuple[tuple[float, ...], tuple[float, ...]]:
    """An exact theory curve (vertices joined by straight lines, x increasing) on log axes:
    its value at the axes' ``floor``, then its vertices above it, densified — theory holds at
    every FPR, so it is drawn from the axes' edge."""
    pts = list(zip(x, y, strict=True))
    below = [p for p in pts if p[0] <= floor]
    above = [p for p in pts if p[0] > floor]
    start = []
    if below and above:
        (a, ya), (b, yb) = below[-1], above[0]
        start = [(floor, ya + (floor - a) / (b - a) * (yb - ya))]
    kept = [p for p in start + above if p[1] > 0]
    return densify_log([a for a, _ in kept], [b for _, b in kept])


def band_on_log(band: Band, curve: Curve | None, floor: float) -> Band:
    """An attack's pointwise band as log-log axes draw it (issue 32 item 8): only over the FPRs
    where its curve has measured points (from the curve's first vertex with FPR > 0, never
    below 1/N where nothing but FPR 0 is observed) and only where its lower end is above the
    axes' floor.

    A lower end of 0 has no place on a log axis: drawn at the floor, as before, it filled
    everything from the curve down to the axes' corner and, over the decades of FPR where the
    attack has no point at all, the whole height of the plot — 80–90 % of the count-table
    sample's plot, hiding the curves. What the trials say at a low FPR is the TPR interval the
    tables quote, drawn as an error bar at the policy's false-positive rate
    (:func:`policy_interval`)."""
    start = curve.x[0] if curve is not None and curve.x else None
    end = curve.x[-1] if curve is not None and curve.x else None
    pts = [(a, lo, hi) for a, lo, hi in zip(band.x, band.lower, band.upper, strict=True)
           if start is not None and start * (1 - 1e-9) <= a <= end * (1 + 1e-9)]
    # One piece: the points after the last whose lower end is 0 (the lower end grows with the
    # FPR), so the filled polygon never bridges a stretch where the band is not drawn.
    low = [i for i, (_, lo, hi) in enumerate(pts) if not (lo > floor and hi > lo)]
    kept = pts[low[-1] + 1:] if low else pts
    label = band.label.replace(" (pointwise)", LOG_BAND_WORDS)
    return replace(band, label=label, x=tuple(p[0] for p in kept),
                   lower=tuple(p[1] for p in kept), upper=tuple(p[2] for p in kept))


def log_roc(roc: RocSeries, floor: float) -> RocSeries:
    """The ROC layers as log-log axes from ``floor`` to 1 draw them, the same on screen and in
    the report (issue 19 item 4): measured attacks from their first vertex with FPR > 0
    (:func:`measured_on_log`); the DP region and the theory curves from the floor
    (:func:`from_floor`), the region down to the floor; a band only where its attack has
    measured points and its lower end is above 0 (:func:`band_on_log`); an error bar's lower
    end of 0 at the floor (it runs off the axis: "cannot rule out 0"); the diagonal from
    (floor, floor)."""
    region = None
    if roc.region is not None:
        rx, ry = from_floor(roc.region.x, roc.region.upper, floor)
        if len(rx) >= 2:
            region = replace(roc.region, x=rx, lower=tuple(floor for _ in rx), upper=ry)
    attacks = tuple(measured_on_log(c) for c in roc.attacks)
    by_key = {c.key: c for c in attacks}
    bands = tuple(band_on_log(band, by_key.get(band.of), floor) for band in roc.bands)
    intervals = tuple(replace(c, lower=tuple(max(v, floor) for v in c.lower))
                      for c in roc.intervals if c.upper and c.upper[0] > floor)
    refs = tuple(replace(c, x=fx, y=fy) for c in roc.references
                 for fx, fy in [from_floor(c.x, c.y, floor)])
    diagonal = replace(roc.diagonal, x=(floor, 1.0), y=(floor, 1.0))
    return replace(roc, region=region, bands=bands, diagonal=diagonal, references=refs,
                   attacks=attacks, floor=floor, intervals=intervals)


# ------------------------------------------------------------------------------ what-if sweep

def rate_words(rate: float) -> str:
    """A false-alarm rate in a legend, the same on screen and in print: "1 %", "0.1 %"."""
    return f"{100 * rate:.3g} %"


# The what-if sweep's rates on screen and in print: balanced accuracy and TPR read in % on
# every page, so its y axis is in %; the AUC (0–1 elsewhere) shares it, ×100 (issue 32 item 8).
SWEEP_PERCENT_WORDS = " (%; AUC × 100)"


def sweep_series(result) -> tuple[Curve, ...]:
    """The mechanism audit's sweep (``theory.sweep``, engine.results.mechanism.MechanismSweep):
    the optimal attacker's balanced accuracy, AUC and TPR at the policy FPR against the swept
    value, sorted by it."""
    sweep = getattr(load_result(result).theory, "sweep", None)
    if not isinstance(sweep, MechanismSweep):
        return ()
    fpr = number_or_none(sweep.fpr)
    names = (("accuracy", "Balanced accuracy"), ("auc", "AUC"),
             ("tpr_at_fpr", f"TPR at {rate_words(fpr)} FPR" if fpr is not None
              else "TPR at low FPR"))
    out = []
    for key, label in names:
        x, y = finite_pairs(list(sweep.values), list(getattr(sweep, key)))
        if not x:
            continue
        order = sorted(range(len(x)), key=lambda i: x[i])
        out.append(Curve(f"sweep:{key}", label, tuple(x[i] for i in order),
                         tuple(y[i] for i in order), SWEEP_STYLES[key]))
    return tuple(out)


# ------------------------------------------------------------------------------ guide lines

CHANCE_LABEL = "Random guess"
CHANCE_STYLE = Style((115, 115, 115), (1, 2), None, 0.9)     # the report's axis grey
CURRENT_STYLE = Style((0, 0, 0), (3, 2), None, 0.8)
LOG_SPAN = 20.0         # a swept axis is logarithmic when its values span this factor or more
LOG_WORDS = ", log scale"       # added to an axis title when, and only when, it is log


@dataclass(frozen=True)
class Guide:
    """A straight reference line across a chart: ``value`` on the y axis (``vertical``
    False: the random-guess level) or on the x axis (True: the audited setting), its legend
    words ``label``, the words written beside it on the plot ``note`` and its style."""

    key: str
    label: str
    value: float
    vertical: bool
    style: Style
    note: str = ""


def log_axis(values: Sequence) -> bool:
    """Whether a swept axis is logarithmic, on screen and in print alike: when every value is
    > 0 and they span :data:`LOG_SPAN` times or more (0.5–1 is linear; 1–100 is not)."""
    xs = [number_or_none(v) for v in values]
    xs = [v for v in xs if v is not None]
    return len(xs) >= 2 and min(xs) > 0 and max(xs) / min(xs) >= LOG_SPAN


def chance_guide(level: float = 0.5) -> Guide:
    return Guide("chance", CHANCE_LABEL, level, False, CHANCE_STYLE)


def nice_step(raw: float) -> float:
    """A 1-2-2.5-5 step at least ``raw``: the one tick step of the screen's and the report's
    axes (engine.report.plotkit had a twin; issue 33 item 2)."""
    raw = float(raw)
    if not is_finite(raw) or raw <= 0:
        return 1.0
    mag = 10 ** math.floor(math.log10(raw))
    for m in (1, 2, 2.5, 5, 10):
        if raw <= m * mag:
            return m * mag
    return 10 * mag


# ------------------------------------------------------------------------------ labels

Box = tuple[float, float, float, float]     # x0, y0, x1, y1 with y growing upwards


def overlaps(a: Box, b: Box, gap: float = 0.8) -> bool:
    return not (a[2] + gap <= b[0] or b[2] + gap <= a[0] or a[3] + gap <= b[1]
                or b[3] + gap <= a[1])


def place_labels(points: Sequence[tuple[float, float, float, float]], occupied: list[Box],
                 bounds: Box, radii: Sequence[float] = (4.5, 10.0, 18.0, 28.0, 40.0, 54.0)
                 ) -> list[Box | None]:
    """Greedy label placement: for each (x, y, width, height) in priority order — a point and
    its label's size, in one medium's units with y growing upwards — the nearest free spot
    around the point (eight directions, growing distance) that stays inside ``bounds`` and
    overlaps no box in ``occupied`` (markers, earlier labels). Returns, per label, its box or
    None when no spot is free (the caller leaves it out; hovering or the table names it);
    ``occupied`` grows with every placed box. Far spots get a leader line from the caller."""
    dirs = ((1, 0), (-1, 0), (0, 1), (0, -1), (1, 1), (-1, 1), (1, -1), (-1, -1))
    out: list[Box | None] = []
    bx0, by0, bx1, by1 = bounds
    for px, py, w, h in points:
        found = None
        for r in radii:
            for dx, dy in dirs:
                ax, ay = px + dx * r, py + dy * r
                left = ax if dx > 0 else ax - w if dx < 0 else ax - w / 2
                bottom = ay + 0.5 if dy > 0 else ay - h - 0.5 if dy < 0 else ay - h / 2
                box = (left, bottom, left + w, bottom + h)
                if box[0] < bx0 or box[2] > bx1 or box[1] < by0 or box[3] > by1:
                    continue
                if any(overlaps(box, o) for o in occupied):
                    continue
                found = box
                break
            if found:
                break
        if found:
            occupied.append(found)
        out.append(found)
    return out
