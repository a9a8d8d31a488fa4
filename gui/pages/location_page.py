"""The location audit page: "Can someone tell whether a person is in these counts of people per
place and hour?" (paper 000).

Data → Release → Attacker → Attacks & run, then the Results and Report steps every audit page
has (:class:`gui.pages.audit_page.AuditPage` owns the steps, run bar, inline errors, export and
project state). This module holds only what is the location audit's own: its fields with their
plain-language tooltips, the data preview (a sites × epochs heat map of the aggregate), the
attack check boxes and the mapping between the form and a ``LocationConfig`` dict.
"""

from __future__ import annotations

from PySide6.QtWidgets import (
    QCheckBox,
    QFormLayout,
    QHBoxLayout,
    QLabel,
    QPushButton,
    QRadioButton,
    QVBoxLayout,
    QWidget,
)

from engine.audits.location import ATTACKS, DEFAULT_ATTACKS, LocationConfig
from engine.data.errors import InputError
from engine.data.paths import APP_FOLDER
from engine.mechanisms import MECHANISM_LABELS
from gui.job_runner import JobError
from gui.pages.audit_page import (
    AuditPage,
    FormStep,
    audit_steps,
    plain_sentence,
    policy_fields,
    resolve_path,
    run_fields,
)
from gui.pages.location_preview import DataPreview, DataPreviewPlot, load_preview
from gui.widgets.form import (
    FieldSpec,
    attack_box_texts,
    choice_combo,
    clear_invalid,
    mark_invalid,
    select_data,
)
from gui.widgets.location_results import LocationResultsView
from gui.widgets.steps import note

SAMPLE_CONFIG = APP_FOLDER / "resources" / "configs" / "location_demo.toml"
PREVIEW_SYNC_BYTES = 5_000_000      # smaller files are previewed at once, larger ones as a job

FORM_STEPS = (
    FormStep("Data", "Which movement data is released?",
             "Choose the traces the counts are made from: a CSV file with one row per person, "
             "place and hour, or a synthetic city to try the audit out. Press Preview "
             "to check that the file reads as you expect.",
             "Next: 2 Release — how the counts are published."),
    FormStep("Release", "What is published, and how is it protected?",
             "The release is a table of counts: how many of the people in a release were at each "
             "place in each hour. Describe how many people it covers, how each person's contribution is "
             "limited and which noise protects it. Hover over any field for an explanation.",
             "Next: 3 Attacker — what the attacker knows."),
    FormStep("Attacker", "Whom is the attacker after, and what do they know?",
             "The attacker wants to find out whether one person (the target) is in the release. "
             "They know the target's trace and learn from simulated releases built from people "
             "like those in the data.",
             "Next: 4 Attacks & run."),
    FormStep("Attacks & run", "Attacks and how precisely to measure them",
             "The defaults suit most audits. Press Run when ready; you can keep reading while it "
             "runs."),
)
STEPS = audit_steps(FORM_STEPS)
STEP_DATA, STEP_RELEASE, STEP_ATTACKER, STEP_RUN, STEP_RESULTS, STEP_REPORT = range(len(STEPS))

EPOCH_UNIT_CHOICES = (("", "Whole numbers 0, 1, 2, … (one per hour)"),
                      ("hour", "Timestamps, grouped by hour"),
                      ("day", "Timestamps, grouped by day"))
MECHANISM_CHOICES = (*MECHANISM_LABELS.items(), ("none", "None (counts published exactly)"))
TARGET_CHOICES = (("most_exposed", "The most exposed person (the most observations)"),
                  ("observations", "A person with about a given number of observations"),
                  ("random", "A person picked at random"),
                  ("id", "A specific person, by id"))
ATTACKER_CHOICES = (("informed", "Knows everyone else in the release (what DP protects against)"),
                    ("partial", "Knows some of the other people in the release"),
                    ("auxiliary", "Knows nobody in the release, but has similar people's traces"))
THRESHOLD_RULE_CHOICES = (
    ("best_accuracy", "Each place and hour: the threshold that was right most often"),
    ("midpoint", "Each place and hour: halfway between the averages (paper 000, Alg. 5)"))
THRESHOLD_RULE_TIP = (
    "How the two-threshold attack sets the threshold of each place and hour it looks at, "
    "from the releases the attacker simulates. “Right most often” tries every threshold and "
    "keeps the one that guesses best (the default). “Halfway between the averages” takes the "
    "middle between that count's average with and without the person, as the paper "
    "describes it. The report says which one was used.")
