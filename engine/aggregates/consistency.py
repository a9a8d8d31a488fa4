"""Can a published table's counts all be true at once? (paper 003, DeSIA's model, run on the
counts alone.)

DeSIA's deterministic module (paper 003 §3.1, Alg. 1) writes the release as integer
constraints on the multiplicity x_r ≥ 0 of every possible record r: each released count
q(D) = Σ_{r ∈ q} x_r and |D| = Σ_r x_r. When a user brings an already-published table, those
constraints may have *no* solution — a typing error, a table that was noised or rounded, cells
from two different data sets, or a wrong |D|. Then every later inference is meaningless (an
infeasible model "determines" nothing), so the audit should stop with a sentence that says
which rows conflict.

:func:`check_published_consistency` solves that model with CP-SAT. It first merges the
possible records that no row can tell apart: two records in exactly the same published rows
only ever appear through the sum of their multiplicities, so one variable per *signature*
(set of rows containing it) gives the same answer with far fewer variables. A feasible model
returns a :class:`ConsistencyReport`.

Most real conflicts are a sum that does not match: the cells of one table that split a row
(or the whole population) add up to another number than that row (or |D|), or cells that all
lie inside a row add up to more than it. Those are found first, without the solver, by
comparing each row with the disjoint rows of each table inside it (a "table" is the rows
that condition on the same columns); the sentence then names that row and those cells. Any
other conflict is left to CP-SAT. The model is first solved as plain equalities. If that is
infeasible, it is solved once more with one assumption literal per row (and one for the
total): ``sufficient_assumptions_for_infeasibility`` gives a conflicting set, used only after
a plain re-solve proves it. That set is then shrunk by a deletion filter: drop a block of rows,
re-solve the remaining rows as plain equalities, and keep the drop if they are still
infeasible. Blocks halve down to single rows, under a bounded number of solves; enforced
equalities are weak for CP-SAT's LP, so the filter never solves with assumptions. Every solve
uses one worker and a fixed seed, so the rows named do not change from run to run.
"""

from __future__ import annotations

import math
import time
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from engine.aggregates.queries import CountingQuery, Domain
from engine.aggregates.solver import solve
from engine.data.errors import InputError, given_value
from engine.runtime import NEVER, CancelToken

MAX_POINTS = 5_000_000        # record kinds (after merging look-alike values) we enumerate
MAX_WORK = 200_000_000        # rows × record kinds evaluated while computing signatures
MAX_RESOLVES = 150            # solves when shrinking a conflict
MAX_SPLIT_ROWS = 3_000        # rows up to which the sum checks run before the solver
_DESCRIBE = 4                 # rows described with their conditions in a message
_LIST = 8                     # row ranges listed in a message before "and N more rows"
_SEED = 0
_TOTAL = -1                   # id of the |D| constraint among the assumption ids


@dataclass(frozen=True)
class ConsistencyReport:
    """What the check found when it did not raise.

    ``consistent`` is True when some set of records gives every published count (and the
    total), None when the check could not decide (``status`` "time_limit", "too_large" or
    "not_checked");
    ``note`` is one sentence for the result or the warnings. An inconsistent table raises
    :class:`InputError` instead of returning.
    """

    consistent: bool | None
    status: str                  # "consistent" | "time_limit" | "too_large" | "not_checked"
    note: str
    rows: int                    # published rows checked
    n_variables: int             # record kinds in the model (0 when not built)
    seconds: float


# --------------------------------------------------------------------------- signatures

