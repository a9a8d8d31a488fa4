"""The location results' score distributions (paper 000 Thm 2/3, Fig. 8/10): after a real run
the section shows the measured histograms and the theory's curves of the chosen attack, the
chooser switches attacks, the wheel over the plot scrolls the page, and results without the
data (or without a model) are shown honestly."""

from __future__ import annotations

import copy

import numpy as np
import pytest

from gui.pages.location_page import STEP_RESULTS
from gui.widgets.location_results import LocationResultsView
from tests.gui.test_location_page import open_location, run_to_completion
from tests.gui.test_plot_wheel import assert_wheel_scrolls_page

MEASURED = ["Without the target (measured)", "With the target (measured)"]
THEORY = ["Without the target (theory)", "With the target (theory)"]


def curve_data(view) -> list[tuple[np.ndarray, np.ndarray]]:
    return [item.getData() for item in view.plot_item.listDataItems()]


def test_run_shows_distributions_chooser_switches_and_wheel_scrolls(main_window, qtbot):
    page = open_location(main_window, attacks=("one_threshold", "two_threshold"),
                         sweep_targets=0, shadow_aggregates=300, test_aggregates=1000)
    result = run_to_completion(page, qtbot)
    view = page.results_view
    scores = view.scores_view
    assert view.scores_box.isVisibleTo(view)
    assert "Thm 2 and 3" in view.scores_box.toolTip() and "Thm" not in view.scores_box.title()
    assert scores.attack_names() == ["one_threshold", "two_threshold"]
    assert scores.choice.count() == 2 and scores.choice.currentText() == "One-threshold attack"
    assert scores.curve_names() == MEASURED + THEORY
    assert "sum of the released counts" in scores.plot_item.getAxis("bottom").labelText
    assert "the less the attacker can tell" in scores.caption.text()
    one = curve_data(scores)
    dist = result["attacks"][0]["details"]["score_distribution"]
    assert one[0][1].tolist() == pytest.approx(dist["absent"])          # bars: the counts
    assert one[1][1].sum() == sum(dist["present"])
    _, _, y0, y1 = scores.view.view_range()
    assert y0 <= 0 < max(dist["absent"]) <= y1

    scores.choice.setCurrentIndex(1)
    assert scores.curve_names() == MEASURED + THEORY
    assert "cells above their own threshold" in scores.plot_item.getAxis("bottom").labelText
    assert "Binomial" in scores.caption.text()
    two = curve_data(scores)
    k = len(result["attacks"][1]["details"]["score_distribution"]["score"]) - 1
    assert two[2][0].tolist() == pytest.approx(list(range(k + 1)))       # the law at 0..k
    assert not np.array_equal(one[0][0], two[0][0])

    main_window.resize(1100, 700)
    page.step_list.setCurrentRow(STEP_RESULTS)
    qtbot.wait(20)
    assert_wheel_scrolls_page(view.plots()["scores"], qtbot)


def _fake_result() -> dict:
    dist = {"score": [0, 1, 2, 3], "absent": [5, 3, 1, 0], "present": [0, 1, 3, 5],
            "model_absent": [5.1, 2.9, 1.0, 0.1], "model_present": [0.1, 1.0, 2.9, 5.1],
            "model": "Binomial(k, p)"}
    return {"attacks": [{"name": "two_threshold", "label": "Two-threshold attack",
                         "details": {"score_distribution": dist}},
                        {"name": "likelihood_ratio", "label": "LR", "details": {}}]}


def test_no_model_draws_only_histograms_and_no_data_hides_section(qtbot, plots_configured):
    view = LocationResultsView()
    qtbot.addWidget(view)
    assert not view.scores_box.isVisibleTo(view)          # nothing yet
    result = _fake_result()
    view.set_result(result)
    assert view.scores_box.isVisibleTo(view)
    assert view.scores_view.curve_names() == MEASURED + THEORY
    no_model = copy.deepcopy(result)
    dist = no_model["attacks"][0]["details"]["score_distribution"]
    dist["model_absent"] = dist["model_present"] = None
    view.set_result(no_model)
    assert view.scores_view.curve_names() == MEASURED
    assert "No theory line is drawn" in view.scores_view.caption.text()
    _, _, y0, y1 = view.scores_view.view.view_range()
    assert y0 <= 0 and y1 >= 5
    del no_model["attacks"][0]["details"]["score_distribution"]
    view.set_result(no_model)
    assert not view.scores_box.isVisibleTo(view)
    assert view.scores_view.curve_names() == []


def test_split_spread_section_shows_the_spread_beside_the_interval(qtbot, plots_configured):
    """Issue 22: with repetitions the results show each attack's first-run interval beside
    the spread over the fresh splits, and the audit's sentence; without them the box hides."""
    view = LocationResultsView()
    qtbot.addWidget(view)
    assert not view.spread_box.isVisibleTo(view)
    reps = {"accuracy": [0.69, 0.94, 0.97], "auc": [0.7, 0.95, 0.98], "accuracy_mean": 0.8667,
            "accuracy_sd": 0.1504, "accuracy_min": 0.69, "accuracy_max": 0.97,
            "sentence": "One-threshold attack: the result depends on which people the "
                        "attacker happens to know: across 3 splits the accuracy ranged "
                        "69.0%–97.0%."}
    result = {"attacks": [{"name": "one_threshold", "label": "One-threshold attack",
                           "accuracy": 0.69, "accuracy_ci": [0.68, 0.70],
                           "details": {"repetitions": reps}}],
              "theory": {"repetitions": {"count": 3, "split_redrawn": True}}}
    view.set_result(result)
    assert view.spread_box.isVisibleTo(view)
    text = view.spread_label.text()
    assert "69.0 % (68.0 % – 70.0 %)" in text and "86.7 % ± 15.0 points" in text
    assert "69.0 % – 97.0 %" in text and "fresh split of the people" in text
    assert "which people the attacker happens to know: across 3 splits" in text
    del result["attacks"][0]["details"]["repetitions"]
    view.set_result(result)
    assert not view.spread_box.isVisibleTo(view)
