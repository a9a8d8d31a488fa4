"""Bring your own predictions: a model's outputs per record, read from a CSV (issue 8).

A model built elsewhere (R, SAS, XGBoost, …) is audited without loading it: the user exports,
for every record, the model's class probabilities (or logits, or only its loss), the true label
and whether the record was a training member. That is everything a black-box membership attack
reads: the generalization-gap attacks of paper 001 (BTTA needs only correctness; CBTTA's
partitions by true label, predicted label and confidence need the probabilities, §"Categorical
Bayesian") and the metric-based attacks of paper 004 §4.4.1 (correctness, confidence of the
true class, entropy, modified entropy, top-1 confidence) all work from these columns; LiRA and
RMIA use the loss or the confidence of the true class. Nothing is executed and no model file is
read.

The file: one row per record, a header row; ``label`` (the true class), ``member`` (1 = the
model was trained on the record, 0 = not), optionally an id column, and either one column per
class (probabilities, or logits: raw scores before the softmax) or one ``loss`` column (the
per-record cross-entropy, ``-log p(true class)``). Class columns may share a prefix
(``p_0, p_1, …`` or ``prob_cat, prob_dog``): the class names are the column names without it,
and each label must be one of them. A second file of the same columns (reference or shadow
data with known membership) is read with ``like=`` the first, which checks the header.

Every problem is one :class:`InputError` sentence naming the file, the row (header = row 1),
the column and what to do.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, replace
from pathlib import Path

import numpy as np
import pandas as pd

from engine.data.columns import (
    ID_NAME,
    as_text,
    category_codes,
    code_member,
    column_names,
    did_you_mean,
    natural_key,
    plural,
    preview,
    spreadsheet_row,
)
from engine.data.csv_safety import neutralise, restore
from engine.data.errors import InputError, given_value
from engine.data.gaps import gap_mask, mark_counts, mark_mask
from engine.data.prediction_checks import (
    check_probabilities,
    handle_gaps,
    match_labels,
    norm_text,
    read_values,
)
from engine.data.tabular import (
    check_unique_ids,
    read_table,
)
from engine.data.text_input import (
    add_read_note,
    cell_text,
)

KINDS = ("probabilities", "logits", "loss")
# What to do with a record that has an empty cell in a column the attacks read (issue 21):
# leave it out (the default, counted in result.json and the report) or refuse the file.
MISSING_CHOICES = ("drop_rows", "error")
_TINY = np.finfo(np.float64).tiny


@dataclass(frozen=True, eq=False)
class Predictions:
    """A model's outputs on n records (``eq=False``: arrays do not compare as bools).

    ``probs[i]`` is record i's class probabilities (rows sum to 1; None when the file held only
    losses), ``loss[i]`` its cross-entropy ``-log probs[i, labels[i]]``, ``labels[i]`` its true
    class (an index into ``class_names``), ``member[i]`` whether the model was trained on it,
    ``rows[i]`` its row in the CSV (header = row 1) and ``ids[i]`` its id (None without an id
    column).
    """

    probs: np.ndarray | None              # (n, k) float64, rows sum to 1; None for loss-only
    loss: np.ndarray                      # (n,) float64 per-record cross-entropy
    labels: np.ndarray                    # (n,) int64 codes into class_names
    member: np.ndarray                    # (n,) bool
    ids: np.ndarray | None                # (n,) object record ids, or None
    rows: np.ndarray                      # (n,) int64 CSV rows (header = row 1)
    class_names: tuple[str, ...]
    kind: str = "probabilities"           # what the file held: one of KINDS
    columns: tuple[str, ...] = ()         # the file's header, to check a reference file
    source: str = ""                      # file name, for messages
    # Records left out for empty cells (:func:`handle_gaps`): what result.json's input entry
    # and the report's gaps table say; None when the file had none.
    missing_values: dict | None = None

    def __post_init__(self) -> None:
        loss = np.asarray(self.loss, dtype=np.float64)
        n = loss.shape[0] if loss.ndim == 1 else -1
        labels = np.asarray(self.labels, dtype=np.int64)
        member = np.asarray(self.member, dtype=bool)
        rows = np.asarray(self.rows, dtype=np.int64)
        if loss.ndim != 1 or labels.shape != (n,) or member.shape != (n,) or rows.shape != (n,):
            raise ValueError(f"loss, labels, member and rows must all have shape (n,), got "
                             f"{loss.shape}, {labels.shape}, {member.shape}, {rows.shape}")
        names = tuple(str(c) for c in self.class_names)
        if n and (labels.min() < 0 or labels.max() >= len(names)):
            raise ValueError(f"labels must lie in 0..{len(names) - 1}")
        probs = None
        if self.probs is not None:
            probs = np.asarray(self.probs, dtype=np.float64)
            if probs.shape != (n, len(names)):
                raise ValueError(f"probs must have shape ({n}, {len(names)}), got {probs.shape}")
        ids = None if self.ids is None else np.asarray(self.ids, dtype=object)
        if ids is not None and ids.shape != (n,):
            raise ValueError(f"ids must have shape ({n},), got {ids.shape}")
        if self.kind not in KINDS:
            raise ValueError(f"kind must be one of {KINDS}, got {self.kind!r}")
        for k, v in (("probs", probs), ("loss", loss), ("labels", labels), ("member", member),
                     ("rows", rows), ("ids", ids), ("class_names", names),
                     ("columns", tuple(self.columns))):
            object.__setattr__(self, k, v)

    def __repr__(self) -> str:
        return (f"Predictions({self.n_records} records, {self.n_classes} classes, "
                f"{int(self.member.sum())} members, kind={self.kind!r}, source={self.source!r})")

    @property
    def n_records(self) -> int:
        return int(self.loss.shape[0])

    def __len__(self) -> int:
        return self.n_records

    @property
    def n_classes(self) -> int:
        return len(self.class_names)

    @property
    def predicted(self) -> np.ndarray | None:
        """(n,) int64 predicted class (largest probability), or None for a loss-only file."""
        return None if self.probs is None else self.probs.argmax(axis=1).astype(np.int64)

    @property
    def correct(self) -> np.ndarray | None:
        """(n,) bool: the model's prediction is the true label (what BTTA reads, paper 001
        Alg. 1), or None for a loss-only file."""
        p = self.predicted
        return None if p is None else p == self.labels

    def label_text(self) -> np.ndarray:
        """(n,) object: each record's true label as text."""
        return np.asarray(self.class_names, dtype=object)[self.labels]

    def subset(self, rows: Sequence[int] | np.ndarray) -> Predictions:
        """The records at ``rows`` (positions or a boolean mask), in that order."""
        idx = np.asarray(rows)
        if idx.dtype == bool:
            idx = np.flatnonzero(idx)
        idx = idx.astype(np.int64, copy=False)
        return replace(self, probs=None if self.probs is None else self.probs[idx],
                       loss=self.loss[idx], labels=self.labels[idx], member=self.member[idx],
                       ids=None if self.ids is None else self.ids[idx], rows=self.rows[idx])

    def write_csv(self, path: str | Path, *, id_col: str = "id") -> Path:
        """Write these predictions (probabilities, or the loss when there are none) as a CSV
        that :func:`load_predictions_csv` reads back."""
        return write_predictions_csv(path, labels=self.labels, member=self.member,
                                     probs=self.probs,
                                     loss=self.loss if self.probs is None else None,
                                     class_names=self.class_names, ids=self.ids, id_col=id_col)


