"""Issue 32 item 4: a defence is recommended only when the model as trained fails the limit
measurably; "not measurable at this size" is said as such, with the size that would measure
it, and never counted as failing. The summary (page 1), the next steps, the report's
Defences section and the results page read the one decision (engine.defences.tradeoff
``defence_decision``). Built from stored-shape entries: no training."""

from __future__ import annotations

import pytest

from engine.defences.audit import summary_sentence
from engine.defences.tradeoff import RiskLimit, defence_decision, recommend
from engine.next_steps import next_steps
from engine.report.defences import defences_section

LIMIT = RiskLimit("tpr", 0.02, fpr=0.01)


def _attack(tpr, ci, *, measurable=True, n_negative=1000, name="confidence"):
    """A main-audit attack entry (engine.auditing.evaluate_attack's shape, the parts read)."""
    return {"name": name, "label": f"{name} attack", "n_positive": 1000,
            "n_negative": n_negative, "auc": 0.55, "auc_ci": [0.52, 0.58], "accuracy": 0.53,
            "accuracy_ci": [0.51, 0.55], "advantage": 0.06, "advantage_ci": [0.02, 0.1],
            "tpr_at_fpr": [{"fpr_target": 0.01, "tpr": tpr, "tpr_ci": list(ci),
                            "measurable": measurable}],
            "epsilon_lower_bound": {"value": 0.1}}


def _row(i, defence, acc, tpr, *, measurable=True):
    return {"index": i, "defence": defence, "label": f"{defence} {i}", "test_accuracy": acc,
            "attacks": [],
            "risk": {"tpr_at_fpr": [{"fpr": 0.01, "value": tpr, "ci": [0.0, tpr + 0.02],
                                     "attack": "a", "measurable": measurable}],
                     "auc": {"value": 0.55, "ci": [0.5, 0.6], "attack": "b"},
                     "accuracy": {"value": 0.55, "ci": [0.5, 0.6], "attack": "c"},
                     "advantage": {"value": 0.1, "ci": [0.0, 0.2], "attack": "c"},
                     "epsilon": {"value": 0.3, "ci": None, "attack": "d"}}}


def _result(attacks, rows, limit=LIMIT):
    """What run_defences stores, assembled the same way, in a model result."""
    base = next((r for r in rows if r["defence"] == "none"), None)
    decision = defence_decision(limit, attacks=attacks, base_row=base)
    rec = recommend(rows, limit, decision=decision)
    block = {"rows": rows, "recommendation": rec, "decision": decision,
             "limit": {"metric": limit.metric, "value": limit.value, "fpr": limit.fpr,
                       "use_upper": limit.use_upper, "text": limit.describe(),
                       "plain": limit.plain()},
             "sentences": [rec["statement"]], "data": {"members": 1000}}
    block["summary"] = summary_sentence(block)
    return {"audit_type": "model", "theory": {"defences": block},
            "verdict": {"level": "low"}, "attacks": attacks}


def _section_text(result) -> str:
    def texts(f):
        if isinstance(getattr(f, "text", None), str):
            yield f.text
        for key in ("_content", "content", "_flowables"):
            inner = getattr(f, key, None)
            if isinstance(inner, list):
                for g in inner:
                    yield from texts(g)
    return " ".join(t for f in defences_section(result) for t in texts(f))


def _defence_step(result):
    return next(s for s in next_steps(result)
                if "defence" in s.action.lower() or "records the model" in s.action)


# The 13 defended settings of the issue, none measurable at the sweep's size.
SWEEP = [_row(0, "none", 0.85, 0.0, measurable=False)] + [
    _row(i, "kcd", 0.84 - i / 100, 0.0, measurable=False) for i in range(1, 14)]


