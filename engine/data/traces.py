"""Location traces and published site × epoch releases: loading, validating, clipping.

Paper 000 §2.1.1 models a location dataset as one binary matrix per user, sites × epochs, with a
1 where the user was seen at that site in that epoch; an aggregate (§2.1.2) is the sum of these
matrices over the users it covers. :class:`Traces` holds all users at once as one sparse
``users × (epochs · sites)`` CSR matrix, because real traces are very sparse (a user is seen in a
few tens of the ~77,000 cells of paper 000's 96 sites × 800 hours) and a dense array of the whole
population would not fit in memory.

Everything a user can get wrong in a file becomes one :class:`InputError` sentence that names the
file, the row (numbered as a spreadsheet shows it: the header is row 1) or the column, what is
wrong, and what to do (ARCHITECTURE §4, §7).
"""

from __future__ import annotations

import difflib
import io
import math
import re
import warnings
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

import numpy as np
import pandas as pd
import scipy.sparse as sp

from engine.data.columns import (
    check_repeated_header,
    column_names,
    dropped_rows_entry,
    first_rows,
    gap_list,
    natural_key,
    one_line,
    preview,
    spreadsheet_row,
)
from engine.data.errors import InputError, given_value
from engine.data.gaps import gap_mask, mark_counts, mark_mask, with_marks
from engine.data.text_input import (
    add_read_note,
    cell_text,
    check_header,
    header_mismatch,
    header_names,
    non_finite,
    non_finite_sentence,
    number_hint,
    read_text,
)

EPOCH_UNITS = ("hour", "day")
# An integer epoch column whose values run past this is almost surely a Unix time, not an epoch
# index; a matrix that wide would make every per-epoch array of the audit enormous.
MAX_EPOCHS = 1_000_000
_PREVIEW = 5  # how many example values an error message lists


# --------------------------------------------------------------------------- the data type

@dataclass(frozen=True, eq=False)
class Traces:
    """Sparse binary location traces: users × (sites × epochs) (paper 000 §2.1.1).

    ``matrix[u, epoch * n_sites + site] == 1`` when user ``u`` was seen at ``site`` during
    ``epoch``. The epoch-major column order makes one epoch's sites a contiguous block, so
    per-epoch operations (clipping, §2.2.2) and reshaping one user to ``(E, S)`` are cheap.
    ``eq=False``: comparing two sparse matrices with ``==`` is elementwise, not a bool.
    """

    user_ids: tuple[str, ...]        # (U,) ids as strings, in first-appearance order
    site_labels: tuple[str, ...]     # (S,)
    epoch_labels: tuple[str, ...]    # (E,) "0", "1", … or ISO hour/day bin starts
    matrix: sp.csr_matrix            # (U, E*S) uint8 0/1; column = epoch * S + site
    source: str = ""                 # file name or generator description, for error messages
    # Rows left out for a gap, per column (result.json inputs[].missing_values; None: none).
    missing_values: dict | None = None

    def __post_init__(self) -> None:
        u, s, e = len(self.user_ids), len(self.site_labels), len(self.epoch_labels)
        m = self.matrix
        if not sp.issparse(m):
            raise TypeError("Traces.matrix must be a scipy.sparse matrix (never dense).")
        if m.shape != (u, e * s):
            raise ValueError(f"Traces.matrix has shape {m.shape}, expected ({u}, {e * s}) "
                             f"for {u} users, {s} sites and {e} epochs.")
        # Canonical form (sorted indices, no stored zeros, uint8 ones) so that nnz counts
        # observations and clipping sees the same entry order for the same data.
        m = sp.csr_matrix(m, copy=True)
        m.sum_duplicates()
        m.eliminate_zeros()
        m.data = np.ones(m.nnz, dtype=np.uint8)
        m.sort_indices()
        object.__setattr__(self, "matrix", m)
        object.__setattr__(self, "user_ids", tuple(str(x) for x in self.user_ids))
        object.__setattr__(self, "site_labels", tuple(str(x) for x in self.site_labels))
        object.__setattr__(self, "epoch_labels", tuple(str(x) for x in self.epoch_labels))

    def __repr__(self) -> str:
        # The default repr would print every user id: unreadable for 16,000 users.
        return (f"Traces({self.n_users} users, {self.n_sites} sites, {self.n_epochs} epochs, "
                f"{self.matrix.nnz} observations, source={self.source!r})")

    @property
    def n_users(self) -> int:
        return len(self.user_ids)

    @property
    def n_sites(self) -> int:
        return len(self.site_labels)

    @property
    def n_epochs(self) -> int:
        return len(self.epoch_labels)

    @property
    def n_cells(self) -> int:
        """Number of (site, epoch) cells, i.e. observations per aggregate (paper 000 §2.1.2)."""
        return self.n_sites * self.n_epochs

    def observations_per_user(self) -> np.ndarray:
        """(U,) int64: how many cells each user is seen in — their positive observations."""
        return np.diff(self.matrix.indptr).astype(np.int64)

    def cell_index(self, site: int | str, epoch: int | str) -> int:
        """Column of ``(site, epoch)``; an ``int`` is a position, a ``str`` a label."""
        si = self._position(site, self.site_labels, "site")
        ei = self._position(epoch, self.epoch_labels, "epoch")
        return ei * self.n_sites + si

    @staticmethod
    def _position(value: int | str, labels: tuple[str, ...], what: str) -> int:
        if isinstance(value, (int, np.integer)) and not isinstance(value, bool):
            if not 0 <= int(value) < len(labels):
                raise IndexError(f"{what} position {value} is outside 0..{len(labels) - 1}")
            return int(value)
        try:
            return labels.index(str(value))
        except ValueError:
            raise KeyError(f"unknown {what} label {value!r}") from None

    def dense_user(self, i: int) -> np.ndarray:
        """(E, S) uint8 trace of user ``i`` alone — the x^i matrix of paper 000 §2.1.1."""
        row = self.matrix[int(i)]
        out = np.zeros(self.n_cells, dtype=np.uint8)
        out[row.indices] = 1
        return out.reshape(self.n_epochs, self.n_sites)

    def subset(self, rows: Sequence[int] | np.ndarray) -> Traces:
        """Traces of the users at ``rows`` (positions or a boolean mask), in that order."""
        idx = np.asarray(rows)
        if idx.dtype == bool:
            idx = np.flatnonzero(idx)
        idx = idx.astype(np.int64, copy=False)
        return Traces(tuple(self.user_ids[i] for i in idx), self.site_labels, self.epoch_labels,
                      self.matrix[idx], self.source, self.missing_values)

    def aggregate(self, rows: Sequence[int] | np.ndarray | None = None) -> np.ndarray:
        """(E, S) int64 aggregate A = Σ x^i over ``rows`` (all users when None), paper 000 §2.1.2.

        Summed through the sparse matrix so no dense users × cells array is ever built.
        """
        m = self.matrix if rows is None else self.matrix[np.asarray(rows)]
        counts = np.asarray(m.sum(axis=0, dtype=np.int64)).ravel()
        return counts.reshape(self.n_epochs, self.n_sites)


