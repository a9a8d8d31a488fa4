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
from collections.abc import Sequence
from dataclasses import dataclass, field, replace
from statistics import NormalDist

from engine.headline import banded_attack, tpr_at
from engine.metrics import balanced_accuracy_with_ci
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

def _number(v) -> float | None:
    if isinstance(v, bool) or not isinstance(v, (int, float)):
        return None
    return float(v) if math.isfinite(v) else None


def finite_points(block: dict | None, xkey: str = "fpr", ykey: str = "tpr"
                  ) -> tuple[tuple[float, ...], tuple[float, ...]]:
    """The (x, y) pairs of ``block`` where both are finite numbers, in stored order."""
    if not isinstance(block, dict):
        return (), ()
    xs, ys = block.get(xkey) or [], block.get(ykey) or []
    if not isinstance(xs, (list, tuple)) or not isinstance(ys, (list, tuple)):
        return (), ()
    pairs = [(_number(a), _number(b)) for a, b in zip(xs, ys, strict=False)]
    pairs = [(a, b) for a, b in pairs if a is not None and b is not None]
    return tuple(a for a, _ in pairs), tuple(b for _, b in pairs)


def short_label(label: str) -> str:
    """An attack label without its citation in parentheses."""
    return label.split(" (")[0] if " (" in label else label


def attack_label(attack: dict) -> str:
    """An attack's name in a chart: its plain name where the catalogue knows it (issue 20:
    the same name as the tables beside the chart), else its label."""
    words = attack_words(attack.get("name"), attack.get("label"))
    if words.description:
        return words.plain_name
    return str(attack.get("label") or attack.get("name") or "attack")


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


def worst_case_label(theory: dict) -> str:
    """What ε0 is per and what it is composed over (observations in the mechanism audit, the
    target's epochs in the location audit)."""
    if "epsilon_per_epoch" in theory:
        return "Worst case allowed by the claimed ε per hour (composed over the target's hours)"
    return "Worst case allowed by the claimed ε per observation (composed over k)"


# ------------------------------------------------------------------------------ ROC

BOUND_LABEL = "Best attack knowing only the train/test accuracy (paper 001 Thm 2)"


def band_label(attack: dict, strongest: bool) -> str:
    """The legend words of an attack's shaded band, the same on screen and in print."""
    who = "the strongest attack, " if strongest else ""
    return f"95% confidence band of {who}{legend_name(attack_label(attack))} (pointwise)"


LOG_BAND_WORDS = " (pointwise, drawn where it lies above 0)"


def interval_label(attack: dict, fpr: float) -> str:
    """The legend words of an attack's error bar at the policy's false-positive rate: the
    TPR and 95 % interval the tables quote at that rate."""
    return (f"{legend_name(attack_label(attack))} at {rate_words(fpr)} false positives "
            "(95% interval)")


def policy_interval(attack: dict, fpr: float, style: Style, shown: bool) -> Curve | None:
    """The attack's measured TPR at the policy's false-positive rate ``fpr`` with its 95 %
    interval (``tpr_at_fpr``, :func:`engine.metrics.tpr_at_fpr`) as a one-point curve with
    an error bar, or None when the tables call it not measurable at this size (an interval
    of 0 %–100 % says nothing a bar could show)."""
    row = tpr_at(attack, fpr)
    if not isinstance(row, dict) or not row.get("measurable", True):
        return None
    tpr = _number(row.get("tpr"))
    ci = row.get("tpr_ci")
    lo, hi = ((_number(ci[0]), _number(ci[1])) if isinstance(ci, (list, tuple))
              and len(ci) == 2 else (None, None))
    if tpr is None or lo is None or hi is None:
        return None
    return Curve(f"interval:{attack.get('name')}", interval_label(attack, fpr), (float(fpr),),
                 (tpr,), style, (lo,), (hi,), shown)


def result_policy_fpr(result: dict) -> float:
    """The verdict policy's false-positive rate (1 % when the result does not say)."""
    config = result.get("config") if isinstance(result.get("config"), dict) else {}
    policy = config.get("policy") if isinstance(config.get("policy"), dict) else {}
    fpr = _number(policy.get("fpr"))
    return fpr if fpr is not None and 0 < fpr < 1 else 0.01


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


