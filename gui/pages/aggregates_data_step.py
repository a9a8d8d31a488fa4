"""Step 1 of the count-tables page, "Data" (paper 003 §2.1): the protected records — a CSV or
the synthetic census block — the attacker's sample, and the schema (each column's role, kind
and domain) shown and editable in :class:`gui.widgets.schema_editor.SchemaEditor`.

A CSV the app has never seen starts right (issue 33 item 4): the roles come from
:func:`engine.data.column_roles.propose_roles` — id-like columns and row numbers left out, a
handful of low-cardinality quasi-identifiers, continuous numbers left out until banded, a
sensitive column suggested or none — with each column's reason on its name and the proposal in
a sentence under the table; the default tables are built from the columns chosen (never from
a column the file lacks); and a role change that moves another column's role (a new sensitive
column demotes the old one) is said in a line under the table.

:class:`AggregatesDataStep` is a part of :class:`gui.pages.aggregates_page.AggregatesPage` (it
is mixed into the page and uses the page's fields, run bar, job runner and release rows); the
page keeps the release and attacks steps, the form ↔ ``AggregatesConfig`` mapping and the run.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from PySide6.QtCore import QTimer
from PySide6.QtWidgets import (
    QFormLayout,
    QGroupBox,
    QHBoxLayout,
    QPushButton,
    QRadioButton,
    QVBoxLayout,
)

from engine.data.census import census_schema
from engine.data.column_roles import RoleProposal, propose_roles_for_csv
from engine.data.errors import InputError
from engine.data.microdata import (
    Schema,
    load_microdata_csv,
    unique_targets,
)
from gui.pages.audit_page import plain_sentence, resolve_path, show_status
from gui.widgets.form import clear_invalid, mark_invalid
from gui.widgets.schema_editor import (
    RecordsInfo,
    SchemaEditor,
    inspect_records,
    records_sentence,
)
from gui.widgets.schema_table import csv_header
from gui.widgets.steps import note

SYNC_BYTES = 5_000_000          # smaller files are loaded at once, larger ones as a job
PREVIEW_DELAY_MS = 150          # the preview follows typing, once it pauses
RECHECK_DELAY_MS = 400          # the records are checked against an edited schema, once it rests
CENSUS_SENSITIVE = ("race", "hispanic")
# The columns the Census P-tables are built from (engine/aggregates/release.py's defaults):
# a file without all three among its chosen columns gets marginals of its own columns.
P_TABLE_COLUMNS = {"age_col": "age", "sex_col": "sex", "race_col": "race"}
CHANGE_STYLE = "color: #b26a00;"


# ====================================================================== reading (Qt-free)

@dataclass(frozen=True)
class ProposedRecords:
    """A records file read for the Data step: what was found, and the roles proposed when the
    schema was inferred (None when the user's schema was kept)."""

    info: RecordsInfo
    proposal: RoleProposal | None = None


def inspect_and_propose(path: Path, schema: dict, sensitive: str, reinfer: bool = False
                        ) -> ProposedRecords:
    """:func:`inspect_records`, and for an inferred schema the roles of
    :func:`engine.data.column_roles.propose_roles` applied to it, the possible targets counted
    on the proposed quasi-identifiers (runs on the job runner for large files)."""
    names = [c.get("name") for c in (schema or {}).get("columns") or []]
    if names and not reinfer and csv_header(path) == names:
        return ProposedRecords(inspect_records(path, schema, sensitive))
    records = load_microdata_csv(path)
    proposal = propose_roles_for_csv(path, records.schema)
    proposed = proposal.apply(records.schema)
    qi = proposed.quasi_identifiers
    unique = int(unique_targets(records, list(qi)).size) if qi else None
    return ProposedRecords(RecordsInfo(records.n_records, proposed.to_dict(), unique, qi),
                           proposal)


def role_changes(before: dict[str, str], after: dict[str, str]) -> list[str]:
    """Sentences for the roles a change moved besides the one the user chose: the sensitive
    column a new sensitive column replaced (one column at most is sensitive)."""
    became_sensitive = [n for n, r in after.items() if r == "sensitive"
                        and before.get(n) != "sensitive"]
    if not became_sensitive:
        return []
    return [f"'{name}' was the sensitive column; it is now a quasi-identifier (one column at "
            f"most is sensitive, and '{became_sensitive[0]}' is now) — change it back in its "
            f"row if the attacker should not know it."
            for name, role in before.items()
            if role == "sensitive" and after.get(name) == "quasi_identifier"]


def implied_sensitive(config: dict) -> str:
    """The sensitive attribute a config means: its 'sensitive', else its schema's sensitive
    column (synthetic block: race)."""
    if config.get("sensitive"):
        return str(config["sensitive"])
    if not config.get("data"):
        return "race"
    columns = (config.get("schema") or {}).get("columns") or []
    return next((str(c.get("name")) for c in columns if isinstance(c, dict)
                 and c.get("role") == "sensitive"), "")


def census_schema_dict(sensitive: str) -> dict:
    return census_schema(sensitive=sensitive if sensitive in CENSUS_SENSITIVE
                         else "race").to_dict()


# ====================================================================== the step

class AggregatesDataStep:
    """The Data step of :class:`gui.pages.aggregates_page.AggregatesPage` (module docstring)."""

    def _build_data_step(self, layout: QVBoxLayout) -> None:
        # Built first (AuditPage.__init__ builds the steps before this class's __init__ would
        # run), so the page's own state starts here.
        self._records_count: int | None = None
        self._loaded_path = ""
        self._csv_schema: dict = {}
        self._csv_sensitive = ""
        self._census_sensitive = "race"
        self._filling = False
        self._proposal: RoleProposal | None = None     # the roles proposed for the CSV
        self._proposal_path = ""                       # ... of this file, as typed
        self._roles: dict[str, str] = {}               # the roles before the latest edit
        self._propose_tables = False                   # a file the user chose: tables follow
        self._preview_timer = QTimer(self)
        self._preview_timer.setSingleShot(True)
        self._preview_timer.setInterval(PREVIEW_DELAY_MS)
        self._preview_timer.timeout.connect(self.refresh_preview)
        # After a schema edit the records are read again with it (small files only), so a
        # domain that leaves out values of the data is a sentence at once, not at the run.
        self._recheck_timer = QTimer(self)
        self._recheck_timer.setSingleShot(True)
        self._recheck_timer.setInterval(RECHECK_DELAY_MS)
        self._recheck_timer.timeout.connect(self.recheck_records)

        form = QFormLayout()
        self.add_name_row(form)
        self.source_csv = QRadioButton("Records from a CSV file")
        self.source_csv.setToolTip("Audit your own records: one row per person.")
        self.source_census = QRadioButton("A synthetic census block (to try the audit out)")
        self.source_census.setToolTip("A generated block of people with sex, age, race and "
                                      "Hispanic origin, sized like paper 003's; no file needed.")
        self.source_group = self.add_radio_row(form, "Data:",
                                               (self.source_csv, self.source_census))
        self.source_csv.toggled.connect(self._source_toggled)

        self.data_edit, self.data_status = self.path_row(
            form, "data", "Choose the CSV file of records", self.browse_data)
        self.data_edit.editingFinished.connect(self._data_path_edited)
        self.auxiliary_edit, self.auxiliary_status = self.path_row(
            form, "auxiliary", "Choose the attacker's sample", self.browse_auxiliary)
        self.auxiliary_edit.editingFinished.connect(self.check_auxiliary)
        self.add_field_row(form, "census_records").textEdited.connect(self.schedule_preview)
        self.add_field_row(form, "census_auxiliary")
        layout.addLayout(form)

        self.schema_editor = SchemaEditor()
        self.schema_editor.changed.connect(self._schema_edited)
        self.reinfer_button = QPushButton("Infer the schema again from the file")
        self.reinfer_button.setToolTip("Replace the schema below by the one read from the "
                                       "file (your edits to it are lost).")
        self.reinfer_button.clicked.connect(lambda: self.load_records(reinfer=True))
        box = QGroupBox("Schema: what each column holds and who knows it")
        box_layout = QVBoxLayout(box)
        box_layout.addWidget(self.schema_editor)
        # Why each column has its proposed role, and what a role change moved besides.
        self.proposal_label = note("")
        self.proposal_label.setVisible(False)
        box_layout.addWidget(self.proposal_label)
        self.role_change_label = note("")
        self.role_change_label.setStyleSheet(CHANGE_STYLE)
        self.role_change_label.setVisible(False)
        box_layout.addWidget(self.role_change_label)
        row = QHBoxLayout()
        row.addWidget(self.reinfer_button)
        row.addStretch(1)
        box_layout.addLayout(row)
        layout.addWidget(box)
        layout.addWidget(note(
            "The attacker targets people who are unique on the quasi-identifiers and tries to "
            "learn their sensitive value from the tables (paper 003 §2.2–2.3). Mark as "
            "quasi-identifiers only what an attacker could know, such as block, sex and age."))

    def browse_data(self) -> None:
        path = self.ask_file(self.data_edit, "Choose the CSV file of records")
        if path:
            self.choose_data_file(path)

    def choose_data_file(self, path: str) -> None:
        """Use the records in ``path`` (as Browse… does): load them, infer or check the
        schema, show what was found."""
        self.data_edit.setText(path)
        clear_invalid(self.data_edit)
        self._propose_tables = True
        self.source_csv.setChecked(True)
        self.load_records()

    def browse_auxiliary(self) -> None:
        path = self.ask_file(self.auxiliary_edit, "Choose the attacker's sample")
        if path:
            self.auxiliary_edit.setText(path)
            self.check_auxiliary()

    def _data_path_edited(self) -> None:
        if self.data_edit.text().strip() != self._loaded_path:
            self._propose_tables = True
            self.load_records()

    def load_records(self, reinfer: bool = False) -> None:
        """Load the records file: at once for small files, on the job runner for large ones
        (the window never freezes). The schema is inferred unless the user's schema names
        the file's columns (then it is checked against the data and kept)."""
        text = self.data_edit.text().strip()
        self._loaded_path = text
        self._records_count = None
        if not text:
            show_status(self.data_status, "")
            self.schedule_preview()
            return
        path = resolve_path(text)
        schema = self.schema_editor.schema_dict() if self.source_csv.isChecked() \
            else self._csv_schema
        sensitive = self.schema_editor.sensitive() if self.source_csv.isChecked() \
            else self._csv_sensitive
        self.read_data(path, lambda: inspect_and_propose(path, schema, sensitive, reinfer),
                       lambda found: self._records_loaded(found, path), self._records_failed,
                       self.data_status, SYNC_BYTES)

    def _records_loaded(self, found: ProposedRecords, path: Path) -> None:
        info = found.info
        self._records_count = info.records
        clear_invalid(self.data_edit)
        if info.schema is not None:
            self._proposal = found.proposal
            self._proposal_path = self._loaded_path if found.proposal is not None else ""
            schema, sensitive = self._proposed_schema(info.schema)
            self.schema_editor.set_schema(schema, sensitive=sensitive)
            self._csv_schema = self.schema_editor.schema_dict()
            self._csv_sensitive = self.schema_editor.sensitive()
            self._show_reasons()
            suggested = found.proposal.sensitive if found.proposal is not None else ""
            if suggested and sensitive and suggested != sensitive:
                self.proposal_label.setText(
                    f"{self.proposal_label.text()} '{sensitive}' stays the sensitive column, "
                    f"as chosen, so the suggested '{suggested}' is left out; change either in "
                    f"its row.")
            if self._propose_tables:
                self._tables_from_chosen_columns()
            self._after_schema_change()
            if found.proposal is not None:
                # Read again with the proposed roles: a left-out column's blanks no longer
                # drop records, so the count said is the one the audit will use.
                self._recheck_timer.start()
        self._propose_tables = False
        show_status(self.data_status, records_sentence(info, path.name))
        self.schedule_preview()

    def _proposed_schema(self, schema: dict) -> tuple[dict, str]:
        """The inferred schema with its proposed roles, and the sensitive column: the one the
        user chose before inferring the file's schema again, or the config's, when the file
        has it, else the proposal's (a file the user just chose: the previous file's choice
        is not carried over). A chosen one replaces the proposal's, which is then left out
        rather than turned silently into a quasi-identifier."""
        keep = "" if self._propose_tables else \
            self.schema_editor.sensitive() or self._csv_sensitive
        columns = [dict(c) for c in schema.get("columns") or []]
        if keep and keep in {c.get("name") for c in columns}:
            for column in columns:
                if column.get("role") == "sensitive" and column.get("name") != keep:
                    column["role"] = "ignore"
            return {**schema, "columns": columns}, keep
        proposed = self._proposal.sensitive if self._proposal is not None else ""
        return {**schema, "columns": columns}, proposed

    def _show_reasons(self) -> None:
        """Each column's proposed role and its reason on its name, the proposal in a sentence
        under the table (nothing for a schema the user gave)."""
        proposal = self._proposal if self.source_csv.isChecked() and self._proposal_path \
            == self.data_edit.text().strip() else None
        editor = self.schema_editor
        if proposal is not None:
            with editor.filling():
                for row, name in enumerate(editor.column_names()):
                    reason = proposal.reason(name)
                    for col in (0, editor.ROLE_COLUMN):
                        item = editor.table.item(row, col)
                        if reason and item is not None:
                            item.setToolTip(f"Proposed for '{name}': {reason}." if col == 0
                                            else f"Proposed: {reason}. {item.toolTip()}")
        self.proposal_label.setText(proposal.sentence() if proposal is not None else "")
        self.proposal_label.setVisible(proposal is not None)
        self._roles = self._current_roles()
        self.role_change_label.setVisible(False)

    def _current_roles(self) -> dict[str, str]:
        columns = self.schema_editor.schema_dict().get("columns") or []
        return {str(c.get("name")): str(c.get("role")) for c in columns}

    def _tables_from_chosen_columns(self) -> None:
        """The default tables of a new file are built from its chosen columns: the Census
        P-tables when it has their columns among them, else every 1- and 2-way marginal of
        the chosen columns (never a table of a column the file lacks)."""
        rows = self.release_rows
        if rows.kind() != "p_tables":
            return
        options = rows.options(self.loaded_config.get("release_options"))
        used = {n for n, r in self._current_roles().items() if r != "ignore"}
        needed = {options.get(key, name) for key, name in P_TABLE_COLUMNS.items()}
        if not needed <= used:
            rows.set_options("marginals", {})
            self.proposal_label.setText(
                f"{self.proposal_label.text()} The tables published by default are every "
                f"1- and 2-way marginal of these columns (the Census P-tables need columns "
                f"{', '.join(repr(n) for n in sorted(needed))}; see step 2).")

    def _records_failed(self, message: str, key: str) -> None:
        """The engine's sentence under the field, the field marked; the schema and the path
        the user typed are kept."""
        show_status(self.data_status, plain_sentence(message), error=True)
        mark_invalid(self.data_edit)
        self.schema_editor.mark_key(key)
        self.schedule_preview()

    def check_auxiliary(self) -> None:
        """Read the attacker's sample with the schema and say whether it fits."""
        text = self.auxiliary_edit.text().strip()
        clear_invalid(self.auxiliary_edit)
        if not text:
            show_status(self.auxiliary_status, "")
            return
        path = resolve_path(text)
        if path.is_file() and path.stat().st_size > SYNC_BYTES:
            show_status(self.auxiliary_status, "A large file: it is read when the audit runs.")
            return
        try:
            schema = self.schema_editor.validated() if self.schema_editor.schema_dict() \
                else None
            records = load_microdata_csv(path, schema)
        except InputError as exc:
            show_status(self.auxiliary_status, plain_sentence(exc.one_line()), error=True)
            mark_invalid(self.auxiliary_edit)
            return
        show_status(self.auxiliary_status, f"{records.n_records:,} records in {path.name}, with "
                                         "the same columns as the protected records.")

    def recheck_records(self) -> None:
        """Read the (small) records file again with the edited schema, if the schema is
        complete; the schema editor already says what is wrong with an incomplete one."""
        self._recheck_timer.stop()
        text = self.data_edit.text().strip()
        if not (self.source_csv.isChecked() and text):
            return
        path = resolve_path(text)
        try:
            Schema.from_dict(self.schema_editor.schema_dict(), source="schema")
        except InputError:
            return
        if path.is_file() and path.stat().st_size <= SYNC_BYTES:
            self.load_records()

    def _schema_edited(self) -> None:
        roles = self._current_roles()
        changes = role_changes(self._roles, roles)
        self._roles = roles
        self.role_change_label.setText(" ".join(changes))
        self.role_change_label.setVisible(bool(changes))
        if self.source_csv.isChecked():
            self._csv_schema = self.schema_editor.schema_dict()
            self._csv_sensitive = self.schema_editor.sensitive()
            self._recheck_timer.start()
        else:
            self._census_sensitive = self.schema_editor.sensitive() or "race"
        self._after_schema_change()

    def _after_schema_change(self) -> None:
        self.release_rows.set_integer_columns(self._integer_columns())
        self.schedule_preview()

    def _source_toggled(self, _checked: bool) -> None:
        if self._filling:
            return
        # Keep what the user set for the other source, to restore it when they come back.
        if self.source_csv.isChecked():
            self._census_sensitive = self.schema_editor.sensitive() or "race"
        else:
            self._csv_schema = self.schema_editor.schema_dict()
            self._csv_sensitive = self.schema_editor.sensitive()
        if not self.source_csv.isChecked():      # the files are not used now: no red marks
            for edit in (self.data_edit, self.auxiliary_edit):
                clear_invalid(edit)
        self._show_source_schema()
        self._update_source()
        self.release_rows.set_integer_columns(self._integer_columns())
        if self.source_csv.isChecked() and self.data_edit.text().strip() \
                and self._records_count is None:
            self.load_records()
        self.schedule_preview()

    def _show_source_schema(self) -> None:
        """The CSV's (editable) schema, or the synthetic block's (fixed) one."""
        if self.source_csv.isChecked():
            self.schema_editor.set_schema(self._csv_schema, sensitive=self._csv_sensitive)
            self._show_reasons()
        else:
            sensitive = self._census_sensitive
            self.schema_editor.set_schema(census_schema_dict(sensitive), editable=False,
                                          sensitive=sensitive,
                                          sensitive_choices=CENSUS_SENSITIVE)
            self.schema_editor.show_message(
                "The synthetic block's schema is fixed (paper 003 Table 2); choose which "
                "attribute the attacker tries to learn. Choose a CSV file to edit a schema.")
            self._show_reasons()

    def _integer_columns(self) -> list[str]:
        columns = self.schema_editor.schema_dict().get("columns") or []
        return [str(c.get("name")) for c in columns if c.get("kind") == "integer"
                and c.get("role") != "ignore"]

    def _update_source(self) -> None:
        csv_mode = self.source_csv.isChecked()
        for edit in (self.data_edit, self.auxiliary_edit):
            edit.setEnabled(csv_mode)
            edit.browse_button.setEnabled(csv_mode)
        for key in ("census_records", "census_auxiliary"):
            self.fields[key].setEnabled(not csv_mode)
        self.reinfer_button.setEnabled(csv_mode)
        for label in (self.data_status, self.auxiliary_status):
            label.setVisible(csv_mode and bool(label.text()))