def _value_classes(domain: Domain, queries: Sequence[CountingQuery], col: int
                   ) -> tuple[np.ndarray, np.ndarray]:
    """Values of ``col`` that every row treats alike share a class: (class of each value,
    one representative value per class)."""
    size = domain.sizes[col]
    patterns = []
    for q in queries:
        for c, allowed in q.conditions:
            if c == col:
                m = np.zeros(size, dtype=bool)
                if allowed:
                    m[np.fromiter(allowed, dtype=np.int64)] = True
                patterns.append(m)
    if not patterns:
        return np.zeros(size, dtype=np.int64), np.zeros(1, dtype=np.int64)
    mat = np.packbits(np.stack(patterns, axis=1), axis=1)
    _, first, inverse = np.unique(mat, axis=0, return_index=True, return_inverse=True)
    return inverse.reshape(-1).astype(np.int64), first.astype(np.int64)


def _signatures(domain: Domain, queries: Sequence[CountingQuery], cancel: CancelToken
                ) -> tuple[list[np.ndarray], int] | tuple[None, int]:
    """For each row, the record kinds (signature classes) it counts, and how many kinds there
    are; (None, size) when the space is too large to enumerate."""
    cols = sorted({c for q in queries for c, _ in q.conditions})
    reps = []
    for c in cols:
        _, r = _value_classes(domain, queries, c)
        reps.append(r)
    points = math.prod(len(r) for r in reps) if reps else 1
    if points > MAX_POINTS or points * max(len(queries), 1) > MAX_WORK:
        return None, points
    grid = np.indices(tuple(len(r) for r in reps), dtype=np.int32).reshape(len(reps), -1).T \
        if reps else np.zeros((1, 0), dtype=np.int32)
    codes = np.empty(grid.shape, dtype=np.int64)
    for t, r in enumerate(reps):
        codes[:, t] = r[grid[:, t]]
    pos = {c: t for t, c in enumerate(cols)}

    def mask(q: CountingQuery) -> np.ndarray:
        out = np.ones(codes.shape[0], dtype=bool)
        for c, allowed in q.conditions:
            table = np.zeros(domain.sizes[c], dtype=bool)
            if allowed:
                table[np.fromiter(allowed, dtype=np.int64)] = True
            out &= table[codes[:, pos[c]]]
        return out

    keys = np.zeros(codes.shape[0], dtype=np.int64)
    for i, q in enumerate(queries):
        if i % 32 == 31:                      # keep the packed key below 2^63
            keys = np.unique(keys, return_inverse=True)[1].reshape(-1).astype(np.int64)
            cancel.check()
        keys = keys * 2 + mask(q)
    _, kind = np.unique(keys, return_inverse=True)
    kind = kind.reshape(-1)
    n_kinds = int(kind.max()) + 1 if kind.size else 0
    members = [np.unique(kind[mask(q)]) for q in queries]
    return members, n_kinds


# --------------------------------------------------------------------------- sums