def roc_series(result: dict, log: bool = False) -> RocSeries:
    """The ROC layers of ``result`` (module docstring); with ``log``, the points as log-log
    axes draw them (:func:`log_roc`)."""
    if log:
        return log_roc(roc_series(result), roc_log_floor(result))
    theory = result.get("theory") if isinstance(result.get("theory"), dict) else {}
    attacks = [a for a in result.get("attacks") or [] if isinstance(a, dict)]
    region = None
    rb = theory.get("dp_region") if isinstance(theory.get("dp_region"), dict) else {}
    rx, ry = finite_points(rb, "fpr", "tpr_upper")
    if len(rx) >= 2:
        eps, delta = _number(rb.get("epsilon")), _number(rb.get("delta"))
        words = (f"ε = {number_words(eps)}, δ = {number_words(delta or 0.0)}"
                 if eps is not None else "ε, δ")
        region = Band("dp_region", f"Allowed by ({words})-DP: an attack must stay in the "
                      "shaded area", rx, tuple(0.0 for _ in rx), ry, REGION_FILL)

    banded = banded_attack({**result, "attacks": attacks})
    fpr = result_policy_fpr(result)
    bands, curves, intervals = [], [], []
    for i, a in enumerate(attacks):
        style = attack_style(i)
        key = f"attack:{a.get('name')}"
        bar = policy_interval(a, fpr, style, a.get("name") == banded)
        if bar is not None:
            intervals.append(bar)
        band = (a.get("details") or {}).get("roc_band") if isinstance(a.get("details"),
                                                                       dict) else None
        bx, lo = finite_points(band, "fpr", "tpr_lower")
        bx2, hi = finite_points(band, "fpr", "tpr_upper")
        if len(bx) >= 2 and bx == bx2:
            bands.append(Band(f"band:{a.get('name')}", band_label(a, a.get("name") == banded),
                              bx, lo, hi, band_fill(style), a.get("name") == banded, key))
        x, y = finite_points(a.get("roc"))
        curves.append(Curve(key, legend_name(attack_label(a)), x, y, style))

    refs = []
    worst = theory.get("worst_case_dp") if isinstance(theory.get("worst_case_dp"), dict) else {}
    x, y = finite_points(worst.get("roc"))
    if len(x) >= 2:
        refs.append(Curve("worst_case", worst_case_label(theory), x, y, WORST_STYLE))
    opt = theory.get("optimal_attacker") if isinstance(theory.get("optimal_attacker"),
                                                       dict) else {}
    x, y = finite_points(opt.get("roc"))
    if len(x) >= 2:
        refs.append(Curve("optimal", "Best possible attacker (exact theory)", x, y, OPTIMAL_STYLE))
    bound = theory.get("btta_bound") if isinstance(theory.get("btta_bound"), dict) else {}
    x, y = finite_points(((bound.get("roc") or {}) if isinstance(bound.get("roc"), dict)
                          else {}).get("curve"))
    if len(x) >= 2:
        refs.append(Curve("btta_bound", BOUND_LABEL, x, y, BOUND_STYLE))
    diagonal = Curve("diagonal", "Random guess", (0.0, 1.0), (0.0, 1.0), DIAGONAL_STYLE)
    return RocSeries(region, tuple(bands), diagonal, tuple(refs), tuple(curves), banded,
                     intervals=tuple(intervals))


# ------------------------------------------------------------------------------ ROC, log-log

LOG_STEP = 1.05         # the largest ratio between neighbouring x of a densified segment


def roc_log_floor(result: dict) -> float:
    """The smallest value of log-log ROC axes: 10⁻⁴, or 1/(number of non-members) if that is
    smaller, rounded down to a decade — below 1/N no FPR other than 0 can be observed."""
    lo = 1e-4
    for a in result.get("attacks") or []:
        n = _number(a.get("n_negative")) if isinstance(a, dict) else None
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


def sweep_series(result: dict) -> tuple[Curve, ...]:
    """The mechanism audit's sweep (``theory.sweep``): the optimal attacker's balanced
    accuracy, AUC and TPR at the policy FPR against the swept value, sorted by it."""
    sweep = (result.get("theory") or {}).get("sweep") or {}
    if not isinstance(sweep, dict):
        return ()
    fpr = _number(sweep.get("fpr"))
    names = (("accuracy", "Balanced accuracy"), ("auc", "AUC"),
             ("tpr_at_fpr", f"TPR at {rate_words(fpr)} FPR" if fpr is not None
              else "TPR at low FPR"))
    out = []
    for key, label in names:
        x, y = finite_points(sweep, "values", key)
        if not x:
            continue
        order = sorted(range(len(x)), key=lambda i: x[i])
        out.append(Curve(f"sweep:{key}", label, tuple(x[i] for i in order),
                         tuple(y[i] for i in order), SWEEP_STYLES[key]))
    return tuple(out)


# ------------------------------------------------------------------------------ count tables

COUNT_SWEEP_KEYS = ("fraction", "noise")
DETERMINED_LABEL = "Targets determined by the tables (share)"
DETERMINED_STYLE = Style((120, 120, 120), (6, 3), "square", 1.1)


def measured_label(label: str) -> str:
    """A measured sweep attack's legend words: its name and what its whiskers are."""
    return f"{legend_name(label)} (measured, 95% interval)"


