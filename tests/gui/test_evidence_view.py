"""Issue 32 item 2 on screen: the verdict banner's "Evidence:" line and its list of attacks
that cannot be told from guessing, and the metrics table's "Beats guessing (after
correction)?" column with p and adjusted p in its tooltip.

The result is the hand-built mechanism result of tests/report/conftest.py (attack entries from
``engine.auditing.evaluate_attack`` on a small simulated game, no long run); one of its two
attacks is given scores that carry nothing about membership, and the verdict is then weighed by
the real ``engine.evidence.verdict_block``, so which attack is counted comes from the engine,
not from this file.
"""

from __future__ import annotations

import copy

import numpy as np
import pytest

from engine.auditing import evaluate_attack
from engine.evidence import verdict_block
from engine.policy import VerdictPolicy
from engine.wording import plain_name
from gui.widgets.metrics_table import EVIDENCE_HEADER, MetricsTable, _p
from gui.widgets.results_view import ResultsView
from tests.report.conftest import DELTA, FPR_TARGETS, N, _build

STRONG, NOISE = "np_optimal", "naive_sum"


@pytest.fixture(scope="module")
def _master() -> dict:
    result = _build()
    # The second attack's scores are pure noise: it reads nothing of the release, so it
    # must not beat guessing after correction (and must not raise the level).
    rng = np.random.default_rng(11)
    labels = np.r_[np.ones(N, bool), np.zeros(N, bool)]
    noise = next(a for a in result["attacks"] if a["name"] == NOISE)
    result["attacks"][result["attacks"].index(noise)] = evaluate_attack(
        NOISE, noise["label"], rng.normal(size=2 * N), labels, delta=DELTA,
        fpr_targets=FPR_TARGETS, details=noise["details"])
    policy = VerdictPolicy()
    verdict, _, _ = verdict_block(result["attacks"], policy)
    result["verdict"] = verdict
    return result


@pytest.fixture
def result(_master) -> dict:
    return copy.deepcopy(_master)


def _evidence(result: dict) -> dict:
    return result["verdict"]["evidence"]


def _column(table: MetricsTable) -> int:
    return next(c for c in range(table.columnCount())
                if table.horizontalHeaderItem(c).text() == EVIDENCE_HEADER)


def _row(table: MetricsTable, result: dict, name: str) -> int:
    attack = next(a for a in result["attacks"] if a["name"] == name)
    label = plain_name(attack)
    return next(r for r in range(table.rowCount()) if table.cell_text(r, 0) == label)


def test_the_engine_split_the_attacks_as_the_test_needs(result):
    """Guard for the other tests: one attack counted, the noise one not."""
    ev = _evidence(result)
    assert ev["counted"] == [STRONG]
    assert ev["cannot_tell"] == [NOISE]
    assert ev["sentence"]


def test_banner_shows_the_evidence_sentence_verbatim_and_who_cannot_be_told(qtbot, result):
    view = ResultsView()
    qtbot.addWidget(view)
    view.set_result(result)
    html = view.verdict_banner.reasons_label.text()
    ev = _evidence(result)
    # The sentence is plain text (no characters HTML would escape), so it appears verbatim.
    assert not set("<>&") & set(ev["sentence"])
    assert f"<b>Evidence:</b> {ev['sentence']}" in html
    assert html.count(ev["sentence"]) == 1       # its own line, not repeated under "Why"
    assert f"Cannot be told from guessing: {plain_name(NOISE)}." in html
    assert plain_name(STRONG) not in html.split("Cannot be told from guessing:")[1]


def test_column_says_yes_for_the_counted_attack_and_no_for_the_other(qtbot, result):
    table = MetricsTable()
    qtbot.addWidget(table)
    table.set_result(result)
    col = _column(table)
    assert table.cell_text(_row(table, result, STRONG), col) == "yes"
    assert table.cell_text(_row(table, result, NOISE), col) == "no"
    # The exact optimum of theory is not a measurement: no test, said as such.
    assert table.cell_text(0, col).split() == ["computed", "exactly"]


def test_tooltip_carries_p_and_adjusted_p_of_each_tested_figure(qtbot, result):
    table = MetricsTable()
    qtbot.addWidget(table)
    table.set_result(result)
    col = _column(table)
    for name in (STRONG, NOISE):
        tip = table.item(_row(table, result, name), col).toolTip()
        tests = [t for t in _evidence(result)["tests"] if t["attack"] == name]
        assert tests
        for t in tests:
            assert f"p = {_p(t['p_value'])}, after correction {_p(t['adjusted_p'])}" in tip
    # The noise attack's adjusted p exceeds its raw p (Holm multiplies it): both are shown.
    noise = [t for t in _evidence(result)["tests"] if t["attack"] == NOISE]
    assert any(t["adjusted_p"] > t["p_value"] for t in noise)


def test_an_old_result_without_evidence_shows_no_evidence_line_and_dashes(qtbot, result):
    del result["verdict"]["evidence"]
    view = ResultsView()
    qtbot.addWidget(view)
    view.set_result(result)
    text = view.verdict_banner.text()
    assert "Evidence:" not in text
    assert "Cannot be told from guessing" not in text
    assert view.verdict_banner.level_label.text().endswith("RISK")
    table = view.metrics_table
    col = _column(table)
    for name in (STRONG, NOISE):
        assert table.cell_text(_row(table, result, name), col) == "—"