def test_within_the_limit_recommends_nothing_everywhere():
    """The issue's case: 1.8 % against a 2.0 % limit (verdict LOW), the defended rates not
    measurable at the sweep's size: before, "none of the 13 defence settings … stronger
    defence" on every page."""
    result = _result([_attack(0.018, (0.009, 0.031))], SWEEP)
    block = result["theory"]["defences"]
    decision, rec = block["decision"], block["recommendation"]
    assert decision["state"] == "within" and decision["value"] == pytest.approx(0.018)
    assert rec["needed"] is False and rec["index"] is None and rec["met"] is True
    assert "No defence is needed" in decision["sentence"] and "1.8%" in decision["sentence"]
    for text in (block["summary"], rec["statement"], _defence_step(result).effect,
                 _section_text(result)):
        assert "No defence is needed" in text, text
        assert "None of the" not in text and "No setting meets" not in text
        assert "stronger defence" not in text
    assert "Keep the model as trained" in _defence_step(result).action
    assert not any("stronger defence" in s.action for s in next_steps(result))


def test_a_model_that_fails_measurably_still_gets_a_defence():
    rows = [_row(0, "none", 0.85, 0.30), _row(1, "kcd", 0.80, 0.015),
            _row(2, "l2", 0.78, 0.01), _row(3, "dp_sgd", 0.82, 0.0, measurable=False)]
    result = _result([_attack(0.30, (0.25, 0.35))], rows)
    block = result["theory"]["defences"]
    rec = block["recommendation"]
    assert block["decision"]["state"] == "needed" and rec["needed"] is True
    assert rec["met"] and rec["index"] == 1 and rec["not_measurable"] == [3]
    assert "A defence is needed" in rec["statement"]
    assert "Of 3 defence settings tried" in block["summary"]
    assert "Recommendation:" in _section_text(result)
    assert "recommends" in _defence_step(result).action


def test_needed_and_none_met_counts_only_measured_settings():
    rows = [_row(0, "none", 0.85, 0.30), _row(1, "kcd", 0.80, 0.05),
            _row(2, "l2", 0.78, 0.0, measurable=False)]
    result = _result([_attack(0.30, (0.25, 0.35))], rows)
    block = result["theory"]["defences"]
    assert block["recommendation"]["met"] is False
    summary = block["summary"]
    assert "None of the 1 defence settings that could be measured" in summary
    assert "1 more could not be measured at this size" in summary and "300" in summary
    assert "not counted as failing" in summary
    assert "stronger defence" in _defence_step(result).action


def test_not_measurable_gives_the_size_and_is_never_failing():
    result = _result([_attack(0.0, (0.0, 1.0), measurable=False, n_negative=120)], SWEEP)
    block = result["theory"]["defences"]
    decision, rec = block["decision"], block["recommendation"]
    assert decision["state"] == "not_measurable" and decision["records_needed"] == 300
    assert rec["needed"] is False and rec["met"] is None and rec["index"] is None
    assert "at least 300 records" in decision["sentence"] and "had 120" in decision["sentence"]
    step = _defence_step(result)
    assert step.action.startswith("Audit with at least 300 records") and not step.measured
    for text in (block["summary"], step.effect, _section_text(result)):
        assert "cannot be measured at this size" in text, text
        assert "None of the" not in text and "No setting meets" not in text


def test_undecided_when_the_interval_straddles_the_limit():
    result = _result([_attack(0.03, (0.012, 0.05))], SWEEP)
    block = result["theory"]["defences"]
    assert block["decision"]["state"] == "undecided"
    assert block["recommendation"]["needed"] is False
    assert "cannot be decided at this size" in block["summary"]
    assert "more records" in _defence_step(result).action


def test_the_sweeps_undefended_row_decides_without_the_audits_attacks():
    rows = [_row(0, "none", 0.85, 0.015), _row(1, "kcd", 0.80, 0.01)]
    decision = defence_decision(LIMIT, attacks=None, base_row=rows[0])
    assert decision["state"] == "within" and decision["source"] == "sweep"
    # An audit whose attacks did not measure the limit's FPR falls back to the row too.
    other = _attack(0.5, (0.4, 0.6))
    other["tpr_at_fpr"][0]["fpr_target"] = 0.05
    assert defence_decision(LIMIT, attacks=[other], base_row=rows[0])["source"] == "sweep"
    # The cautious limit judges the upper end: 1.5 % [0, 3.5 %] is then undecided.
    cautious = RiskLimit("tpr", 0.02, fpr=0.01, use_upper=True)
    assert defence_decision(cautious, base_row=rows[0])["state"] == "undecided"
