"""The checks a predictions file passes through on loading (moved out of
engine/data/predictions.py, issue 33 item 2): its empty cells, its numbers, its labels against
the class columns and its probabilities, each refused in one sentence naming the file, row and
column; and the class names read from the columns' headers.
"""

from __future__ import annotations

import os
from collections.abc import Sequence
from pathlib import Path

import numpy as np
import pandas as pd

from engine.data.columns import (
    did_you_mean,
    dropped_rows_entry,
    first_rows,
    gap_list,
    numbers,
    plural,
    preview,
    spreadsheet_row,
)
from engine.data.errors import InputError
from engine.data.gaps import mark_counts, mark_mask, with_marks
from engine.data.tabular import (
    as_written,
)
from engine.data.text_input import (
    cell_text,
    non_finite,
    non_finite_sentence,
    number_hint,
)

SUM_TOLERANCE = 1e-3            # |row sum − 1| allowed for probabilities (then renormalised)
ROUNDING = 1e-6                # a probability this far below 0 or above 1 is export noise
SEPARATORS = "_-:.= "


def norm_text(values: np.ndarray) -> np.ndarray:
    """Labels and class names compared as text, numbers by value: " 1.0" and "1" match."""
    s = pd.Series(values, dtype=object).astype(str).str.strip()
    num = pd.to_numeric(s, errors="coerce").to_numpy(dtype=float)
    whole = np.isfinite(num) & (num == np.round(num)) & (np.abs(num) < 2**53)
    out = s.to_numpy(dtype=object)
    out[whole] = num[whole].astype(np.int64).astype(str)
    return out


def class_names_from_columns(columns: Sequence[str]) -> tuple[str, ...]:
    """The class names of class columns: their names without a shared prefix that ends at a
    separator ("p_0", "p_1" → "0", "1"; "prob_cat", "prob_cow" → "cat", "cow")."""
    cols = [str(c) for c in columns]
    prefix = os.path.commonprefix(cols) if len(cols) > 1 else ""
    cut = max((prefix.rfind(ch) for ch in SEPARATORS), default=-1)
    prefix = prefix[:cut + 1] if cut >= 0 else ""
    names = tuple(c[len(prefix):] for c in cols)
    if not prefix or any(not n for n in names) or len(set(names)) < len(names):
        return tuple(cols)
    return names


def handle_gaps(p: str, df: pd.DataFrame, used: Sequence[str], label_col: str,
                 missing: str) -> tuple[pd.DataFrame, dict | None]:
    """Records with an empty cell in a column the attacks read (issue 21, "Real tables with
    gaps"), every such column found at once.

    A predictions file is a model's outputs, not its data: a score cannot be filled in (a
    median probability would be an output the model never gave, and would pull members and
    non-members towards each other), and a record without its label or members flag cannot
    be scored. So such a record is left out (``"drop_rows"``, the default: the export of a
    large table often has a few broken rows), counted per column in the returned report, or
    the file is refused (``"error"``) with every column and its count in one sentence. An
    empty cell, or a missing-value marker ('NA', 'n/a', '?', …) in a number or members column,
    is a gap; 'nan' as a score is not: it says the model's output overflowed, refused by the
    number check with its own sentence. In the label 'NA', 'N/A', 'NaN', 'null' and '?' are
    gaps, never a class (engine.data.gaps, the one rule of issue 31 item 10); the marks found
    are said. The optional id column is not read here: a record without an id is kept."""
    masks = {}
    marks = {}
    for name in used:
        s = df[name]
        if name == label_col:
            mark = mark_mask(s, "text")
        else:
            mark = mark_mask(s, "number")
            if mark.any():          # 'NaN' as a model output is an overflow, not a gap
                mark = mark & (s.astype(str).str.strip().str.lower() != "nan").to_numpy(
                    dtype=bool)
        if mark.any():
            marks[name] = mark_counts(s, mark)
        masks[name] = s.isna().to_numpy() | mark
    counts = {name: int(m.sum()) for name, m in masks.items() if m.any()}
    if not counts:
        return df, None
    firsts = first_rows({n: masks[n] for n in counts}, df.index)
    cells = sum(counts.values())
    listed = gap_list(counts, firsts)
    if missing == "error":
        raise InputError(with_marks(
            f"{p}: {plural(cells, 'empty cell')} in {plural(len(counts), 'column')} — {listed}; "
            f"every record needs its label, members flag and the model's output — fill them "
            f"in, delete those rows, or let the app leave those records out.", marks),
            source=p, key=next(iter(counts)))
    drop = np.logical_or.reduce([masks[n] for n in counts])
    if drop.all():
        raise InputError(with_marks(
            f"{p}: every one of its {plural(len(df), 'record')} has an empty cell ({listed}), "
            f"so none is left to audit; export the model's outputs again with every cell "
            f"filled in.", marks), source=p, key=next(iter(counts)))
    left = int(drop.sum())
    name = Path(p).name
    # Name only what is missing (issue 31 item 12: "label, membership or score" was said
    # whatever the column).
    what = [w for w, cols in (("label", [label_col]), ("members flag", [used[1]]),
                              ("model output", used[2:])) if any(c in counts for c in cols)]
    missing_what = " or ".join(what)
    sentence = with_marks(
        f"{plural(left, 'record')} of {name} with an empty cell ({gap_list(counts)}) "
        f"{'were' if left != 1 else 'was'} left out, since a record without its "
        f"{missing_what} cannot be scored: the attacks are measured on the other "
        f"{len(df) - left:,}.", marks)
    report = dropped_rows_entry(counts, len(df), left, sentence)
    for entry in report["per_column"]:
        if entry["column"] in marks:
            entry["marks"] = marks[entry["column"]]
    return df[~drop], report


