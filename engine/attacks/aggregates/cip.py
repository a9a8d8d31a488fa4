"""CIP reconstruction baselines of paper 003 (§2.4–2.5, §5.6, §6.3): CIP-rand and CIP-init.

A *constraint integer program* reconstructs a dataset D' consistent with the released counts:
the unknowns are the multiplicities x_r ≥ 0 of every possible record r (the product of the
attribute domains), each released query's records sum to its answer and all multiplicities sum
to |D| — DeSIA's model (``desia_deterministic.build_model``) without the uniqueness constraint.
Paper 003 §2.5 turns reconstruction into attribute inference by

(a) solving K times "each time with a different seed and order of constraints" — here the seed
    of CP-SAT, the order of the query constraints *and* the order of the variables (a random
    permutation of the record space) change from one reconstruction to the next — giving
    tentative datasets D'_1 … D'_K; CIP-init (the variant "adapted to take advantage of the
    auxiliary dataset", §2.4) also hints every solve with a dataset of |D| records sampled from
    D_aux (CP-SAT ``AddHint``), a different sample per reconstruction;
(b) a majority vote over the sensitive values of the reconstructed records in the smallest
    non-empty L-neighbourhood of the target's quasi-identifiers (:func:`attribute_inference`).

Noise (§5.6): Laplace noise rounded to integers makes the counts inconsistent, and the exact
model infeasible. The paper only says that "CIP can handle some level of noise"; we handle it
the standard way: every query gets a deviation e_q = |Σ_{r∈q} x_r − â_q| and the solver
minimises Σ_q e_q (the L1 distance to the released answers) within the time limit, keeping
Σ_r x_r = |D|. With ``noisy=None`` the exact model is tried first and the L1 model used only if
the exact one is infeasible. The deviation is written in its linear split form (over- and
under-count variables, :func:`build_l1_model`), whose LP relaxation CP-SAT closes at once: on
a 150-record block with the full P-tables and Laplace ε = 0.5 per query, each L1 solve reaches
its proven optimum in about 0.05 s (40 targets × K = 5: 124 s with the ``add_abs_equality``
form, 18 s now on 2 shared cores, the same AUC within noise).

Reproducibility: every solve's limit is CP-SAT's *deterministic* time (``max_deterministic_time``,
:func:`solve_reproducibly`) on one worker by default, so a limit that binds cuts the search at
the same point on every run: a seed always gives the same reconstructions.

Cost (bench/bench_cip.py): the records each query counts are found once per release design
(:func:`release_design`, cached: a game asks for the same one for every target) and every
reconstruction's model is built from index lists — the very model the mask builders give
(a test compares the protos). The K solves are independent once the first has shown which
model the release needs, so they run up to :data:`SOLVES_AT_ONCE` at a time in threads, each
single-threaded with its draws taken in the one-by-one order: the same reconstructions. Under
noise each L1 solve usually runs to its limit (on the GSS 3-way marginals: objective about
twice the proven bound at 2 units, hardly better at 10), so the limit sets the cost.

The membership variant of §6.3 (:func:`membership_scores`) counts the reconstructions that hold
the target record itself (its 0-neighbourhood including the sensitive value); the paper predicts
"member" when that share exceeds ½.

The neighbourhood vote is shared with the RAP baselines (``engine.attacks.aggregates.rap``).
"""

from __future__ import annotations

import time
from collections import deque
from collections.abc import Sequence
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from functools import lru_cache

import numpy as np

from engine.aggregates.queries import CountingQuery, query_matrix
from engine.aggregates.solver import solve
from engine.attacks.aggregates.desia_deterministic import RecordSpace
from engine.runtime import NEVER, NO_PROGRESS, CancelToken, Progress, rng

MODES = ("rand", "init")


# =========================================================================== reconstructions

@dataclass
class Reconstructions:
    """K tentative reconstructed datasets D'_1 … D'_K (paper 003 §2.5).

    ``records`` is a (K, n, c) code array — reconstruction k is the multiset ``records[k]`` of
    n records. ``details`` holds method-specific diagnostics (solver statuses, losses, …).
    """

    records: np.ndarray
    method: str
    seconds: float
    details: dict = field(default_factory=dict)

    @property
    def k(self) -> int:
        return int(self.records.shape[0])


