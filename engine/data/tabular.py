"""Training data for a machine-learning model, from a CSV and without code (issue 8, model intake).

The model audit asks how well an outsider can tell a model's training records from other
records of the same population (paper 001 §"Attack Setting"; paper 004 §2.2). To train the
audited model in the app, a user gives a CSV with one record per row; this module turns it into
the arrays a model trains on:

* :class:`TabularColumn` / :class:`TabularSchema` — each column's role (``feature``, the
  ``label`` the model predicts, the 0/1 ``member`` column that marks training records, or
  ``ignore``), the kind of a feature (``categorical``: one-hot coded; ``numeric``: standardised)
  and the fitted scaling. Inferred from the file (:func:`infer_tabular_schema`), shown and
  edited in the app, saved with the project (:meth:`TabularSchema.to_dict` /
  :meth:`TabularSchema.from_dict`, no ``None`` values, so it fits in TOML).
* :class:`TabularData` — ``X`` (float32, records × encoded features), ``y`` (int64 class
  codes), the class labels, the encoded feature names, the CSV row of every record and the
  membership flags.
* :func:`load_tabular_csv` / :func:`tabular_from_frame` — every mistake a user can make in the
  file becomes one :class:`InputError` sentence that names the file, the row (as a spreadsheet
  numbers it: the header is row 1), the column, and what to do.
* :func:`split_members` — a seeded, class-stratified member / non-member split when the file has
  no members column (paper 001 §"Assessment and Previous MIAs" and §"Experimental Setup":
  train and test parts of equal size by default, so random guessing scores 0.5).

Why numeric scaling is fitted on the training part only: preprocessing is part of the model.
A mean and standard deviation computed over all records would carry information about the
records the model must not have seen (the non-members) into the model, and the audit would then
measure a model that had, in a small way, seen its held-out records. So the mean and sd come
from the member rows (all rows until a split exists; :func:`split_members` refits them).
Categories, by contrast, are a description of the columns' domains, not fitted statistics: a
category seen only in non-members gets a one-hot column that is zero in training, which is how
a deployed model meets an unseen value.
"""

from __future__ import annotations

import io
import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, replace
from pathlib import Path

import numpy as np
import pandas as pd

from engine.data.columns import (
    ID_NAME,
    as_text,
    category_codes,
    check_category_names,
    check_missing_choice,
    check_repeated_header,
    checked_column,
    code_member,
    column_names,
    did_you_mean,
    empty_cell_sentence,
    missing_marker_sentence,
    natural_key,
    numbers,
    parse_csv,
    plural,
    schema_columns,
    schema_from_dict,
    spreadsheet_row,
    unknown_category_sentence,
)
from engine.data.errors import InputError, given_value
from engine.data.gaps import NUMBER_MARKS, TEXT_MARKS, mark_counts, mark_mask, with_marks
from engine.data.text_input import (
    cell_text,
    check_header,
    header_names,
    localized_number,
    non_finite,
    non_finite_sentence,
    number_hint,
    read_text,
)
from engine.runtime import rng

ROLES = ("feature", "label", "member", "ignore")
KINDS = ("categorical", "numeric")
SCHEMA_VERSION = 1
# Column names taken for the label / the members column when the user names none.
LABEL_NAMES = ("label", "class", "target", "y")
MEMBER_NAMES = ("member", "members", "is_member", "in_training", "training_member")
# Memory guard: X is float32, so 500 million cells are 2 GB. Configurable per call.
BYTES_PER_CELL = 4
MAX_CELLS = 500_000_000
DEFAULT_MAX_CATEGORIES = 50   # inference: text columns with more distinct values are ignored
_ID_ROWS = 20                 # a unique text / consecutive-integer column this long is an id
_COLUMN_KEYS = ("name", "role", "kind", "categories", "scale", "mean", "sd", "missing",
                "indicator", "fill")
# What to do with a column's empty cells (issue 21, "Real tables with gaps"): fill them with the
# column's median or most frequent value, make "missing" a category of its own, leave the rows
# with a gap out, or refuse the file (the sentence lists every column with gaps, with counts).
MISSING_CHOICES = ("median", "most_frequent", "own_category", "drop_rows", "error")
MISSING_CATEGORY = "missing"   # the category an empty cell becomes with "own_category"
INDICATOR_SUFFIX = " (was missing)"   # the name of a numeric column's "was missing" 0/1 feature
# What R, pandas and SAS exports write for a gap in a column of categories or in the label: a
# gap there unless the schema lists it (engine.data.gaps, the one rule of issue 31 item 10).
CATEGORY_GAP_MARKERS = TEXT_MARKS
_HUGE = 1e150                    # a value this large overflows the variance's squares
_FLOAT32_MAX = float(np.finfo(np.float32).max)
# The way out when every record has the same members flag: a training table can do without it.
_BOTH_FIX = (", or set the column's role to 'ignore' and let the app split the records at "
             "random")
_CHUNK = 256                  # numeric columns converted per step (bounds the float64 copy)


# --------------------------------------------------------------------------- columns

