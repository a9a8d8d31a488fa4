"""Roles proposed for a table the app has never seen (issue 33 item 4, "count tables that start
right").

The schema inferred from a CSV (:func:`engine.data.microdata.infer_schema`) says what each
column holds, not what the attacker knows: on a public table of 534 workers it made every
column a quasi-identifier — the row numbers and the wages included — so the record space the
attacks enumerate (paper 003 §2.2, the product of the audited columns' domains) was far past
anything a computer holds. :func:`propose_roles` reads the table once more and proposes, with
a reason for each column that a person can read:

* **id-like columns left out**: one different value in every row — row numbers (0..n-1,
  1..n, or rising numbers kept from a larger file) and codes or names. Every person is unique
  on such a column, so as a quasi-identifier it would make every record a target and tell the
  attack nothing about the others.
* **a handful of low-cardinality quasi-identifiers**: at most :data:`MAX_QUASI_IDENTIFIERS`
  columns of few values (:data:`FEW_VALUES`), the attributes an attacker typically knows
  (age, sex, race or origin, marital status, education, place) before the others, and only
  while the record space stays under :data:`RECORD_SPACE_BUDGET` (paper 003's census block:
  1 × 2 × 116 × 7 × 2 ≈ 3,200 possible records). An age column may have up to 120 values, as
  in the paper (§5.1).
* **continuous or many-valued numbers not proposed**: a wage with 433 distinct values would
  multiply the record space by hundreds; the reason says to band it first.
* **one sensitive column suggested**, when a column's name says it is the kind of attribute
  people protect (health, income band, religion, race or origin, union membership), or none —
  and the proposal says so.

The proposal is a starting point the user edits: every role stays a choice on the count-table
page, which shows these reasons beside the columns. Qt-free; deterministic (same table, same
proposal).
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass, replace
from pathlib import Path

import numpy as np
import pandas as pd

from engine.data.columns import parse_csv, plural
from engine.data.microdata import Schema
from engine.data.text_input import header_names, read_text

QUASI_IDENTIFIER, SENSITIVE, IGNORE = "quasi_identifier", "sensitive", "ignore"
#: Quasi-identifiers proposed at most: "a handful", so a first audit runs in minutes.
MAX_QUASI_IDENTIFIERS = 4
#: A column with at most this many values is "low-cardinality": a category or a band.
FEW_VALUES = 12
#: An age column is proposed with up to this many values (paper 003 audits age 0–115).
AGE_VALUES = 120
#: The sensitive column suggested has at most this many values (guessing must mean something).
SENSITIVE_VALUES = 20
#: Possible records (the product of the audited columns' domains) the proposal stays under:
#: about three times paper 003's census block (≈ 3,200), far below the exact attack's limit.
RECORD_SPACE_BUDGET = 10_000
#: A column unique in every row is id-like from this many rows on (fewer rows: by chance).
MIN_ID_ROWS = 10
#: Non-whole numbers with more distinct values than this are a continuous measure.
FEW_REALS = 10

# What an attacker typically knows about a person, in the order they are proposed (paper 003
# §2.2: sex, age, race and place for a census block). Name tokens, lowercase.
KNOWN_ATTRIBUTES = (("age",), ("sex", "gender"), ("race", "ethnicity", "ethnic", "hispanic",
                                                    "origin"),
                    ("marital", "married"), ("education", "educ", "degree"),
                    ("county", "region", "zip", "postcode", "block", "state", "district",
                     "city", "area"))
# Names of attributes people protect (the special categories of personal data and income),
# in the order they are suggested as the sensitive column.
SENSITIVE_NAMES = (("diagnosis", "disease", "condition", "health", "illness", "hiv", "drug",
                    "treatment"),
                   ("income", "salary", "earnings", "wage", "wages"),
                   ("religion", "faith", "belief"),
                   ("race", "ethnicity", "ethnic"),
                   ("union",),
                   ("sexual", "orientation", "political", "party", "disability"))
ROW_NUMBER_NAMES = {"rownames", "rowname", "row", "rownum", "index", "idx", "x", "obs",
                    "unnamed", "no", "nr", "number", "n"}


@dataclass(frozen=True)
class ColumnRole:
    """One column's proposed role and the reason, in a sentence the page shows beside it."""

    name: str
    role: str
    reason: str
    values: int                 # distinct values in the file (blanks not counted)


