"""The Compare step in the app (issue 34 item 1): the candidate table becomes the CandidateSet
the engine gets; bad input is a sentence at the cell with the text kept; a comparison renders
its table, its best candidate and the pairs that cannot be told apart; Cancel keeps the
finished candidates; a run is kept and shown again when the window is opened later; every
audit page has the button and "Open candidate" opens the result on its page."""

from __future__ import annotations

import json
import time

import pytest

from engine.compare import compare_results, read_comparison, run_comparison
from engine.compare.run import write_comparison
from engine.runtime import JobCancelled
from gui.job_runner import JobRunner
from gui.pages.compare_page import ComparePage, comparisons_folder
from gui.widgets.compare_results import BEST_FILL, BEST_MARK
from tests.engine.compare_helpers import TINY_BASE, tiny_set

# ε = 0.01 and 0.02 per hour leave the tiny city's counts so noisy that every attack is near
# guessing: their risk intervals overlap (a pair that cannot be told apart); ε = 50 leaves the
# counts almost exact, so the attack is far stronger and its interval lies apart.
EPSILONS = (0.01, 0.02, 50.0)


@pytest.fixture(autouse=True)
def private_app_data(monkeypatch, tmp_path):
    """Comparisons are kept in the app's data folder: a fresh one per test."""
    monkeypatch.setenv("PRA_APP_DATA", str(tmp_path / "app-data"))


@pytest.fixture(scope="module")
def tiny_run(tmp_path_factory):
    """A real comparison of the tiny location city at three ε (a few seconds), and its
    folder."""
    folder = tmp_path_factory.mktemp("tiny-comparison")
    return run_comparison(tiny_set(EPSILONS), folder), folder


def make_page(qtbot, base=None) -> ComparePage:
    page = ComparePage(JobRunner(), "location", "Location audit", dict(base or TINY_BASE))
    qtbot.addWidget(page)
    page.confirm_long_run = lambda question: True
    return page


def wait_idle(qtbot, page, timeout=60_000) -> None:
    qtbot.waitUntil(lambda: not page.runner.is_busy(), timeout=timeout)


def typed(page) -> list[dict]:
    return page.candidates.rows_text()


# ------------------------------------------------------------------ the table → the engine

def test_the_table_builds_the_candidate_set_the_engine_gets(qtbot):
    page = make_page(qtbot)
    t = page.candidates
    assert t.table.rowCount() == 2               # the base and one to fill in
    t.cell(0, "label").setText("ε = 0.5 (as now)")
    t.cell(1, "label").setText("ε = 2, Gaussian")
    t.cell(1, "epsilon").setText("2")
    combo = t.cell(1, "mechanism")
    combo.setCurrentIndex(combo.findData("gaussian"))
    t.add_candidate("500 people per count", {"aggregate_size": 500})
    page.name_edit.setText("Which ε?")
    page.level_combo.setCurrentIndex(page.level_combo.findData("medium"))

    cset = page.candidate_set()
    assert cset is not None and t.error_label.isHidden()
    assert cset.audit_type == "location" and cset.name == "Which ε?"
    assert cset.highest_level == "medium"
    assert [c.label for c in cset.candidates] == ["ε = 0.5 (as now)", "ε = 2, Gaussian",
                                                 "500 people per count"]
    # Only the cells filled in are overrides; numbers are read as numbers.
    assert [dict(c.overrides) for c in cset.candidates] == [
        {}, {"epsilon": 2, "mechanism": "gaussian"}, {"aggregate_size": 500}]
    configs = cset.configs()
    # One seed, the base's, for every candidate (common random numbers).
    assert {c.seed for c in configs} == {TINY_BASE["seed"]}
    assert (configs[1].epsilon, configs[1].mechanism) == (2.0, "gaussian")
    assert configs[2].aggregate_size == 500 and configs[2].epsilon == TINY_BASE["epsilon"]


def test_duplicate_and_remove_rows(qtbot):
    page = make_page(qtbot)
    t = page.candidates
    t.cell(1, "label").setText("ε = 1")
    t.cell(1, "epsilon").setText("1")
    t.table.selectRow(1)
    t.duplicate_selected()
    assert typed(page)[2] == {"label": "ε = 1 (copy)", "epsilon": "1"}
    t.table.selectRow(0)
    t.remove_selected()
    assert [r["label"] for r in typed(page)] == ["ε = 1", "ε = 1 (copy)"]


# ------------------------------------------------------------------ bad input: sentences, kept