@dataclass(frozen=True)
class TabularColumn:
    """One CSV column and what the model does with it.

    * ``role="feature"`` with ``kind="categorical"``: one-hot coded over ``categories`` (one
      encoded feature per category, named ``"column=category"``); empty ``categories`` means
      "the values found in the data, sorted", filled in when the file is loaded.
    * ``role="feature"`` with ``kind="numeric"``: one encoded feature. With ``scale=True`` it is
      standardised, ``(value - mean) / sd``; ``mean`` and ``sd`` are fitted on the training
      part at load (module docstring says why) unless the schema already holds them (a saved
      project). ``scale=False`` keeps the values as written (0/1 purchase indicators, as in
      Purchase100, paper 004 §4.1).
    * ``role="label"``: the class the model predicts; ``categories`` are the class labels in
      code order (empty: the classes found in the data, sorted).
    * ``role="member"``: 1 for a record the model is trained on, 0 for one it is not.
    * ``role="ignore"``: not used (ids, free text); ``kind`` is kept so the column can be
      switched back on.
    """

    name: str
    role: str = "feature"
    kind: str = "numeric"
    categories: tuple[str, ...] = ()
    scale: bool = True
    mean: float | None = None
    sd: float | None = None
    missing: str = ""                 # one of MISSING_CHOICES; "" = the default for role/kind
    indicator: bool | None = None     # numeric fill: add a "was missing" 0/1 feature; None =
                                      # when the loaded data has gaps in the column
    fill: float | str | None = None   # the median / most frequent value, fitted at load unless
                                      # given (then other files, e.g. DMP's reference records,
                                      # are filled with the training table's value)

    def __post_init__(self) -> None:
        name, where, cats = checked_column(self.name, self.role, self.kind, self.categories,
                                           roles=ROLES, kinds=KINDS)
        object.__setattr__(self, "name", name)
        check_category_names(where, cats, name)
        object.__setattr__(self, "categories", cats)
        if not isinstance(self.scale, bool | np.bool_):
            raise InputError(f"{where}: 'scale' must be true or false, got {given_value(self.scale)}.",
                             key=name)
        object.__setattr__(self, "scale", bool(self.scale))
        if self.role == "feature" and self.kind == "numeric" and cats:
            raise InputError(f"{where}: a numeric feature takes no categories; remove them or "
                             f"set kind to 'categorical'.", key=name)
        if (self.mean is None) != (self.sd is None):
            raise InputError(f"{where}: give both 'mean' and 'sd' (the scaling fitted on the "
                             f"training part) or neither.", key=name)
        if self.mean is not None:
            for label, v in (("mean", self.mean), ("sd", self.sd)):
                if isinstance(v, bool) or not isinstance(v, int | float | np.number) \
                        or not math.isfinite(float(v)):
                    raise InputError(f"{where}: '{label}' must be a finite number, got {given_value(v)}.",
                                     key=name)
            if float(self.sd) <= 0:
                raise InputError(f"{where}: 'sd' must be above 0, got {given_value(self.sd)}; remove "
                                 f"'mean' and 'sd' to fit them again.", key=name)
            object.__setattr__(self, "mean", float(self.mean))
            object.__setattr__(self, "sd", float(self.sd))
        check_missing_choice(where, self.missing, MISSING_CHOICES, name)
        if self.missing and self.missing not in missing_choices(self.role, self.kind):
            raise InputError(f"{where}: 'missing' {given_value(self.missing)} does not apply to "
                             f"{_missing_what(self.role, self.kind)}; choose one of "
                             f"{', '.join(missing_choices(self.role, self.kind))}.", key=name)
        if self.indicator is not None:
            if not isinstance(self.indicator, bool | np.bool_):
                raise InputError(f"{where}: 'indicator' must be true or false, got "
                                 f"{given_value(self.indicator)}.", key=name)
            object.__setattr__(self, "indicator", bool(self.indicator))
        if self.fill is not None:
            if self.kind == "numeric":
                if isinstance(self.fill, bool) or not isinstance(self.fill, int | float | np.number) \
                        or not math.isfinite(float(self.fill)):
                    raise InputError(f"{where}: 'fill' must be a finite number (the value that "
                                     f"fills the column's empty cells), got {given_value(self.fill)}.",
                                     key=name)
                object.__setattr__(self, "fill", float(self.fill))
            elif not isinstance(self.fill, str) or not self.fill.strip():
                raise InputError(f"{where}: 'fill' must be one of the column's values (the one "
                                 f"that fills its empty cells), got {given_value(self.fill)}.", key=name)

    @property
    def is_feature(self) -> bool:
        return self.role == "feature"

    @property
    def missing_choice(self) -> str:
        """What is done with the column's empty cells: the choice made, else the default for
        its role and kind (:func:`default_missing`)."""
        return self.missing or default_missing(self.role, self.kind)

    @property
    def has_indicator(self) -> bool:
        """True when the column adds a "was missing" 0/1 feature after its own (a numeric
        feature whose gaps are filled, with ``indicator`` resolved to true at load)."""
        return (self.role == "feature" and self.kind == "numeric" and self.indicator is True
                and self.missing_choice in ("median", "most_frequent"))

    @property
    def width(self) -> int:
        """Encoded features this column contributes (0 unless a feature; a categorical feature
        with categories still to be read from the data counts 0 until then)."""
        if self.role != "feature":
            return 0
        return len(self.categories) if self.kind == "categorical" else 1 + self.has_indicator

    def width_with_gaps(self, empty_cells: int) -> int:
        """The width this column will have once a file with ``empty_cells`` empty cells in it
        is loaded: :func:`_handle_gaps`'s rules ahead of time — a filled numeric feature gains its
        "was missing" input unless the indicator was turned off, and a categorical feature whose
        gaps become a category of their own gains that category. The schema editor counts a
        column's inputs with this, so its count is the loaded model's (issue 32 item 6)."""
        if self.role != "feature" or not empty_cells:
            return self.width
        if self.kind == "numeric":
            filled = self.missing_choice in ("median", "most_frequent")
            return 1 + bool(filled and self.indicator is not False)
        if self.missing_choice == "own_category" and self.categories \
                and MISSING_CATEGORY not in self.categories:
            return len(self.categories) + 1
        return self.width

    def encoded_names(self) -> tuple[str, ...]:
        if self.role != "feature":
            return ()
        if self.kind == "numeric":
            return (self.name, self.name + INDICATOR_SUFFIX) if self.has_indicator \
                else (self.name,)
        return tuple(f"{self.name}={c}" for c in self.categories)

    def to_dict(self) -> dict:
        d: dict = {"name": self.name, "role": self.role, "kind": self.kind}
        if self.categories:
            d["categories"] = list(self.categories)
        if self.kind == "numeric":
            d["scale"] = self.scale
            if self.mean is not None:
                d["mean"], d["sd"] = self.mean, self.sd
            if self.indicator is not None:
                d["indicator"] = self.indicator
        if self.missing:
            d["missing"] = self.missing
        if self.fill is not None:
            d["fill"] = self.fill
        return d


def features_phrase(columns: int, inputs: int) -> str:
    """How every page counts a model's features (issue 32 item 6: "7 features" beside "3 columns
    (6 inputs)" was one table counted two ways): the columns the user's table has, with the
    inputs of the model they become (one per category, plus "was missing" flags) in brackets
    when the two differ."""
    text = f"{columns:,} feature column{'s' if columns != 1 else ''}"
    if inputs != columns:
        text += f" ({inputs:,} input{'s' if inputs != 1 else ''})"
    return text


def model_features_text(model: Mapping) -> str | None:
    """:func:`features_phrase` of a result's ``model`` block (None when it counts no features,
    as for a predictions file); a result from before the columns were stored says its inputs."""
    inputs, columns = model.get("features"), model.get("feature_columns")
    if not isinstance(inputs, int) or isinstance(inputs, bool):
        return None
    if not isinstance(columns, int) or isinstance(columns, bool):
        return f"{inputs:,} input{'s' if inputs != 1 else ''}"
    return features_phrase(columns, inputs)


def missing_choices(role: str, kind: str) -> tuple[str, ...]:
    """The choices for a column's empty cells that make sense for its role and kind: a record
    without a label (or without a members flag) cannot be a training example, so those rows are
    left out or the file refused; a median needs numbers, a category of its own needs
    categories."""
    if role in ("label", "member"):
        return ("drop_rows", "error")
    if role == "ignore":
        return MISSING_CHOICES
    if kind == "numeric":
        return ("median", "most_frequent", "drop_rows", "error")
    return ("own_category", "most_frequent", "drop_rows", "error")


def default_missing(role: str, kind: str) -> str:
    """The defaults that let a typical table run without editing (issue 21): a categorical
    feature treats "missing" as a category of its own (the usual choice for survey data), a
    numeric feature is filled with its median plus a "was missing" feature, and a record with
    an empty label or members flag is left out."""
    if role in ("label", "member"):
        return "drop_rows"
    return "own_category" if kind == "categorical" else "median"


def _missing_what(role: str, kind: str) -> str:
    if role == "label":
        return "the label"
    if role == "member":
        return "the members column"
    return f"a {kind} feature"


def _fit_missing(c: TabularColumn) -> TabularColumn:
    """``c`` with a missing-values choice that fits its (new) role and kind: one that no
    longer applies goes back to the default."""
    if c.missing and c.missing not in missing_choices(c.role, c.kind):
        c = replace(c, missing="")
    if c.indicator is not None and not (c.role == "feature" and c.kind == "numeric"):
        c = replace(c, indicator=None)
    return c


# --------------------------------------------------------------------------- schema

