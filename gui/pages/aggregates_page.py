"""The count-tables audit page: "Will this count table let someone learn a person's attribute?"
(paper 003).

Data → Release → Attacks & run, then the Results and Report steps every audit page has
(:class:`gui.pages.audit_page.AuditPage` owns the steps, run bar, inline errors, export and
project state). This module holds only what is this audit's own: its fields with their
plain-language tooltips, loading the records (the schema is inferred, shown and editable, see
:mod:`gui.widgets.schema_editor`), the release builder with its preview
(:mod:`gui.widgets.release_builder`), the attack check lists and the mapping between the form
and an ``AggregatesConfig`` dict.
"""

from __future__ import annotations

from pathlib import Path

from PySide6.QtCore import QTimer
from PySide6.QtWidgets import (
    QCheckBox,
    QFormLayout,
    QGridLayout,
    QGroupBox,
    QHBoxLayout,
    QLabel,
    QPushButton,
    QRadioButton,
    QVBoxLayout,
)

import engine.audits.aggregates as aggregates_audit
from engine.audits.aggregates import (
    ATTACKS,
    DEFAULT_ATTACKS,
    DEFAULT_MIA_ATTACKS,
    LABELS,
    MIA_ATTACKS,
    SWEEP_ALLOWED,
    SWEEP_ATTACKS,
    AggregatesConfig,
)
from engine.data.census import census_schema
from engine.data.errors import InputError, given_value
from engine.data.microdata import Schema, load_microdata_csv
from gui.pages.audit_page import (
    AuditPage,
    FormStep,
    audit_steps,
    plain_sentence,
    policy_fields,
    resolve_path,
    run_fields,
    show_status,
)
from gui.widgets.aggregates_results import AggregatesResultsView
from gui.widgets.form import (
    FieldSpec,
    attack_box_texts,
    choice_combo,
    clear_invalid,
    mark_invalid,
    select_data,
)
from gui.widgets.release_builder import (
    ReleaseOptionRows,
    ReleasePreviewView,
    format_list,
    parse_list,
    preview_release,
)
from gui.widgets.schema_editor import (
    RecordsInfo,
    SchemaEditor,
    inspect_records,
    records_sentence,
)
from gui.widgets.steps import note

REPO_ROOT = Path(__file__).resolve().parents[2]
SAMPLE_CONFIG = REPO_ROOT / "resources" / "configs" / "aggregates_demo.toml"
SAMPLE_DATA = "resources/aggregates/sample_block.csv"
SYNC_BYTES = 5_000_000          # smaller files are loaded at once, larger ones as a job
PREVIEW_DELAY_MS = 150          # the preview follows typing, once it pauses
RECHECK_DELAY_MS = 400          # the records are checked against an edited schema, once it rests
CENSUS_SENSITIVE = ("race", "hispanic")
LIST_FIELD_WIDTH = 360          # a few numbers such as "0.05, 0.1, 0.25, 0.5, 1"
COMBO_WIDTH = 620               # drop-downs wide enough for their longest choice, no wider

FORM_STEPS = (
    FormStep("Data", "Which records are counted?",
             "Choose the protected records (a CSV with one row per person) or a synthetic "
             "census block to try the audit out. The schema says what each column holds and "
             "what the attacker knows; it is inferred from the file and you can correct it.",
             "Next: 2 Release — which tables are published."),
    FormStep("Release", "Which count tables are published, and how?",
             "Choose the tables, how many of their cells are released and whether noise is "
             "added. The preview below lists the tables the audit will attack.",
             "Next: 3 Attacks & run."),
    FormStep("Attacks & run", "Attacks and how precisely to measure them",
             "The attacker knows the target's quasi-identifiers, the number of records, the "
             "domains and a sample of similar people, and tries to learn the target's "
             "sensitive value from the tables (paper 003 §2.3). The defaults suit most audits; "
             "small numbers give a quick first look."),
)
STEPS = audit_steps(FORM_STEPS)
STEP_DATA, STEP_RELEASE, STEP_ATTACKS, STEP_RESULTS, STEP_REPORT = range(len(STEPS))

MECHANISM_CHOICES = (("none", "None (counts published exactly)"),
                     ("laplace", "Laplace noise, rounded to whole counts (paper 003 §5.6)"),
                     ("discrete_laplace", "Discrete Laplace noise"),
                     ("discrete_gaussian", "Discrete Gaussian noise (needs δ)"))