@dataclass(frozen=True)
class RoleProposal:
    """The roles proposed for a table: one :class:`ColumnRole` per column, in file order."""

    columns: tuple[ColumnRole, ...]
    records: int
    sensitive_note: str = ""    # why this sensitive column, or why none

    @property
    def quasi_identifiers(self) -> tuple[str, ...]:
        return tuple(c.name for c in self.columns if c.role == QUASI_IDENTIFIER)

    @property
    def sensitive(self) -> str:
        """The suggested sensitive column ("" when no column looks sensitive)."""
        return next((c.name for c in self.columns if c.role == SENSITIVE), "")

    @property
    def left_out(self) -> tuple[ColumnRole, ...]:
        return tuple(c for c in self.columns if c.role == IGNORE)

    def reason(self, name: str) -> str:
        return next((c.reason for c in self.columns if c.name == name), "")

    def roles(self) -> dict[str, str]:
        return {c.name: c.role for c in self.columns}

    def apply(self, schema: Schema) -> Schema:
        """``schema`` with the proposed roles (its kinds and domains unchanged)."""
        roles = self.roles()
        return Schema(tuple(replace(c, role=roles.get(c.name, c.role))
                            for c in schema.columns))

    def sentence(self) -> str:
        """The proposal in two or three sentences, for the Data step."""
        qi = self.quasi_identifiers
        text = (f"Proposed from the file: the attacker knows {', '.join(qi) or 'nothing yet'}"
                f"{'' if qi else ' (no column has few enough values)'}")
        text += f"; {self.sensitive_note}" if self.sensitive_note else "."
        if not text.endswith("."):
            text += "."
        out = self.left_out
        if out:
            text += (f" Left out: {', '.join(c.name for c in out)} (hover over a column's "
                     f"name for why). Every role stays yours to change.")
        return text


# ====================================================================== reading

def read_table_text(path: str | Path) -> pd.DataFrame:
    """The CSV's cells as text, as the records loader reads them (same decoding, delimiter
    and header checks; blanks are ""), for the distinct values the reasons count."""
    inp = read_text(path, sniff=True, empty="the file is empty; it needs a header row naming "
                                            "the columns and one row per record.")
    header = header_names(inp)
    df = parse_csv(str(path), inp.text.lstrip("\n"), header, dtype=str, na_filter=False,
                   skip_blank_lines=False, index_col=False, sep=inp.delimiter)
    df = df.apply(lambda c: c.str.strip())
    return df[~(df == "").all(axis=1).to_numpy()].reset_index(drop=True)


def propose_roles_for_csv(path: str | Path, schema: Schema) -> RoleProposal:
    """:func:`propose_roles` for the CSV at ``path`` whose inferred schema is ``schema``."""
    return propose_roles(read_table_text(path), schema)


def schema_without_config(frame: pd.DataFrame, inferred: Schema,
                          sensitive: str = "") -> tuple[Schema, str]:
    """A count-table config without a [schema] (the command line, the estimate before it):
    ``inferred`` with the roles the count-table page proposes for ``frame`` — a handful of
    low-cardinality quasi-identifiers, ids and many-valued numbers left out — rather than every
    column a quasi-identifier, so the app, the command line and the estimate audit the same
    release of the same file. ``sensitive`` (the config's) wins over the proposed one. Returns
    the schema and the sentence the result's warnings carry ("" and ``inferred`` unchanged when
    there is no sensitive column to give: the audit's own check then says what to do)."""
    proposal = propose_roles(frame, inferred)
    sensitive = sensitive or proposal.sensitive
    if not sensitive or sensitive not in inferred.names:
        return inferred, ""
    quasi = [q for q in proposal.quasi_identifiers if q != sensitive]
    schema = inferred.with_roles(sensitive=sensitive, quasi_identifiers=quasi)
    left = ", ".join(c.name for c in proposal.left_out if c.name != sensitive)
    sentence = (f"no [schema] in the config, so the roles were proposed from the file as the "
                f"count-table page proposes them: the attacker knows "
                f"{', '.join(quasi) or 'nothing'}, the sensitive column is {sensitive}"
                + (f", left out: {left}" if left else "")
                + " (give a [schema] table to choose them)")
    return schema, sentence


