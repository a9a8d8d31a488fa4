"""Tabular microdata for the fixed-aggregate-statistics audit (paper 003): schema, loading, coding.

Paper 003 §2.1 models the protected dataset D as records over attributes a_1 … a_n, each with a
finite set of possible values V_i; a released statistic counts the records whose values fall in
given subsets of those sets (eq. 1). The attacker knows every V_i, the target's non-sensitive
attributes A' and that the target is the only record of D with those values (§2.2, the
"uniqueness" assumption of §2.3). So this module provides

* :class:`ColumnSchema` / :class:`Schema` — each column's domain V_i (categories, an integer
  range, or bins) and its role: quasi-identifier (in A', known to the attacker), the one
  sensitive attribute a_n, or ignored;
* :class:`Microdata` — every value coded as its index in its column's domain, one int32
  ``records × columns`` matrix, so count queries and uniqueness are plain integer operations;
* :func:`load_microdata_csv` — reads a CSV with or without a schema; every mistake a user can
  make in a file becomes one :class:`InputError` sentence naming the file, the row (numbered as a
  spreadsheet shows it: the header is row 1), the column, what is allowed and the fix (a cell is
  shown by :func:`engine.data.text_input.cell_text`, not quoted as it is);
* :func:`unique_targets` — the records the game of §2.3 can target (unique on A').
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field, replace
from pathlib import Path

import numpy as np
import pandas as pd

from engine.data.columns import (
    ID_NAME,
    check_category_names,
    check_missing_choice,
    check_repeated_header,
    checked_column,
    column_names,
    did_you_mean,
    empty_cell_sentence,
    first_rows,
    gap_list,
    missing_marker_sentence,
    natural_key,
    parse_csv,
    plural,
    schema_columns,
    schema_from_dict,
    spreadsheet_row,
    unknown_category_sentence,
)
from engine.data.errors import InputError, given_value
from engine.data.gaps import NUMBER_MARKS, mark_counts, mark_mask, marks_phrase, with_marks
from engine.data.text_input import (
    add_read_note,
    cell_text,
    check_header,
    column_name_text,
    header_names,
    localized_number,
    non_finite,
    non_finite_sentence,
    number_hint,
    read_text,
)

ROLES = ("quasi_identifier", "sensitive", "ignore")
# An empty cell of a categorical quasi-identifier or sensitive column is this category (issue
# 21): in a published count table "not stated" is a real cell, counted and released like any
# other, so the attacks must see it as a value (dropping those people would audit a smaller
# table than the one published, and hide the ones whose rare "missing" makes them unique).
MISSING_CATEGORY = "missing"
# What to do with a used column's empty cells (issue 21), chosen per column in the schema
# editor: count them as the category "missing" (categories only; the default there), leave
# those records out (the only way for a number column: a blank has no place in its range), or
# refuse the file, naming every such column with its count.
MISSING_CHOICES = ("own_category", "drop_rows", "error")
KINDS = ("categorical", "integer", "continuous")
SCHEMA_VERSION = 1
# A column with more possible values than this cannot be audited exactly: the attacks of paper
# 003 enumerate the sensitive domain and build count tables over the quasi-identifiers.
MAX_DOMAIN = 1_000_000
_ID_ROWS = 20          # a text/integer column unique in at least this many rows is an id
_FEW_FLOATS = 10       # non-whole numbers with at most this many distinct values stay categories
_QUANTILE_BINS = 10    # bins for continuous columns inferred from data
_COLUMN_KEYS = ("name", "role", "kind", "categories", "low", "high", "bins", "missing")


# --------------------------------------------------------------------------- small helpers





def _fmt_edge(x: float) -> str:
    return f"{x:g}" if float(x) != int(x) or abs(x) >= 1e15 else str(int(x))


def _is_whole(x) -> bool:
    return (isinstance(x, (int, np.integer)) and not isinstance(x, bool)) or (
        isinstance(x, (float, np.floating)) and math.isfinite(x) and float(x).is_integer())


# --------------------------------------------------------------------------- column schema

@dataclass(frozen=True)
class ColumnSchema:
    """One attribute a_i of paper 003 §2.1: its domain V_i and what the attacker knows of it.

    * ``kind="categorical"``: the values are the ``categories`` (text, in domain order). An
      ``ignore`` column may leave them empty: an *open* domain, coded in order of appearance
      (ids and free text, which no audit reads).
    * ``kind="integer"``: whole numbers ``low..high`` (both included), coded as ``value - low``;
      or, with ``bins`` (integer edges e_0 < … < e_k), coded as the bin index: bin i holds
      e_i ≤ v < e_{i+1}, the last bin also holds e_k. Labels read like "20–24".
    * ``kind="continuous"``: real numbers, always binned (``bins`` required), same rule.
    """

    name: str
    role: str = "quasi_identifier"       # one of ROLES
    kind: str = "categorical"            # one of KINDS
    categories: tuple[str, ...] = ()     # categorical: the domain, in code order
    low: int | None = None               # integer: smallest value (inclusive)
    high: int | None = None              # integer: largest value (inclusive)
    bins: tuple[float, ...] | None = None  # integer/continuous: increasing bin edges
    missing: str = ""                    # one of MISSING_CHOICES; "" = the default (below)

    def __post_init__(self) -> None:
        name, where, cats = checked_column(self.name, self.role, self.kind, self.categories,
                                           roles=ROLES, kinds=KINDS)
        object.__setattr__(self, "name", name)
        check_missing_choice(where, self.missing, MISSING_CHOICES, name)
        if self.missing and self.missing not in missing_choices(self.kind):
            raise InputError(f"{where}: 'missing' {given_value(self.missing)} does not apply to a "
                             f"column of numbers ({self.kind}): a category of its own has no "
                             f"place in its range; choose one of "
                             f"{', '.join(missing_choices(self.kind))}.", key=name)
        object.__setattr__(self, "categories", cats)
        bins = self.bins
        if bins is not None:
            if isinstance(bins, str) or not isinstance(bins, Sequence):
                raise InputError(f"{where}: bins must be a list of increasing bin edges, e.g. "
                                 f"[0, 18, 65, 116], got {given_value(bins)}.", key=name)
            try:
                edges = tuple(float(b) for b in bins)
            except (TypeError, ValueError):
                raise InputError(f"{where}: bins must be numbers (increasing bin edges), got "
                                 f"{given_value(list(bins))}.", key=name) from None
            if (len(edges) < 2 or not all(math.isfinite(e) for e in edges)
                    or any(b <= a for a, b in zip(edges, edges[1:], strict=False))):
                raise InputError(f"{where}: bins must be at least two finite, strictly "
                                 f"increasing edges, e.g. [0, 18, 65, 116], got {given_value(list(bins))}.",
                                 key=name)
            bins = edges

        if self.kind == "categorical":
            if self.low is not None or self.high is not None or bins is not None:
                raise InputError(f"{where}: a categorical column takes categories, not low, "
                                 f"high or bins; remove them or set kind to 'integer'.", key=name)
            if not cats and self.role != "ignore":
                raise InputError(f"{where}: a categorical {self.role.replace('_', '-')} column "
                                 f"needs its list of categories; list them or set its role to "
                                 f"'ignore'.", key=name)
            check_category_names(where, cats, name)
            return
        if cats:
            raise InputError(f"{where}: a {self.kind} column takes no categories; remove them "
                             f"or set kind to 'categorical'.", key=name)
        if self.kind == "continuous":
            if bins is None:
                raise InputError(f"{where}: a continuous column needs bins (increasing edges, "
                                 f"e.g. [0, 0.5, 1.5, 3]) so that values fall in a finite "
                                 f"domain; add them.", key=name)
            if self.low is not None or self.high is not None:
                raise InputError(f"{where}: a continuous column takes bins, not low/high; "
                                 f"remove low and high.", key=name)
            object.__setattr__(self, "bins", bins)
            return
        # integer
        for label, v in (("low", self.low), ("high", self.high)):
            if v is not None and not _is_whole(v):
                raise InputError(f"{where}: '{label}' must be a whole number, got {given_value(v)}.",
                                 key=name)
        low = None if self.low is None else int(self.low)
        high = None if self.high is None else int(self.high)
        if bins is not None:
            if not all(float(e).is_integer() for e in bins):
                raise InputError(f"{where}: the bins of an integer column must be whole "
                                 f"numbers, got {given_value(list(self.bins))}; round them or set kind "
                                 f"to 'continuous'.", key=name)
            ibins = tuple(int(e) for e in bins)
            if (low is not None and low != ibins[0]) or (high is not None and high != ibins[-1]):
                raise InputError(f"{where}: low/high ({low}, {high}) disagree with the bins, "
                                 f"which run from {ibins[0]} to {ibins[-1]}; remove low and "
                                 f"high or make them match.", key=name)
            object.__setattr__(self, "bins", ibins)
            low, high = ibins[0], ibins[-1]
        if low is None or high is None:
            raise InputError(f"{where}: an integer column needs 'low' and 'high' (the smallest "
                             f"and largest possible values, e.g. 0 and 115 for age) or bins; "
                             f"add them.", key=name)
        if low > high:
            raise InputError(f"{where}: 'low' ({low}) is above 'high' ({high}); swap them.",
                             key=name)
        object.__setattr__(self, "low", low)
        object.__setattr__(self, "high", high)

    @property
    def missing_choice(self) -> str:
        """What is done with the column's empty cells: the choice made, else the default — a
        category column that lists "missing" counts a blank as that category (inferred
        schemas list it when the file has blanks there), one that does not refuses the file
        (its domain was given and is not widened unasked), a number column leaves the record
        out."""
        if self.missing:
            return self.missing
        if self.kind != "categorical":
            return "drop_rows"
        return "own_category" if MISSING_CATEGORY in self.categories else "error"

    # ----------------------------------------------------------------- domain

    @property
    def is_open(self) -> bool:
        """True for an ``ignore`` column with no fixed categories (coded by appearance)."""
        return self.kind == "categorical" and not self.categories

    @property
    def domain_size(self) -> int:
        """|V_i|: number of codes (0 for an open domain)."""
        if self.kind == "categorical":
            return len(self.categories)
        if self.bins is not None:
            return len(self.bins) - 1
        return int(self.high) - int(self.low) + 1

    def labels(self) -> tuple[str, ...]:
        """The domain as text, in code order: categories, "0", "1", … or bin labels."""
        if self.kind == "categorical":
            return self.categories
        if self.bins is None:
            if self.domain_size > MAX_DOMAIN:
                raise InputError(_too_big_message(self), key=self.name)
            return tuple(str(v) for v in range(int(self.low), int(self.high) + 1))
        return tuple(self._bin_label(i) for i in range(self.domain_size))

    def _bin_label(self, i: int) -> str:
        lo, hi = self.bins[i], self.bins[i + 1]
        last = i == len(self.bins) - 2
        if self.kind == "integer":
            top = int(hi) if last else int(hi) - 1
            return str(int(lo)) if top == int(lo) else f"{int(lo)}–{top}"
        return f"[{_fmt_edge(lo)}, {_fmt_edge(hi)}{']' if last else ')'}"

    def to_dict(self) -> dict:
        d: dict = {"name": self.name, "role": self.role, "kind": self.kind}
        if self.kind == "categorical":
            d["categories"] = list(self.categories)
        elif self.bins is not None:
            d["bins"] = [int(b) if self.kind == "integer" else float(b) for b in self.bins]
        else:
            d["low"], d["high"] = int(self.low), int(self.high)
        if self.missing:
            d["missing"] = self.missing
        return d


def missing_choices(kind: str) -> tuple[str, ...]:
    """The choices for a column's empty cells that make sense for its kind: a category of its
    own needs categories."""
    return MISSING_CHOICES if kind == "categorical" else ("drop_rows", "error")



def _too_big_message(col: ColumnSchema, data: np.ndarray | None = None) -> str:
    """The "bin it" sentence for a column whose domain is too large to audit exactly."""
    if data is not None and data.size:
        q = np.quantile(data, np.linspace(0, 1, 6))
        where = " from the quintiles of the data"
    else:
        lo = col.low if col.low is not None else 0
        hi = col.high if col.high is not None else col.domain_size - 1
        q = np.linspace(lo, hi + 1, 6)
        where = ""
    edges = [int(math.floor(q[0]))] + [int(round(float(v), -_magnitude(v))) for v in q[1:-1]] \
        + [int(math.ceil(q[-1]))]
    edges = "[" + ", ".join(_big_int_text(e) for e in sorted(set(edges))) + "]"
    size = col.domain_size
    count = f"{size:,}" if size < 10**15 else f"about {float(size):.1e}"
    return (f"a column '{col.name}' with {count} possible values cannot be audited "
            f"exactly; bin it (e.g. bins {edges}{where}) or set its role to 'ignore' — an "
            f"audit enumerates at most {MAX_DOMAIN:,} values per column.")


def _big_int_text(n: int) -> str:
    """A whole number as a sentence shows it: digits up to 10^15, then 1e+308 (a value near
    the largest float would otherwise print its 309 digits)."""
    return str(n) if abs(n) < 10**15 else f"{float(n):.3g}"


def _magnitude(v: float) -> int:
    return max(int(math.floor(math.log10(abs(v)))) - 1, 0) if v else 0


# --------------------------------------------------------------------------- schema

@dataclass(frozen=True)
class Schema:
    """The columns of a microdata table, in file order, with their domains and roles."""

    columns: tuple[ColumnSchema, ...]

    def __post_init__(self) -> None:
        cols = schema_columns(self.columns)
        object.__setattr__(self, "columns", cols)

    @property
    def names(self) -> tuple[str, ...]:
        return tuple(c.name for c in self.columns)

    def index(self, name: str) -> int:
        try:
            return self.names.index(name)
        except ValueError:
            raise KeyError(f"no column {name!r}; columns: {', '.join(self.names)}") from None

    def column(self, name: str) -> ColumnSchema:
        return self.columns[self.index(name)]

    @property
    def quasi_identifiers(self) -> tuple[str, ...]:
        """A' of paper 003 §2.2: the columns the attacker knows about the target."""
        return tuple(c.name for c in self.columns if c.role == "quasi_identifier")

    @property
    def sensitive_columns(self) -> tuple[str, ...]:
        return tuple(c.name for c in self.columns if c.role == "sensitive")

    @property
    def sensitive(self) -> str | None:
        """a_n of paper 003 §2.2, or None when no column (or more than one) is sensitive."""
        s = self.sensitive_columns
        return s[0] if len(s) == 1 else None

    def domain_sizes(self) -> dict[str, int]:
        return {c.name: c.domain_size for c in self.columns}

    def with_roles(self, *, sensitive: str | None = None,
                   quasi_identifiers: Sequence[str] | None = None) -> Schema:
        """A copy with ``sensitive`` as the one sensitive column and, when given, exactly
        ``quasi_identifiers`` as quasi-identifiers (every other column is then ignored)."""
        wanted = ([sensitive] if sensitive else []) + list(quasi_identifiers or [])
        for n in wanted:
            if n not in self.names:
                raise InputError(f"There is no column '{n}'{did_you_mean(n, self.names)}; "
                                 f"columns: {', '.join(self.names)}.", key=n)
        out = []
        for c in self.columns:
            if sensitive is not None and c.name == sensitive:
                role = "sensitive"
            elif quasi_identifiers is not None:
                role = "quasi_identifier" if c.name in quasi_identifiers else "ignore"
            elif c.role == "sensitive" and sensitive is not None:
                role = "quasi_identifier"
            else:
                role = c.role
            if role != "ignore" and c.is_open:
                raise InputError(f"Column '{c.name}' has no fixed list of values (it looks like "
                                 f"an id or free text); give its categories before using it as "
                                 f"a {role.replace('_', '-')}.", key=c.name)
            out.append(replace(c, role=role))
        return Schema(tuple(out))

    def validate_for_audit(self, source: str | None = None) -> None:
        """Raise an :class:`InputError` sentence unless an attribute-inference audit can run:
        exactly one sensitive column with at least two values, at least one quasi-identifier,
        finite domains small enough to enumerate. ``source`` (the file or config the schema
        comes from) starts the sentence when given."""
        try:
            self._validate_for_audit()
        except InputError as exc:
            if not source:
                raise
            text = str(exc)
            raise InputError(f"{source}: {text[0].lower() + text[1:]}", source=source,
                             key=exc.key) from None

    def _validate_for_audit(self) -> None:
        sens = self.sensitive_columns
        if not sens:
            raise InputError("No column is marked sensitive; an attribute-inference audit needs "
                             "exactly one — set the role of the attribute the attacker tries to "
                             "learn (e.g. race) to Sensitive.", key="role")
        if len(sens) > 1:
            raise InputError(f"Columns {', '.join(repr(s) for s in sens)} are all marked "
                             f"sensitive; an audit infers one attribute at a time — keep one "
                             f"and set the others to Quasi-identifier (the attacker knows it) or Ignore.",
                             key=sens[1])
        s = self.column(sens[0])
        if s.domain_size < 2:
            raise InputError(f"The sensitive column '{s.name}' has "
                             f"{'no fixed values' if s.is_open else 'only one possible value'}; "
                             f"there is nothing to infer; choose another sensitive column.",
                             key=s.name)
        if not self.quasi_identifiers:
            raise InputError("No column is a quasi-identifier, so the attacker would know "
                             "nothing about the target; set the role of the attributes an "
                             "attacker may know (e.g. sex, age, block) to Quasi-identifier.",
                             key="role")
        for c in self.columns:
            if c.role == "ignore":
                continue
            if c.is_open:
                raise InputError(f"Column '{c.name}' has no fixed list of values; list its "
                                 f"categories or set its role to 'ignore'.", key=c.name)
            if c.domain_size > MAX_DOMAIN:
                msg = _too_big_message(c)
                raise InputError(msg[0].upper() + msg[1:], key=c.name)

    def to_dict(self) -> dict:
        return {"schema_version": SCHEMA_VERSION, "columns": [c.to_dict() for c in self.columns]}

    @classmethod
    def from_dict(cls, d: Mapping, source: str = "the schema") -> Schema:
        """Rebuild a schema saved with :meth:`to_dict` (e.g. inside a project file); every
        problem becomes one sentence that names ``source`` and the key."""
        return schema_from_dict(
            d, source, column_keys=_COLUMN_KEYS, version=SCHEMA_VERSION, make_schema=cls,
            make_column=lambda c: ColumnSchema(
                name=c["name"], role=c.get("role", "quasi_identifier"),
                kind=c.get("kind", "categorical"), categories=c.get("categories", ()),
                low=c.get("low"), high=c.get("high"), bins=c.get("bins"),
                missing=c.get("missing", "")))


