"""Column coders shared by every table loader: count tables' microdata, training tables,
predictions and location traces (issue 19 item 6: the loaders had grown copies of these, and
the copies' sentences had drifted apart).

One function per cell problem, so the same mistake reads the same in every file the app
reads — an empty cell (:func:`empty_cell_sentence`, and :func:`gap_list` for every column with
gaps at once, issue 21), a value outside a column's categories
(:func:`unknown_category_sentence`), a members flag that is not 0 or 1 (:func:`code_member`);
a number that is not finite has its sentence in :func:`engine.data.text_input.
non_finite_sentence`. Rows are numbered as a spreadsheet shows them (the header is row 1) and
a cell is shown by :func:`engine.data.text_input.cell_text`. :func:`schema_from_dict` rebuilds
a saved schema (microdata or training table) with one sentence per problem.
"""

from __future__ import annotations

import difflib
import io
import re
import warnings
from collections.abc import Callable, Mapping, Sequence

import numpy as np
import pandas as pd

from engine.data.errors import InputError, given_value
from engine.data.text_input import (
    NOT_A_HEADER,
    cell_text,
    column_name_text,
    header_mismatch,
    looks_like_header,
    plain_column_name,
)

PREVIEW = 5            # how many example values a sentence lists
# A column named like an id ("id", "person_id", "uuid", "serial no"): never a feature.
ID_NAME = re.compile(r"(^|[_\s.-])(id|ids|uuid|pid|key|serial(no)?)$|^(id|uuid)([_\s.-]|$)",
                     re.IGNORECASE)


# --------------------------------------------------------------------------- small helpers

def spreadsheet_row(index: int) -> int:
    """Spreadsheet row of a data row: the header is row 1, the first data row is row 2."""
    return int(index) + 2


def preview(values: Sequence, *, quote: bool = True) -> str:
    """The first :data:`PREVIEW` values for a sentence, then "…"."""
    values = list(values)
    shown = ", ".join(repr(str(v)) if quote else str(v) for v in values[:PREVIEW])
    return shown + (", …" if len(values) > PREVIEW else "")


def natural_key(label: str) -> tuple:
    """Sort "2" before "10" and "block 2" before "block 10", as a person would."""
    parts = re.split(r"(\d+)", str(label))
    # isdecimal, not isdigit: a superscript ("5²") is a digit that int() cannot read.
    return tuple((0, int(p), "") if p.isdecimal() else (1, 0, p) for p in parts if p)


def did_you_mean(value, options: Sequence[str]) -> str:
    """" (did you mean 'x'?)" for the closest of ``options``, else "". Only a plain column name
    is offered (:func:`engine.data.text_input.plain_column_name`): an option read from a file's
    first line may be a secret (issue 31 item 6)."""
    close = difflib.get_close_matches(
        str(value), [str(o) for o in options if plain_column_name(o)], n=1)
    return f" (did you mean '{close[0]}'?)" if close else ""


def one_line(exc: Exception) -> str:
    """An exception's text on one line, without its final full stop (to quote inside a
    sentence)."""
    return " ".join(str(exc).split()).rstrip(".")


def column_names(found: Sequence[str], limit: int = 12) -> str:
    """The column names a file's first line gave, for a "columns found" sentence: all of them
    up to ``limit``, then a count.

    A file chosen by mistake (a password file, a private key) has its first line read as the
    header, and quoting it put the secret in the error box, the log and any screenshot (issue 31
    item 6). So the line is quoted only when it looks like a table's header
    (:func:`engine.data.text_input.looks_like_header`: short names, usual characters, no key
    marker or password hash), each name through :func:`engine.data.text_input.column_name_text`
    (a long or secret-looking name is described like a record's cell); otherwise the fragment
    says what the line looks like without quoting it (:data:`engine.data.text_input.NOT_A_HEADER`).
    """
    found = [str(c) for c in found]
    if not found:
        return ""
    if not looks_like_header(found):
        return f"none that look like column names — {NOT_A_HEADER}"
    shown = ", ".join(column_name_text(c) for c in found[:limit])
    return shown + (f", … ({len(found)} columns)" if len(found) > limit else "")


def plural(n: int, one: str, many: str | None = None) -> str:
    """"1 column", "3 columns"."""
    return f"{n:,} {one if n == 1 else (many or one + 's')}"


# --------------------------------------------------------------------------- values

