"""Cost model of the count-tables audit (engine/audits/aggregates.py, paper 003).

Sizes, from the config alone: |D| = n records (``census_records``, the CSV's rows by
:mod:`engine.estimates.probe`, or ``published_records``), the attacker's n_aux records
(``census_auxiliary``, the auxiliary CSV's rows, or 9·|D| resampled), the audited columns'
domains (the census schema or the config's ``schema``; a CSV without one: its sampled distinct
values), hence the record space R = the product of the domains, k sensitive values and the
candidate statistics C (engine.aggregates.release.candidate_queries on that domain). The
release holds m = round(fraction·|D|) of them (at most C); from the candidates' conditions,
per released statistic on average, follow f = the statistics that can count a given target
(the stochastic module's features, one per table) and q = the statistics a record falls in.
T = min(``max_targets``, the records unique on their quasi-identifiers: counted as the game
counts them where the data is small enough to read before the run, :func:`counted_unique`,
else expected from the domains, :func:`targets`).

Per step, what it costs (constants measured by bench/estimates_aggregates.py):

* **Deterministic module** (DeSIA Alg. 1, every target; its Table 3 ablations one more call
  each): building the CP-SAT model and two solves, seconds per target read from a table over
  W = R·(1 + q) model terms (log–log; it grows faster than W) — at most twice
  ``solver_time_limit`` (a wall-clock limit) plus the build, so where solves hit the limit
  the limit is the estimate.
* **Stochastic module** (Alg. 2): ``n_shadow`` shadow datasets built once, seconds per shadow
  linear in n_aux (the sampling keys) and |D|·(1 + q) (the sparse answers); then one
  classifier per target, its seconds a function of the fit's work N·(features + 1)·classes
  (AIA: f features, k classes; MIA: all m, 2 classes) — for the logistic model a line over
  the measured fits' upper envelope (their iterations vary with the release), a log–log
  table per other model (the SVM's grows faster than the work); a noisy
  release also noises every target's N × m shadow answers (seconds per value).
* **Likelihood attack**: its own shadow datasets per target.
* **CIP** (rand / init): ``reconstructions`` solves per target, each from a table over W
  (the L1 model of a noisy release × a measured factor), at most ``solver_time_limit``
  (CP-SAT's deterministic time, about a second of one core per unit) plus the build; on a
  marginals release every solve × :data:`MARGINALS_SOLVE_FACTOR` (the deterministic module's
  too).
* **RAP**: 1,500 Adam epochs per target of K stacked relaxed datasets of |D| rows, seconds per
  epoch e0 + e1·K·|D|·(Σ domains + m), measured on one thread (what RAP uses below
  K·|D|·m = 2·10⁶; above it torch uses every core, so on a quiet machine the estimate errs
  long there, and on a busy one torch's threads can be slower still).
* **Membership game**: per target the membership check (as the deterministic module), CIP /
  RAP reconstructions if asked, and the MIA shadows and classifiers.
* **Sweeps**: each value of ``sweep_fractions`` / ``sweep_epsilons`` is the attribute game
  again with ``sweep_attacks`` on ``sweep_targets`` targets (at that value's m).
* **Published table**: the consistency solve and the deterministic module on up to
  10·``max_targets`` quasi-identifier combinations.

Memory: the imports the audit adds (OR-Tools, scikit-learn) and the record space with a mask
per released statistic, held throughout; the largest of: the shadow answers (N × m int64, the
MIA's pair of them with the classifier's copies: ``mia_copies``), RAP's stacked logits with
their gradients, Adam moments and activations (float32 per K·|D|·(Σ domains + m), and what
torch takes on first use), the CP-SAT model (bytes per term); every byte count × 1.2.
"""

from __future__ import annotations

import functools
import json
import math
import os
from dataclasses import dataclass, replace

import pandas as pd

from engine.aggregates.queries import Domain
from engine.aggregates.release import ReleaseSpec, candidate_queries
from engine.attacks.aggregates import ATTRIBUTE_ATTACKS, MEMBERSHIP_ATTACKS
from engine.attacks.aggregates.desia_deterministic import MAX_RECORD_TYPES
from engine.attacks.aggregates.rap import EPOCHS as RAP_EPOCHS
from engine.data.census import census_schema
from engine.data.column_roles import schema_without_config
from engine.data.microdata import Schema, infer_schema, unique_targets
from engine.data.paths import resolve_path
from engine.estimates import CostEstimate, CostPart, constants
from engine.estimates.probe import csv_sample, csv_shape
from engine.estimates.scaling import loglog
from engine.games.aggregates_data import AUXILIARY_RATIO, load_data

