"""The auditor's shortcuts for DeSIA's deterministic module (paper 003 §3.1, Alg. 1).

Alg. 1 asks whether the released counts allow the target's sensitive value to be anything but
v̂. The answer is a fact about the set of tables consistent with the release, so any sound way
of deciding it gives the same answer as the published two solves. The auditor, unlike the
attacker, holds the table the release was computed from (the *true table*), and that changes
what is cheap:

1. **The first solve is not needed.** The true table satisfies every constraint of Alg. 1 with
   the target unique, so its value is a feasible v̂ (the attacker would need a solve to find
   one; if the target is determined, it is the only feasible value anyway).
2. **"Not determined" has a small certificate.** A *witness table* is another table that gives
   every released count, has exactly one record with the target's quasi-identifiers, and gives
   that record another value — i.e. a solution of the second solve (the null constraint). One
   is searched for near the true table: the target's record changes its value from v̂ to w,
   and other records change between v̂ and w only, each keeping its other columns (so every
   count that does not read the sensitive column stays as it was). The unknowns are one
   integer per record class (the columns other than the sensitive one); a small CP-SAT model
   over the classes that hold a v̂ or a w record (first only those near the target's class:
   NEIGHBOURHOODS). A witness is then checked exactly against the
   release (integer, non-negative, every released count equal, the target still unique, its
   true record empty) before it is believed.
3. **"Determined" sometimes needs no solve.** If every other record with the target's
   quasi-identifiers lies in a released cell whose count is 0, nothing but the true record can
   hold the target (bound propagation: the paper's own upper bounds, which are 0 there).

Only a target for which neither shortcut settles the question goes to the full solve with the
null constraint — then one solve instead of two. ``desia_deterministic.infer`` runs these when
it is given the true table; ``infer_membership`` the same for DeSIA-MIA (§6.2), where the
witness flips the record's membership instead of its value (:func:`membership_witness`).

Measured and not taken: the LP relaxation (scipy's HiGHS) of the full model with the null
constraint, as a proof of "determined" when infeasible, took 2–20 s per target on the tract
table of bench/bench_tract.py (busy 2 cores) and was feasible and fractional for all 20
targets tried — slower than the witness search, which settled them.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import scipy.sparse as sp

from engine.aggregates.solver import solve
from engine.runtime import NEVER, CancelToken

# The witness search widens in steps: first only the classes that differ from the target's in
# at most two columns (what a move under 1- and 2-way marginals needs at least: the target, two
# records that each differ from it in one column, one that differs in both; measured on the
# tract table of bench/bench_tract.py it found a witness for 40 of 40 targets in a median
# 0.10 s, against 0.57 s over every class), then within three columns (what 3-way marginals
# need: on the same table released with its 1-, 2- and 3-way marginals, 4,273 cells, a median
# 0.88 s per target over 20 targets, against 4.42 s over 40 when the search went from two
# columns straight to every class), then every class.
NEIGHBOURHOODS = (2, 3, None)


@dataclass(frozen=True)
class ReleaseLayout:
    """What every target's shortcuts read that does not depend on the target: the released
    queries as one sparse 0/1 matrix, and the possible records arranged by class (the record's
    codes without the sensitive column) and sensitive value. Built once per release design."""

    matrix: sp.csc_matrix        # (m, T) 1 where query q counts possible record r
    by_class: np.ndarray         # (K, V) index of the record of class k with value v
    class_of: np.ndarray         # (T,) each record's class
    value_of: np.ndarray         # (T,) each record's sensitive value
    class_codes: np.ndarray      # (K, c − 1) each class's codes in the other columns

    @classmethod
    def of(cls, space, query_masks, sensitive_column: int) -> ReleaseLayout:
        codes = space.codes
        sizes = np.asarray(space.domain_sizes)
        others = [c for c in range(codes.shape[1]) if c != sensitive_column]
        class_of = (np.ravel_multi_index(tuple(codes[:, others].T), tuple(sizes[others]))
                    if others else np.zeros(codes.shape[0], dtype=np.int64))
        value_of = codes[:, sensitive_column].astype(np.int64)
        by_class = np.zeros((int(np.prod(sizes[others])) if others else 1,
                             int(sizes[sensitive_column])), dtype=np.int64)
        by_class[class_of, value_of] = np.arange(codes.shape[0])
        rows = [np.flatnonzero(mask) for mask in query_masks]
        matrix = sp.csc_matrix(
            (np.ones(sum(r.size for r in rows), dtype=np.int64),
             (np.repeat(np.arange(len(rows)), [r.size for r in rows]),
              np.concatenate(rows) if rows else np.zeros(0, dtype=np.int64))),
            shape=(len(rows), codes.shape[0]))
        class_codes = codes[by_class[:, 0]][:, others]
        return cls(matrix, by_class, np.asarray(class_of, dtype=np.int64), value_of,
                   class_codes)


def exact_answers(answers) -> np.ndarray | None:
    """The released answers as integers, or None if any is not a whole number (a noisy
    release: the true table is then not a solution, and no shortcut applies)."""
    a = np.asarray(answers, dtype=float)
    if not np.all(np.isfinite(a)) or not np.array_equal(a, np.round(a)):
        return None
    return a.astype(np.int64)


def reproduces(layout: ReleaseLayout, table: np.ndarray, answers: np.ndarray,
               n_records: int) -> bool:
    """Does ``table`` (a count per possible record) give every released count and |D| exactly,
    with no negative count?"""
    table = np.asarray(table)
    return bool(np.all(table >= 0) and int(table.sum()) == int(n_records)
                and np.array_equal(layout.matrix @ table, answers))


def is_witness(layout: ReleaseLayout, table: np.ndarray, answers: np.ndarray, n_records: int,
               target_mask: np.ndarray, true_record: int) -> bool:
    """The exact check of a witness table: it reproduces the release, exactly one record has
    the target's quasi-identifiers (the uniqueness constraint), and it is not the true one
    (the null constraint)."""
    return (reproduces(layout, table, answers, n_records)
            and int(np.asarray(table)[target_mask].sum()) == 1
            and int(table[true_record]) == 0)


def upper_bounds(layout: ReleaseLayout, answers: np.ndarray, n_records: int) -> np.ndarray:
    """Paper 003 §3.1's bound on each x_r: the smallest answer of a released query that counts
    r, and |D| (records no query counts)."""
    m = layout.matrix
    upper = np.full(m.shape[1], int(n_records), dtype=np.int64)
    counted = np.flatnonzero(np.diff(m.indptr) > 0)
    if counted.size:
        smallest = np.minimum.reduceat(answers[m.indices], m.indptr[counted])
        upper[counted] = np.minimum(upper[counted], smallest)
    return upper


def pinned_by_zeros(layout: ReleaseLayout, answers: np.ndarray, n_records: int,
                    target_mask: np.ndarray, true_record: int) -> bool:
    """True when every record with the target's quasi-identifiers other than the true one sits
    in a released cell with count 0: with the target unique, it can only be the true record."""
    upper = upper_bounds(layout, answers, n_records)
    others = target_mask.copy()
    others[true_record] = False
    return not np.any(upper[others] > 0)


def relabel_witness(layout: ReleaseLayout, truth: np.ndarray, answers: np.ndarray,
                    n_records: int, target_mask: np.ndarray, true_record: int, other: int, *,
                    near: int | None = None, time_limit: float, workers: int = 2, seed: int = 0,
                    cancel: CancelToken = NEVER) -> tuple[str, np.ndarray | None]:
    """Search for a witness table in which the target's record has value ``other`` and every
    record changes only between the true value and ``other`` within its class (module
    docstring, 2). Returns (status, table): "found" with the checked table, "none" when no
    such table exists (the neighbourhood is empty — the target may still be undetermined by a
    larger change), "time_limit" when the search was cut short."""
    return _relabel(layout, truth, answers, n_records, true_record, other, (1, 1),
                    lambda t: is_witness(layout, t, answers, n_records, target_mask,
                                         true_record),
                    near=near, time_limit=time_limit, workers=workers, seed=seed,
                    cancel=cancel)


def membership_witness(layout: ReleaseLayout, truth: np.ndarray, answers: np.ndarray,
                       n_records: int, record: int, other: int, *, near: int | None = None,
                       time_limit: float, workers: int = 2, seed: int = 0,
                       cancel: CancelToken = NEVER) -> tuple[str, np.ndarray | None]:
    """The same search for DeSIA-MIA (paper 003 §6.2): a table that reproduces the release and
    flips the record's membership — every copy of it moved to value ``other`` if it is in the
    true table, at least one record of its class moved from ``other`` onto it if not."""
    present = int(truth[record])
    moves = (present, present) if present else (-int(n_records), -1)
    return _relabel(layout, truth, answers, n_records, record, other, moves,
                    lambda t: reproduces(layout, t, answers, n_records)
                    and (int(t[record]) == 0) == bool(present),
                    near=near, time_limit=time_limit, workers=workers, seed=seed,
                    cancel=cancel)


def _relabel(layout: ReleaseLayout, truth: np.ndarray, answers: np.ndarray, n_records: int,
             record: int, other: int, moves: tuple[int, int], accept, *, near: int | None,
             time_limit: float, workers: int, seed: int,
             cancel: CancelToken) -> tuple[str, np.ndarray | None]:
    """The relabelling search: e_k records of class k move from ``record``'s value to
    ``other`` (negative: back), e for ``record``'s own class within ``moves``; ``accept`` is
    the exact check of the table found."""
    from ortools.sat.python import cp_model

    true_record = record
    v = int(layout.value_of[true_record])
    w = int(other)
    at_v, at_w = layout.by_class[:, v], layout.by_class[:, w]
    lose = truth[at_v]                     # class k can move at most this many records v → w
    gain = truth[at_w]                     # … and at most this many w → v
    target_class = int(layout.class_of[true_record])
    movable = (lose > 0) | (gain > 0)
    movable[target_class] = True
    if near is not None:      # only classes that differ from the target's in ≤ near columns
        differ = np.sum(layout.class_codes != layout.class_codes[target_class], axis=1)
        movable &= differ <= near
    live = np.flatnonzero(movable)
    # Moving e_k records of class k from v to w changes query q by e_k·(q(k, w) − q(k, v)).
    change = (layout.matrix[:, at_w[live]] - layout.matrix[:, at_v[live]]).tocsr()
    change.eliminate_zeros()
    model = cp_model.CpModel()
    e = [model.new_int_var(-int(gain[k]), int(lose[k]), f"e{k}") for k in live]
    mine = e[int(np.searchsorted(live, target_class))]
    model.add(mine >= moves[0])
    model.add(mine <= moves[1])
    for q in np.flatnonzero(np.diff(change.indptr) > 0):
        span = slice(change.indptr[q], change.indptr[q + 1])
        model.add(cp_model.LinearExpr.weighted_sum(
            [e[j] for j in change.indices[span]], [int(c) for c in change.data[span]]) == 0)
    status, solver = solve(model, time_limit=time_limit, workers=workers, cancel=cancel,
                           seed=seed)
    if status == "INFEASIBLE":
        return "none", None
    if status not in ("OPTIMAL", "FEASIBLE"):
        return "time_limit", None
    moved = np.array([solver.value(x) for x in e], dtype=np.int64)
    table = truth.astype(np.int64).copy()
    table[at_v[live]] -= moved
    table[at_w[live]] += moved
    if not accept(table):
        # Never expected: the model encodes exactly these conditions. A table that fails the
        # exact check is not evidence, so the caller goes on to the full solve.
        return "unchecked", None
    return "found", table
