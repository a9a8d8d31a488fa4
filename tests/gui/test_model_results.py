"""The model results view's issue-8 sections, from hand-made result dicts (fast): the
generalization gap with the engine's interval, the attacks class by class (strongest first,
switchable), attribute inference beside its data-only baseline, and a loss-only result that
has no accuracies."""

from __future__ import annotations

import copy

import pytest

from gui.widgets.model_results import ModelResultsView
from tests.engine.test_report_model import _with_per_class_and_attribute, model_result


@pytest.fixture
def view(qtbot, plots_configured):
    v = ModelResultsView()
    qtbot.addWidget(v)
    return v


def _texts(table) -> list[list[str]]:
    return [[table.item(r, c).text() for c in range(table.columnCount())]
            for r in range(table.rowCount())]


def test_per_class_view_starts_with_the_strongest_attack_and_switches(view):
    result = _with_per_class_and_attribute(model_result())
    result["attacks"][0]["per_class"][0]["auc"] = 0.99      # btta: a different best class
    view.set_result(result)
    pc = view.per_class_view
    assert pc.attack_choice.count() == 3
    assert pc.attack_choice.currentText().startswith("RMIA")   # the strongest attack first
    rows = _texts(pc.table)
    assert rows[0][0] == "class-5" and rows[0][3].startswith("0.9 ")
    assert "in <b>3</b> its interval lies above 0.5" in pc.summary_label.text()
    pc.attack_choice.setCurrentIndex(1)                       # then the others in order
    assert pc.attack_choice.currentText().startswith("Bayesian Take-the-Typical")
    assert _texts(pc.table)[0][0] == "class-0"


def test_attribute_view_shows_model_and_baseline_for_both_groups(view):
    view.set_result(_with_per_class_and_attribute(model_result()))
    av = view.attribute_view
    rows = _texts(av.table)
    assert [r[0] for r in rows] == ["Training members"] * 2 + ["Non-members"] * 2
    assert rows[0][2].startswith("97.0 %") and rows[1][2].startswith("90.0 %")
    assert "helps more for its members" in av.summary_label.text()


def test_gap_uses_the_engines_interval(view):
    view.set_result(_with_per_class_and_attribute(model_result()))
    text = view.gap_view.gap_label.text()
    assert "[33.0, 47.0]" in text and "conservative" not in text


def test_without_attribute_game_the_view_says_how_to_ask(view):
    view.set_result(model_result())
    assert "choose a sensitive feature" in view.attribute_view.summary_label.text()
    assert not view.attribute_view.table.isVisibleTo(view)


def test_loss_only_result_shows_mean_losses_instead_of_accuracies(view):
    result = copy.deepcopy(model_result(threat="supervised"))
    t = result["theory"]
    t.pop("btta_bound"), t.pop("generalization_gap")
    t["model"] = {"family": "external", "train_records": 400, "test_records": 400,
                  "mean_loss_members": 0.25, "mean_loss_non_members": 1.5}
    view.set_result(result)
    text = view.gap_view.gap_label.text()
    assert "one loss per record" in text and "0.25" in text and "1.5" in text
    assert view.gap_view.bound_label.text() == ""


def test_the_views_name_the_attack_of_the_verdicts_headline(view):
    """Issue 19 item 5: the gap view and the per-class view read the one headline stored in
    the verdict (not a second copy in ``theory``), so they name the attack the banner does."""
    from engine.headline import headline
    from engine.policy import VerdictPolicy

    result = _with_per_class_and_attribute(model_result())
    chosen = result["attacks"][1]
    result["verdict"]["headline"] = headline([chosen], VerdictPolicy()).to_dict()
    view.set_result(result)
    short = chosen["label"].split(" (")[0]
    assert view.per_class_view.attack_choice.currentText() == short
    assert short in view.gap_view.strongest_label.text()
    assert f"AUC {chosen['auc']:.3g}," in view.gap_view.strongest_label.text()


def test_the_metrics_table_reads_typed_entries_and_dashes_a_damaged_one(qtbot):
    """Issue 19 item 5: the table reads each attack as engine.results.blocks.AttackEntry; an
    entry not of the app's form (a rate written as text) is a row of dashes, where reading it
    field by field raised inside the widget."""
    from gui.widgets.metrics_table import MetricsTable

    table = MetricsTable()
    qtbot.addWidget(table)
    result = model_result()
    result["attacks"][0]["tpr_at_fpr"] = [{"fpr_target": "1 %", "tpr": 0.5}]
    table.set_result(result)
    assert table.rowCount() == 3
    assert {table.cell_text(0, c) for c in range(1, table.columnCount())} == {"—"}
    assert table.cell_text(2, 1).startswith("0.978")            # RMIA's AUC, typed


def test_damaged_bound_gap_and_verdict_leave_their_parts_out_without_raising(view, qtbot):
    """Issue 19 item 5: the gap view reads paper 001's bound and the generalization gap, and
    the banner the verdict, through their typed blocks (engine.results.blocks). One not of the
    app's form — shown only if it slipped past engine.results.result.result_problem — is left
    out, where reading it field by field raised AttributeError (a bound whose ROC is text, a
    class that is not a table) or TypeError (reasons that are a number) inside the widget."""
    from gui.widgets.verdict_banner import VerdictBanner

    result = _with_per_class_and_attribute(model_result())
    result["theory"]["btta_bound"]["roc"] = "x"
    result["theory"]["generalization_gap"]["per_class"] = ["class 1"]
    view.set_result(result)
    assert view.gap_view.bound_label.text() == ""
    assert "above what the accuracy gap alone allows" not in view.gap_view.strongest_label.text()
    # The gap from the model's own accuracies, without the damaged block's interval.
    assert "gap of 40.0 points</b>. The larger" in view.gap_view.gap_label.text()
    assert not view.gap_view.class_table.isVisibleTo(view)

    banner = VerdictBanner()
    qtbot.addWidget(banner)
    banner.set_verdict({**result["verdict"], "reasons": 5}, "A summary.")
    assert banner.text() == "No verdict A summary."
    banner.set_verdict(result["verdict"], "A summary.")
    assert banner.text().startswith("HIGH RISK A summary.")


def test_the_gap_and_exposed_records_name_the_attack_as_the_banner_does(view):
    """Walk-through 2026-11-26: the banner said "Quick copies-of-your-model attack" while the
    gap section and the exposed records said "LiRA offline, global variance (Carlini et al.
    2022)"; the plain name now comes first in both, and the score column says how it reads."""
    from engine.headline import headline
    from engine.policy import VerdictPolicy
    from engine.wording import plain_name

    result = _with_per_class_and_attribute(model_result())
    chosen = result["attacks"][1]
    result["verdict"]["headline"] = headline([chosen], VerdictPolicy()).to_dict()
    result["exposed_records"] = [{"rank": 1, "row": 12, "score": 7.5, "attack": chosen["name"]}]
    view.set_result(result)
    plain = plain_name(chosen)
    assert f"Strongest attack: <b>{plain}</b>" in view.gap_view.strongest_label.text()
    exposed = view.exposed_view.summary_label.text()
    assert plain.lower() in exposed.lower() and "et al." not in exposed
    header = view.exposed_view.table.horizontalHeaderItem(2).text()
    assert "higher = surer" in header
