"""Typed result blocks (issue 19 item 5; engine/results/blocks.py): an attack entry read from a
saved result gives back exactly what was read, finds a rate under either key name, never
quotes a rate that is not measurable, and a damaged field is a sentence naming it (the same
sentence result_problem gives for a saved project)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from engine.results.blocks import (
    AttackEntry,
    BlockError,
    BttaBound,
    GeneralizationGap,
    TprRow,
    Verdict,
    theory_block,
)
from engine.results.result import result_problem

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


# ----------------------------------------------------------------------------- verdict, theory

AUDIT_TYPES = ("mechanism", "location", "aggregates", "model")


def _saved_result(audit_type: str) -> dict:
    return json.loads((PROJECTS / f"{audit_type}.praudit.json").read_text("utf-8"))["result"]


@pytest.mark.parametrize("audit_type", AUDIT_TYPES)
def test_every_saved_verdict_reads_and_writes_back_unchanged(audit_type):
    v = _saved_result(audit_type)["verdict"]
    block = Verdict.from_dict(v)
    assert block.to_dict() == v and list(block.to_dict()) == list(v)
    assert block.level == v["level"] and list(block.reasons) == v["reasons"]
    assert list(block.policy_rules) == v["policy_rules"] and block.policy_name == "default"


def test_a_verdict_with_a_headline_and_keys_it_does_not_type_writes_back_unchanged():
    from engine.headline import headline
    from engine.policy import VerdictPolicy

    result = _saved_result("model")
    v = {"note": "kept", **result["verdict"],
         "headline": headline(result["attacks"], VerdictPolicy()).to_dict()}
    block = Verdict.from_dict(v)
    assert block.to_dict() == v and list(block.to_dict()) == list(v)
    assert block.extra == {"note": "kept"} and block.headline["name"] == v["headline"]["name"]


def test_the_model_theory_blocks_read_and_write_back_unchanged():
    theory = _saved_result("model")["theory"]
    bound = BttaBound.from_dict(theory["btta_bound"])
    assert bound.to_dict() == theory["btta_bound"]
    assert list(bound.to_dict()) == list(theory["btta_bound"])
    assert (bound.p0, bound.p1, bound.q) == (0.705, 0.025, 0.5)
    assert bound.curve == ([0.0, 0.025, 1.0], [0.0, 0.705, 1.0])
    assert bound.statement.startswith("No attack that knows only the training accuracy")
    assert bound.extra == {"source": theory["btta_bound"]["source"]}
    gap = GeneralizationGap.from_dict(theory["generalization_gap"])
    assert gap.to_dict() == theory["generalization_gap"]
    assert list(gap.to_dict()) == list(theory["generalization_gap"])
    assert gap.gap == theory["generalization_gap"]["gap"] and len(gap.gap_ci) == 2
    assert theory_block(theory, "generalization_gap", GeneralizationGap) == gap
    assert theory_block({}, "btta_bound", BttaBound) is None


# (path in the model result, value, the sentence)
DAMAGED_BLOCKS = [
    (("verdict", "headline"), "RMIA", "the verdict's strongest attack is not a table"),
    (("verdict", "evidence"), {"tests": [{"p_value": "small"}]},
     "the verdict's evidence is not a table of tests with a sentence"),
    (("theory", "btta_bound"), [0.84], "the generalization-gap bound of the model is not a "
                                       "table"),
    (("theory", "btta_bound", "params", "p0_train_accuracy"), "70%",
     "an accuracy behind the generalization-gap bound of the model is not a number"),
    (("theory", "btta_bound", "expected"), 0.9,
     "the expected success of the attack that uses only the gap is not a table"),
    (("theory", "btta_bound", "balanced_accuracy_bound"), "0.84",
     "an accuracy in the generalization-gap bound of the model is not a number"),
    (("theory", "btta_bound", "roc"), "x",
     "the ROC of the generalization-gap bound of the model is not a table"),
    (("theory", "btta_bound", "roc", "statement"), ["no"],
     "the statement of the generalization-gap bound of the model is not text"),
    (("theory", "btta_bound", "roc", "curve", "tpr"), [0.0, 1.0],
     "the ROC of the generalization-gap bound of the model is not two equally long lists of "
     "numbers"),
    (("theory", "generalization_gap", "train_accuracy"), "high",
     "a count or accuracy of the model's generalization gap is not a number"),
    (("theory", "generalization_gap", "gap_ci"), [0.6],
     "an interval of the model's generalization gap is not a pair of numbers"),
    (("theory", "generalization_gap", "per_class"), ["class 1"],
     "the per-class accuracies of the model's generalization gap are not a list of tables"),
]


@pytest.mark.parametrize(("path", "value", "words"), DAMAGED_BLOCKS,
                         ids=[".".join(p[-2:]) for p, _, _ in DAMAGED_BLOCKS])
def test_a_damaged_verdict_or_theory_block_is_a_sentence_naming_it(path, value, words):
    result = _saved_result("model")
    where = result
    for step in path[:-1]:
        where = where[step]
    where[path[-1]] = value
    assert result_problem(result, "model") == words
    block = {"verdict": Verdict, "btta_bound": BttaBound,
             "generalization_gap": GeneralizationGap}[path[1] if path[0] == "theory" else "verdict"]
    with pytest.raises(BlockError) as caught:
        block.from_dict(result["theory"][path[1]] if path[0] == "theory" else result["verdict"])
    assert str(caught.value) == words