def _masks(space: RecordSpace, queries: Sequence[CountingQuery]) -> list[np.ndarray]:
    """Boolean (T,) mask of the possible records of each query (one sparse product)."""
    if not queries:
        return []
    mat = query_matrix(list(queries), space.codes).tocsr()
    out = []
    for i in range(mat.shape[0]):
        mask = np.zeros(space.codes.shape[0], dtype=bool)
        mask[mat.indices[mat.indptr[i]:mat.indptr[i + 1]]] = True
        out.append(mask)
    return out


@dataclass(frozen=True)
class ReleaseDesign:
    """Which possible records each released query counts, found once per release design.

    The K reconstructions of a target, and every target of a game, read the same queries over
    the same record space; only the answers and the random orders change. Finding the records
    of 1,538 queries over 3,200 possible records (the GSS study's 3-way marginals) took 0.39 s
    a target before, against 0.34 s for its three exact solves, so it is done once
    (:func:`release_design`) and each reconstruction only renumbers the records.
    ``indices[indptr[q]:indptr[q + 1]]`` are query q's records (ascending indices of
    ``space.codes``)."""

    space: RecordSpace
    indptr: np.ndarray
    indices: np.ndarray

    @property
    def n_queries(self) -> int:
        return int(self.indptr.size - 1)

    def members(self, position: np.ndarray, order: np.ndarray) -> list[np.ndarray]:
        """For each query of ``order`` (in that order), its records renumbered by
        ``position`` (record index → place in the permuted record space), ascending — what
        ``np.flatnonzero(mask[perm])`` gives for the query's mask."""
        return [np.sort(position[self.indices[self.indptr[q]:self.indptr[q + 1]]])
                for q in order]


@lru_cache(maxsize=2)
def release_design(sizes: tuple[int, ...], queries: tuple[CountingQuery, ...]) -> ReleaseDesign:
    """:class:`ReleaseDesign` of ``queries`` over the product of ``sizes``, cached for the
    last two designs (a game asks for the same one for every target)."""
    space = RecordSpace.of(sizes)
    if not queries:
        return ReleaseDesign(space, np.zeros(1, dtype=np.int64), np.zeros(0, dtype=np.int64))
    mat = query_matrix(list(queries), space.codes).tocsr()
    mat.sort_indices()
    return ReleaseDesign(space, mat.indptr.astype(np.int64), mat.indices.astype(np.int64))


def _variables(model, upper: np.ndarray) -> tuple[dict[int, object], list]:
    """One integer variable x_r in [0, upper[r]] per record with upper[r] > 0, created in
    record order and named ``x{r}`` (as :func:`build_model` does); also a record-indexed list
    holding each variable (None where the record is never built) for fast look-ups."""
    keep = np.flatnonzero(upper > 0)
    x = {}
    slot: list = [None] * upper.size
    for r, hi in zip(keep.tolist(), upper[keep].tolist(), strict=True):
        slot[r] = x[r] = model.new_int_var(0, hi, f"x{r}")
    return x, slot


def _exact_model_fast(n_space: int, members: list[np.ndarray], answers: np.ndarray, n: int):
    """The very model of ``desia_deterministic.build_model`` (no uniqueness constraint) for
    the queries' records ``members``: the same variables, constraints and order, so CP-SAT
    returns the same reconstruction; built with array operations instead of one Boolean mask
    per query (a test compares the two models' protos)."""
    from ortools.sat.python import cp_model

    upper = np.full(n_space, n, dtype=np.int64)
    if members:
        lengths = np.array([m.size for m in members])
        np.minimum.at(upper, np.concatenate(members), np.repeat(answers.astype(np.int64), lengths))
    model = cp_model.CpModel()
    x, slot = _variables(model, upper)
    for m, answer in zip(members, answers.tolist(), strict=True):
        built = [slot[r] for r in m[upper[m] > 0].tolist()]
        if built:
            model.add(cp_model.LinearExpr.sum(built) == int(answer))
        elif int(answer) != 0:
            model.add_bool_or([])          # a positive count over records forced to 0
    model.add(cp_model.LinearExpr.sum(list(x.values())) == n)
    return model, x


