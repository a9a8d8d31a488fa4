"""Plain words first on the results page (issue 20): the attack's plain name in the metrics
table and the verdict banner with the science in their tooltips, a "?" per glossary term,
and a plain sentence under the table for each surprising reading."""

from __future__ import annotations

from engine.wording import GLOSSARY, NEGATIVE_ADVANTAGE, NOT_MEASURABLE
from gui.widgets.results_view import ResultsView

LIRA = "LiRA online, per-example variance (Carlini et al. 2022)"


def result() -> dict:
    def attack(name, label, advantage, measurable):
        return {"name": name, "label": label, "auc": 0.6, "auc_ci": [0.55, 0.65],
                "accuracy": 0.55, "accuracy_ci": [0.5, 0.6], "advantage": advantage,
                "advantage_ci": [advantage - 0.01, advantage + 0.01], "n_negative": 100,
                "tpr_at_fpr": [{"fpr_target": 0.01, "tpr": 0.05, "tpr_ci": [0.0, 0.2],
                                "measurable": measurable}]}
    return {"audit_type": "model", "summary": "A summary.",
            "attacks": [attack("lira_online", LIRA, 0.1, True),
                        attack("metric_confidence", "Confidence in the true class", -0.04,
                               False)],
            "verdict": {"level": "low", "reasons": ["Because."], "policy_rules": [],
                        "headline": {"fpr": 0.01, "name": "lira_online", "label": LIRA}}}


def test_plain_names_first_science_in_the_tooltip(qtbot):
    view = ResultsView()
    qtbot.addWidget(view)
    view.set_result(result())
    table = view.metrics_table
    assert table.cell_text(0, 0) == "Copies-of-your-model attack"
    assert LIRA in table.item(0, 0).toolTip() and "Carlini" not in table.cell_text(0, 0)
    banner = view.verdict_banner
    assert "Strongest attack: Copies-of-your-model attack" in banner.strongest_label.text()
    assert "Carlini" not in banner.text() and LIRA in banner.strongest_label.toolTip()
    for term in GLOSSARY:
        assert f"{term} <b>?</b>" in banner.glossary.text()
        assert GLOSSARY[term] in banner.glossary.tip(term)
    notes = view.table_notes.text()
    assert NEGATIVE_ADVANTAGE in notes and NOT_MEASURABLE in notes
    assert not view.table_notes.isHidden()
    view.set_result(None)
    assert view.table_notes.isHidden() and banner.strongest_label.text() == ""