# --------------------------------------------------------------------------- helpers

def softmax(logits: np.ndarray) -> np.ndarray:
    """Row-wise softmax, stable for large logits (the row maximum is subtracted first)."""
    z = np.asarray(logits, dtype=np.float64)
    z = z - z.max(axis=1, keepdims=True)
    e = np.exp(z)
    return e / e.sum(axis=1, keepdims=True)


def cross_entropy(probs: np.ndarray, labels: np.ndarray) -> np.ndarray:
    """(n,) ``-log probs[i, labels[i]]``; a probability of 0 gives ~708 (log of the smallest
    positive double), not infinity."""
    p = np.asarray(probs, dtype=np.float64)[np.arange(len(labels)), np.asarray(labels)]
    return -np.log(np.maximum(p, _TINY))


# --------------------------------------------------------------------------- loading

def load_predictions_csv(path: str | Path, *, kind: str = "probabilities",
                         label_col: str = "label", member_col: str = "member",
                         id_col: str | None = None, class_cols: Sequence[str] | None = None,
                         loss_col: str = "loss", like: Predictions | None = None,
                         missing: str = "drop_rows") -> Predictions:
    """Read a model's per-record outputs (module docstring: the file's layout).

    ``kind``: ``"probabilities"`` (one column per class, rows summing to 1 within 1e-3, then
    renormalised), ``"logits"`` (one column per class, turned into probabilities by a stable
    softmax; the loss is ``logsumexp(z) - z_label``) or ``"loss"`` (a ``loss_col`` column of
    per-record cross-entropies; ``probs`` is None). ``class_cols`` are the class columns in
    class order (default: every column other than the label, member, id and loss columns, in
    file order). ``like``: a :class:`Predictions` read before whose file this one must match
    column for column (reference or shadow data). ``missing``: what to do with records that
    have an empty cell (or 'NA', '?', …) in a column the audit reads (:func:`handle_gaps`):
    ``"drop_rows"`` leaves them out and says so, ``"error"`` refuses the file naming every
    such column with its count.
    """
    p = str(path)
    if missing not in MISSING_CHOICES:
        raise InputError(f"missing {given_value(missing)} is not one of {', '.join(MISSING_CHOICES)}"
                         f"{did_you_mean(missing, MISSING_CHOICES)}; say what to do with "
                         f"records that have empty cells.", key="missing", source=p)
    if kind not in KINDS:
        raise InputError(f"kind {given_value(kind)} is not one of {', '.join(KINDS)}"
                         f"{did_you_mean(kind, KINDS)}; say what the file's class columns "
                         f"hold.", key="kind", source=p)
    df = read_table(p)
    found = [str(c) for c in df.columns]
    if like is not None and set(found) != set(like.columns):
        missing = [c for c in like.columns if c not in found]
        extra = [c for c in found if c not in like.columns]
        parts = []
        if missing:
            parts.append(f"missing: {preview(missing)}")
        if extra:
            parts.append(f"extra: {column_names(extra, limit=5)}")
        other = like.source or "the predictions file"
        raise InputError(f"{p}: its columns differ from {other}'s ({'; '.join(parts)}); a "
                         f"reference file needs the same columns as the predictions file — "
                         f"export both the same way.", source=p)

    def need(name: str, what: str) -> str:
        if name in found:
            return name
        same = [c for c in found if c.lower() == str(name).lower()]
        if len(same) == 1:
            return same[0]
        raise InputError(f"{p}: there is no {what} column '{name}'"
                         f"{did_you_mean(name, found)}; columns found: {column_names(found)} — "
                         f"rename the column or say which one holds the {what}.", source=p,
                         key=name)

    label_col = need(label_col, "label")
    member_col = need(member_col, "member")
    if id_col is not None:
        id_col = need(id_col, "id")
    elif class_cols is None:
        named = [c for c in found if ID_NAME.search(c) and c not in (label_col, member_col)]
        id_col = named[0] if len(named) == 1 else None
    special = {label_col, member_col, id_col, loss_col if kind != "loss" else None} - {None}
    if kind == "loss":
        loss_col = need(loss_col, "loss")
        value_cols = [loss_col]
    else:
        if class_cols is None:
            value_cols = [c for c in found if c not in special]
        else:
            value_cols = [need(str(c), "class") for c in class_cols]
        if len(value_cols) < 2:
            have = f"only {preview(value_cols)}" if value_cols else "none"
            raise InputError(f"{p}: {kind} need one column per class (at least two), found "
                             f"{have} besides the label, member and id columns; export the "
                             f"model's {kind} for every class, or choose kind 'loss' if the "
                             f"file holds one loss per record.", source=p)
    # The id is optional (it matches the records with the data's by id): a record without one
    # is kept, and says so (issue 31 item 12: 400 of 1,200 records were left out for a blank
    # id "since … label, membership or score cannot be scored").
    df, gaps = handle_gaps(p, df, [label_col, member_col, *value_cols], label_col, missing)
    index = df.index.to_numpy()

    values = read_values(p, df, value_cols, index)
    member = code_member(p, df[member_col], member_col, index, source=p, both_fix="")
    label_text = norm_text(np.asarray([restore(t) for t in as_text(df[label_col])],
                                       dtype=object))
    ids = None
    if id_col is not None:
        no_id = gap_mask(df[id_col], "text")
        ids = np.full(len(df), "", dtype=object)
        ids[~no_id] = [restore(t) for t in as_text(df[id_col][~no_id])]
        check_unique_ids(p, ids[~no_id], id_col, index[~no_id], p)
        if no_id.any():
            k = int(no_id.sum())
            marks = mark_counts(df[id_col], mark_mask(df[id_col], "text"))
            held = (" (" + ", ".join(f"{n:,} written '{m}'" for m, n in marks.items()) + ")"
                    if marks else "")
            add_read_note(p, f"{plural(k, 'record')} of {Path(p).name} {'have' if k != 1 else 'has'} "
                             f"no id in column '{id_col}'{held}, first in row "
                             f"{spreadsheet_row(index[int(np.flatnonzero(no_id)[0])])}; "
                             f"{'they are' if k != 1 else 'it is'} kept and audited, but cannot "
                             f"be matched with the data by id")

    if kind == "loss":
        loss = values[:, 0]
        neg = np.flatnonzero(loss < 0)
        if neg.size:
            i = int(neg[0])
            raise InputError(f"{p}: row {spreadsheet_row(index[i])}, column '{loss_col}': "
                             f"{cell_text(f'{loss[i]:g}')} is negative; a cross-entropy loss "
                             f"is never negative — if the column holds log-probabilities of the "
                             f"true class, negate them.", source=p, key=loss_col)
        names = tuple(sorted(set(label_text), key=natural_key))
        labels = category_codes(label_text, names)
        probs = None
    else:
        names, labels = match_labels(p, label_text, value_cols, label_col, index)
        if kind == "logits":
            probs = softmax(values)
            z = values - values.max(axis=1, keepdims=True)
            lse = np.log(np.exp(z).sum(axis=1))
            loss = lse - z[np.arange(len(labels)), labels]
        else:
            probs = check_probabilities(p, values, value_cols, index)
            loss = cross_entropy(probs, labels)
    return Predictions(probs=probs, loss=loss, labels=labels, member=member, ids=ids,
                       rows=(index + 2).astype(np.int64), class_names=names, kind=kind,
                       columns=tuple(found), source=Path(p).name, missing_values=gaps)


