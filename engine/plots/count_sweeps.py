"""The count-tables audit's measured sweeps (paper 003 Fig. 6, 8): the share of counts
released and the noise, each measured point with its interval, and their guide lines.
Split out of engine/plots/series.py (issue 33 item 2). The count-tables functions take a result
dict or a loaded result and read the typed theory block (engine.results.aggregates, issue 33
item 1)."""

from __future__ import annotations

from collections.abc import Mapping, Sequence

from engine.plots.series import (
    CURRENT_STYLE,
    Curve,
    Guide,
    Style,
    attack_label,
    attack_style,
    chance_guide,
    finite_points,
    legend_name,
    log_axis,
    number_or_none,
)
from engine.results.aggregates import AggregatesTheory
from engine.results.loaded import LoadedResult, load_result

# ------------------------------------------------------------------------------ count tables

COUNT_SWEEP_KEYS = ("fraction", "noise")
DETERMINED_LABEL = "Targets determined by the tables (share)"
DETERMINED_STYLE = Style((120, 120, 120), (6, 3), "square", 1.1)


def _field(row, key: str):
    """``key`` of one measured point: a row of a sweep dict, or a typed point
    (engine.results.aggregates.SweepPoint); None for a missing one."""
    if isinstance(row, Mapping):
        return row.get(key)
    return getattr(row, key, None)


def _theory(result) -> tuple[LoadedResult, AggregatesTheory]:
    r = load_result(result)
    th = r.theory if isinstance(r.theory, AggregatesTheory) else AggregatesTheory()
    return r, th


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
            x = number_or_none(v)
            y = number_or_none(_field(row, metric))
            if x is None or y is None:
                continue
            ci = _field(row, ci_key)
            lo, hi = ((number_or_none(ci[0]), number_or_none(ci[1])) if isinstance(ci, (list, tuple))
                      and len(ci) == 2 else (None, None))
            pts.append((x, y, lo if hi is not None else None, hi if lo is not None else None))
        pts.sort(key=lambda p: p[0])
        label = str(labels.get(name) or name.replace("_", " ").capitalize())
        out.append(Curve(f"attack:{name}", measured_label(label), tuple(p[0] for p in pts),
                         tuple(p[1] for p in pts), attack_style(index[name]),
                         tuple(p[2] for p in pts), tuple(p[3] for p in pts)))
    return tuple(out)


def count_sweep_series(result, key: str) -> tuple[Curve, ...]:
    """The count-tables audit's sweep ``theory.sweeps[key]`` ("fraction": more released
    counts, paper 003 Fig. 6; "noise": more noise, Fig. 8): each attack's measured AUC with
    its interval, in the style the attack has in the ROC chart (its place among the
    attribute-game attacks of ``result["attacks"]``), then the share of targets the tables
    alone determine."""
    r, th = _theory(result)
    sweep = th.sweep(key)
    if sweep is None or not sweep.values:
        return ()
    values = list(sweep.values)
    attacks = [a for a in r.attacks if not th.details_of(a).membership_game]
    styles = {str(a.name): i for i, a in enumerate(attacks)}
    labels = {str(a.name): attack_label(a.to_dict()) for a in attacks}
    labels.update({str(n): str(lab) for n, lab in sweep.labels.items() if lab})
    curves = list(measured_sweep_series(values, sweep.attacks, labels, styles))
    x, y = finite_points({"values": values, "share": list(sweep.determined_share)},
                         "values", "share")
    if x:
        order = sorted(range(len(x)), key=lambda i: x[i])
        curves.append(Curve("determined_share", DETERMINED_LABEL, tuple(x[i] for i in order),
                            tuple(y[i] for i in order), DETERMINED_STYLE))
    return tuple(curves)


def count_sweep_current(result, key: str) -> float | None:
    """The audited setting on the count-tables sweep ``key``: the released share m/|D|
    ("fraction") or the ε per count ("noise", only when noise was added), as the release
    block records it, else as the configuration asked; None when it has no place on the axis
    (a release of all counts, no noise)."""
    _, th = _theory(result)
    for block in (th.release, th.settings):
        if key == "fraction":
            v = number_or_none(block.fraction)
        else:
            v = number_or_none(block.epsilon) if block.mechanism not in (None, "none") \
                else None
        if v is not None and v > 0:
            return v
    return None


def count_sweep_guides(result, key: str) -> tuple[Guide, ...]:
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


def count_sweep_log_x(result, key: str) -> bool:
    """Whether the count-tables sweep ``key`` has a log x axis (:func:`log_axis` of the swept
    values and the audited setting)."""
    values = [x for c in count_sweep_series(result, key) for x in c.x]
    current = count_sweep_current(result, key)
    return log_axis(values + ([current] if current is not None else []))


