"""Machine-learning model page (papers 001, 004): the page builds, the form round-trips the
sample config, the home card opens it, a training CSV gets a one-line preview and a bad one a
sentence beside the field, the CSV's columns are inferred into an editable table whose edits
are the config's schema (saved with the project and restored), the label and members fields
and the table follow each other, the cost estimate follows the attacks, a real (tiny) run
renders with the Thm 2 line on the ROC, the wheel scrolls the page over the ROC plot, and a
wheel turn over the columns table never changes a role."""

from __future__ import annotations

import csv
from pathlib import Path

import pytest
from PySide6.QtCore import QPoint, QPointF, Qt
from PySide6.QtGui import QWheelEvent
from PySide6.QtTest import QTest
from PySide6.QtWidgets import QApplication, QFileDialog

import gui.pages.model_data_step as model_data_step
from engine.audits.model import ModelConfig, demo_config
from engine.data.tabular import TabularSchema
from engine.plots.series import attack_label, legend_name
from engine.project import load_project
from gui.job_runner import JobRunner
from gui.main_window import MainWindow
from gui.pages.model_page import (
    SAMPLE_DATA,
    STEP_ATTACKS,
    STEP_DATA,
    STEP_RESULTS,
    ModelPage,
    cost_estimate,
)
from gui.pages.registry import page_class
from gui.widgets.model_results import BOUND_LABEL
from gui.widgets.model_schema_editor import COL_ENCODING, COL_INPUTS, COL_ROLE
from gui.widgets.schema_table import ChoiceCombo
from tests.gui.test_plot_wheel import assert_wheel_scrolls_page

RUN_TIMEOUT_MS = 90_000
BAD = Path(__file__).resolve().parents[1] / "data" / "bad_inputs"
REPO = Path(__file__).resolve().parents[2]
# Tiny but real: an overfit MLP on 800 purchase-style records, 2 shadow and 2 reference
# models, four attacks (a few seconds on a CPU).
TINY_RUN = {"synthetic_records": 800, "epochs": 10, "shadow_models": 2,
            "reference_models": 2, "attacks": ["btta", "cbtta", "confidence", "lira_online"],
            "exposed_count": 5}


@pytest.fixture
def page(qtbot, plots_configured):
    page = ModelPage(JobRunner())
    qtbot.addWidget(page)
    return page


def config(**changes) -> dict:
    return ModelConfig.from_dict({"audit_type": "model", **changes}).to_dict()


def columns(schema: dict) -> dict[str, dict]:
    return {c["name"]: c for c in schema["columns"]}


def sample_with_label(page) -> None:
    """The bundled mixed sample, its label ('defaulted') chosen in the table."""
    page.choose_data_file(SAMPLE_DATA)
    page.schema_editor.set_role("defaulted", "label")
    page.recheck_data()


def test_home_card_opens_the_page_and_the_sample_round_trips(main_window, qtbot):
    assert page_class("model") is ModelPage
    card = next(c for c in main_window.home_page.cards if c.audit_type == "model")
    assert card.isEnabled()
    qtbot.mouseClick(card, Qt.MouseButton.LeftButton)
    page = main_window.audit_pages["model"]
    assert main_window.stack.currentWidget() is page

    sample = page.sample_config()
    assert sample == demo_config().to_dict()
    page.set_config(sample)
    assert page.source_train.isChecked() and page.records_combo.currentData() == "purchase"
    assert ModelConfig.from_dict(page.form_dict()).to_dict() == sample
    assert page.validated_config().to_dict() == sample
    assert "25 models to train" in page.cost_label.text()

    # Bring predictions: the fields round-trip too, and the train box is hidden.
    preds = config(source="predictions", predictions="p.csv", reference_predictions="s.csv",
                   prediction_kind="logits", attacks=["btta", "shokri"], cbtta_partition="PPC",
                   list_exposed_records=True)
    page.set_config(preds)
    assert page.source_predictions.isChecked()
    assert not page.train_box.isVisibleTo(page) and page.predictions_box.isVisibleTo(page)
    assert ModelConfig.from_dict(page.form_dict()).to_dict() == preds
    assert "No model is trained" in page.cost_label.text()


