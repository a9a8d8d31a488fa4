"""The release builder of the count-tables audit: which tables are published (paper 003 §2.1,
§4.1, §5.5) and a preview of them, computed from the schema alone — before anything runs.

* :class:`ReleaseOptionRows` — the release kind and the options of each kind (P-table age
  groups; marginal orders and bucketing; the path of a query file or published table), as rows
  of the page's form so their labels line up with the other fields of the step;
* :func:`preview_release` — the tables the release would contain (Qt-free, the engine's own
  ``candidate_queries``, so the preview is exactly what the audit attacks);
* :class:`ReleasePreviewView` — that preview: one sentence and one row per table with its
  number of cells and its first cells.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path

from PySide6.QtWidgets import (
    QAbstractItemView,
    QCheckBox,
    QComboBox,
    QFormLayout,
    QHBoxLayout,
    QHeaderView,
    QLabel,
    QLineEdit,
    QPushButton,
    QTableWidget,
    QTableWidgetItem,
    QVBoxLayout,
    QWidget,
)

from engine.aggregates.queries import Domain, load_published_table
from engine.aggregates.release import ReleaseSpec, candidate_queries, released_count
from engine.data.errors import InputError, given_value
from engine.data.microdata import Schema
from gui.formatting import is_number
from gui.widgets.form import (
    FIELD_WIDTH,
    choice_combo,
    field_label,
    format_value,
    parse_value,
    select_data,
)

KIND_CHOICES = (
    ("p_tables", "Census P-tables: sex × age group, overall and for each race (P12, P12A–…)"),
    ("marginals", "All 1- and 2-way marginals (every table of one or two columns)"),
    ("custom", "Custom counting queries from a file (CSV or TOML)"),
    ("published", "A table that is already published (CSV with a 'count' column)"),
)
AGE_BIN_CHOICES = (("census", "The 23 Census P12 groups (under 5, 5–9, …, 20, 21, 22–24, …)"),
                   ("five_year", "Five-year groups (under 5, 5–9, …, 80–84, 85+)"))
CUSTOM_BINS = "__custom__"          # age_bins given as a list in a config file: kept as is
DEFAULT_WAYS = (1, 2)
# The release options each kind reads (engine/aggregates/release.py, candidate_queries); the
# form keeps the ones it does not show (e.g. age_col from a config file) for the same kind.
OPTION_KEYS = {
    "p_tables": ("age_col", "sex_col", "race_col", "age_bins", "hispanic_col", "hispanic_label",
                 "white_label"),
    "marginals": ("ways", "buckets", "columns"),
    "custom": ("path",),
    "published": ("path", "missing"),
}
# What to do with a published table's empty counts (issue 21; release_options.missing): a
# count left empty was not published, so it is never read as 0.
MISSING_CHOICES = (("drop_rows", "Leave the row out (that count was not published)"),
                   ("error", "Refuse the file until every count is filled in"))
MISSING_TIP = ("What to do when a row of the published table has no count (an empty cell, or "
               "a mark such as NA). An empty count is not a zero: by default the row is left "
               "out, as a count that was not published, so the attacker has that count "
               "fewer. Or the file is refused, naming the first such row. The report lists "
               "how many counts were empty.")
# P12H and P12I of the Census (engine option names and the census sample's labels).
HISPANIC_TABLES = {"hispanic_col": "hispanic", "hispanic_label": "Hispanic",
                   "white_label": "White"}
FIRST_CELLS = 3                     # cells listed per table in the preview
PREVIEW_ROWS = 16                   # preview rows shown before the table scrolls


# ====================================================================== form rows

class ReleaseOptionRows:
    """The release-kind combo and each kind's options as rows of ``form``.

    ``make_field(key)`` makes (and registers) the page's text field of config key ``key``, so
    the page marks it when the engine names it; ``browse()`` asks for the query/table file;
    ``on_change()`` is called after every change (the page refreshes the preview).
    """

    def __init__(self, form: QFormLayout, make_field: Callable[[str], QLineEdit],
                 browse: Callable[[], None], on_change: Callable[[], None],
                 field_specs: dict) -> None:
        self.form = form
        self._on_change = on_change
        self.kind_combo = choice_combo(
            KIND_CHOICES,
            "Which counts are published. P-tables: the block-level Census tables of paper 003 "
            "(Table 1). Marginals: every count of one or two columns (the ACS setting, §5.5). "
            "Custom: your own counting queries. Published: counts someone already released.")
        self.kind_combo.currentIndexChanged.connect(self._kind_changed)
        form.addRow("Tables released:", self.kind_combo)

        self.age_bins_combo = choice_combo(
            AGE_BIN_CHOICES, "How the P-tables group ages. The Census uses 23 groups; coarser "
                             "groups publish fewer, larger cells.")
        self.age_bins_combo.currentIndexChanged.connect(lambda _i: on_change())
        self._age_row = self._row("Age groups:", self.age_bins_combo)

        self.hispanic_box = QCheckBox("Also P12H (Hispanic or Latino) and P12I (White alone, "
                                      "not Hispanic)")
        self.hispanic_box.setToolTip(
            "The Census also publishes sex × age for Hispanic people and for White non-Hispanic "
            "people. Needs a column 'hispanic' with the value 'Hispanic' and a race value "
            "'White'.")
        self.hispanic_box.toggled.connect(lambda _on: on_change())
        self._hispanic_row = self._row("", self.hispanic_box)

        self.ways_edit = make_field("release_options.ways")
        self.ways_edit.setMaximumWidth(FIELD_WIDTH)
        self.ways_edit.textEdited.connect(lambda _t: on_change())
        self._ways_row = self._row(field_label(field_specs["release_options.ways"]),
                                   self.ways_edit)

        self.bucket_column_combo = QComboBox()
        self.bucket_column_combo.setToolTip("The whole-number column to group into buckets "
                                            "(e.g. age in 5-year buckets, paper 003 §5.5).")
        self.bucket_column_combo.currentIndexChanged.connect(lambda _i: on_change())
        self.bucket_edit = make_field("release_options.buckets")
        self.bucket_edit.textEdited.connect(lambda _t: on_change())
        bucket = QWidget()
        row = QHBoxLayout(bucket)
        row.setContentsMargins(0, 0, 0, 0)
        row.addWidget(self.bucket_column_combo)
        row.addWidget(QLabel("in buckets of width"))
        row.addWidget(self.bucket_edit)
        row.addStretch(1)
        self._bucket_row = self._row(field_label(field_specs["release_options.buckets"]),
                                     bucket)

        self.path_edit = make_field("release_options.path")
        self.path_edit.editingFinished.connect(on_change)
        self.browse_button = QPushButton("Browse…")
        self.browse_button.clicked.connect(browse)
        path = QWidget()
        row = QHBoxLayout(path)
        row.setContentsMargins(0, 0, 0, 0)
        row.addWidget(self.path_edit, 1)
        row.addWidget(self.browse_button)
        self.path_label = field_label(field_specs["release_options.path"])
        self._path_row = self._row(self.path_label, path)
        self.missing_combo = choice_combo(MISSING_CHOICES, MISSING_TIP)
        self.missing_combo.currentIndexChanged.connect(lambda _i: on_change())
        self.missing_row = self._row("If a published count is empty:", self.missing_combo)
        self._custom_bins = None
        self._kind_changed()

    def _row(self, label, widget: QWidget) -> QWidget:
        self.form.addRow(label, widget)
        return widget

    # ------------------------------------------------------------------ state

    def kind(self) -> str:
        return str(self.kind_combo.currentData())

    def set_integer_columns(self, names: list[str]) -> None:
        """The columns that can be bucketed (whole numbers), keeping the current choice."""
        current = self.bucket_column_combo.currentData()
        self.bucket_column_combo.blockSignals(True)
        self.bucket_column_combo.clear()
        for name in names:
            self.bucket_column_combo.addItem(name, name)
        if current is not None:
            select_data(self.bucket_column_combo, current)
        elif "age" in names:
            select_data(self.bucket_column_combo, "age")
        self.bucket_column_combo.blockSignals(False)

    def set_options(self, kind: str, options: dict) -> None:
        """Show ``options`` (config release_options) of release ``kind``."""
        options = options if isinstance(options, dict) else {}
        self.kind_combo.blockSignals(True)
        select_data(self.kind_combo, kind)
        self.kind_combo.blockSignals(False)
        self.hispanic_box.blockSignals(True)
        self.hispanic_box.setChecked(kind == "p_tables" and bool(options.get("hispanic_col")))
        self.hispanic_box.blockSignals(False)
        bins = options.get("age_bins", "census") if kind == "p_tables" else "census"
        index = self.age_bins_combo.findData(CUSTOM_BINS)
        if index >= 0:
            self.age_bins_combo.removeItem(index)
        self._custom_bins = None
        if isinstance(bins, str) and self.age_bins_combo.findData(bins) >= 0:
            select_data(self.age_bins_combo, bins)
        else:                               # a list of ranges (or a typo) from a config file
            self._custom_bins = bins
            self.age_bins_combo.addItem(f"As in the config file: {bins}", CUSTOM_BINS)
            select_data(self.age_bins_combo, CUSTOM_BINS)
        ways = options.get("ways", DEFAULT_WAYS) if kind == "marginals" else DEFAULT_WAYS
        self.ways_edit.setText(", ".join(format_value(w) for w in ways)
                               if isinstance(ways, (list, tuple)) else format_value(ways))
        buckets = options.get("buckets") if kind == "marginals" else None
        if isinstance(buckets, dict) and buckets:
            column, width = next(iter(buckets.items()))
            if self.bucket_column_combo.findData(column) < 0:
                self.bucket_column_combo.addItem(column, column)
            select_data(self.bucket_column_combo, column)
            self.bucket_edit.setText(format_value(width) if not isinstance(width, list)
                                     else str(width))
        else:
            self.bucket_edit.setText("")
        self.path_edit.setText(str(options.get("path", "")) if kind in ("custom", "published")
                               else "")
        self.missing_combo.blockSignals(True)
        select_data(self.missing_combo, options.get("missing", "drop_rows")
                    if kind == "published" else "drop_rows")
        self.missing_combo.blockSignals(False)
        self._kind_changed()

    def options(self, base: dict | None) -> dict:
        """The release_options of the form, on top of ``base`` (the loaded config's): keys
        this kind reads but the form does not show are kept; defaults left untouched are not
        written, so a config read and written back is unchanged."""
        kind = self.kind()
        base = base if isinstance(base, dict) else {}
        out = {k: v for k, v in base.items() if k in OPTION_KEYS[kind]}
        if kind == "p_tables":
            bins = self.age_bins_combo.currentData()
            if bins == CUSTOM_BINS:
                out["age_bins"] = self._custom_bins
            elif bins != "census" or "age_bins" in out:
                out["age_bins"] = bins
            if self.hispanic_box.isChecked():
                out = {**HISPANIC_TABLES, **out}
            else:
                for key in HISPANIC_TABLES:
                    out.pop(key, None)
        elif kind == "marginals":
            ways = parse_list(self.ways_edit.text(), integer=True)
            if ways != list(DEFAULT_WAYS) or "ways" in out:
                out["ways"] = ways
            buckets = dict(out.get("buckets") or {}) if isinstance(out.get("buckets"),
                                                                   dict) else {}
            column = self.bucket_column_combo.currentData()
            width = self.bucket_edit.text().strip()
            if column:
                buckets.pop(column, None)
                if width:
                    buckets = {column: parse_value(width, integer=True), **buckets}
            if buckets:
                out["buckets"] = buckets
            else:
                out.pop("buckets", None)
        else:
            out["path"] = self.path_edit.text().strip()
            missing = self.missing_combo.currentData()
            if kind == "published" and (missing != "drop_rows" or "missing" in out):
                out["missing"] = missing
        return out

    def _kind_changed(self, _index: int = 0) -> None:
        kind = self.kind()
        self.form.setRowVisible(self._age_row, kind == "p_tables")
        self.form.setRowVisible(self._hispanic_row, kind == "p_tables")
        self.form.setRowVisible(self._ways_row, kind == "marginals")
        self.form.setRowVisible(self._bucket_row, kind == "marginals")
        self.form.setRowVisible(self._path_row, kind in ("custom", "published"))
        self.form.setRowVisible(self.missing_row, kind == "published")
        self.path_label.setText("Published table:" if kind == "published" else "Query file:")
        self.browse_button.setToolTip("Choose the published table (CSV)." if kind == "published"
                                      else "Choose the query file (CSV or TOML).")
        self._on_change()


def parse_list(text: str, integer: bool = False) -> list:
    """"0.1, 0.25; 1" → [0.1, 0.25, 1.0]; a token that is not a number stays as typed, so the
    engine's sentence names it."""
    tokens = [t for t in text.replace(";", ",").split(",") if t.strip()]
    if len(tokens) == 1 and " " in tokens[0].strip():
        tokens = tokens[0].split()
    return [parse_value(t, integer) for t in tokens]


def format_list(values) -> str:
    if not isinstance(values, (list, tuple)):
        return format_value(values)
    return ", ".join(format_value(v) for v in values)


# ====================================================================== the preview (Qt-free)

@dataclass(frozen=True)
class TablePreview:
    name: str
    cells: int
    first: tuple[str, ...]


@dataclass(frozen=True)
class ReleasePreview:
    """What a release would contain: its tables, the family size and how many are released."""

    kind: str
    tables: tuple[TablePreview, ...]
    candidates: int
    released: int
    records: int | None
    fraction: float | None
    published: bool = False
    notes: tuple[str, ...] = field(default_factory=tuple)

    def sentence(self) -> str:
        n_tables = len(self.tables)
        family = f"{self.candidates:,} cells in {n_tables:,} table{'s' if n_tables != 1 else ''}"
        if self.published:
            return f"The published table has {family}; every one is attacked as released."
        if self.released >= self.candidates:
            text = f"The release publishes all {family}."
        else:
            # Not "a share of the cells": 0.25 of 450 people is 112 of 368 cells, 30 %.
            text = (f"The release publishes {self.released:,} of the {family}, drawn at "
                    f"random ({self.fraction:g} cells per person × {self.records:,} people).")
        return " ".join((text, *self.notes))


def preview_domain(schema: Schema) -> Domain:
    """The columns the game codes, in the engine's order: the quasi-identifiers, then the
    sensitive column (when one is chosen)."""
    columns = list(schema.quasi_identifiers)
    if schema.sensitive:
        columns.append(schema.sensitive)
    if not columns:
        raise InputError("No column is a quasi-identifier or sensitive, so no table can be "
                         "built; set the roles in the schema (step 1).", key="role")
    return Domain(tuple(columns), tuple(tuple(schema.column(c).labels()) for c in columns))


def check_marginal_options(options: dict) -> None:
    """Sentences for marginal options the engine would trip over with a bare error."""
    ways = options.get("ways", DEFAULT_WAYS)
    if not isinstance(ways, (list, tuple)) or not ways or not all(
            isinstance(w, int) and not isinstance(w, bool) and w >= 1 for w in ways):
        raise InputError(f"Marginal orders must be whole numbers such as 1, 2 (1-way and 2-way "
                         f"tables); got {format_list(ways) or 'nothing'}.",
                         key="release_options.ways")
    for column, width in (options.get("buckets") or {}).items():
        if isinstance(width, list):
            continue
        if not (isinstance(width, int) and not isinstance(width, bool) and width >= 1):
            raise InputError(f"The bucket width of '{column}' must be a whole number of at "
                             f"least 1, such as 5 (5-year age groups); got {given_value(width)}.",
                             key="release_options.buckets")


def preview_release(kind: str, options: dict, schema: Schema, *, fraction: float | None,
                    records: int | None, resolve: Callable[[str], Path] = Path
                    ) -> ReleasePreview:
    """The tables of the release, from the schema alone (InputError with a sentence)."""
    domain = preview_domain(schema)
    options = dict(options or {})
    if kind == "marginals":
        check_marginal_options(options)
    if kind in ("custom", "published"):
        if not str(options.get("path", "")).strip():
            what = "query file" if kind == "custom" else "published table"
            raise InputError(f"Choose the {what} (Browse…).", key="release_options.path")
        options["path"] = str(resolve(str(options["path"]).strip()))
    spec = ReleaseSpec(kind=kind, options=options, fraction=None)
    counts = None
    if kind == "published":
        queries, counts = load_published_table(options["path"], domain)
    else:
        queries = candidate_queries(spec, domain)
    groups: dict[str, list[str]] = {}
    for i, q in enumerate(queries):
        name = q.table or "(queries)"
        label = q.label[len(name) + 2:] if q.label.startswith(f"{name}: ") else q.label
        if counts is not None:
            label += f" → {int(counts[i]):,}"
        groups.setdefault(name, []).append(label)
    tables = tuple(TablePreview(name, len(labels), tuple(labels[:FIRST_CELLS]))
                   for name, labels in groups.items())
    published = kind == "published"
    f = None if (published or not fraction or not is_number(fraction)) else float(fraction)
    released = len(queries) if f is None or records is None else released_count(
        f, records, len(queries))
    notes = ()
    if f is not None and records is None:
        notes = ("How many are drawn depends on the number of records, known once the data "
                 "loads.",)
    return ReleasePreview(kind, tables, len(queries), released, records, f, published, notes)


# ====================================================================== the preview widget

class ReleasePreviewView(QWidget):
    """One sentence, then one row per table: name, cells, first cells."""

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.sentence_label = QLabel()
        self.sentence_label.setWordWrap(True)
        self.table = QTableWidget(0, 3)
        self.table.setHorizontalHeaderLabels(["Table", "Cells", "First cells"])
        self.table.verticalHeader().setVisible(False)
        self.table.setEditTriggers(QAbstractItemView.EditTrigger.NoEditTriggers)
        self.table.setSelectionMode(QAbstractItemView.SelectionMode.NoSelection)
        header = self.table.horizontalHeader()
        header.setSectionResizeMode(0, QHeaderView.ResizeMode.ResizeToContents)
        header.setSectionResizeMode(1, QHeaderView.ResizeMode.ResizeToContents)
        header.setSectionResizeMode(2, QHeaderView.ResizeMode.Stretch)
        self.table.setToolTip("The tables the release contains, computed from the schema: the "
                              "audit attacks exactly these cells (or the random fraction of "
                              "them the sentence gives).")
        layout = QVBoxLayout(self)
        layout.setContentsMargins(0, 0, 0, 0)
        layout.addWidget(self.sentence_label)
        layout.addWidget(self.table)
        self.preview: ReleasePreview | None = None
        self.show_message("")

    def show_preview(self, preview: ReleasePreview) -> None:
        self.preview = preview
        self.sentence_label.setStyleSheet("")
        self.sentence_label.setText(preview.sentence())
        self.table.setRowCount(len(preview.tables))
        for row, table in enumerate(preview.tables):
            first = "; ".join(table.first) + ("; …" if table.cells > len(table.first) else "")
            for col, text in enumerate((table.name, f"{table.cells:,}", first)):
                item = QTableWidgetItem(text)
                item.setToolTip(text)
                self.table.setItem(row, col, item)
        self.table.setVisible(True)
        self._fit_height()

    def show_message(self, text: str, error: bool = False) -> None:
        """A sentence instead of the tables (an error in red)."""
        self.preview = None
        self.sentence_label.setStyleSheet("color: #c62828;" if error else "color: #444;")
        self.sentence_label.setText(text)
        self.table.setRowCount(0)
        self.table.setVisible(False)

    def table_names(self) -> list[str]:
        return [self.table.item(r, 0).text() for r in range(self.table.rowCount())]

    def _fit_height(self) -> None:
        rows = min(self.table.rowCount(), PREVIEW_ROWS)
        height = sum(self.table.rowHeight(r) for r in range(rows))
        self.table.setFixedHeight(height + self.table.horizontalHeader().sizeHint().height()
                                  + 2 * self.table.frameWidth() + 4)
