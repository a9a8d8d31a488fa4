"""Issue 32 item 4 on the results page: the defences panel reads the one decision — no red
"No setting meets your limit" and no recommended export unless the model as trained fails the
limit measurably; "not measurable at this size" is said as such."""

from __future__ import annotations

from engine.defences.audit import summary_sentence
from engine.defences.tradeoff import RiskLimit, defence_decision, recommend
from gui.widgets.defences_results import DefencesView

LIMIT = RiskLimit("tpr", 0.02, fpr=0.01)


def _row(i, defence, acc, tpr, measurable):
    risk = {"value": 0.55, "ci": [0.5, 0.6], "attack": "b"}
    return {"index": i, "defence": defence, "label": f"{defence} {i}", "test_accuracy": acc,
            "test_accuracy_ci": [acc - 0.02, acc + 0.02], "generalization_gap": 0.05,
            "attacks": [],
            "risk": {"tpr_at_fpr": [{"fpr": 0.01, "value": tpr, "ci": [0.0, tpr + 0.02],
                                     "attack": "a", "measurable": measurable}],
                     "auc": dict(risk), "accuracy": dict(risk), "advantage": dict(risk),
                     "epsilon": {"value": 0.3, "ci": None, "attack": "d"}}}


def _block(tpr, ci, measurable=True):
    rows = [_row(0, "none", 0.85, 0.0, False)] + [_row(i, "kcd", 0.84 - i / 100, 0.0, False)
                                                   for i in range(1, 14)]
    attack = {"name": "confidence", "label": "confidence", "n_negative": 120,
              "tpr_at_fpr": [{"fpr_target": 0.01, "tpr": tpr, "tpr_ci": list(ci),
                              "measurable": measurable}]}
    decision = defence_decision(LIMIT, attacks=[attack], base_row=rows[0])
    rec = recommend(rows, LIMIT, decision=decision)
    block = {"rows": rows, "recommendation": rec, "decision": decision,
             "limit": {"metric": "tpr", "value": 0.02, "fpr": 0.01, "use_upper": False,
                       "text": LIMIT.describe(), "plain": LIMIT.plain()},
             "sentences": [rec["statement"]]}
    block["summary"] = summary_sentence(block)
    return {"audit_type": "model", "theory": {"defences": block}}


def test_within_the_limit_is_no_defence_needed_and_nothing_to_export(qtbot, plots_configured):
    view = DefencesView()
    qtbot.addWidget(view)
    view.set_result(_block(0.018, (0.009, 0.031)))
    text = view.recommendation_label.text()
    assert "No defence needed." in text and "No defence is needed" in text
    assert "No setting meets" not in text and "c62828" not in text
    assert not view.export_recommended_button.isEnabled()


def test_not_measurable_is_said_with_the_size(qtbot, plots_configured):
    view = DefencesView()
    qtbot.addWidget(view)
    view.set_result(_block(0.0, (0.0, 1.0), measurable=False))
    text = view.recommendation_label.text()
    assert "Not decided at this size." in text and "at least 300 records" in text
    assert "No setting meets" not in text and "c62828" not in text
    assert not view.export_recommended_button.isEnabled()