@dataclass(frozen=True)
class TabularSchema:
    """The columns of a training-data CSV, in file order: exactly one label, at most one
    members column, at least one feature."""

    columns: tuple[TabularColumn, ...]

    def __post_init__(self) -> None:
        cols = schema_columns(self.columns)
        labels = [c.name for c in cols if c.role == "label"]
        if not labels:
            raise InputError("No column is the label; set the role of the column the model "
                             "predicts to Label.", key="role")
        if len(labels) > 1:
            raise InputError(f"Columns {', '.join(repr(n) for n in labels)} are all labels; a "
                             f"model predicts one — keep one and make the others features or "
                             f"'ignore'.", key=labels[1])
        members = [c.name for c in cols if c.role == "member"]
        if len(members) > 1:
            raise InputError(f"Columns {', '.join(repr(n) for n in members)} are all members "
                             f"columns; keep one and set the others to 'ignore'.",
                             key=members[1])
        if not any(c.role == "feature" for c in cols):
            raise InputError("No column is a feature, so the model would have no input; set "
                             "the role of the columns it may use to 'feature'.", key="role")
        object.__setattr__(self, "columns", cols)

    # ----------------------------------------------------------------- lookups

    @property
    def names(self) -> tuple[str, ...]:
        return tuple(c.name for c in self.columns)

    def column(self, name: str) -> TabularColumn:
        for c in self.columns:
            if c.name == name:
                return c
        raise KeyError(f"no column {name!r}; columns: {', '.join(self.names)}")

    @property
    def label(self) -> str:
        return next(c.name for c in self.columns if c.role == "label")

    @property
    def member_column(self) -> str | None:
        return next((c.name for c in self.columns if c.role == "member"), None)

    @property
    def features(self) -> tuple[str, ...]:
        return tuple(c.name for c in self.columns if c.role == "feature")

    @property
    def class_labels(self) -> tuple[str, ...]:
        """The label's classes in code order (empty until read from data)."""
        return self.column(self.label).categories

    def encoded_names(self) -> tuple[str, ...]:
        """Names of the columns of X: ``"age"`` for a number, ``"sex=F"`` for a category."""
        return tuple(n for c in self.columns for n in c.encoded_names())

    @property
    def n_encoded(self) -> int:
        """d: the number of columns of X."""
        return sum(c.width for c in self.columns)

    # ----------------------------------------------------------------- edits

    def with_column(self, name: str, **changes) -> TabularSchema:
        """A copy with column ``name`` changed (e.g. ``role="ignore"``, ``kind="categorical"``).

        Changing the kind drops what belonged to the old kind (categories, fitted scaling)."""
        if name not in self.names:
            raise InputError(f"There is no column '{name}'{did_you_mean(name, self.names)}; "
                             f"columns: {', '.join(self.names)}.", key=name)
        old = self.column(name)
        if "kind" in changes and changes["kind"] != old.kind:
            changes.setdefault("categories", ())
            changes.setdefault("mean", None)
            changes.setdefault("sd", None)
            changes.setdefault("fill", None)
        if changes.get("role") == "label" and "categories" not in changes \
                and old.kind == "numeric":
            changes["categories"] = ()
        if "missing" not in changes and ("role" in changes or "kind" in changes):
            trial = replace(old, **{k: v for k, v in changes.items()
                                    if k in ("role", "kind")}, missing="", indicator=None)
            if old.missing not in ("",) + missing_choices(trial.role, trial.kind):
                changes["missing"] = ""
            if trial.role != "feature" or trial.kind != "numeric":
                changes.setdefault("indicator", None)
        new = replace(old, **changes)
        return TabularSchema(tuple(new if c.name == name else c for c in self.columns))

    def with_roles(self, *, label: str | None = None,
                   member: str | None = None) -> TabularSchema:
        """A copy with ``label`` as the label and/or ``member`` as the members column; the
        column that held that role before becomes a feature (label) or is ignored (members)."""
        s = self
        for wanted, role in ((label, "label"), (member, "member")):
            if wanted is None:
                continue
            if wanted not in s.names:
                raise InputError(f"There is no column '{wanted}'"
                                 f"{did_you_mean(wanted, s.names)}; columns: "
                                 f"{', '.join(s.names)}.", key=wanted)
            if s.column(wanted).role == role:
                continue
            cols = []
            for c in s.columns:
                if c.name == wanted:
                    cats = c.categories if (role == "label" and c.kind == "categorical") else ()
                    cols.append(_fit_missing(replace(
                        c, role=role, kind="categorical" if role == "label" else c.kind,
                        categories=cats, mean=None, sd=None, missing="", fill=None)))
                elif c.role == role:
                    cols.append(_fit_missing(replace(
                        c, role="feature" if role == "label" else "ignore", missing="")))
                else:
                    cols.append(c)
            s = TabularSchema(tuple(cols))
        return s

    def unfitted(self) -> TabularSchema:
        """A copy without fitted scaling and fill values (to fit them again on other data)."""
        return TabularSchema(tuple(replace(c, mean=None, sd=None, fill=None)
                                   for c in self.columns))

    # ----------------------------------------------------------------- saving

    def to_dict(self) -> dict:
        return {"schema_version": SCHEMA_VERSION, "columns": [c.to_dict() for c in self.columns]}

    @classmethod
    def from_dict(cls, d: Mapping, source: str = "the schema") -> TabularSchema:
        """Rebuild a schema saved with :meth:`to_dict` (e.g. in a project file); every problem
        becomes one sentence naming ``source`` and the key."""
        return schema_from_dict(
            d, source, column_keys=_COLUMN_KEYS, version=SCHEMA_VERSION, make_schema=cls,
            make_column=lambda c: TabularColumn(
                name=c["name"], role=c.get("role", "feature"),
                kind=c.get("kind", "numeric"), categories=c.get("categories", ()),
                scale=c.get("scale", True), mean=c.get("mean"), sd=c.get("sd"),
                missing=c.get("missing", ""), indicator=c.get("indicator"),
                fill=c.get("fill")))


# --------------------------------------------------------------------------- data

@dataclass(frozen=True, eq=False)
class TabularData:
    """A model's training data, encoded (``eq=False``: arrays do not compare as bools).

    ``X[i]`` is record i's encoded features (one-hot categories, standardised numbers),
    ``y[i]`` its class code (``class_labels[y[i]]``), ``rows[i]`` its row in the CSV (header =
    row 1) and ``member[i]`` whether the model is trained on it (None until a members column or
    :func:`split_members` says).
    """

    X: np.ndarray                         # (n, d) float32
    y: np.ndarray                         # (n,) int64 codes into class_labels
    class_labels: tuple[str, ...]
    feature_names: tuple[str, ...]        # (d,) encoded names, e.g. "age", "sex=F"
    rows: np.ndarray                      # (n,) int64 CSV rows (header = row 1)
    member: np.ndarray | None             # (n,) bool, or None when not known yet
    schema: TabularSchema
    source: str = ""                      # file name or generator description, for messages
    ids: np.ndarray | None = None         # (n,) object record ids (the id column), or None
    # What was done with empty cells (:func:`missing_values_sentence` says it in words); None
    # when no column the model uses had any.
    missing_values: dict | None = None

    def __post_init__(self) -> None:
        X = np.asarray(self.X, dtype=np.float32)
        if X.ndim != 2:
            raise ValueError(f"TabularData.X must be 2-D, got shape {X.shape}")
        n, d = X.shape
        y = np.asarray(self.y, dtype=np.int64)
        rows = np.asarray(self.rows, dtype=np.int64)
        if y.shape != (n,) or rows.shape != (n,):
            raise ValueError(f"y and rows must have shape ({n},), got {y.shape} and {rows.shape}")
        labels = tuple(str(c) for c in self.class_labels)
        if n and (y.min() < 0 or y.max() >= len(labels)):
            raise ValueError(f"y must lie in 0..{len(labels) - 1}")
        names = tuple(self.feature_names)
        if len(names) != d:
            raise ValueError(f"{len(names)} feature names for {d} columns of X")
        member = None if self.member is None else np.asarray(self.member, dtype=bool)
        if member is not None and member.shape != (n,):
            raise ValueError(f"member must have shape ({n},), got {member.shape}")
        ids = None if self.ids is None else np.asarray(self.ids, dtype=object)
        if ids is not None and ids.shape != (n,):
            raise ValueError(f"ids must have shape ({n},), got {ids.shape}")
        object.__setattr__(self, "X", X)
        object.__setattr__(self, "y", y)
        object.__setattr__(self, "rows", rows)
        object.__setattr__(self, "class_labels", labels)
        object.__setattr__(self, "feature_names", names)
        object.__setattr__(self, "member", member)
        object.__setattr__(self, "ids", ids)

    def __repr__(self) -> str:
        m = "" if self.member is None else f", {int(self.member.sum())} members"
        return (f"TabularData({self.n_records} records × {self.n_features} features, "
                f"{self.n_classes} classes{m}, source={self.source!r})")

    @property
    def n_records(self) -> int:
        return int(self.X.shape[0])

    def __len__(self) -> int:
        return self.n_records

    @property
    def n_features(self) -> int:
        """d: encoded features (columns of X)."""
        return int(self.X.shape[1])

    @property
    def n_classes(self) -> int:
        return len(self.class_labels)

    def subset(self, rows: Sequence[int] | np.ndarray) -> TabularData:
        """The records at ``rows`` (positions or a boolean mask), in that order; the schema
        (and its fitted scaling) is kept."""
        idx = np.asarray(rows)
        if idx.dtype == bool:
            idx = np.flatnonzero(idx)
        idx = idx.astype(np.int64, copy=False)
        return replace(self, X=self.X[idx], y=self.y[idx], rows=self.rows[idx],
                       member=None if self.member is None else self.member[idx],
                       ids=None if self.ids is None else self.ids[idx])

    def with_member(self, member: np.ndarray | None) -> TabularData:
        """A copy with other membership flags (X unchanged; see :func:`split_members` to refit
        the scaling as well)."""
        return replace(self, member=member)