BUDGET_CHOICES = (("per_query", "ε for each count (paper 003 §5.6)"),
                  ("release", "ε for the whole release (noise grows with the tables)"))
MODEL_CHOICES = (("logistic", "Logistic regression (paper 003 default)"),
                 ("mlp", "Neural network, 50 and 20 hidden units"),
                 ("random_forest", "Random forest, 100 trees"),
                 ("svm", "Support-vector machine (RBF kernel)"))
MIA_TEXTS = {
    "desia_mia": "DeSIA-MIA: proves membership where the tables allow, else the stochastic "
                 "module (paper 003 §6.2)",
    "desia_mia_stochastic_only": "DeSIA-MIA stochastic module only",
    "cip_rand_mia": "CIP-rand reconstruction MIA (paper 003 §6.3)",
    "rap_rand_mia": "RAP-rand relaxed reconstruction MIA (paper 003 §6.3)",
    "best_of_mia": "Best of the membership attacks: proofs, then the better of DeSIA-MIA's "
                   "stochastic module and CIP-rand, chosen on the attacker's own stand-ins",
}

# Keys are AggregatesConfig fields ("policy.x" for the verdict policy, "release_options.x" for
# the options of the release kind). Tooltips are for privacy officers, not programmers.
FIELDS: dict[str, FieldSpec] = {
    "data": FieldSpec(
        "Records file", STEP_DATA,
        "The CSV file of the protected records: one row per person, a header naming the "
        "columns. For a published table: the attacker's sample of similar people. Relative "
        "paths are read from the app folder.", text=True),
    "auxiliary": FieldSpec(
        "Attacker's sample (optional)", STEP_DATA,
        "A CSV of other people like those counted, with the same columns: what the attacker "
        "learns from. Leave empty to let the attacker learn from the protected records other "
        "than the targets (a strong attacker).", text=True),
    "census_records": FieldSpec(
        "People in the block", STEP_DATA,
        "How many people the synthetic census block has (paper 003: about 450).",
        integer=True),
    "census_auxiliary": FieldSpec(
        "People in the attacker's sample", STEP_DATA,
        "How many similar people the attacker knows (paper 003: about 4,000).", integer=True),
    "release_options.ways": FieldSpec(
        "Marginal orders", STEP_RELEASE,
        "Which marginals are published: 1, 2 = every count of one column and of every pair "
        "of columns (paper 003 §5.5).", text=True),
    "release_options.buckets": FieldSpec(
        "Group", STEP_RELEASE,
        "Group a whole-number column into buckets of this width (e.g. age in 5-year groups); "
        "leave the width empty to publish every value.", integer=True),
    "release_options.path": FieldSpec(
        "Query file", STEP_RELEASE,
        "Custom queries: a CSV (one query per row, a column per attribute, values separated "
        "by '|' or ranges like 20-29, empty = any) or a TOML file of [[query]] tables. "
        "Published table: a CSV of the same form with a 'count' column.", text=True),
    "fraction": FieldSpec(
        "Cells released per person", STEP_RELEASE,
        "How many cells are published, per person in the data, drawn at random: 0.25 with 450 "
        "people publishes 112 cells, whatever the tables' size (m = this × |D|; paper 003: "
        "0.25). 0 publishes every cell.",),
    "epsilon": FieldSpec(
        "ε", STEP_RELEASE,
        "Privacy-loss budget: per count or for the whole release (see the budget). Smaller "
        "means more noise and more privacy."),
    "delta": FieldSpec(
        "δ (failure probability)", STEP_RELEASE,
        "Needed by the discrete Gaussian only: a small probability that the ε guarantee does "
        "not hold, e.g. 0.00001 (1e-5)."),
    "published_records": FieldSpec(
        "People counted in the table", STEP_RELEASE,
        "How many people the published table counts (the attacker knows it; usually the "
        "table's total).", integer=True),
    "n_shadow": FieldSpec(
        "Simulated datasets", STEP_ATTACKS,
        "How many datasets DeSIA's stochastic module simulates to learn from (paper 003: "
        "20,000). Fewer are faster and a little weaker.", integer=True),
    "reconstructions": FieldSpec(
        "Reconstructions", STEP_ATTACKS,
        "How many datasets CIP and RAP rebuild from the tables before they vote (paper 003: "
        "100).", integer=True),
    "solver_time_limit": FieldSpec(
        "Solver time limit (s)", STEP_ATTACKS,
        "Seconds the solver may spend on one question about one target. A target it cannot "
        "settle in time is counted as not determined."),
    "max_targets": FieldSpec(
        "Targets attacked at most", STEP_ATTACKS,
        "The targets are the people unique on what the attacker knows; if there are more, "
        "this many are drawn at random. More give tighter intervals but take longer.",
        integer=True),
    "sweep_fractions": FieldSpec(
        "Sweep released shares", STEP_ATTACKS,
        "Optional: replay the game with these shares m/|D|, e.g. 0.05, 0.1, 0.25, 0.5, 1 "
        "(paper 003 Fig. 6). Empty = no sweep.", text=True),
    "sweep_epsilons": FieldSpec(
        "Sweep ε (Laplace per count)", STEP_ATTACKS,
        "Optional: replay the game with Laplace noise at these ε per count, e.g. 10, 2, 1, "
        "0.5, 0.1 (paper 003 Fig. 8). Empty = no sweep.", text=True),
    "sweep_targets": FieldSpec(
        "Targets per sweep point", STEP_ATTACKS,
        "How many targets each sweep point attacks.", integer=True),
    **run_fields(STEP_ATTACKS),
    **policy_fields(STEP_ATTACKS),
    "compute.cluster": FieldSpec(
        "Attack each target on", STEP_ATTACKS,
        "Where each target is attacked — the solver's proofs, the learned guesses and the "
        "reconstructions, in both games — and each sweep value is replayed. Empty: on this "
        "computer. \"local\": a private Ray instance on this computer. A Ray address such as "
        "ray://head:10001: that cluster — it receives your records and the tables, so use "
        "only a cluster on a trusted network (docs/methods/scale.md).", text=True),
}
# Fields the form assembles itself (lists, release options, data paths by source).
SPECIAL_KEYS = ("release_options.ways", "release_options.buckets", "release_options.path",
                "sweep_fractions", "sweep_epsilons", "data", "auxiliary")