# --------------------------------------------------------------------------- arrays

def predictions_from_arrays(*, labels: np.ndarray, member: np.ndarray,
                            probs: np.ndarray | None = None, logits: np.ndarray | None = None,
                            loss: np.ndarray | None = None,
                            class_names: Sequence[str] | None = None,
                            ids: np.ndarray | None = None, source: str = "") -> Predictions:
    """:class:`Predictions` from a model's outputs in memory (a model trained in the app):
    exactly one of ``probs`` (rows renormalised), ``logits`` (softmax) or ``loss``;
    ``labels`` are class codes; ``class_names`` default to "0", "1", …. Rows are numbered
    as :func:`write_predictions_csv` would write them."""
    given = [k for k, v in (("probs", probs), ("logits", logits), ("loss", loss)) if v is not None]
    if len(given) != 1:
        raise ValueError(f"give exactly one of probs, logits, loss (got {given or 'none'})")
    labels = np.asarray(labels, dtype=np.int64)
    n = labels.shape[0]
    k = None
    if probs is not None:
        k = np.shape(probs)[1]
    elif logits is not None:
        k = np.shape(logits)[1]
    names = tuple(str(c) for c in class_names) if class_names is not None else \
        tuple(str(c) for c in range(k if k is not None else int(labels.max(initial=0)) + 1))
    if probs is not None:
        pr = np.asarray(probs, dtype=np.float64)
        pr = pr / pr.sum(axis=1, keepdims=True)
        out = Predictions(pr, cross_entropy(pr, labels), labels, member, ids,
                          np.arange(2, n + 2), names, "probabilities", source=source)
    elif logits is not None:
        z = np.asarray(logits, dtype=np.float64)
        zc = z - z.max(axis=1, keepdims=True)
        lse = np.log(np.exp(zc).sum(axis=1))
        out = Predictions(softmax(z), lse - zc[np.arange(n), labels], labels, member, ids,
                          np.arange(2, n + 2), names, "logits", source=source)
    else:
        out = Predictions(None, np.asarray(loss, dtype=np.float64), labels, member, ids,
                          np.arange(2, n + 2), names, "loss", source=source)
    return out


