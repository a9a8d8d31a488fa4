"""Counting queries over coded microdata, and the fixed releases built from them (paper 003).

Paper 003 (DeSIA), §2.1: a counting aggregate statistic q = (V₁^q, …, V_n^q) picks a set of
allowed values per attribute and counts the records whose every attribute lies in its set,
q(D) = Σ_u 1(r_u¹ ∈ V₁^q ∧ … ∧ r_uⁿ ∈ V_nⁿ). Releases are families of such queries:

* contingency tables (every cell of a cross-table), such as the Census block-level tables of
  paper 003 §4.1, Table 1 — P12 "sex by age" and P12A–I "sex by age for each race";
* all 1- and 2-way marginals with bucketed integer columns (paper 003 §5.5, the ACS data,
  age in 5-year buckets);
* custom query files and already-published tables.

Records are a coded integer matrix ``codes`` of shape (n_records, n_columns): ``codes[u, j]``
is the index of record u's value in ``domain.labels[j]``. Nothing here depends on how the
records were loaded.

Evaluation is vectorised through *profiles*: only the columns some query constrains matter,
so records are reduced to the distinct tuples of those columns (a few thousand for the P-tables
even when there are millions of records), every query is evaluated once per distinct tuple,
and counts follow from sparse matrix products.
"""

from __future__ import annotations

import csv
import io
import itertools
import math
import re
import tomllib
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path

import numpy as np
import scipy.sparse as sp

from engine.data.census import RACES
from engine.data.columns import dropped_rows_entry
from engine.data.csv_safety import neutralise, restore
from engine.data.errors import InputError, given_value
from engine.data.text_input import (
    MISSING_MARKERS,
    TextInput,
    add_read_note,
    cell_text,
    column_name_text,
    non_finite,
    non_finite_sentence,
    number_hint,
    read_text,
)
from engine.runtime import NEVER, NO_PROGRESS, CancelToken, Progress

_PREVIEW = 12           # how many allowed values an error message lists before "and N more"
MAX_PUBLISHED_COUNT = 10**12   # a published count above this is not a count of people
_RANGE = re.compile(r"^\s*(-?\d+)\s*-\s*(-?\d+)\s*$")
_RANGE_LIKE = re.compile(r"^\s*-?[\w.]*\s*-\s*-?[\w.]*\s*$")

# Census 2010/2020 table P12 "Sex by age": 23 age groups (inclusive; None = open-ended).
CENSUS_P12_AGE_BINS: tuple[tuple[int, int | None], ...] = (
    (0, 4), (5, 9), (10, 14), (15, 17), (18, 19), (20, 20), (21, 21), (22, 24), (25, 29),
    (30, 34), (35, 39), (40, 44), (45, 49), (50, 54), (55, 59), (60, 61), (62, 64), (65, 66),
    (67, 69), (70, 74), (75, 79), (80, 84), (85, None),
)
# Plain 5-year groups: under 5, 5–9, …, 80–84, 85+ (18 groups).
FIVE_YEAR_AGE_BINS: tuple[tuple[int, int | None], ...] = tuple(
    (lo, lo + 4) for lo in range(0, 85, 5)) + ((85, None),)


# =========================================================================== domain

def _preview(values: Sequence[str]) -> str:
    shown = ", ".join(repr(str(v)) for v in list(values)[:_PREVIEW])
    more = len(values) - _PREVIEW
    return f"{shown} and {more} more" if more > 0 else shown


def _int_label(label: str) -> int | None:
    """Integer value of a label such as "42" or "85+" (open top category); None otherwise."""
    text = str(label).strip()
    if text.endswith("+"):
        text = text[:-1]
    try:
        return int(text)
    except ValueError:
        return None


@dataclass(frozen=True)
class Domain:
    """The columns of the coded records and the value labels of each column.

    ``labels[j][k]`` is the label of code k in column j, so ``codes[u, j] = k``.
    """

    columns: tuple[str, ...]
    labels: tuple[tuple[str, ...], ...]

    def __post_init__(self) -> None:
        cols = tuple(str(c) for c in self.columns)
        labs = tuple(tuple(str(v) for v in ls) for ls in self.labels)
        object.__setattr__(self, "columns", cols)
        object.__setattr__(self, "labels", labs)
        if len(cols) != len(labs):
            raise InputError(f"The domain names {len(cols)} columns but gives value labels for "
                             f"{len(labs)}; give one list of labels per column.")
        if len(set(cols)) != len(cols):
            dup = next(c for c in cols if cols.count(c) > 1)
            raise InputError(f"The domain names column '{dup}' twice; column names must be "
                             f"unique.")
        for c, ls in zip(cols, labs, strict=True):
            if not ls:
                raise InputError(f"Column '{c}' of the domain has no values; list at least one.")
            if len(set(ls)) != len(ls):
                dup = next(v for v in ls if ls.count(v) > 1)
                raise InputError(f"Column '{c}' of the domain lists the value '{dup}' twice; "
                                 f"value labels must be unique within a column.")

    @property
    def sizes(self) -> tuple[int, ...]:
        """Number of values of each column."""
        return tuple(len(ls) for ls in self.labels)

    def index(self, column: str | int) -> int:
        """Position of ``column`` (a name, or an index that is checked)."""
        if isinstance(column, (int, np.integer)) and not isinstance(column, bool):
            if 0 <= int(column) < len(self.columns):
                return int(column)
            raise InputError(f"Column index {column} is out of range; the domain has "
                             f"{len(self.columns)} columns.")
        try:
            return self.columns.index(str(column))
        except ValueError:
            raise InputError(f"Unknown column '{column}'; the columns are "
                             f"{_preview(self.columns)} — use one of these.", key=str(column)
                             ) from None

    def code(self, column: str | int, label) -> int:
        """Code of the value ``label`` in ``column``."""
        j = self.index(column)
        try:
            return self.labels[j].index(str(label).strip())
        except ValueError:
            raise InputError(f"Column '{self.columns[j]}' has no value '{label}'; allowed values: "
                             f"{_preview(self.labels[j])}.", key=self.columns[j]) from None

    def int_values(self, column: str | int) -> np.ndarray | None:
        """Integer value of every label of ``column`` ("85+" counts as 85), or None if some
        label is not an integer."""
        vals = [_int_label(v) for v in self.labels[self.index(column)]]
        if any(v is None for v in vals):
            return None
        return np.asarray(vals, dtype=np.int64)

    def codes_in_range(self, column: str | int, lo: int, hi: int | None) -> frozenset[int]:
        """Codes of an integer column whose value lies in [lo, hi] (hi None = no upper end)."""
        j = self.index(column)
        vals = self.int_values(j)
        if vals is None:
            bad = next(v for v in self.labels[j] if _int_label(v) is None)
            raise InputError(f"Column '{self.columns[j]}' is not an integer column (value "
                             f"'{bad}'), so it cannot be cut into ranges; list its values "
                             f"instead.", key=self.columns[j])
        ok = vals >= lo if hi is None else (vals >= lo) & (vals <= hi)
        return frozenset(int(k) for k in np.flatnonzero(ok))

    def check_codes(self, codes) -> np.ndarray:
        """``codes`` as an int32 (n_records, n_columns) array, validated against the domain."""
        arr = np.asarray(codes)
        if arr.ndim != 2 or arr.shape[1] != len(self.columns):
            raise InputError(f"The coded records must be a table with {len(self.columns)} "
                             f"columns (one per domain column); got shape {arr.shape}.")
        arr = arr.astype(np.int32, copy=False)
        if arr.size:
            bad = (arr < 0) | (arr >= np.asarray(self.sizes, dtype=np.int32))
            if bad.any():
                r, c = (int(x) for x in np.argwhere(bad)[0])
                raise InputError(f"Record {r}, column '{self.columns[c]}' has code {arr[r, c]}, "
                                 f"outside 0..{self.sizes[c] - 1}; recode the records with this "
                                 f"domain.")
        return arr