# What to do with a published release's empty counts (issue 21): an empty count is unknown,
# never 0 (engine.data.traces.load_release).
RELEASE_MISSING_CHOICES = (
    ("drop_rows", "Leave the row out (stop if an attack needs that count)"),
    ("error", "Refuse the file until every count is filled in"))
RELEASE_MISSING_TIP = (
    "What to do when a row of the published release has no count (an empty cell, or a mark "
    "such as NA). An empty count is not a zero: the row is left out and its count treated as "
    "unknown, and the audit stops and names the row if an attack needs that count. Or the "
    "file is refused, naming the first empty row. Either way the report lists the empty "
    "cells of each column.")
ATTACK_TEXTS = {
    "one_threshold": ("One-threshold attack",
                      "Adds up the counts where the target was seen and compares the sum with "
                      "one threshold learnt from simulated releases (paper 000, Alg. 2 + 3). "
                      "Fast."),
    "two_threshold": ("Two-threshold attack",
                      "Counts the places and hours whose count is above a threshold learnt for "
                      "each of them (paper 000, Alg. 4 + 5). Fast and often stronger."),
    "meta_classifier": ("Neural meta-classifier (MLP)",
                        "A small neural network trained on the simulated releases, as in the "
                        "literature (paper 000, Fig. 11(b)). The slowest attack; shows what it "
                        "learnt."),
    "meta_classifier_100": ("Neural meta-classifier with 100 hidden units",
                            "The wider network of earlier work; slower still, rarely stronger."),
    "reference": ("Reference attack (Dwork et al.)",
                  "Compares the release with the target and with a few reference people from "
                  "the attacker's own data. Fast."),
    "likelihood_ratio": ("Likelihood-ratio attack",
                         "Weighs every count with the exact noise law: close to the best any "
                         "attacker can do (beyond paper 000). Fast."),
}

