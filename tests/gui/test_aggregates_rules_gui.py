"""The disclosure rules on the count-tables page (issue 34 item 2): the group's settings go into
the config under ``rules`` and come back with a project; a threshold out of range is a sentence
at its field with the typed text kept; the results show the rules beside the attacks — both
kinds of disagreement, first — and no section for a result without rules."""

from __future__ import annotations

import pytest

from engine.audits.aggregates import AggregatesConfig
from engine.results.aggregates import AggregatesTheory
from engine.results.loaded import load_result
from gui.job_runner import JobRunner
from gui.pages.aggregates_page import SAMPLE_DATA, STEP_RELEASE, AggregatesPage
from gui.widgets.aggregates_results import AggregatesResultsView
from gui.widgets.aggregates_rules_view import SECTION_TITLE
from tests.gui.test_aggregates_page import contract_result, sample_schema

# The two disagreements, in the words (issue 34 item 2).
RULES_PASS_ATTACK_PROVES = "the rules pass, but the attack proves the person's value"
RULES_FAIL_NO_ATTACK = "the rules fail, yet no attack could use it"
# Every setting away from ACRO's defaults, so a setting the form drops or ignores shows.
CHANGED_RULES = {"enabled": True, "threshold": 5, "zeros_disclosive": False,
                 "group_disclosure": True, "differencing": False, "value_column": "age",
                 "dominance_n": 3, "dominance_k": 80.0, "p_ratio": 15.0,
                 "policy_follows": "both"}


@pytest.fixture
def page(qtbot):
    page = AggregatesPage(JobRunner())
    qtbot.addWidget(page)
    return page


def config(**changes) -> dict:
    return AggregatesConfig.from_dict({"audit_type": "aggregates", **changes}).to_dict()


def csv_config(rules: dict | None = None) -> dict:
    """The sample CSV with a schema whose age is a whole number (a column a table of sums can
    add up)."""
    extra = {"rules": rules} if rules is not None else {}
    return config(data=SAMPLE_DATA, schema=sample_schema(), **extra)


# ---------------------------------------------------------------------- the settings

def test_the_defaults_are_acros_and_the_sum_rules_wait_for_a_column(page):
    rules = page.form_dict()["rules"]
    assert rules == AggregatesConfig().to_dict()["rules"]
    assert page.rules_box.isChecked() and page.rules_sum_combo.currentData() == ""
    # The dominance and p-ratio rules apply to tables of sums only.
    assert not page.fields["rules.dominance_k"].isEnabled()
    assert page.fields["rules.threshold"].isEnabled()
    for key in ("rules.threshold", "rules.dominance_n", "rules.dominance_k", "rules.p_ratio"):
        assert "ACRO" in page.fields[key].toolTip(), key
    for check in page.rule_checks.values():
        assert "ACRO" in check.toolTip()


def test_the_rules_round_trip_into_the_config_and_back(page, qtbot):
    wanted = csv_config(CHANGED_RULES)
    assert wanted["rules"] == CHANGED_RULES          # the engine keeps every setting as given
    page.set_config(wanted)
    assert page.form_dict() == wanted
    assert page.fields["rules.threshold"].text() == "5"
    assert page.rules_sum_combo.currentData() == "age"
    assert page.fields["rules.dominance_k"].isEnabled()
    assert not page.rule_checks["zeros_disclosive"].isChecked()
    assert page.rules_follows_combo.currentData() == "both"

    # The officer edits the group; a project saved now and opened again shows the edits.
    page.fields["rules.threshold"].setText("7")
    page.rule_checks["differencing"].setChecked(True)
    page.rules_follows_combo.setCurrentIndex(page.rules_follows_combo.findData("rules"))
    page.rules_sum_combo.setCurrentIndex(page.rules_sum_combo.findData(""))
    saved = page.config_for_saving()
    assert saved["rules"] == {**CHANGED_RULES, "threshold": 7, "differencing": True,
                              "policy_follows": "rules", "value_column": ""}
    other = AggregatesPage(JobRunner())
    qtbot.addWidget(other)
    other.load_state(saved, None, [])
    assert other.config_for_saving() == saved
    assert other.fields["rules.threshold"].text() == "7"
    assert other.rule_checks["differencing"].isChecked()
    assert not other.fields["rules.p_ratio"].isEnabled()     # no column of sums any more

    # Rules turned off travel too (the engine then writes no rules block).
    other.rules_box.setChecked(False)
    assert other.config_for_saving()["rules"]["enabled"] is False