def test_csv_preview_and_a_bad_csv_gives_a_sentence_beside_the_field(page):
    page.choose_data_file(SAMPLE_DATA)
    assert page.records_combo.currentData() == "csv"
    assert "no column is named label" in page.data_status.text()     # says which to set
    page.label_edit.setText("defaulted")
    page._columns_edited()
    text = page.data_status.text()
    assert "2,000 records" in text and "2 classes" in text and "'defaulted'" in text
    assert "million record-passes" in page.cost_label.text()
    assert page.form_dict()["data"] == SAMPLE_DATA
    assert page.form_dict()["label"] == "defaulted"

    missing = "no/such/records.csv"
    page.choose_data_file(missing)
    text = page.data_status.text()
    assert "file not found" in text and "Traceback" not in text
    assert page.data_status.isVisibleTo(page) and "c62828" in page.data_status.styleSheet()
    assert page.data_edit.text() == missing                # the entry is kept

    page.choose_data_file(str(BAD / "tabular" / "one_class.csv"))
    assert page.data_status.text() and "Traceback" not in page.data_status.text()
    assert "c62828" in page.data_status.styleSheet()


def test_csv_chosen_without_a_file_is_a_sentence_at_the_field(page):
    page.set_config(config())
    page.source_train.setChecked(True)
    page.records_combo.setCurrentIndex(page.records_combo.findData("csv"))
    page.data_edit.setText("")
    page.step_list.setCurrentRow(STEP_ATTACKS)
    page.run_button.click()
    assert not page.is_running()
    assert page.steps.currentIndex() == STEP_DATA
    assert "CSV file of records" in page.error_label.text()
    assert "c62828" in page.data_edit.styleSheet()


def test_a_bad_number_is_shown_at_its_field(page):
    page.fields["shadow_models"].setText("lots")
    page.run_button.click()
    assert not page.is_running()
    assert page.steps.currentIndex() == STEP_ATTACKS
    assert "c62828" in page.fields["shadow_models"].styleSheet()
    assert page.fields["shadow_models"].text() == "lots"


def test_cost_estimate_warns_for_boosting_with_many_classes():
    d = config(family="gradient_boosting")
    text, warn = cost_estimate(d, 100)
    assert warn and "100 classes" in text and "minutes" in text
    text, warn = cost_estimate(config(attacks=["btta"]), 100)
    assert not warn and "9 models to train (1 audited, 8 shadow, 0 reference)" in text


def test_a_real_tiny_run_renders_its_results_and_the_wheel_scrolls(main_window, qtbot):
    page = main_window.audit_pages["model"]
    page.set_config(config(**TINY_RUN))
    main_window.show_audit("model")
    page.run_button.click()
    qtbot.waitUntil(lambda: page.result() is not None and not page.is_running(),
                    timeout=RUN_TIMEOUT_MS)
    result = page.result()
    view = page.results_view
    assert page.steps.currentIndex() == STEP_RESULTS
    assert view.verdict_banner.level_label.text().endswith("RISK")
    assert view.roc_plot.is_log()
    names = view.roc_plot.curve_names()
    assert all(legend_name(attack_label(a)) in names for a in result["attacks"])
    assert BOUND_LABEL in names
    assert view.metrics_table.rowCount() == len(result["attacks"])
    assert "generalization gap of" in view.gap_view.gap_label.text()
    assert "paper 001, Thm 2" in view.gap_view.bound_label.text()
    assert "Strongest attack" in view.gap_view.strongest_label.text()
    assert view.gap_view.class_table.rowCount() == 5
    assert view.exposed_view.table.rowCount() == 5
    assert view.exposed_view.table.columnCount() == 3          # no labels unless asked
    assert "row numbers are shown" in view.exposed_view.summary_label.text()

    main_window.resize(1100, 700)
    page.step_list.setCurrentRow(STEP_RESULTS)
    qtbot.wait(20)
    for plot in view.plots().values():
        assert_wheel_scrolls_page(plot, qtbot)