MEMORY_MARGIN = 1.2                  # every byte count: an estimate should rather err high
#: Above this many categories a quasi-identifier gets a warning before the run: ten times the
#: largest domain of paper 003's settings (age 0–115, 116 values), where the attacks were
#: measured. Each category multiplies the record space the exact attacks enumerate: on 1,000
#: records, a 10,000-value ZIP column took 97 s for 5 targets against 0.7 s per target with
#: 10 values (issue 18).
MANY_CATEGORIES = 1_000
#: Rows per file the estimate infers a schema from when the config has none: enough for a
#: column's range and its distinct values: 0.24 s on a busy machine where a megabyte of rows
#: (60,000 per file) took 10 s — the estimate follows the form as the user types.
INFER_ROWS = 2_000
BUILD_SHARE = 0.25                   # of a solver step's time: building the CP-SAT model
#: A CP-SAT solve on a marginals release against the P-tables' tables (``det_seconds``,
#: ``cip_seconds``) at the same model size W: its overlapping 1- and 2-way tables make each
#: solve ~7.5 times as long. Measured 28 Nov 2026 on 2 cores (CIP-rand, K = 4, exact and
#: Laplace): the 450-record sample block with 1- and 2-way marginals 0.23 s per solve (16
#: and 20 solves), census blocks of 300 records 0.225 s, where the tables say 0.03 s (the
#: same runs on the P-tables: 0.065 s against 0.048 s). Issue 33 item 5: runs with 2-way
#: marginals took 6–15 times their estimate.
MARGINALS_SOLVE_FACTOR = 7.5
STOCHASTIC = ("desia", "desia_no_verification", "desia_no_uniqueness", "desia_stochastic_only")


@dataclass(frozen=True)
class Shape:
    """The sizes a run's cost follows (module docstring)."""

    n: int                 # |D|
    n_aux: int             # the attacker's auxiliary records
    columns: int           # audited columns (quasi-identifiers + the sensitive one)
    record_space: float    # R
    domain_total: int      # Σ domain sizes (RAP's logits per row)
    k: int                 # sensitive values
    qi_cells: float        # product of the quasi-identifiers' domains
    candidates: int        # C
    tables_per_query: float    # f / m: statistics that can count a target, per released one
    cover_per_query: float     # q / m: statistics a record falls in, per released one
    qi_domains: tuple = ()     # (name, number of categories) of each quasi-identifier
    unique: int | None = None  # records unique on their quasi-identifiers, counted (None:
                               # too much data to read before the run; modelled instead)
    solve_factor: float = 1.0  # a solve's time against the P-tables' at the same size


def _path(path: str):
    return resolve_path(path)


@functools.lru_cache(maxsize=64)
def _domain_stats(schema_json: str, sensitive: str, kind: str, options_json: str,
                  fallback: tuple) -> tuple:
    """(sizes, k, qi_cells, C, tables/query, cover/query) of a schema and release kind — the
    candidate statistics built on the domain (no data read), or ``fallback`` when that fails."""
    try:
        schema = Schema.from_dict(json.loads(schema_json))
        if sensitive:
            schema = schema.with_roles(sensitive=sensitive)
        names = list(schema.quasi_identifiers) + [schema.sensitive]
        labels = [tuple(schema.column(c).labels()) for c in names]
        domain = Domain(tuple(names), tuple(labels))
        sizes = tuple(len(lab) for lab in labels)
        k = sizes[-1]
        qi_cells = float(math.prod(sizes[:-1]))
        qi = tuple(zip(names[:-1], sizes[:-1], strict=True))
        if kind in ("custom", "published"):
            return (sizes, k, qi_cells) + tuple(fallback[3:6]) + (qi,)
        family = candidate_queries(ReleaseSpec(kind=kind, options=json.loads(options_json)),
                                   domain)
        s = len(sizes) - 1
        match, cover = 0.0, 0.0
        for q in family:
            share = {c: len(allowed) / sizes[c] for c, allowed in q.conditions}
            cover += math.prod(share.values())
            match += math.prod(v for c, v in share.items() if c != s)
        c = max(len(family), 1)
        return sizes, k, qi_cells, c, match / c, cover / c, qi
    except Exception:               # the audit's own checks will say what is wrong
        return fallback


