"""Count-tables page (paper 003): the form round-trips a config, the schema is inferred from a
CSV and edited into the config, the release preview lists the tables, bad files give
sentences, a real (tiny) run renders, and the wheel scrolls the page over every plot."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest
from PySide6.QtCore import Qt

from engine.auditing import evaluate_attack
from engine.audits.aggregates import AggregatesConfig
from engine.data.census import census_schema
from engine.plots.series import attack_label, legend_name
from gui.job_runner import JobRunner
from gui.pages.aggregates_page import (
    SAMPLE_DATA,
    STEP_ATTACKS,
    STEP_DATA,
    STEP_RELEASE,
    STEP_RESULTS,
    AggregatesPage,
)
from gui.pages.registry import page_class
from gui.widgets.schema_editor import parse_domain
from tests.gui.test_plot_wheel import assert_wheel_scrolls_page

RUN_TIMEOUT_MS = 60_000
BAD = Path(__file__).resolve().parents[1] / "data" / "bad_inputs"
# Tiny but real: all P-table cells of a 60-person block, so some targets are determined; the
# deterministic module and the data-only guess keep it well under a second.
TINY_RUN = {"census_records": 60, "census_auxiliary": 200, "max_targets": 6, "n_shadow": 100,
            "reconstructions": 2, "membership": False, "fraction": 0, "seed": 2,
            "attacks": ["desia_deterministic_only", "data_only"], "solver_time_limit": 5}


@pytest.fixture
def page(qtbot, plots_configured):
    page = AggregatesPage(JobRunner())
    qtbot.addWidget(page)
    return page


def config(**changes) -> dict:
    return AggregatesConfig.from_dict({"audit_type": "aggregates", **changes}).to_dict()


def sample_schema(sensitive: str = "race") -> dict:
    schema = census_schema(sensitive=sensitive).to_dict()
    schema["columns"][2] = {"name": "age", "role": "quasi_identifier", "kind": "integer",
                            "low": 0, "high": 92}
    return schema


# ---------------------------------------------------------------------- building, config

def test_home_card_opens_the_page_and_the_sample_round_trips(main_window, qtbot):
    assert page_class("aggregates") is AggregatesPage
    card = next(c for c in main_window.home_page.cards if c.audit_type == "aggregates")
    assert card.isEnabled()
    qtbot.mouseClick(card, Qt.MouseButton.LeftButton)
    page = main_window.audit_pages["aggregates"]
    assert main_window.stack.currentWidget() is page and page.step_list.count() == 5

    main_window.open_sample("aggregates")
    sample = page.sample_config()
    assert page.form_dict() == sample
    assert "450 records" in page.data_status.text()
    assert "4,000 records" in page.auxiliary_status.text()
    assert page.schema_editor.sensitive() == (sample["sensitive"] or "race")
    assert page.release_preview.table_names()[:2] == ["P12", "P12A"]


@pytest.mark.parametrize("changes", [
    {},
    {"name": "Block 12", "sensitive": "hispanic", "census_records": 300, "release": "p_tables",
     "release_options": {"age_bins": "five_year"}, "fraction": 0.5, "mechanism": "laplace",
     "epsilon": 0.5, "budget": "release", "attacks": ["desia", "cip_rand"],
     "membership": False, "model": "mlp", "n_shadow": 2000, "sweep_fractions": [0.1, 0.5],
     "sweep_epsilons": [2.0, 0.5], "sweep_attacks": ["desia"], "list_exposed_records": True,
     "fpr_targets": [0.05], "policy": {"fpr": 0.05}},
    {"data": SAMPLE_DATA, "schema": sample_schema(), "release": "marginals",
     "release_options": {"ways": [1, 2], "buckets": {"age": 5}}, "mechanism":
     "discrete_gaussian", "delta": 1e-6, "mia_attacks": ["desia_mia"], "seed": 11},
    {"data": SAMPLE_DATA, "schema": sample_schema("hispanic"), "release": "custom",
     "release_options": {"path": "queries.csv"}},
    {"release_options": {"hispanic_col": "hispanic", "hispanic_label": "Hispanic",
                         "white_label": "White", "age_bins": "census"}},
])
def test_form_round_trips_a_config(page, changes):
    wanted = config(**changes)
    page.set_config(wanted)
    assert page.form_dict() == wanted
    assert AggregatesConfig.from_dict(page.form_dict()).to_dict() == wanted


# ---------------------------------------------------------------------- data and schema

def test_choosing_the_sample_csv_infers_a_schema_that_edits_go_into(page):
    page.choose_data_file(SAMPLE_DATA)
    editor = page.schema_editor
    assert editor.column_names() == ["block", "sex", "age", "race", "hispanic"]
    assert editor.table.rowCount() == 5 and editor.is_editable()
    assert "450 records" in page.data_status.text()
    editor.set_sensitive("race")
    d = page.form_dict()
    roles = {c["name"]: c["role"] for c in d["schema"]["columns"]}
    assert roles["race"] == "sensitive" and roles["age"] == "quasi_identifier"
    assert "tries to learn 'race'" in editor.status_label.text()

    editor.set_role("hispanic", "ignore")
    roles = {c["name"]: c["role"] for c in page.form_dict()["schema"]["columns"]}
    assert roles["hispanic"] == "ignore"
    AggregatesConfig.from_dict(page.form_dict())          # a valid config

    editor.set_role("age", "sensitive")                   # the chooser follows the roles
    assert editor.sensitive() == "age"
    roles = {c["name"]: c["role"] for c in page.form_dict()["schema"]["columns"]}
    assert roles["race"] == "quasi_identifier" and page.form_dict()["sensitive"] == "age"
    editor.set_sensitive("race")

    editor.set_domain_text("age", "0 – 50")              # the file has older people
    page.recheck_records()
    assert "is outside the column's domain" in page.data_status.text()
    editor.set_domain_text("age", "0 – 115")
    page.recheck_records()
    assert "450 records" in page.data_status.text()
    age = page.form_dict()["schema"]["columns"][2]
    assert (age["low"], age["high"]) == (0, 115)
    editor.set_domain_text("age", "bins 0, 18, 65, 116")
    assert page.form_dict()["schema"]["columns"][2]["bins"] == [0, 18, 65, 116]
    assert editor.table.item(2, 3).text() == "3 bins"
    editor.set_domain_text("age", "0 – lots")             # kept as typed, said in a sentence
    assert page.form_dict()["schema"]["columns"][2]["low"] == "0 – lots"
    assert "whole number" in editor.status_label.text()
    assert "Traceback" not in editor.status_label.text()


def test_domain_text_parsing():
    assert parse_domain("categorical", "F | M") == {"categories": ["F", "M"]}
    assert parse_domain("integer", "-5 - 10") == {"low": -5, "high": 10}
    assert parse_domain("continuous", "0, 0.5, 1.5") == {"bins": [0.0, 0.5, 1.5]}


def test_release_preview_lists_the_p12_tables_of_the_sample(page, qtbot):
    page.choose_data_file(SAMPLE_DATA)
    page.schema_editor.set_sensitive("race")
    page.refresh_preview()
    preview = page.release_preview
    # The five races in the sample keep their Census letters (A White, B Black, D Asian,
    # F Some Other Race, G Two or More), listed in the domain's (alphabetical) order.
    assert preview.table_names() == ["P12", "P12D", "P12B", "P12F", "P12G", "P12A"]
    assert "publishes 112 of the 276 cells in 6 tables" in preview.sentence_label.text()
    assert "sex=Female, age=under 5" in preview.table.item(0, 2).text()

    page.release_rows.hispanic_box.setChecked(True)
    page.refresh_preview()
    assert len(preview.table_names()) == 8               # + Hispanic, White not Hispanic
    assert page.form_dict()["release_options"]["hispanic_col"] == "hispanic"

    page.release_rows.set_options("marginals", {"buckets": {"age": 5}})
    page.refresh_preview()
    assert "sex × age" in preview.table_names()
    page.fields["release_options.ways"].setText("1, two")
    page.refresh_preview()
    assert "whole numbers such as 1, 2" in preview.sentence_label.text()
    assert not preview.table.isVisibleTo(page)


# ---------------------------------------------------------------------- bad input

def test_a_bad_csv_gives_a_sentence_beside_the_field_and_keeps_the_entries(page):
    page.choose_data_file(SAMPLE_DATA)
    schema = page.form_dict()["schema"]
    missing = "no/such/records.csv"
    page.choose_data_file(missing)
    text = page.data_status.text()
    assert "file not found" in text and "Traceback" not in text
    assert page.data_status.isVisibleTo(page)
    assert page.data_edit.text() == missing and "c62828" in page.data_edit.styleSheet()
    assert page.form_dict()["schema"] == schema             # the schema is not lost

    page.choose_data_file(str(BAD / "microdata" / "value_outside_domain.csv"))
    assert page.data_edit.text().endswith("value_outside_domain.csv")
    assert "Traceback" not in page.data_status.text() and page.data_status.text()


def test_a_bad_query_file_gives_a_sentence_in_the_preview_and_at_run(page):
    page.choose_data_file(SAMPLE_DATA)
    page.schema_editor.set_sensitive("race")
    bad = str(BAD / "queries" / "bad_range.csv")
    page.release_rows.set_options("custom", {"path": bad})
    page.refresh_preview()
    text = page.release_preview.sentence_label.text()
    assert "ends before it starts" in text and "Traceback" not in text
    page.step_list.setCurrentRow(STEP_ATTACKS)
    page.run_button.click()
    assert not page.is_running()
    assert page.steps.currentIndex() == STEP_RELEASE
    assert "ends before it starts" in page.error_label.text()
    assert page.fields["release_options.path"].text() == bad
    assert "c62828" in page.fields["release_options.path"].styleSheet()


def test_no_sensitive_column_is_a_sentence_on_the_data_step(page):
    page.choose_data_file(SAMPLE_DATA)
    page.schema_editor.set_sensitive("")        # the proposed 'race' taken back (issue 33)
    page.step_list.setCurrentRow(STEP_ATTACKS)
    page.run_button.click()
    assert not page.is_running()
    assert page.steps.currentIndex() == STEP_DATA
    assert "sensitive" in page.error_label.text()


# ---------------------------------------------------------------------- results

def contract_result() -> dict:
    """A small result.json of the contract with what a tiny run leaves out: the membership
    game against a DP region, both sweeps and an exposed record with its cells."""
    g = np.random.default_rng(0)
    member = np.arange(40) % 2 == 0
    mia = evaluate_attack("desia_mia", "DeSIA-MIA", g.random(40) + member * 0.5, member,
                          delta=0.0, details={"game": "mia"})
    aia_member = np.arange(70) % 7 == 0
    aia = evaluate_attack("desia", "DeSIA: deterministic then stochastic module",
                          g.random(70) + aia_member, aia_member, delta=0.0,
                          details={"game": "aia", "top1_accuracy": 0.6,
                                   "top1_accuracy_ci": [0.3, 0.85], "chance": 1 / 7,
                                   "excluding_determined": {"auc": 0.7, "auc_ci": [0.5, 0.9],
                                                            "targets": 8}})
    fpr = np.unique(np.r_[0.0, np.geomspace(1e-4, 1, 50)])
    point = {"auc": 0.8, "auc_ci": [0.7, 0.9], "top1_accuracy": 0.5,
             "top1_accuracy_ci": [0.3, 0.7]}
    return {
        "audit_type": "aggregates", "name": "hand-made", "summary": "A test.",
        "config": config(mechanism="laplace", epsilon=1.0), "attacks": [aia],
        "verdict": {"level": "medium", "reasons": ["Because."], "policy_rules": []},
        "exposed_records": [{"record": "(redacted)", "value": "(redacted)",
                             "value_correct": True, "pinning_cells": ["P12: sex=Male, age=40",
                                                                      "P12A: sex=Male"],
                             "tables": ["P12", "P12A"]}],
        "theory": {
            "game": {"sensitive": "race", "values": list("ABCDEFG"), "chance": 1 / 7,
                     "quasi_identifiers": ["sex", "age"], "records": 450,
                     "auxiliary_records": 4000, "auxiliary_source": "synthetic",
                     "unique_records": 94, "targets": 10},
            "release": {"kind": "p_tables", "fraction": 0.25, "queries": 112,
                        "candidates": 368, "tables": [{"table": "P12", "cells": 20}],
                        "sensitivity": 2, "sensitivity_exact": True, "mechanism": "laplace",
                        "epsilon": 1.0, "delta": None, "budget": "per_query",
                        "noise_scale": 1.0,
                        "preview": [{"table": "P12", "label": "P12: sex=Male, age=40",
                                     "count": 3}]},
            "dp": {"epsilon_release": 2.0, "epsilon_change": 4.0, "delta": 0.0,
                   "aia_top1_bound": 0.9, "mia_accuracy_bound": 0.98,
                   "dp_region": {"epsilon": 4.0, "delta": 0.0, "fpr": fpr.tolist(),
                                 "tpr_upper": np.minimum(1, np.e ** 4 * fpr).tolist()},
                   "note": "A note."},
            "deterministic": {"targets": 10, "determined": 1, "correct": 1,
                              "time_limited": 0, "median_s": 0.1, "p95_s": 0.3},
            "membership": {"attacks": [mia], "targets": 40, "proved": 3,
                           "proved_correct": 3},
            "sweeps": {sweep: {"parameter": parameter, "values": values,
                               "queries": [10] * len(values),
                               "determined_share": [0.1] * len(values),
                               "attacks": {"desia": [point] * len(values)},
                               "labels": {"desia": "DeSIA: deterministic then stochastic"}}
                       for sweep, parameter, values in (("fraction", "fraction", [0.1, 1.0]),
                                                        ("noise", "epsilon", [5.0, 0.5]))},
        },
        "warnings": [],
    }


def test_a_real_tiny_run_renders_its_results(main_window, qtbot):
    page = main_window.audit_pages["aggregates"]
    page.set_config(config(**TINY_RUN))
    main_window.show_audit("aggregates")
    page.run_button.click()
    qtbot.waitUntil(lambda: page.result() is not None and not page.is_running(),
                    timeout=RUN_TIMEOUT_MS)
    result = page.result()
    view = page.results_view
    assert page.steps.currentIndex() == STEP_RESULTS
    assert view.verdict_banner.level_label.text().endswith("RISK")
    assert view.metrics_table.rowCount() == 2
    table = view.metrics_table
    assert "chance 14.3 %" in table.horizontalHeaderItem(1).text()
    assert "%" in table.cell_text(0, 1) and "none determined" not in table.cell_text(0, 3)
    names = view.roc_plot.curve_names()
    assert all(legend_name(attack_label(a)) in names for a in result["attacks"])
    exposed = result["exposed_records"]
    assert exposed and all(r["record"] == "(redacted)" for r in exposed)
    text = view.exposed_view.summary_label.text()
    assert f"{len(exposed):,} of the 6 targets attacked are provably determined" in text
    assert "redacted" in text and view.exposed_view.table.rowCount() == len(exposed)
    assert "P12" in view.exposed_view.tables_label.text()
    assert "Census P-tables" in view.release_view.summary_label.text()
    assert "not played" in view.membership_view.summary_label.text()
    assert "No sweeps" in view.sweeps_view.summary_label.text()


def test_membership_sweeps_and_wheel_over_every_plot(main_window, qtbot):
    page = main_window.audit_pages["aggregates"]
    main_window.show_audit("aggregates")
    page.show_result(contract_result())
    view = page.results_view
    assert any(n.startswith("Allowed by (ε = 4, δ = 0)-DP")
               for n in view.membership_view.roc_plot.curve_names())
    # The membership attack by its plain name, as the table beside the chart names it.
    assert "Proof-then-learn presence check" in view.membership_view.roc_plot.curve_names()
    assert "proves membership" in view.membership_view.summary_label.text() or \
        "prove membership for 3 of 40" in view.membership_view.summary_label.text()
    for key in ("fraction", "noise"):
        plot = view.sweeps_view.plots[key]
        assert not plot.isHidden()
        # The legend words of engine.plots.series, which the report prints too.
        names = [i.name() for i in plot.plot_item.listDataItems()]
        assert "DeSIA (measured, 95% interval)" in names
    assert "90.0 %" in view.release_view.dp_label.text()
    assert view.metrics_table.cell_text(0, 3) == "0.7 [0.5, 0.9]\n8 targets"

    main_window.resize(1100, 700)
    page.step_list.setCurrentRow(STEP_RESULTS)
    qtbot.wait(20)
    for plot in view.plots().values():
        assert_wheel_scrolls_page(plot, qtbot)


def test_empty_published_counts_are_a_choice_shown_for_a_published_table_only(page):
    """Issue 21: a published table's empty count is a count not published (the row is left
    out), or the file is refused; the choice shows for a published table only and reaches
    release_options.missing, and a config read and written back is unchanged."""
    rows = page.release_rows
    rows.set_options("published", {"path": "t.csv"})
    assert rows.form.isRowVisible(rows.missing_row)
    assert rows.missing_combo.currentData() == "drop_rows"
    assert "not a zero" in rows.missing_combo.toolTip()
    assert "missing" not in page.form_dict()["release_options"]      # the default, unwritten
    rows.missing_combo.setCurrentIndex(rows.missing_combo.findData("error"))
    assert page.form_dict()["release_options"] == {"path": "t.csv", "missing": "error"}
    rows.set_options("published", {"path": "t.csv", "missing": "error"})
    assert rows.missing_combo.currentData() == "error"
    rows.set_options("custom", {"path": "q.csv"})
    assert not rows.form.isRowVisible(rows.missing_row)
    assert page.form_dict()["release_options"] == {"path": "q.csv"}


def test_the_membership_combination_is_a_choice_and_its_choice_a_sentence(page, qtbot):
    """The best-of membership attack is offered among the membership choices by its plain
    name, round-trips through the form, and the results page says what it chose on the
    attacker's own stand-ins."""
    from gui.widgets.aggregates_results import MembershipView

    box = page.mia_boxes["best_of_mia"]
    assert box.text().startswith("Best of the presence checks")
    page.set_config(config(mia_attacks=["best_of_mia"]))
    assert box.isChecked() and page.form_dict()["mia_attacks"] == ["best_of_mia"]

    result = contract_result()
    member = np.arange(40) % 2 == 0
    best = evaluate_attack(
        "best_of_mia", "Best of the membership attacks", np.random.default_rng(1).random(40)
        + member, member, delta=0.0,
        details={"game": "mia", "shadow_choice": {
            "chosen": "cip_rand_mia", "shadow_targets": 30, "judged_targets": 27,
            "proved_targets": 3,
            "shadow_auc": {"desia_mia_stochastic_only": 0.52, "cip_rand_mia": 0.58}}})
    result["theory"]["membership"]["attacks"].append(best)
    view = MembershipView()
    qtbot.addWidget(view)
    assert view.set_result(result)
    text = view.summary_label.text()
    assert ("The best of the presence checks chose the presence check by table rebuilding "
            "because it scored an AUC of 0.58 on 27 of the attacker") in text
    assert "against 0.52 for the learned presence check from the counts." in text


def test_the_attribute_combinations_choice_is_a_sentence_under_its_table(qtbot):
    """The attribute game's best-of says on the results page what it chose on the attacker's
    own stand-ins, under the attacks' table — the sentence the report prints there."""
    from engine.wording import shadow_choice_sentence
    from gui.widgets.aggregates_results import AggregatesResultsView

    result = contract_result()
    best = dict(result["attacks"][0], name="best_of", label="Best of the attacks")
    best["details"] = {**(best.get("details") or {}), "shadow_choice": {
        "chosen": "desia_stochastic_only", "shadow_targets": 30, "judged_targets": 24,
        "proved_targets": 6, "shadow_auc": {"desia_stochastic_only": 0.71, "cip_rand": 0.6}}}
    result["attacks"].append(best)
    sentence = shadow_choice_sentence(best)
    assert sentence and "0.71 on 24 of the attacker" in sentence
    view = AggregatesResultsView()
    qtbot.addWidget(view)
    view.set_result(result)
    assert view.table_notes.isVisibleTo(view)
    assert sentence.replace("'", "&#x27;") in view.table_notes.text() \
        or sentence in view.table_notes.text()