def as_text(s: pd.Series) -> np.ndarray:
    """(n,) object array of the values as text: whole floats without ".0" (3.0 → "3"), so
    labels and categories read as the file wrote them. NaN must be handled before."""
    if pd.api.types.is_bool_dtype(s.dtype):
        return s.map({True: "True", False: "False"}).to_numpy(dtype=object)
    if pd.api.types.is_integer_dtype(s.dtype):
        return s.astype(np.int64).astype(str).to_numpy(dtype=object)
    if pd.api.types.is_float_dtype(s.dtype):
        v = s.to_numpy(dtype=float)
        whole = np.isfinite(v) & (v == np.round(v)) & (np.abs(v) < 2**53)
        out = v.astype(str).astype(object)
        out[whole] = v[whole].astype(np.int64).astype(str)
        return out
    return s.astype(str).str.strip().to_numpy(dtype=object)


def numbers(s: pd.Series) -> pd.Series:
    """The column as float64 (NaN where a cell is not a number)."""
    if pd.api.types.is_bool_dtype(s.dtype) or pd.api.types.is_numeric_dtype(s.dtype):
        return s.astype(float)
    return pd.to_numeric(s.astype(str).str.strip(), errors="coerce").astype(float)


def category_codes(text: np.ndarray, categories: Sequence[str]) -> np.ndarray:
    """(n,) int64 index of each value in ``categories``, -1 where it is not one of them."""
    return pd.Index(list(categories), dtype=object).get_indexer(
        np.asarray(text, dtype=object)).astype(np.int64)


# --------------------------------------------------------------------------- parsing

def parse_csv(p: str, text: str, header: Sequence[str], **options) -> pd.DataFrame:
    """pandas' CSV parser over a file's decoded ``text`` (engine.data.text_input.read_text),
    its columns named by ``header``; a row with more or fewer fields than the header, text
    that is not CSV or an empty file is one sentence naming ``p`` and the row."""
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("error", pd.errors.ParserWarning)
            df = pd.read_csv(io.StringIO(text), **options)
    except pd.errors.ParserWarning:
        raise InputError(f"{p}: the data rows have more fields than the header names; remove "
                         f"the extra commas or add the missing column names to the header.",
                         source=p) from None
    except pd.errors.ParserError as exc:
        m = re.search(r"Expected (\d+) fields in line (\d+), saw (\d+)", one_line(exc))
        if m:
            msg = (f"row {m.group(2)} has {m.group(3)} fields but the header has {m.group(1)}; "
                   f"remove the extra commas or quote values that contain commas.")
        else:
            msg = (f"cannot be read as CSV ({one_line(exc)}); save it as comma-separated text "
                   f"with a header row.")
        raise InputError(f"{p}: {msg}", source=p) from None
    except pd.errors.EmptyDataError:
        raise InputError(f"{p}: the file is empty; it needs a header row naming the columns and "
                         f"one row per record.", source=p) from None
    if len(df.columns) != len(header):
        raise header_mismatch(p, list(header), len(df.columns))
    df.columns = list(header)
    return df


def check_repeated_header(p: str, df: pd.DataFrame, header: Sequence[str]) -> None:
    """A data row that repeats the header row (two exports pasted into one file) is one
    sentence naming its row (issue 31 item 12: it read as a record whose label is the label
    column's name, "class a 9-character text … has only 1 record"). ``df`` as parsed, its
    index the data line (row = index + 2), ``header`` the names as read."""
    names = [str(h).strip() for h in header]
    if not len(df) or not any(names):
        return
    rows = np.arange(len(df))
    for j, name in enumerate(names):      # narrowed column by column: cheap on a large file
        col = df.iloc[rows, j]
        text = col.astype(str).str.strip().to_numpy(dtype=object)
        missing = col.isna().to_numpy(dtype=bool)
        same = (text == name) & ~missing if name else missing | (text == "")
        rows = rows[same]
        if not rows.size:
            return
    where = [spreadsheet_row(df.index[i]) for i in rows[:3]]
    listed = (f"row {where[0]} repeats" if rows.size == 1 else
              f"rows {', '.join(map(str, where))}{', …' if rows.size > 3 else ''} repeat")
    raise InputError(f"{p}: {listed} the header row (the column names), as when two files are "
                     f"pasted into one; remove {'it' if rows.size == 1 else 'them'}, so that "
                     f"every row below the header is a record.", source=p)


# --------------------------------------------------------------------------- cell sentences

def cell_where(p: str, index, column: str) -> str:
    """"FILE: row R, column 'C'" — how every cell sentence starts."""
    return f"{p}: row {spreadsheet_row(index)}, column '{column}'"


def empty_cell_sentence(p: str, index, column: str, fix: str) -> str:
    """An empty cell the loader cannot do without: "FILE: row R, column 'C' is empty; FIX."."""
    return f"{cell_where(p, index, column)} is empty; {fix}."