# --------------------------------------------------------------------------- microdata

@dataclass(frozen=True, eq=False)
class Microdata:
    """Records coded by a :class:`Schema`: D of paper 003 §2.1 as integers.

    ``codes[r, j]`` is the index of record r's value in column j's domain
    (``schema.columns[j].labels()[codes[r, j]]``). ``eq=False``: arrays do not compare as bools.
    """

    schema: Schema
    codes: np.ndarray                    # (N, C) int32, read-only; C = len(schema.columns)
    source: str = ""                     # file name or generator description, for messages
    open_labels: Mapping[str, tuple[str, ...]] = field(default_factory=dict)
    # ^ observed values of open-domain (ignored id/text) columns, in code order
    missing_values: dict | None = None
    # ^ what was done with empty cells (:func:`_handle_gaps`), for result.json's input entry
    #   and the report's gaps table; None when no used column had any

    def __post_init__(self) -> None:
        codes = np.array(self.codes, dtype=np.int32, copy=True)
        if codes.ndim != 2 or codes.shape[1] != len(self.schema.columns):
            raise ValueError(f"Microdata.codes has shape {codes.shape}, expected (N, "
                             f"{len(self.schema.columns)}) for columns {self.schema.names}")
        labels = {k: tuple(v) for k, v in dict(self.open_labels).items()}
        for j, c in enumerate(self.schema.columns):
            size = len(labels.get(c.name, ())) if c.is_open else c.domain_size
            col = codes[:, j]
            if col.size and (col.min() < 0 or col.max() >= size):
                raise ValueError(f"codes of column {c.name!r} must lie in 0..{size - 1}")
        codes.setflags(write=False)
        object.__setattr__(self, "codes", codes)
        object.__setattr__(self, "open_labels", labels)

    def __repr__(self) -> str:
        return (f"Microdata({self.n_records} records, columns={list(self.schema.names)}, "
                f"source={self.source!r})")

    @property
    def n_records(self) -> int:
        return int(self.codes.shape[0])

    def __len__(self) -> int:
        return self.n_records

    def column(self, name: str) -> np.ndarray:
        """(N,) int32 codes of column ``name``."""
        return self.codes[:, self.schema.index(name)]

    def labels(self, name: str) -> np.ndarray:
        """(N,) object array of column ``name`` as text (category, integer or bin label)."""
        col = self.schema.column(name)
        dom = self.open_labels.get(name, ()) if col.is_open else col.labels()
        return np.asarray(dom, dtype=object)[self.column(name)] if len(dom) else \
            np.empty(self.n_records, dtype=object)

    def values(self, name: str) -> np.ndarray:
        """(N,) int64 values of an integer column without bins (code + low)."""
        col = self.schema.column(name)
        if col.kind != "integer" or col.bins is not None:
            raise TypeError(f"column {name!r} holds no exact integers; use labels()")
        return self.column(name).astype(np.int64) + int(col.low)

    def subset(self, rows: Sequence[int] | np.ndarray) -> Microdata:
        """The records at ``rows`` (positions or a boolean mask), in that order."""
        idx = np.asarray(rows)
        if idx.dtype == bool:
            idx = np.flatnonzero(idx)
        return Microdata(self.schema, self.codes[idx.astype(np.int64, copy=False)], self.source,
                         self.open_labels, self.missing_values)

    def to_frame(self) -> pd.DataFrame:
        """The records as text, one column per schema column, as a CSV would show them."""
        data = {}
        for c in self.schema.columns:
            if c.kind == "integer" and c.bins is None:
                data[c.name] = self.values(c.name)
            else:
                data[c.name] = self.labels(c.name)
        return pd.DataFrame(data, columns=list(self.schema.names))