def test_exposed_labels_shown_when_present(page):
    result = {"audit_type": "model", "verdict": {"level": "low", "reasons": []},
              "attacks": [], "warnings": [], "theory": {},
              "exposed_records": [{"rank": 1, "row": 12, "score": 0.9, "attack": "rmia",
                                   "label": "yes"}]}
    page.show_result(result)
    table = page.results_view.exposed_view.table
    assert table.columnCount() == 4 and table.item(0, 3).text() == "yes"
    assert table.item(0, 1).text() == "12"
    assert "No attack was run" in page.results_view.gap_view.strongest_label.text()


# ---------------------------------------------------------------------- the columns table

def test_the_sample_csv_columns_are_inferred_into_the_table(page):
    page.choose_data_file(SAMPLE_DATA)
    editor = page.schema_editor
    with open(REPO / SAMPLE_DATA, encoding="utf-8") as fh:
        header = next(csv.reader(fh))
    assert editor.column_names() == header
    assert editor.table.rowCount() == len(header)
    assert page.columns_panel.isVisibleTo(page)
    # No column is named like a label: every column is shown, and the page asks for it.
    assert "no column is named label" in page.data_status.text()
    assert "set its role in the table below" in page.data_status.text()
    assert "c62828" in page.label_edit.styleSheet()
    assert "No column is the label" in editor.status_label.text()

    cols = columns(editor.schema_dict())
    assert cols["customer_id"]["role"] == "ignore"                  # an id
    assert cols["age"]["kind"] == "numeric" and cols["age"]["scale"] is True
    assert cols["sex"]["kind"] == "categorical" and cols["sex"]["categories"] == ["F", "M"]
    assert cols["defaulted"]["role"] == "feature"
    row = editor.row_of("region")
    assert editor.value(row, COL_ROLE) == "feature"
    assert editor.value(row, COL_ENCODING) == "onehot"
    assert editor.table.item(row, COL_INPUTS).text() == "5"

    # Choosing the label in the table fills the label field, and the file reads.
    editor.set_role("defaulted", "label")
    assert page.label_edit.text() == "defaulted" and "c62828" not in page.label_edit.styleSheet()
    page.recheck_data()
    text = page.data_status.text()
    assert "2,000 records" in text and "(24 inputs)" in text and "2 classes" in text
    assert "predicts 'defaulted' (2 classes)" in editor.status_label.text()
    assert "Not used: customer_id" in editor.status_label.text()
    d = page.form_dict()
    assert d["label"] == "defaulted" and d["member_column"] == ""
    assert TabularSchema.from_dict(d["schema"]).label == "defaulted"
    assert ModelConfig.from_dict(d).schema == d["schema"]
    assert page.validated_config().schema == d["schema"]


def test_edits_in_the_table_change_the_config_schema(page):
    sample_with_label(page)
    editor = page.schema_editor

    editor.set_encoding("credit_cards", "onehot")           # a count as categories
    cols = columns(page.form_dict()["schema"])
    assert cols["credit_cards"]["kind"] == "categorical" and "scale" not in cols["credit_cards"]
    page.recheck_data()                                      # the categories come from the file
    cols = columns(page.form_dict()["schema"])
    assert cols["credit_cards"]["categories"] == [str(k) for k in range(7)]
    assert editor.table.item(editor.row_of("credit_cards"), COL_INPUTS).text() == "7"
    assert "(30 inputs)" in page.data_status.text()

    editor.set_encoding("age", "raw")
    editor.set_role("health", "ignore")
    cols = columns(page.form_dict()["schema"])
    assert cols["age"]["scale"] is False and cols["health"]["role"] == "ignore"
    assert not editor.is_enabled(editor.row_of("health"), COL_ENCODING)

    editor.set_encoding("sex", "scaled")                     # letters as numbers: a sentence
    page.recheck_data()
    text = page.data_status.text()
    assert "column 'sex'" in text and "not a number" in text and "Traceback" not in text
    editor.set_encoding("sex", "onehot")                     # and back: its values return
    assert columns(page.form_dict()["schema"])["sex"]["categories"] == ["F", "M"]
    page.recheck_data()
    assert "2,000 records" in page.data_status.text()

    # A second label moves the role; the old label becomes a feature (the engine's rule).
    editor.set_role("sex", "label")
    assert page.label_edit.text() == "sex"
    cols = columns(page.form_dict()["schema"])
    assert cols["sex"]["role"] == "label" and cols["defaulted"]["role"] == "feature"
    # No label at all is a sentence under the table and at Run, at the Data step.
    editor.set_role("sex", "feature")
    assert "No column is the label" in editor.status_label.text()
    page.step_list.setCurrentRow(STEP_ATTACKS)
    page.run_button.click()
    assert not page.is_running() and page.steps.currentIndex() == STEP_DATA
    assert "No column is the label" in page.error_label.text()
    assert "schema:" not in page.error_label.text()