# --------------------------------------------------------------------------- reading

def read_table(p: str, *, max_cells: int | None = None,
               n_features: int | None = None) -> pd.DataFrame:
    """Read a CSV with a header row into a DataFrame with pandas' own column types (numbers
    are parsed natively, which keeps wide files small in memory); empty cells are NaN, other
    text is kept as written, stripped. The index is the data line (row = index + 2); blank
    lines are dropped without renumbering. ``max_cells`` with ``n_features`` (a lower bound on
    the encoded width) refuses a file too big for memory before it is parsed."""
    inp = read_text(p, sniff=True, empty="the file is empty; it needs a header row naming "
                                          "the columns and one row per record.")
    text = inp.text.lstrip("\n")
    header = header_names(inp, skipinitialspace=True)
    check_header(p, header)
    if max_cells is not None:
        lines = text.count("\n") + (not text.endswith("\n")) - 1
        width = len(header) - 2 if n_features is None else n_features
        if lines * max(width, 1) > max_cells:
            raise InputError(_too_big(p, lines, width, max_cells, (), exact=False), source=p,
                             key="max_cells")
    opts = dict(keep_default_na=False, na_values=[""], skip_blank_lines=False, index_col=False,
                skipinitialspace=True, low_memory=False, sep=inp.delimiter)
    df = parse_csv(p, text, header, **opts)
    del text
    for name in df.columns:
        s = df[name]
        if s.dtype == object or pd.api.types.is_string_dtype(s.dtype):
            t = s.astype(str).str.strip()
            df[name] = t.where((t != "") & s.notna().to_numpy(), np.nan)
    df = df[~df.isna().all(axis=1).to_numpy()]
    check_repeated_header(p, df, header)
    if df.empty:
        raise InputError(f"{p}: has a header but no data rows; add one row per record below the "
                         f"header.", source=p)
    return df





