"""Machine-learning model page (papers 001, 004): the page builds, the form round-trips the
sample config, the home card opens it, a training CSV gets a one-line preview and a bad one a
sentence beside the field, the cost estimate follows the attacks, a real (tiny) run renders
with the Thm 2 line on the ROC, and the wheel scrolls the page over the ROC plot."""

from __future__ import annotations

from pathlib import Path

import pytest
from PySide6.QtCore import Qt

from engine.audits.model import ModelConfig, demo_config
from gui.job_runner import JobRunner
from gui.pages.model_page import (
    SAMPLE_DATA,
    STEP_ATTACKS,
    STEP_DATA,
    STEP_RESULTS,
    ModelPage,
    cost_estimate,
)
from gui.pages.registry import AUDIT_PAGES
from gui.widgets.model_results import BOUND_LABEL
from tests.gui.test_plot_wheel import assert_wheel_scrolls_page

RUN_TIMEOUT_MS = 90_000
BAD = Path(__file__).resolve().parents[1] / "data" / "bad_inputs"
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


def test_home_card_opens_the_page_and_the_sample_round_trips(main_window, qtbot):
    assert AUDIT_PAGES["model"] is ModelPage
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
    assert all(a["label"] in names for a in result["attacks"])
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