def test_the_label_and_members_fields_move_the_roles_in_the_table(page):
    sample_with_label(page)
    editor = page.schema_editor
    page.label_edit.setText("Sex")                           # any case, as the engine reads it
    page._columns_edited()
    assert editor.label() == "sex" and page.label_edit.text() == "sex"
    assert columns(page.form_dict()["schema"])["defaulted"]["role"] == "feature"

    page.member_edit.setText("late_payments")                # counts are not 0/1: a sentence
    page._columns_edited()
    assert editor.member_column() == "late_payments"
    assert "column 'late_payments'" in page.data_status.text()
    assert "not 0 or 1" in page.data_status.text()
    page.member_edit.setText("")                             # none: the old one is ignored
    page._columns_edited()
    assert editor.member_column() == ""
    assert columns(page.form_dict()["schema"])["late_payments"]["role"] == "ignore"
    assert page.form_dict()["member_column"] == ""

    page.label_edit.setText("outcome")                       # not a column: kept, marked, said
    page._columns_edited()
    assert page.label_edit.text() == "outcome" and "c62828" in page.label_edit.styleSheet()
    assert "no column 'outcome'" in page.data_status.text()
    assert editor.label() == "sex"


def test_the_schema_is_saved_with_the_project_and_restored(main_window, qtbot, tmp_path,
                                                           monkeypatch):
    page = main_window.audit_pages["model"]
    main_window.show_audit("model")
    sample_with_label(page)
    page.schema_editor.set_encoding("age", "raw")
    page.schema_editor.set_role("health", "ignore")
    page.fields["epochs"].setText("12")
    saved_schema = page.form_dict()["schema"]

    monkeypatch.setattr(QFileDialog, "getSaveFileName",
                        staticmethod(lambda *args, **kwargs: (str(tmp_path / "m"), "")))
    main_window.save_action.trigger()
    project = load_project(tmp_path / "m.praudit.json")
    assert project.config["schema"] == saved_schema and project.config["label"] == "defaulted"

    other = MainWindow()
    qtbot.addWidget(other)
    assert other.open_project(str(tmp_path / "m.praudit.json"))
    restored = other.audit_pages["model"]
    editor = restored.schema_editor
    assert restored.records_combo.currentData() == "csv"
    assert editor.schema_dict() == saved_schema
    assert editor.label() == "defaulted" and restored.label_edit.text() == "defaulted"
    assert editor.value(editor.row_of("age"), COL_ENCODING) == "raw"
    assert editor.value(editor.row_of("health"), COL_ROLE) == "ignore"
    assert "2,000 records" in restored.data_status.text()
    assert restored.form_dict()["schema"] == saved_schema

    # load_state straight from a config dict restores it too; a label typed in the config
    # (a hand-edited project) moves the role, as the engine would; New clears it all.
    page.load_state(project.config, None, [])
    assert page.schema_editor.schema_dict() == saved_schema
    page.load_state({**project.config, "label": "sex"}, None, [])
    assert page.schema_editor.label() == "sex" and page.form_dict()["label"] == "sex"
    assert columns(page.form_dict()["schema"])["defaulted"]["role"] == "feature"
    main_window.new_project()
    assert page.schema_editor.schema_dict() == {} and page.form_dict()["schema"] == {}