def test_a_single_candidate_is_a_sentence_and_nothing_runs(qtbot):
    page = make_page(qtbot)
    page.candidates.cell(0, "label").setText("only one")
    page.candidates.table.selectRow(1)
    page.candidates.remove_selected()
    page.run_bar.run_button.click()
    assert not page.runner.is_busy()
    error = page.candidates.error_label
    assert not error.isHidden()
    assert "needs 2 to 8 candidates and this one has 1" in error.text()
    assert typed(page) == [{"label": "only one"}]


@pytest.mark.parametrize("text, words", [("-1", "greater than 0"), ("abc", "abc")])
def test_a_bad_value_is_a_sentence_at_its_cell_with_the_text_kept(qtbot, text, words):
    page = make_page(qtbot)
    t = page.candidates
    t.cell(0, "label").setText("as now")
    t.cell(1, "label").setText("bad")
    t.cell(1, "epsilon").setText(text)
    page.run_bar.run_button.click()
    assert not page.runner.is_busy()
    assert t.marked_cells() == [(1, "epsilon")]
    sentence = t.error_label.text()
    assert sentence.startswith("Candidate 2, ε per hour: ") and words in sentence
    assert t.cell(1, "epsilon").toolTip() == sentence
    assert t.cell(1, "epsilon").text() == text                 # kept as typed
    assert "Traceback" not in sentence and "'epsilon'" not in sentence


def test_two_candidates_with_one_label_mark_the_label(qtbot):
    page = make_page(qtbot)
    t = page.candidates
    t.cell(0, "label").setText("same")
    t.cell(1, "label").setText("same")
    t.cell(1, "epsilon").setText("2")
    assert page.candidate_set() is None
    assert "both called “same”" in t.error_label.text()
    assert (1, "label") in t.marked_cells()
    assert typed(page)[1] == {"label": "same", "epsilon": "2"}


# ------------------------------------------------------------------ the results

def test_a_comparison_renders_its_table_best_and_pairs(qtbot, tiny_run):
    comparison, _folder = tiny_run
    # Preconditions the chosen ε make true (EPSILONS' comment): a pair that cannot be told
    # apart, one that can, and a best candidate.
    apart = [p for p in comparison.pairs if not p.distinguishable]
    assert apart and len(apart) < len(comparison.pairs) and comparison.best is not None
    page = make_page(qtbot)
    view = page.view
    view.set_comparison(comparison)
    assert view.table.rowCount() == len(comparison.rows) == 3
    best = view.best_row()
    assert comparison.rows[best].index == comparison.best
    for col in range(view.table.columnCount()):
        assert view.table.item(best, col).background().color() == BEST_FILL
    assert view.table.item(best, 0).text() == BEST_MARK
    others = [r for r in range(3) if r != best]
    assert all(view.table.item(r, 0).text() != BEST_MARK for r in others)
    assert view.best_label.text() == f"★ {comparison.best_sentence}"
    # Every pair that cannot be told apart is listed in the engine's words; no other is.
    text = view.pairs_label.text()
    for p in comparison.pairs:
        assert (p.sentence in text) == (not p.distinguishable)
    # Risk with its interval and "meets policy" as the engine has them.
    row = comparison.rows[0]
    assert f"{row.risk.value:.1%} ({row.risk.ci[0]:.1%} to {row.risk.ci[1]:.1%})" == \
        view.table.item(0, 3).text()
    assert view.table.item(0, 6).text()[0] == ("✓" if row.meets_policy else "✗")
    assert view.table.item(0, 2).text() == "ε per hour = 0.01"
    assert not view.chart.showing_message()


def test_the_pdf_is_written_from_the_window(qtbot, tiny_run, tmp_path):
    comparison, folder = tiny_run
    page = make_page(qtbot)
    page.show_comparison(comparison, folder)
    path = tmp_path / "comparison.pdf"
    page.write_report(str(path))
    wait_idle(qtbot, page)
    assert path.read_bytes()[:5] == b"%PDF-"
    assert "written to" in page.run_bar.status_label.text()


# ------------------------------------------------------------------ running, cancel, reopening

