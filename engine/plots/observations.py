"""The location audit's accuracy against the target's number of observations k (paper 000
Fig. 13/14), and the family-wise check of every point against what ε-DP allows (issue 32
item 5). Split out of engine/plots/series.py (issue 33 item 2)."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, replace
from statistics import NormalDist

from engine.metrics import balanced_accuracy_with_ci
from engine.plots.series import (
    DP_BOUND_STYLE,
    OPTIMAL_STYLE,
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
    number_words,
)
from engine.results.blocks import AttackEntry
from engine.results.loaded import LoadedResult, load_result
from engine.results.location import LocationSettings, LocationTheory, SweepPoint, load_theory


def load_location(result) -> LoadedResult:
    """``result`` (a dict or a LoadedResult) read by the one loader, its theory typed as a
    location audit's even where the dict names no audit type (the partial result the location
    game checks before it saves, engine.games.location_summary)."""
    r = load_result(result)
    if isinstance(r.theory, LocationTheory):
        return r
    theory = r.theory if isinstance(r.theory, Mapping) else {}
    return replace(r, theory=load_theory(theory, r.raw))


def _legend(a: AttackEntry) -> str:
    """An attack's legend name, as the ROC chart's (engine.plots.series.attack_label)."""
    return legend_name(attack_label({"name": a.name, "label": a.label}))

# ------------------------------------------------------------------------------ accuracy vs k

OPTIMUM_K_LABEL = "Best possible attacker (exact theory)"
DP_BOUND_K_LABEL = "Most that ε-DP allows"


def sweep_attack_name(name: str) -> str:
    """A sweep attack's legend name when the main run did not use it: its plain name from the
    catalogue (the warning of :func:`dp_bound_warning` names it the same way)."""
    return legend_name(attack_label({"name": name}))


def _ci_ends(point: SweepPoint) -> tuple[float | None, float | None]:
    ci = point.accuracy_ci
    return (number_or_none(ci[0]), number_or_none(ci[1])) if ci else (None, None)


def observations_series(result) -> tuple[Curve, ...]:
    """Location audit, accuracy against k (``theory.sweep``): the most ε-DP per epoch allows,
    the exact optimal attacker, then each sweep attack's measured accuracy with its 95 %
    interval per point (the style of the same attack in the ROC chart). ``result``: a dict or
    a LoadedResult."""
    r = load_location(result)
    sweep = r.theory.sweep
    ks = sweep.observations
    out = []
    for key, label, style in (("dp_bound_accuracy", DP_BOUND_K_LABEL, DP_BOUND_STYLE),
                              ("optimal_accuracy", OPTIMUM_K_LABEL, OPTIMAL_STYLE)):
        x, y = finite_points({"observations": ks, key: getattr(sweep, key)}, "observations", key)
        pairs = sorted((a, b) for a, b in zip(x, y, strict=True) if a > 0)
        if pairs:
            out.append(Curve(key, label, tuple(a for a, _ in pairs), tuple(b for _, b in pairs),
                             style))
    names = [a.name for a in r.attacks]
    labels = {a.name: _legend(a) for a in r.attacks}
    attacks = sweep.attacks
    taken: set[int] = set()
    for name, rows in attacks.items():
        if not rows:
            continue
        if name in names:
            index = names.index(name)
        else:       # a sweep attack not among the main attacks: the next unused style
            index = next(i for i in range(len(names) + len(attacks) + 1)
                         if i not in taken and i >= len(names))
        taken.add(index)
        pts = []
        for k, row in zip(ks, rows, strict=False):
            kk, acc = number_or_none(k), number_or_none(row.accuracy)
            if kk is None or kk <= 0 or acc is None:
                continue
            pts.append((kk, acc, *_ci_ends(row)))
        pts.sort(key=lambda p: p[0])
        out.append(Curve(f"attack:{name}", labels.get(name, sweep_attack_name(name)),
                         tuple(p[0] for p in pts), tuple(p[1] for p in pts),
                         attack_style(index), tuple(p[2] for p in pts),
                         tuple(p[3] for p in pts)))
    return tuple(out)


AUDITED_TARGET_STYLE = Style((115, 115, 115), (1, 2), None, 0.8)


def observations_current(result) -> float | None:
    """The audited target's number of observations k (None when unknown)."""
    theory = load_location(result).theory
    k = number_or_none(theory.target.observations if "observations" in theory.target.written
                       else theory.observations)
    return k if k is not None and k > 0 else None


def observations_guides(result) -> tuple[Guide, ...]:
    """The reference lines of the accuracy-against-k chart: random guessing (balanced
    accuracy 0.5) and the audited target's k."""
    out = [chance_guide(0.5)]
    k = observations_current(result)
    if k is not None:
        out.append(Guide("current", "Audited target", k, True, AUDITED_TARGET_STYLE,
                         f"audited target: k = {k:g}"))
    return tuple(out)


def observations_log_x(result) -> bool:
    """Whether the accuracy-against-k chart has a log k axis (:func:`log_axis` of the swept
    k and the audited target's)."""
    sweep = load_location(result).theory.sweep
    ks = [v for v in (number_or_none(k) for k in sweep.observations) if v and v > 0]
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


def dp_bound_check(result, alpha: float = FAMILY_ALPHA) -> BoundCheck | None:
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
    r = load_location(result)
    sweep = r.theory.sweep
    ks, bounds = sweep.observations, sweep.dp_bound_accuracy
    labels = {a.name: _legend(a) for a in r.attacks}     # as the chart's legend
    confidence = number_or_none(LocationSettings.from_config(r.config).confidence) or 0.95
    points = []          # (name, k, accuracy, bound, counts, ci)
    for name, rows in sweep.attacks.items():
        for k, b, row in zip(ks, bounds, rows, strict=False):
            kk, bb, acc = number_or_none(k), number_or_none(b), number_or_none(row.accuracy)
            if kk is None or kk <= 0 or bb is None or acc is None:
                continue
            points.append((name, kk, acc, bb, row.accuracy_counts, (_ci_ends(row)[0], None)))
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
    size = number_or_none(sweep.test_aggregates)
    out = [BoundPoint(points[i][0], labels.get(points[i][0], sweep_attack_name(points[i][0])),
                      points[i][1], points[i][2], points[i][3], lower.get(i), i in found)
           for i in above]
    out.sort(key=lambda p: (p.k, p.label))
    return BoundCheck(n, tuple(out), alpha, int(size) if size else None)


def _k_words(k: float) -> str:
    return f"{int(k)}" if float(k).is_integer() else f"{k:g}"


def _pct(v: float) -> str:
    return f"{100 * v:.1f}%"


def dp_bound_warning(result, check: BoundCheck | None = None) -> str:
    """The warning a breach of the ε-DP bound needs, for result.warnings (the Warnings box,
    and the report's section 8), or "" when no point is a breach (issue 32 item 5)."""
    check = dp_bound_check(result) if check is None else check
    if check is None or not check.breaches:
        return ""
    eps = number_or_none(LocationSettings.from_config(load_location(result).config).epsilon)
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


def observations_note(result) -> str:
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


