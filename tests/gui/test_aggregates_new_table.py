"""The count-table page on tables it has never seen (issue 33 item 4, "count tables that start
right"), through the real page: the row numbers and id-like columns left out with their reason
on the column's name, no table built from a column the file lacks, no memory warning on load,
defaults that pass the engine's config check and run, and a role change that moves another
column's role said in a line under the table."""

from __future__ import annotations

from pathlib import Path

import pytest

from engine.audits.aggregates import AggregatesConfig
from engine.estimates import estimate, preflight
from gui.job_runner import JobRunner
from gui.pages.aggregates_page import STEP_RESULTS, AggregatesPage

TABLES = Path(__file__).resolve().parents[1] / "data" / "public_style"
ID_COLUMNS = {"wages_534.csv": "rownames", "adult_like.csv": "fnlwgt",
              "hospital_discharges.csv": "patient_code"}
RUN_TIMEOUT_MS = 120_000


@pytest.fixture
def page(qtbot, plots_configured):
    page = AggregatesPage(JobRunner())
    qtbot.addWidget(page)
    return page


def roles(page) -> dict[str, str]:
    return {c["name"]: c["role"] for c in page.form_dict()["schema"]["columns"]}


@pytest.mark.parametrize("name", sorted(ID_COLUMNS))
def test_a_new_table_starts_with_roles_tables_and_settings_that_fit_it(page, name):
    page.choose_data_file(str(TABLES / name))
    got = roles(page)
    id_column = ID_COLUMNS[name]
    assert got[id_column] == "ignore"
    tip = page.schema_editor.table.item(page.schema_editor.row_of(id_column), 0).toolTip()
    assert "every row" in tip or "row numbers" in tip
    assert 1 <= list(got.values()).count("quasi_identifier") <= 4
    assert list(got.values()).count("sensitive") == 1
    assert page.proposal_label.isVisibleTo(page) and id_column in page.proposal_label.text()

    # The default tables are built from the chosen columns: no "Unknown column".
    page.refresh_preview()
    sentence = page.release_preview.sentence_label.text()
    assert "Unknown column" not in sentence and "publishes" in sentence
    used = {n for n, r in got.items() if r != "ignore"}
    if page.release_rows.kind() == "marginals":
        for table in page.release_preview.table_names():
            assert set(table.split(" × ")) <= used, table

    # The page's own checks and the engine's config check pass; the run fits in memory.
    config = page.validated_config()
    AggregatesConfig.from_dict(page.form_dict())
    assert preflight(estimate(config)).refusal is None
    page.update_estimate(force=True)
    assert "GB of memory but" not in page.run_bar.estimate_label.text()
    assert page.run_bar.estimate_label.text().startswith("Estimated:")


def test_a_table_without_the_census_columns_gets_marginals_of_its_own_columns(page):
    page.choose_data_file(str(TABLES / "hospital_discharges.csv"))   # no 'age' column
    assert page.release_rows.kind() == "marginals"
    assert "marginal" in page.proposal_label.text()
    page.refresh_preview()
    assert "sex × county" in page.release_preview.table_names()


def test_the_wage_table_keeps_its_wages_and_row_numbers_out_and_says_why(page):
    page.choose_data_file(str(TABLES / "wages_534.csv"))
    editor = page.schema_editor
    got = roles(page)
    assert got["rownames"] == "ignore" and got["wage"] == "ignore"
    assert "continuous" in editor.table.item(editor.row_of("wage"), 0).toolTip()
    assert got["race"] == "sensitive" and editor.sensitive() == "race"
    # Targets are counted on the proposed quasi-identifiers, not on every column.
    assert "rownames" not in page.data_status.text()
    assert not page.role_change_label.isVisibleTo(page)


def test_choosing_another_sensitive_column_says_what_happened_to_the_old_one(page):
    page.choose_data_file(str(TABLES / "wages_534.csv"))
    editor = page.schema_editor
    editor.set_sensitive("occupation")
    got = roles(page)
    assert got["occupation"] == "sensitive" and got["race"] == "quasi_identifier"
    line = page.role_change_label
    assert line.isVisibleTo(page)
    assert "'race' was the sensitive column; it is now a quasi-identifier" in line.text()

    editor.set_role("sector", "quasi_identifier")          # moves no other role: no line
    assert not line.isVisibleTo(page)
    editor.set_role("race", "sensitive")                    # by its row: said again
    assert "'occupation' was the sensitive column" in line.text() and line.isVisibleTo(page)


def test_a_new_file_gets_its_own_proposal_and_inferring_again_keeps_the_choice(page):
    page.choose_data_file(str(TABLES / "wages_534.csv"))
    assert page.schema_editor.sensitive() == "race"
    page.choose_data_file(str(TABLES / "adult_like.csv"))     # it has a 'race' column too
    got = roles(page)
    assert got["income"] == "sensitive" and got["race"] == "quasi_identifier"
    assert not page.role_change_label.isVisibleTo(page)

    page.schema_editor.set_sensitive("workclass")
    page.reinfer_button.click()
    got = roles(page)
    assert got["workclass"] == "sensitive" and got["income"] == "ignore"
    assert "'workclass' stays the sensitive column" in page.proposal_label.text()


def test_the_proposed_defaults_run_through_the_registry(main_window, qtbot, monkeypatch):
    import engine.audits.registry as registry

    called = []
    real = registry.run_audit

    def spy(config, **kwargs):
        called.append(config.audit_type)
        return real(config, **kwargs)

    monkeypatch.setattr(registry, "run_audit", spy)
    page = main_window.audit_pages["aggregates"]
    main_window.show_audit("aggregates")
    page.choose_data_file(str(TABLES / "hospital_discharges.csv"))
    # Small numbers for a quick first look; the roles and the tables are the proposal's.
    small = {"max_targets": 3, "n_shadow": 100, "reconstructions": 1, "solver_time_limit": 5,
             "fraction": 0, "membership": False, "seed": 2,
             "attacks": ["desia_deterministic_only", "data_only"]}
    page.set_config({**page.form_dict(), **small})
    assert roles(page)["patient_code"] == "ignore"
    page.run_button.click()
    assert page.is_running(), page.error_label.text()
    qtbot.waitUntil(lambda: page.result() is not None and not page.is_running(),
                    timeout=RUN_TIMEOUT_MS)
    assert called == ["aggregates"]
    assert page.steps.currentIndex() == STEP_RESULTS