@functools.lru_cache(maxsize=16)
def _inferred_schema(paths: tuple[str, ...], _stamps: tuple, sensitive: str = "") -> str:
    """The schema the audit will infer (engine.data.microdata.infer_schema_from_csvs) from the
    first :data:`INFER_ROWS` rows of each file, as JSON; "" when that fails. Without it a CSV's integer column
    was sized by its sampled distinct values, not its range, and a column with a value in
    nearly every row was left out — a 10,000-value ZIP code was invisible to the estimate
    (issue 18)."""
    try:
        frames = []
        for p in paths:
            header, body = csv_sample(p)
            body = body[:INFER_ROWS]
            frames.append(pd.DataFrame([r[:len(header)] + [""] * (len(header) - len(r))
                                        for r in body], columns=list(header), dtype=str))
        if any(list(f.columns) != list(frames[0].columns) for f in frames):
            frames = frames[:1]
        inferred = infer_schema(pd.concat(frames, ignore_index=True))
        # The roles the audit will give a file without a [schema] (issue 33 item 4).
        schema, _ = schema_without_config(frames[0].apply(lambda c: c.str.strip()), inferred,
                                          sensitive)
        return json.dumps(schema.to_dict(), sort_keys=True)
    except Exception:               # the audit's own reading will say what is wrong
        return ""


def _stamp(path) -> tuple:
    try:
        st = os.stat(path)
        return (st.st_size, st.st_mtime_ns)
    except OSError:
        return ()


def shape(config) -> Shape:
    """The sizes of ``config``'s run without reading its data (module docstring)."""
    published = config.release == "published"
    data = csv_shape(_path(config.data)) if config.data else None
    if published:
        n = int(config.published_records) or 1
    elif config.data:
        n = data.rows if data is not None else 1000
    else:
        n = int(config.census_records)
    n = max(n, 2)
    if published:
        n_aux = max((data.rows if data is not None else 2 * n) - n, n)
    elif not config.data:
        n_aux = int(config.census_auxiliary)
    elif config.auxiliary:
        aux = csv_shape(_path(config.auxiliary))
        n_aux = aux.rows if aux is not None else AUXILIARY_RATIO * n
    else:
        n_aux = AUXILIARY_RATIO * n
    schema = dict(config.schema or {})
    sensitive = config.sensitive
    if not config.data:
        try:
            schema = census_schema(sensitive=sensitive or "race").to_dict()
        except Exception:
            schema = census_schema().to_dict()
        sensitive = ""
    # Without a schema: the CSV's columns with their sampled distinct values (the inferred
    # schema's domains), the last one sensitive unless named; generic release statistics.
    sizes = (2,) * 4
    if data is not None and data.columns:
        sizes = tuple(max(d, 1) for name, d in zip(data.columns, data.distinct, strict=False)
                      if d < 0.9 * max(data.rows, 1) and name != sensitive) \
            + ((max(data.distinct[list(data.columns).index(sensitive)], 2),)
               if sensitive in data.columns else ())
        sizes = sizes or (2,) * 4
    if not schema and config.data and data is not None:
        files = tuple(str(_path(f)) for f in (config.data, config.auxiliary) if f)
        inferred = _inferred_schema(files, tuple(_stamp(f) for f in files), sensitive or "")
        schema = json.loads(inferred) if inferred else {}
    release_rows = None
    if config.release in ("custom", "published"):
        q = csv_shape(_path(str(config.release_options.get("path", ""))))
        release_rows = q.rows if q is not None else None
    qi_fallback = ()
    if data is not None and data.columns:
        qi_fallback = tuple((name, max(d, 1)) for name, d in zip(data.columns, data.distinct,
                                                                 strict=False)
                            if d < 0.9 * max(data.rows, 1) and name != sensitive)
    fallback = (sizes, sizes[-1], float(math.prod(sizes[:-1])),
                release_rows or max(n, 1), 8.0 / max(release_rows or n, 1),
                3.0 / max(release_rows or n, 1), qi_fallback)
    if schema:
        stats = _domain_stats(json.dumps(schema, sort_keys=True), sensitive, config.release,
                              json.dumps(config.release_options, sort_keys=True, default=str),
                              fallback)
    else:
        stats = fallback
    sizes, k, qi_cells, c, per_match, per_cover, qi = stats
    if release_rows:
        c = release_rows
    return Shape(n, max(int(n_aux), 1), len(sizes), float(math.prod(sizes)), int(sum(sizes)),
                 int(k), float(qi_cells), int(c), float(per_match), float(per_cover), tuple(qi),
                 counted_unique(config),
                 MARGINALS_SOLVE_FACTOR if config.release == "marginals" else 1.0)