def test_a_bad_csv_is_a_sentence_and_keeps_the_table_and_fields(page):
    sample_with_label(page)
    schema = page.form_dict()["schema"]
    for bad in ("not_utf8.csv", "header_only.csv", "empty.csv", "extra_fields.csv"):
        page.choose_data_file(str(BAD / "tabular" / bad))
        text = page.data_status.text()
        assert text and "Traceback" not in text, bad
        assert text.startswith(bad), text                     # the file, not its folders
        assert "c62828" in page.data_status.styleSheet()
        assert page.data_edit.text().endswith(bad)             # the entry is kept
        assert page.form_dict()["schema"] == schema            # the table is not lost
        assert page.label_edit.text() == "defaulted"

    page.choose_data_file(str(BAD / "tabular" / "label_missing.csv"))
    assert "Traceback" not in page.data_status.text() and page.data_status.text()


def test_a_click_opens_a_drop_down_and_the_wheel_never_changes_a_role(page, qtbot):
    """Role and encoding cells are drawn as drop-downs; a click opens a real one (so even a
    file of hundreds of columns builds fast), and it leaves the mouse wheel to the page."""
    sample_with_label(page)
    editor = page.schema_editor
    table = editor.table
    assert not any(table.cellWidget(r, c) for r in range(table.rowCount())
                   for c in range(table.columnCount()))          # nothing to catch the wheel
    row = editor.row_of("age")
    index = table.model().index(row, COL_ENCODING)
    table.edit(index)
    combo = table.indexWidget(index)
    assert isinstance(combo, ChoiceCombo) and combo.currentData() == "scaled"
    centre = QPointF(combo.width() / 2, combo.height() / 2)
    for delta in (-120, 120, 120):
        event = QWheelEvent(centre, QPointF(combo.mapToGlobal(centre.toPoint())), QPoint(0, 0),
                            QPoint(0, delta), Qt.MouseButton.NoButton,
                            Qt.KeyboardModifier.NoModifier, Qt.ScrollPhase.NoScrollPhase, False)
        QApplication.sendEvent(combo, event)
        assert not event.isAccepted()
    assert combo.currentData() == "scaled"
    qtbot.waitUntil(combo.view().isVisible)                    # one click opened the list
    QTest.keyClick(combo.view(), Qt.Key.Key_Down)              # the user picks the next entry
    QTest.keyClick(combo.view(), Qt.Key.Key_Return)
    qtbot.waitUntil(lambda: table.indexWidget(index) is None)
    assert editor.value(row, COL_ENCODING) == "raw"
    assert columns(page.form_dict()["schema"])["age"]["scale"] is False
    health = table.model().index(editor.row_of("customer_id"), COL_ENCODING)
    table.edit(health)                                         # an ignored column: greyed
    assert table.indexWidget(health) is None


def test_a_large_file_is_read_on_the_job_runner(page, qtbot, monkeypatch):
    """The window never freezes on a large CSV: its columns are read as a job."""
    monkeypatch.setattr(model_data_step, "SYNC_BYTES", 0)
    page.choose_data_file(SAMPLE_DATA)
    assert page.data_status.text() == "Reading the file…"
    qtbot.waitUntil(lambda: bool(page.schema_editor.column_names()), timeout=30_000)
    qtbot.waitUntil(lambda: not page.runner.is_busy(), timeout=60_000)  # a hang guard
    assert "no column is named label" in page.data_status.text()
    page.label_edit.setText("defaulted")
    page._columns_edited()
    assert page.schema_editor.label() == "defaulted"
    assert "read with these columns when the audit runs" in page.data_status.text()
    assert not page.runner.is_busy()