def measured_sweep_series(values: Sequence, attacks: dict, labels: dict | None = None,
                          styles: dict[str, int] | None = None, *, metric: str = "auc",
                          ci_key: str = "auc_ci") -> tuple[Curve, ...]:
    """A measured ``metric`` of several attacks against one swept setting (paper 003 Fig. 6
    and 8): per attack of ``attacks`` (name → one row per entry of ``values``) a curve
    through its finite points, sorted by the swept value, with each point's 95 % interval
    (``ci_key``). ``styles`` maps an attack to its style index (to match the ROC chart);
    the rest take the next unused one."""
    labels = labels or {}
    index = dict(styles or {})
    out = []
    for name, rows in (attacks or {}).items():
        if not isinstance(rows, (list, tuple)) or not rows:
            continue
        name = str(name)
        if name not in index:
            index[name] = next(i for i in range(len(index) + 1) if i not in index.values())
        pts = []
        for v, row in zip(values or [], rows, strict=False):
            x = _number(v)
            y = _number(row.get(metric)) if isinstance(row, dict) else None
            if x is None or y is None:
                continue
            ci = row.get(ci_key)
            lo, hi = ((_number(ci[0]), _number(ci[1])) if isinstance(ci, (list, tuple))
                      and len(ci) == 2 else (None, None))
            pts.append((x, y, lo if hi is not None else None, hi if lo is not None else None))
        pts.sort(key=lambda p: p[0])
        label = str(labels.get(name) or name.replace("_", " ").capitalize())
        out.append(Curve(f"attack:{name}", measured_label(label), tuple(p[0] for p in pts),
                         tuple(p[1] for p in pts), attack_style(index[name]),
                         tuple(p[2] for p in pts), tuple(p[3] for p in pts)))
    return tuple(out)


def count_sweep_series(result: dict, key: str) -> tuple[Curve, ...]:
    """The count-tables audit's sweep ``theory.sweeps[key]`` ("fraction": more released
    counts, paper 003 Fig. 6; "noise": more noise, Fig. 8): each attack's measured AUC with
    its interval, in the style the attack has in the ROC chart (its place among the
    attribute-game attacks of ``result["attacks"]``), then the share of targets the tables
    alone determine."""
    theory = result.get("theory") if isinstance(result.get("theory"), dict) else {}
    sweeps = theory.get("sweeps") if isinstance(theory.get("sweeps"), dict) else {}
    sweep = sweeps.get(key) if isinstance(sweeps.get(key), dict) else {}
    values = sweep.get("values") if isinstance(sweep.get("values"), list) else []
    if not values:
        return ()
    attacks = [a for a in result.get("attacks") or [] if isinstance(a, dict)
               and not (isinstance(a.get("details"), dict) and a["details"].get("game") == "mia")]
    styles = {str(a.get("name")): i for i, a in enumerate(attacks)}
    labels = {str(a.get("name")): attack_label(a) for a in attacks}
    given = sweep.get("labels") if isinstance(sweep.get("labels"), dict) else {}
    labels.update({str(n): str(lab) for n, lab in given.items() if lab})
    curves = list(measured_sweep_series(values, sweep.get("attacks") or {}, labels, styles))
    x, y = finite_points({"values": values, "share": sweep.get("determined_share") or []},
                         "values", "share")
    if x:
        order = sorted(range(len(x)), key=lambda i: x[i])
        curves.append(Curve("determined_share", DETERMINED_LABEL, tuple(x[i] for i in order),
                            tuple(y[i] for i in order), DETERMINED_STYLE))
    return tuple(curves)


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
    xs = [_number(v) for v in values]
    xs = [v for v in xs if v is not None]
    return len(xs) >= 2 and min(xs) > 0 and max(xs) / min(xs) >= LOG_SPAN


def chance_guide(level: float = 0.5) -> Guide:
    return Guide("chance", CHANCE_LABEL, level, False, CHANCE_STYLE)


def count_sweep_current(result: dict, key: str) -> float | None:
    """The audited setting on the count-tables sweep ``key``: the released share m/|D|
    ("fraction") or the ε per count ("noise", only when noise was added), as the release
    block records it, else as the configuration asked; None when it has no place on the axis
    (a release of all counts, no noise)."""
    theory = result.get("theory") if isinstance(result.get("theory"), dict) else {}
    release = theory.get("release") if isinstance(theory.get("release"), dict) else {}
    config = result.get("config") if isinstance(result.get("config"), dict) else {}
    for block in (release, config):
        if key == "fraction":
            v = _number(block.get("fraction"))
        else:
            v = _number(block.get("epsilon")) if block.get("mechanism") not in (None, "none") \
                else None
        if v is not None and v > 0:
            return v
    return None


def count_sweep_guides(result: dict, key: str) -> tuple[Guide, ...]:
    """The reference lines of the count-tables sweep ``key``: random guessing (AUC 0.5) and
    the audited setting (:func:`count_sweep_current`)."""
    out = [chance_guide(0.5)]
    current = count_sweep_current(result, key)
    if current is not None:
        # The report's number formats (an ε to 2 decimals, a share to 4 digits), on screen too.
        words = (f"m/|D| = {current:.4g}" if key == "fraction" else
                 f"ε = {current:.2f}" if current >= 0.1 else f"ε = {current:.3g}")
        out.append(Guide("current", "Audited setting", current, True, CURRENT_STYLE,
                         f"audited: {words}"))
    return tuple(out)


