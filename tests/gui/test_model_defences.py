"""The Defences step of the model page and the defences box of its results (issue 9): the sample
fills the step, typed lists of knob values are the config's lists (an empty field leaves the
defence out and nothing typed is lost), the cost follows the settings, a bad value is a
sentence at its field on step 3, the step says why it cannot run for a predictions file, and a
real tiny run shows the trade-off chart (hover says what a point is, a click selects its row),
the table, the recommendation and exports the recommended model's files."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from PySide6.QtWidgets import QFileDialog

from engine.audits.model import ModelConfig
from gui.job_runner import JobRunner
from gui.pages.model_defences import cost_sentence, format_list, parse_list
from gui.pages.model_page import STEP_DEFENCES, STEP_RESULTS, ModelPage
from gui.widgets.defences_results import chart_points, point_text

RUN_TIMEOUT_MS = 120_000
TINY = {"synthetic_records": 800, "epochs": 8, "shadow_models": 2, "reference_models": 2,
        "attacks": ["btta", "confidence"], "exposed_count": 3,
        "defences": {"enabled": True, "kcd_alphas": [0.5, 1.0], "kcd_teachers": 3,
                     "dmp_temperatures": [2.0], "l2_weight_decays": [0.01],
                     "dpsgd_noise_multipliers": [], "limit_metric": "auc",
                     "limit_value": 0.99}}


@pytest.fixture
def page(qtbot, plots_configured):
    page = ModelPage(JobRunner())
    qtbot.addWidget(page)
    return page


def test_lists_parse_and_format():
    assert parse_list("0, 0.25; 1") == [0.0, 0.25, 1.0]
    assert parse_list("5 10", integer=True) == [5, 10]
    assert parse_list("") == []
    assert parse_list("0.5, high") == [0.5, "high"]           # the engine names "high"
    assert format_list([0.0, 0.25, 1.0]) == "0, 0.25, 1"


def test_the_sample_fills_the_step_and_round_trips(page):
    sample = page.sample_config()
    page.set_config(sample)
    step = page.defences_step
    assert step.enabled_box.isChecked()
    # the quick sample: one setting per defence (issue 33 item 3)
    assert page.fields["defences.kcd_alphas"].text() == "0.5"
    assert page.fields["defences.early_stopping_epochs"].text() == ""
    assert ModelConfig.from_dict(page.form_dict()) == ModelConfig.from_dict(sample)
    # switching a defence off by emptying its field; turning the step off keeps every value
    page.fields["defences.dmp_temperatures"].setText("")
    step.enabled_box.setChecked(False)
    d = page.form_dict()["defences"]
    assert d["dmp_temperatures"] == [] and d["enabled"] is False
    assert d["kcd_alphas"] == [0.5]
    assert not step.boxes[0].isEnabled()


def test_cost_follows_the_settings(page):
    from engine.audits.samples import sample_dict

    page.set_config(sample_dict("model-thorough"))       # the whole sweep (issue 33 item 3)
    step = page.defences_step
    step.update_cost()
    # 1 undefended + KCD 5 teachers and 5 students + DMP 3 + L2 3 + DP-SGD 3, each again as 4
    # reference models under its defence (the sample runs LiRA and RMIA): 20 × 5
    assert "About 100 models trained" in step.total_label.text()
    assert "the audit's heaviest job" in step.total_label.text()
    assert "trained as 4 copies with the same defence" in step.total_label.text()
    assert step.cost_labels["kcd"].text().startswith("≈ 50 models trained")
    assert step.cost_labels["dp_sgd"].text().startswith("≈ 15 models trained (per-sample")
    assert "about under" not in step.cost_labels["l2"].text()
    page.fields["defences.kcd_alphas"].setText("1")
    page.fields["defences.kcd_alphas"].textEdited.emit("1")
    assert step.cost_labels["kcd"].text().startswith("≈ 30 models trained")
    assert "About 80 models trained" in step.total_label.text()
    assert step.cost_labels["early_stopping"].text() == "not tested"
    text, per = cost_sentence({"defences": {"kcd_alphas": [2]}}, 100)
    assert text.startswith("The cost is estimated once") and per == {}


def test_a_bad_alpha_is_a_sentence_at_its_field(page):
    page.set_config(page.sample_config())
    page.fields["defences.kcd_alphas"].setText("0.5, 1.5")
    page.start_run()
    assert not page.is_running()
    assert page.steps.currentIndex() == STEP_DEFENCES
    assert "c62828" in page.fields["defences.kcd_alphas"].styleSheet()
    assert "[0, 1]" in page.error_label.text() and "1.5" in page.error_label.text()
    assert page.fields["defences.kcd_alphas"].text() == "0.5, 1.5"        # kept as typed


def test_predictions_source_says_why_defences_cannot_run(page):
    page.set_config(page.sample_config())
    page.source_predictions.setChecked(True)
    page.update_cost()
    assert "Train the model here" in page.defences_step.availability.text()
    page.predictions_edit.setText("resources/model/sample_predictions.csv")
    page.start_run()
    assert not page.is_running()
    assert page.steps.currentIndex() == STEP_DEFENCES
    assert "cannot be retrained" in page.error_label.text()


def test_a_real_tiny_run_shows_the_trade_off_and_exports(main_window, qtbot, tmp_path,
                                                          monkeypatch):
    page = main_window.audit_pages["model"]
    page.set_config(ModelConfig.from_dict(TINY).to_dict())
    main_window.show_audit("model")
    page.run_button.click()
    qtbot.waitUntil(lambda: page.result() is not None and not page.is_running(),
                    timeout=RUN_TIMEOUT_MS)
    assert page.steps.currentIndex() == STEP_RESULTS
    block = page.result()["theory"]["defences"]
    view = page.results_view.defences_view
    assert view.isVisibleTo(page) and view.chart.isVisibleTo(page)
    assert view.table.rowCount() == len(block["rows"]) == 5
    assert block["rows"][0]["label"] in view.table.item(0, 0).text()
    rec = block["recommendation"]
    text = view.recommendation_label.text()
    if rec.get("needed") is False:         # issue 32 item 4: nothing recommended, no red
        assert ("No defence needed." if rec["met"] else "Not decided at this size.") in text
        assert "No setting meets" not in text
    else:
        assert (("Recommendation:" in text) if rec["met"] else ("No setting meets" in text))
    # every setting with a measured AUC is a point; hover and click say which
    points = chart_points(block, view.chart.metric())
    assert view.chart.metric() == "auc" and len(points) == 5
    drawn = sum(len(s.points()) for s in view.chart.scatters)
    assert drawn == 5
    view.chart.show_point(points[1][2])
    assert block["rows"][1]["label"] in view.chart.hover_label.text()
    assert "test accuracy" in point_text(block["rows"][1], block)
    view.chart.point_clicked.emit(points[2][2])
    assert view.selected_index() == points[2][2]
    assert view.export_selected_button.isEnabled()
    # export the selected setting from this session's fitted models
    monkeypatch.setattr(QFileDialog, "getExistingDirectory",
                        staticmethod(lambda *a, **k: str(tmp_path)))
    view.export_selected_button.click()
    qtbot.waitUntil(lambda: "Saved in" in view.export_status.text()
                    or "c62828" in view.export_status.styleSheet(), timeout=RUN_TIMEOUT_MS)
    assert "Saved in" in view.export_status.text(), view.export_status.text()
    cards = list(Path(tmp_path).glob("*.json"))
    assert len(cards) == 1
    card = json.loads(cards[0].read_text(encoding="utf-8"))
    assert card["defence"]["name"] == block["rows"][points[2][2]]["defence"]
    assert list(Path(tmp_path).glob("*.safetensors")) and list(Path(tmp_path).glob("*.csv"))


def test_an_audit_without_defences_says_how_to_test_them(page):
    page.show_result({"audit_type": "model", "verdict": {"level": "low", "reasons": []},
                      "attacks": [], "warnings": [], "theory": {}})
    view = page.results_view.defences_view
    assert "not tested" in view.recommendation_label.text()
    assert not view.chart.isVisibleTo(page) and not view.table.isVisibleTo(page)