# ====================================================================== the proposal

@dataclass(frozen=True)
class _Facts:
    name: str
    values: int                 # distinct non-blank values
    filled: int                 # non-blank cells
    whole: bool                 # every value a whole number
    numeric: bool
    low: float | None
    high: float | None
    rising: bool                # numbers rising from row to row
    domain: int                 # the inferred schema's domain size (the record space factor)


def _tokens(name: str) -> set[str]:
    spaced = re.sub(r"([a-z])([A-Z])", r"\1 \2", str(name))
    return {t for t in re.split(r"[^a-z0-9]+", spaced.lower()) if t}


def _matches(name: str, groups: Sequence[Sequence[str]]) -> int | None:
    """The index of the first group with a word of ``name`` (None: no group)."""
    tokens = _tokens(name)
    return next((i for i, group in enumerate(groups) if tokens & set(group)), None)


def _facts(name: str, s: pd.Series, schema: Schema) -> _Facts:
    filled = s[(s != "").to_numpy()]
    num = pd.to_numeric(filled, errors="coerce")
    numeric = bool(len(filled)) and bool(num.notna().all()) \
        and not filled.str.fullmatch(r"[-+]?0\d+").any()
    v = num.to_numpy(dtype=float) if numeric else np.empty(0)
    numeric = numeric and bool(np.isfinite(v).all())
    whole = numeric and bool((v == np.round(v)).all())
    col = schema.column(name) if name in schema.names else None
    domain = col.domain_size if col is not None and not col.is_open else 0
    return _Facts(name, int(filled.nunique()), len(filled), whole, numeric,
                  float(v.min()) if numeric else None, float(v.max()) if numeric else None,
                  numeric and len(v) > 1 and bool((np.diff(v) > 0).all()), domain)


def _number(x: float | None) -> str:
    return "" if x is None else (f"{int(x):,}" if float(x).is_integer() else f"{x:g}")


def _id_reason(f: _Facts) -> str | None:
    """Why the column is id-like (one different value in every row), or None."""
    if f.values != f.filled or f.filled < MIN_ID_ROWS or (f.numeric and not f.whole):
        return None
    span = f"{_number(f.low)}–{_number(f.high)}"
    if f.whole and f.low in (0, 1) and f.high == f.low + f.filled - 1:
        return f"row numbers {span}, one per row: an id, never something an attacker uses"
    if f.whole and (f.rising or _tokens(f.name) & ROW_NUMBER_NAMES):
        return (f"row numbers ({span}, one per row, kept from a larger file): an id, never "
                f"something an attacker uses")
    if f.whole:
        return (f"a different number in every row ({f.values:,} numbers, {span}), like an "
                f"id: as a quasi-identifier it would make every person unique")
    return (f"a different value in every row ({f.values:,} values), like a name or a code: "
            f"as a quasi-identifier it would make every person unique")


def _too_many_reason(f: _Facts) -> str | None:
    """Why a column has too many values to be proposed, or None."""
    if f.numeric and not f.whole and f.values > FEW_REALS:
        return (f"continuous: {f.values:,} distinct values; band it first (e.g. into 5 "
                f"ranges, as Real numbers with bins) to use it")
    is_age = _matches(f.name, KNOWN_ATTRIBUTES[:1]) == 0
    limit = AGE_VALUES if is_age and f.whole else FEW_VALUES
    size = max(f.values, f.domain)
    if size > limit:
        what = (f"whole numbers {_number(f.low)}–{_number(f.high)}" if f.whole
                else f"{f.values:,} different values")
        return (f"{what}: {size:,} possible values multiply the possible records; group them "
                f"into bands first (e.g. as bins) to use it")
    return None