# --------------------------------------------------------------------------- inference

def infer_schema(df: pd.DataFrame, *, max_categories: int = 50, source: str = "") -> Schema:
    """Guess each column's kind and domain from the data; no column is made sensitive.

    * whole numbers → ``integer`` over the observed range (min..max);
    * at most ``max_categories`` distinct texts → ``categorical`` (sorted naturally);
    * other real numbers → ``continuous`` in ~10 quantile bins (a few distinct ones: categories);
    * ids (unique in every row: named like "id"/"*_id", or ≥ 20 rows of distinct texts or of
      consecutive integers) and text with too many distinct values → role ``ignore``, open domain.

    Numbers written with a leading zero ("007", ZIP "02139") stay text, so labels keep their
    zeros. The user picks the sensitive column afterwards (:meth:`Schema.with_roles`).
    """
    text = _as_text(df)
    p = source or "the table"
    # Blanks and missing-value marks ('NA', …) are gaps, handled at load (:func:`_handle_gaps`)
    # by the one rule of engine.data.gaps (issue 31 item 10: an 'NA' age was refused where a
    # blank one was left out); 'None', '-' in a column of categories stay categories.
    text, marks = _marks_as_blanks(text, None)
    free = _free_text_with_blanks(text, max_categories)
    checked = text[[c for c in text.columns if c not in free]]
    _check_finite_numbers(checked, p)
    _check_localized_numbers(checked, p)
    cols = []
    for name in text.columns:
        s = text[name]
        blank = (s == "").to_numpy()
        if blank.all():
            # Issue 31 item 12: this read "Column 'x': … needs its list of categories",
            # without the file and without saying the column is empty.
            held = (f" (it holds only {marks_phrase({name: marks[name]})}, marks of a missing "
                    f"value)" if marks.get(name) else "")
            raise InputError(f"{p}: column '{name}' is empty in all {plural(len(s), 'record')}"
                             f"{held}, so there is nothing to audit in it; fill it in or "
                             f"delete the column.", source=source or None, key=str(name))
        col = _infer_column(str(name), s[~blank], max_categories)
        if blank.any() and col.role != "ignore" and col.kind == "categorical" \
                and MISSING_CATEGORY not in col.categories:
            col = replace(col, categories=(*col.categories, MISSING_CATEGORY))
        cols.append(col)
    return Schema(tuple(cols))


