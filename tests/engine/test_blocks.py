"""Typed result blocks (issue 19 item 5; engine/audits/blocks.py): an attack entry read from a
saved result gives back exactly what was read, finds a rate under either key name, never
quotes a rate that is not measurable, and a damaged field is a sentence naming it (the same
sentence result_problem gives for a saved project)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from engine.audits.blocks import AttackEntry, BlockError, TprRow
from engine.audits.result import result_problem

PROJECTS = Path(__file__).resolve().parents[1] / "data" / "projects"


@pytest.mark.parametrize("audit_type", ["mechanism", "location", "aggregates", "model"])
def test_every_saved_attack_reads_and_writes_back_unchanged(audit_type):
    result = json.loads((PROJECTS / f"{audit_type}.praudit.json").read_text("utf-8"))["result"]
    entries = result["attacks"] + result.get("baselines", [])
    assert entries
    for a in entries:
        entry = AttackEntry.from_dict(a)
        assert entry.to_dict() == a
        assert list(entry.to_dict()) == list(a)                    # the same keys, in order
        for row in a.get("tpr_at_fpr", []):
            assert entry.tpr_at(row["fpr_target"]).tpr == row.get("tpr")


def test_a_rate_is_found_under_either_key_and_only_quoted_when_measurable():
    entry = AttackEntry.from_dict({
        "name": "x", "auc": 0.7, "n_negative": 50,
        "tpr_at_fpr": [{"fpr_target": 1 / 10, "tpr": 0.4, "tpr_ci": [0.3, 0.5]},
                       {"fpr_target": 0.01, "tpr": 0.2, "measurable": False}]})
    assert entry.tpr_at(0.1).tpr_ci == (0.3, 0.5) and entry.tpr_at(0.1).measured_tpr == 0.4
    assert entry.tpr_at(0.01).measured_tpr is None                 # 50 negatives < 300
    assert entry.tpr_at(0.001) is None and entry.display_label == "x"
    theory_row = TprRow.from_dict({"fpr": 0.01, "tpr": 0.3})
    assert theory_row.fpr == 0.01 and theory_row.to_dict() == {"fpr": 0.01, "tpr": 0.3}


@pytest.mark.parametrize("field, value, words", [
    ("auc", "high", "the auc of attack 1 is not a number"),
    ("auc_ci", [0.1], "the interval of attack 1 is not a pair of numbers"),
    ("tpr_at_fpr", [{"fpr_target": 0.01, "tpr": "12%"}],
     "a true-positive rate of attack 1 is not a number"),
    ("per_class", [1, 2], "the per-class results of attack 1 are not a list of tables"),
])
def test_a_damaged_field_is_a_sentence_naming_it(field, value, words):
    result = json.loads((PROJECTS / "model.praudit.json").read_text("utf-8"))["result"]
    result["attacks"][0][field] = value
    with pytest.raises(BlockError) as caught:
        AttackEntry.from_dict(result["attacks"][0], "attack 1")
    assert str(caught.value) == words
    assert result_problem(result, "model") == words