def write_predictions_csv(path: str | Path, *, labels: np.ndarray, member: np.ndarray,
                          probs: np.ndarray | None = None, logits: np.ndarray | None = None,
                          loss: np.ndarray | None = None,
                          class_names: Sequence[str] | None = None,
                          ids: np.ndarray | None = None, id_col: str = "id",
                          label_col: str = "label", member_col: str = "member") -> Path:
    """Write per-record model outputs as the CSV :func:`load_predictions_csv` reads.

    Columns: ``id`` (when ``ids`` are given), ``label`` (the class name of each code in
    ``labels``), ``member`` (0/1), then either ``p_<class>`` per class (``probs``),
    ``logit_<class>`` per class (``logits``) or ``loss``. Exactly one of the three.
    Numbers are written with 10 significant digits (rows of probabilities still sum to 1
    well within the loader's 1e-3)."""
    given = [k for k, v in (("probs", probs), ("logits", logits), ("loss", loss)) if v is not None]
    if len(given) != 1:
        raise ValueError(f"give exactly one of probs, logits, loss (got {given or 'none'})")
    labels = np.asarray(labels, dtype=np.int64)
    n = labels.shape[0]
    block = probs if probs is not None else logits
    k = None if block is None else np.shape(block)[1]
    if class_names is None:
        class_names = [str(c) for c in range(k if k is not None
                                             else int(labels.max(initial=0)) + 1)]
    names = [str(c) for c in class_names]
    data: dict[str, object] = {}
    # Text cells are written so a spreadsheet never runs them as formulas (csv_safety); the
    # class columns' names start with p_ / logit_ and are safe as they are.
    if ids is not None:
        data[id_col] = np.asarray([neutralise(i) for i in ids], dtype=object)
    data[label_col] = np.asarray([neutralise(n) for n in names], dtype=object)[labels]
    data[member_col] = np.asarray(member, dtype=bool).astype(np.int64)
    frame = pd.DataFrame(data)
    if block is not None:
        prefix = "p_" if probs is not None else "logit_"
        values = np.asarray(block, dtype=np.float64)
        if values.shape != (n, len(names)):
            raise ValueError(f"{given[0]} must have shape ({n}, {len(names)}), got "
                             f"{values.shape}")
        extra = pd.DataFrame(values, columns=[f"{prefix}{c}" for c in names])
    else:
        extra = pd.DataFrame({"loss": np.asarray(loss, dtype=np.float64)})
    frame = pd.concat([frame, extra], axis=1)
    out = Path(path)
    out.parent.mkdir(parents=True, exist_ok=True)
    frame.to_csv(out, index=False, lineterminator="\n", float_format="%.10g")
    return out