# Keys are LocationConfig fields ("policy.x" for the verdict policy). Tooltips are for privacy
# officers, not programmers.
FIELDS: dict[str, FieldSpec] = {
    "traces": FieldSpec(
        "Traces file", STEP_DATA,
        "The CSV file with one row per person, place and hour (e.g. user_id, site, epoch). "
        "Relative paths are read from the app folder.", text=True),
    "user_col": FieldSpec("Person column", STEP_DATA,
                          "Name of the column that identifies the person.", text=True),
    "site_col": FieldSpec("Place column", STEP_DATA,
                          "Name of the column that names the place (site, cell, antenna…).",
                          text=True),
    "epoch_col": FieldSpec("Time column", STEP_DATA,
                           "Name of the column with the hour: a whole number, or "
                           "a timestamp when the time unit below is hour or day.", text=True),
    "count_col": FieldSpec("Count column (optional)", STEP_DATA,
                           "Leave empty if every row is one presence. Otherwise the column whose "
                           "value 0 means absent and any positive number means present.",
                           text=True),
    "city_users": FieldSpec("People in the synthetic city", STEP_DATA,
                            "How many people the generated city has (10 to 200 000).",
                            integer=True),
    "city_epochs": FieldSpec("Hours simulated", STEP_DATA,
                             "How many hours the generated city covers (12 × 8 grid of "
                             "places).", integer=True),
    "aggregate_size": FieldSpec(
        "People in a release", STEP_RELEASE,
        "How many people the published counts are made from, besides the target. Fewer "
        "people make each person easier to spot.", integer=True),
    "clip_per_epoch": FieldSpec(
        "Places kept per person and hour", STEP_RELEASE,
        "Each person counts in at most this many places per hour; extra visits are dropped. "
        "1 is the usual choice and the most private.", integer=True),
    "epsilon": FieldSpec(
        "ε per hour", STEP_RELEASE,
        "Privacy-loss budget for ONE hour of counts (one period of the time column). Smaller is more private. "
        "A person seen in many hours spends it many times."),
    "delta": FieldSpec(
        "δ (failure probability)", STEP_RELEASE,
        "Small probability that the ε guarantee does not hold; needed for Gaussian noise. Keep "
        "it far below one over the number of people, e.g. 0.00001 (1e-5)."),
    "target_id": FieldSpec(
        "Target id", STEP_ATTACKER,
        "The id of the person to audit, exactly as in the person column.", text=True),
    "target_observations": FieldSpec(
        "Observations of the target", STEP_ATTACKER,
        "With 'a person with about a given number of observations': the person whose number "
        "of observations (after clipping) is closest to this (paper 000 audits people with "
        "60).", integer=True),
    "release": FieldSpec(
        "Published release (optional)", STEP_ATTACKER,
        "A release that was already published: a CSV with site, hour and count. The app then "
        "attacks that release; your traces become the attacker's own data, so the attacker "
        "must be 'knows nobody in the release'. Leave empty to simulate releases.", text=True),
    "known_fraction": FieldSpec(
        "Share of the release known", STEP_ATTACKER,
        "For an attacker who knows some of the release: the share of the other people whose "
        "traces they know (0.5 = half)."),
    "auxiliary_size": FieldSpec(
        "People in the attacker's own data", STEP_ATTACKER,
        "How many people's traces the attacker has to simulate releases with (people not in "
        "the release). 0 = half of everyone except the target.", integer=True),
    "shadow_aggregates": FieldSpec(
        "Simulated releases for training", STEP_ATTACKER,
        "How many releases the attacker simulates to learn their rule (half with the target). "
        "2 000 as in paper 000.", integer=True),
    "large_shadow_aggregates": FieldSpec(
        "… for a second, better-trained network", STEP_ATTACKER,
        "0 = none. Otherwise the neural meta-classifier is trained again on this many "
        "simulated releases (paper 000 used 200 000), to see if more data helps it. Slow.",
        integer=True),
    "test_aggregates": FieldSpec(
        "Releases to test the attacks on", STEP_ATTACKER,
        "How many fresh releases each attack is measured on (half with the target). More give "
        "tighter confidence intervals but take longer. 20 000 is a good default.", integer=True),
    "reference_traces": FieldSpec(
        "Reference people", STEP_RUN,
        "For the reference attack: how many people from the attacker's own data it compares "
        "the release with.", integer=True),
    "repetitions": FieldSpec(
        "Repetitions", STEP_RUN,
        "How many times the whole game is replayed (paper 000 repeats its experiments). Each "
        "replay splits the people afresh into the attacker's own data and the people "
        "released, and simulates fresh releases. The results then also show how much each "
        "attack's accuracy moves with that luck, beside the first run's interval. 1 = once.",
        integer=True),
    "sweep_targets": FieldSpec(
        "Targets for accuracy vs observations", STEP_RUN,
        "How many further people, seen in few to many places, are attacked to draw how accuracy "
        "grows with the number of observations (0 = skip this plot).", integer=True),
    "sweep_test_aggregates": FieldSpec(
        "Releases per target in that plot", STEP_RUN,
        "How many test releases each of those people is measured on.", integer=True),
    **run_fields(STEP_RUN),
    **policy_fields(STEP_RUN),
    "compute.cluster": FieldSpec(
        "Run the repetitions and the hours chart on", STEP_RUN,
        "Empty: on this computer. \"local\": a private Ray instance on this computer. A Ray "
        "address such as ray://head:10001: that cluster — it receives your traces, so use only "
        "a cluster on a trusted network (docs/methods/scale.md).", text=True),
}
DATA_KEYS = ("traces", "user_col", "site_col", "epoch_col", "count_col", "epoch_unit",
             "city_users", "city_epochs", "seed")

KEY_STEPS = {"name": STEP_DATA, "epoch_unit": STEP_DATA, "audit_type": STEP_DATA,
             "schema_version": STEP_DATA, "user": STEP_DATA, "site": STEP_DATA,
             "epoch": STEP_DATA, "count": STEP_DATA, "mechanism": STEP_RELEASE,
             "target": STEP_ATTACKER, "attacker": STEP_ATTACKER, "attacks": STEP_RUN,
             "list_exposed_ids": STEP_RUN, "fpr_targets": STEP_RUN, "policy": STEP_RUN,
             "threshold_rule": STEP_RUN, "per_cell_fpr": STEP_RUN, "compute": STEP_RUN,
             "release_missing": STEP_ATTACKER}


# ====================================================================== the page