def test_cancel_keeps_the_finished_candidates_and_the_table(qtbot, tiny_run, monkeypatch):
    _comparison, folder = tiny_run
    first = json.loads((folder / "candidate-1" / "result.json").read_text(encoding="utf-8"))

    def fake_run(cset, out_dir, *, progress, cancel):
        """The engine's streaming contract: candidate 1 finished and written, then Cancel."""
        out_dir.mkdir(parents=True, exist_ok=True)
        n = len(cset.candidates)
        results = [first] + [None] * (n - 1)
        statuses = ["finished", "running"] + ["pending"] * (n - 2)
        write_comparison(out_dir, compare_results(cset, results, statuses=statuses))
        progress(0.5, f"Candidate 2 of {n}")
        while not cancel.cancelled:
            time.sleep(0.01)
        statuses = ["finished"] + ["cancelled"] * (n - 1)
        write_comparison(out_dir, compare_results(cset, results, statuses=statuses))
        raise JobCancelled("cancelled")

    monkeypatch.setattr(ComparePage, "run_function", staticmethod(fake_run))
    page = make_page(qtbot)
    t = page.candidates
    t.cell(0, "label").setText("ε = 0.01")
    t.cell(0, "epsilon").setText("0.01")
    t.cell(1, "label").setText("ε = 0.02")
    t.cell(1, "epsilon").setText("0.02")
    before = typed(page)
    page.run_bar.run_button.click()
    assert page.is_running() and not t.table.isEnabled()
    qtbot.waitUntil(lambda: "Candidate 2" in page.run_bar.status_label.text(), timeout=10_000)
    page.run_bar.cancel_button.click()
    wait_idle(qtbot, page, 10_000)
    assert not page.is_running() and t.table.isEnabled()
    assert "1 finished candidate kept" in page.run_bar.status_label.text()
    view = page.view
    assert view.table.rowCount() == 2
    assert view.table.item(0, 1).text() == "ε = 0.01"
    assert view.table.item(1, 1).text() == "ε = 0.02 (cancelled)"
    assert view.table.item(0, 3).text() != "—"
    assert typed(page) == before                               # nothing typed is lost


def test_a_run_is_kept_and_shown_again_when_reopened(qtbot):
    page = make_page(qtbot)
    t = page.candidates
    t.cell(0, "label").setText("ε = 0.5")
    t.cell(1, "label").setText("ε = 4")
    t.cell(1, "epsilon").setText("4")
    page.run_bar.run_button.click()
    wait_idle(qtbot, page)
    assert page.comparison is not None and len(page.comparison.finished) == 2
    assert page.folder.parent == comparisons_folder()
    assert read_comparison(page.folder).to_dict() == page.comparison.to_dict()
    # A later session: a new window shows the last comparison of this audit.
    again = make_page(qtbot)
    assert again.show_latest()
    assert again.comparison.to_dict() == page.comparison.to_dict()
    assert again.view.table.rowCount() == 2


# ------------------------------------------------------------------ in the main window

def test_every_audit_page_opens_compare_and_open_candidate_reaches_the_page(main_window,
                                                                            tiny_run):
    comparison, folder = tiny_run
    for page in main_window.audit_pages.values():
        assert page.compare_button.text() == "Compare candidates…"
    page = main_window.location_page
    page.compare_button.click()
    window = page.compare_window
    assert window.isVisible() and window.audit_type == "location"
    assert window.base["audit_type"] == "location"
    window.show_comparison(comparison, folder)
    window.open_candidate(comparison.rows[1].index)
    assert main_window.audit_page is page
    assert page.result() is not None
    assert page.result()["config"]["epsilon"] == EPSILONS[1]
    window.close()


# ------------------------------------------------------------------ saved projects, changed files

def _project(path, result: dict, audit_type: str = "location"):
    from engine.project import Project, save_project

    save_project(path, Project(audit_type=audit_type, config=result["config"], result=result,
                               name=path.name.split(".")[0]))
    return str(path)


def test_saved_projects_side_by_side_and_of_two_types_a_sentence(qtbot, tiny_run, tmp_path):
    import shutil

    from tests.engine.test_project_blocks import PROJECTS

    _comparison, folder = tiny_run
    results = [json.loads((folder / f"candidate-{i}" / "result.json").read_text("utf-8"))
               for i in (1, 2)]
    a = _project(tmp_path / "quiet.praudit.json", results[0])
    b = _project(tmp_path / "louder.praudit.json", results[1])
    page = make_page(qtbot)
    page.candidates.cell(1, "label").setText("typed before")
    page.compare_saved_projects([a, b])
    wait_idle(qtbot, page)
    view = page.view
    assert [view.table.item(r, 1).text() for r in range(2)] == ["quiet", "louder"]
    assert {view.table.item(r, 2).text() for r in range(2)} == {"saved project"}
    assert read_comparison(page.folder).to_dict() == page.comparison.to_dict()
    # A mechanism project beside a location one: the engine's sentence, nothing lost.
    mech = tmp_path / "mech.praudit.json"
    shutil.copy(PROJECTS / "mechanism.praudit.json", mech)
    shown = page.comparison
    page.compare_saved_projects([a, str(mech)])
    wait_idle(qtbot, page)
    assert "only projects of one audit type can be compared" in \
        page.candidates.error_label.text()
    assert page.comparison is shown
    assert typed(page)[1] == {"label": "typed before"}