def _split_conflict(domain: Domain, queries: Sequence[CountingQuery], members, n_kinds: int,
                    counts: np.ndarray, n_records: int | None) -> list[int] | None:
    """A sum that does not match (module docstring), the one with the fewest parts (then the
    first whole): [whole, part, part, …] with whole = _TOTAL or a row index; None when every
    such sum matches.

    A whole W and the rows P of one table that lie inside W and are pairwise disjoint conflict
    when they split W exactly but add up to another count, or when they add up to more than W.
    The rows returned cannot all be true and none can be left out (zero-count parts are left
    out when the parts add up to too much).
    """
    import scipy.sparse as sp

    m = len(queries)
    sizes = np.array([len(k) for k in members], dtype=np.int64)
    empty = np.flatnonzero((sizes == 0) & (counts > 0))
    if empty.size:
        return [int(empty[0])]
    if m == 0 or m > MAX_SPLIT_ROWS or n_kinds == 0:
        return None
    indptr = np.concatenate([[0], np.cumsum(sizes)])
    ind = np.concatenate(members) if m else np.zeros(0, np.int64)
    a = sp.csr_matrix((np.ones(ind.size, dtype=np.int32), ind, indptr), shape=(m, n_kinds))
    overlap = (a @ a.T).toarray()                      # (m, m) shared record kinds
    tables: dict[tuple, list[int]] = {}
    for i, q in enumerate(queries):
        key = tuple(c for c, allowed in q.conditions if len(allowed) < domain.sizes[c])
        tables.setdefault(key, []).append(i)
    wholes = ([_TOTAL] if n_records is not None else []) + list(range(m))
    w_size = np.array([n_kinds if w == _TOTAL else sizes[w] for w in wholes])
    w_count = np.array([n_records if w == _TOTAL else counts[w] for w in wholes],
                       dtype=np.int64)
    best: tuple[int, int, list[int]] | None = None
    for rank, rows in enumerate(tables.values()):
        g = np.asarray(rows)
        g = g[sizes[g] > 0]
        if g.size == 0:
            continue
        block = overlap[np.ix_(g, g)]
        if np.any(block - np.diag(np.diag(block))):
            continue                                   # the table's rows overlap
        inside = np.empty((g.size, len(wholes)), dtype=bool)
        off = 1 if n_records is not None else 0
        if off:
            inside[:, 0] = True
        inside[:, off:] = overlap[g] == sizes[g][:, None]
        inside[np.arange(g.size), off + g] = False     # a row is not its own part
        sums = counts[g] @ inside
        cover = sizes[g] @ inside
        over = sums > w_count
        bad = ((cover == w_size) & (sums != w_count)) | over
        bad &= inside.any(axis=0)
        if not bad.any():
            continue
        n_parts = np.where(over, (inside & (counts[g] > 0)[:, None]).sum(axis=0),
                           inside.sum(axis=0))
        hit = np.flatnonzero(bad)
        j = int(hit[np.argmin(n_parts[hit])])          # the first of the shortest
        if best is None or (int(n_parts[j]), j, rank) < best[0]:
            parts = [int(i) for i in g[inside[:, j]]]
            if over[j]:
                parts = [i for i in parts if counts[i] > 0]
            best = ((int(n_parts[j]), j, rank), [wholes[j]] + parts)
    return None if best is None else best[1]


# --------------------------------------------------------------------------- model

class _Model:
    """CP-SAT models of the rows: one variable per record kind (≥ 0, at most |D|).

    :meth:`check` solves the rows it is given as plain equalities (what presolve and the LP
    relaxation handle best: a sum that does not match is refuted at once). :meth:`core` solves
    every row behind an assumption literal to get CP-SAT's conflicting set; enforced equalities
    are weak for the LP, so that set is only a starting point for the deletion filter.
    """

    def __init__(self, members: list[np.ndarray], n_kinds: int, counts: np.ndarray,
                 n_records: int | None):
        self.members, self.n_kinds, self.counts = members, n_kinds, counts
        self.n_records = n_records
        self.upper = int(n_records) if n_records is not None else int(counts.max(initial=0))
        self.solves = 0

    def _solve(self, model, time_limit: float, cancel: CancelToken):
        self.solves += 1
        return solve(model, time_limit=max(time_limit, 0.01), workers=1, cancel=cancel,
                     seed=_SEED)

    def _rows(self, model, ids: Sequence[int], literals: dict | None) -> None:
        y: dict[int, object] = {}

        def var(k: int):
            if k not in y:
                y[k] = model.new_int_var(0, self.upper, f"y{k}")
            return y[k]

        for i in ids:
            if i == _TOTAL:
                continue
            lit = literals[i] if literals is not None else None
            kinds, count = self.members[i], int(self.counts[i])
            if kinds.size:
                c = model.add(sum(var(int(k)) for k in kinds) == count)
                if lit is not None:
                    c.only_enforce_if(lit)
            elif count != 0:                           # a positive count of nobody
                model.add_bool_or([lit.Not()] if lit is not None else [])
        if _TOTAL in ids:
            c = model.add(sum(var(k) for k in range(self.n_kinds)) == int(self.n_records))
            if literals is not None:
                c.only_enforce_if(literals[_TOTAL])

    def check(self, ids: Sequence[int], time_limit: float, cancel: CancelToken) -> str:
        """Status name of the rows ``ids`` (and the total if _TOTAL is among them)."""
        from ortools.sat.python import cp_model

        model = cp_model.CpModel()
        self._rows(model, ids, None)
        return self._solve(model, time_limit, cancel)[0]

    def core(self, ids: Sequence[int], time_limit: float, cancel: CancelToken
             ) -> list[int] | None:
        """The ids CP-SAT reports as sufficient for infeasibility (None: not proved)."""
        from ortools.sat.python import cp_model

        model = cp_model.CpModel()
        literals = {i: model.new_bool_var(f"row{i}") for i in ids}
        self._rows(model, ids, literals)
        model.add_assumptions(list(literals.values()))
        status, solver = self._solve(model, time_limit, cancel)
        if status != "INFEASIBLE":
            return None
        by_index = {lit.index: i for i, lit in literals.items()}
        found = {by_index[v] for v in solver.sufficient_assumptions_for_infeasibility()
                 if v in by_index}
        return [i for i in ids if i in found]