def _l1_model_fast(n_space: int, members: list[np.ndarray], answers: np.ndarray, n: int,
                   max_deviation: int | None):
    """The very model of :func:`build_l1_model` for the queries' records ``members`` (same
    variables, constraints and order; a test compares the protos), built with array
    operations."""
    from ortools.sat.python import cp_model

    upper = np.full(n_space, n, dtype=np.int64)
    if max_deviation is not None and members:
        lengths = np.array([m.size for m in members])
        caps = np.maximum(0, answers.astype(np.int64) + int(max_deviation))
        np.minimum.at(upper, np.concatenate(members), np.repeat(caps, lengths))
    model = cp_model.CpModel()
    x, slot = _variables(model, upper)
    deviations = []
    for i, (m, a) in enumerate(zip(members, answers.tolist(), strict=True)):
        built = [slot[r] for r in m[upper[m] > 0].tolist()]
        a = int(a)
        hi_over = max(0, n - a) if max_deviation is None else int(max_deviation)
        hi_under = max(0, a) if max_deviation is None else min(max(0, a), int(max_deviation))
        over = model.new_int_var(0, hi_over, f"p{i}")
        under = model.new_int_var(0, hi_under, f"m{i}")
        model.add(cp_model.LinearExpr.sum(built) - over + under == a if built
                  else under - over == a)
        deviations += [over, under]
    model.add(cp_model.LinearExpr.sum(list(x.values())) == n)
    model.minimize(cp_model.LinearExpr.sum(deviations))
    return model, x


def build_l1_model(space: RecordSpace, query_masks: list[np.ndarray], answers: np.ndarray,
                   n_records: int, max_deviation: int | None = None):
    """CP-SAT model for noisy answers (paper 003 §5.6): Σ_r x_r = |D| and minimise
    Σ_q |Σ_{r∈q} x_r − â_q|. ``max_deviation`` (optional) bounds each |deviation| and then also
    bounds x_r by min_q (â_q + max_deviation). Returns (model, variables by record index).

    Each deviation is split into its positive and negative parts, Σ_{r∈q} x_r − p_q + m_q = â_q
    with p_q, m_q ≥ 0, and the objective is Σ_q (p_q + m_q): the textbook linear form of the L1
    fit. At an optimum one of p_q, m_q is 0, so the objective is the L1 distance and the
    optimal reconstructions are exactly those of the |·| form, but the model stays linear: its
    LP relaxation is the L1 linear program itself, which CP-SAT solves and closes in about a
    tenth of the time it needs with ``add_abs_equality`` (measured on the 150-record P-tables,
    0.1 s against 0.5–1.6 s a solve).
    """
    from ortools.sat.python import cp_model

    n = int(n_records)
    upper = np.full(space.codes.shape[0], n, dtype=np.int64)
    if max_deviation is not None:
        for mask, answer in zip(query_masks, answers, strict=True):
            upper[mask] = np.minimum(upper[mask], max(0, int(answer) + int(max_deviation)))
    keep = np.flatnonzero(upper > 0)
    model = cp_model.CpModel()
    x = {int(r): model.new_int_var(0, int(upper[r]), f"x{r}") for r in keep}
    deviations = []
    for i, (mask, answer) in enumerate(zip(query_masks, answers, strict=True)):
        members = [x[r] for r in np.flatnonzero(mask) if r in x]
        a = int(answer)
        # Σ members ∈ [0, n], so the count exceeds â by at most n − â and falls short by at
        # most â (only one of the two parts is positive at an optimum).
        hi_over = max(0, n - a) if max_deviation is None else int(max_deviation)
        hi_under = max(0, a) if max_deviation is None else min(max(0, a), int(max_deviation))
        over = model.new_int_var(0, hi_over, f"p{i}")
        under = model.new_int_var(0, hi_under, f"m{i}")
        model.add(sum(members) - over + under == a if members else under - over == a)
        deviations += [over, under]
    model.add(sum(x.values()) == n)
    model.minimize(sum(deviations))
    return model, x