# --------------------------------------------------------------------------- clipping

def clip_per_epoch(traces_matrix: sp.spmatrix | Traces, C: int, rng: np.random.Generator, *,
                   n_sites: int | None = None) -> sp.csr_matrix:
    """Per-epoch contribution bounding of paper 000 §2.2.2.

    A user seen at more than ``C`` sites in one epoch keeps ``C`` of those ones chosen uniformly
    at random (the others are flipped to 0), so each epoch's L1 sensitivity is at most ``C``.
    Users already within ``C`` keep every one. Vectorised over the non-zeros: each one gets a
    random key, entries are sorted by (user, epoch, key) and the first ``C`` of each group stay —
    a uniform random ``C``-subset of the group. The result depends only on the data and ``rng``.

    ``traces_matrix`` is a :class:`Traces` or its CSR matrix; a bare matrix needs ``n_sites``
    to know where one epoch's block of columns ends. Returns a new CSR matrix (uint8 0/1).
    """
    if isinstance(traces_matrix, Traces):
        n_sites = traces_matrix.n_sites
        traces_matrix = traces_matrix.matrix
    if n_sites is None or int(n_sites) < 1:
        raise ValueError("clip_per_epoch needs n_sites (>= 1) when given a bare matrix.")
    if isinstance(C, bool) or not float(C).is_integer() or C < 1:
        raise InputError(f"The places kept per person and hour must be a whole number "
                         f"of at least 1, got {given_value(C)}.", key="clip_per_epoch",
                         setting="clip_per_epoch")
    C = int(C)
    m = sp.csr_matrix(traces_matrix, copy=True)
    m.sum_duplicates()
    m.eliminate_zeros()
    m.sort_indices()  # a canonical entry order makes the random keys reproducible
    if m.shape[1] % int(n_sites):
        raise ValueError(f"matrix width {m.shape[1]} is not a multiple of n_sites={n_sites}")
    n_epochs = m.shape[1] // int(n_sites)
    rows = np.repeat(np.arange(m.shape[0], dtype=np.int64), np.diff(m.indptr))
    group = rows * n_epochs + m.indices.astype(np.int64) // int(n_sites)
    keys = rng.random(m.nnz)
    order = np.lexsort((keys, group))
    g_sorted = group[order]
    starts = np.flatnonzero(np.r_[True, g_sorted[1:] != g_sorted[:-1]])
    group_start = np.repeat(starts, np.diff(np.r_[starts, g_sorted.size]))
    rank = np.arange(g_sorted.size) - group_start
    keep = np.zeros(m.nnz, dtype=bool)
    keep[order[rank < C]] = True
    out = sp.csr_matrix((np.ones(int(keep.sum()), dtype=np.uint8),
                         (rows[keep], m.indices[keep])), shape=m.shape)
    out.sort_indices()
    return out


# --------------------------------------------------------------------------- CSV helpers