def count_sweep_log_x(result: dict, key: str) -> bool:
    """Whether the count-tables sweep ``key`` has a log x axis (:func:`log_axis` of the swept
    values and the audited setting)."""
    values = [x for c in count_sweep_series(result, key) for x in c.x]
    current = count_sweep_current(result, key)
    return log_axis(values + ([current] if current is not None else []))


# ------------------------------------------------------------------------------ accuracy vs k

OPTIMUM_K_LABEL = "Best possible attacker (exact theory)"
DP_BOUND_K_LABEL = "Most that ε-DP allows"


def sweep_attack_name(name: str) -> str:
    """A sweep attack's legend name when the main run did not use it: its plain name from the
    catalogue (the warning of :func:`dp_bound_warning` names it the same way)."""
    return legend_name(attack_label({"name": name}))


def observations_series(result: dict) -> tuple[Curve, ...]:
    """Location audit, accuracy against k (``theory.sweep``): the most ε-DP per epoch allows,
    the exact optimal attacker, then each sweep attack's measured accuracy with its 95 %
    interval per point (the style of the same attack in the ROC chart)."""
    theory = result.get("theory") if isinstance(result.get("theory"), dict) else {}
    sweep = theory.get("sweep") if isinstance(theory.get("sweep"), dict) else {}
    ks = sweep.get("observations") or []
    out = []
    for key, label, style in (("dp_bound_accuracy", DP_BOUND_K_LABEL, DP_BOUND_STYLE),
                              ("optimal_accuracy", OPTIMUM_K_LABEL, OPTIMAL_STYLE)):
        x, y = finite_points(sweep, "observations", key)
        pairs = sorted((a, b) for a, b in zip(x, y, strict=True) if a > 0)
        if pairs:
            out.append(Curve(key, label, tuple(a for a, _ in pairs), tuple(b for _, b in pairs),
                             style))
    names = [str(a.get("name")) for a in result.get("attacks") or [] if isinstance(a, dict)]
    labels = {str(a.get("name")): legend_name(attack_label(a))
              for a in result.get("attacks") or [] if isinstance(a, dict)}
    attacks = sweep.get("attacks") if isinstance(sweep.get("attacks"), dict) else {}
    taken: set[int] = set()
    for name, rows in attacks.items():
        if not isinstance(rows, list) or not rows:
            continue
        if name in names:
            index = names.index(name)
        else:       # a sweep attack not among the main attacks: the next unused style
            index = next(i for i in range(len(names) + len(attacks) + 1)
                         if i not in taken and i >= len(names))
        taken.add(index)
        pts = []
        for k, row in zip(ks, rows, strict=False):
            kk = _number(k)
            acc = _number(row.get("accuracy")) if isinstance(row, dict) else None
            if kk is None or kk <= 0 or acc is None:
                continue
            ci = row.get("accuracy_ci") if isinstance(row.get("accuracy_ci"), (list, tuple)) \
                else None
            lo, hi = (_number(ci[0]), _number(ci[1])) if ci and len(ci) == 2 else (None, None)
            pts.append((kk, acc, lo, hi))
        pts.sort(key=lambda p: p[0])
        out.append(Curve(f"attack:{name}", labels.get(name, sweep_attack_name(name)),
                         tuple(p[0] for p in pts), tuple(p[1] for p in pts),
                         attack_style(index), tuple(p[2] for p in pts),
                         tuple(p[3] for p in pts)))
    return tuple(out)


AUDITED_TARGET_STYLE = Style((115, 115, 115), (1, 2), None, 0.8)


def observations_current(result: dict) -> float | None:
    """The audited target's number of observations k (None when unknown)."""
    theory = result.get("theory") if isinstance(result.get("theory"), dict) else {}
    target = theory.get("target") if isinstance(theory.get("target"), dict) else {}
    k = _number(target.get("observations", theory.get("observations")))
    return k if k is not None and k > 0 else None


def observations_guides(result: dict) -> tuple[Guide, ...]:
    """The reference lines of the accuracy-against-k chart: random guessing (balanced
    accuracy 0.5) and the audited target's k."""
    out = [chance_guide(0.5)]
    k = observations_current(result)
    if k is not None:
        out.append(Guide("current", "Audited target", k, True, AUDITED_TARGET_STYLE,
                         f"audited target: k = {k:g}"))
    return tuple(out)


def observations_log_x(result: dict) -> bool:
    """Whether the accuracy-against-k chart has a log k axis (:func:`log_axis` of the swept
    k and the audited target's)."""
    theory = result.get("theory") if isinstance(result.get("theory"), dict) else {}
    sweep = theory.get("sweep") if isinstance(theory.get("sweep"), dict) else {}
    ks = [v for v in (_number(k) for k in sweep.get("observations") or []) if v and v > 0]
    k = observations_current(result)
    return log_axis(ks + ([k] if k is not None else []))


FAMILY_ALPHA = 0.05     # the family-wise false-alarm rate of the ε-bound check (issue 32 item 5)