def solve_reproducibly(model, *, time_limit: float, workers: int = 1,
                       cancel: CancelToken = NEVER, seed: int = 0):
    """Solve ``model`` like ``solver.solve`` (cancel watchdog, then ``cancel.check()``), but
    with ``time_limit`` as CP-SAT's *deterministic* time limit (``max_deterministic_time``:
    counted in work units, about a second each on a current core — measured 11.0 units in
    10.0 s on the hard noisy model of the tests). A limit that binds then stops the search at
    the same point on every run and machine, so a seed gives the same reconstructions even when
    the solver is cut short; with ``workers=1`` the search itself is deterministic too. A
    wall-clock backstop of WALL_BACKSTOP × ``time_limit`` + 5 s only guards against a much
    slower machine. Returns (status name, solver)."""
    return solve(model, time_limit=time_limit, workers=workers, cancel=cancel, seed=seed,
                 deterministic=True)


def _hint(model, x: dict[int, object], space_index: np.ndarray, sample: np.ndarray,
          sizes: tuple[int, ...]) -> None:
    """AddHint every variable with the multiplicities of ``sample`` (codes) — CIP-init."""
    flat = np.ravel_multi_index(tuple(sample.T.astype(np.int64)), sizes)
    counts = np.bincount(flat, minlength=int(np.prod(sizes, dtype=np.int64)))
    for r, var in x.items():
        model.add_hint(var, int(counts[space_index[r]]))


def _extract(solver, x: dict[int, object], codes: np.ndarray) -> np.ndarray:
    idx = np.fromiter(x.keys(), dtype=np.int64, count=len(x))
    mult = np.fromiter((solver.value(v) for v in x.values()), dtype=np.int64, count=len(x))
    return np.repeat(codes[idx], mult, axis=0)


# Reconstructions solved at once by default: each solve stays single-threaded (so it is
# deterministic) and the K solves of one release, which do not depend on one another, share
# the two cores the app plans a job for (the deterministic module runs CP-SAT on 2 workers).
SOLVES_AT_ONCE = 2


@dataclass(frozen=True)
class _Draw:
    """What reconstruction j draws from the seeded stream, in the order it always drew it."""

    perm: np.ndarray                  # order of the variables (a permutation of the records)
    order: np.ndarray                 # order of the constraints
    solve_seed: int
    sample: np.ndarray | None         # CIP-init's hint: |D| auxiliary records


def _solve_one(draw: _Draw, design: ReleaseDesign, released: np.ndarray, n: int, *,
               use_l1: bool, exact_then_l1: bool, max_deviation: int | None,
               time_limit: float, workers: int, cancel: CancelToken
               ) -> tuple[list[str], np.ndarray | None, bool]:
    """One tentative reconstruction (paper 003 §2.5 (a)) from its draw: the exact model
    unless ``use_l1``; when that is infeasible and ``exact_then_l1``, the L1 model of §5.6.
    Returns (solver statuses, the records or None, whether the L1 model is now in use); a
    status ends in "_WALL_CLOCK" when the wall-clock backstop, not the deterministic limit,
    stopped the search (then the result may differ from run to run)."""
    sizes = design.space.domain_sizes
    perm = draw.perm
    space = RecordSpace(sizes, design.space.codes[perm])
    position = np.empty_like(perm)
    position[perm] = np.arange(perm.size)
    members = design.members(position, draw.order)   # records renumbered as in ``space``
    qa = released[draw.order]
    def solve(built):
        """One solve of ``built`` (model, variables) with this draw's hint and seed: its
        status, the status as recorded, and the records found (None when none was)."""
        model, x = built
        if draw.sample is not None:
            _hint(model, x, perm, draw.sample, sizes)
        status, solver = solve_reproducibly(model, time_limit=time_limit, workers=workers,
                                            cancel=cancel, seed=draw.solve_seed)
        found = (_extract(solver, x, space.codes) if status in ("OPTIMAL", "FEASIBLE")
                 else None)
        return status, status + _wall_clock_mark(status, solver, time_limit), found

    statuses: list[str] = []
    result = None
    if not use_l1:
        status, recorded, result = solve(_exact_model_fast(perm.size, members, qa, n))
        if status == "INFEASIBLE" and exact_then_l1:
            use_l1 = True
        statuses.append(recorded)
    if use_l1 and result is None:
        _, recorded, result = solve(_l1_model_fast(perm.size, members, qa, n, max_deviation))
        statuses.append("L1_" + recorded)
    return statuses, result, use_l1