def _read_csv(path: str | Path, wanted: dict[str, str], max_rows: int | None,
              numeric: set[str] = frozenset(), *, leave_out_gaps: bool = True
              ) -> tuple[pd.DataFrame, dict | None]:
    """Read the ``wanted`` columns (role → column name) as text, or raise a sentence; rows
    with a gap are left out (:func:`_leave_out_gaps`, which returns what was done, or None;
    ``numeric`` names the number and time columns) unless ``leave_out_gaps`` is False (a
    release's gaps are not observations: :func:`_release_gaps`).

    Everything is read as ``str`` so that messages can quote the value exactly as written and
    ids like "007" keep their zeros. Blank lines are kept while reading (so row numbers match
    what a spreadsheet shows) and dropped afterwards.
    """
    p = str(path)
    inp = read_text(p, sniff=True, empty="the file is empty; it needs a header row naming the "
                                          "columns and one data row per observation.")
    text = inp.text.lstrip("\n")
    header = header_names(inp)
    check_header(p, header, allow_blank=True)   # an unnamed column is ignored, as any other
    found = {h: k for k, h in enumerate(header) if h}
    for role, name in wanted.items():
        if name not in found:
            close = difflib.get_close_matches(name, list(found), n=1)
            hint = f" (did you mean '{close[0]}'?)" if close else ""
            raise InputError(
                f"{p}: column '{name}' (the {role} column) is missing{hint}; columns found: "
                f"{column_names(list(found), limit=len(found)) or 'none'} — rename the column, "
                f"or choose one of these as the {role} column.", source=p, key=f"{role}_col")
    opts = dict(dtype=str, na_filter=False, skip_blank_lines=False, sep=inp.delimiter)
    try:
        # All columns, not usecols: with usecols pandas silently drops the extra fields of a
        # ragged row, and a shifted row would be read as wrong values instead of an error.
        with warnings.catch_warnings():
            warnings.simplefilter("error", pd.errors.ParserWarning)
            df = pd.read_csv(io.StringIO(text), nrows=None if max_rows is None else max_rows + 1,
                             index_col=False, **opts)
    except pd.errors.ParserWarning:
        raise InputError(f"{p}: the data rows have more fields than the header names; remove "
                         f"the extra commas or add the missing column names to the header.",
                         source=p) from None
    except pd.errors.EmptyDataError:
        raise InputError(f"{p}: the file is empty; it needs a header row naming the columns "
                         f"and one data row per observation.", source=p) from None
    except pd.errors.ParserError as exc:
        raise InputError(f"{p}: {_parser_message(exc)}", source=p) from None
    if len(df.columns) != len(header):
        raise header_mismatch(p, header, len(df.columns))
    check_repeated_header(p, df, header)
    df.columns = [h if h else f"(column {k + 1})" for k, h in enumerate(header)]
    if max_rows is not None and len(df) > max_rows:
        raise InputError(f"{p}: has more than {max_rows} data rows, the most this audit reads; "
                         f"raise the most rows to read or load a sample of the people.",
                         source=p, key="max_rows", setting="max_rows")
    df = df[list(dict.fromkeys(wanted.values()))].apply(lambda c: c.str.strip())
    blank = (df == "").all(axis=1)
    df = df[~blank.to_numpy()]
    if df.empty:
        raise InputError(f"{p}: has a header but no data rows; add one row per observation "
                         f"below the header.", source=p)
    if not leave_out_gaps:
        return df, None
    df, gaps = _leave_out_gaps(p, df, list(dict.fromkeys(wanted.values())), numeric)
    return df, gaps


def _leave_out_gaps(p: str, df: pd.DataFrame, names: Sequence[str], numeric: set[str]
                    ) -> tuple[pd.DataFrame, dict | None]:
    """Rows with a gap in a column the audit reads, left out and counted per column (issue
    21, "Real tables with gaps": the same per-column entry as count-table microdata and
    predictions files — column, empty cells, what was done — for result.json's
    ``missing_values``, the report's gaps table and the load preview).

    A row without its user, place, time (or count) cannot be placed in the user × site ×
    epoch matrix, and no value can be made up for it: a filled-in place or hour would be an
    observation nobody made. So it is left out (the audit then runs on the rows that can be
    placed), and the file is refused only when no row is left. A gap is an empty cell or a
    missing-value mark by the one rule of engine.data.gaps: in a number or time column
    (epoch, count, latitude, longitude) 'NA', 'None', '-', '?', …; in the user and site
    columns 'NA', 'N/A', 'NaN', 'null', '?' (issue 31 item 10: a user id 'NA' was one person
    with 300 observations, silently) — the marks found are said. An infinite number is not a
    gap but a mistake, refused with its own sentence by the number checks."""
    masks = {}
    marks = {}
    for n in names:
        col = df[n]
        mark = mark_mask(col, "number" if n in numeric else "text")
        if mark.any():
            marks[n] = mark_counts(col, mark)
        masks[n] = (col == "").to_numpy() | mark
    counts = {n: int(m.sum()) for n, m in masks.items() if m.any()}
    if not counts:
        return df, None
    gap_rows = np.logical_or.reduce([masks[n] for n in counts])
    what = "an empty cell" + (" or a missing-value mark such as 'NA'" if marks else "")
    if gap_rows.all():
        listed = gap_list(counts, first_rows({n: masks[n] for n in counts}, df.index))
        raise InputError(with_marks(f"{p}: every row has {what} in a column the audit needs "
                                    f"({listed}); fill them in — a row without a user, place "
                                    f"and time cannot be placed.", marks), source=p,
                         key=next(iter(counts)))
    k = int(gap_rows.sum())
    first = spreadsheet_row(df.index[int(np.flatnonzero(gap_rows)[0])])
    note = (f"{k:,} row{'s' if k != 1 else ''} with {what} ({gap_list(counts)}; first in "
            f"row {first}) {'were' if k != 1 else 'was'} left out, since an observation "
            f"without its user, place and time cannot be placed")
    note = with_marks(note, marks)
    # In read_as and the run's warnings (engine.data.text_input.read_notes) as before, and
    # per column in missing_values.
    add_read_note(p, note)
    report = dropped_rows_entry(counts, len(df), k, note + ".")
    for entry in report["per_column"]:
        if entry["column"] in marks:
            entry["marks"] = marks[entry["column"]]
    return df[~gap_rows], report


def _parser_message(exc: Exception) -> str:
    text = one_line(exc)
    m = re.search(r"Expected (\d+) fields in line (\d+), saw (\d+)", text)
    if m:
        return (f"row {m.group(2)} has {m.group(3)} fields but the header has {m.group(1)}; "
                f"remove the extra commas or quote values that contain commas.")
    return f"cannot be read as CSV ({text}); save it as comma-separated text with a header row."