class LocationPage(AuditPage):
    """Form, data preview, run controls and results of one location audit."""

    AUDIT_TYPE = "location"
    AUDIT_LABEL = "Location audit"
    CONFIG_CLASS = LocationConfig
    FORM_STEPS = FORM_STEPS
    FIELDS = FIELDS
    KEY_STEPS = KEY_STEPS
    SAMPLE_CONFIG = SAMPLE_CONFIG

    def __init__(self, runner, parent: QWidget | None = None) -> None:
        self._preview_job: int | None = None
        self.preview: DataPreview | None = None
        super().__init__(runner, parent)

    # ================================================================== building the steps

    def build_step(self, index: int, layout: QVBoxLayout) -> None:
        (self._build_data_step, self._build_release_step, self._build_attacker_step,
         self._build_run_step)[index](layout)

    def build_results_view(self) -> LocationResultsView:
        return LocationResultsView()

    def _build_data_step(self, layout: QVBoxLayout) -> None:
        form = QFormLayout()
        self.add_name_row(form)
        self.source_csv = QRadioButton("Traces from a CSV file")
        self.source_csv.setToolTip("Audit your own data: one row per person, place and hour.")
        self.source_city = QRadioButton("A synthetic city (to try the audit out)")
        self.source_city.setToolTip("A generated city of people moving between 96 places; no "
                                    "file needed.")
        self.source_group = self.add_radio_row(form, "Data:",
                                               (self.source_csv, self.source_city))
        for button in (self.source_csv, self.source_city):
            button.toggled.connect(self._update_source)

        traces, _status = self.path_row(form, "traces", "Choose the CSV file of traces",
                                        self.browse_traces)
        self.browse_button = traces.browse_button
        for key in ("user_col", "site_col", "epoch_col", "count_col"):
            self.add_field_row(form, key)
        self.epoch_unit_combo = choice_combo(
            EPOCH_UNIT_CHOICES,
            "How the time column is written: hour numbers, or timestamps that are grouped "
            "into hours or days (the first hour or day in the file is number 0; a day then counts as one hour does).")
        form.addRow("Time column holds:", self.epoch_unit_combo)
        self.add_field_row(form, "city_users")
        self.add_field_row(form, "city_epochs")
        layout.addLayout(form)

        preview_row = QHBoxLayout()
        self.preview_button = QPushButton("Preview")
        self.preview_button.setToolTip("Load the data now and show how many people are counted "
                                       "at each place and time, to check it reads correctly.")
        self.preview_button.clicked.connect(self.preview_data)
        preview_row.addWidget(self.preview_button)
        self.preview_label = QLabel("Press Preview to check the data.")
        self.preview_label.setWordWrap(True)
        preview_row.addWidget(self.preview_label, 1)
        layout.addLayout(preview_row)
        self.preview_plot = DataPreviewPlot()
        layout.addWidget(self.preview_plot)

    def _build_release_step(self, layout: QVBoxLayout) -> None:
        form = QFormLayout()
        self.add_field_row(form, "aggregate_size")
        self.add_field_row(form, "clip_per_epoch")
        self.mechanism_combo = choice_combo(
            MECHANISM_CHOICES,
            "The random noise added to every count. Laplace noise gives pure ε-DP; Gaussian "
            "noise needs a small δ; the discrete versions add whole numbers. 'None' audits "
            "counts published without protection.")
        self.mechanism_combo.currentIndexChanged.connect(self._update_mechanism)
        form.addRow("Noise mechanism:", self.mechanism_combo)
        self.add_field_row(form, "epsilon")
        self.add_field_row(form, "delta")
        layout.addLayout(form)
        layout.addWidget(note(
            "One person changes one hour's counts by at most the places kept per person and "
            "hour, so the noise is "
            "calibrated to give ε per hour; over all the hours a person is seen in, the "
            "privacy loss adds up (shown as the composed ε in the results)."))

    def _build_attacker_step(self, layout: QVBoxLayout) -> None:
        form = QFormLayout()
        self.target_combo = choice_combo(
            TARGET_CHOICES,
            "Whom the attacker tries to detect. The most exposed person is the worst case: "
            "the person seen in the most places and times.")
        self.target_combo.currentIndexChanged.connect(self._update_target)
        form.addRow("Target:", self.target_combo)
        self.add_field_row(form, "target_id")
        self.add_field_row(form, "target_observations")
        self.attacker_combo = choice_combo(
            ATTACKER_CHOICES,
            "How much the attacker knows about the other people in the release. Knowing "
            "everyone else is the worst case DP is designed for; knowing nobody is more "
            "realistic.")
        self.attacker_combo.currentIndexChanged.connect(self._update_attacker)
        form.addRow("The attacker:", self.attacker_combo)
        self.add_field_row(form, "known_fraction")
        self.add_field_row(form, "auxiliary_size")
        self.add_field_row(form, "shadow_aggregates")
        self.add_field_row(form, "large_shadow_aggregates")
        self.add_field_row(form, "test_aggregates")
        release, _status = self.path_row(form, "release", "Choose a published release "
                                         "(site, hour, count)", self.browse_release)
        self.browse_release_button = release.browse_button
        self.release_missing_combo = choice_combo(RELEASE_MISSING_CHOICES, RELEASE_MISSING_TIP)
        form.addRow("If a released count is empty:", self.release_missing_combo)
        layout.addLayout(form)

    def _build_run_step(self, layout: QVBoxLayout) -> None:
        custom = self.build_depth_box(layout)     # the attack list shows under Custom only
        attacks_label = QLabel("Attacks to run:")
        attacks_label.setStyleSheet("font-weight: bold;")
        custom.addWidget(attacks_label)
        self.attack_boxes: dict[str, QCheckBox] = {}
        for name in ATTACKS:
            technical, about = ATTACK_TEXTS.get(name, (name.replace("_", " "), ""))
            text, tip = attack_box_texts(name, f"{technical}: {about}" if about else technical)
            box = QCheckBox(text)
            box.setToolTip(tip)
            self.attack_boxes[name] = box
            custom.addWidget(box)
        form = QFormLayout()
        self.threshold_rule_combo = choice_combo(THRESHOLD_RULE_CHOICES, THRESHOLD_RULE_TIP)
        form.addRow("Place-by-place count check's rule:", self.threshold_rule_combo)
        # The rule only matters to the two-threshold attack.
        self.attack_boxes["two_threshold"].toggled.connect(self.threshold_rule_combo.setEnabled)
        self.add_field_row(form, "reference_traces")
        self.add_field_row(form, "repetitions")
        self.add_field_row(form, "sweep_targets")
        self.add_field_row(form, "sweep_test_aggregates")
        self.add_field_row(form, "seed")
        self.add_field_row(form, "confidence")
        self.add_field_row(form, "compute.cluster").setPlaceholderText("this computer")
        self.list_ids_box = QCheckBox("List the exposed people by id in the results")
        self.list_ids_box.setToolTip("Off by default: the results then say how many people are "
                                     "exposed without naming them. Turn on only if you may see "
                                     "the ids; they are saved in the project file.")
        form.addRow(self.list_ids_box)
        layout.addLayout(form)
        self.build_policy_box(layout)

    # ================================================================== form <-> dict

    def form_dict(self) -> dict:
        """The form as a config dict, on top of the loaded config (keys the form does not show,
        such as fpr_targets, are kept)."""
        d = dict(self.loaded_config)
        d["name"] = self.name_edit.text()
        d["epoch_unit"] = self.epoch_unit_combo.currentData()
        d["mechanism"] = self.mechanism_combo.currentData()
        d["target"] = self.target_combo.currentData()
        d["attacker"] = self.attacker_combo.currentData()
        d["threshold_rule"] = self.threshold_rule_combo.currentData()
        d["release_missing"] = self.release_missing_combo.currentData()
        d["attacks"] = [name for name, box in self.attack_boxes.items() if box.isChecked()]
        d["list_exposed_ids"] = self.list_ids_box.isChecked()
        self.apply_fields(d)
        if self.source_city.isChecked():
            d["traces"] = ""
        return d

    def fill_form(self, config: dict) -> None:
        self.name_edit.setText(str(config.get("name", "")))
        self.fill_fields(config)
        if config.get("traces"):
            self.source_csv.setChecked(True)
        else:
            self.source_city.setChecked(True)
        select_data(self.epoch_unit_combo, config.get("epoch_unit", ""))
        select_data(self.mechanism_combo, config.get("mechanism"))
        select_data(self.target_combo, config.get("target"))
        select_data(self.attacker_combo, config.get("attacker"))
        select_data(self.threshold_rule_combo,
                    config.get("threshold_rule", LocationConfig.threshold_rule))
        select_data(self.release_missing_combo,
                    config.get("release_missing", LocationConfig.release_missing))
        chosen = config.get("attacks")
        chosen = set(DEFAULT_ATTACKS if not isinstance(chosen, (list, tuple)) else chosen)
        for name, box in self.attack_boxes.items():
            box.setChecked(name in chosen)
        self.threshold_rule_combo.setEnabled(self.attack_boxes["two_threshold"].isChecked())
        self.list_ids_box.setChecked(config.get("list_exposed_ids") is True)
        self._update_source()
        self._update_mechanism()
        self._update_target()
        self._update_attacker()
        self._show_preview(None, "Press Preview to check the data.")

    # ================================================================== running


    # ================================================================== data step

    def browse_traces(self) -> None:
        if self._browse_csv("traces", "Choose the traces file"):
            self.source_csv.setChecked(True)

    def browse_release(self) -> None:
        if self._browse_csv("release", "Choose the published release"):
            select_data(self.attacker_combo, "auxiliary")

    def _browse_csv(self, key: str, title: str) -> bool:
        path = self.ask_file(self.fields[key], title)
        if path:
            self.fields[key].setText(path)
            clear_invalid(self.fields[key])
        return bool(path)

    def data_settings(self) -> dict:
        """The Data step as a config dict (only its keys, so other steps cannot block it)."""
        d = self.form_dict()
        return {key: d[key] for key in DATA_KEYS if key in d}

    def preview_data(self) -> None:
        """Load the data and show its heat map: at once for small files and the synthetic city
        (well under a second), on the job runner for large files (the window never freezes)."""
        if self._preview_job is not None:
            return
        for key in DATA_KEYS:
            if key in self.fields:
                clear_invalid(self.fields[key])
        data = self.data_settings()
        path = resolve_path(data.get("traces") or "") if data.get("traces") else None
        large = path is not None and path.is_file() and path.stat().st_size > PREVIEW_SYNC_BYTES
        if not large:
            try:
                preview = load_preview(data)
            except InputError as exc:
                self._preview_failed(exc.one_line(), exc.key or "")
                return
            self._show_preview(preview)
            return
        if self.runner.is_busy():
            self._show_preview(None, "Another job is running; preview when it has finished.")
            return
        self.preview_button.setEnabled(False)
        self.preview_label.setStyleSheet("")
        self.preview_label.setText("Loading the data…")
        self._preview_job = self.runner.submit(
            lambda progress, cancel: load_preview(data), self._on_preview_done,
            self._on_preview_error, label="Data preview")

    def _on_preview_done(self, preview: DataPreview) -> None:
        self._preview_job = None
        self.preview_button.setEnabled(True)
        self._show_preview(preview)

    def _on_preview_error(self, error: JobError) -> None:
        self._preview_job = None
        self.preview_button.setEnabled(True)
        self._preview_failed(error.message, error.key)

    def _preview_failed(self, message: str, key: str) -> None:
        """The engine's sentence in red under the button; the field at fault marked; what the
        user typed is kept."""
        message = plain_sentence(message)
        self.preview = None
        self.preview_plot.set_aggregate(None)
        self.preview_label.setStyleSheet("color: #c62828;")
        self.preview_label.setText(message)
        edit = self.fields.get(key)
        if edit is None and self.source_csv.isChecked():
            edit = self.fields["traces"]
        if edit is not None:
            mark_invalid(edit)

    def _show_preview(self, preview: DataPreview | None, text: str = "") -> None:
        self.preview = preview
        self.preview_label.setStyleSheet("")
        self.preview_label.setText(preview.sentence() if preview else text)
        self.preview_plot.set_aggregate(preview.aggregate if preview else None)

    # ================================================================== small reactions

    def _update_source(self) -> None:
        csv = self.source_csv.isChecked()
        for key in ("traces", "user_col", "site_col", "epoch_col", "count_col"):
            self.fields[key].setEnabled(csv)
        self.browse_button.setEnabled(csv)
        self.epoch_unit_combo.setEnabled(csv)
        for key in ("city_users", "city_epochs"):
            self.fields[key].setEnabled(not csv)

    def _update_mechanism(self) -> None:
        noisy = self.mechanism_combo.currentData() != "none"
        self.fields["epsilon"].setEnabled(noisy)
        self.fields["delta"].setEnabled(noisy)

    def _update_target(self) -> None:
        rule = self.target_combo.currentData()
        self.fields["target_id"].setEnabled(rule == "id")
        self.fields["target_observations"].setEnabled(rule == "observations")

    def _update_attacker(self) -> None:
        attacker = self.attacker_combo.currentData()
        self.fields["known_fraction"].setEnabled(attacker == "partial")

    def reveal_key(self, key: str) -> None:
        super().reveal_key(key)
        if key == "target_id":
            select_data(self.target_combo, "id")
        elif key in ("traces", "user_col", "site_col", "epoch_col", "count_col", "epoch_unit"):
            self.source_csv.setChecked(True)