def missing_marker_sentence(p: str, index, column: str, value, fix: str) -> str:
    """A missing-value marker ('NA', 'n/a', '?', …) where the loader needs a known value."""
    return f"{cell_where(p, index, column)}: {cell_text(value)} looks like a missing value; {fix}."


def unknown_category_sentence(p: str, index, column: str, value, categories: Sequence[str],
                              *, what: str = "categories",
                              fix: str = "correct the value or add it to the column's "
                                         "categories in the schema") -> str:
    """A value that is not one of its column's listed ``categories`` (or a label's classes:
    ``what="classes"``), with the closest one when there is one."""
    return (f"{cell_where(p, index, column)}: {cell_text(value)} is not one of its "
            f"{len(categories)} {what} ({preview(categories)}){did_you_mean(value, categories)}"
            f"; {fix}.")


def gap_list(counts: Mapping[str, int], first_rows: Mapping[str, int] | None = None) -> str:
    """Every column with empty cells at once, with counts (issue 21: one column per round made
    a user give up columns): "'Home' 31 (first in row 5), 'Income' 381 (first in row 2)".
    ``first_rows``: each column's first empty row, as a spreadsheet numbers it."""
    return ", ".join(f"'{name}' {n:,}" + (f" (first in row {first_rows[name]})"
                                           if first_rows and name in first_rows else "")
                     for name, n in counts.items() if n)


def dropped_rows_entry(counts: Mapping[str, int], records_read: int, left_out: int,
                       sentence: str) -> dict:
    """A file's ``inputs[].missing_values`` entry (ARCHITECTURE §4) when the rows with empty
    cells were left out: the counts per column, the rows read and left out, the sentence."""
    return {"empty_cells": sum(counts.values()), "columns": len(counts),
            "records_read": records_read, "records_left_out": left_out,
            "per_column": [{"column": n, "empty_cells": c, "action": "drop_rows"}
                           for n, c in counts.items()],
            "sentence": sentence}


def first_rows(masks: Mapping[str, np.ndarray], index) -> dict[str, int]:
    """Each column's first True row in ``masks``, as a spreadsheet numbers it."""
    index = np.asarray(index)
    return {name: spreadsheet_row(index[int(np.flatnonzero(m)[0])])
            for name, m in masks.items() if np.any(m)}


def code_member(p: str, s: pd.Series, name: str, index: np.ndarray, *, source,
                both_fix: str) -> np.ndarray:
    """The 0/1 members column (1: the model was trained on the record) as bools; a value that
    is not 0 or 1 and a column without both kinds of record are one sentence each.
    ``both_fix``: what the user can do when every record has the same value (after "add
    records with NAME = V")."""
    num = numbers(s).to_numpy()
    bad = np.flatnonzero(~np.isin(num, (0.0, 1.0)))
    if bad.size:
        i = int(bad[0])
        raise InputError(f"{cell_where(p, index[i], name)}: {cell_text(as_text(s)[i])} is not 0 "
                         f"or 1; the members column says whether the model was trained on the "
                         f"record — write 1 for a training record and 0 for any other.",
                         source=source, key=name)
    member = num == 1.0
    if member.all() or not member.any():
        v, other = ("1", "0") if member.all() else ("0", "1")
        raise InputError(f"{p}: every record has {name} = {v}; the audit compares records the "
                         f"model was trained on (1) with records it was not (0), so it needs "
                         f"both — add records with {name} = {other}{both_fix}.", source=source,
                         key=name)
    return member


# --------------------------------------------------------------------------- column checks

def checked_column(name, role, kind, categories, *, roles: Sequence[str],
                   kinds: Sequence[str]) -> tuple[str, str, tuple[str, ...]]:
    """The checks every schema column starts with: a non-empty name, a role among ``roles``
    and a kind among ``kinds`` (with the closest when it is a typo), ``categories`` a list.
    Returns the stripped name, "Column 'NAME'" for the column's sentences, and the
    categories as stripped text."""
    if not isinstance(name, str) or not name.strip():
        raise InputError(f"A column name must be non-empty text, got {given_value(name)}; name every "
                         f"column.", key="name")
    name = name.strip()
    where = f"Column '{name}'"
    if role not in roles:
        raise InputError(f"{where}: role {given_value(role)} is not one of {', '.join(roles)}"
                         f"{did_you_mean(role, roles)}; set one of these.", key=name)
    if kind not in kinds:
        raise InputError(f"{where}: kind {given_value(kind)} is not one of {', '.join(kinds)}"
                         f"{did_you_mean(kind, kinds)}; set one of these.", key=name)
    if isinstance(categories, str) or not isinstance(categories, Sequence):
        raise InputError(f"{where}: categories must be a list of values, e.g. “F”, “M”, "
                         f"got {given_value(categories)}.", key=name)
    return name, where, tuple(str(c).strip() for c in categories)