def _whole_numbers(p: str, df: pd.DataFrame, col: str, what: str, fix: str) -> np.ndarray:
    """Parse a column of non-negative whole numbers ("3" or "3.0"), or name the first bad row."""
    raw = df[col]
    num = pd.to_numeric(raw, errors="coerce").to_numpy(dtype=float)

    def cell(i: int) -> str:
        return f"{p}: row {spreadsheet_row(df.index[i])}, column '{col}': {cell_text(raw.iloc[i])}"

    bad = ~np.isfinite(num)
    if bad.any():
        i = int(np.flatnonzero(bad)[0])
        _refuse_non_finite(p, df, col, i, f"{what} must be whole numbers — {fix}")
        raise InputError(f"{cell(i)} is not a number{number_hint(raw.iloc[i])}; {what} must be "
                         f"whole numbers — {fix}.", source=p, key=col)
    frac = num != np.round(num)
    if frac.any():
        i = int(np.flatnonzero(frac)[0])
        raise InputError(f"{cell(i)} is not a whole number; {what} must be whole numbers — "
                         f"{fix}.", source=p, key=col)
    neg = num < 0
    if neg.any():
        i = int(np.flatnonzero(neg)[0])
        raise InputError(f"{cell(i)} is negative; {what} must be 0 or more — {fix}.",
                         source=p, key=col)
    if num.size and num.max() > 2**62:
        i = int(np.argmax(num))
        raise InputError(f"{cell(i)} is too large — {fix}.", source=p, key=col)
    return num.astype(np.int64)


def _refuse_non_finite(p: str, df: pd.DataFrame, col: str, i: int, fix: str) -> None:
    """The shared sentence (engine.data.text_input.non_finite_sentence) when the cell at
    position ``i`` of ``col`` is an infinity or a number too large to store."""
    value = df[col].iloc[i]
    if non_finite(value):
        raise InputError(non_finite_sentence(f"{p}: row {spreadsheet_row(df.index[i])}, column '{col}'",
                                             value, fix), source=p, key=col)


def _first_duplicate(key: np.ndarray) -> tuple[int, int] | None:
    """Positions (earlier, later) of the first row that repeats an earlier row's key."""
    order = np.argsort(key, kind="stable")
    ks = key[order]
    dup = np.flatnonzero(ks[1:] == ks[:-1]) + 1
    if dup.size == 0:
        return None
    later = order[dup]
    j = int(np.argmin(later))
    first = int(np.searchsorted(ks, ks[dup[j]]))  # start of that key's run = earliest row
    return int(order[first]), int(later[j])


def _check_grid(grid) -> tuple[int, int]:
    try:
        r, c = grid
        ok = all(not isinstance(v, bool) and float(v).is_integer() and v >= 1 for v in (r, c))
    except (TypeError, ValueError):
        ok = False
    if not ok:
        raise InputError(f"The grid of places must be two whole numbers of at least 1 "
                         f"(rows, columns), e.g. 12 and 8; got {given_value(grid)}.", key="grid",
                         setting="grid")
    return int(r), int(c)


# --------------------------------------------------------------------------- traces loader

