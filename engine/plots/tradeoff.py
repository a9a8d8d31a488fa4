"""A model's defences chart (paper 004): test accuracy against the strongest attack, one curve
per defence, the undefended model, the limit and the recommendation. Split out of
engine/plots/series.py (issue 33 item 2)."""

from __future__ import annotations

import math
from dataclasses import dataclass, field

from engine.plots.series import (
    DEFENCE_ORDER,
    DEFENCE_TITLES,
    UNDEFENDED_LABEL,
    UNDEFENDED_STYLE,
    Curve,
    Style,
    attack_style,
    nice_step,
    number_or_none,
)
from engine.results.model_defences import DefenceRow, DefencesBlock, defences_of

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


def _row(row) -> DefenceRow:
    """A defence row typed (engine.results.model_defences), from its dict if need be."""
    return row if isinstance(row, DefenceRow) else DefenceRow.from_dict(row)


def risk_value(row: DefenceRow | dict, metric: str, fpr: float | None
               ) -> tuple[float | None, list | None]:
    """The strongest attack's ``metric`` for a defence row and its interval (None when it
    could not be measured; a TPR not measurable at this FPR is never drawn)."""
    risk = _row(row).risk
    entry = risk.tpr_at(fpr) if metric == "tpr" else risk.measure(metric)
    if entry is None or not entry.measurable or entry.value is None:
        return None, None
    return entry.value, list(entry.ci) if entry.ci is not None else None


KNOB = {"kcd": "alpha", "dmp": "temperature", "l2": "weight_decay",
        "early_stopping": "epochs", "dp_sgd": "noise_multiplier"}


def knob_order(row: DefenceRow | dict) -> float:
    """A setting's place along its defence's curve (the knob it turns; DP-SGD by ε,
    decreasing, when it was set by ε)."""
    row = _row(row)
    knobs = row.knobs
    value = number_or_none(knobs.get(KNOB.get(row.defence, "")))
    if value is None and row.defence == "dp_sgd":
        eps = number_or_none(knobs.get("target_epsilon"))
        value = -eps if eps is not None else None          # a larger ε is less noise
    return value if value is not None else 0.0


def knob_text(row: DefenceRow | dict) -> str:
    """The short label of a point on its curve: α = 1, T = 2, σ = 0.5 …"""
    label = str(_row(row).label or "")
    for prefix in ("No defence", "KCD ", "DMP ", "L2 ", "Early stopping ", "DP-SGD "):
        if label.startswith(prefix):
            label = label[len(prefix):]
    return label.split(",")[0].strip()


def tradeoff_series(block: DefencesBlock | dict, metric: str) -> TradeoffSeries:
    """Test accuracy against the strongest attack's ``metric`` for every defence setting of
    ``block`` (``theory.defences``; paper 004): one curve per defence in knob order, each
    point with its intervals and knob label, the undefended model, the recommended point (when
    a setting meets the limit) and the limit when it is on this axis."""
    block = defences_of(block) or DefencesBlock()
    limit = block.limit
    fpr = number_or_none(limit.fpr)
    rec_index = block.recommendation.chosen
    by: dict[str, list[tuple[float, float, DefenceRow, list | None]]] = {}
    missing = []
    for row in block.rows:
        x, x_ci = risk_value(row, metric, fpr)
        y = number_or_none(row.test_accuracy)
        if x is None or y is None:
            missing.append(str(row.label or row.defence))
            continue
        by.setdefault(str(row.defence), []).append((x, y, row, x_ci))
    order = [d for d in DEFENCE_ORDER if d in by] + sorted(d for d in by
                                                           if d not in DEFENCE_ORDER
                                                           and d != "none")

    def curve(key: str, label: str, pts, style: Style) -> Curve:
        pts = sorted(pts, key=lambda p: knob_order(p[2]))
        yci = [p[2].test_accuracy_ci for p in pts]
        xci = [p[3] for p in pts]
        return Curve(key, label, tuple(p[0] for p in pts), tuple(p[1] for p in pts), style,
                     lower=tuple(c[0] if c else None for c in yci),
                     upper=tuple(c[1] if c else None for c in yci),
                     point_labels=tuple(knob_text(p[2]) for p in pts),
                     point_ids=tuple(-1 if p[2].index is None else int(p[2].index)
                                     for p in pts),
                     x_lower=tuple(c[0] if c else None for c in xci),
                     x_upper=tuple(c[1] if c else None for c in xci))

    curves = tuple(curve(f"defence:{d}", DEFENCE_TITLES.get(d, d.replace("_", " ")), by[d],
                         attack_style(i)) for i, d in enumerate(order))
    baseline = curve("none", UNDEFENDED_LABEL, by["none"][:1],
                     UNDEFENDED_STYLE) if by.get("none") else None
    chosen = next(((x, y) for pts in by.values() for x, y, r, _ in pts
                   if rec_index is not None and r.index == rec_index), None)
    on_axis = limit.metric == metric and number_or_none(limit.value) is not None
    return TradeoffSeries(metric, curves, baseline, chosen, rec_index,
                          float(limit.value) if on_axis else None, tuple(missing))


def default_metric(block: DefencesBlock | dict) -> str:
    """The risk axis a defences chart opens on: the limit's measure, or the AUC when no
    setting could be measured on it (a TPR at a low FPR needs many non-members)."""
    block = defences_of(block) or DefencesBlock()
    metric = str(block.limit.metric or "tpr")
    if metric not in RISK_KEYS:
        metric = "tpr"
    fpr = number_or_none(block.limit.fpr)
    if not any(risk_value(r, metric, fpr)[0] is not None for r in block.rows):
        return "auc"
    return metric


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