def _marks_as_blanks(text: pd.DataFrame, schema: Schema | None
                     ) -> tuple[pd.DataFrame, dict[str, dict[str, int]]]:
    """``text`` with every missing-value mark of a used column made blank, and the marks per
    column ({column: {mark as written: count}}) for the sentence that says so (engine.data.
    gaps: a number column's marks are 'NA', 'None', '-', '.', …; a category column's 'NA',
    'NaN', 'null', '?', … unless its categories list them). Without a schema a column is a
    number column when its other cells are all numbers."""
    marks: dict[str, dict[str, int]] = {}
    out = None
    for name in text.columns:
        s = text[name]
        if schema is not None:
            if name not in schema.names or schema.column(name).role == "ignore":
                continue
            col = schema.column(name)
            role, listed = ("text" if col.kind == "categorical" else "number"), col.categories
        else:
            rest = s[(s != "").to_numpy() & ~s.str.lower().isin(NUMBER_MARKS).to_numpy()]
            numeric = len(rest) > 0 and pd.to_numeric(rest, errors="coerce").notna().all()
            role, listed = ("number" if numeric else "text"), ()
        m = mark_mask(s, role, listed)
        if m.any():
            marks[str(name)] = mark_counts(s, m)
            out = text.copy() if out is None else out
            out[name] = s.where(~m, "")
    return (text if out is None else out), marks


def _free_text_with_blanks(text: pd.DataFrame, max_categories: int) -> set:
    """Columns with blank cells whose other values make an ignored column (ids, free text):
    no audit reads them, so their blanks are fine (issue 18); a blank anywhere else is a
    missing value of an attribute the audit uses."""
    out = set()
    for name in text.columns:
        s = text[name]
        blank = (s == "").to_numpy()
        if blank.any() and not blank.all() \
                and _infer_column(str(name), s[~blank], max_categories).role == "ignore":
            out.add(name)
    return out