def _conflict(model: _Model, ids: list[int], deadline: float, cancel: CancelToken
              ) -> tuple[list[int], bool]:
    """A small set of ids that cannot all hold (``ids`` are known to conflict), and whether
    the deletion filter finished (then no id of the set can be left out)."""
    core = list(ids)
    left = deadline - time.perf_counter()
    small = model.core(core, min(left, max(1.0, min(2.0, left / 3))), cancel)
    if small and len(small) < len(core):       # CP-SAT's set is trusted only once re-proved
        if model.check(small, deadline - time.perf_counter(), cancel) == "INFEASIBLE":
            core = small
    complete = True
    chunk = max(1, len(core) // 2)
    while True:                                # deletion filter, blocks of ``chunk`` rows
        k = 0
        while k < len(core):
            if model.solves >= MAX_RESOLVES or time.perf_counter() >= deadline:
                return core, False
            trial = core[:k] + core[k + chunk:]
            if not trial:
                k += chunk
                continue
            left = deadline - time.perf_counter()
            status = model.check(trial, min(left, max(0.5, left / 4)), cancel)
            if status == "INFEASIBLE":
                core = trial
            else:
                complete = complete and (chunk > 1 or status in ("OPTIMAL", "FEASIBLE"))
                k += chunk
        if chunk == 1:
            return core, complete
        chunk = max(1, chunk // 2)


# --------------------------------------------------------------------------- sentences

def _row_items(lines: Sequence[int]) -> list[str]:
    """Row numbers for a list: runs of three or more consecutive rows as ranges ("2–47"), at
    most _LIST items, the last then "N more"."""
    ls = sorted(lines)
    items: list[tuple[str, int]] = []
    start = 0
    for k in range(1, len(ls) + 1):
        if k == len(ls) or ls[k] != ls[k - 1] + 1:
            a, b = ls[start], ls[k - 1]
            if b - a >= 2:
                items.append((f"{a}–{b}", b - a + 1))
            else:
                items += [(str(x), 1) for x in range(a, b + 1)]
            start = k
    if len(items) > _LIST:
        rest = sum(n for _, n in items[_LIST - 1:])
        return [t for t, _ in items[:_LIST - 1]] + [f"{rest:,} more"]
    return [t for t, _ in items]


def _rows_text(lines: Sequence[int], total: bool = False) -> str:
    """"row 3", "rows 3 and 7", "rows 2–47, 52 and the total", "the total"."""
    items = _row_items(lines) + (["the total"] if total else [])
    if not lines:
        return _and(items)
    return ("row " if len(lines) == 1 else "rows ") + _and(items)


def _people(n: int) -> str:
    return "1 person" if int(n) == 1 else f"{int(n):,} people"


def _and(items: Sequence[str]) -> str:
    items = list(items)
    return items[0] if len(items) == 1 else f"{', '.join(items[:-1])} and {items[-1]}"


def _cell(domain: Domain, col: int, allowed: frozenset[int]) -> str:
    labels = domain.labels[col]
    codes = sorted(allowed)
    vals = domain.int_values(col)
    if (vals is not None and len(codes) > 2 and codes == list(range(codes[0], codes[-1] + 1))
            and np.all(np.diff(vals[codes]) == 1)):
        return f"{labels[codes[0]]}-{labels[codes[-1]]}"
    if len(codes) <= 3:
        return "|".join(labels[k] for k in codes)
    return f"{len(codes)} of its {len(labels)} values"


def _describe(domain: Domain, q: CountingQuery, line: int) -> str:
    if q.label and q.label != f"row {line}":
        return f"'{q.label}'"
    conds = [f"{domain.columns[c]}={_cell(domain, c, a)}" for c, a in q.conditions
             if len(a) < domain.sizes[c]]
    return ", ".join(conds) if conds else "everyone"


class _Say:
    """Wording of the rows of one conflict."""

    def __init__(self, domain, queries, counts, lines, n_records, describe: bool):
        self.domain, self.queries, self.counts = domain, queries, counts
        self.lines, self.n_records, self.describe = lines, n_records, describe

    def one(self, i: int, describe: bool | None = None) -> str:
        if i == _TOTAL:
            return "the total"
        text = f"row {self.lines[i]}"
        if self.describe if describe is None else describe:
            text += f" ({_describe(self.domain, self.queries[i], self.lines[i])})"
        return text

    def plain(self, ids: Sequence[int]) -> str:
        """Row numbers only: "rows 2–5, 9 and the total"."""
        return _rows_text([self.lines[i] for i in ids if i != _TOTAL], _TOTAL in ids)

    def many(self, ids: Sequence[int]) -> str:
        if not self.describe:
            return self.plain(ids)
        rows = sorted((i for i in ids if i != _TOTAL), key=lambda i: self.lines[i])
        items = [self.one(i)[len("row "):] for i in rows] + (
            ["the total"] if _TOTAL in ids else [])
        return ("row " if len(rows) == 1 else "rows ") + _and(items) if rows else _and(items)

    def count(self, i: int) -> int:
        return int(self.n_records) if i == _TOTAL else int(self.counts[i])


def _explain(say: _Say, sets: dict[int, frozenset[int]], core: list[int],
             whole_first: int | None = None) -> str | None:
    """Why the rows of ``core`` conflict, in words, when the others split one row (or the
    total) but add up to another count, lie inside it without overlapping but add up to more,
    or include all its people but add up to less (``whole_first`` is tried first as that
    row); None when the conflict has another shape."""
    for whole in sorted(core, key=lambda i: (i != whole_first, i != _TOTAL, i)):
        parts = [i for i in core if i != whole]
        if not parts:
            continue
        union: set[int] = set()
        disjoint = True
        for i in parts:
            disjoint = disjoint and not (union & sets[i])
            union |= sets[i]
        s = sum(say.count(i) for i in parts)
        c = say.count(whole)
        one = len(parts) == 1
        ref = "the total" if whole == _TOTAL else f"row {say.lines[whole]}"
        head = (f"the table describes {_people(c)} in all (|D|)" if whole == _TOTAL else
                f"{say.one(whole, describe=True)} counts {_people(c)}")
        partsx = say.many(parts)
        if disjoint and union == sets[whole] and s != c:
            how = ("which counts the same people, says" if one else
                   "which split the same people, add up to")
        elif disjoint and union <= sets[whole] and s > c:
            how = (f"whose people are all in {ref}, says" if one else
                   "which count different people, add up to" if whole == _TOTAL else
                   f"which count different people who are all in {ref}, add up to")
        elif union >= sets[whole] and s < c:             # overlaps only add to s
            how = ("which includes all of them, says only" if one else
                   "which together include all of them, add up to only")
        else:
            continue
        return f"{head} but {partsx}, {how} {s:,}"
    return None


def _conflict_sentence(src: str, say: _Say, sets: dict[int, frozenset[int]],
                       core: list[int], ran_out: bool, whole: int | None = None) -> str:
    rows = say.plain(core)
    single = len(core) == 1 and core[0] != _TOTAL
    if single and not sets[core[0]]:
        why = f"{say.one(core[0])} counts {_people(say.count(core[0]))} but no possible " \
              f"record meets its conditions"
        return (f"{src}: {why}; fix the row's conditions or its count.")
    why = _explain(say, sets, core, whole)
    if why is None:
        values = [f"{say.one(i)} = {say.count(i):,}" for i in
                  sorted(core, key=lambda i: (i == _TOTAL, say.lines[i] if i != _TOTAL else 0))]
        why = ("no set of people gives " + _and(values) + " at once" if say.describe else
               "no set of people gives all these counts at once")
    fix = "check these counts (they may be noisy, rounded or from different data)"
    if _TOTAL in core:
        fix += " or the number of records the table describes (|D|, published_records)"
    extra = (" (the search for the fewest conflicting rows ran out of time, so fewer may "
             "already conflict)") if ran_out else ""
    verb = "cannot all be true" if len(core) > 1 else "cannot be true"
    return f"{src}: {rows} {verb}{extra}: {why}; {fix}."


# --------------------------------------------------------------------------- entry point

def check_published_consistency(domain: Domain, queries: Sequence[CountingQuery], counts,
                                n_records: int | None, *, source: str,
                                lines: Sequence[int] | None = None, time_limit: float = 10.0,
                                cancel: CancelToken = NEVER) -> ConsistencyReport:
    """Check that some set of ``n_records`` records over ``domain`` gives every count.

    ``queries``/``counts`` are the published rows (e.g. from
    :func:`engine.aggregates.queries.load_published_rows`), ``lines`` their CSV row numbers
    (header = row 1; default 2, 3, … in order), ``n_records`` |D| (None: no total). Returns a
    :class:`ConsistencyReport` when the counts are consistent or the check cannot decide
    (``time_limit`` seconds in all, or too many kinds of record); raises :class:`InputError`
    naming ``source``'s conflicting rows otherwise. ``cancel`` stops the solver (JobCancelled).

    The error of a conflict also carries ``conflict_rows`` (the CSV rows named, ascending) and
    ``conflict_total`` (whether |D| is part of the conflict), e.g. to highlight them.
    """
    start = time.perf_counter()
    deadline = start + float(time_limit)
    src = str(source)
    name = Path(src).name or src
    queries = list(queries)
    counts = np.asarray(counts).reshape(-1)
    if counts.size != len(queries):
        raise ValueError(f"{len(queries)} queries but {counts.size} counts")
    lines = tuple(int(x) for x in lines) if lines is not None else tuple(
        range(2, len(queries) + 2))
    if len(lines) != len(queries):
        raise ValueError(f"{len(queries)} queries but {len(lines)} line numbers")
    if counts.size and (not np.all(np.isfinite(counts.astype(float)))
                        or np.any(counts.astype(float) != np.round(counts.astype(float)))):
        i = int(np.flatnonzero(~np.isfinite(counts.astype(float))
                               | (counts.astype(float) != np.round(counts.astype(float))))[0])
        raise InputError(f"{src}: row {lines[i]}, column 'count': {given_value(counts[i])} is not a whole "
                         f"number; published counts are whole numbers.", source=src,
                         key="count")
    counts = counts.astype(np.int64)
    if counts.size and counts.min() < 0:
        i = int(np.argmin(counts))
        raise InputError(f"{src}: row {lines[i]}, column 'count': {counts[i]} is negative; "
                         f"counts cannot be below 0 (clamp noisy counts at 0 before "
                         f"publishing).", source=src, key="count")
    if n_records is not None:
        n_records = int(n_records)
        if n_records < 0:
            raise InputError(f"{src}: the number of records behind the table is {n_records}; "
                             f"give |D| as a whole number of at least 0.", source=src,
                             key="published_records")
        over = np.flatnonzero(counts > n_records)
        if over.size:
            i = int(over[np.argmax(counts[over])])
            also = (f" (and {over.size - 1} more row{'s' if over.size > 2 else ''} "
                    f"too)") if over.size > 1 else ""
            err = InputError(
                f"{src}: row {lines[i]} ({_describe(domain, queries[i], lines[i])}) counts "
                f"{_people(counts[i])}, more than the {n_records:,} records the table "
                f"describes{also}; check the count, or set the people counted in the table "
                f"(|D|) to the table's true total.", source=src, key="count",
                setting="published_records")
            err.conflict_rows, err.conflict_total = (lines[i],), True
            raise err

    members, n_kinds = _signatures(domain, queries, cancel)
    if members is None:
        note = (f"{name}: the {len(queries):,} published counts were not checked for "
                f"consistency: their conditions split the people into {n_kinds:,} kinds of "
                f"record, too many to check; the audit uses the counts as given.")
        return ConsistencyReport(None, "too_large", note, len(queries), 0,
                                 time.perf_counter() - start)
    split = _split_conflict(domain, queries, members, n_kinds, counts, n_records)
    if split is not None:
        raise _conflict_error(src, domain, queries, counts, lines, n_records, members,
                              n_kinds, split, complete=True, whole=split[0])
    cancel.check()
    model = _Model(members, n_kinds, counts, n_records)
    ids = ([_TOTAL] if n_records is not None else []) + list(range(len(queries)))
    status = model.check(ids, deadline - time.perf_counter(), cancel)
    total = f" and the total of {n_records:,} records" if n_records is not None else ""
    if status in ("OPTIMAL", "FEASIBLE"):
        note = (f"{name}: the {len(queries):,} published counts{total} are consistent (some "
                f"set of people gives them all).")
        return ConsistencyReport(True, "consistent", note, len(queries), n_kinds,
                                 time.perf_counter() - start)
    if status == "MODEL_INVALID":              # e.g. counts so large that sums could overflow
        note = (f"{name}: the {len(queries):,} published counts{total} could not be checked "
                f"for consistency (the solver refused the model; are the counts far larger "
                f"than the number of records?); the audit uses the counts as given.")
        return ConsistencyReport(None, "not_checked", note, len(queries), n_kinds,
                                 time.perf_counter() - start)
    if status != "INFEASIBLE":
        note = (f"{name}: the check that the {len(queries):,} published counts{total} fit "
                f"together did not finish within {float(time_limit):g} s, so they may or may "
                f"not be consistent; raise the solver time limit to check them.")
        return ConsistencyReport(None, "time_limit", note, len(queries), n_kinds,
                                 time.perf_counter() - start)

    core, complete = _conflict(model, ids, max(deadline, time.perf_counter() + 1.0), cancel)
    raise _conflict_error(src, domain, queries, counts, lines, n_records, members, n_kinds,
                          core, complete=complete)


def _conflict_error(src, domain, queries, counts, lines, n_records, members, n_kinds,
                    core: list[int], *, complete: bool, whole: int | None = None
                    ) -> InputError:
    sets = {i: frozenset(int(k) for k in members[i]) for i in core if i != _TOTAL}
    sets[_TOTAL] = frozenset(range(n_kinds))
    say = _Say(domain, queries, counts, lines, n_records,
               describe=sum(1 for i in core if i != _TOTAL) <= _DESCRIBE + 1)
    err = InputError(_conflict_sentence(src, say, sets, core, not complete, whole),
                     source=src, key="count")
    err.conflict_rows = tuple(sorted(lines[i] for i in core if i != _TOTAL))
    err.conflict_total = _TOTAL in core
    return err