def _mostly_numbers(s: pd.Series) -> bool:
    """True when a text column is numbers with at most a stray word or missing-value marker
    (at most 1 % of the rows, at least one allowed): a typo to report, not a category."""
    vals = s.dropna()
    if vals.empty:
        return False
    num = pd.to_numeric(vals.astype(str), errors="coerce")
    bad = vals[num.isna() | ~np.isfinite(num.to_numpy(dtype=float, na_value=np.nan))]
    local = bad.astype(str).map(localized_number).to_numpy(dtype=bool)
    if local.any() and (local | bad.astype(str).str.strip().str.lower().isin(NUMBER_MARKS)
                        .to_numpy(dtype=bool)).all():
        return True                 # 1,5 or 1 000: numbers in a locale's writing, named at load
    words = (~bad.astype(str).str.strip().str.lower().isin(NUMBER_MARKS)).sum()
    # Missing-value markers are gaps (issue 21: 'NA' in 40 % of an income column is still a
    # column of numbers), not words against the numbers.
    return bool(num.notna().any() and num.notna().sum() >= 2 * words
                and words <= max(1, len(vals) // 100))


# --------------------------------------------------------------------------- inference


def infer_tabular_schema(df_or_path: pd.DataFrame | str | Path, label: str | None = None, *,
                         member_column: str | None = None,
                         max_categories: int = DEFAULT_MAX_CATEGORIES) -> TabularSchema:
    """Guess each column's role and kind from a CSV file or a DataFrame.

    * the label is ``label`` when given, else the column named label / class / target / y (any
      case); with none of these the user must choose it (a sentence says so);
    * the members column is ``member_column``, else a column named member / members /
      is_member / in_training (its values are checked at load: 0 or 1);
    * numbers → ``numeric`` features, standardised, except 0/1 columns, kept as they are;
      a column of numbers with a stray word stays numeric so the load names the bad cell;
    * text with at most ``max_categories`` distinct values → ``categorical`` (one-hot), sorted
      as a person would ("2" before "10");
    * ids (unique in every row: named like "id" / "*_id", or ≥ 20 rows of distinct texts or
      consecutive integers) and text with more distinct values → ``ignore``.

    Nothing is fitted here: scaling is fitted on the training part when the data are loaded.
    """
    if isinstance(df_or_path, pd.DataFrame):
        df, p = df_or_path.reset_index(drop=True), "the table"
    else:
        p = str(df_or_path)
        df = read_table(p)
    return _infer(df, p, label, member_column, max_categories)


def _find_column(p: str, df: pd.DataFrame, wanted: str, what: str) -> str:
    found = [str(c) for c in df.columns]
    if wanted in found:
        return wanted
    lower = {c.lower(): c for c in found}
    if wanted.lower() in lower:
        return lower[wanted.lower()]
    raise InputError(f"{p}: the {what} column '{wanted}' is not in the file"
                     f"{did_you_mean(wanted, found)}; choose one of the columns found "
                     f"({column_names(found)}) or rename the column.",
                     source=p if p != "the table" else None, key=wanted)


def _infer(df: pd.DataFrame, p: str, label: str | None, member_column: str | None,
           max_categories: int) -> TabularSchema:
    names = [str(c) for c in df.columns]
    src = p if p != "the table" else None
    if label is not None:
        label = _find_column(p, df, label, "label")
    else:
        lower = {c.lower(): c for c in reversed(names)}
        label = next((lower[n] for n in LABEL_NAMES if n in lower), None)
        if label is None:
            raise InputError(f"{p}: no column is named {', '.join(LABEL_NAMES[:-1])} or "
                             f"{LABEL_NAMES[-1]}, so the label (the column the model predicts) "
                             f"is not known; choose it among the columns found ({column_names(names)}).",
                             source=src, key="label")
    if member_column is not None:
        member_column = _find_column(p, df, member_column, "members")
    else:
        lower = {c.lower(): c for c in reversed(names)}
        member_column = next((lower[n] for n in MEMBER_NAMES if n in lower and lower[n] != label),
                             None)
    if member_column == label:
        raise InputError(f"{p}: column '{label}' cannot be both the label and the members "
                         f"column; choose another label or members column.", source=src,
                         key=label)
    n = len(df)
    cols = []
    for name in names:
        s = df[name]
        if name == label:
            vals = s.dropna()
            # 'NA', '?', … are gaps of the label (engine.data.gaps), never a class.
            cats = sorted({t for t in as_text(vals) if t.lower() not in TEXT_MARKS},
                          key=natural_key)
            cols.append(TabularColumn(name, "label", "categorical", tuple(cats)))
            continue
        if name == member_column:
            cols.append(TabularColumn(name, "member", "numeric", scale=False))
            continue
        cols.append(_infer_feature(name, s, n, max_categories))
    try:
        return TabularSchema(tuple(cols))
    except InputError as exc:       # e.g. no feature left: the sentence names the file
        raise InputError(f"{p}: {exc}", source=src, key=exc.key) from None


def _infer_feature(name: str, s: pd.Series, n: int, max_categories: int) -> TabularColumn:
    vals = s.dropna()
    named_id = bool(ID_NAME.search(name))
    numeric = pd.api.types.is_numeric_dtype(s.dtype) or pd.api.types.is_bool_dtype(s.dtype)
    if not numeric and not vals.empty and _mostly_numbers(vals):
        numeric = True
    if numeric:
        v = numbers(vals).to_numpy()
        v = v[np.isfinite(v)]
        if v.size == n >= 2:
            whole = bool((v == np.round(v)).all())
            # Row numbers / ids: unique integers 1..n (or a column named like an id).
            if (named_id or (whole and v.max() - v.min() + 1 == n and n >= _ID_ROWS)) \
                    and np.unique(v).size == n:
                return TabularColumn(name, "ignore", "numeric")
        binary = bool(v.size) and bool(np.isin(v, (0.0, 1.0)).all())
        return TabularColumn(name, "feature", "numeric", scale=not binary)
    n_unique = int(vals.nunique())
    if n_unique == n and n >= 2 and (named_id or n >= _ID_ROWS):
        return TabularColumn(name, "ignore", "categorical")
    if n_unique > max_categories:
        return TabularColumn(name, "ignore", "categorical")
    # 'NA', '?', … are gaps here (_gaps_and_marks), not categories: "missing" stands for them.
    cats = sorted({t for t in as_text(vals) if t.lower() not in CATEGORY_GAP_MARKERS},
                  key=natural_key)
    return TabularColumn(name, "feature", "categorical", tuple(cats))


# --------------------------------------------------------------------------- loading

def load_tabular_csv(path: str | Path, schema: TabularSchema | None = None, *,
                     label: str | None = None, member_column: str | None = None,
                     id_column: str | None = None, max_cells: int = MAX_CELLS) -> TabularData:
    """Load a model's training data from a CSV (one record per row, a header row).

    Without a ``schema`` it is inferred (:func:`infer_tabular_schema`, with ``label`` and
    ``member_column`` when given); with one, ``label`` / ``member_column`` (if given) move those
    roles (:meth:`TabularSchema.with_roles`), every schema column must be in the file and every
    file column in the schema. ``id_column`` names a column whose values identify the records
    (kept in :attr:`TabularData.ids`, to match a predictions file by id). ``max_cells`` refuses
    data whose X (records × encoded features, float32) would not fit: 500 million cells = 2 GB.
    The returned schema holds the fitted scaling and the classes, ready to save.
    """
    p = str(path)
    max_cells = _check_max_cells(max_cells, p)
    width = None
    if schema is not None:
        width = sum(max(c.width, 1) for c in schema.columns if c.role == "feature")
    df = read_table(p, max_cells=max_cells, n_features=width)
    return _from_frame(p, df, schema, label=label, member_column=member_column,
                       id_column=id_column, max_cells=max_cells, source=p)


def tabular_from_frame(df: pd.DataFrame, schema: TabularSchema | None = None, *,
                       label: str | None = None, member_column: str | None = None,
                       id_column: str | None = None, max_cells: int = MAX_CELLS,
                       source: str = "") -> TabularData:
    """:func:`load_tabular_csv` for a DataFrame; rows are numbered as the frame would be in a
    CSV (header row 1, first record row 2) and errors name ``source`` ("the table" if empty)."""
    p = source or "the table"
    max_cells = _check_max_cells(max_cells, p)
    df = df.reset_index(drop=True)
    df.columns = [str(c).strip() for c in df.columns]
    if df.empty:
        raise InputError(f"{p}: has no records; add one row per record.", source=source or None)
    return _from_frame(p, df, schema, label=label, member_column=member_column,
                       id_column=id_column, max_cells=max_cells, source=source)


def _check_max_cells(max_cells, p: str) -> int:
    if isinstance(max_cells, bool) or not isinstance(max_cells, int | np.integer) \
            or max_cells < 1:
        raise InputError(f"The most cells to read must be a whole number of at least 1, got "
                         f"{given_value(max_cells)}.", key="max_cells", source=p,
                         setting="max_cells")
    return int(max_cells)


def _size_text(n_bytes: float) -> str:
    for unit, scale in (("GB", 1e9), ("MB", 1e6), ("kB", 1e3)):
        if n_bytes >= scale:
            return f"{n_bytes / scale:,.1f} {unit}"
    return f"{n_bytes:,.0f} bytes"


def _too_big(p: str, n: int, d: int, max_cells: int, widest: Sequence[tuple[str, int]], *,
             exact: bool) -> str:
    size = (f"{n:,} records × {d:,} encoded features" if exact else
            f"about {n:,} records × at least {d:,} features")
    wide = ""
    if widest:
        wide = " (the widest: " + ", ".join(f"'{c}' with {k:,} categories"
                                             for c, k in widest) + ")"
    return (f"{p}: {size} would take {_size_text(n * d * BYTES_PER_CELL)} as float32, above the "
            f"limit of {_size_text(max_cells * BYTES_PER_CELL)} (max_cells = {max_cells:,} "
            f"cells); drop columns (set their role to 'ignore'), use fewer categories{wide}, "
            f"load fewer records, or raise max_cells if the computer has the memory.")


def _from_frame(p: str, df: pd.DataFrame, schema: TabularSchema | None, *, label, member_column,
                id_column, max_cells: int, source: str) -> TabularData:
    src = source or None
    if schema is None:
        schema = _infer(df, p, label, member_column, DEFAULT_MAX_CATEGORIES)
    else:
        _check_columns(p, df, schema, src)
        schema = schema.with_roles(label=label, member=member_column)
    if id_column is not None:
        id_column = _find_column(p, df, id_column, "id")
    df = df[list(schema.names)] if list(df.columns) != list(schema.names) else df
    if id_column is not None:
        _check_no_empty(p, df, [id_column], src)
        _check_no_id_marks(p, df, id_column, src)
    df, schema, gaps = _handle_gaps(p, df, schema, src)
    index = df.index.to_numpy()
    n = len(df)

    # -- label
    lab = schema.column(schema.label)
    y, classes = _code_label(p, df[lab.name], lab, index, src)
    # -- members
    member = None
    if schema.member_column is not None:
        member = code_member(p, df[schema.member_column], schema.member_column, index,
                             source=src, both_fix=_BOTH_FIX)
    # -- ids
    ids = None
    if id_column is not None:
        ids = as_text(df[id_column])
        check_unique_ids(p, ids, id_column, index, src)

    # -- categories of the features, then the memory guard (before X is allocated)
    cols = []
    texts: dict[str, np.ndarray] = {}
    for c in schema.columns:
        if c.role == "feature" and c.kind == "categorical":
            t = as_text(df[c.name])
            texts[c.name] = t
            if not c.categories:
                c = replace(c, categories=tuple(sorted(set(t), key=natural_key)))
        elif c.role == "label":
            c = replace(c, categories=classes)
        cols.append(c)
    d = sum(c.width for c in cols)
    if n * d > max_cells:
        widest = sorted(((c.name, len(c.categories)) for c in cols
                         if c.role == "feature" and c.kind == "categorical"),
                        key=lambda t: -t[1])[:2]
        raise InputError(_too_big(p, n, d, max_cells, [w for w in widest if w[1] > 1],
                                  exact=True), source=src, key="max_cells")

    # -- encode
    indicators = [(k, c) for k, c in enumerate(cols) if c.has_indicator]
    X = np.zeros((n, d), dtype=np.float32)
    train = member if member is not None else np.ones(n, dtype=bool)
    offsets = np.cumsum([0] + [c.width for c in cols])
    numeric = [(k, c) for k, c in enumerate(cols) if c.role == "feature" and c.kind == "numeric"]
    fitted: dict[str, tuple[float, float]] = {}
    for start in range(0, len(numeric), _CHUNK):
        chunk = numeric[start:start + _CHUNK]
        block = _numeric_block(p, df, [c for _, c in chunk], index, src)
        scale = np.array([c.scale for _, c in chunk])
        mean = np.array([c.mean if c.mean is not None else np.nan for _, c in chunk])
        sd = np.array([c.sd if c.sd is not None else np.nan for _, c in chunk])
        need = scale & np.isnan(mean)
        if need.any():
            part = block[:, need]
            part = part if member is None else part[train]
            # Values near the largest float (1e308) overflow the variance's squares: measure
            # such columns in units of their largest value, so their spread stays finite.
            unit = np.abs(part).max(axis=0, initial=0.0)
            unit = np.where(unit > _HUGE, unit, 1.0)
            if (unit > 1.0).any():
                part = part / unit
            spread = part.std(axis=0) * unit
            mean[need] = part.mean(axis=0) * unit
            sd[need] = np.where(spread > 0, spread, 1.0)   # a constant column stays 0
        if scale.any():
            block[:, scale] = (block[:, scale] - mean[scale]) / sd[scale]
        _check_float32(p, df, [c for _, c in chunk], block, index, src)
        pos = offsets[[k for k, _ in chunk]]
        if (np.diff(pos) == 1).all():                 # adjacent columns: a fast slice
            X[:, pos[0]:pos[0] + pos.size] = block
        else:
            X[:, pos] = block
        for (_, c), m, v in zip(chunk, mean, sd, strict=True):
            if c.scale:
                fitted[c.name] = (float(m), float(v))
    for k, c in indicators:                 # the "was missing" 0/1 feature after the value
        X[:, offsets[k] + 1] = gaps["indicators"][c.name]
    rows_n = np.arange(n)
    for k, c in enumerate(cols):
        if c.role == "feature" and c.kind == "categorical":
            codes = _code_categories(p, texts[c.name], c, index, src)
            X[rows_n, offsets[k] + codes] = 1.0
    cols = [replace(c, mean=fitted[c.name][0], sd=fitted[c.name][1]) if c.name in fitted else c
            for c in cols]
    fitted_schema = TabularSchema(tuple(cols))
    return TabularData(X=X, y=y, class_labels=classes,
                       feature_names=fitted_schema.encoded_names(),
                       rows=(index + 2).astype(np.int64), member=member, schema=fitted_schema,
                       source=Path(source).name if source else "", ids=ids,
                       missing_values=gaps["report"])


def _check_columns(p: str, df: pd.DataFrame, schema: TabularSchema, src) -> None:
    found = [str(c) for c in df.columns]
    missing = [n for n in schema.names if n not in found]
    if missing:
        n = missing[0]
        raise InputError(f"{p}: column '{n}' of the schema is missing"
                         f"{did_you_mean(n, found)}; columns found: {column_names(found)} — rename "
                         f"the column in the file or in the schema.", source=src, key=n)
    extra = [n for n in found if n not in schema.names]
    if extra:
        n = extra[0]
        raise InputError(f"{p}: column '{n}' is not in the schema"
                         f"{did_you_mean(n, schema.names)}; add it to the schema (role "
                         f"'ignore' if the model should not use it) or remove it from the file.",
                         source=src, key=n)


def _gaps_and_marks(df: pd.DataFrame, schema: TabularSchema
                    ) -> dict[str, tuple[np.ndarray, dict[str, int]]]:
    """Each used column's gap mask and the missing-value marks among its gaps (as written,
    with counts), by the one rule of engine.data.gaps: a number column (numeric feature,
    members flag) reads 'NA', 'None', '-', '.', '?', … as gaps; the label and a categorical
    feature read 'NA', 'N/A', 'NaN', 'null', '?' as gaps unless the schema lists them
    (issue 31 item 10: an 'NA' label was a class of 200 records, silently)."""
    out = {}
    for c in schema.columns:
        if c.role == "ignore":
            continue
        s = df[c.name]
        number = c.role == "member" or (c.role == "feature" and c.kind == "numeric")
        mark = mark_mask(s, "number" if number else "text", () if number else c.categories)
        out[c.name] = (s.isna().to_numpy() | mark, mark_counts(s, mark))
    return out


def _handle_gaps(p: str, df: pd.DataFrame, schema: TabularSchema,
                 src) -> tuple[pd.DataFrame, TabularSchema, dict]:
    """Apply each used column's missing-values choice (issue 21) before anything is coded.

    Every column with gaps is found first, so that "error" names them all in one sentence
    with counts. Then the rows with a gap in a "drop_rows" column (the label's by default) are
    left out, and the remaining gaps are filled with scikit-learn's ``SimpleImputer`` (median,
    most frequent value, or the constant category "missing") and flagged with its
    ``MissingIndicator``. The statistics are fitted on every record left in the table given,
    before any member / non-member split: the audited model in production was trained on its
    own data with its own preprocessing, so the audit's stand-in prepares the table once, and
    the audited, shadow, reference and defended models all train on that same design matrix.
    Returns the table, the schema with indicators and the "missing" category resolved, and
    ``{"report": dict | None, "indicators": {column: (n,) float32}}``."""
    found = _gaps_and_marks(df, schema)
    masks = {name: gap for name, (gap, _) in found.items()}
    marks = {name: m for name, (_, m) in found.items() if m}
    counts = {name: int(m.sum()) for name, m in masks.items()}
    with_gaps = [c for c in schema.columns if counts.get(c.name)]
    n_read = len(df)
    # "Add an indicator when the data has gaps" becomes yes for a column with gaps, so that
    # the schema returned (and saved) says which columns X holds.
    cols = [replace(c, indicator=True)
            if c.role == "feature" and c.kind == "numeric" and counts.get(c.name)
            and c.missing_choice in ("median", "most_frequent") and c.indicator is None
            else c for c in schema.columns]
    if not with_gaps:
        zeros = {c.name: np.zeros(n_read, dtype=np.float32) for c in cols if c.has_indicator}
        return df, TabularSchema(tuple(cols)), {"report": None, "indicators": zeros}
    from sklearn.impute import MissingIndicator, SimpleImputer  # only for a table with gaps

    refuse = [c for c in with_gaps if c.missing_choice == "error"]
    if refuse:
        raise InputError(with_marks(_gaps_refused(p, refuse, with_gaps, counts, masks,
                                                  df.index),
                                    {c.name: marks[c.name] for c in refuse if c.name in marks}),
                         source=src, key=refuse[0].name)
    whole = [c for c in with_gaps if counts[c.name] == n_read and c.fill is None
             and c.missing_choice in ("median", "most_frequent")]
    if whole:
        c = whole[0]
        raise InputError(f"{p}: column '{c.name}' is empty in all {n_read:,} records, so there "
                         f"is nothing to learn from it or to fill it with; set its role to "
                         f"'ignore'.", source=src, key=c.name)
    drop = np.zeros(n_read, dtype=bool)
    for c in with_gaps:
        if c.missing_choice == "drop_rows":
            drop |= masks[c.name]
    if drop.all():
        names = ", ".join(f"'{c.name}'" for c in with_gaps if c.missing_choice == "drop_rows")
        raise InputError(f"{p}: every one of the {n_read:,} records has an empty cell in "
                         f"{names}, whose empty cells leave the record out, so no record is "
                         f"left; fill the cells in, or choose another way to handle them for "
                         f"the features (their median, most frequent value or a category of "
                         f"their own).", source=src, key=with_gaps[0].name)
    if drop.any():
        keep = ~drop
        df = df[keep].copy(deep=False)
        masks = {name: m[keep] for name, m in masks.items()}
    else:
        df = df.copy(deep=False)      # filled columns are replaced, never written in place
    indicators: dict[str, np.ndarray] = {}
    entries = []
    for k, c in enumerate(cols):
        if c.name not in counts or not counts[c.name]:
            continue
        choice = c.missing_choice
        entry = {"column": c.name, "role": c.role, "kind": c.kind, "empty_cells": counts[c.name],
                 "action": choice}
        if marks.get(c.name):
            entry["marks"] = marks[c.name]     # {'NA': 12}: missing-value marks among them
        gap = masks[c.name]
        if choice == "drop_rows" or not gap.any():
            entries.append(entry)
            continue
        if gap.all() and c.fill is None and choice != "own_category":
            # its only values were in records left out
            raise InputError(f"{p}: column '{c.name}' is empty in every record kept "
                             f"({len(df):,}), so there is nothing to fill it with; set its "
                             f"role to 'ignore'.", source=src, key=c.name)
        s = df[c.name]
        if c.kind == "numeric":
            values = numbers(s).to_numpy()
            values = np.where(np.isfinite(values) & ~gap, values, np.nan)
            if c.fill is None:
                imputer = SimpleImputer(strategy=choice).fit(values.reshape(-1, 1))
                fill = float(imputer.statistics_[0])
            else:                     # fitted on the training table (a saved schema)
                fill = float(c.fill)
            cols[k] = replace(cols[k], fill=fill)
            filled = s.astype(object).where(~gap, fill) if s.dtype == object else \
                s.where(~gap, fill)
            df[c.name] = filled
            entry["filled_with"] = fill
            if c.has_indicator:
                flag = MissingIndicator(features="all").fit_transform(
                    np.where(gap, np.nan, 0.0).reshape(-1, 1))[:, 0]
                indicators[c.name] = flag.astype(np.float32)
            entry["indicator"] = c.has_indicator
        else:
            text = np.full(len(s), np.nan, dtype=object)
            text[~gap] = as_text(s[~gap])
            given = c.fill is not None and choice == "most_frequent"
            strategy = "constant" if choice == "own_category" or given else "most_frequent"
            imputer = SimpleImputer(missing_values=np.nan, strategy=strategy,
                                    fill_value=c.fill if given else MISSING_CATEGORY
                                    ).fit(text.reshape(-1, 1))
            text = imputer.transform(text.reshape(-1, 1))[:, 0]
            df[c.name] = pd.Series(text, index=df.index, dtype=object)
            fill = str(imputer.statistics_[0])
            entry["filled_with"] = fill
            if c.categories and fill not in c.categories:
                cols[k] = replace(cols[k], categories=(*c.categories, fill))
            if choice == "most_frequent":
                cols[k] = replace(cols[k], fill=fill)
        entries.append(entry)
    for c in cols:       # a column without gaps in the data: no indicator
        if c.has_indicator and c.name not in indicators:
            indicators[c.name] = np.zeros(len(df), dtype=np.float32)
    report = {"empty_cells": int(sum(counts.values())), "columns": len(with_gaps),
              "records_read": n_read, "records_left_out": int(drop.sum()),
              "fitted_on": "every record kept from the file, before the training / test split",
              "per_column": entries}
    report["sentence"] = missing_values_sentence(report)
    return df, TabularSchema(tuple(cols)), {"report": report, "indicators": indicators}


def _gaps_refused(p: str, refuse: Sequence[TabularColumn], with_gaps: Sequence[TabularColumn],
                  counts: Mapping[str, int], masks: Mapping[str, np.ndarray], index) -> str:
    """One sentence naming every column whose empty cells refuse the file, with counts and the
    first row of each (issue 21: one column per round made the user give up columns)."""
    parts = []
    for c in refuse:
        first = spreadsheet_row(index[int(np.flatnonzero(masks[c.name])[0])])
        parts.append(f"'{c.name}' {counts[c.name]:,} (first in row {first})")
    total = sum(counts[c.name] for c in refuse)
    other = len(with_gaps) - len(refuse)
    also = (f" ({other} other column{'s' if other != 1 else ''} with empty cells "
            f"{'are' if other != 1 else 'is'} handled as chosen)" if other else "")
    return (f"{p}: {total:,} empty cell{'s' if total != 1 else ''} in {len(refuse)} "
            f"column{'s' if len(refuse) != 1 else ''} set to refuse them — "
            f"{', '.join(parts)}{also}; fill them in, or choose for each column what to do "
            f"with its empty cells (fill with the median or the most frequent value, treat "
            f"'missing' as a category of its own, or leave those rows out), or set the "
            f"column's role to 'ignore'.")


_ACTION_WORDS = {
    "median": "filled with the column's median",
    "most_frequent": "filled with the column's most frequent value",
    "own_category": f"given a category of their own ('{MISSING_CATEGORY}')",
}


def missing_values_sentence(report: Mapping) -> str:
    """What was done with the empty cells, in one sentence for the summary and the report,
    e.g. "455 empty cells in 6 columns were handled before training: 'Income' (381) filled
    with the column's median plus a feature saying the value was missing; …; the audited
    model and every model compared with it are trained on the table prepared this way."
    """
    groups: dict[str, list[str]] = {}
    indicator = False
    for e in report["per_column"]:
        groups.setdefault(e["action"], []).append(f"'{e['column']}' ({e['empty_cells']:,})")
        indicator |= bool(e.get("indicator"))
    parts = []
    for action in ("median", "most_frequent", "own_category"):
        if action in groups:
            text = f"{', '.join(groups[action])} {_ACTION_WORDS[action]}"
            if action != "own_category" and indicator and any(
                    e.get("indicator") for e in report["per_column"] if e["action"] == action):
                text += " plus a feature saying the value was missing"
            parts.append(text)
    if "drop_rows" in groups:
        left = report["records_left_out"]
        dropped = [e for e in report["per_column"] if e["action"] == "drop_rows"]
        # One column: its count is the number of records, said once (issue 31 item 12).
        where = (f"'{dropped[0]['column']}'" if len(dropped) == 1 else
                 "cell in " + " or ".join(groups["drop_rows"]))
        parts.append(f"the {left:,} record{'s' if left != 1 else ''} with an empty {where} "
                     f"left out")
    cells, k = report["empty_cells"], report["columns"]
    marks = {e["column"]: e["marks"] for e in report["per_column"] if e.get("marks")}
    return with_marks(f"{cells:,} empty cell{'s' if cells != 1 else ''} in {k} column"
                      f"{'s' if k != 1 else ''} were handled before training: {'; '.join(parts)}"
                      f" — the audited model and every model compared with it are trained on "
                      f"the table prepared this way.", marks)


def _check_no_empty(p: str, df: pd.DataFrame, used: Sequence[str], src) -> None:
    if not used:
        return
    empty = df[list(used)].isna().to_numpy()
    if empty.any():
        r, j = np.argwhere(empty)[0]
        name = used[j]
        raise InputError(empty_cell_sentence(
            p, df.index[r], name, "every record needs a value in every column the model uses "
            "— fill it in, delete the row, or set the column's role to 'ignore'"), source=src,
            key=str(name))


def _check_no_id_marks(p: str, df: pd.DataFrame, name: str, src) -> None:
    """An id that is a missing-value mark ('NA', '?', …) is a gap by the one rule of
    engine.data.gaps, never a record's id (issue 31 item 10): one sentence, as for an empty
    id, since the ids are what the predictions are matched by."""
    mark = mark_mask(df[name], "text")
    if mark.any():
        i = int(np.flatnonzero(mark)[0])
        raise InputError(missing_marker_sentence(
            p, df.index[i], name, str(df[name].iloc[i]).strip(),
            f"every record needs its own id ({plural(int(mark.sum()), 'cell')} of column "
            f"'{name}' {'holds' if mark.sum() == 1 else 'hold'} such a mark) — fill them in, "
            f"delete those rows, or choose another id column"), source=src, key=name)


def _code_label(p: str, s: pd.Series, col: TabularColumn, index: np.ndarray,
                src) -> tuple[np.ndarray, tuple[str, ...]]:
    """Class codes and class labels; the label checks of issue 8 ("Bad input")."""
    text = as_text(s)
    name = col.name
    n = len(text)
    if col.categories:
        classes = col.categories
        codes = category_codes(text, classes)
        bad = np.flatnonzero(codes < 0)
        if bad.size:
            i = int(bad[0])
            raise InputError(unknown_category_sentence(
                p, index[i], name, text[i], classes, what="classes",
                fix="correct the value or add the class to the label's categories in the "
                    "schema"), source=src, key=name)
    else:
        classes = tuple(sorted(set(text), key=natural_key))
        codes = category_codes(text, classes)
    counts = np.bincount(codes, minlength=len(classes))
    present = np.flatnonzero(counts)
    if present.size < 2:
        only = classes[int(present[0])]
        raise InputError(f"{p}: the label column '{name}' holds only one class ({given_value(only)}) in all "
                         f"{n:,} records; a model needs at least two classes to learn from — "
                         f"choose another label column or add records of the other classes.",
                         source=src, key=name)
    if present.size > 20 and present.size > n / 2:
        raise InputError(f"{p}: the label column '{name}' holds {present.size:,} different values "
                         f"in {n:,} records, so it looks like an id or a measured quantity, not "
                         f"classes; choose the column the model predicts, or group the values "
                         f"into classes.", source=src, key=name)
    single = np.flatnonzero(counts == 1)
    if single.size:
        c = int(single[0])
        i = int(np.flatnonzero(codes == c)[0])
        more = (f" (and {single.size - 1} other class{'es' if single.size > 2 else ''} with one "
                f"record)" if single.size > 1 else "")
        raise InputError(f"{p}: class {cell_text(classes[c])} of the label column '{name}' has "
                         f"only 1 record (row {spreadsheet_row(index[i])}){more}; every class needs at "
                         f"least 2 records, so that it can be in both the training and the test "
                         f"part — add records of that class, merge it with a similar class, or "
                         f"delete the row.", source=src, key=name)
    return codes, tuple(classes)



def check_unique_ids(p: str, ids: np.ndarray, name: str, index: np.ndarray, src) -> None:
    dup = pd.Series(ids).duplicated(keep=False).to_numpy()
    if dup.any():
        first = int(np.flatnonzero(dup)[0])
        second = int(np.flatnonzero(dup & (ids == ids[first]))[1])
        raise InputError(f"{p}: rows {spreadsheet_row(index[first])} and {spreadsheet_row(index[second])} have the "
                         f"same id in column '{name}'; each record needs its own id — correct "
                         f"one of them or choose another id column.",
                         source=src, key=name)


def _numeric_block(p: str, df: pd.DataFrame, cols: Sequence[TabularColumn], index: np.ndarray,
                   src) -> np.ndarray:
    """(n, len(cols)) float64 values of numeric features; a cell that is not a finite number
    is one sentence (row, column, value)."""
    names = [c.name for c in cols]
    sub = df[names]
    if all(pd.api.types.is_numeric_dtype(t) or pd.api.types.is_bool_dtype(t)
           for t in sub.dtypes):
        block = sub.to_numpy(dtype=np.float64, copy=True)   # scaled in place afterwards
    else:
        block = np.column_stack([numbers(sub[n]).to_numpy() for n in names])
    bad = ~np.isfinite(block)
    if bad.any():
        col = int(np.flatnonzero(bad.any(axis=0))[0])
        i = int(np.flatnonzero(bad[:, col])[0])
        raw = df[names[col]].iloc[i]
        value = as_written(src, names[col], df.index[i], raw)
        where = f"{p}: row {spreadsheet_row(index[i])}, column '{names[col]}'"
        if non_finite(value):
            raise InputError(non_finite_sentence(
                where, value, "the column is a numeric feature — write a plain number, delete "
                "the row, or make the column categorical (or 'ignore') in the schema"),
                source=src, key=names[col])
        what = ("looks like a missing value" if value.lower() in NUMBER_MARKS else
                "is not a number")
        raise InputError(f"{where}: "
                         f"{cell_text(value)} {what}"
                         f"{number_hint(value)}; the column is a numeric feature — write a "
                         f"plain number, delete the row, or make the column categorical (or "
                         f"'ignore') in the schema.",
                         source=src, key=names[col])
    return block


def _check_float32(p: str, df: pd.DataFrame, cols: Sequence[TabularColumn], block: np.ndarray,
                   index: np.ndarray, src) -> None:
    """The model computes in 32-bit floats: a value that is still beyond their range
    (about 3.4e38) after scaling would become an infinity in its input; name the cell."""
    over = np.abs(block) > _FLOAT32_MAX
    if not over.any():
        return
    col = int(np.flatnonzero(over.any(axis=0))[0])
    i = int(np.flatnonzero(over[:, col])[0])
    name = cols[col].name
    value = as_written(src, name, df.index[i], df[name].iloc[i])
    raise InputError(f"{p}: row {spreadsheet_row(index[i])}, column '{name}': {cell_text(value)} is too "
                     f"large for the model, which computes with numbers up to about 3.4e38"
                     f"{' after scaling the column' if cols[col].scale else ''}; check the "
                     f"value (is it in the right unit?) or delete the row.", source=src,
                     key=name)


def as_written(src: str | None, name: str, label, parsed) -> str:
    """A cell's text as the file wrote it ('1e309', '-Infinity') where the parser read a
    number (inf), so that the error sentence quotes what the user typed — read again from
    ``src`` on this error path only; the parsed value's text for a frame or an unreadable file."""
    written = str(float(parsed)) if isinstance(parsed, float | np.floating) \
        else str(parsed).strip()
    if not src or not isinstance(parsed, float | np.floating):
        return written
    try:
        inp = read_text(src, sniff=True)
        header = header_names(inp, skipinitialspace=True)
        column = pd.read_csv(io.StringIO(inp.text.lstrip("\n")), usecols=[header.index(name)],
                             dtype=str, keep_default_na=False, skip_blank_lines=False,
                             index_col=False, skipinitialspace=True, sep=inp.delimiter)
        return str(column.iloc[:, 0].loc[label]).strip()
    except (InputError, OSError, ValueError, KeyError, pd.errors.ParserError):
        return written                  # the file changed since: the value as it was read


def _code_categories(p: str, text: np.ndarray, col: TabularColumn, index: np.ndarray,
                     src) -> np.ndarray:
    codes = category_codes(text, col.categories)
    bad = np.flatnonzero(codes < 0)
    if bad.size:
        i = int(bad[0])
        raise InputError(unknown_category_sentence(p, index[i], col.name, text[i],
                                                   col.categories), source=src, key=col.name)
    return codes


# --------------------------------------------------------------------------- split

def split_members(data: TabularData, train_fraction: float = 0.5,
                  seed: int = 0) -> TabularData:
    """A seeded member / non-member split for data without a members column.

    Each class is split on its own (stratified), ``round(train_fraction × size)`` of its
    records becoming members, at least one on each side when the class has two or more, so
    every class is in both parts. ``train_fraction = 0.5`` gives the equal sizes of paper 001
    §"Assessment and Previous MIAs" (q = ½, baseline accuracy 0.5). Stream ``rng(seed, "tabular",
    "split")``. The numeric scaling is fitted again on the new training part (module
    docstring: fitted on members only) and the returned schema holds it.
    """
    src = data.source or "the data"
    if isinstance(train_fraction, bool) or not isinstance(train_fraction, int | float) \
            or not 0.0 < float(train_fraction) < 1.0:
        raise InputError(f"The share of records the model is trained on must be a number "
                         f"between 0 and 1 (e.g. 0.5), got {given_value(train_fraction)}.",
                         key="train_fraction", setting="train_fraction")
    if data.member is not None and data.schema.member_column is not None:
        col = data.schema.member_column
        raise InputError(f"{src}: the records are already marked as members or not in column "
                         f"'{col}'; use that split, or set the column's role to 'ignore' to "
                         f"split the records at random.", key=col)
    n = data.n_records
    if n < 2:
        raise InputError(f"{src}: {n} record cannot be split into a training and a test part; "
                         f"add records.", key="train_fraction")
    g = rng(seed, "tabular", "split")
    perm = g.permutation(n)
    order = perm[np.argsort(data.y[perm], kind="stable")]
    counts = np.bincount(data.y, minlength=data.n_classes)
    k = np.rint(float(train_fraction) * counts).astype(np.int64)
    k = np.where(counts >= 2, np.clip(k, 1, counts - 1), k)
    starts = np.concatenate([[0], np.cumsum(counts)[:-1]])
    ys = data.y[order]
    rank = np.arange(n) - starts[ys]
    member = np.empty(n, dtype=bool)
    member[order] = rank < k[ys]
    return _refit(data, member)


def _refit(data: TabularData, member: np.ndarray) -> TabularData:
    """Re-standardise the scaled numeric features on the rows marked ``member``.

    X's column is ``(v - m) / s``; standardising it again on the new training part gives
    ``(v - m_new) / s_new`` with ``m_new = m + s·m'`` and ``s_new = s·s'`` (m', s': the column's
    mean and sd over the new part), so the raw values are not needed."""
    cols = list(data.schema.columns)
    offsets = np.cumsum([0] + [c.width for c in cols])
    pos = [(k, int(offsets[k])) for k, c in enumerate(cols)
           if c.role == "feature" and c.kind == "numeric" and c.scale]
    X = data.X.copy()
    if pos:
        idx = np.array([q for _, q in pos])
        block = X[:, idx].astype(np.float64)
        part = block[member]
        m2 = part.mean(axis=0)
        s2 = part.std(axis=0)
        s2 = np.where(s2 > 0, s2, 1.0)
        X[:, idx] = ((block - m2) / s2).astype(np.float32)
        for (k, _), a, b in zip(pos, m2, s2, strict=True):
            c = cols[k]
            m_old = 0.0 if c.mean is None else c.mean
            s_old = 1.0 if c.sd is None else c.sd
            cols[k] = replace(c, mean=float(m_old + s_old * a), sd=float(s_old * b))
    return replace(data, X=X, member=member, schema=TabularSchema(tuple(cols)))