@dataclass(frozen=True)
class BoundPoint:
    """One measured point of the accuracy-against-k chart that lies above the ε-DP bound."""

    name: str                  # the attack's result name
    label: str                 # its legend name
    k: float                   # the sweep target's number of observations
    accuracy: float            # the measured balanced accuracy
    bound: float               # the most ε-DP allows at this k (exact)
    lower: float | None        # its one-sided lower bound at the last Holm level it met
    breach: bool               # True: above the bound by more than chance explains


@dataclass(frozen=True)
class BoundCheck:
    """The family-wise test of every measured point against the ε-DP bound
    (:func:`dp_bound_check`)."""

    n_points: int                       # measured points with a bound at their k (N)
    above: tuple[BoundPoint, ...]       # those measured above the bound, k order
    alpha: float = FAMILY_ALPHA
    test_releases: int | None = None    # test releases per point

    @property
    def breaches(self) -> tuple[BoundPoint, ...]:
        return tuple(p for p in self.above if p.breach)


def _counts(row: dict) -> tuple[int, int, int, int] | None:
    c = row.get("accuracy_counts")
    if isinstance(c, (list, tuple)) and len(c) == 4 and all(
            isinstance(v, int) and not isinstance(v, bool) and v >= 0 for v in c) \
            and c[0] + c[1] > 0 and c[2] + c[3] > 0:
        return int(c[0]), int(c[1]), int(c[2]), int(c[3])
    return None


def family_lower(accuracy: float, counts: tuple[int, int, int, int] | None,
                 ci: tuple[float | None, float | None], level: float,
                 confidence: float = 0.95) -> float | None:
    """A measured balanced accuracy's one-sided lower bound at error rate ``level``.

    With the point's counts (TP, FN, FP, TN): the lower end of the exact interval of
    :func:`engine.metrics.balanced_accuracy_with_ci` at confidence 1 − 2·level (Clopper–Pearson
    with equal classes, as the location game draws them). A result saved before the counts
    were kept has only its two-sided ``confidence`` interval: its lower half-width is read as
    z·SE and rescaled to the level (normal approximation)."""
    if counts is not None:
        return balanced_accuracy_with_ci(*counts, 1.0 - 2.0 * level)[1][0]
    lo = ci[0]
    if lo is None or not 0 < confidence < 1:
        return None
    normal = NormalDist()
    se = max(accuracy - lo, 0.0) / normal.inv_cdf(0.5 + confidence / 2)
    return accuracy - normal.inv_cdf(1.0 - level) * se


def dp_bound_check(result: dict, alpha: float = FAMILY_ALPHA) -> BoundCheck | None:
    """Which measured points of the accuracy-against-k chart lie above the most ε-DP allows
    by more than chance explains (issue 32 item 5).

    The bound is exact theory; each point is an estimate on a finite number of test releases,
    so with N points plotted some lie above the line by chance even when the release gives
    exactly its ε. Each point is a one-sided test of "true accuracy ≤ bound at this k"; the N
    tests together are corrected by Holm's step-down procedure (Holm 1979): a point is a
    *breach* only if its lower bound at level α / (N − r) — r the points already found — lies
    above the bound. The chance that any point of a release at (or under) its bound is called a
    breach is then at most α = 5 %, whatever N (tests/engine/test_dp_bound_points.py checks it
    by simulation). None when the chart has no bound (no noise) or no measured point."""
    theory = result.get("theory") if isinstance(result.get("theory"), dict) else {}
    sweep = theory.get("sweep") if isinstance(theory.get("sweep"), dict) else {}
    ks, bounds = sweep.get("observations") or [], sweep.get("dp_bound_accuracy") or []
    attacks = sweep.get("attacks") if isinstance(sweep.get("attacks"), dict) else {}
    labels = {str(a.get("name")): legend_name(attack_label(a))     # as the chart's legend
              for a in result.get("attacks") or [] if isinstance(a, dict)}
    config = result.get("config") if isinstance(result.get("config"), dict) else {}
    confidence = _number(config.get("confidence")) or 0.95
    points = []          # (name, k, accuracy, bound, counts, ci)
    for name, rows in attacks.items():
        if not isinstance(rows, list):
            continue
        for k, b, row in zip(ks, bounds, rows, strict=False):
            kk, bb = _number(k), _number(b)
            acc = _number(row.get("accuracy")) if isinstance(row, dict) else None
            if kk is None or kk <= 0 or bb is None or acc is None:
                continue
            ci = row.get("accuracy_ci") if isinstance(row.get("accuracy_ci"), (list, tuple)) \
                else ()
            lo = _number(ci[0]) if len(ci) == 2 else None
            points.append((str(name), kk, acc, bb, _counts(row), (lo, None)))
    if not points:
        return None
    n = len(points)
    above = [i for i, p in enumerate(points) if p[2] > p[3] + 1e-12]
    found: set[int] = set()
    lower: dict[int, float | None] = {}
    while True:                      # Holm, step-down: level α / (N − r) after r breaches
        level = alpha / (n - len(found))
        new = set()
        for i in above:
            if i in found:
                continue
            name, k, acc, b, counts, ci = points[i]
            lower[i] = family_lower(acc, counts, ci, level, confidence)
            if lower[i] is not None and lower[i] > b + 1e-12:
                new.add(i)
        if not new:
            break
        found |= new
    size = _number(sweep.get("test_aggregates"))
    out = [BoundPoint(points[i][0], labels.get(points[i][0], sweep_attack_name(points[i][0])),
                      points[i][1], points[i][2], points[i][3], lower.get(i), i in found)
           for i in above]
    out.sort(key=lambda p: (p.k, p.label))
    return BoundCheck(n, tuple(out), alpha, int(size) if size else None)