def test_a_project_naming_some_rules_keeps_the_defaults_of_the_others(page):
    saved = csv_config()
    saved["rules"] = {"threshold": 3}
    page.load_state(saved, None, [])
    rules = page.config_for_saving()["rules"]
    assert rules == {**AggregatesConfig().to_dict()["rules"], "threshold": 3}


def test_a_sum_column_the_data_lacks_is_kept_not_dropped(page):
    wanted = csv_config({**CHANGED_RULES, "value_column": "age"})
    wanted["rules"]["value_column"] = "income"       # as a project from other data holds it
    page.set_config(wanted)
    assert page.rules_sum_combo.currentData() == "income"
    assert "not a number column" in page.rules_sum_combo.currentText()
    assert page.form_dict()["rules"]["value_column"] == "income"


@pytest.mark.parametrize("typed", ["0", "1001", "ten"])
def test_a_threshold_out_of_range_is_a_sentence_at_the_field_and_the_text_stays(page, typed):
    page.step_list.setCurrentRow(STEP_RELEASE)
    edit = page.fields["rules.threshold"]
    edit.setText(typed)
    page.update_estimate(force=True)
    label = edit.error_label
    assert label.isVisibleTo(page)
    sentence = label.text()
    assert sentence and "Traceback" not in sentence and "rules.threshold" not in sentence
    if typed != "ten":
        assert "1000" in sentence                     # the range the field accepts
    assert edit.text() == typed
    # Saved as typed (the form is not valid): the project keeps what the officer wrote.
    assert page.config_for_saving()["rules"]["threshold"] == (int(typed) if typed.isdigit()
                                                              else typed)

    # Run: nothing starts, the page goes to the Release step and says it there too.
    page.step_list.setCurrentRow(0)
    page.run_button.click()
    assert not page.is_running()
    assert page.steps.currentIndex() == STEP_RELEASE
    assert page.error_label.text() and edit.text() == typed

    edit.setText("12")                                  # corrected: the sentence goes
    page.update_estimate(force=True)
    assert not label.isVisibleTo(page)


# ---------------------------------------------------------------------- the results

def rules_block() -> dict:
    """A rules block as result.json holds it (the shared contract of issue 34 item 2), with one
    target of each kind — the agreements listed first, so the view's order shows."""
    counts = {"threshold": 2, "zeros": 1, "group": 0, "differencing": 1,
              "dominance": None, "p_ratio": None}
    target = {"failed": [], "cells": [], "attack_found": False, "attack": None}
    return {
        "parameters": AggregatesConfig().to_dict()["rules"],
        "tables": [{"table": "P12", "cells": 20, "failed": 3, "by_rule": counts,
                    "passes": False},
                   {"table": "P12A", "cells": 8, "failed": 0,
                    "by_rule": dict.fromkeys(counts, 0), "passes": True}],
        "cells": [{"table": "P12", "label": "P12: sex=Male, age=40", "count": 3,
                   "failed": ["threshold"], "reason": "3 people, fewer than 10."},
                  {"table": "P12", "label": "P12: sex=Female, age=90", "count": 0,
                   "failed": ["threshold", "zeros"], "reason": "Nobody: a zero."},
                  {"table": "P12", "label": "P12: sex=Male", "count": 14,
                   "failed": ["differencing"], "reason": "P12 total minus P12: sex=Female."}],
        "cells_truncated": 7,
        "summary": {"passes": False, "cells": 28, "failed_cells": 3, "by_rule": counts,
                    "sentence": "3 of the 28 published cells fail a rule."},
        "targets": [
            {**target, "target": "target 3", "rules_fail": False, "attack_proves": False,
             "agreement": "both_pass"},
            {**target, "target": "target 4", "rules_fail": True, "failed": ["threshold"],
             "cells": ["P12: sex=Male, age=40"], "attack_proves": True, "attack_found": True,
             "attack": "desia", "agreement": "both_flag"},
            {**target, "target": "target 1", "rules_fail": False, "attack_proves": True,
             "attack_found": True, "attack": "desia", "agreement": "rules_pass_attack_proves"},
            {**target, "target": "target 2", "rules_fail": True, "failed": ["zeros"],
             "cells": ["P12: sex=Female, age=90"], "attack_proves": False,
             "agreement": "rules_fail_no_attack"},
        ],
        "disagreement": {"rules_pass_attack_proves": 1, "rules_fail_no_attack": 1,
                         "both_flag": 1, "both_pass": 1,
                         "sentence": "The rules and the attacks disagree on 2 of 4 targets."},
        "policy_follows": "both",
        "followed_sentence": "Your policy follows both: the release passes only if the rules "
                             "pass and the attacks find no risk.",
        "seconds": 0.01,
    }