def read_values(p: str, df: pd.DataFrame, cols: Sequence[str], index: np.ndarray) -> np.ndarray:
    """(n, len(cols)) float64; a cell that is not a finite number is one sentence."""
    sub = df[list(cols)]
    if all(pd.api.types.is_numeric_dtype(t) and not pd.api.types.is_bool_dtype(t)
           for t in sub.dtypes):
        block = sub.to_numpy(dtype=np.float64)
    else:
        block = np.column_stack([numbers(sub[c]).to_numpy() for c in cols])
    bad = ~np.isfinite(block)
    if bad.any():
        i = int(np.flatnonzero(bad.any(axis=1))[0])
        j = int(np.flatnonzero(bad[i])[0])
        raw = sub.iloc[i, j]
        text = as_written(p, cols[j], sub.index[i], raw)
        low = text.lower().lstrip("+-")
        undefined = ("the model's output for this record is undefined — recompute it (a NaN "
                     "or infinity usually comes from an overflow in the model), or delete the "
                     "row")
        if non_finite(text):
            raise InputError(non_finite_sentence(
                f"{p}: row {spreadsheet_row(index[i])}, column '{cols[j]}'", text, undefined),
                source=p, key=cols[j])
        if low == "nan":
            what, fix = "is NaN (not a number)", undefined
        else:       # a missing-value marker is a gap, handled before (:func:`handle_gaps`)
            what = "is not a number" + number_hint(text)
            fix = "write a plain number (e.g. 0.25) or delete the row"
        raise InputError(f"{p}: row {spreadsheet_row(index[i])}, column '{cols[j]}': {cell_text(text)} "
                         f"{what}; {fix}.", source=p, key=cols[j])
    return block


def match_labels(p: str, label_text: np.ndarray, cols: Sequence[str], label_col: str,
                  index: np.ndarray) -> tuple[tuple[str, ...], np.ndarray]:
    """Class names from the class columns (without their shared prefix, else the full column
    names) and each label's code; a label that names no class column is one sentence."""
    short = class_names_from_columns(cols)
    unmatched = np.zeros(len(label_text), dtype=bool)
    for k, names in enumerate(dict.fromkeys((short, tuple(cols)))):
        keys = norm_text(np.asarray(names, dtype=object))
        lookup = {key: c for c, key in enumerate(keys)}
        if len(lookup) < len(keys):
            continue                      # two names read as one class ("01" and "1")
        codes = pd.Series(label_text, dtype=object).map(lookup)
        if codes.notna().all():
            return names, codes.to_numpy(dtype=np.int64)
        if k == 0:
            unmatched = codes.isna().to_numpy()
    i = int(np.flatnonzero(unmatched)[0]) if unmatched.any() else 0
    value = label_text[i]
    example = f"'{cols[0]}' for class '{short[0]}'"
    raise InputError(f"{p}: row {spreadsheet_row(index[i])}, column '{label_col}': {cell_text(value)} is "
                     f"not among the {len(short)} classes of the class columns ({preview(short)})"
                     f"{did_you_mean(value, short)}; each label must name a class that has a "
                     f"column (e.g. {example}) — correct the label, add the class's column, or "
                     f"say which columns are the classes.", source=p, key=label_col)


def check_probabilities(p: str, values: np.ndarray, cols: Sequence[str],
                         index: np.ndarray) -> np.ndarray:
    """Probabilities in [0, 1] whose rows sum to 1 within SUM_TOLERANCE, renormalised; else a
    sentence naming the first bad row and what the values look like (logits, percentages)."""
    sums = values.sum(axis=1)
    percent = bool(np.mean(np.abs(sums - 100.0) <= 100 * SUM_TOLERANCE) >= 0.9)
    logits = bool((values < -ROUNDING).any() or ((values > 1 + ROUNDING).any() and not percent))
    if percent:
        hint = ("they look like percentages (rows sum to about 100): divide them by 100, or "
                "export probabilities")
    elif logits:
        hint = ("they look like logits (raw scores before the softmax): choose kind 'logits' "
                "for this file")
    else:
        hint = ("each row must hold the probabilities of every class — add a missing class "
                "column, or export more decimals if they were rounded")
    out = (values < -ROUNDING) | (values > 1 + ROUNDING)
    if out.any():
        i = int(np.flatnonzero(out.any(axis=1))[0])
        j = int(np.flatnonzero(out[i])[0])
        raise InputError(f"{p}: row {spreadsheet_row(index[i])}, column '{cols[j]}': "
                         f"{cell_text(f'{values[i, j]:g}')} is not a probability (between 0 "
                         f"and 1); {hint}.", source=p, key=cols[j])
    off = np.flatnonzero(np.abs(sums - 1.0) > SUM_TOLERANCE)
    if off.size:
        i = int(off[0])
        more = f" (and {off.size - 1:,} other rows)" if off.size > 1 else ""
        raise InputError(f"{p}: row {spreadsheet_row(index[i])}: the probabilities sum to {sums[i]:.6g}, not "
                         f"1{more}; {hint}.", source=p, key="probabilities")
    values = np.clip(values, 0.0, 1.0)
    return values / values.sum(axis=1, keepdims=True)