KEY_STEPS = {"name": STEP_DATA, "audit_type": STEP_DATA, "schema_version": STEP_DATA,
             "schema": STEP_DATA, "sensitive": STEP_DATA, "role": STEP_DATA,
             "quasi_identifiers": STEP_DATA, "columns": STEP_DATA,
             "release": STEP_RELEASE, "release_options": STEP_RELEASE, "kind": STEP_RELEASE,
             "mechanism": STEP_RELEASE, "budget": STEP_RELEASE, "age_bins": STEP_RELEASE,
             "age_col": STEP_RELEASE, "sex_col": STEP_RELEASE, "race_col": STEP_RELEASE,
             "ways": STEP_RELEASE, "buckets": STEP_RELEASE, "path": STEP_RELEASE,
             "count": STEP_RELEASE, "query": STEP_RELEASE,
             "attacks": STEP_ATTACKS, "membership": STEP_ATTACKS, "mia_attacks": STEP_ATTACKS,
             "model": STEP_ATTACKS, "sweep_attacks": STEP_ATTACKS,
             "list_exposed_records": STEP_ATTACKS, "fpr_targets": STEP_ATTACKS,
             "policy": STEP_ATTACKS, "compute": STEP_ATTACKS}
# Engine keys of release options that name a field of the form.
OPTION_FIELDS = {"ways": "release_options.ways", "buckets": "release_options.buckets",
                 "path": "release_options.path"}


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


# ====================================================================== the page