def _as_text(df: pd.DataFrame) -> pd.DataFrame:
    out = {}
    for name in df.columns:
        s = df[name]
        missing = s.isna().to_numpy()
        if s.dtype == object or isinstance(s.dtype, pd.StringDtype | pd.CategoricalDtype):
            t = s.astype(object).map(lambda v: "" if v is None else str(v).strip())
        elif pd.api.types.is_float_dtype(s.dtype):
            # 3.0 → "3" (a whole number), 2.5 → "2.5"; NaN becomes "" below.
            t = pd.Series([_float_text(x) for x in s.to_numpy(dtype=float)], index=s.index,
                          dtype=object)
        else:
            t = s.astype(str).str.strip().astype(object)
        t = t.astype(object)
        t[missing] = ""
        out[str(name).strip()] = t
    return pd.DataFrame(out, index=df.index)


def _check_localized_numbers(text: pd.DataFrame, p: str) -> None:
    """A column of numbers some of which are written with a decimal comma or a thousands
    separator would be inferred as categories (silently wrong); name the first such cell."""
    for name in text.columns:
        s = text[name]
        num = pd.to_numeric(s, errors="coerce").notna().to_numpy() | (s == "").to_numpy()
        if num.all():
            continue
        local = s.map(localized_number).to_numpy(dtype=bool)
        words = ~num & ~local
        if num.sum() >= 2 * words.sum() and 0 < words.sum() <= max(1, len(s) // 100) \
                and not s.str.fullmatch(r"[-+]?0\d+").any():
            i = int(np.flatnonzero(words)[0])      # numbers with a stray word: a typo
            raise InputError(f"{p}: row {spreadsheet_row(text.index[i])}, column '{name}': "
                             f"{cell_text(s.iloc[i])} is not a number, but the other values "
                             f"of the column are numbers; correct the value or delete the row (if "
                             f"the column is categories, give a schema that lists them).",
                             source=p, key=str(name))
        if local.any() and (num | local).all():
            i = int(np.flatnonzero(local)[0])
            raise InputError(f"{p}: row {spreadsheet_row(text.index[i])}, column '{name}': "
                             f"{cell_text(s.iloc[i])} is not a number as written"
                             f"{number_hint(s.iloc[i])}; the column holds numbers, so every "
                             f"value must be a plain number.", source=p, key=str(name))


def _check_finite_numbers(text: pd.DataFrame, p: str) -> None:
    """A column of numbers with an infinity or a number too large to store ('1e309') is
    neither a number column (it has no finite range) nor categories (the other values are
    numbers): inferring either would silently drop or miscode it (issue 18); name the cell."""
    for name in text.columns:
        s = text[name]
        finite = np.isfinite(pd.to_numeric(s, errors="coerce").to_numpy(dtype=float)) \
            | (s == "").to_numpy()          # a blank is a gap, handled at load
        if finite.all() or s.str.fullmatch(r"[-+]?0\d+").any():
            continue                    # plain numbers, or codes with leading zeros
        bad = ~finite & s.map(non_finite).to_numpy(dtype=bool)
        if bad.any() and (finite | bad).all():
            i = int(np.flatnonzero(bad)[0])
            raise InputError(non_finite_sentence(
                f"{p}: row {spreadsheet_row(text.index[i])}, column '{name}'", s.iloc[i],
                "the other values of the column are numbers — write a plain number or delete "
                "the row"), source=p, key=str(name))


def _float_text(x: float) -> str:
    if not math.isfinite(x):
        return "" if math.isnan(x) else repr(x)
    return str(int(x)) if x.is_integer() else repr(float(x))


def _infer_column(name: str, s: pd.Series, max_categories: int) -> ColumnSchema:
    n = len(s)
    distinct = pd.unique(s.to_numpy())
    n_unique = len(distinct)
    unique_rows = n_unique == n and n >= 2
    named_id = bool(ID_NAME.search(name))
    num = pd.to_numeric(s, errors="coerce")
    leading_zero = s.str.fullmatch(r"[-+]?0\d+").any()
    numeric = bool(num.notna().all()) and not leading_zero and n > 0
    if numeric and np.isfinite(num.to_numpy(dtype=float)).all():
        v = num.to_numpy(dtype=float)
        if (v == np.round(v)).all():
            lo, hi = int(v.min()), int(v.max())
            consecutive = hi - lo + 1 == n
            if unique_rows and (named_id or (consecutive and n >= _ID_ROWS)):
                return ColumnSchema(name, "ignore", "categorical")
            return ColumnSchema(name, "quasi_identifier", "integer", low=lo, high=hi)
        if unique_rows and named_id:
            return ColumnSchema(name, "ignore", "categorical")
        if n_unique <= _FEW_FLOATS:
            cats = sorted((str(x) for x in distinct), key=lambda t: float(t))
            return ColumnSchema(name, "quasi_identifier", "categorical", tuple(cats))
        return ColumnSchema(name, "quasi_identifier", "continuous", bins=_quantile_edges(v))
    if unique_rows and (named_id or n >= _ID_ROWS):
        return ColumnSchema(name, "ignore", "categorical")
    if n_unique > max_categories:
        return ColumnSchema(name, "ignore", "categorical")
    return ColumnSchema(name, "quasi_identifier", "categorical",
                        tuple(sorted((str(x) for x in distinct), key=natural_key)))


def _quantile_edges(v: np.ndarray) -> tuple[float, ...]:
    """~10 quantile bin edges, interior edges rounded to 3 significant digits."""
    q = np.quantile(v, np.linspace(0, 1, _QUANTILE_BINS + 1))
    inner = [float(f"{x:.3g}") for x in q[1:-1]]
    edges = sorted({float(v.min()), float(v.max()), *[x for x in inner if v.min() < x < v.max()]})
    return tuple(edges)


# --------------------------------------------------------------------------- coding

def microdata_from_frame(df: pd.DataFrame, schema: Schema | None = None, *, source: str = "",
                         max_categories: int = 50) -> Microdata:
    """Code a DataFrame by ``schema`` (inferred when None); errors name ``source`` and rows
    counted as in a spreadsheet of the frame (header row 1)."""
    p = source or "the table"
    text = _as_text(df.reset_index(drop=True))
    marks: dict = {}
    if schema is None:
        text, marks = _marks_as_blanks(text, None)
        schema = infer_schema(text, max_categories=max_categories, source=p)
    text, more = _marks_as_blanks(text, schema)
    text, schema, gaps = _handle_gaps(p, text, schema, marks={**marks, **more})
    _check_no_missing(text, p, schema)
    return _code(p, text, schema, source=source, missing_values=gaps)


def _handle_gaps(p: str, text: pd.DataFrame, schema: Schema, *,
                 note_path: str | None = None, marks: Mapping[str, Mapping[str, int]] | None
                 = None) -> tuple[pd.DataFrame, Schema, dict | None]:
    """Empty cells of the columns the audits read (issue 21), before coding, by each column's
    choice (:attr:`ColumnSchema.missing_choice`), every column with gaps found at once.

    * ``own_category``: a blank (in a category column) is the category ``MISSING_CATEGORY``,
      added to the column's categories when they lack it — in a published count table "not
      stated" is a real cell, counted and released like any other, so the attacks must see
      it as a value (dropping those people would audit a smaller table than the one
      published, and hide the ones whose rare "missing" makes them unique).
    * ``drop_rows``: the record is left out (a blank, or 'NA', '?', …, in a number column
      cannot be placed in its range), counted in the file's read notes (result.json's read_as
      and the warnings).
    * ``error``: the file is refused, every such column named with its count and first row.

    A missing-value mark ('NA', …) was made blank before (:func:`_marks_as_blanks`, the one
    rule of engine.data.gaps); ``marks`` (per column, as written) are said in every sentence
    here, so that no mark is read as a gap silently (issue 31 item 10).

    Returns the table, the schema (with "missing" added where it became a category) and what
    was done (result.json's ``missing_values``; None when no used column had a gap)."""
    # An ignored column that lists 'missing' (an inferred one set to 'ignore') reads a blank
    # as that value too, so that switching a column off never makes the file unreadable.
    kept = [c.name for c in schema.columns if c.role == "ignore" and c.kind == "categorical"
            and MISSING_CATEGORY in c.categories and (text[c.name] == "").any()]
    if kept:
        text = text.copy()
        for name in kept:
            text[name] = text[name].where(text[name] != "", MISSING_CATEGORY)
    used = [c for c in schema.columns if c.role != "ignore"]
    gaps = {}
    for c in used:
        s = text[c.name]
        gap = (s == "").to_numpy()
        if gap.any():
            gaps[c.name] = gap
    if not gaps:
        return text, schema, None
    counts = {name: int(m.sum()) for name, m in gaps.items()}
    marks = {n: dict(m) for n, m in (marks or {}).items() if n in gaps}
    refuse = [c for c in used if c.name in gaps and c.missing_choice == "error"]
    if refuse:
        listed = gap_list({c.name: counts[c.name] for c in refuse},
                          first_rows({c.name: gaps[c.name] for c in refuse}, text.index))
        if all(not c.missing and c.kind == "categorical" for c in refuse):
            # the default for a given list of categories without "missing": say how to allow it
            why = f"whose categories do not include '{MISSING_CATEGORY}'"
            fix = (f"fill them in, add '{MISSING_CATEGORY}' to the column's categories so that "
                   f"an empty cell counts as a category of its own, or choose to leave those "
                   f"records out")
        else:
            why = "set to refuse them"
            category = any(c.kind == "categorical" for c in refuse)
            fix = ("fill them in, or choose for each column what to do with its empty cells ("
                   + (f"count them as a category of their own, '{MISSING_CATEGORY}', or "
                      if category else "") + "leave those records out)")
        raise InputError(with_marks(
            f"{p}: empty cells in {plural(len(refuse), 'column')} {why} — {listed}; {fix}.",
            {c.name: marks[c.name] for c in refuse if c.name in marks}),
            source=p, key=refuse[0].name)
    drop = np.zeros(len(text), dtype=bool)
    dropped = [c.name for c in used if c.name in gaps and c.missing_choice == "drop_rows"]
    for name in dropped:
        drop |= gaps[name]
    if drop.all():
        raise InputError(with_marks(
            f"{p}: every record has an empty cell in a column whose empty cells leave the "
            f"record out ({', '.join(repr(n) for n in dropped)}), so none is left; fill them "
            f"in, set those columns' role to 'ignore', or count a category column's empty cells "
            f"as a category of their own.", marks), source=p, key=dropped[0])
    left = int(drop.sum())
    if left:
        per = gap_list({n: counts[n] for n in dropped})
        numbers_only = all(schema.column(n).kind != "categorical" for n in dropped)
        note = (f"{left:,} record{'s' if left != 1 else ''} with an empty "
                f"{'number' if numbers_only else 'cell'} ({per}; first in row "
                f"{spreadsheet_row(text.index[int(np.flatnonzero(drop)[0])])}) "
                f"{'were' if left != 1 else 'was'} left out, "
                + ("since a blank cannot be placed in the column's range" if numbers_only
                   else "as chosen in the schema"))
        note = with_marks(note, {n: m for n, m in marks.items() if n in dropped})
        if note_path is not None:
            add_read_note(note_path, note)
        text = text[~drop]
    text = text.copy()
    cols = list(schema.columns)
    entries = []
    for k, c in enumerate(cols):
        if c.name not in gaps:
            continue
        choice = c.missing_choice
        entry = {"column": c.name, "role": c.role, "kind": c.kind,
                 "empty_cells": counts[c.name], "action": choice}
        if marks.get(c.name):
            entry["marks"] = marks[c.name]      # {'NA': 30}: missing-value marks among them
        entries.append(entry)
        if choice == "own_category":
            s = text[c.name]
            text[c.name] = s.where(s != "", MISSING_CATEGORY)
            if MISSING_CATEGORY not in c.categories:
                cols[k] = replace(c, categories=(*c.categories, MISSING_CATEGORY))
    report = {"empty_cells": int(sum(counts.values())), "columns": len(gaps),
              "records_read": int(len(drop)), "records_left_out": left,
              "per_column": entries}
    report["sentence"] = _gaps_sentence(report)
    return text, Schema(tuple(cols)), report


def _gaps_sentence(report: Mapping) -> str:
    """What was done with a count table's empty cells, in one sentence for the report:
    "30 empty cells in 1 column the audit reads: the 30 records with an empty 'age' left
    out." (issue 31 item 12: one column's count was said twice, "'age' 30 left out"), then
    the missing-value marks counted as empty (engine.data.gaps.with_marks)."""
    own = [e for e in report["per_column"] if e["action"] == "own_category"]
    dropped = [e for e in report["per_column"] if e["action"] == "drop_rows"]
    parts = []
    if own:
        parts.append(f"{gap_list({e['column']: e['empty_cells'] for e in own})} counted as a "
                     f"category of their own ('{MISSING_CATEGORY}'), as in a published table")
    if dropped:
        left = report["records_left_out"]
        if len(dropped) == 1:       # the count of records is the column's count: say it once
            where = f"'{dropped[0]['column']}'"
        else:
            where = "cell in " + " or ".join(
                f"'{e['column']}' ({e['empty_cells']:,})" for e in dropped)
        parts.append(f"the {plural(left, 'record')} with an empty {where} left out")
    cells, k = report["empty_cells"], report["columns"]
    marks = {e["column"]: e["marks"] for e in report["per_column"] if e.get("marks")}
    return with_marks(f"{plural(cells, 'empty cell')} in {plural(k, 'column')} the audit "
                      f"reads: {'; '.join(parts)}.", marks)


def _check_no_missing(text: pd.DataFrame, p: str, schema: Schema | None, *,
                      ignorable=()) -> None:
    """One sentence for the first blank cell left after :func:`_handle_gaps`. Blanks are fine in an ignored column (no audit reads it): with a schema, one that
    lists no values; without, the columns in ``ignorable`` (:func:`_free_text_with_blanks`)."""
    if schema is not None:
        ignorable = {c.name for c in schema.columns if c.role == "ignore" and c.is_open}
    names = [c for c in text.columns if c not in ignorable]
    empty = (text[names] == "").to_numpy()
    if empty.any():
        r, j = np.argwhere(empty)[0]
        name = names[j]
        if schema is not None and name in schema.names \
                and schema.column(name).role == "ignore":
            raise InputError(empty_cell_sentence(
                p, text.index[r], name,
                "the column is ignored, but the schema lists the values it may hold — fill it "
                "in, delete the row, or remove the column's list of values from the schema (an "
                "ignored column without one may hold anything, blanks included)"),
                source=p, key=str(name))
        raise InputError(empty_cell_sentence(
            p, text.index[r], name, "every record needs a value in every column — fill it in, "
            "delete the row, or drop the column"), source=p, key=str(name))


def _code(p: str, text: pd.DataFrame, schema: Schema, *, source: str,
          missing_values: dict | None = None) -> Microdata:
    codes = np.empty((len(text), len(schema.columns)), dtype=np.int32)
    open_labels: dict[str, tuple[str, ...]] = {}
    for j, col in enumerate(schema.columns):
        s = text[col.name]
        if col.role != "ignore" and col.domain_size > MAX_DOMAIN:
            data = None
            if col.kind == "integer":
                data = pd.to_numeric(s, errors="coerce").dropna().to_numpy(dtype=float)
            raise InputError(f"{p}: {_too_big_message(col, data)}", source=p, key=col.name)
        if col.is_open:
            c, uniq = pd.factorize(s, sort=False)
            codes[:, j] = c
            open_labels[col.name] = tuple(str(u) for u in uniq)
        elif col.kind == "categorical":
            codes[:, j] = _code_categorical(p, s, col)
        else:
            codes[:, j] = _code_numeric(p, s, col)
    md = Microdata(schema, codes, Path(source).name if source else "", open_labels,
                   missing_values)
    sens = schema.sensitive
    if sens is not None and md.n_records:
        vals = np.unique(md.column(sens))
        if vals.size < 2:
            only = schema.column(sens).labels()[int(vals[0])]
            raise InputError(f"{p}: the sensitive column '{sens}' holds only one value "
                             f"({given_value(only)}) in all {md.n_records:,} records: there is nothing to "
                             f"infer; choose another sensitive column.", source=p, key=sens)
    return md


def _code_categorical(p: str, s: pd.Series, col: ColumnSchema) -> np.ndarray:
    lookup = {c: k for k, c in enumerate(col.categories)}
    idx = s.map(lookup)
    bad = idx.isna().to_numpy()
    if bad.any():
        i = int(np.flatnonzero(bad)[0])
        value = s.iloc[i]
        if value.lower() in NUMBER_MARKS:
            raise InputError(missing_marker_sentence(
                p, s.index[i], col.name, value,
                "every record needs a known value — fill it in or delete the row"),
                source=p, key=col.name)
        raise InputError(unknown_category_sentence(p, s.index[i], col.name, value,
                                                   col.categories), source=p, key=col.name)
    return idx.to_numpy(dtype=np.int64)


def _code_numeric(p: str, s: pd.Series, col: ColumnSchema) -> np.ndarray:
    num = pd.to_numeric(s, errors="coerce").to_numpy(dtype=float)
    if col.bins is not None:
        # A binned column also accepts its own labels ("20–24"), as write_microdata_csv writes.
        labels = {lab: k for k, lab in enumerate(col.labels())}
        by_label = s.map(labels)
        is_label = by_label.notna().to_numpy()
    else:
        is_label = np.zeros(len(s), dtype=bool)
    bad = ~np.isfinite(num) & ~is_label
    if bad.any():
        i = int(np.flatnonzero(bad)[0])
        value = s.iloc[i]
        if non_finite(value):
            raise InputError(non_finite_sentence(
                f"{p}: row {spreadsheet_row(s.index[i])}, column '{col.name}'", value,
                f"the column holds {_domain_text(col)} — write a plain number or delete the "
                f"row"), source=p, key=col.name)
        what = ("looks like a missing value" if value.lower() in NUMBER_MARKS
                else "is not a number" + number_hint(value))
        raise InputError(f"{p}: row {spreadsheet_row(s.index[i])}, column '{col.name}': "
                         f"{cell_text(value)} {what}; the column holds {_domain_text(col)} — "
                         f"write a plain number or delete the row.", source=p, key=col.name)
    if col.kind == "integer" and col.bins is None:
        frac = (num != np.round(num)) & ~is_label
        if frac.any():
            i = int(np.flatnonzero(frac)[0])
            raise InputError(f"{p}: row {spreadsheet_row(s.index[i])}, column '{col.name}': "
                             f"{cell_text(s.iloc[i])} is not a whole number; the column "
                             f"holds {_domain_text(col)} — round the values or give the "
                             f"column bins (kind 'continuous').",
                             source=p, key=col.name)
        lo, hi = float(col.low), float(col.high)
    else:
        lo, hi = float(col.bins[0]), float(col.bins[-1])
    out = (num < lo) | (num > hi)
    out &= ~is_label
    if out.any():
        i = int(np.flatnonzero(out)[0])
        side = "high" if num[i] > hi else "low"
        raise InputError(f"{p}: row {spreadsheet_row(s.index[i])}, column '{col.name}': "
                         f"{cell_text(s.iloc[i])} is outside the column's domain "
                         f"{_domain_text(col)}; correct the value or widen the domain in the "
                         f"schema (its {side} {'edge' if col.bins is not None else 'value'}).",
                         source=p, key=col.name)
    if col.bins is None:
        return (num - lo).astype(np.int64)
    edges = np.asarray(col.bins, dtype=float)
    k = edges.size - 1
    codes = np.minimum(np.searchsorted(edges, np.where(is_label, lo, num), side="right") - 1,
                       k - 1)
    if is_label.any():
        codes = np.where(is_label, by_label.to_numpy(dtype=float, na_value=0), codes)
    return codes.astype(np.int64)


def _domain_text(col: ColumnSchema) -> str:
    if col.bins is None:
        return f"whole numbers {col.low}–{col.high}"
    last = "]"
    return (f"values in [{_fmt_edge(col.bins[0])}, {_fmt_edge(col.bins[-1])}{last} "
            f"({col.domain_size} bins)")


# --------------------------------------------------------------------------- CSV

def load_microdata_csv(path: str | Path, schema: Schema | None = None, *,
                       max_rows: int | None = None) -> Microdata:
    """Load one record per row from a CSV with a header row into :class:`Microdata`.

    With a ``schema`` every column it names must be in the file and every file column in the
    schema; each value is checked against its column's domain. Without one, the schema is
    inferred (:func:`infer_schema`). ``max_rows`` refuses larger files (a memory guard, never a
    silent cut). Values are read as text, so a number is read exactly as written.
    """
    p = str(path)
    if max_rows is not None and (isinstance(max_rows, bool) or not _is_whole(max_rows)
                                 or max_rows < 1):
        raise InputError(f"The most rows to read must be a whole number of at least 1, got "
                         f"{given_value(max_rows)}.", key="max_rows", source=p,
                         setting="max_rows")
    df = _read_csv(p, max_rows)
    found = list(df.columns)
    if schema is not None:
        missing = [n for n in schema.names if n not in found]
        if missing:
            n = missing[0]
            raise InputError(f"{p}: column '{n}' of the schema is missing"
                             f"{did_you_mean(n, found)}; columns found: "
                             f"{column_names(found, limit=len(found))} — rename the column in the "
                             f"file or in the schema.", source=p, key=n)
        extra = [n for n in found if n not in schema.names]
        if extra:
            n = extra[0]
            raise InputError(f"{p}: column '{n}' is not in the schema"
                             f"{did_you_mean(n, schema.names)}; columns expected: "
                             f"{', '.join(repr(c) for c in schema.names)} — remove the column "
                             f"or add it to the schema (role 'ignore' if no audit needs it).",
                             source=p, key=n)
        df = df[list(schema.names)]
        marks = {}
    else:
        df, marks = _marks_as_blanks(df, None)
        schema = infer_schema(df, source=p)
    df, more = _marks_as_blanks(df, schema)
    df, schema, gaps = _handle_gaps(p, df, schema, note_path=p, marks={**marks, **more})
    _check_no_missing(df, p, schema)
    return _code(p, df, schema, source=p, missing_values=gaps)


def _read_csv(p: str, max_rows: int | None) -> pd.DataFrame:
    inp = read_text(p, sniff=True, empty="the file is empty; it needs a header row naming the "
                                          "columns and one row per record.")
    text = inp.text.lstrip("\n")
    header = header_names(inp)
    check_header(p, header)
    opts = dict(dtype=str, na_filter=False, skip_blank_lines=False, index_col=False,
                sep=inp.delimiter)
    df = parse_csv(p, text, header, nrows=None if max_rows is None else max_rows + 1, **opts)
    if max_rows is not None and len(df) > max_rows:
        raise InputError(f"{p}: has more than {max_rows:,} data rows, the most this audit reads; "
                         f"raise the most rows to read or load a sample of the records.",
                         source=p, key="max_rows", setting="max_rows")
    df = df.apply(lambda c: c.str.strip())
    df = df[~(df == "").all(axis=1).to_numpy()]
    check_repeated_header(p, df, header)
    if df.empty:
        raise InputError(f"{p}: has a header but no data rows; add one row per record below the "
                         f"header.", source=p)
    return df


def write_microdata_csv(microdata: Microdata, path: str | Path) -> Path:
    """Write the records as a UTF-8 CSV that :func:`load_microdata_csv` reads back with the
    same schema (integers as numbers, categories and bins as their labels)."""
    out = Path(path)
    out.parent.mkdir(parents=True, exist_ok=True)
    microdata.to_frame().to_csv(out, index=False, lineterminator="\n")
    return out


# --------------------------------------------------------------------------- targets

def unique_targets(microdata: Microdata,
                   quasi_identifiers: Sequence[str] | None = None) -> np.ndarray:
    """(K,) int64 indices, ascending, of the records no other record matches on the
    quasi-identifiers — the possible targets u* of paper 003 §2.2–2.3."""
    qi = list(microdata.schema.quasi_identifiers if quasi_identifiers is None
              else quasi_identifiers)
    n = microdata.n_records
    if n == 0:
        return np.empty(0, dtype=np.int64)
    if not qi:
        return np.arange(n, dtype=np.int64) if n == 1 else np.empty(0, dtype=np.int64)
    idx = [microdata.schema.index(q) for q in qi]
    x = microdata.codes[:, idx].astype(np.int64)
    sizes = [max(microdata.schema.columns[j].domain_size,
                 len(microdata.open_labels.get(microdata.schema.columns[j].name, ())), 1)
             for j in idx]
    if math.prod(sizes) < 2**62:
        key = np.zeros(n, dtype=np.int64)
        for k, size in enumerate(sizes):
            key = key * size + x[:, k]
        _, inv, counts = np.unique(key, return_inverse=True, return_counts=True)
    else:
        _, inv, counts = np.unique(x, axis=0, return_inverse=True, return_counts=True)
    return np.flatnonzero(counts[inv.ravel()] == 1).astype(np.int64)


def require_unique_targets(microdata: Microdata, *, min_targets: int = 1) -> np.ndarray:
    """:func:`unique_targets`, or an :class:`InputError` when fewer than ``min_targets`` exist.

    The attacker of paper 003 targets a record whose known attributes no other record shares;
    uniqueness grows with more and finer quasi-identifiers and with smaller datasets.
    """
    found = unique_targets(microdata)
    if found.size >= min_targets:
        return found
    qi = microdata.schema.quasi_identifiers
    where = microdata.source or "the data"
    head = (f"none of the {microdata.n_records:,} records" if found.size == 0 else
            f"only {found.size:,} of the {microdata.n_records:,} records (the audit needs "
            f"{min_targets:,})")
    qtext = ", ".join(repr(q) for q in qi) or "none"
    raise InputError(f"{where}: {head} is unique on its quasi-identifiers ({qtext}), so no "
                     f"record can be a target; add quasi-identifiers or use finer ones (e.g. "
                     f"exact age instead of age groups), or audit a smaller dataset such as "
                     f"one block.", source=microdata.source or None, key="quasi_identifiers")


def infer_schema_from_csvs(paths: Sequence[str | Path], *, max_rows: int | None = None
                           ) -> Schema:
    """One schema whose domains cover every file (e.g. the protected records and the
    attacker's auxiliary sample): inferred from the files' rows together, so a value seen only
    in one of them (an age of 95 in the auxiliary sample) is inside the domain of both."""
    frames = [_read_csv(str(p), max_rows) for p in paths]
    names = list(frames[0].columns)
    for p, f in zip(paths[1:], frames[1:], strict=True):
        if list(f.columns) != names:
            missing = [c for c in names if c not in f.columns] or \
                      [c for c in f.columns if c not in names]
            raise InputError(f"{p}: its columns differ from {paths[0]}'s (first difference: "
                             f"{column_name_text(missing[0]) if missing else 'their order'}); both files "
                             f"need the "
                             f"same header.", source=str(p))
    both = pd.concat(frames, ignore_index=True)
    return infer_schema(both, source=str(paths[0]))