# =========================================================================== queries

@dataclass(frozen=True)
class CountingQuery:
    """q(D) = #records whose value in each listed column is one of its allowed codes.

    Paper 003 §2.1 (the sets V_i^q). Columns not listed match anything. ``table`` names the
    release table the query belongs to (e.g. "P12A"); it is informational.
    """

    conditions: tuple[tuple[int, frozenset[int]], ...]
    label: str = ""
    table: str = ""

    def __post_init__(self) -> None:
        merged: dict[int, frozenset[int]] = {}
        for col, allowed in self.conditions:
            a = frozenset(int(x) for x in allowed)
            c = int(col)
            merged[c] = merged[c] & a if c in merged else a
        object.__setattr__(self, "conditions", tuple(sorted(merged.items())))

    @property
    def columns(self) -> tuple[int, ...]:
        return tuple(c for c, _ in self.conditions)

    def matches(self, codes) -> np.ndarray:
        """Boolean array: which rows of ``codes`` the query counts (vectorised per column)."""
        arr = np.asarray(codes)
        out = np.ones(arr.shape[0], dtype=bool)
        for col, allowed in self.conditions:
            out &= _lookup(allowed, arr[:, col])
        return out


def _lookup(allowed: frozenset[int], values: np.ndarray) -> np.ndarray:
    """``values ∈ allowed`` through a boolean table indexed by code."""
    if values.size == 0:
        return np.zeros(0, dtype=bool)
    top = max(int(values.max()), max(allowed, default=0)) + 1
    table = np.zeros(top, dtype=bool)
    if allowed:
        table[np.fromiter(allowed, dtype=np.int64)] = True
    return table[values]


def _constrained_columns(queries: Sequence[CountingQuery]) -> list[int]:
    return sorted({c for q in queries for c, _ in q.conditions})


def _profiles(codes: np.ndarray, cols: list[int]) -> tuple[np.ndarray, np.ndarray]:
    """Distinct tuples of ``codes[:, cols]`` and, per record, the index of its tuple.

    The tuple is packed into one int64 key when the column ranges allow (always for census-
    like data), else rows are compared with ``np.unique(axis=0)``.
    """
    n = codes.shape[0]
    if not cols:
        return np.zeros((1 if n else 0, 0), dtype=np.int32), np.zeros(n, dtype=np.int64)
    sub = codes[:, cols]
    dims = (sub.max(axis=0).astype(np.int64) + 1) if n else np.ones(len(cols), np.int64)
    if math.prod(int(d) for d in dims) < 2**62:
        key = np.ravel_multi_index(tuple(sub.T.astype(np.int64)), tuple(int(d) for d in dims))
        uniq, inverse = np.unique(key, return_inverse=True)
        rows = np.stack(np.unravel_index(uniq, tuple(int(d) for d in dims)), axis=1)
        return rows.astype(np.int32), inverse.reshape(-1)
    rows, inverse = np.unique(sub, axis=0, return_inverse=True)
    return rows.astype(np.int32), inverse.reshape(-1)


def _profile_matrix(queries: Sequence[CountingQuery], rows: np.ndarray,
                    cols: list[int]) -> sp.csr_matrix:
    """(n_queries × n_profiles) 0/1 matrix of the queries on the distinct tuples ``rows``."""
    pos = {c: i for i, c in enumerate(cols)}
    indptr = [0]
    indices: list[np.ndarray] = []
    for q in queries:
        mask = np.ones(rows.shape[0], dtype=bool)
        for col, allowed in q.conditions:
            mask &= _lookup(allowed, rows[:, pos[col]])
        hit = np.flatnonzero(mask)
        indices.append(hit)
        indptr.append(indptr[-1] + hit.size)
    ind = np.concatenate(indices) if indices else np.zeros(0, np.int64)
    return sp.csr_matrix((np.ones(ind.size, dtype=np.int32), ind, np.asarray(indptr)),
                         shape=(len(queries), rows.shape[0]))