def result_with_rules(block) -> dict:
    result = contract_result()
    result["theory"]["rules"] = block
    return result


def column(table, col: int) -> list[str]:
    return [table.item(r, col).text() for r in range(table.rowCount())]


def test_the_rules_beside_the_attacks_show_both_disagreements_first(qtbot):
    result = result_with_rules(rules_block())
    loaded = load_result(result)
    assert isinstance(loaded.theory, AggregatesTheory)
    block = loaded.theory.rules                      # the typed reader reads it back
    assert block is not None and len(block.targets) == 4
    view = AggregatesResultsView()
    qtbot.addWidget(view)
    view.set_result(result)
    rules = view.rules_view
    box = rules.parentWidget()
    assert box.title() == SECTION_TITLE and box.isVisibleTo(view)

    assert rules.followed_label.text().startswith("Your policy follows both")
    assert "3 of the 28 published cells fail a rule." in rules.summary_label.text()
    assert column(rules.tables_table, 0) == ["P12", "P12A"]
    assert column(rules.tables_table, 2) == ["3", "0"]

    table = rules.targets_table
    assert column(table, 3) == [RULES_PASS_ATTACK_PROVES, RULES_FAIL_NO_ATTACK,
                                "both flag this person", "both pass"]
    assert column(table, 0) == ["target 1", "target 2", "target 4", "target 3"]
    assert column(table, 1)[0] == "pass" and column(table, 1)[1].startswith("fail")
    assert column(table, 2)[0].startswith("proves the value")
    assert column(table, 2)[1] == "no attack found the value"
    assert column(table, 4)[1] == "P12: sex=Female, age=90"
    # Disagreement rows are marked; agreements are not.
    assert table.item(0, 0).background().color() != table.item(3, 0).background().color()

    rules.disagreements_only.setChecked(True)
    assert column(table, 3) == [RULES_PASS_ATTACK_PROVES, RULES_FAIL_NO_ATTACK]
    rules.disagreements_only.setChecked(False)
    assert table.rowCount() == 4

    cells = rules.cells_table
    assert column(cells, 1) == ["P12: sex=Male, age=40", "P12: sex=Female, age=90",
                                "P12: sex=Male"]
    assert column(cells, 2) == ["3", "0", "14"]
    assert "7 more failing cells" in rules.cells_note.text()


def test_a_result_without_rules_shows_no_section(qtbot):
    view = AggregatesResultsView()
    qtbot.addWidget(view)
    box = view.rules_view.parentWidget()
    view.set_result(contract_result())               # from before issue 34: no block
    assert not box.isVisibleTo(view)
    view.set_result(result_with_rules(rules_block()))
    assert box.isVisibleTo(view)
    view.set_result(result_with_rules(None))         # rules turned off: the block is null
    assert not box.isVisibleTo(view)
    view.set_result(None)
    assert not box.isVisibleTo(view)



def test_a_real_tiny_runs_rules_render_with_the_disagreements_first(qtbot):
    """The engine's own block (not a hand-made one) through the loader into the section."""
    from engine.audits import registry
    from tests.gui.test_aggregates_page import TINY_RUN

    result = registry.run_audit(AggregatesConfig.from_dict(
        {"audit_type": "aggregates", **TINY_RUN})).to_dict()
    block = load_result(result).theory.rules
    assert block is not None
    view = AggregatesResultsView()
    qtbot.addWidget(view)
    view.set_result(result)
    rules = view.rules_view
    assert rules.parentWidget().isVisibleTo(view)
    assert rules.followed_label.text() and block.summary.sentence in rules.summary_label.text()
    assert rules.tables_table.rowCount() == len(block.tables)
    kinds = [t.agreement for t in block.targets]
    agreement = column(rules.targets_table, 3)
    disagreements = sum(k in ("rules_pass_attack_proves", "rules_fail_no_attack") for k in kinds)
    assert len(agreement) == len(kinds)
    assert all(a in (RULES_PASS_ATTACK_PROVES, RULES_FAIL_NO_ATTACK)
               for a in agreement[:disagreements])
    assert not any(a in (RULES_PASS_ATTACK_PROVES, RULES_FAIL_NO_ATTACK)
                   for a in agreement[disagreements:])
    assert rules.cells_table.rowCount() == len(block.cells)