def _few_values_reason(f: _Facts) -> str:
    if _matches(f.name, KNOWN_ATTRIBUTES[:1]) == 0 and f.whole:
        return (f"{f.values} different ages ({_number(f.low)}–{_number(f.high)}): age is "
                f"something people commonly know about someone")
    if f.whole and f.values > 2:
        return (f"{f.values} values ({_number(f.low)}–{_number(f.high)}), like an age "
                f"band: few enough to be known about a person")
    if _matches(f.name, KNOWN_ATTRIBUTES) is not None:
        return (f"{plural(f.values, 'value')}: something people commonly know about "
                f"someone, such as sex, age or place")
    return f"{plural(f.values, 'value')}, like a category: few enough to be known about a person"


def propose_roles(frame: pd.DataFrame, schema: Schema) -> RoleProposal:
    """The roles proposed for the table ``frame`` (cells as text, blanks "") whose inferred
    schema is ``schema`` (module docstring: issue 33 item 4)."""
    facts = {str(name): _facts(str(name), frame[name].astype(str), schema)
             for name in frame.columns}
    reasons: dict[str, tuple[str, str]] = {}       # name -> (role, reason)
    candidates: list[_Facts] = []
    for f in facts.values():
        if f.values <= 1:
            reasons[f.name] = (IGNORE, "the same value in every row: nothing to know or learn")
            continue
        why = _id_reason(f) or _too_many_reason(f)
        if why is None and f.domain == 0:
            why = "no fixed list of values in the file (free text or codes)"
        if why is not None:
            reasons[f.name] = (IGNORE, why)
        else:
            candidates.append(f)

    sensitive, sensitive_note = _sensitive(candidates)
    if sensitive is not None:
        reasons[sensitive.name] = (SENSITIVE, sensitive_note)
        candidates = [f for f in candidates if f is not sensitive]

    # Known attributes first (in KNOWN_ATTRIBUTES' order), then the fewest values; each is
    # proposed only while the record space stays within the budget.
    def rank(f: _Facts) -> tuple:
        group = _matches(f.name, KNOWN_ATTRIBUTES)
        return (group is None, group if group is not None else 0, f.domain, f.name)

    space = sensitive.domain if sensitive is not None else 1
    chosen = 0
    for f in sorted(candidates, key=rank):
        if chosen >= MAX_QUASI_IDENTIFIERS:
            reasons[f.name] = (IGNORE, f"{plural(f.values, 'value')}: could be a "
                                       f"quasi-identifier, but {MAX_QUASI_IDENTIFIERS} are "
                                       f"proposed already; set it if an attacker would know it")
        elif space * f.domain > RECORD_SPACE_BUDGET:
            reasons[f.name] = (IGNORE, f"{plural(f.values, 'value')}: with the "
                                       f"quasi-identifiers proposed before it there would be "
                                       f"{space * f.domain:,} possible records, more than a "
                                       f"first audit should enumerate")
        else:
            space *= f.domain
            chosen += 1
            reasons[f.name] = (QUASI_IDENTIFIER, _few_values_reason(f))
    columns = tuple(ColumnRole(name, *reasons[name], facts[name].values) for name in facts)
    records = len(frame)
    return RoleProposal(columns, records, sensitive_note if sensitive is not None else
                        "no column's name says it is sensitive (health, income, religion, "
                        "race…): choose the attribute the attacker tries to learn.")


def _sensitive(candidates: Sequence[_Facts]) -> tuple[_Facts | None, str]:
    """The column suggested as sensitive: the first whose name is in :data:`SENSITIVE_NAMES`
    (in that list's order), with 2 to :data:`SENSITIVE_VALUES` values."""
    found = [(group, i, f) for i, f in enumerate(candidates)
             if (group := _matches(f.name, SENSITIVE_NAMES)) is not None
             and 2 <= f.values <= SENSITIVE_VALUES]
    if not found:
        return None, ""
    _group, _i, f = min(found, key=lambda t: (t[0], t[1]))
    return f, (f"'{f.name}' is suggested as the sensitive column, what the attacker tries "
               f"to learn: its name says it is protected information ({f.values} values)")