def _k_words(k: float) -> str:
    return f"{int(k)}" if float(k).is_integer() else f"{k:g}"


def _pct(v: float) -> str:
    return f"{100 * v:.1f}%"


def dp_bound_warning(result: dict, check: BoundCheck | None = None) -> str:
    """The warning a breach of the ε-DP bound needs, for result.warnings (the Warnings box,
    and the report's section 8), or "" when no point is a breach (issue 32 item 5)."""
    check = dp_bound_check(result) if check is None else check
    if check is None or not check.breaches:
        return ""
    config = result.get("config") if isinstance(result.get("config"), dict) else {}
    eps = _number(config.get("epsilon"))
    per = f"ε = {number_words(eps)} per hour" if eps is not None else "the claimed ε"
    found = check.breaches
    said = "; ".join(f"{p.label} at k = {_k_words(p.k)} measured {_pct(p.accuracy)} where {per} allows "
                     f"at most {_pct(p.bound)}" for p in found[:3])
    more = f" (and {len(found) - 3} more)" if len(found) > 3 else ""
    one = len(found) == 1
    return (f"A measured accuracy is above the most that {per} allows: {said}{more}. "
            f"{'This point is' if one else 'These points are'} above the line by more than "
            f"chance explains: all {check.n_points} points of the accuracy-against-observations "
            "chart were tested together, so that chance alone raises this warning in at most 1 "
            "audit in 20. "
            "Either the release does not give the ε it claims (the noise or the clipping is "
            "not as configured), or the audit's settings differ from the release's: do not "
            "rely on the stated ε until this is explained.")


def observations_note(result: dict) -> str:
    """The caption's sentence on measured points above "most that ε-DP allows" (issue 21;
    issue 32 item 5).

    The bound is exact theory; a measured accuracy is an estimate on a finite number of test
    releases, so some of the N points plotted lie above the line by chance alone. Only a point
    that stays above it after the family-wise test of :func:`dp_bound_check` is a breach: the
    caption then points to the warning (:func:`dp_bound_warning`); otherwise it says that the
    points outside are what chance gives."""
    check = dp_bound_check(result)
    if check is None or not check.above:
        return ""
    n_above, n = len(check.above), check.n_points
    releases = (f"{check.test_releases:,} test releases per point" if check.test_releases
                else "this number of test releases")
    found = check.breaches
    if not found:
        ks = ", ".join(_k_words(k) for k in sorted({p.k for p in check.above}))
        verb = "lies" if n_above == 1 else "lie"
        return (f"{n_above} of {n} measured points {verb} above the line of the most that "
                f"ε-DP allows (at k = {ks}), as chance alone gives with {releases}: tested "
                f"together over all {n} points (so that chance alone flags one in at most 1 "
                "audit in 20), none is a breach.")
    p = found[0]
    others = (f" {len(found) - 1} more point{'s' if len(found) > 2 else ''} also "
              f"{'do' if len(found) > 2 else 'does'}." if len(found) > 1 else "")
    return (f"{p.label} at k = {_k_words(p.k)} measured {_pct(p.accuracy)}, above the most "
            f"that ε-DP allows ({_pct(p.bound)}) by more than chance explains over the {n} "
            f"points plotted, tested together.{others} See the warnings: either the "
            "release does not give the ε it claims or the audit's settings differ from the "
            "release's.")


# ------------------------------------------------------------------------------ defences

RISK_KEYS = ("tpr", "accuracy", "auc", "advantage", "epsilon")
PERCENT_METRICS = ("tpr", "accuracy", "advantage")      # written in % everywhere else


@dataclass(frozen=True)
class TradeoffSeries:
    """A model's defences on one risk axis (:func:`tradeoff_series`)."""

    metric: str
    curves: tuple[Curve, ...]           # one per defence, points in knob order
    baseline: Curve | None              # the undefended model (one point)
    recommended: tuple[float, float] | None
    recommended_id: int | None
    limit: float | None                 # the user's limit on this axis, if it is the limit's
    missing: tuple[str, ...] = field(default_factory=tuple)   # rows not drawable on this axis

    @property
    def x_percent(self) -> bool:
        """Whether the risk axis reads in percent: a TPR, a balanced accuracy and an advantage
        are percentages in the tables and the summary (issue 32 item 8); an AUC and an ε are
        not."""
        return self.metric in PERCENT_METRICS

    @property
    def y_percent(self) -> bool:
        """Test accuracy reads in percent, on screen as in the report and the tables."""
        return True

    def points(self) -> list[tuple[float, float]]:
        out = [(x, y) for c in self.curves for x, y in zip(c.x, c.y, strict=True)]
        if self.baseline is not None:
            out += list(zip(self.baseline.x, self.baseline.y, strict=True))
        return out