class AggregatesPage(AuditPage):
    """Data → Release → Attacks & run for the count-tables audit (paper 003)."""

    AUDIT_TYPE = "aggregates"
    AUDIT_LABEL = "Count-tables audit"
    CONFIG_CLASS = AggregatesConfig
    FORM_STEPS = FORM_STEPS
    FIELDS = FIELDS
    KEY_STEPS = KEY_STEPS
    SAMPLE_CONFIG = SAMPLE_CONFIG
    BROWSE_FOLDER = REPO_ROOT / "resources"

    # ================================================================== building the steps

    def build_step(self, index: int, layout: QVBoxLayout) -> None:
        (self._build_data_step, self._build_release_step, self._build_attacks_step)[index](
            layout)

    def build_results_view(self) -> AggregatesResultsView:
        return AggregatesResultsView()

    def _build_data_step(self, layout: QVBoxLayout) -> None:
        # Built first (AuditPage.__init__ builds the steps before this class's __init__ would
        # run), so the page's own state starts here.
        self._records_count: int | None = None
        self._loaded_path = ""
        self._csv_schema: dict = {}
        self._csv_sensitive = ""
        self._census_sensitive = "race"
        self._filling = False
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
        row = QHBoxLayout()
        row.addWidget(self.reinfer_button)
        row.addStretch(1)
        box_layout.addLayout(row)
        layout.addWidget(box)
        layout.addWidget(note(
            "The attacker targets people who are unique on the quasi-identifiers and tries to "
            "learn their sensitive value from the tables (paper 003 §2.2–2.3). Mark as "
            "quasi-identifiers only what an attacker could know, such as block, sex and age."))

    def _build_release_step(self, layout: QVBoxLayout) -> None:
        form = QFormLayout()
        self.release_rows = ReleaseOptionRows(form, self.number_field, self.browse_release_file,
                                              self._release_changed, FIELDS)
        self.add_field_row(form, "fraction").textEdited.connect(self.schedule_preview)
        self.add_field_row(form, "published_records").textEdited.connect(
            self.schedule_preview)
        self.mechanism_combo = choice_combo(
            MECHANISM_CHOICES,
            "Random noise added to every count, then rounded to a whole number and clamped at "
            "zero (paper 003 §5.6). 'None' audits counts published exactly.")
        self.mechanism_combo.currentIndexChanged.connect(self._update_noise)
        form.addRow("Noise:", self.mechanism_combo)
        for combo in (self.release_rows.kind_combo, self.release_rows.age_bins_combo,
                      self.mechanism_combo):
            combo.setMaximumWidth(COMBO_WIDTH)
        self.add_field_row(form, "epsilon")
        self.add_field_row(form, "delta")
        self.budget_combo = choice_combo(
            BUDGET_CHOICES,
            "Per count: every count gets noise for ε (paper 003 §5.6), so the whole release "
            "spends more. Whole release: the noise is calibrated so the release as a whole is "
            "ε-DP.")
        self.budget_combo.setMaximumWidth(COMBO_WIDTH)
        form.addRow("ε applies to:", self.budget_combo)
        layout.addLayout(form)
        self._release_form = form
        box = QGroupBox("Preview: the tables this release contains")
        box_layout = QVBoxLayout(box)
        self.release_preview = ReleasePreviewView()
        box_layout.addWidget(self.release_preview)
        layout.addWidget(box)

    def _build_attacks_step(self, layout: QVBoxLayout) -> None:
        custom = self.build_depth_box(layout)     # the attack lists show under Custom only
        self.attack_boxes = self._checklist(
            custom, "Attribute-inference attacks:", ATTACKS, LABELS)
        self.membership_box = QCheckBox("Also play the membership game: is the target in the "
                                        "data at all? (paper 003 §6, Fig. 9)")
        self.membership_box.setToolTip("Half the targets are left out of the release; the "
                                       "attacks guess which. Adds the membership attacks' "
                                       "ROC, with what DP allows when there is noise.")
        self.membership_box.toggled.connect(self._update_membership)
        custom.addWidget(self.membership_box)
        self.mia_boxes = self._checklist(custom, None, MIA_ATTACKS,
                                         {**MIA_TEXTS, **LABELS}, indent=24)
        form = QFormLayout()
        self.model_combo = choice_combo(
            MODEL_CHOICES, "The classifier DeSIA's stochastic module trains on the simulated "
                           "datasets (paper 003 §4.3, §7.1).")
        self.model_combo.setMaximumWidth(COMBO_WIDTH)
        form.addRow("How the attacker learns from simulated tables:", self.model_combo)
        for key in ("n_shadow", "reconstructions", "solver_time_limit", "max_targets"):
            self.add_field_row(form, key)
        self.add_field_row(form, "compute.cluster").setPlaceholderText("this computer")
        layout.addLayout(form)

        sweeps = QGroupBox("Sweeps (optional): how the risk moves with more counts or more "
                           "noise")
        sweep_layout = QVBoxLayout(sweeps)
        sweep_form = QFormLayout()
        for key in ("sweep_fractions", "sweep_epsilons", "sweep_targets"):
            self.add_field_row(sweep_form, key).setMaximumWidth(LIST_FIELD_WIDTH)
        sweep_layout.addLayout(sweep_form)
        self.sweep_boxes = self._checklist(sweep_layout, "Attacks in the sweeps:",
                                           SWEEP_ALLOWED, LABELS, columns=2, short=True)
        layout.addWidget(sweeps)

        form = QFormLayout()
        self.add_field_row(form, "seed")
        self.add_field_row(form, "confidence")
        self.list_records_box = QCheckBox("List the exposed records and their values in the "
                                          "results")
        self.list_records_box.setToolTip(
            "Off by default: the results then say how many records the tables expose and "
            "which cells pin them down, without showing who they are. Turn on only if you may "
            "see the records; they are saved in the project file.")
        form.addRow(self.list_records_box)
        layout.addLayout(form)
        self.build_policy_box(layout)

    def _checklist(self, layout: QVBoxLayout, title: str | None, names, texts: dict, *,
                   indent: int = 0, columns: int = 1, short: bool = False
                   ) -> dict[str, QCheckBox]:
        if title:
            label = QLabel(title)
            label.setStyleSheet("font-weight: bold;")
            layout.addWidget(label)
        grid = QGridLayout()
        grid.setContentsMargins(indent, 0, 0, 0)
        boxes = {}
        for i, name in enumerate(names):
            text = texts.get(name, name.replace("_", " "))
            shown, tip = attack_box_texts(name, text)
            box = QCheckBox(shown.split(" (")[0] if short else shown)
            box.setToolTip(tip)
            boxes[name] = box
            grid.addWidget(box, i // columns, i % columns)
        grid.setColumnStretch(columns, 1)         # boxes stay together on the left
        layout.addLayout(grid)
        return boxes

    # ================================================================== form <-> dict

    def form_dict(self) -> dict:
        """The form as a config dict, on top of the loaded config (keys the form does not
        show, such as fpr_targets or extra release options, are kept)."""
        loaded = self.loaded_config
        d = dict(loaded)
        d["name"] = self.name_edit.text()
        self.apply_fields(d, skip=SPECIAL_KEYS)
        csv_mode = self.source_csv.isChecked()
        d["data"] = self.data_edit.text() if csv_mode else ""
        d["auxiliary"] = self.auxiliary_edit.text() if csv_mode else ""
        d["schema"] = self.schema_editor.schema_dict() if csv_mode else {}
        chosen = self.schema_editor.sensitive()
        same_source = bool(loaded.get("data")) == csv_mode
        d["sensitive"] = (loaded.get("sensitive", "") if same_source
                          and chosen == implied_sensitive(loaded) else chosen)
        d["release"] = self.release_rows.kind()
        d["release_options"] = self.release_rows.options(loaded.get("release_options"))
        d["mechanism"] = self.mechanism_combo.currentData()
        d["budget"] = self.budget_combo.currentData()
        d["model"] = self.model_combo.currentData()
        d["attacks"] = _checked(self.attack_boxes)
        d["membership"] = self.membership_box.isChecked()
        d["mia_attacks"] = _checked(self.mia_boxes)
        d["sweep_attacks"] = _checked(self.sweep_boxes)
        d["sweep_fractions"] = parse_list(self.fields["sweep_fractions"].text())
        d["sweep_epsilons"] = parse_list(self.fields["sweep_epsilons"].text())
        d["list_exposed_records"] = self.list_records_box.isChecked()
        return d

    def fill_form(self, config: dict) -> None:
        self._filling = True
        try:
            self.name_edit.setText(str(config.get("name", "")))
            self.fill_fields(config)
            for key in ("sweep_fractions", "sweep_epsilons"):
                self.fields[key].setText(format_list(config.get(key) or []))
            csv_mode = bool(config.get("data"))
            self._records_count = None
            self._loaded_path = ""
            sensitive = implied_sensitive(config)
            self._csv_schema = dict(config.get("schema") or {}) if csv_mode else {}
            self._csv_sensitive = sensitive if csv_mode else ""
            self._census_sensitive = sensitive if not csv_mode else "race"
            # Set the radio last: its toggle shows the matching schema.
            self.source_csv.blockSignals(True)
            self.source_census.blockSignals(True)
            (self.source_csv if csv_mode else self.source_census).setChecked(True)
            self.source_csv.blockSignals(False)
            self.source_census.blockSignals(False)
            self._show_source_schema()
            self.release_rows.set_integer_columns(self._integer_columns())
            self.release_rows.set_options(config.get("release", "p_tables"),
                                          config.get("release_options") or {})
            select_data(self.mechanism_combo, config.get("mechanism"))
            select_data(self.budget_combo, config.get("budget"))
            select_data(self.model_combo, config.get("model"))
            _check(self.attack_boxes, config.get("attacks"), DEFAULT_ATTACKS)
            self.membership_box.setChecked(config.get("membership") is not False)
            _check(self.mia_boxes, config.get("mia_attacks"), DEFAULT_MIA_ATTACKS)
            _check(self.sweep_boxes, config.get("sweep_attacks"), SWEEP_ATTACKS)
            self.list_records_box.setChecked(config.get("list_exposed_records") is True)
            for label in (self.data_status, self.auxiliary_status):
                show_status(label, "")
        finally:
            self._filling = False
        self._update_source()
        self._update_noise()
        self._update_membership()
        if csv_mode and self.data_edit.text().strip():
            self.load_records()
        if csv_mode and self.auxiliary_edit.text().strip():
            self.check_auxiliary()
        self.refresh_preview()

    # ================================================================== running

    @staticmethod
    def run_audit(config: AggregatesConfig, progress, cancel) -> dict:
        result = aggregates_audit.run(config, progress=progress, cancel=cancel)
        # run() returns an AuditResult; a plain dict (older engines) is already result.json.
        return result.to_dict() if hasattr(result, "to_dict") else result

    def validated_config(self):
        """The engine's rules, then the release preview's: a query file that does not read
        or a marginal order that is not a number is a sentence at its field before the run
        starts, not an error minutes into it."""
        config = super().validated_config()
        if config.data and self.schema_editor.schema_dict():
            # The engine checks the roles when it loads the data; say it before the run.
            self.schema_editor.validated().validate_for_audit()
        try:
            self.compute_preview()
        except InputError as exc:
            key = exc.key or ""
            if config.release in ("custom", "published") and key not in ("role",):
                key = "release_options.path"
            else:
                key = OPTION_FIELDS.get(key, key)
            raise InputError(exc.one_line(), source=exc.source, key=key) from None
        return config

    # ================================================================== data step

    def browse_data(self) -> None:
        path = self.ask_file(self.data_edit, "Choose the CSV file of records")
        if path:
            self.choose_data_file(path)

    def choose_data_file(self, path: str) -> None:
        """Use the records in ``path`` (as Browse… does): load them, infer or check the
        schema, show what was found."""
        self.data_edit.setText(path)
        clear_invalid(self.data_edit)
        self.source_csv.setChecked(True)
        self.load_records()

    def browse_auxiliary(self) -> None:
        path = self.ask_file(self.auxiliary_edit, "Choose the attacker's sample")
        if path:
            self.auxiliary_edit.setText(path)
            self.check_auxiliary()

    def browse_release_file(self) -> None:
        edit = self.fields["release_options.path"]
        path = self.ask_file(edit, "Choose the query file or published table",
                              "Query files and tables (*.csv *.toml *.txt);;All files (*)")
        if path:
            edit.setText(path)
            clear_invalid(edit)
            self.refresh_preview()

    def _data_path_edited(self) -> None:
        if self.data_edit.text().strip() != self._loaded_path:
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
        self.read_data(path, lambda: inspect_records(path, schema, sensitive, reinfer),
                       lambda info: self._records_loaded(info, path), self._records_failed,
                       self.data_status, SYNC_BYTES)

    def _records_loaded(self, info: RecordsInfo, path: Path) -> None:
        self._records_count = info.records
        clear_invalid(self.data_edit)
        if info.schema is not None:
            keep = self.schema_editor.sensitive() or self._csv_sensitive
            self.schema_editor.set_schema(info.schema, sensitive=keep)
            self._csv_schema = self.schema_editor.schema_dict()
            self._after_schema_change()
        show_status(self.data_status, records_sentence(info, path.name))
        self.schedule_preview()

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
        else:
            sensitive = self._census_sensitive
            self.schema_editor.set_schema(census_schema_dict(sensitive), editable=False,
                                          sensitive=sensitive,
                                          sensitive_choices=CENSUS_SENSITIVE)
            self.schema_editor.show_message(
                "The synthetic block's schema is fixed (paper 003 Table 2); choose which "
                "attribute the attacker tries to learn. Choose a CSV file to edit a schema.")

    def _integer_columns(self) -> list[str]:
        columns = self.schema_editor.schema_dict().get("columns") or []
        return [str(c.get("name")) for c in columns if c.get("kind") == "integer"
                and c.get("role") != "ignore"]

    # ================================================================== release preview

    def schedule_preview(self, *_args) -> None:
        """Refresh the preview once typing pauses (every keystroke would redo the tables)."""
        if not self._filling and hasattr(self, "release_preview"):
            self._preview_timer.start()

    def compute_preview(self):
        """The release preview of the form as it stands (InputError with a sentence)."""
        d = self.form_dict()
        kind = d["release"]
        if self.source_csv.isChecked():
            if not self.schema_editor.schema_dict():
                raise InputError("Choose the records file (step 1): the tables are built from "
                                 "its schema.", key="data")
            schema = self.schema_editor.validated()
            records = self._records_count
        else:
            schema = Schema.from_dict(census_schema_dict(self.schema_editor.sensitive()))
            records = d.get("census_records") if isinstance(d.get("census_records"),
                                                            int) else None
        if kind == "published":
            records = d.get("published_records") if isinstance(d.get("published_records"),
                                                               int) else None
        fraction = d.get("fraction")
        if not isinstance(fraction, (int, float)) or isinstance(fraction, bool):
            raise InputError(f"The released share m/|D| must be a number such as 0.25 (0 = "
                             f"every cell); got {given_value(fraction)}.", key="fraction")
        return preview_release(kind, d["release_options"], schema, fraction=fraction,
                               records=records, resolve=resolve_path)

    def refresh_preview(self) -> None:
        if not hasattr(self, "release_preview"):
            return
        self._preview_timer.stop()
        path_edit = self.fields["release_options.path"]
        for key in ("release_options.ways", "release_options.buckets"):
            clear_invalid(self.fields[key])
        try:
            preview = self.compute_preview()
        except InputError as exc:
            self.release_preview.show_message(plain_sentence(exc.one_line()), error=True)
            field = self.fields.get(OPTION_FIELDS.get(exc.key or "", exc.key or ""))
            if field is None and self.release_rows.kind() in ("custom", "published") \
                    and exc.source:
                field = path_edit
            if field is not None and field.isVisibleTo(self) and field.text().strip():
                field.setStyleSheet("border: 2px solid #c62828; border-radius: 3px;")
            return
        clear_invalid(path_edit)
        self.release_preview.show_preview(preview)

    # ================================================================== small reactions

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

    def _release_changed(self) -> None:
        if hasattr(self, "budget_combo"):       # not while the release rows are being built
            self._update_noise()
        self.schedule_preview()

    def _update_noise(self) -> None:
        mechanism = self.mechanism_combo.currentData()
        self.fields["epsilon"].setEnabled(mechanism != "none")
        self.fields["delta"].setEnabled(mechanism == "discrete_gaussian")
        self.budget_combo.setEnabled(mechanism != "none")
        published = self.release_rows.kind() == "published"
        self._release_form.setRowVisible(self.fields["published_records"], published)
        self.fields["fraction"].setEnabled(not published)

    def _update_membership(self) -> None:
        for box in self.mia_boxes.values():
            box.setEnabled(self.membership_box.isChecked())

    def step_of_key(self, key: str) -> int | None:
        step = super().step_of_key(key)
        if step is None and key in self.schema_editor.column_names():
            return STEP_DATA            # the engine names a column of the schema
        return step

    def reveal_key(self, key: str) -> None:
        super().reveal_key(key)
        if key in ("data", "auxiliary"):
            self.source_csv.setChecked(True)
        self.schema_editor.mark_key(key)


def _checked(boxes: dict[str, QCheckBox]) -> list[str]:
    return [name for name, box in boxes.items() if box.isChecked()]


def _check(boxes: dict[str, QCheckBox], chosen, default) -> None:
    chosen = set(default if not isinstance(chosen, (list, tuple)) else chosen)
    for name, box in boxes.items():
        box.setChecked(name in chosen)