def load_traces_csv(path: str | Path, *, user_col: str = "user_id", site_col: str = "site",
                    epoch_col: str = "epoch", count_col: str | None = None,
                    epoch_unit: str | None = None, lat_col: str | None = None,
                    lon_col: str | None = None, grid: tuple[int, int] | None = None,
                    max_rows: int | None = None) -> Traces:
    """Load long-form traces (one row per user, site and epoch) into :class:`Traces`.

    * Epochs are non-negative whole numbers (epoch ``k`` is column block ``k``; the epochs run
      0..max), or — with ``epoch_unit`` "hour" or "day" — ISO timestamps binned to that unit:
      epoch 0 is the first bin in the data and labels are the bin starts. Timestamps with a UTC
      offset are converted to UTC; naive ones are taken as they are.
    * Sites are ids (any text; sorted naturally, so "2" < "10"), or — with ``lat_col`` and
      ``lon_col`` — coordinates binned to a ``grid`` of (rows, cols) cells (default (12, 8),
      paper 000 §5.1) over the data's bounding box; row 0 is the northern edge, column 0 the
      western edge, and the label is "r{row}c{col}".
    * ``count_col``: a count > 0 marks presence, 0 absence (the user is still listed).
    * ``max_rows``: refuse files with more data rows (a guard for memory, never a silent cut).

    Several records in one cell are simply one presence when the cell comes from binning
    timestamps or coordinates; with integer epochs and site ids a repeated (user, site, epoch)
    row is an error, because it usually means a broken export or a lost count column.
    Users appear in first-appearance order.
    """
    p = str(path)
    if epoch_unit is not None and epoch_unit not in EPOCH_UNITS:
        raise InputError(f"The time unit must be one of {', '.join(EPOCH_UNITS)} (or empty "
                         f"when the time column holds hour numbers), got "
                         f"{given_value(epoch_unit)}.", key="epoch_unit", source=p,
                         setting="epoch_unit")
    if (lat_col is None) != (lon_col is None):
        raise InputError("Give both the latitude column and the longitude column to place "
                         "sites by coordinates, or neither to use the place column.", key="lat_col" if lat_col is None
                         else "lon_col", source=p)
    use_coords = lat_col is not None
    if grid is not None and not use_coords:
        raise InputError("The grid of places only applies with a latitude and a longitude "
                         "column; remove it or name the coordinate columns.", key="grid",
                         source=p, setting="grid")
    if use_coords:
        n_rows, n_cols = _check_grid((12, 8) if grid is None else grid)
    if max_rows is not None and (isinstance(max_rows, bool) or int(max_rows) < 1):
        raise InputError(f"The most rows to read must be a whole number of at least 1, got "
                         f"{given_value(max_rows)}.", key="max_rows", source=p,
                         setting="max_rows")

    wanted = {"user": user_col}
    if use_coords:
        wanted.update(lat=lat_col, lon=lon_col)
    else:
        wanted["site"] = site_col
    wanted["epoch"] = epoch_col
    if count_col is not None:
        wanted["count"] = count_col
    numeric = {name for role, name in wanted.items() if role in ("lat", "lon", "epoch", "count")}
    df, gaps = _read_csv(path, wanted, max_rows, numeric)

    # --- epochs
    if epoch_unit is None:
        raw_epochs = _whole_numbers(
            p, df, epoch_col, "epochs",
            "number epochs 0, 1, 2, … or set epoch_unit to 'hour' or 'day' for timestamps")
        first = 0
        n_epochs = int(raw_epochs.max()) + 1
        epochs = raw_epochs
        if n_epochs > MAX_EPOCHS:
            i = int(np.argmax(raw_epochs))
            raise InputError(f"{p}: row {spreadsheet_row(df.index[i])}, column '{epoch_col}': "
                             f"{cell_text(raw_epochs[i])} would make over {MAX_EPOCHS:,} epochs; "
                             f"number the hours from 0, or set the time unit if these are times.",
                             source=p, key=epoch_col)
        epoch_labels = tuple(str(k) for k in range(n_epochs))
    else:
        epochs, epoch_labels = _bin_timestamps(p, df, epoch_col, epoch_unit)
        n_epochs = len(epoch_labels)
        first = None

    # --- sites
    if use_coords:
        site_codes = _grid_sites(p, df, lat_col, lon_col, n_rows, n_cols)
        site_labels = tuple(f"r{r}c{c}" for r in range(n_rows) for c in range(n_cols))
    else:
        codes, uniques = pd.factorize(df[site_col], sort=False)
        order = sorted(range(len(uniques)), key=lambda k: natural_key(str(uniques[k])))
        remap = np.empty(len(uniques), dtype=np.int64)
        remap[order] = np.arange(len(uniques))
        site_codes = remap[codes]
        site_labels = tuple(str(uniques[k]) for k in order)
    n_sites = len(site_labels)

    # --- users (first-appearance order) and the cell of each row
    user_codes, user_uniques = pd.factorize(df[user_col], sort=False)
    user_codes = user_codes.astype(np.int64)
    n_cells = n_sites * n_epochs
    key = user_codes * n_cells + epochs * n_sites + site_codes

    present = np.ones(len(df), dtype=bool)
    if count_col is not None:
        counts = _whole_numbers(p, df, count_col, "counts",
                                "write how many times the user was seen (0 for absent)")
        present = counts > 0

    if first == 0 and not use_coords:
        # Exact repeats only matter where no binning merges records on purpose.
        dup = _first_duplicate(key)
        if dup is not None:
            a, b = (spreadsheet_row(df.index[i]) for i in dup)
            fix = ("keep one row per user, site and epoch with the total count" if count_col
                   else "remove the duplicates, or add a count column and set count_col")
            raise InputError(f"{p}: rows {a} and {b} repeat the same user, site and epoch; "
                             f"{fix}.", source=p, key=epoch_col)

    cells = np.unique(key[present])
    rows, cols = np.divmod(cells, n_cells)
    matrix = sp.csr_matrix((np.ones(cells.size, dtype=np.uint8), (rows, cols)),
                           shape=(len(user_uniques), n_cells))
    return Traces(tuple(str(u) for u in user_uniques), site_labels, epoch_labels, matrix,
                  source=Path(p).name, missing_values=gaps)