# --------------------------------------------------------------------------- matching

def match_predictions(predictions: Predictions, *, ids: Sequence | np.ndarray | None = None,
                      n_records: int | None = None, labels: Sequence | np.ndarray | None = None,
                      data_source: str = "the data") -> Predictions:
    """The predictions in the order of the data's records, or a sentence when they do not
    match.

    With ``ids`` (the data's record ids, e.g. :attr:`TabularData.ids`) the predictions file
    must have an id column holding exactly those ids: ids missing on either side are named.
    Without, the files are matched row by row and must have the same number of records
    (``n_records``, or ``len(labels)``). ``labels`` (the data's labels as text) are then
    compared with the predictions' labels: a difference means the rows are not in the same
    order.
    """
    p = predictions.source or "the predictions file"
    pred = predictions
    if ids is not None:
        data_ids = as_text(pd.Series(np.asarray(ids, dtype=object)))
        if pred.ids is None:
            raise InputError(f"{p}: has no id column, so its rows cannot be matched with "
                             f"{data_source}'s ids; add the records' ids as a column and name it "
                             f"as the id column.", source=p, key="id")
        no_id = np.flatnonzero(np.asarray(pred.ids, dtype=object) == "")
        if no_id.size:          # kept at load (an optional id), but nothing to match here
            many = no_id.size > 1
            raise InputError(f"{p}: {no_id.size:,} prediction row{'s' if many else ''} "
                             f"{'have' if many else 'has'} no id (row {pred.rows[no_id[0]]}"
                             f"{', …' if many else ''}), so {'they' if many else 'it'} cannot "
                             f"be matched with {data_source}'s records by id; fill the ids in, "
                             f"or delete {'those rows' if many else 'that row'}.", source=p,
                             key="id")
        pos = pd.Index(pred.ids)
        where = pos.get_indexer(data_ids)
        missing = np.flatnonzero(where < 0)
        if missing.size:
            many = missing.size > 1
            raise InputError(f"{p}: {missing.size:,} record{'s' if many else ''} of "
                             f"{data_source} {'have' if many else 'has'} no prediction (the "
                             f"first is its record number {missing[0] + 1:,}); add "
                             f"{'their rows' if many else 'its row'} to the predictions file, "
                             f"or remove {'them' if many else 'it'} from the data.", source=p,
                             key="id")
        extra = np.flatnonzero(~np.isin(pred.ids, data_ids))
        if extra.size:
            i = int(extra[0])
            raise InputError(f"{p}: {extra.size:,} prediction row{'s' if extra.size > 1 else ''} "
                             f"{'have ids' if extra.size > 1 else 'has an id'} not in "
                             f"{data_source} (row {pred.rows[i]}"
                             f"{', …' if extra.size > 1 else ''}); remove "
                             f"{'them' if extra.size > 1 else 'it'}, or check that both files "
                             f"use the same id column.", source=p, key="id")
        pred = pred.subset(where)
    else:
        n = n_records if n_records is not None else (None if labels is None else len(labels))
        if n is not None and n != pred.n_records:
            raise InputError(f"{p}: has {pred.n_records:,} prediction rows but {data_source} has "
                             f"{n:,} records; the rows must match one to one — export the "
                             f"predictions for exactly the data's records, or add an id column "
                             f"to both files so that they are matched by id.", source=p,
                             key="rows")
    if labels is not None:
        want = norm_text(np.asarray(labels, dtype=object))
        have = norm_text(pred.label_text())
        if want.shape != have.shape:
            raise InputError(f"{p}: has {have.size:,} records but {data_source} has {want.size:,}"
                             f"; the rows must match one to one.", source=p, key="rows")
        diff = np.flatnonzero(want != have)
        if diff.size:
            i = int(diff[0])
            raise InputError(f"{p}: row {pred.rows[i]} has label {cell_text(have[i])} but the "
                             f"matching record of {data_source} has {cell_text(want[i])} "
                             f"({diff.size:,} "
                             f"difference{'s' if diff.size > 1 else ''}); the rows are probably "
                             f"not in the same order — add an id column to both files so that "
                             f"they are matched by id.", source=p, key="label")
    return pred