def check_missing_choice(where: str, missing, choices: Sequence[str], key: str) -> None:
    """A column's choice for its empty cells: "" (the default) or one of ``choices``."""
    if not isinstance(missing, str) or (missing and missing not in choices):
        raise InputError(f"{where}: 'missing' {given_value(missing)} is not one of {', '.join(choices)}"
                         f"{did_you_mean(str(missing), choices)}; set one of these (what to do "
                         f"with the column's empty cells).", key=key)


def check_category_names(where: str, categories: Sequence[str], key: str) -> None:
    """Every category named, none listed twice."""
    if any(c == "" for c in categories):
        raise InputError(f"{where}: a category is empty; every category needs a name.",
                         key=key)
    dup = [c for i, c in enumerate(categories) if c in categories[:i]]
    if dup:
        raise InputError(f"{where}: category {given_value(dup[0])} is listed twice; list each value "
                         f"once.", key=key)


# --------------------------------------------------------------------------- saved schemas

def schema_columns(columns) -> tuple:
    """A schema's columns as a tuple: at least one, each name once."""
    cols = tuple(columns)
    if not cols:
        raise InputError("The schema has no columns; describe at least one column.",
                         key="columns")
    names = [c.name for c in cols]
    dup = [n for i, n in enumerate(names) if n in names[:i]]
    if dup:
        raise InputError(f"Column '{dup[0]}' appears twice in the schema; give each column "
                         f"one entry.", key=dup[0])
    return cols


def schema_from_dict(d, source: str, *, column_keys: Sequence[str], version: int,
                     make_column: Callable[[Mapping], object],
                     make_schema: Callable[[tuple], object]):
    """Rebuild a schema saved as ``{"schema_version": …, "columns": [{…}, …]}`` (a project
    file, a config): every problem is one sentence that names ``source`` and the key.
    ``make_column`` builds one column from its table (its own checks raise
    :class:`InputError`), ``make_schema`` the schema from the tuple of columns."""
    if not isinstance(d, Mapping):
        raise InputError(f"{source}: the schema must be a table with 'columns', got "
                         f"{type(d).__name__}.", source=source, key="schema")
    unknown = [k for k in d if k not in ("schema_version", "columns")]
    if unknown:
        raise InputError(f"{source}: the schema has an entry {given_value(unknown[0])} this app does "
                         f"not read{did_you_mean(unknown[0], ('schema_version', 'columns'))}; "
                         f"a schema holds only its version and its columns — remove that "
                         f"entry.", source=source,
                         key=f"schema.{unknown[0]}")
    found = d.get("schema_version", version)
    if found != version:
        raise InputError(f"{source}: the schema's version {given_value(found)} is not supported (this "
                         f"app reads version {version}); save the schema again with this "
                         f"version of the app.", source=source, key="schema.schema_version")
    cols = d.get("columns")
    if not isinstance(cols, Sequence) or isinstance(cols, str) or not cols:
        raise InputError(f"{source}: 'columns' must be a non-empty list of column "
                         f"descriptions, got {given_value(cols)}.", source=source, key="schema.columns")
    out = []
    for i, c in enumerate(cols):
        key = f"schema.columns[{i}]"
        if not isinstance(c, Mapping):
            raise InputError(f"{source}: column {i + 1} of the schema must be a table with "
                             f"name, role and kind, got {given_value(c)}.", source=source, key=key)
        label = f"column {i + 1}" + (f" ('{c['name']}')" if "name" in c else "")
        bad = [k for k in c if k not in column_keys]
        if bad:
            raise InputError(f"{source}: unknown key '{bad[0]}' in {label} of the schema"
                             f"{did_you_mean(bad[0], column_keys)}; allowed keys: "
                             f"{', '.join(column_keys)}.", source=source, key=f"{key}.{bad[0]}")
        if "name" not in c:
            raise InputError(f"{source}: {label} of the schema has no name; add the "
                             f"column's name as it appears in the CSV header.",
                             source=source, key=f"{key}.name")
        try:
            out.append(make_column(c))
        except InputError as exc:
            raise InputError(f"{source}: {exc}", source=source, key=key) from None
    try:
        return make_schema(tuple(out))
    except InputError as exc:
        raise InputError(f"{source}: {exc}", source=source, key="schema.columns") from None