#: Data files up to this size (each) are read before the run to count the targets exactly
#: (the sample's 450 records: 10 ms); larger ones are modelled (:func:`targets`).
COUNT_TARGETS_BYTES = 2_000_000
_unique_cache: dict[tuple, int | None] = {}


def counted_unique(config) -> int | None:
    """The records unique on their quasi-identifiers exactly as the game finds them
    (engine.games.aggregates.setup_game: the data loaded as the audit loads it, then
    engine.data.microdata.unique_targets) — the synthetic census blocks generated (a few
    milliseconds), a data file read when every file is at most :data:`COUNT_TARGETS_BYTES`;
    None otherwise or when the data cannot be read (the audit will say why).

    Issue 33 item 5: the model of :func:`targets` said 29 targets where the game attacked 49,
    and every target's solves and classifiers were missing from the estimate."""
    files = [f for f in (config.data, config.auxiliary) if f]
    stamps = []
    for f in files:
        stamp = _stamp(_path(f))
        if not stamp or stamp[0] > COUNT_TARGETS_BYTES:
            return None
        stamps.append(stamp)
    key = (config.data, config.auxiliary, tuple(stamps),
           json.dumps(config.schema or {}, sort_keys=True), config.sensitive, config.release,
           int(config.published_records), int(config.seed), int(config.census_records),
           int(config.census_auxiliary))
    if key not in _unique_cache:
        try:
            _unique_cache[key] = int(unique_targets(load_data(config).protected).size)
        except Exception:           # the audit's own reading will say what is wrong
            _unique_cache[key] = None
        if len(_unique_cache) > 64:
            _unique_cache.pop(next(iter(_unique_cache)))
    return _unique_cache[key]


def released(sh: Shape, fraction: float, published: bool = False) -> int:
    """m: engine.aggregates.release.released_count."""
    if published or not fraction:
        return sh.candidates
    return int(min(sh.candidates, max(1, round(float(fraction) * sh.n))))


def targets(config, sh: Shape, limit: int | None = None) -> int:
    """Unique records attacked: at most the limit, and the records unique on their
    quasi-identifiers — counted where the data could be read before the run (``sh.unique``,
    :func:`counted_unique`), else expected: |D|·exp(−(|D|−1)/(share·cells)) for a small |D|, a
    floor share of the cells for a large one (the rare combinations: the oldest ages, the
    rarest races stay unique); both shares measured on census blocks."""
    limit = limit if limit is not None else config.max_targets
    if sh.unique is not None:
        return int(max(1, min(limit, sh.unique)))
    CAL = constants("aggregates")
    cells = max(CAL["unique_cell_share"] * sh.qi_cells, 1.0)
    unique = min(sh.n, max(sh.n * math.exp(-(sh.n - 1) / cells),
                           CAL["unique_floor_share"] * sh.qi_cells))
    return int(max(2, min(limit, math.ceil(unique))))


# --------------------------------------------------------------------------- unit costs

def _work(sh: Shape, m: int) -> float:
    """W: terms of a CP-SAT model (a variable per possible record, a term per record and
    released statistic it falls in)."""
    return min(sh.record_space, MAX_RECORD_TYPES) * (1.0 + sh.cover_per_query * m)