def test_a_candidate_result_changed_since_the_run_is_a_sentence(qtbot, tiny_run, tmp_path,
                                                                monkeypatch):
    import shutil

    comparison, folder = tiny_run
    copy = tmp_path / "copy"
    shutil.copytree(folder, copy)
    result_file = copy / "candidate-2" / "result.json"
    result = json.loads(result_file.read_text(encoding="utf-8"))
    result["runtime_s"] = 12345.0                 # one figure changed behind the app's back
    result_file.write_text(json.dumps(result), encoding="utf-8")
    messages = []
    monkeypatch.setattr("gui.pages.compare_page.show_message_error",
                        lambda parent, title, message: messages.append(message))
    opened = []
    page = make_page(qtbot)
    page.open_result = lambda config, result, label: opened.append(label)
    page.show_comparison(comparison, copy)
    page.open_candidate(2)
    assert not opened
    assert "has changed since the comparison was run" in messages[0]
    page.open_candidate(1)                          # unchanged: opens
    assert opened == [comparison.row(1).label]


def test_a_half_typed_page_is_named_as_the_base_not_as_a_candidate(qtbot):
    page = make_page(qtbot, base={**TINY_BASE, "aggregate_size": "twenty"})
    page.candidates.cell(1, "label").setText("ε = 2")
    page.candidates.cell(1, "epsilon").setText("2")
    page.run_bar.run_button.click()
    assert not page.runner.is_busy()
    text = page.candidates.error_label.text()
    assert text.startswith("The Location audit page's settings, which every candidate starts "
                           "from, need correcting first: ") and "twenty" in text
    assert page.candidates.marked_cells() == []


@pytest.mark.parametrize("audit_type", ["mechanism", "location", "aggregates", "model"])
def test_every_audit_gets_its_controllable_columns_with_fitting_editors(qtbot, audit_type):
    from PySide6.QtWidgets import QComboBox

    from engine.audits.registry import AUDIT_TYPES
    from engine.compare import CONTROLLABLE
    from gui.widgets.compare_candidates import choices_for

    base = AUDIT_TYPES[audit_type].config().to_dict()
    page = ComparePage(JobRunner(), audit_type, audit_type, base)
    qtbot.addWidget(page)
    t = page.candidates
    assert [k for k, _ in t.keys] == [k for k, _ in CONTROLLABLE[audit_type] if k in base]
    for key, _label in t.keys:
        combo = isinstance(t.cell(0, key), QComboBox)
        assert combo == (choices_for(audit_type, key) is not None)
        if combo:      # every choice the engine accepts, after "as the base"
            offered = [t.cell(0, key).itemData(i) for i in range(t.cell(0, key).count())]
            assert offered == [None, *choices_for(audit_type, key)]


def test_a_table_of_settings_is_read_as_written_and_a_typo_is_a_sentence(qtbot):
    from engine.audits.registry import AUDIT_TYPES

    base = AUDIT_TYPES["model"].config().to_dict()
    page = ComparePage(JobRunner(), "model", "Model audit", base)
    qtbot.addWidget(page)
    t = page.candidates
    t.cell(0, "label").setText("undefended")
    t.cell(1, "label").setText("defended")
    t.cell(1, "defences").setText("{enabled = true, l2_weight_decays = [0.01]}")
    overrides = [dict(c.overrides) for c in t.candidates()]
    assert overrides == [{}, {"defences": {"enabled": True, "l2_weight_decays": [0.01]}}]
    t.cell(1, "defences").setText('{"enabled": true}')
    assert dict(t.candidates()[1].overrides) == {"defences": {"enabled": True}}
    t.cell(1, "defences").setText("{enabled = tru")
    assert page.candidate_set() is None
    assert t.marked_cells() == [(1, "defences")]
    assert t.error_label.text().startswith("Candidate 2, “Defence settings”: cannot be read")
    assert t.cell(1, "defences").text() == "{enabled = tru"