def _as_codes(codes) -> np.ndarray:
    arr = np.asarray(codes)
    if arr.ndim != 2:
        raise InputError(f"The coded records must be a 2-D table (records × columns); got shape "
                         f"{arr.shape}.")
    if arr.size and arr.min() < 0:
        raise InputError("The coded records contain a negative code; codes index the domain "
                         "labels and start at 0.")
    return arr


def query_matrix(queries: Sequence[CountingQuery], codes) -> sp.csr_matrix:
    """(n_queries × n_records) CSR 0/1 matrix, entry (i, u) = 1 iff record u counts in query i.

    Cost: O(n_records · k) to find the distinct tuples of the k constrained columns, plus
    O(n_queries · n_profiles · conditions) to evaluate the queries on them, plus the output.
    """
    arr = _as_codes(codes)
    queries = list(queries)
    cols = _constrained_columns(queries)
    rows, inverse = _profiles(arr, cols)
    qp = _profile_matrix(queries, rows, cols)
    n = arr.shape[0]
    # Column u of the result is column inverse[u] of qp: qp @ (profile → record indicator).
    expand = sp.csr_matrix((np.ones(n, dtype=np.int32), (inverse, np.arange(n))),
                           shape=(rows.shape[0], n))
    out = (qp @ expand).tocsr()
    out.sort_indices()
    return out.astype(np.int32)


def answers(queries: Sequence[CountingQuery], codes) -> np.ndarray:
    """q(D) for every query (int64), paper 003 §2.1."""
    arr = _as_codes(codes)
    queries = list(queries)
    cols = _constrained_columns(queries)
    rows, inverse = _profiles(arr, cols)
    counts = np.bincount(inverse, minlength=rows.shape[0]).astype(np.int64)
    return np.asarray(_profile_matrix(queries, rows, cols) @ counts, dtype=np.int64)