def _wall_clock_mark(status: str, solver, time_limit: float) -> str:
    """"_WALL_CLOCK" when a search that did not finish stopped before its deterministic
    limit: the wall-clock backstop of ``solve_reproducibly`` cut it (a very busy machine)."""
    if status in ("FEASIBLE", "UNKNOWN") and solver.deterministic_time < 0.99 * time_limit:
        return "_WALL_CLOCK"
    return ""


def reconstruct_cip(domain_sizes: Sequence[int], queries: Sequence[CountingQuery],
                    released, n_records: int, *, k: int = 100, mode: str = "rand",
                    auxiliary=None, noisy: bool | None = None,
                    max_deviation: int | None = None, time_limit: float = 10.0,
                    workers: int = 1, seed: int = 0, progress: Progress = NO_PROGRESS,
                    cancel: CancelToken = NEVER,
                    solves_at_once: int = SOLVES_AT_ONCE) -> Reconstructions:
    """K CIP reconstructions (paper 003 §2.5, "CIP-rand" / "CIP-init").

    ``domain_sizes``: values per column (the possible records are their product);
    ``queries`` with ``released`` answers; ``n_records`` = |D| (known to the attacker).
    ``mode="init"`` needs ``auxiliary`` codes (D_aux) to hint each solve. ``noisy``: True uses
    the L1 model of §5.6 directly, False the exact model only, None the exact model and the L1
    model if it is infeasible. ``time_limit`` bounds each solve in CP-SAT's deterministic time
    units (about a second of one core each; a wall-clock backstop of 3× + 5 s guards slow
    machines); an L1 solve stopped by it keeps its best solution so far ("L1_FEASIBLE"). A
    solve that finds no solution within the limit is left out (``details["failed"]``); if
    every one fails the result has K = 0.

    ``solves_at_once``: the K solves are independent once the first has settled which model
    the release needs (exact, or L1 when the exact one is infeasible), so up to this many run
    in threads at the same time (CP-SAT releases the interpreter while it searches); each
    draws its seed, orders and hint from the seeded stream in the order of the one-by-one
    loop, so the reconstructions do not depend on it. ``workers`` is CP-SAT's own threads per
    solve: deterministic per ``seed`` with ``workers=1`` (the default; single-threaded search,
    deterministic time limit), even when the limit binds. Progress is reported and ``cancel``
    honoured after every solve; a solve in progress is stopped by the solver's cancel watchdog
    and raises JobCancelled.
    """
    if mode not in MODES:
        raise ValueError(f"mode must be one of {MODES}, got {mode!r}")
    if int(k) < 1:
        raise ValueError(f"k must be at least 1, got {k!r}")
    start = time.perf_counter()
    sizes = tuple(int(s) for s in domain_sizes)
    design = release_design(sizes, tuple(queries))
    released = np.asarray(released)
    if released.dtype.kind == "f":
        released = np.rint(released)
    released = released.astype(np.int64)
    n = int(n_records)
    aux = None
    if mode == "init":
        if auxiliary is None or len(auxiliary) == 0:
            raise ValueError("CIP-init needs auxiliary records to sample the hints from")
        aux = np.asarray(auxiliary, dtype=np.int64)
    g = rng(seed, "cip", mode)
    n_space = design.space.codes.shape[0]
    k = int(k)

    def draw() -> _Draw:
        perm = g.permutation(n_space)
        order = g.permutation(design.n_queries)
        solve_seed = int(g.integers(0, 2**31 - 1))
        sample = aux[g.integers(0, aux.shape[0], n)] if aux is not None else None
        return _Draw(perm, order, solve_seed, sample)

    use_l1 = bool(noisy)
    settled = noisy is not None        # which model every solve uses is known
    statuses: list[str] = []
    results: list[np.ndarray | None] = []

    def done(j: int, got_statuses: list[str], result) -> None:
        statuses.extend(got_statuses)
        results.append(result)
        progress((j + 1) / k, f"Rebuilding the table: {j + 1} of {k}")

    solve_kw = dict(exact_then_l1=noisy is None, max_deviation=max_deviation,
                    time_limit=time_limit, workers=workers, cancel=cancel)
    j = 0
    # One by one until the model is settled: an exact solve that finds a dataset shows the
    # exact model feasible (for every order: the orders only rename it), an infeasible one
    # switches to L1 for good; a solve cut short by its limit settles nothing.
    while j < k and not settled:
        cancel.check()
        got, result, use_l1 = _solve_one(draw(), design, released, n, use_l1=use_l1,
                                         **solve_kw)
        settled = use_l1 or result is not None
        done(j, got, result)
        j += 1
    if j < k:
        threads = max(1, min(int(solves_at_once), k - j))
        pool = ThreadPoolExecutor(max_workers=threads, thread_name_prefix="cip-solve")
        try:
            pending: deque = deque()
            while j < k or pending:
                # Draw in the main thread, in j order, with at most ``threads`` in flight.
                while j < k and len(pending) < threads:
                    cancel.check()
                    pending.append((j, pool.submit(_solve_one, draw(), design, released, n,
                                                   use_l1=use_l1, **solve_kw)))
                    j += 1
                i, future = pending.popleft()
                got, result, _ = future.result()
                done(i, got, result)
        finally:
            pool.shutdown(wait=True, cancel_futures=True)
    out = [r.astype(np.int32) for r in results if r is not None]
    failed = sum(r is None for r in results)
    records = (np.stack(out) if out else np.zeros((0, n, len(sizes)), dtype=np.int32))
    return Reconstructions(records, f"cip-{mode}", time.perf_counter() - start,
                           {"statuses": statuses, "failed": failed, "l1": use_l1})