def risk_value(row: dict, metric: str, fpr: float | None
               ) -> tuple[float | None, list | None]:
    """The strongest attack's ``metric`` for a defence row and its interval (None when it
    could not be measured; a TPR not measurable at this FPR is never drawn)."""
    risk = row.get("risk") if isinstance(row.get("risk"), dict) else {}
    if metric == "tpr":
        entry = tpr_at({"tpr_at_fpr": risk.get("tpr_at_fpr") or []}, fpr) \
            if fpr is not None else None
        if not isinstance(entry, dict) or not entry.get("measurable", True):
            return None, None
        value = _number(entry.get("value", entry.get("tpr")))
    else:
        entry = risk.get(metric)
        value = _number(entry.get("value")) if isinstance(entry, dict) else None
    if value is None:
        return None, None
    ci = entry.get("ci")
    ok = isinstance(ci, (list, tuple)) and len(ci) == 2 and all(_number(c) is not None
                                                                 for c in ci)
    return value, list(ci) if ok else None


KNOB = {"kcd": "alpha", "dmp": "temperature", "l2": "weight_decay",
        "early_stopping": "epochs", "dp_sgd": "noise_multiplier"}


def knob_order(row: dict) -> float:
    """A setting's place along its defence's curve (the knob it turns; DP-SGD by ε,
    decreasing, when it was set by ε)."""
    knobs = row.get("knobs") if isinstance(row.get("knobs"), dict) else {}
    value = _number(knobs.get(KNOB.get(row.get("defence"), "")))
    if value is None and row.get("defence") == "dp_sgd":
        eps = _number(knobs.get("target_epsilon"))
        value = -eps if eps is not None else None          # a larger ε is less noise
    return value if value is not None else 0.0


def knob_text(row: dict) -> str:
    """The short label of a point on its curve: α = 1, T = 2, σ = 0.5 …"""
    label = str(row.get("label", ""))
    for prefix in ("No defence", "KCD ", "DMP ", "L2 ", "Early stopping ", "DP-SGD "):
        if label.startswith(prefix):
            label = label[len(prefix):]
    return label.split(",")[0].strip()


def tradeoff_series(block: dict, metric: str) -> TradeoffSeries:
    """Test accuracy against the strongest attack's ``metric`` for every defence setting of
    ``block`` (``theory.defences``; paper 004): one curve per defence in knob order, each
    point with its intervals and knob label, the undefended model, the recommended point (when
    a setting meets the limit) and the limit when it is on this axis."""
    limit = block.get("limit") if isinstance(block.get("limit"), dict) else {}
    fpr = _number(limit.get("fpr"))
    rec = block.get("recommendation") if isinstance(block.get("recommendation"), dict) else {}
    rec_index = rec.get("index") if rec.get("met") else None
    by: dict[str, list[tuple[float, float, dict, list | None]]] = {}
    missing = []
    for row in block.get("rows") or []:
        if not isinstance(row, dict):
            continue
        x, x_ci = risk_value(row, metric, fpr)
        y = _number(row.get("test_accuracy"))
        if x is None or y is None:
            missing.append(str(row.get("label") or row.get("defence")))
            continue
        by.setdefault(str(row.get("defence")), []).append((x, y, row, x_ci))
    order = [d for d in DEFENCE_ORDER if d in by] + sorted(d for d in by
                                                           if d not in DEFENCE_ORDER
                                                           and d != "none")

    def curve(key: str, label: str, pts, style: Style) -> Curve:
        pts = sorted(pts, key=lambda p: knob_order(p[2]))
        yci = [p[2].get("test_accuracy_ci") for p in pts]
        yci = [c if isinstance(c, (list, tuple)) and len(c) == 2
               and all(_number(v) is not None for v in c) else None for c in yci]
        xci = [p[3] for p in pts]
        return Curve(key, label, tuple(p[0] for p in pts), tuple(p[1] for p in pts), style,
                     lower=tuple(c[0] if c else None for c in yci),
                     upper=tuple(c[1] if c else None for c in yci),
                     point_labels=tuple(knob_text(p[2]) for p in pts),
                     point_ids=tuple(int(p[2].get("index", -1)) for p in pts),
                     x_lower=tuple(c[0] if c else None for c in xci),
                     x_upper=tuple(c[1] if c else None for c in xci))

    curves = tuple(curve(f"defence:{d}", DEFENCE_TITLES.get(d, d.replace("_", " ")), by[d],
                         attack_style(i)) for i, d in enumerate(order))
    baseline = curve("none", UNDEFENDED_LABEL, by["none"][:1],
                     UNDEFENDED_STYLE) if by.get("none") else None
    chosen = next(((x, y) for pts in by.values() for x, y, r, _ in pts
                   if rec_index is not None and r.get("index") == rec_index), None)
    on_axis = limit.get("metric") == metric and _number(limit.get("value")) is not None
    return TradeoffSeries(metric, curves, baseline, chosen, rec_index,
                          float(limit["value"]) if on_axis else None, tuple(missing))


