"""The one rule for gaps: which cells of a user's file are missing values, by the role of their
column (issue 31 item 10, "NA and blanks one rule everywhere"). Every loader — training tables
(:mod:`engine.data.tabular`), predictions (:mod:`engine.data.predictions`), count-table
microdata (:mod:`engine.data.microdata`), location traces and releases
(:mod:`engine.data.traces`) — asks this module, so 'NA' means the same in every file the app
reads (before, a user id 'NA' became one person with 300 observations, a label 'NA' a third
class, and a count table refused an 'NA' age it would have dropped had it been blank).

The rule (docs/config_reference.md, "Gaps: empty cells and missing-value marks"):

* A **blank** cell — empty, or only spaces — is a gap in every column.
* A **missing-value mark** is what R, SAS, pandas and spreadsheets write for a gap. Which
  marks count depends on the column's role:

  - a **number** column (a numeric feature, the members flag, an epoch, a count, a
    coordinate, a model's score): every mark in :data:`NUMBER_MARKS` ('NA', 'N/A', '#N/A',
    'NaN', 'null', 'None', '?', '-', '.', 'missing'), since none of them can be a number.
    The one exception is 'NaN' in a model's output, which is the model's own overflow and
    is refused with its own sentence (:mod:`engine.data.predictions`);
  - a **text** column — an id (a user, a site, a record), a label, a categorical feature or
    attribute: the marks in :data:`TEXT_MARKS` ('NA', 'N/A', '#N/A', 'NaN', 'null', '?'),
    unless a schema lists the mark as one of the column's categories or classes (then it is
    a value like any other). 'None', '-', '.' and 'missing' are kept as written there: they
    are real answers ("None of these") and 'missing' is the name of the app's own category
    for gaps.

What a gap then does is the column's choice, as before (a row left out, a category of its
own, a filled value, a refusal); the sentence about the file's gaps counts the marks among
them (:func:`with_marks`), so a mark read as a gap is always said, never silent.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping

import numpy as np
import pandas as pd

# Marks of a missing value in a column of text (ids, labels, categories), compared in lower case.
TEXT_MARKS = frozenset({"na", "n/a", "#n/a", "nan", "null", "?"})
# Marks of a missing value in a column of numbers: any of these, since none is a number.
NUMBER_MARKS = TEXT_MARKS | frozenset({"none", "-", ".", "missing"})
ROLES = ("number", "text")


def _lower(s: pd.Series) -> pd.Series:
    """The cells as stripped lower-case text, "" where pandas holds NaN or None (vectorised:
    a training table may have hundreds of millions of cells)."""
    return s.astype(str).str.strip().str.lower().where(s.notna().to_numpy(), "")


def blank_mask(s: pd.Series) -> np.ndarray:
    """(n,) bool: True where the cell is blank — empty, only spaces, or already NaN / None."""
    if pd.api.types.is_numeric_dtype(s.dtype) or pd.api.types.is_bool_dtype(s.dtype):
        return np.array(s.isna(), dtype=bool)
    return np.array(_lower(s) == "", dtype=bool)


def marks_for(role: str, listed: Iterable[str] = ()) -> frozenset[str]:
    """The missing-value marks of a column of ``role`` ("number" or "text"), less those the
    schema lists as the column's categories or classes (``listed``, any case)."""
    if role not in ROLES:
        raise ValueError(f"role must be one of {ROLES}, got {role!r}")
    marks = NUMBER_MARKS if role == "number" else TEXT_MARKS
    return marks - {str(x).strip().lower() for x in listed}


def mark_mask(s: pd.Series, role: str, listed: Iterable[str] = ()) -> np.ndarray:
    """(n,) bool: True where the cell is a missing-value mark of a ``role`` column (module
    docstring); a column pandas already read as numbers holds none."""
    if pd.api.types.is_numeric_dtype(s.dtype) or pd.api.types.is_bool_dtype(s.dtype):
        return np.zeros(len(s), dtype=bool)
    return np.array(_lower(s).isin(marks_for(role, listed)), dtype=bool)   # a writable copy


def gap_mask(s: pd.Series, role: str, listed: Iterable[str] = ()) -> np.ndarray:
    """(n,) bool: True where the cell is a gap of a ``role`` column: blank, or a mark."""
    return blank_mask(s) | mark_mask(s, role, listed)


def mark_counts(s: pd.Series, mask: np.ndarray) -> dict[str, int]:
    """How often each mark is written in the cells at ``mask`` (as written, stripped), most
    frequent first: {'NA': 30, 'n/a': 2}."""
    if not np.any(mask):
        return {}
    written = s[np.asarray(mask, dtype=bool)].astype(str).str.strip()
    return {str(k): int(v) for k, v in written.value_counts().items()}


def marks_phrase(marks: Mapping[str, Mapping[str, int]]) -> str:
    """The marks read as gaps, per column, for a sentence ("" when none): "30 written 'NA' in
    'age', 2 written '?' in 'sex'"."""
    parts = [f"{n:,} written '{mark}' in '{column}'"
             for column, written in marks.items() for mark, n in written.items() if n]
    return ", ".join(parts)


def with_marks(sentence: str, marks: Mapping[str, Mapping[str, int]]) -> str:
    """``sentence`` with the marks read as gaps said at its end, still one sentence (the gaps
    sentences are one sentence each): "… left out; counted as empty: 30 written 'NA' in 'age'
    (marks of a missing value, see "Gaps" in the config reference)." — unchanged when no mark
    was read as a gap."""
    phrase = marks_phrase(marks)
    if not phrase:
        return sentence
    clause = (f"; counted as empty: {phrase} (marks of a missing value, see \"Gaps\" in the "
              f"config reference)")
    return sentence[:-1] + clause + "." if sentence.endswith(".") else sentence + clause
