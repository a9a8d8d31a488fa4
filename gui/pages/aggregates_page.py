"""The count-tables audit page: "Will this count table let someone learn a person's attribute?"
(paper 003).

Data → Release → Attacks & run, then the Results and Report steps every audit page has
(:class:`gui.pages.audit_page.AuditPage` owns the steps, run bar, inline errors, export and
project state). This module holds what is this audit's own beyond its Data step
(:mod:`gui.pages.aggregates_data_step`: the records, the schema and the roles proposed for a
new file) and its fields (:mod:`gui.pages.aggregates_fields`): the release builder with its
preview (:mod:`gui.widgets.release_builder`), the attack check lists and the mapping between
the form and an ``AggregatesConfig`` dict. The run goes through the audit registry
(issue 33 item 2).
"""

from __future__ import annotations

from PySide6.QtWidgets import (
    QCheckBox,
    QFormLayout,
    QGridLayout,
    QGroupBox,
    QLabel,
    QVBoxLayout,
)

from engine.attacks.aggregates import LABELS
from engine.audits import registry
from engine.audits.aggregates import (
    ATTACKS,
    DEFAULT_ATTACKS,
    DEFAULT_MIA_ATTACKS,
    MIA_ATTACKS,
    SWEEP_ALLOWED,
    SWEEP_ATTACKS,
    AggregatesConfig,
)
from engine.data.errors import InputError, given_value
from engine.data.microdata import Schema
from engine.data.paths import APP_FOLDER
from gui.pages.aggregates_data_step import (
    AggregatesDataStep,
    census_schema_dict,
    implied_sensitive,
)
from gui.pages.aggregates_fields import (
    BUDGET_CHOICES,
    FIELDS,
    FORM_STEPS,
    KEY_STEPS,
    MECHANISM_CHOICES,
    MIA_TEXTS,
    MODEL_CHOICES,
    OPTION_FIELDS,
    SPECIAL_KEYS,
    STEP_ATTACKS,
    STEP_DATA,
    STEP_RELEASE,
    STEP_REPORT,
    STEP_RESULTS,
    STEPS,
)
from gui.pages.aggregates_rules_fields import RulesFields, complete_rules
from gui.pages.audit_page import (
    AuditPage,
    plain_sentence,
    resolve_path,
    show_status,
)
from gui.widgets.aggregates_results import AggregatesResultsView
from gui.widgets.form import (
    attack_box_texts,
    choice_combo,
    clear_invalid,
    select_data,
)
from gui.widgets.release_builder import (
    ReleaseOptionRows,
    ReleasePreviewView,
    format_list,
    parse_list,
    preview_release,
)

SAMPLE_CONFIG = APP_FOLDER / "resources" / "configs" / "aggregates_demo.toml"
SAMPLE_DATA = "resources/aggregates/sample_block.csv"
LIST_FIELD_WIDTH = 360          # a few numbers such as "0.05, 0.1, 0.25, 0.5, 1"
COMBO_WIDTH = 620               # drop-downs wide enough for their longest choice, no wider
# Names other modules and tests read from this page.
__all__ = ["FIELDS", "SAMPLE_CONFIG", "SAMPLE_DATA", "STEPS", "STEP_ATTACKS", "STEP_DATA",
           "STEP_RELEASE", "STEP_REPORT", "STEP_RESULTS", "AggregatesPage"]


# ====================================================================== the page

class AggregatesPage(RulesFields, AggregatesDataStep, AuditPage):
    """Data → Release → Attacks & run for the count-tables audit (paper 003)."""

    AUDIT_TYPE = "aggregates"
    AUDIT_LABEL = "Count-tables audit"
    CONFIG_CLASS = AggregatesConfig
    FORM_STEPS = FORM_STEPS
    FIELDS = FIELDS
    KEY_STEPS = KEY_STEPS
    SAMPLE_CONFIG = SAMPLE_CONFIG
    BROWSE_FOLDER = APP_FOLDER / "resources"

    # ================================================================== building the steps

    def build_step(self, index: int, layout: QVBoxLayout) -> None:
        (self._build_data_step, self._build_release_step, self._build_attacks_step)[index](
            layout)

    def build_results_view(self) -> AggregatesResultsView:
        return AggregatesResultsView()

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
        self.build_rules_box(layout)        # issue 34 item 2 (gui.pages.aggregates_rules_fields)

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
        return self.rules_form(d)

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
            self._proposal = None               # a config's schema is the user's, not proposed
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
            self.fill_rules(config)
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

    def complete_config(self, config: dict) -> dict:
        """The defaults for every key ``config`` lacks, and for every rule setting (a project
        saved with some rule settings keeps the defaults of the others)."""
        return complete_rules(super().complete_config(config),
                              self.default_config().get("rules"))

    # ================================================================== running

    @staticmethod
    def run_audit(config: AggregatesConfig, progress, cancel) -> dict:
        return registry.run_audit(config, progress=progress, cancel=cancel).to_dict()

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

    def browse_release_file(self) -> None:
        edit = self.fields["release_options.path"]
        path = self.ask_file(edit, "Choose the query file or published table",
                              "Query files and tables (*.csv *.toml *.txt);;All files (*)")
        if path:
            edit.setText(path)
            clear_invalid(edit)
            self.refresh_preview()

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
        self.refresh_rule_columns()         # the number columns a table of sums can add up
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


