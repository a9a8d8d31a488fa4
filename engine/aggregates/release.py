"""The fixed release an aggregate-statistics audit attacks (paper 003 §2.1, §4.1, §5.3–5.6).

A :class:`ReleaseSpec` says which family of counting queries is published (Census P-tables,
k-way marginals, a custom query file or an already-published table), which random fraction of
it (paper 003 §4.1/§4.3: m statistics drawn without replacement with m/|D| = 0.25 by default;
§5.3 varies the ratio), and how it is perturbed (§5.6: Laplace noise, answers rounded to the
nearest integer; here also the exact discrete mechanisms, and clamping at zero, since a
published count is never negative).

Sensitivity. Adding or removing one record changes each counting query by at most 1, so the
L1 sensitivity of the released vector is the largest number of released queries one record
can match. :func:`release_sensitivity` computes it exactly as a maximum over the whole domain
(every combination of values, not only the records present): for disjoint cells of one
contingency table a record matches at most one cell, so a full release of T tables has
sensitivity T, and a random fraction of the cells often less.
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np

from engine.aggregates.queries import (
    CENSUS_P12_AGE_BINS,
    FIVE_YEAR_AGE_BINS,
    CountingQuery,
    Domain,
    answers,
    census_p_tables,
    load_published_table,
    load_queries_file,
    marginals,
)
from engine.data.errors import InputError, given_value
from engine.mechanisms.calibration import noise_scale as calibrated_scale
from engine.mechanisms.sampling import sample_noise

KINDS = ("p_tables", "marginals", "custom", "published")
MECHANISMS = ("none", "laplace", "discrete_laplace", "discrete_gaussian")
BUDGETS = ("release", "per_query")
DEFAULT_FRACTION = 0.25      # paper 003 §4.3: m/|D| = 0.25
_AGE_BINS = {"census": CENSUS_P12_AGE_BINS, "five_year": FIVE_YEAR_AGE_BINS}


@dataclass(frozen=True)
class ReleaseSpec:
    """What is released and how.

    * ``kind``: "p_tables" (options: age_col, sex_col, race_col, age_bins = "census" |
      "five_year" | [(lo, hi), …], hispanic_col, hispanic_label, white_label), "marginals"
      (options: ways, buckets, columns), "custom" (options: path) or "published" (options:
      path).
    * ``fraction``: release m = round(fraction · n_records) queries (at least 1, at most all),
      drawn uniformly without replacement (paper 003 §4.3, m/|D| = 0.25); None releases all.
      A "published" table is used as it is.
    * ``mechanism``: "none", "laplace", "discrete_laplace" or "discrete_gaussian" (needs
      ``delta``), at ``epsilon``.
    * ``budget``: "release" calibrates to the L1 sensitivity of the whole release (computed
      exactly unless ``sensitivity`` is given) so the release is ε-DP as a whole; "per_query"
      calibrates every query to sensitivity 1, the per-aggregate budget of paper 003 §5.6
      (noise Laplace(1/ε) per statistic).
    * ``rounding`` to the nearest integer (§5.6) and ``clamp`` at zero.

    For "published" nothing is drawn or added: the counts are released as given, and the
    mechanism fields record what the publisher says it added (for the attacks' noise model).
    """

    kind: str = "p_tables"
    options: Mapping[str, Any] = field(default_factory=dict)
    fraction: float | None = DEFAULT_FRACTION
    mechanism: str = "none"
    epsilon: float | None = None
    delta: float | None = None
    sensitivity: float | None = None
    budget: str = "release"
    rounding: bool = True
    clamp: bool = True

    def __post_init__(self) -> None:
        object.__setattr__(self, "options", dict(self.options or {}))
        if self.kind not in KINDS:
            raise InputError(f"Unknown release kind {given_value(self.kind)}; choose one of "
                             f"{', '.join(KINDS)}.", key="kind")
        if self.fraction is not None:
            f = self.fraction
            if isinstance(f, bool) or not isinstance(f, (int, float)) or not math.isfinite(f) \
                    or f <= 0:
                raise InputError(f"The released fraction m/|D| must be a positive number such "
                                 f"as 0.25, got {given_value(f)}.", key="fraction")
        if self.mechanism not in MECHANISMS:
            raise InputError(f"Unknown noise mechanism {given_value(self.mechanism)}; choose one of "
                             f"{', '.join(MECHANISMS)}.", key="mechanism")
        if self.budget not in BUDGETS:
            raise InputError(f"Unknown privacy budget mode {given_value(self.budget)}; choose ε for the "
                             f"whole release or ε for each count.", setting="budget",
                             key="budget")
        if self.mechanism != "none":
            e = self.epsilon
            if e is None or isinstance(e, bool) or not isinstance(e, (int, float)) \
                    or not math.isfinite(e) or e <= 0:
                raise InputError(f"The {self.mechanism} mechanism needs a positive epsilon, "
                                 f"got {given_value(e)}; set epsilon (for example 1.0).", key="epsilon")
        if self.mechanism == "discrete_gaussian" and (
                self.delta is None or not 0.0 < float(self.delta) < 1.0):
            raise InputError(f"The discrete Gaussian mechanism needs delta strictly between 0 "
                             f"and 1 (for example 1e-5), got {given_value(self.delta)}.", key="delta")
        if self.sensitivity is not None and not (float(self.sensitivity) > 0):
            raise InputError(f"The sensitivity must be positive, got {given_value(self.sensitivity)}; "
                             f"leave it empty to compute it exactly.", key="sensitivity")

    def to_dict(self) -> dict[str, Any]:
        return {"kind": self.kind, "options": dict(self.options), "fraction": self.fraction,
                "mechanism": self.mechanism, "epsilon": self.epsilon, "delta": self.delta,
                "sensitivity": self.sensitivity, "budget": self.budget,
                "rounding": self.rounding, "clamp": self.clamp}

    @classmethod
    def from_dict(cls, data: Mapping[str, Any]) -> ReleaseSpec:
        known = set(cls.__dataclass_fields__)
        unknown = sorted(set(data) - known)
        if unknown:
            raise InputError(f"Unknown release setting '{unknown[0]}'; the settings are "
                             f"{', '.join(sorted(known))}.", key=unknown[0])
        return cls(**dict(data))


@dataclass(frozen=True, eq=False)
class Release:
    """The released statistics.

    ``queries`` are the released queries (in family order), ``true_answers`` their exact values
    on the records, ``released_answers`` what is published, ``sensitivity`` the exact L1
    sensitivity of the released queries (an upper bound if ``sensitivity_exact`` is False),
    ``noise_scale`` the scale of the added noise (0 for none), ``selected`` the indices of the
    released queries in the full family of ``n_candidates``.
    """

    queries: tuple[CountingQuery, ...]
    true_answers: np.ndarray
    released_answers: np.ndarray
    sensitivity: int
    noise_scale: float
    sensitivity_exact: bool = True
    selected: np.ndarray = field(default_factory=lambda: np.zeros(0, dtype=np.int64))
    n_candidates: int = 0


# =========================================================================== selection

def released_count(fraction: float | None, n_records: int, n_queries: int) -> int:
    """m = round(fraction · n_records), at least 1 and at most n_queries (paper 003 §4.3)."""
    if n_queries == 0:
        return 0
    if fraction is None:
        return n_queries
    return int(min(n_queries, max(1, round(float(fraction) * int(n_records)))))


def select_queries(n_queries: int, n_records: int, fraction: float | None,
                   rng: np.random.Generator) -> np.ndarray:
    """Indices (ascending) of the m queries released, drawn without replacement (§4.3)."""
    m = released_count(fraction, n_records, n_queries)
    if m >= n_queries:
        return np.arange(n_queries, dtype=np.int64)
    return np.sort(rng.choice(n_queries, size=m, replace=False)).astype(np.int64)


# =========================================================================== sensitivity

def _disjoint_groups(member: list[np.ndarray], n_q: int) -> np.ndarray:
    """Greedy cover of the queries by groups of pairwise disjoint queries.

    Two queries are disjoint when some column they both constrain has disjoint allowed sets; a
    record matches at most one query of a group. Cells of one contingency table end up in one
    group. Returns the group of each query.
    """
    overlap = np.ones((n_q, n_q), dtype=bool)
    for a in member:                          # a: (n_q, n_values) allowed-value indicators
        ai = a.astype(np.float32)
        overlap &= (ai @ ai.T) > 0
    disjoint = ~overlap
    group = np.full(n_q, -1, dtype=np.int64)
    ok: list[np.ndarray] = []                 # ok[g][q]: q is disjoint from every member of g
    for q in range(n_q):
        for g, row in enumerate(ok):
            if row[q]:
                group[q] = g
                row &= disjoint[q]
                break
        else:
            group[q] = len(ok)
            ok.append(disjoint[q].copy())
    return group


def release_sensitivity(domain: Domain, queries, *, max_nodes: int = 200_000
                        ) -> tuple[int, bool]:
    """L1 sensitivity of counting queries: max over all x in the domain of #{q : x ∈ q}.

    Exact branch and bound over the constrained columns. Values of a column that every query
    treats alike are merged into one class; queries are covered by groups of pairwise disjoint
    queries (each table's cells), and a partial assignment is bounded by the number of groups
    that still have a query consistent with it. Returns (value, exact); when more than
    ``max_nodes`` nodes would be explored, it stops with the best upper bound (exact=False),
    which is safe for calibration (more noise, never less).
    """
    queries = list(queries)
    n_q = len(queries)
    if n_q == 0:
        return 0, True
    cols = sorted({c for q in queries for c, _ in q.conditions})
    member: list[np.ndarray] = []
    classes: list[np.ndarray] = []
    for c in cols:
        a = np.ones((n_q, domain.sizes[c]), dtype=bool)
        for i, q in enumerate(queries):
            for cc, allowed in q.conditions:
                if cc == c:
                    a[i] = False
                    idx = [k for k in allowed if 0 <= k < domain.sizes[c]]
                    a[i, idx] = True
        member.append(a)
        classes.append(np.unique(a.T, axis=0))        # (n_classes, n_q)
    group = _disjoint_groups(member, n_q)
    n_g = int(group.max()) + 1
    gmat = np.zeros((n_q, n_g), dtype=np.float32)
    gmat[np.arange(n_q), group] = 1.0

    def bounds(alive_rows: np.ndarray) -> np.ndarray:
        return ((alive_rows.astype(np.float32) @ gmat) > 0).sum(axis=1)

    order = sorted(range(len(cols)), key=lambda i: classes[i].shape[0])
    root = np.ones(n_q, dtype=bool)
    root_bound = int(bounds(root[None, :])[0])
    if not cols:
        return n_q, True
    best = 0
    stack: list[tuple[int, np.ndarray, int]] = [(0, root, root_bound)]
    nodes = 0
    while stack:
        depth, alive, bound = stack.pop()
        if bound <= best:
            continue
        if depth == len(order):
            best = max(best, int(alive.sum()))
            continue
        nodes += 1
        if nodes > max_nodes:
            upper = max([best, bound] + [b for _, _, b in stack])
            return int(upper), False
        children = alive[None, :] & classes[order[depth]]
        cb = bounds(children)
        for k in np.argsort(cb, kind="stable"):     # best child last = explored first
            if cb[k] > best:
                stack.append((depth + 1, children[k], int(cb[k])))
    return best, True


# =========================================================================== noise

def release_noise_scale(spec: ReleaseSpec, sensitivity: float) -> float:
    """Scale (b, t or σ) of the noise for ``spec``: calibrated to Δ = 1 per query ("per_query",
    paper 003 §5.6) or to the release's L1 sensitivity ("release"). 0 without noise.

    The discrete Gaussian is calibrated to the integer L1 sensitivity, which bounds the L2
    sensitivity √Δ₁ of 0/1 changes from above (conservative).
    """
    if spec.mechanism == "none":
        return 0.0
    delta_1 = 1.0 if spec.budget == "per_query" else float(
        spec.sensitivity if spec.sensitivity is not None else sensitivity)
    if delta_1 <= 0:
        return 0.0          # no released query can count anybody: nothing to hide
    if spec.mechanism in ("discrete_laplace", "discrete_gaussian"):
        delta_1 = float(math.ceil(delta_1))
    return float(calibrated_scale(spec.mechanism, float(spec.epsilon),
                                  float(spec.delta) if spec.delta is not None else 0.5,
                                  delta_1))


def noisy_answers(true_answers, spec: ReleaseSpec, sensitivity: float,
                  rng: np.random.Generator) -> np.ndarray:
    """Released values: q(D) + noise, rounded to the nearest integer and clamped at 0 as the
    spec says (paper 003 §5.6: round(q_i(D) + n_i) with n_i ~ Laplace). Integer output
    (int64) when rounded or when the noise is discrete, float64 otherwise."""
    truth = np.asarray(true_answers)
    scale = release_noise_scale(spec, sensitivity)
    if scale > 0:
        noise = sample_noise(spec.mechanism, scale, truth.shape, rng)
        out = truth.astype(noise.dtype if noise.dtype.kind == "f" else np.int64) + noise
    else:
        out = truth.astype(np.int64 if truth.dtype.kind in "iub" else np.float64)
    if spec.rounding and out.dtype.kind == "f":
        out = np.rint(out).astype(np.int64)
    if spec.clamp:
        out = np.maximum(out, 0)
    return out


# =========================================================================== building

def candidate_queries(spec: ReleaseSpec, domain: Domain) -> list[CountingQuery]:
    """The full family of queries ``spec`` describes (before the random fraction)."""
    opt = dict(spec.options)
    if spec.kind == "p_tables":
        bins = opt.pop("age_bins", "census")
        if isinstance(bins, str):
            if bins not in _AGE_BINS:
                raise InputError(f"Unknown age grouping {given_value(bins)}; choose the census "
                                 f"groups (the 23 groups of table P12), five-year groups, or a "
                                 f"list of age ranges, each a lowest and a highest age.",
                                 setting="release_options.age_bins",
                                 key="age_bins")
            bins = _AGE_BINS[bins]
        return census_p_tables(domain, age_bins=bins, **_known(opt, (
            "age_col", "sex_col", "race_col", "hispanic_col", "hispanic_label",
            "white_label")))
    if spec.kind == "marginals":
        return marginals(domain, **_known(opt, ("ways", "buckets", "columns")))
    if spec.kind == "custom":
        return load_queries_file(_path(opt), domain)
    return load_published_table(_path(opt, ("missing",)), domain,
                                opt.get("missing", "drop_rows"))[0]


def _known(opt: Mapping[str, Any], names: tuple[str, ...]) -> dict[str, Any]:
    unknown = sorted(set(opt) - set(names))
    if unknown:
        raise InputError(f"Unknown release option '{unknown[0]}'; the options are "
                         f"{', '.join(names)}.", key=unknown[0])
    return dict(opt)


def _path(opt: Mapping[str, Any], extra: tuple[str, ...] = ()) -> Path:
    """The file option; ``extra``: the kind's other options (a published table's
    ``missing``: what to do with an empty count)."""
    if not opt.get("path"):
        raise InputError("This release kind reads a file: set the option 'path' to the CSV or "
                         "TOML file.", key="path")
    _known(opt, ("path", *extra))
    return Path(str(opt["path"]))


def build_release(spec: ReleaseSpec, domain: Domain, codes,
                  rng: np.random.Generator) -> Release:
    """Build the release of ``spec`` on the coded records (paper 003 §2.1, §4.1, §5.6).

    Order of random draws from ``rng``: the fraction's selection, then the noise; so the same
    seed gives the same release.
    """
    arr = domain.check_codes(codes)
    if spec.kind == "published":
        queries, counts = load_published_table(_path(spec.options, ("missing",)), domain,
                                               spec.options.get("missing", "drop_rows"))
        truth = answers(queries, arr)
        sens, exact = release_sensitivity(domain, queries)
        return Release(tuple(queries), truth, counts, sens, release_noise_scale(spec, sens),
                       exact, np.arange(len(queries), dtype=np.int64), len(queries))
    family = candidate_queries(spec, domain)
    chosen = select_queries(len(family), arr.shape[0], spec.fraction, rng)
    queries = [family[i] for i in chosen]
    truth = answers(queries, arr)
    sens, exact = release_sensitivity(domain, queries)
    released = noisy_answers(truth, spec, sens, rng)
    return Release(tuple(queries), truth, released, sens, release_noise_scale(spec, sens),
                   exact, chosen, len(family))