# =========================================================================== inference

@dataclass
class AttributeInference:
    """Neighbourhood vote for many targets (paper 003 §2.5).

    ``scores[t, v]``: share of the votes for sensitive value v; ``predictions[t]``: the most
    voted value (ties broken uniformly at random, as in the paper); ``level[t]``: the L of the
    neighbourhood used (-1 when there were no records at all).
    """

    scores: np.ndarray
    predictions: np.ndarray
    level: np.ndarray


def attribute_inference(recon: Reconstructions | np.ndarray, targets, sensitive_column: int,
                        n_values: int, *, qi_columns: Sequence[int] | None = None,
                        vote: str = "pooled", seed: int = 0,
                        chunk: int = 64) -> AttributeInference:
    """Majority vote in the smallest non-empty L-neighbourhood (paper 003 §2.5).

    ``targets``: (t, c) codes (only the quasi-identifier columns are read); ``qi_columns``:
    the non-sensitive attributes A' compared (default every column but the sensitive one).
    The L-neighbourhood holds the reconstructed records that differ from the target in exactly
    L quasi-identifiers.

    * ``vote="pooled"`` (the paper's definition): the neighbourhood is taken over the union of
      the K reconstructions, L the smallest with a record in any of them, and the score of v is
      the share of its records with value v.
    * ``vote="per_reconstruction"``: every reconstruction takes its own smallest non-empty
      neighbourhood and votes for its majority value (ties split evenly); the score of v is the
      share of the K votes.
    """
    if vote not in ("pooled", "per_reconstruction"):
        raise ValueError(f"vote must be 'pooled' or 'per_reconstruction', got {vote!r}")
    data = recon.records if isinstance(recon, Reconstructions) else np.asarray(recon)
    tgt = np.atleast_2d(np.asarray(targets))
    c = tgt.shape[1]
    qi = [j for j in range(c) if j != sensitive_column] if qi_columns is None \
        else [int(j) for j in qi_columns]
    nv = int(n_values)
    t = tgt.shape[0]
    scores = np.zeros((t, nv))
    level = np.full(t, -1, dtype=np.int64)
    if data.size and t:
        kk, n, _ = data.shape
        flat_qi = data[:, :, qi].reshape(kk * n, len(qi))
        sens = data[:, :, sensitive_column].reshape(kk * n).astype(np.int64)
        for lo in range(0, t, chunk):
            block = tgt[lo:lo + chunk][:, qi]
            dist = (flat_qi[None, :, :] != block[:, None, :]).sum(axis=2)      # (b, K·n)
            for b in range(block.shape[0]):
                d = dist[b]
                if vote == "pooled":
                    lvl = int(d.min())
                    hit = d == lvl
                    counts = np.bincount(sens[hit], minlength=nv)[:nv].astype(float)
                    scores[lo + b] = counts / counts.sum()
                    level[lo + b] = lvl
                else:
                    dk = d.reshape(kk, n)
                    best = dk.min(axis=1)                                      # (K,)
                    hit = dk == best[:, None]
                    onehot = np.zeros((kk, n, nv))
                    onehot[np.arange(kk)[:, None], np.arange(n)[None, :],
                           np.minimum(sens.reshape(kk, n), nv - 1)] = hit
                    per = onehot.sum(axis=1)                                   # (K, nv)
                    win = per == per.max(axis=1, keepdims=True)
                    scores[lo + b] = (win / win.sum(axis=1, keepdims=True)).sum(axis=0) / kk
                    level[lo + b] = int(best.max())
    g = rng(seed, "reconstruction-vote")
    predictions = np.zeros(t, dtype=np.int64)
    for i in range(t):
        if scores[i].sum() == 0:
            predictions[i] = int(g.integers(0, nv))
            continue
        top = np.flatnonzero(scores[i] == scores[i].max())
        predictions[i] = int(top[0] if top.size == 1 else g.choice(top))
    return AttributeInference(scores, predictions, level)