def test_sensitive_feature_is_offered_from_the_data_and_round_trips(page):
    """Attribute inference (issue 8): the mixed sample's features are offered, categories
    first; the choice reaches the config and comes back with it; predictions disable it."""
    page.load_state(dict(demo_config().to_dict(), synthetic="mixed"), None, [])
    items = [page.sensitive_combo.itemText(i) for i in range(page.sensitive_combo.count())]
    assert items[0] == "(not run)" and "health" in items
    assert items.index("health") < items.index("income")          # categories first
    assert page.form_dict()["sensitive_feature"] == ""
    page.sensitive_combo.setCurrentText("health")
    page.attribute_combo.setCurrentIndex(page.attribute_combo.findData("boosting"))
    d = page.form_dict()
    assert d["sensitive_feature"] == "health" and d["attribute_classifier"] == "boosting"
    assert ModelConfig.from_dict(d).sensitive_feature == "health"
    page.load_state(d, None, [])
    assert page.sensitive_combo.currentText() == "health"
    page.source_predictions.setChecked(True)
    assert not page.sensitive_combo.isEnabled()


def test_sensitive_feature_from_the_csv_columns(page):
    page.source_train.setChecked(True)
    page.choose_data_file(str(SAMPLE_DATA))
    items = [page.sensitive_combo.itemText(i) for i in range(page.sensitive_combo.count())]
    assert "health" in items and "customer_id" not in items      # ignored columns are not


def test_a_semicolon_file_is_read_and_the_page_says_how(main_window, qtbot, tmp_path):
    """Issue 11: a file that is usable with an assumption is read, and the status line under
    the file says what was assumed (engine.data.text_input's notes)."""
    import pandas as pd

    page = main_window.audit_pages["model"]
    main_window.show_audit("model")
    path = tmp_path / "credit;separated.csv"
    frame = pd.read_csv(SAMPLE_DATA).rename(columns={"defaulted": "label"})
    frame.to_csv(path, sep=";", index=False)
    page.choose_data_file(str(path))
    qtbot.waitUntil(lambda: "How the file was read" in page.data_status.text(), timeout=60_000)
    assert "semicolons (;)" in page.data_status.text()


def test_empty_cells_are_counted_and_their_choice_is_in_the_table(page, tmp_path):
    """Issue 21: a file with gaps loads with the defaults pre-selected, the counts shown, and
    a choice per column saved in the schema; "refuse" lists every column at once."""
    from gui.widgets.model_schema_editor import COL_MISSING, COL_VALUES

    p = tmp_path / "gaps.csv"
    rows = ["income,home,label"] + [f"{'' if i % 5 == 0 else 100 + i},"
                                    f"{'' if i % 7 == 0 else 'own' if i % 2 else 'rent'},"
                                    f"{'a' if i % 3 else 'b'}" for i in range(40)]
    p.write_text("\n".join(rows) + "\n", encoding="utf-8")
    page.choose_data_file(str(p))
    editor = page.schema_editor
    income, home = editor.row_of("income"), editor.row_of("home")
    assert editor.value(income, COL_MISSING) == "median"
    assert editor.value(home, COL_MISSING) == "own_category"
    assert editor.table.item(income, COL_VALUES).text().endswith("— 8 empty")
    assert editor.table.item(home, COL_VALUES).text().endswith("— 6 empty")
    text = page.data_status.text()
    assert "14 empty cells in 2 columns were handled before training" in text
    editor.set_missing("income", "error")
    editor.set_missing("home", "error")
    assert columns(page.form_dict()["schema"])["income"]["missing"] == "error"
    page.recheck_data()
    text = page.data_status.text()
    assert "14 empty cells in 2 columns set to refuse them" in text
    assert "'income' 8 (first in row 2)" in text and "'home' 6 (first in row 2)" in text
    editor.set_encoding("income", "onehot")          # a choice that does not fit goes back
    assert editor.value(income, COL_MISSING) == "error"
    editor.set_missing("income", "own_category")
    editor.set_encoding("income", "scaled")
    assert editor.value(income, COL_MISSING) == "median"
    assert "missing" not in columns(page.form_dict()["schema"])["income"]