def _bin_timestamps(p: str, df: pd.DataFrame, col: str, unit: str) -> tuple[np.ndarray, tuple]:
    raw = df[col]
    # utc=True: aware times (any offsets, even mixed) become UTC; naive ones keep their wall time.
    ts = pd.to_datetime(raw, errors="coerce", format="ISO8601", utc=True)
    ts = ts.dt.tz_localize(None)
    bad = ts.isna().to_numpy()
    if bad.any():
        i = int(np.flatnonzero(bad)[0])
        example = "2024-03-01T14:00" if unit == "hour" else "2024-03-01"
        raise InputError(f"{p}: row {spreadsheet_row(df.index[i])}, column '{col}': "
                         f"{cell_text(raw.iloc[i])} is not a timestamp; write ISO dates/times "
                         f"such as {example}, or leave the time unit empty if the column holds hour "
                         f"numbers.", source=p, key=col, setting="epoch_unit")
    freq = "h" if unit == "hour" else "D"
    binned = ts.dt.floor(freq)
    start = binned.min()
    step = pd.Timedelta(1, unit=freq)
    epochs = ((binned - start) // step).to_numpy(dtype=np.int64)
    n_epochs = int(epochs.max()) + 1
    if n_epochs > MAX_EPOCHS:
        raise InputError(f"{p}: column '{col}' spans {n_epochs:,} {unit}s, more than "
                         f"{MAX_EPOCHS:,} epochs; use a coarser time unit or a shorter "
                         f"period.", source=p, key=col, setting="epoch_unit")
    fmt = "%Y-%m-%dT%H:00" if unit == "hour" else "%Y-%m-%d"
    labels = tuple(pd.date_range(start, periods=n_epochs, freq=freq).strftime(fmt))
    return epochs, labels


def _grid_sites(p: str, df: pd.DataFrame, lat_col: str, lon_col: str, n_rows: int,
                n_cols: int) -> np.ndarray:
    coords = {}
    for col, limit, name in ((lat_col, 90.0, "latitude"), (lon_col, 180.0, "longitude")):
        raw = df[col]
        v = pd.to_numeric(raw, errors="coerce").to_numpy(dtype=float)
        bad = ~np.isfinite(v)
        if bad.any():
            i = int(np.flatnonzero(bad)[0])
            _refuse_non_finite(p, df, col, i, f"write the {name} in decimal degrees")
            raise InputError(f"{p}: row {spreadsheet_row(df.index[i])}, column '{col}': "
                             f"{cell_text(raw.iloc[i])} is not a number"
                             f"{number_hint(raw.iloc[i])}; write the {name} in decimal "
                             f"degrees.", source=p, key=col)
        out = np.abs(v) > limit
        if out.any():
            i = int(np.flatnonzero(out)[0])
            raise InputError(f"{p}: row {spreadsheet_row(df.index[i])}, column '{col}': "
                             f"{cell_text(raw.iloc[i])} is out of range; a {name} lies "
                             f"between -{limit:g} and {limit:g} (check that latitude and "
                             f"longitude are not swapped).", source=p, key=col)
        coords[name] = v
    lat, lon = coords["latitude"], coords["longitude"]

    def bins(v: np.ndarray, n: int, flip: bool) -> np.ndarray:
        lo, hi = v.min(), v.max()
        if hi <= lo:
            return np.zeros(v.size, dtype=np.int64)
        frac = (hi - v) / (hi - lo) if flip else (v - lo) / (hi - lo)
        # The far edge belongs to the last cell, not to a cell beyond the grid.
        return np.minimum((frac * n).astype(np.int64), n - 1)

    rows = bins(lat, n_rows, flip=True)   # row 0 = north, like a map read from the top
    cols = bins(lon, n_cols, flip=False)  # column 0 = west
    return rows * n_cols + cols


# --------------------------------------------------------------------------- release loader

RELEASE_MISSING = ("drop_rows", "error")   # what to do with a release's empty cells


@dataclass(frozen=True, eq=False)
class Release:
    """A published site × epoch release as read (:func:`load_release`).

    ``values`` is (E, S); a cell whose released count was empty (or a missing-value mark such
    as 'NA') is NaN there — unknown, never 0 (issue 21: such a row was left out and its cell
    then read as 0, as an absent cell is with ``fill_missing``). ``gap_rows`` maps each such
    cell (epoch · S + site) to its row in the file, so that an attack that needs the count can
    name it (:meth:`require`). ``missing_values`` is result.json's per-column entry
    (``inputs[].missing_values``), None without gaps."""

    values: np.ndarray
    site_labels: tuple[str, ...]
    epoch_labels: tuple[str, ...]
    source: str
    count_col: str
    gap_rows: dict[int, int]
    missing_values: dict | None = None
    gap_words: dict[int, str] | None = None     # cell → "is empty" / "holds 'NA' (…)"

    def require(self, cells) -> None:
        """Stop with one sentence if any of the flat ``cells`` is a count that was empty."""
        n_s = len(self.site_labels)
        for cell in np.asarray(cells, dtype=np.int64).tolist():
            row = self.gap_rows.get(int(cell))
            if row is not None:
                e, s = divmod(int(cell), n_s)
                words = (self.gap_words or {}).get(int(cell), "is empty")
                raise InputError(
                    f"{self.source}: row {row}, column '{self.count_col}' {words}, and the "
                    f"attack needs that count (site {given_value(self.site_labels[s])} at epoch "
                    f"{given_value(self.epoch_labels[e])}); fill in the number that was published — an "
                    f"empty count is unknown, not 0.", source=self.source, key=self.count_col)


def load_release_csv(path: str | Path, *, site_col: str = "site", epoch_col: str = "epoch",
                     count_col: str = "count", integer_counts: bool = True,
                     sites: Sequence[str] | None = None, epochs: Sequence[str] | None = None,
                     fill_missing: bool = False, allow_negative: bool = False,
                     missing: str = "drop_rows",
                     ) -> tuple[np.ndarray, tuple[str, ...], tuple[str, ...]]:
    """:func:`load_release` as ``(values, site_labels, epoch_labels)``; an empty count is NaN
    in ``values``."""
    r = load_release(path, site_col=site_col, epoch_col=epoch_col, count_col=count_col,
                     integer_counts=integer_counts, sites=sites, epochs=epochs,
                     fill_missing=fill_missing, allow_negative=allow_negative, missing=missing)
    return r.values, r.site_labels, r.epoch_labels


def load_release(path: str | Path, *, site_col: str = "site", epoch_col: str = "epoch",
                 count_col: str = "count", integer_counts: bool = True,
                 sites: Sequence[str] | None = None, epochs: Sequence[str] | None = None,
                 fill_missing: bool = False, allow_negative: bool = False,
                 missing: str = "drop_rows") -> Release:
    """Load a published site × epoch release (paper 000 §2.1.2 aggregate, maybe noised, §2.2.2).

    ``values`` has shape (E, S), float. ``sites``/``epochs`` fix the expected labels and their
    order (e.g. those of the traces); otherwise they come from the file: sites sorted
    naturally, integer epochs as 0..max, other epoch labels sorted naturally (ISO times sort
    chronologically). Every (site, epoch) cell must appear exactly once; ``fill_missing=True``
    reads absent cells as 0 (some releases drop zero cells). ``integer_counts`` requires whole
    numbers (true counts, or discrete noise); ``allow_negative`` accepts values below 0, as
    unclamped Laplace or Gaussian noise produces.

    Empty cells (:func:`_release_gaps`): every column's count is listed at once; with
    ``missing="drop_rows"`` a row with an empty count is left out and its cell is unknown
    (NaN), with ``missing="error"`` the file is refused with one sentence.
    """
    p = str(path)
    if missing not in RELEASE_MISSING:
        raise InputError(f"what to do with a release's empty cells must be one of "
                         f"{', '.join(RELEASE_MISSING)}, got {given_value(missing)}.", key="release_missing")
    df, _ = _read_csv(path, {"site": site_col, "epoch": epoch_col, "count": count_col}, None,
                      leave_out_gaps=False)
    df, gap_df, gaps = _release_gaps(p, df, site_col, epoch_col, count_col, missing)

    raw = df[count_col]
    val = pd.to_numeric(raw, errors="coerce").to_numpy(dtype=float)
    checks = [
        (~np.isfinite(val), "is not a number",
         "write a plain number such as 12 (no units or text)"),
    ]
    if integer_counts:
        checks.append((np.isfinite(val) & (val != np.round(val)), "is not a whole number",
                       "counts must be whole numbers; if this release adds continuous noise, "
                       "set integer_counts to false"))
    if not allow_negative:
        checks.append((val < 0, "is negative",
                       "counts cannot be below 0; if the release adds noise that can go "
                       "negative, set allow_negative to true"))
    for bad, what, fix in checks:
        if bad.any():
            i = int(np.flatnonzero(bad)[0])
            if what == "is not a number":
                _refuse_non_finite(p, df, count_col, i, fix)
                what += number_hint(raw.iloc[i])
            raise InputError(f"{p}: row {spreadsheet_row(df.index[i])}, column '{count_col}': "
                             f"{cell_text(raw.iloc[i])} {what}; {fix}.", source=p, key=count_col)

    # The rows with an empty count are placed too: their cell is known to be published (so
    # neither absent nor read as 0), and a second row for it is still a duplicate.
    placed = pd.concat([df, gap_df])
    s_idx, site_labels = _release_axis(p, placed, site_col, sites, "site", numeric_range=False)
    e_idx, epoch_labels = _release_axis(p, placed, epoch_col, epochs, "epoch",
                                        numeric_range=True)
    n_s, n_e = len(site_labels), len(epoch_labels)
    key = e_idx * n_s + s_idx
    dup = _first_duplicate(key)
    if dup is not None:
        a, b = sorted(spreadsheet_row(placed.index[i]) for i in dup)
        raise InputError(f"{p}: rows {a} and {b} give the same site and epoch; keep one row "
                         f"per cell.",
                         source=p, key=site_col)
    values = np.zeros(n_e * n_s, dtype=float)
    n_val = len(df)
    values[key[:n_val]] = val
    values[key[n_val:]] = np.nan
    gap_rows = {int(k): spreadsheet_row(i) for k, i in zip(key[n_val:], gap_df.index,
                                                            strict=True)}
    gap_words = {int(k): _gap_words(v) for k, v in zip(key[n_val:], gap_df[count_col],
                                                        strict=True)}
    if not fill_missing and key.size < n_e * n_s:
        seen = np.zeros(n_e * n_s, dtype=bool)
        seen[key] = True
        absent = np.flatnonzero(~seen)
        e0, s0 = divmod(int(absent[0]), n_s)
        raise InputError(f"{p}: {absent.size} of {n_e * n_s} site × epoch cells are missing, "
                         f"e.g. site {given_value(site_labels[s0])} at epoch {given_value(epoch_labels[e0])}; add them "
                         f"or choose to read absent cells as 0.",
                         source=p, key=epoch_col)
    return Release(values.reshape(n_e, n_s), site_labels, epoch_labels, p, count_col,
                   gap_rows, gaps, gap_words)


def _gap_words(cell: str) -> str:
    """How a sentence says what a gap cell holds: nothing, or a missing-value mark."""
    return "is empty" if cell == "" else f"holds {cell_text(cell)}, a mark for a missing value"


def _release_gaps(p: str, df: pd.DataFrame, site_col: str, epoch_col: str, count_col: str,
                  missing: str) -> tuple[pd.DataFrame, pd.DataFrame, dict | None]:
    """A release's empty cells, every column at once with its count (issue 21, "the same
    choices for count-table microdata and location traces, where they make sense").

    Returns (rows with a count, rows whose count is empty, result.json's per-column entry or
    None). A gap is an empty cell or a missing-value mark by the one rule of engine.data.gaps:
    'NA', 'None', '-', '?', … in the epoch and count columns, 'NA', 'N/A', 'NaN', 'null', '?'
    in the site column (issue 31 item 10: a site is an id, never a place named 'NA').

    What makes sense for a released count: it cannot be filled in (any number would be made
    up) and is not 0, so with ``missing="drop_rows"`` its row is left out and its cell kept as
    unknown — the audit stops only if an attack needs that count — and with ``"error"`` the
    file is refused. A row without its site or epoch cannot be placed; left out, the cell it
    counts would read as absent (0 with ``fill_missing``), so it is left out only when its
    count is 0, and otherwise refused."""
    masks = {}
    for name in dict.fromkeys((site_col, epoch_col, count_col)):
        col = df[name]
        masks[name] = gap_mask(col, "text" if name == site_col else "number")
    counts = {n: int(m.sum()) for n, m in masks.items() if m.any()}
    if not counts:
        return df, df.iloc[:0], None
    listed = gap_list(counts, first_rows({n: masks[n] for n in counts}, df.index))
    first_col = min(counts, key=lambda n: int(np.flatnonzero(masks[n])[0]))
    first = spreadsheet_row(df.index[int(np.flatnonzero(masks[first_col])[0])])
    if missing == "error":
        words = _gap_words(df[first_col].iloc[int(np.flatnonzero(masks[first_col])[0])])
        raise InputError(f"{p}: row {first}, column '{first_col}' {words} (empty cells: "
                         f"{listed}); fill in what was published — an empty count is unknown, "
                         f"not 0 — or let the audit leave those rows out.", source=p,
                         key=first_col)
    unplaced = masks[site_col] | masks[epoch_col]
    count_gap = masks[count_col]
    zero = pd.to_numeric(df[count_col], errors="coerce").to_numpy(dtype=float) == 0
    lost = unplaced & ~zero
    if lost.any():
        i = int(np.flatnonzero(lost)[0])
        col = site_col if masks[site_col][i] else epoch_col
        raise InputError(f"{p}: row {spreadsheet_row(df.index[i])}, column '{col}' "
                         f"{_gap_words(df[col].iloc[i])}, so the count of that row cannot be "
                         f"placed (empty cells: {listed}); "
                         f"fill in its {'site' if col == site_col else 'epoch'} or delete the "
                         f"row.", source=p, key=col)
    keep = ~(unplaced | count_gap)
    if not keep.any():
        raise InputError(f"{p}: every row has an empty cell ({listed}); fill in the counts "
                         f"that were published.", source=p, key=first_col)
    k = int((~keep).sum())
    note = (f"{k:,} row{'s' if k != 1 else ''} with an empty cell ({listed}) "
            f"{'were' if k != 1 else 'was'} left out; an empty count is read as unknown, not "
            f"as 0, and the audit stops if an attack needs it")
    add_read_note(p, note)
    report = dropped_rows_entry(counts, len(df), k, note + ".")
    return df[keep], df[count_gap & ~unplaced], report


def _release_axis(p: str, df: pd.DataFrame, col: str, expected: Sequence[str] | None, what: str,
                  *, numeric_range: bool) -> tuple[np.ndarray, tuple[str, ...]]:
    raw = df[col]
    if expected is None and numeric_range and raw.str.fullmatch(r"\d+").all():
        # Integer epochs mean time steps 0..max, as in the traces loader, so labels line up.
        # Read as floats first: a 20-digit epoch does not fit a 64-bit integer.
        num = raw.astype(float).to_numpy()
        if num.max() >= MAX_EPOCHS:
            i = int(np.argmax(num))
            raise InputError(f"{p}: row {spreadsheet_row(df.index[i])}, column '{col}': "
                             f"{cell_text(raw.iloc[i])} would make over {MAX_EPOCHS:,} epochs; "
                             f"number epochs from 0.", source=p, key=col)
        num = num.astype(np.int64)
        return num, tuple(str(k) for k in range(int(num.max()) + 1))
    if expected is None:
        labels = tuple(sorted(raw.unique(), key=natural_key))
    else:
        labels = tuple(str(x).strip() for x in expected)
    lookup = {lab: k for k, lab in enumerate(labels)}
    idx = raw.map(lookup)
    unknown = idx.isna().to_numpy()
    if unknown.any():
        i = int(np.flatnonzero(unknown)[0])
        raise InputError(f"{p}: row {spreadsheet_row(df.index[i])}, column '{col}': "
                         f"{cell_text(raw.iloc[i])} is not one of the {len(labels)} expected "
                         f"{what}s ({preview(labels, quote=False)}); fix the label or load the matching data.",
                         source=p, key=col)
    return idx.to_numpy(dtype=np.int64), labels


# --------------------------------------------------------------------------- parameter checks

def validate_audit_sizes(n_population: int, n_aggregate: int, clip_c: int,
                         epsilon: float | None) -> None:
    """Check the sizes of a location-aggregate audit before any work starts.

    The aggregate of paper 000 §5.2 is drawn from the available traces (the target plus
    ``n_aggregate - 1`` others), so it cannot be larger than the population; clipping
    (§2.2.2) keeps at least one site per epoch; ε must be positive (``None``: no noise added).
    """
    if isinstance(n_aggregate, bool) or not float(n_aggregate).is_integer() or n_aggregate < 1:
        raise InputError(f"The number of people in a release must be a whole number of at "
                         f"least 1, got {n_aggregate}.", key="aggregate_size",
                         setting="aggregate_size")
    if n_aggregate > n_population:
        raise InputError(f"The number of people in a release is {int(n_aggregate):,} but the "
                         f"traces hold only "
                         f"{int(n_population):,} users; choose at most {int(n_population):,} or "
                         f"load more traces.", key="aggregate_size", setting="aggregate_size")
    if isinstance(clip_c, bool) or not float(clip_c).is_integer() or clip_c < 1:
        raise InputError(f"The places kept per person and hour (C) must be a whole number of "
                         f"at least 1, got {clip_c}.", key="clip_per_epoch",
                         setting="clip_per_epoch")
    if epsilon is not None:
        try:
            eps = float(epsilon)
        except (TypeError, ValueError):
            raise InputError(f"ε per hour must be a number, got {given_value(epsilon)}.",
                             key="epsilon", setting="epsilon") from None
        if not math.isfinite(eps) or eps <= 0:
            raise InputError(f"ε per hour must be greater than 0 (for example 0.5 per "
                             f"observation, as in paper 000), got {given_value(epsilon)}.",
                             key="epsilon", setting="epsilon")


def find_user(traces: Traces, user_id: str | int) -> int:
    """Row of ``user_id`` in ``traces`` (the target of a membership game), or a sentence."""
    uid = str(user_id).strip()
    try:
        return traces.user_ids.index(uid)
    except ValueError:
        where = traces.source or "the loaded traces"
        # Neither the id typed nor the ids present are repeated: they name people.
        raise InputError(f"the target id is not among the {traces.n_users:,} user "
                         f"ids of {where}; ids are compared as text exactly as written (case, "
                         f"spaces and leading zeros count) — copy it from the file.",
                         key="target_id", setting="target_id") from None