def unique_match_votes(records: np.ndarray, target: np.ndarray, s: int, n_values: int
                       ) -> np.ndarray:
    """The "synthetic data + uniqueness" row of paper 003 Table 3: the value a reconstruction
    gives the target when exactly one of its records has the target's quasi-identifiers (the
    uniqueness the attacker knows), without verification; shares over the K reconstructions
    that have one such record, uniform when none has."""
    hit = (records[:, :, :s] == target[None, None, :s]).all(axis=2)          # (K, n)
    one = hit.sum(axis=1) == 1
    if not one.any():
        return np.full(n_values, 1.0 / n_values)
    values = records[one][hit[one]][:, s]
    counts = np.bincount(values, minlength=n_values)[:n_values].astype(float)
    return counts / counts.sum()


def membership_scores(recon: Reconstructions | np.ndarray, targets, *,
                      max_distance: int = 0) -> np.ndarray:
    """MIA variant (paper 003 §6.3): per target record (all columns, sensitive included), the
    share of the K reconstructions holding a record within ``max_distance`` differing values
    (0: the record itself). The paper predicts "member" when the share exceeds ½."""
    data = recon.records if isinstance(recon, Reconstructions) else np.asarray(recon)
    tgt = np.atleast_2d(np.asarray(targets))
    if data.size == 0:
        return np.zeros(tgt.shape[0])
    out = np.zeros(tgt.shape[0])
    for i, row in enumerate(tgt):
        d = (data != row[None, None, :]).sum(axis=2)                           # (K, n)
        out[i] = float(np.mean((d <= int(max_distance)).any(axis=1)))
    return out