def default_metric(block: dict) -> str:
    """The risk axis a defences chart opens on: the limit's measure, or the AUC when no
    setting could be measured on it (a TPR at a low FPR needs many non-members)."""
    limit = block.get("limit") if isinstance(block.get("limit"), dict) else {}
    metric = str(limit.get("metric") or "tpr")
    if metric not in RISK_KEYS:
        metric = "tpr"
    fpr = _number(limit.get("fpr"))
    rows = [r for r in block.get("rows") or [] if isinstance(r, dict)]
    if not any(risk_value(r, metric, fpr)[0] is not None for r in rows):
        return "auc"
    return metric


def nice_step(raw: float) -> float:
    """A 1-2-2.5-5 step at least ``raw``."""
    if raw <= 0 or not math.isfinite(raw):
        return 1.0
    mag = 10 ** math.floor(math.log10(raw))
    for m in (1, 2, 2.5, 5, 10):
        if raw <= m * mag:
            return m * mag
    return 10 * mag


def tradeoff_ranges(series: TradeoffSeries, pad: float = 0.06, intervals: bool = False
                    ) -> tuple[tuple[float, float], tuple[float, float]]:
    """Axis ranges around the drawn points with the limit in view (issue 21: settings sat in
    a blob at the left of a 0–1 axis), rounded out to a 1-2-5 step and padded so edge markers
    keep room for their labels; rates never leave [0, 1] (ε only ≥ 0). With ``intervals``
    the points' 95 % intervals are in range too: the screen's chart opens on these, as the
    report's axes hold them."""
    pts = series.points()
    curves = (*series.curves, *([series.baseline] if series.baseline is not None else []))

    def ends(lows, highs) -> list[float]:
        return [v for v in (*(lows or ()), *(highs or ())) if v is not None]

    xs = [p[0] for p in pts] + ([series.limit] if series.limit is not None else [])
    ys = [p[1] for p in pts]
    if pts and intervals:
        xs += [v for c in curves for v in ends(c.x_lower, c.x_upper)]
        ys += [v for c in curves for v in ends(c.lower, c.upper)]
    if not xs:
        return (0.0, 1.0), (0.0, 1.0)

    def rounded(lo: float, hi: float, floor: float, cap: float | None):
        if hi - lo < 1e-9:
            lo, hi = lo - 0.02, hi + 0.02
        step = nice_step((hi - lo) / 5)
        lo = math.floor(lo / step + 1e-9) * step
        hi = math.ceil(hi / step - 1e-9) * step
        lo, hi = lo - pad * (hi - lo), hi + pad * (hi - lo)
        return max(lo, floor - pad * step), hi if cap is None else min(hi, cap + pad * step)

    cap = None if series.metric == "epsilon" else 1.0
    return rounded(min(xs), max(xs), 0.0, cap), rounded(min(ys), max(ys), 0.0, 1.0)


def tradeoff_crowd(series: TradeoffSeries, x_range, y_range, *, width: float, height: float,
                   radius: float = 22.0, least: int = 5
                   ) -> tuple[tuple[float, float], tuple[float, float]] | None:
    """Where ``least`` or more points sit within ``radius`` (in the medium's units, on a plot
    of ``width`` × ``height``) of one another — too close to label: the (x, y) ranges of a
    close-up of that crowd, or None."""
    pts = series.points()
    if len(pts) < least:
        return None
    sx = width / (x_range[1] - x_range[0])
    sy = height / (y_range[1] - y_range[0])
    xy = [(x * sx, y * sy) for x, y in pts]
    counts = [sum(abs(a - c) <= radius and abs(b - d) <= radius for c, d in xy)
              for a, b in xy]
    best = max(range(len(xy)), key=lambda i: counts[i])
    if counts[best] < least:
        return None
    bx, by = xy[best]
    member = [abs(a - bx) <= 1.5 * radius and abs(b - by) <= 1.5 * radius for a, b in xy]
    cx = [p[0] for p, m in zip(pts, member, strict=True) if m]
    cy = [p[1] for p, m in zip(pts, member, strict=True) if m]

    def padded(lo: float, hi: float, span: float) -> tuple[float, float]:
        w = max(hi - lo, 0.02 * span, 0.045)    # ≥ 1-point ticks on a percent axis
        return lo - 0.12 * w, hi + 0.12 * w

    return (padded(min(cx), max(cx), x_range[1] - x_range[0]),
            padded(min(cy), max(cy), y_range[1] - y_range[0]))


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