def contribution_classes(queries: Sequence[CountingQuery], codes, *,
                         redrawn_column: int | None = None, n_values: int = 1
                         ) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Records grouped by what they add to ``queries``: ``(signature, sizes, class_of)``.

    Two records add the same to every query when they agree on the columns the queries
    constrain; records are reduced to those distinct tuples (:func:`_profiles`) and the tuples
    with the same 0/1 row of the query matrix are merged, so a dataset drawn from ``codes``
    is summed up, for these queries, by how many records it takes of each class. For a
    target's signal cells (the few released queries that can count it) a table of 30,000
    records collapses to a few dozen classes, which is what lets DeSIA's shadow datasets
    (paper 003 §3.2, Alg. 2) be drawn as class counts instead of record lists.

    ``redrawn_column``: a column whose value is re-drawn uniformly in every dataset (the
    sensitive column of the attribute game): its recorded value is ignored and the signature
    gives what a record adds with each of the column's ``n_values`` values.

    * ``signature`` (C, n_values, m) int64: what one record of class c with value v adds to
      each query (n_values = 1 without a re-drawn column);
    * ``sizes`` (C,) int64: records of ``codes`` in each class;
    * ``class_of`` (n_records,) int64: each record's class.
    """
    arr = _as_codes(codes)
    queries = list(queries)
    v = int(n_values) if redrawn_column is not None else 1
    cols = [c for c in _constrained_columns(queries) if c != redrawn_column]
    rows, inverse = _profiles(arr, cols)
    full = np.zeros((rows.shape[0] * v, max(arr.shape[1], 1)), dtype=np.int32)
    full[:, cols] = np.repeat(rows, v, axis=0)
    if redrawn_column is not None:
        full[:, redrawn_column] = np.tile(np.arange(v, dtype=np.int32), rows.shape[0])
    m = len(queries)
    if m:
        sig = query_matrix(queries, full).T.toarray().astype(np.int8)
    else:
        sig = np.zeros((full.shape[0], 0), dtype=np.int8)
    sig = sig.reshape(rows.shape[0], v * m)
    merged, which = np.unique(sig, axis=0, return_inverse=True)
    which = which.reshape(-1)
    sizes = np.bincount(which[inverse], minlength=merged.shape[0]).astype(np.int64)
    return (merged.reshape(merged.shape[0], v, m).astype(np.int64), sizes,
            which[inverse].astype(np.int64))


def answers_many(queries: Sequence[CountingQuery] | sp.spmatrix | Callable,
                 datasets, *, pool=None, batch: int = 4096,
                 progress: Progress = NO_PROGRESS, cancel: CancelToken = NEVER) -> np.ndarray:
    """Answers of the same queries on many datasets: an (n_datasets, n_queries) int64 array.

    This is what DeSIA's stochastic module (paper 003 §3.2) needs: the released statistics of
    N (e.g. 20,000) shadow datasets. Two forms of ``datasets``:

    * **membership over a fixed record pool** — ``pool`` (codes of the pool, n_pool × n_columns)
      is given and ``datasets`` is an (n_datasets, n_pool) 0/1 (or multiplicity) matrix, dense
      or sparse. ``queries`` may also be a precomputed ``query_matrix(queries, pool)`` (then
      ``pool`` may be omitted). Answers are ``M @ Qᵀ`` computed batch by batch as the sparse ×
      dense product ``(Q @ M_bᵀ)ᵀ``: time O(nnz(Q) · n_datasets) — for contingency tables
      nnz(Q) ≈ n_pool · (tables a record falls in) — and extra memory O(batch · n_pool).
    * **an iterable of code matrices** (or a 3-D array), one per dataset, each with its own
      records. A batch of datasets is stacked, reduced to distinct tuples of the constrained
      columns (one ``np.unique`` on packed keys), and answered as
      (per-dataset tuple counts, sparse) @ (queries on tuples)ᵀ: time
      O(R log R + nnz) for R records in the batch, extra memory O(R + batch · n_queries).

    The output itself takes n_datasets · n_queries · 8 bytes. ``progress`` is called and
    ``cancel`` checked once per batch. A callable ``queries`` is applied to ``pool`` (or to each
    dataset's codes) and must return the sparse query matrix.
    """
    if int(batch) < 1:
        raise InputError(f"The batch size must be at least 1, got {given_value(batch)}.", key="batch")
    batch = int(batch)
    if pool is not None or sp.issparse(queries):
        return _answers_membership(queries, datasets, pool, batch, progress, cancel)
    if isinstance(datasets, np.ndarray) and datasets.ndim == 3:
        datasets = list(datasets)
    return _answers_codes(queries, datasets, batch, progress, cancel)


def _answers_membership(queries, membership, pool, batch, progress, cancel) -> np.ndarray:
    if sp.issparse(queries):
        qm = sp.csr_matrix(queries)
    elif callable(queries) and not isinstance(queries, Sequence):
        qm = sp.csr_matrix(queries(pool))
    else:
        qm = query_matrix(list(queries), pool)
    n_q, n_pool = qm.shape
    m = membership if sp.issparse(membership) else np.asarray(membership)
    if m.ndim != 2 or m.shape[1] != n_pool:
        raise InputError(f"The membership matrix must have one column per pool record "
                         f"({n_pool}); got shape {m.shape}.")
    if sp.issparse(m):
        m = sp.csr_matrix(m)
    n_d = m.shape[0]
    out = np.empty((n_d, n_q), dtype=np.int64)
    qm = qm.astype(np.int64)
    for start in range(0, n_d, batch):
        cancel.check()
        stop = min(n_d, start + batch)
        block = m[start:stop]
        if sp.issparse(block):
            out[start:stop] = (block.astype(np.int64) @ qm.T).toarray()
        else:
            out[start:stop] = (qm @ np.ascontiguousarray(block.T, dtype=np.int64)).T
        progress(stop / max(n_d, 1), f"Answered the queries on {stop:,} of {n_d:,} datasets")
    return out


def _answers_codes(queries, datasets, batch, progress, cancel) -> np.ndarray:
    fn = queries if callable(queries) and not isinstance(queries, Sequence) else None
    queries = None if fn is not None else list(queries)
    cols = [] if queries is None else _constrained_columns(queries)
    total = len(datasets) if hasattr(datasets, "__len__") else None
    results: list[np.ndarray] = []
    done = 0
    it = iter(datasets)
    while True:
        chunk = [_as_codes(d) for d in itertools.islice(it, batch)]
        if not chunk:
            break
        cancel.check()
        if fn is not None:
            for d in chunk:
                qm = sp.csr_matrix(fn(d))
                results.append(np.asarray(qm.sum(axis=1)).reshape(1, -1).astype(np.int64))
        else:
            results.append(_answers_stacked(queries, cols, chunk))
        done += len(chunk)
        progress(done / total if total else 0.0, f"Answered the queries on {done:,} datasets")
    if not results:
        return np.zeros((0, 0 if queries is None else len(queries)), dtype=np.int64)
    return np.concatenate(results, axis=0)


def _answers_stacked(queries, cols, chunk) -> np.ndarray:
    sizes = np.asarray([c.shape[0] for c in chunk], dtype=np.int64)
    widths = {c.shape[1] for c in chunk if c.shape[0]}
    if len(widths) > 1:
        raise InputError("The datasets do not all have the same columns; code every shadow "
                         "dataset with the same domain.")
    nonempty = [c for c in chunk if c.shape[0]]
    width = max(cols, default=0) + 1
    stacked = np.concatenate(nonempty) if nonempty else np.zeros((0, width), np.int32)
    rows, inverse = _profiles(stacked, cols)
    owner = np.repeat(np.arange(len(chunk)), sizes)
    counts = sp.csr_matrix((np.ones(inverse.size, dtype=np.int64), (owner, inverse)),
                           shape=(len(chunk), rows.shape[0]))
    qp = _profile_matrix(queries, rows, cols).astype(np.int64)
    return np.asarray((counts @ qp.T).toarray(), dtype=np.int64)


# =========================================================================== release builders

Cell = tuple[str, frozenset[int]]   # (label, allowed codes) of one category of one column


def _value_cells(domain: Domain, j: int) -> list[Cell]:
    return [(lab, frozenset([k])) for k, lab in enumerate(domain.labels[j])]


def _bucket_cells(domain: Domain, column: str, spec) -> list[Cell]:
    """Cells of an integer column cut into ranges: ``spec`` is a width (int) or (lo, hi) pairs.

    Every value must fall in exactly one bucket, so that the marginal stays a partition.
    """
    j = domain.index(column)
    vals = domain.int_values(j)
    if vals is None:
        bad = next(v for v in domain.labels[j] if _int_label(v) is None)
        raise InputError(f"Buckets for column '{column}' need integer values, but it has the "
                         f"value '{bad}'; remove '{column}' from the buckets.", key=column)
    if isinstance(spec, (int, np.integer)) and not isinstance(spec, bool):
        width = int(spec)
        if width < 1:
            raise InputError(f"The bucket width of column '{column}' must be at least 1, got "
                             f"{spec}.", key=column)
        lo0 = int(vals.min())
        ranges = [(lo, lo + width - 1) for lo in range(lo0, int(vals.max()) + 1, width)]
    else:
        ranges = [(int(a), None if b is None else int(b)) for a, b in spec]
    cells: list[Cell] = []
    seen = np.zeros(vals.size, dtype=int)
    for lo, hi in ranges:
        if hi is not None and hi < lo:
            raise InputError(f"Bucket {lo}-{hi} of column '{column}' ends before it starts; "
                             f"write it as {hi}-{lo}.", key=column)
        codes = domain.codes_in_range(j, lo, hi)
        for k in codes:
            seen[k] += 1
        if codes:
            cells.append((f"{lo}+" if hi is None else (f"{lo}" if lo == hi else f"{lo}-{hi}"),
                          codes))
    if (seen != 1).any():
        k = int(np.flatnonzero(seen != 1)[0])
        what = "no bucket" if seen[k] == 0 else f"{seen[k]} buckets"
        raise InputError(f"Value '{domain.labels[j][k]}' of column '{column}' falls in {what}; "
                         f"the buckets must cover every value exactly once.", key=column)
    return cells


def _cross(domain: Domain, cols: Sequence[int], cells: Sequence[list[Cell]], table: str,
           extra: tuple[tuple[int, frozenset[int]], ...] = (), suffix: str = ""
           ) -> list[CountingQuery]:
    out = []
    for combo in itertools.product(*cells):
        conds = tuple(zip(cols, (c[1] for c in combo), strict=True)) + extra
        text = ", ".join(f"{domain.columns[j]}={c[0]}" for j, c in zip(cols, combo, strict=True))
        label = f"{table}: {text}{suffix}" if table else f"{text}{suffix}"
        out.append(CountingQuery(conds, label=label, table=table))
    return out


def contingency_table(domain: Domain, columns: Sequence[str], *, within: str | None = None,
                      buckets: Mapping[str, object] | None = None, table: str = ""
                      ) -> list[CountingQuery]:
    """Every cell of the cross-table of ``columns`` (paper 003 §2.1, §4.1).

    With ``within``, the table is repeated for each value of that column ("sex × age for each
    race"). ``buckets`` (column → width or list of (lo, hi)) groups integer columns. The cells
    of one table partition the records: each record falls in exactly one cell.
    """
    cols = [domain.index(c) for c in columns]
    if len(set(cols)) != len(cols):
        raise InputError(f"The table lists a column twice ({', '.join(map(str, columns))}); "
                         f"name each column once.")
    buckets = dict(buckets or {})
    cells = [_bucket_cells(domain, domain.columns[j], buckets[domain.columns[j]])
             if domain.columns[j] in buckets else _value_cells(domain, j) for j in cols]
    name = table or " × ".join(domain.columns[j] for j in cols)
    if within is None:
        return _cross(domain, cols, cells, name)
    w = domain.index(within)
    if w in cols:
        raise InputError(f"Column '{within}' is both a table column and the 'within' column; "
                         f"choose a different 'within' column.")
    out: list[CountingQuery] = []
    for k, lab in enumerate(domain.labels[w]):
        out += _cross(domain, cols, cells, f"{name} | {domain.columns[w]}={lab}",
                      extra=((w, frozenset([k])),))
    return out


def census_p_tables(domain: Domain, age_col: str = "age", sex_col: str = "sex",
                    race_col: str = "race",
                    age_bins: Sequence[tuple[int, int | None]] = CENSUS_P12_AGE_BINS, *,
                    hispanic_col: str | None = None, hispanic_label: str | None = None,
                    white_label: str | None = None) -> list[CountingQuery]:
    """Block-level Census tables of paper 003 §4.1, Table 1 (the tables RAP and DeSIA attack).

    * P12 "sex by age group": every (sex, age group) cell;
    * P12A, P12B, … "sex by age group for only race r": the same cells for each race value in
      domain order (A = first race value, …), as in the Census race iterations;
    * with ``hispanic_col``: P12H (Hispanic or Latino, any race, ``hispanic_label``) and P12I
      (race ``white_label`` and not Hispanic) follow the race tables.

    Age groups are sets of age codes: ``age_bins`` are inclusive (lo, hi) ranges, hi None for
    the open top group; default the 23 Census P12 groups (under 5, 5–9, 10–14, 15–17, 18–19,
    20, 21, 22–24, …, 80–84, 85+); :data:`FIVE_YEAR_AGE_BINS` gives under 5, 5–9, …, 85+.
    Groups with no age value in the domain are left out (their count is always 0).
    """
    a, s, r = domain.index(age_col), domain.index(sex_col), domain.index(race_col)
    ages: list[Cell] = []
    for lo, hi in age_bins:
        codes = domain.codes_in_range(a, int(lo), None if hi is None else int(hi))
        if codes:
            name = f"{lo}+" if hi is None else (f"{lo}" if lo == hi else f"{lo}-{hi}")
            ages.append(("under 5" if (lo, hi) == (0, 4) else name, codes))
    if not ages:
        raise InputError(f"No value of column '{age_col}' falls in the age groups; check that "
                         f"'{age_col}' holds ages in years.", key="age_col")
    sexes = _value_cells(domain, s)
    cols = [s, a]
    out = _cross(domain, cols, [sexes, ages], "P12")
    # The Census letters: A–G for the seven OMB race categories in their order, H and I for
    # the Hispanic tables — kept when a dataset has only some of the races, so "P12D" is the
    # Asian table in every audit; with other race labels, letters follow the domain's order.
    standard = all(lab in RACES for lab in domain.labels[r])
    letters = iter("ABCDEFGHIJKLMNOPQRSTUVWXYZ")
    for k, lab in enumerate(domain.labels[r]):
        t = f"P12{'ABCDEFG'[RACES.index(lab)] if standard else next(letters)}"
        out += _cross(domain, cols, [sexes, ages], t, extra=((r, frozenset([k])),),
                      suffix=f" (race {lab})")
    if standard:
        letters = iter("HI")
    if hispanic_col is not None:
        h = domain.index(hispanic_col)
        if hispanic_label is None or white_label is None:
            raise InputError("With a Hispanic-origin column, also give its Hispanic or Latino "
                             "value and the race column's White value.",
                             setting="release_options.hispanic_label")
        hk = domain.code(h, hispanic_label)
        wk = domain.code(r, white_label)
        not_h = frozenset(range(domain.sizes[h])) - {hk}
        out += _cross(domain, cols, [sexes, ages], f"P12{next(letters)}",
                      extra=((h, frozenset([hk])),), suffix=" (Hispanic or Latino)")
        out += _cross(domain, cols, [sexes, ages], f"P12{next(letters)}",
                      extra=((r, frozenset([wk])), (h, not_h)),
                      suffix=" (White alone, not Hispanic or Latino)")
    return out


def marginals(domain: Domain, ways: Sequence[int] = (1, 2),
              buckets: Mapping[str, object] | None = None,
              columns: Sequence[str] | None = None) -> list[CountingQuery]:
    """All k-way marginals for k in ``ways`` over ``columns`` (default all), paper 003 §5.5.

    A k-way marginal is the contingency table of k columns; §5.5 releases all 1- and 2-way
    marginals of the ACS data with age in 5-year buckets: ``buckets={"age": 5}`` (a width) or
    ``{"age": [(0, 4), (5, 9), …]}`` (inclusive ranges covering every value once).
    """
    names = list(domain.columns if columns is None else columns)
    for c in names:
        domain.index(c)
    for c in (buckets or {}):
        domain.index(c)
    out: list[CountingQuery] = []
    for k in ways:
        if not 1 <= int(k) <= len(names):
            raise InputError(f"Marginal order {k} is not between 1 and the number of columns "
                             f"({len(names)}); use ways such as (1, 2).", key="ways")
        for combo in itertools.combinations(names, int(k)):
            out += contingency_table(domain, combo, buckets=buckets)
    return out


# =========================================================================== files

def _read_text(path: str | Path, *, sniff: bool = False) -> TextInput:
    return read_text(path, kind="file", save_as="UTF-8", sniff=sniff,
                     empty="the file is empty; it needs a header row naming the columns and "
                           "one row per query.")


def _parse_values(domain: Domain, j: int, parts: Sequence[str], where: str, src: str
                  ) -> frozenset[int]:
    """Allowed codes of column j from labels and integer ranges "lo-hi" (inclusive)."""
    labels = domain.labels[j]
    col = domain.columns[j]
    allowed: set[int] = set()
    for raw in parts:
        text = str(raw).strip()
        if text in labels:                       # exact label wins (labels may contain "-")
            allowed.add(labels.index(text))
            continue
        m = _RANGE.match(text)
        if m:
            lo, hi = int(m.group(1)), int(m.group(2))
            if hi < lo:
                raise InputError(f"{where}, column '{col}': range '{text}' ends before it "
                                 f"starts; write it as {hi}-{lo}.", source=src, key=col)
            vals = domain.int_values(j)
            if vals is None:
                raise InputError(f"{where}, column '{col}': range '{text}' needs integer values "
                                 f"but '{col}' has values {_preview(labels)}; list the values "
                                 f"separated by '|'.", source=src, key=col)
            codes = domain.codes_in_range(j, lo, hi)
            if not codes:
                raise InputError(f"{where}, column '{col}': range '{text}' contains none of the "
                                 f"values of '{col}' ({int(vals.min())} to {int(vals.max())}); "
                                 f"fix the range.", source=src, key=col)
            allowed |= codes
            continue
        if _RANGE_LIKE.match(text) and "-" in text and domain.int_values(j) is not None:
            raise InputError(f"{where}, column '{col}': '{text}' is not a valid range; write a "
                             f"range as two whole numbers such as 20-29, or list values "
                             f"separated by '|'.", source=src, key=col)
        raise InputError(f"{where}, column '{col}': value '{text}' is not one of the values of "
                         f"'{col}' ({_preview(labels)}); use one of these.", source=src, key=col)
    return frozenset(allowed)


def _csv_rows(inp: TextInput, src: str) -> tuple[list[str], list[tuple[int, list[str]]]]:
    reader = csv.reader(io.StringIO(inp.text), delimiter=inp.delimiter)
    try:
        raw = list(reader)
    except csv.Error as exc:
        raise InputError(f"{src}: cannot be read as CSV ({exc}); save it as comma-separated "
                         f"text.", source=src) from None
    header_at = next((i for i, r in enumerate(raw) if any(c.strip() for c in r)), None)
    if header_at is None:
        raise InputError(f"{src}: the file is empty; it needs a header row naming the columns "
                         f"and one row per query.", source=src)
    header = [restore(h.strip()) for h in raw[header_at]]
    rows = []
    for i, r in enumerate(raw[header_at + 1:], start=header_at + 2):
        if not any(c.strip() for c in r):
            continue
        if len(r) != len(header):
            raise InputError(f"{src}: row {i} has {len(r)} fields but the header has "
                             f"{len(header)}; remove the extra commas or quote values that "
                             f"contain commas.", source=src)
        rows.append((i, [restore(c.strip()) for c in r]))
    if not rows:
        raise InputError(f"{src}: has a header but no data rows; add one row per query below "
                         f"the header.", source=src)
    if "" in header:
        raise InputError(f"{src}: column {header.index('') + 1} of the header has no name; "
                         f"name every column.", source=src)
    if len(set(header)) != len(header):
        dup = next(h for h in header if header.count(h) > 1)
        raise InputError(f"{src}: the header names column '{dup}' twice; name each column "
                         f"once.", source=src)
    return header, rows


def _header_columns(domain: Domain, header: Sequence[str], src: str, skip: set[str]
                    ) -> dict[str, int]:
    out = {}
    for h in header:
        if h in skip:
            continue
        if h not in domain.columns:
            raise InputError(f"{src}: row 1, column {column_name_text(h)} is not an attribute of the data "
                             f"(attributes: {_preview(domain.columns)}); rename or remove the "
                             f"column.", source=src, key=h)
        out[h] = domain.index(h)
    return out


def _csv_query(domain: Domain, cols: dict[str, int], header: list[str], line: int,
               cells: list[str], src: str, label: str) -> CountingQuery:
    conds = []
    for name, cell in zip(header, cells, strict=True):
        if name not in cols or cell == "":
            continue
        conds.append((cols[name], _parse_values(domain, cols[name], cell.split("|"),
                                                f"{src}: row {line}", src)))
    return CountingQuery(tuple(conds), label=label or f"row {line}", table=Path(src).name)


def load_queries_file(path: str | Path, domain: Domain) -> list[CountingQuery]:
    """Custom counting queries (paper 003 §2.1) from a CSV or TOML file.

    CSV: one query per row; each column is an attribute (an optional ``label`` column names the
    query); a cell lists allowed values separated by "|" or an integer range "20-29"
    (inclusive); an empty cell matches any value. TOML (``.toml``): ``[[query]]`` tables whose
    keys are attributes with a list of values, one value, or a range string "20-29"; an
    optional ``label`` key names the query.
    """
    src = str(path)
    toml = Path(path).suffix.lower() == ".toml"
    inp = _read_text(path, sniff=not toml)
    if toml:
        return _load_queries_toml(inp.text, src, domain)
    header, rows = _csv_rows(inp, src)
    skip = {"label"} - set(domain.columns)
    cols = _header_columns(domain, header, src, skip)
    li = header.index("label") if "label" in skip and "label" in header else None
    return [_csv_query(domain, cols, header, line, cells, src,
                       cells[li] if li is not None else "") for line, cells in rows]


def _load_queries_toml(text: str, src: str, domain: Domain) -> list[CountingQuery]:
    try:
        doc = tomllib.loads(text)
    except tomllib.TOMLDecodeError as exc:
        raise InputError(f"{src}: is not valid TOML ({exc}); fix the syntax.", source=src
                         ) from None
    except RecursionError:
        raise InputError(f"{src}: its lists are nested too deeply to be queries; give each "
                         f"attribute a value, a list of values or a range.", source=src
                         ) from None
    qs = doc.get("query")
    if not isinstance(qs, list) or not qs or not all(isinstance(q, dict) for q in qs):
        raise InputError(f"{src}: defines no [[query]] tables; add one [[query]] table per "
                         f"counting query.", source=src, key="query")
    out = []
    for n, table in enumerate(qs, start=1):
        where = f"{src}: query {n}"
        conds = []
        label = str(table.get("label", f"query {n}")) if "label" not in domain.columns else \
            f"query {n}"
        for key, value in table.items():
            if key == "label" and "label" not in domain.columns:
                continue
            if key not in domain.columns:
                raise InputError(f"{where}: '{key}' is not an attribute of the data "
                                 f"(attributes: {_preview(domain.columns)}); rename or remove "
                                 f"it.", source=src, key=key)
            j = domain.index(key)
            if isinstance(value, list):
                parts = [str(v) for v in value]
                if not parts:
                    raise InputError(f"{where}, column '{key}': the list of values is empty; "
                                     f"list at least one value or remove the key.",
                                     source=src, key=key)
            elif isinstance(value, (str, int)) and not isinstance(value, bool):
                parts = str(value).split("|")
            else:
                raise InputError(f"{where}, column '{key}': {given_value(value)} is not a value, a list of "
                                 f"values or a range such as \"20-29\".", source=src, key=key)
            conds.append((j, _parse_values(domain, j, parts, where, src)))
        out.append(CountingQuery(tuple(conds), label=label, table=Path(src).name))
    return out


@dataclass(frozen=True)
class PublishedRows:
    """A published table as read: one query and count per data row, and where each row is.

    ``lines[i]`` is the CSV row of ``queries[i]`` as a spreadsheet numbers it (the header is
    row 1), so messages can point at it even when a ``label`` column renamed the queries.
    """

    queries: list[CountingQuery]
    counts: np.ndarray               # (m,) int64
    lines: tuple[int, ...]
    source: str
    missing_values: dict | None = None   # rows left out for an empty count (published_gaps)


#: What to do with a published table's empty counts (release_options.missing).
PUBLISHED_MISSING = ("drop_rows", "error")


def _empty_counts(header: Sequence[str], rows: Sequence[tuple[int, list[str]]]) -> list[int]:
    """The rows (as a spreadsheet numbers them) whose count is empty or a missing-value mark."""
    if "count" not in header:
        return []
    ci = header.index("count")
    return [line for line, cells in rows
            if cells[ci] == "" or cells[ci].strip().lower() in MISSING_MARKERS]


def _gap_entry(src: str, header, rows, missing: str) -> tuple[dict | None, set[int]]:
    """A published table's empty counts (issue 21, "the same choices … where they make
    sense"): with ``missing="drop_rows"`` those rows are left out — a count left empty was not
    published, so the attacker has one statistic fewer; it is never read as 0 — and counted
    for result.json's inputs[].missing_values and the report's gaps table; with ``"error"``
    the file is refused with one sentence naming the first such row. Returns (entry or None,
    the rows left out). Condition cells are not gaps: empty there means any value."""
    if missing not in PUBLISHED_MISSING:
        raise InputError(f"what to do with a published table's empty counts must be one of "
                         f"{', '.join(PUBLISHED_MISSING)}, got {given_value(missing)}.", source=src,
                         key="release_options.missing")
    gaps = _empty_counts(header, rows)
    if not gaps:
        return None, set()
    first = gaps[0]
    cell = dict(rows)[first][header.index("count")]
    words = "is empty" if cell == "" else f"holds {cell_text(cell)}, a mark for a missing value"
    listed = f"'count' {len(gaps):,} (first in row {first})"
    if missing == "error":
        raise InputError(f"{src}: row {first}, column 'count' {words} (empty cells: {listed}); "
                         f"fill in the published counts — an empty count is unknown, not 0 — "
                         f"or let the audit leave those rows out.", source=src, key="count")
    if len(gaps) == len(rows):
        raise InputError(f"{src}: every row's count is empty ({listed}); fill in the counts "
                         f"that were published.", source=src, key="count")
    k = len(gaps)
    note = (f"{k:,} row{'s' if k != 1 else ''} with an empty count ({listed}) "
            f"{'were' if k != 1 else 'was'} left out: a count left empty was not published, "
            f"so the attacker has {'those statistics' if k != 1 else 'that statistic'} "
            f"fewer; it is never read as 0")
    entry = dropped_rows_entry({"count": k}, len(rows), k, note + ".")
    return entry, set(gaps)


def published_gaps(path: str | Path, missing: str = "drop_rows") -> dict | None:
    """The empty counts of the published table at ``path`` per column (result.json's
    inputs[].missing_values), or the sentence of ``missing="error"``: what
    :func:`load_published_rows` does with them, read before any work (it needs no domain)."""
    src = str(path)
    header, rows = _csv_rows(_read_text(path, sniff=True), src)
    entry = _gap_entry(src, header, rows, missing)[0]
    if entry:                   # in read_as and the run's warnings, as the loader says it
        add_read_note(src, entry["sentence"].rstrip("."))
    return entry


def load_published_table(path: str | Path, domain: Domain, missing: str = "drop_rows"
                         ) -> tuple[list[CountingQuery], np.ndarray]:
    """An already-published table: condition columns plus a ``count`` column.

    Each row is one released statistic (paper 003 §2.1): its condition cells use the syntax of
    :func:`load_queries_file`; ``count`` must be a whole number ≥ 0. Two rows with the same
    conditions are an error (the same cell published twice). A row whose count is empty is
    left out, or with ``missing="error"`` refused (:func:`_gap_entry`).
    :func:`load_published_rows` also returns each row's line in the file.
    """
    rows = load_published_rows(path, domain, missing)
    return rows.queries, rows.counts


def load_published_rows(path: str | Path, domain: Domain, missing: str = "drop_rows"
                        ) -> PublishedRows:
    """:func:`load_published_table` with the CSV row number of every query (header = row 1)."""
    src = str(path)
    header, rows = _csv_rows(_read_text(path, sniff=True), src)
    gaps, left_out = _gap_entry(src, header, rows, missing)
    if gaps:
        add_read_note(src, gaps["sentence"].rstrip("."))
        rows = [(line, cells) for line, cells in rows if line not in left_out]
    if "count" not in header:
        raise InputError(f"{src}: has no 'count' column; add a column named 'count' with the "
                         f"published number of each row.", source=src, key="count")
    skip = {"count", "label"} - set(domain.columns)
    cols = _header_columns(domain, header, src, skip)
    if not cols:
        raise InputError(f"{src}: has no attribute columns, only the count; add the columns "
                         f"that define each cell.", source=src)
    ci = header.index("count")
    li = header.index("label") if "label" in skip and "label" in header else None
    queries, counts, lines = [], [], []
    seen: dict[tuple, int] = {}
    for line, cells in rows:
        raw = cells[ci]
        try:
            value = float(raw)
        except ValueError:
            raise InputError(f"{src}: row {line}, column 'count': {cell_text(raw)} is not a "
                             f"number{number_hint(raw)}; write the published count as a whole "
                             f"number.", source=src, key="count") from None
        if non_finite(raw):
            raise InputError(non_finite_sentence(
                f"{src}: row {line}, column 'count'", raw,
                "write the published count as a whole number"), source=src, key="count")
        if raw.strip().lower() in MISSING_MARKERS:
            raise InputError(f"{src}: row {line}, column 'count': {cell_text(raw)} looks like "
                             f"a missing value; write the published count as a whole number, "
                             f"or delete the row if the cell was not published.", source=src,
                             key="count")
        if not math.isfinite(value) or value != round(value):
            raise InputError(f"{src}: row {line}, column 'count': {cell_text(raw)} is not a "
                             f"whole number; published counts are whole numbers (round them or "
                             f"check the column).", source=src, key="count")
        if value < 0:
            raise InputError(f"{src}: row {line}, column 'count': {cell_text(raw)} is negative; "
                             f"counts cannot be below 0 (clamp noisy counts at 0 before "
                             f"publishing).", source=src, key="count")
        if value > MAX_PUBLISHED_COUNT:
            raise InputError(f"{src}: row {line}, column 'count': {cell_text(raw)} is more "
                             f"people than any table counts (above {MAX_PUBLISHED_COUNT:,}); "
                             f"check the column (is it a count, not an amount or an id?).",
                             source=src, key="count")
        q = _csv_query(domain, cols, header, line, cells, src,
                       cells[li] if li is not None else "")
        if q.conditions in seen:
            raise InputError(f"{src}: row {line} has the same conditions as row "
                             f"{seen[q.conditions]}; each cell may be published once — remove "
                             f"one of the rows.", source=src)
        seen[q.conditions] = line
        queries.append(q)
        counts.append(int(value))
        lines.append(line)
    return PublishedRows(queries, np.asarray(counts, dtype=np.int64), tuple(lines), src, gaps)


def write_published_csv(queries: Sequence[CountingQuery], counts, domain: Domain,
                        path: str | Path) -> Path:
    """Write released counts as a published table that :func:`load_published_table` reads
    back: one row per statistic, a column per attribute (allowed values joined by "|", whole
    number ranges as "lo-hi", empty = any value), then ``label`` and ``count``."""
    out = Path(path)
    out.parent.mkdir(parents=True, exist_ok=True)
    used = sorted({c for q in queries for c, _ in q.conditions})
    buf = io.StringIO()
    w = csv.writer(buf, lineterminator="\n")
    w.writerow([neutralise(domain.columns[c]) for c in used] + ["label", "count"])
    for q, count in zip(queries, np.asarray(counts).tolist(), strict=True):
        cond = dict(q.conditions)
        cells = []
        for c in used:
            allowed = sorted(cond.get(c, ()))
            ints = domain.int_values(c)
            if not allowed or len(allowed) == domain.sizes[c]:
                cells.append("")
            elif ints is not None and len(allowed) > 1 and \
                    np.array_equal(np.diff(ints[allowed]), np.ones(len(allowed) - 1)):
                cells.append(f"{ints[allowed[0]]}-{ints[allowed[-1]]}")
            else:
                cells.append("|".join(domain.labels[c][k] for k in allowed))
        w.writerow([neutralise(c) for c in cells + [q.label]] + [int(count)])
    out.write_text(buf.getvalue(), encoding="utf-8")
    return out