def infer_seconds(sh: Shape, m: int, limit: float, *, exact: bool = False) -> float:
    """One deterministic-module call: the measured table over W (log–log). As published
    (``det_seconds``: a noisy release, an ablation, a published table) at most two
    wall-clock-limited solves plus building the model (taken as a quarter of the time); with
    the auditor's shortcut from the true table (``exact``: an exact release's targets,
    engine.attacks.aggregates.desia_witness; ``witness_seconds``, measured up to tract scale)
    at most one solve."""
    CAL = constants("aggregates")
    if exact and "witness_seconds" in CAL:
        t = loglog(CAL["witness_seconds"], _work(sh, m))
        return min(t, BUILD_SHARE * t + limit)
    t = loglog(CAL["det_seconds"], _work(sh, m)) * sh.solve_factor
    return min(t, BUILD_SHARE * t + 2.0 * limit)


def cip_seconds(sh: Shape, m: int, limit: float, noisy: bool) -> float:
    """One CIP reconstruction: one solve limited in deterministic time (≈ seconds)."""
    CAL = constants("aggregates")
    t = loglog(CAL["cip_seconds"], _work(sh, m)) * (CAL["cip_l1_factor"] if noisy else 1.0) \
        * sh.solve_factor
    return min(t, BUILD_SHARE * t + limit)


def shadow_seconds(sh: Shape, n_shadow: int, m: int) -> float:
    a_aux, a_rec = constants("aggregates")["shadow_seconds"]
    return n_shadow * (a_aux * sh.n_aux + a_rec * sh.n * (1.0 + sh.cover_per_query * m))


def signal_classes(sh: Shape) -> float:
    """Classes of auxiliary records a target's signal cells tell apart: for tables and
    marginals, which of the target's quasi-identifier values a record shares (at most
    2^(columns − 1)), never more than the records."""
    return float(min(2.0 ** max(sh.columns - 1, 0), max(sh.n_aux, 1)))


def signal_shadow_seconds(sh: Shape, n_shadow: int, features: float, values: int) -> float:
    """One target's shadow datasets on its signal cells (desia_stochastic.SignalShadows):
    grouping the auxiliary records into classes (linear in n_aux), then per shadow a draw over
    the classes, a split over the re-drawn values and a product with ``features`` cells."""
    a_aux, b0, b1 = constants("aggregates")["signal_shadow_seconds"]
    return a_aux * sh.n_aux + n_shadow * (b0 + b1 * (signal_classes(sh) * values + features))


def _signal_shadow_bytes(sh: Shape, n_shadow: int, features: float, copies: float) -> float:
    """The (N × features) int64 shadow features ``copies`` times, and one chunk's class counts
    (desia_stochastic.CHUNK_CELLS int64 values, three arrays of them at most)."""
    return 8.0 * n_shadow * (features + 1) * copies + 3 * 8.0 * 4_000_000


def fit_seconds(model: str, n_shadow: float, features: float, classes: int) -> float:
    """One classifier of the stochastic module on ``n_shadow`` training shadows: linear in the
    work for the logistic model (its cross-validated fits converge in a number of iterations
    that hardly grows), a log–log table for the others (the SVM's kernel is quadratic)."""
    CAL = constants("aggregates")
    work = n_shadow * (features + 1.0) * classes
    if model in CAL["fit_linear"]:
        a, b = CAL["fit_linear"][model]
        return a + b * work
    table = CAL["fit_seconds"]
    return loglog(table.get(model) or next(iter(table.values())), work)


def rap_seconds(sh: Shape, k: int, m: int) -> float:
    e0, e1, setup = constants("aggregates")["rap_seconds"]
    return setup + RAP_EPOCHS * (e0 + e1 * k * sh.n * (sh.domain_total + m))


def _shadow_bytes(sh: Shape, n_shadow: int, m: int, copies: float) -> float:
    """The (N × m) int64 answers ``copies`` times, and one batch of sampling keys (float32
    keys over the auxiliary records, their int64 partition, the sampled indices)."""
    batch = min(n_shadow, max(16, min(2048, 20_000_000 // sh.n_aux)))
    return 8.0 * n_shadow * m * copies + 20.0 * batch * sh.n_aux


def _rap_bytes(sh: Shape, k: int, m: int) -> float:
    """torch's own working memory on first use, and the stacked tensors."""
    CAL = constants("aggregates")
    return CAL["rap_bytes"] + CAL["rap_bytes_per_cell"] * k * sh.n * (sh.domain_total + m)


def _solver_bytes(sh: Shape, m: int) -> float:
    return constants("aggregates")["solver_bytes_per_term"] * _work(sh, m)


# --------------------------------------------------------------------------- the games

def aia_parts(config, sh: Shape, *, attacks, n_targets: int, m: int, noisy: bool,
              label: str = "") -> list[CostPart]:
    """The attribute game (engine.games.aggregates.play_aia) with ``attacks``."""
    CAL = constants("aggregates")
    wanted = set(attacks)
    lim, K, N = float(config.solver_time_limit), int(config.reconstructions), \
        int(config.n_shadow)
    f = sh.tables_per_query * m
    parts = []
    if "best_of" in wanted:
        # The combination plays its candidates on the targets and, first, the proofs and the
        # candidates on its own shadow game's stand-in targets (engine.attacks.aggregates).
        entry = ATTRIBUTE_ATTACKS["best_of"]
        wanted |= set(entry.candidates)
        parts += aia_parts(config, sh, attacks=entry.candidates,
                           n_targets=entry.shadow_targets, m=m, noisy=noisy,
                           label=f"{label}Best-of rehearsal: ")
    solves = 1 + ("desia_no_verification" in wanted) + ("desia_no_uniqueness" in wanted)
    # The published variant takes the shortcut from the true table on an exact release; the
    # ablations always solve as published.
    parts.append(CostPart(f"{label}Looking for values the counts prove: {n_targets:,} targets × "
                          f"{solves} solver call(s) over {sh.record_space:,.0f} possible "
                          f"records and {m:,} released counts",
                          n_targets * (infer_seconds(sh, m, lim, exact=not noisy)
                                       + (solves - 1) * infer_seconds(sh, m, lim)),
                          _solver_bytes(sh, m), "max_targets", "deterministic"))
    if wanted & set(STOCHASTIC):
        parts.append(CostPart(
            f"{label}DeSIA's stochastic module: {N:,} shadow datasets and a "
            f"{config.model.replace('_', ' ')} classifier for each of {n_targets:,} targets",
            n_targets * (signal_shadow_seconds(sh, N, f, sh.k)
                         + fit_seconds(config.model, N * 2 / 3, f, sh.k)
                         + noisy * CAL["noise_seconds"] * N * f),
            _signal_shadow_bytes(sh, N, f, 1.0) + 8.0 * N * (f + 1) * sh.k * CAL["fit_copies"],
            "n_shadow", "stochastic"))
    if "likelihood" in wanted:
        parts.append(CostPart(f"{label}Likelihood attack: {N:,} shadow datasets per target "
                              f"({n_targets:,} targets)",
                              n_targets * shadow_seconds(sh, N, m),
                              _shadow_bytes(sh, N, max(f, 1.0), 2.0), "n_shadow",
                              "likelihood"))
    cips = [a for a in ("cip_rand", "cip_init") if a in wanted]
    if cips:
        parts.append(CostPart(f"{label}Table rebuilder: {len(cips) * K:,} reconstructions per target "
                              f"({n_targets:,} targets)",
                              n_targets * len(cips) * K * cip_seconds(sh, m, lim, noisy),
                              _solver_bytes(sh, m) + 4.0 * K * sh.n * sh.columns,
                              "reconstructions", "cip"))
    raps = [a for a in ("rap_rand", "rap_init") if a in wanted]
    if "desia_synthetic" in wanted and "rap_rand" not in raps:
        raps.append("rap_rand")
    if raps:
        parts.append(CostPart(f"{label}Approximate table rebuilder: {len(raps)} × {K:,} relaxed datasets trained "
                              f"{RAP_EPOCHS:,} epochs per target ({n_targets:,} targets)",
                              n_targets * len(raps) * rap_seconds(sh, K, m),
                              _rap_bytes(sh, K, m), "reconstructions", "rap"))
    return parts


def real_people_parts(config, sh: Shape, *, attacks, n_targets: int, m: int,
                      noisy: bool) -> list[CostPart]:
    """The attacks once more on the release as published, for the real people
    (engine.games.aggregates.play_aia, issue 32 item 1): the proofs per target again, the
    likelihood attack per target again, and each reconstruction kind once (one release for
    every target); the stochastic module's classifiers are reused, so they cost nothing more."""
    wanted = set(attacks)
    if "best_of" in wanted:
        wanted |= set(ATTRIBUTE_ATTACKS["best_of"].candidates)
    lim, K = float(config.solver_time_limit), int(config.reconstructions)
    solves = 1 + ("desia_no_verification" in wanted) + ("desia_no_uniqueness" in wanted)
    parts = [CostPart(f"Real people: looking for values the published counts prove, "
                      f"{n_targets:,} targets",
                      n_targets * (infer_seconds(sh, m, lim, exact=not noisy)
                                   + (solves - 1) * infer_seconds(sh, m, lim)),
                      _solver_bytes(sh, m), "max_targets", "real_people")]
    if "likelihood" in wanted:
        parts += [p for p in aia_parts(config, sh, attacks=("likelihood",),
                                       n_targets=n_targets, m=m, noisy=noisy,
                                       label="Real people: ")
                  if p.name == "likelihood"]
    once = [a for a in ("cip_rand", "cip_init", "rap_rand", "rap_init") if a in wanted]
    if "desia_synthetic" in wanted and "rap_rand" not in once:
        once.append("rap_rand")
    cips = [a for a in once if a.startswith("cip")]
    raps = [a for a in once if a.startswith("rap")]
    if cips:
        parts.append(CostPart(f"Real people: table rebuilder, {len(cips) * K:,} reconstructions of the "
                              "published release",
                              len(cips) * K * cip_seconds(sh, m, lim, noisy),
                              _solver_bytes(sh, m) + 4.0 * K * sh.n * sh.columns,
                              "reconstructions", "cip"))
    if raps:
        parts.append(CostPart(f"Real people: approximate table rebuilder, {len(raps)} × {K:,} relaxed datasets of "
                              "the published release", len(raps) * rap_seconds(sh, K, m),
                              _rap_bytes(sh, K, m), "reconstructions", "rap"))
    return parts


def mia_parts(config, sh: Shape, *, n_targets: int, m: int, noisy: bool, attacks=None,
              label: str = "", rehearsal: bool = False) -> list[CostPart]:
    """The membership game (engine.games.aggregates.play_mia) with ``attacks`` (default the
    config's). ``rehearsal``: best_of_mia's game on the attacker's own stand-ins, whose proofs
    take no shortcut from the true table (the attacker does not hold it)."""
    CAL = constants("aggregates")
    wanted = set(config.mia_attacks if attacks is None else attacks) or {"desia_mia"}
    lim, K, N = float(config.solver_time_limit), int(config.reconstructions), \
        int(config.n_shadow)
    rehearsed: list[CostPart] = []
    if "best_of_mia" in wanted:
        # The combination plays its candidates on the targets and, first, the membership
        # check and the candidates on its own shadow game's stand-ins (best_of.py).
        entry = MEMBERSHIP_ATTACKS["best_of_mia"]
        wanted |= set(entry.candidates)
        rehearsed = mia_parts(config, sh, attacks=entry.candidates,
                              n_targets=entry.shadow_targets, m=m, noisy=noisy,
                              label=f"{label}Best-of rehearsal: ", rehearsal=True)
    seconds = n_targets * infer_seconds(sh, m, lim, exact=not noisy and not rehearsal)
    memory = _solver_bytes(sh, m)
    what = "the membership check"
    setting = "max_targets"
    if "cip_rand_mia" in wanted:
        seconds += n_targets * K * cip_seconds(sh, m, lim, noisy)
        what += f", {K:,} CIP reconstructions"
        setting = "reconstructions"
    if "rap_rand_mia" in wanted:
        seconds += n_targets * rap_seconds(sh, K, m)
        memory = max(memory, _rap_bytes(sh, K, m))
        what += f", {K:,} RAP reconstructions"
        setting = "reconstructions"
    parts = rehearsed + [CostPart(f"{label}Membership game: {what} per target "
                                  f"({n_targets:,} targets)", seconds, memory, setting,
                                  "membership")]
    if wanted & {"desia_mia", "desia_mia_stochastic_only"}:
        f_mia = max(1.0, sh.tables_per_query * m)    # the target's own cell of each table
        parts.append(CostPart(
            f"{label}Membership game: {N:,} shadow datasets and a classifier for each of "
            f"{n_targets:,} targets, on the released counts that include the target",
            n_targets * (signal_shadow_seconds(sh, N, f_mia, 1)
                         + fit_seconds(config.model, N * 2 / 3, f_mia, 2)
                         + noisy * CAL["noise_seconds"] * N * f_mia),
            _signal_shadow_bytes(sh, N, f_mia, CAL["mia_copies"]), "n_shadow",
            "membership_stochastic"))
    return parts


def estimate(config) -> CostEstimate:
    CAL = constants("aggregates")
    sh = shape(config)
    published = config.release == "published"
    noisy = config.mechanism != "none"
    m = released(sh, config.fraction, published)
    T = targets(config, sh)
    parts = [CostPart(f"Loading {sh.n:,} records and drawing the release ({m:,} of "
                      f"{sh.candidates:,} counts)", CAL["overhead_seconds"], 0.0,
                      "data" if config.data else "census_records", "setup")]
    if published:
        combos = 10 * int(config.max_targets)
        parts.append(CostPart(f"Published table: consistency and {combos:,} combinations "
                              "of quasi-identifiers checked",
                              combos * infer_seconds(sh, m, float(config.solver_time_limit))
                              + min(max(float(config.solver_time_limit), 10.0),
                                    infer_seconds(sh, m, 1e9)),
                              _solver_bytes(sh, m), "max_targets", "published"))
    parts += aia_parts(config, sh, attacks=config.attacks, n_targets=T, m=m, noisy=noisy)
    if not published:
        parts += real_people_parts(config, sh, attacks=config.attacks, n_targets=T, m=m,
                                   noisy=noisy)
    if config.membership and not published:
        parts += mia_parts(config, sh, n_targets=T, m=m, noisy=noisy)
    sweep_t = targets(config, sh, int(config.sweep_targets))
    for key, values in (("sweep_fractions", config.sweep_fractions),
                        ("sweep_epsilons", config.sweep_epsilons)):
        if not values or (published and key == "sweep_fractions"):
            continue
        seconds, memory = 0.0, 0.0
        for v in values:
            mv = released(sh, v, published) if key == "sweep_fractions" else m
            sub = aia_parts(config, sh, attacks=config.sweep_attacks, n_targets=sweep_t,
                            m=mv, noisy=noisy if key == "sweep_fractions" else True)
            seconds += sum(p.seconds for p in sub)
            memory = max([memory] + [p.bytes for p in sub])
        what = "the share of counts released" if key == "sweep_fractions" else "ε"
        parts.append(CostPart(f"Sweep over {len(values)} values of {what}: the attribute game "
                              f"again each time ({sweep_t:,} targets)", seconds, memory, key,
                              "sweeps"))
    resident = (CAL["base_bytes"] + min(sh.record_space, MAX_RECORD_TYPES) * (4 * sh.columns + m)
                + 4.0 * sh.columns * (sh.n + sh.n_aux * (sh.k + 1)))
    notes = [many_categories_sentence(name, size, sh.n) for name, size in sh.qi_domains
             if size > MANY_CATEGORIES]
    if sh.record_space > MAX_RECORD_TYPES:
        notes.append(f"The columns allow {sh.record_space:,.0f} possible records, more than "
                     "the exact attacks enumerate: the run will stop and ask for coarser "
                     "columns.")
    return CostEstimate.from_parts("aggregates", MEMORY_MARGIN * resident,
                                   "data" if config.data else "census_records",
                                   [replace(p, bytes=MEMORY_MARGIN * p.bytes) for p in parts],
                                   notes)


def many_categories_sentence(column: str, categories: int, records: int) -> str:
    """The warning for a quasi-identifier with more than :data:`MANY_CATEGORIES` values. With
    values spread evenly, a share exp(−(n − 1)/d) of n people is alone on its value of a
    d-valued column, so the sentence says "most people are unique on it" only when that share
    is at least a half."""
    unique = math.exp(-(max(records, 1) - 1) / max(categories, 1))
    why = ("most people are unique on it alone, and " if unique >= 0.5 else "")
    return (f"Column '{column}' has {categories:,} different values, so {why}the audit's time "
            "and memory grow with the number of values (each multiplies the possible records "
            "the exact attacks go through); group it into bins before auditing (e.g. the first "
            "3 digits of a postcode, 10-year age bands).")
