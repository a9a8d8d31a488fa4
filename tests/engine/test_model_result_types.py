"""Issue 33 item 1 for the model audit: its theory block, settings, attack details, exposed
members and defences are read once, typed (engine/results/model.py,
engine/results/model_defences.py), and every reader reads them by attribute.

Checks: a result saved by an earlier version (keys missing) and the saved project in
tests/data load without an exception; a key missing or renamed reads as absent, never as a
wrong value; the report still prints from such a result; and no reader reaches back into the
raw dicts (an AST count of ``.get`` on result data in the readers, at most what is left)."""

from __future__ import annotations

import ast
import copy
import json
from pathlib import Path

import pytest

from engine.results.loaded import load_result
from engine.results.model import ModelTheory
from engine.results.model_defences import DefencesBlock
from tests.engine.test_report_model import model_result

ROOT = Path(__file__).resolve().parents[2]
PROJECT = ROOT / "tests" / "data" / "projects" / "model.praudit.json"


def _theory(d) -> ModelTheory:
    theory = load_result(d).theory
    assert isinstance(theory, ModelTheory)
    return theory


def test_the_saved_project_loads_typed():
    result = json.loads(PROJECT.read_text(encoding="utf-8"))["result"]
    theory = _theory(result)
    assert theory.model.family == result["theory"]["model"]["family"]
    assert theory.model.train_records == result["theory"]["model"]["train_records"]
    assert theory.settings.seed == result["config"]["seed"]
    assert len(theory.exposed) == len(result.get("exposed_records") or [])


@pytest.mark.parametrize("drop", [
    "model", "threat_model", "btta_bound", "generalization_gap", "attribute_inference",
    "defences"])
def test_a_result_from_before_a_block_existed_loads(drop):
    """An earlier version's result lacks a block: it reads as absent (None or the empty
    default), and the other blocks are unchanged."""
    d = model_result()
    d["theory"].pop(drop, None)
    theory = _theory(d)
    if drop == "model":
        assert theory.model.family is None and theory.model.train_records is None
    elif drop == "threat_model":
        assert theory.threat_model is None and theory.threat == "shadow"
    else:
        assert getattr(theory, drop) is None
    assert theory.settings.seed == d["config"]["seed"]


def test_stripped_results_load_and_print():
    """Every key of theory.model, of the config and of each attack's details removed at
    once, as a hand-trimmed or very old result would be: loading and the report's model
    sections raise nothing."""
    from engine.report.model import ModelSections

    d = model_result()
    d["config"] = {}
    d["theory"]["model"] = {}
    d.pop("exposed_records", None)
    for a in d["attacks"]:
        a["details"] = {}
        a.pop("per_class", None)
    theory = _theory(d)
    assert theory.settings.source == "train" and theory.settings.confidence is None
    assert theory.exposed == () and all(v.metric is None for v in theory.attack_details.values())
    hooks = ModelSections()
    for part in (hooks.audited, hooks.threat_model, hooks.method_theory, hooks.method_common,
                 hooks.results, hooks.theory, hooks.limitations):
        part(d)


def test_a_renamed_key_reads_as_absent_not_as_another_value():
    """A key renamed in a saved file (here the train accuracy and the defences' limit) is not
    found under its new name and not guessed from another: it reads as None; the unknown key
    is kept aside in ``extra``."""
    d = model_result()
    model = d["theory"]["model"]
    model["train_acc"] = model.pop("train_accuracy")
    theory = _theory(d)
    assert theory.model.train_accuracy is None
    assert theory.model.extra["train_acc"] == model["train_acc"]
    with pytest.raises(AttributeError):
        theory.model.train_acc  # noqa: B018 - a renamed field is an error, not an empty label


def test_the_defences_block_types_every_row_and_old_ones_read_as_absent():
    from tests.engine.test_report_model import defences_theory

    block = defences_theory()
    typed = DefencesBlock.from_dict(block)
    assert typed is not None and len(typed.rows) == len(block["rows"])
    assert typed.limit.fpr == block["limit"]["fpr"]
    first = block["rows"][0]
    row = typed.row(first["index"])
    assert row.test_accuracy == first["test_accuracy"]
    assert row.risk.auc.value == first["risk"]["auc"]["value"]
    # Rows written before the risk measured a TPR per rate, or without a limit: absent.
    old = copy.deepcopy(block)
    for r in old["rows"]:
        r["risk"].pop("tpr_at_fpr", None)
        r.pop("dp", None)
    old.pop("limit")
    old.pop("reference_attacks_asked", None)
    typed = DefencesBlock.from_dict(old)
    assert typed.limit.fpr is None and typed.reference_attacks_asked is None
    assert all(r.risk.tpr_at(0.01) is None and r.dp is None for r in typed.rows)
    assert DefencesBlock.from_dict({"rows": []}) is None
    assert DefencesBlock.from_dict("broken") is None


def test_the_rate_lookup_is_the_shared_one():
    """A defence row's TPR at a rate is found by engine.results.blocks.tpr_row_at (the one
    lookup, engine.headline.same_rate), so a rate read back from JSON as 0.1 + 1e-17 still
    finds its row."""
    from tests.engine.test_report_model import defences_theory

    block = defences_theory()
    row = DefencesBlock.from_dict(block).rows[0]
    for entry in row.risk.tpr_at_fpr:
        assert row.risk.tpr_at(entry.fpr * (1 + 1e-13)) is entry


# ----------------------------------------------------------------------------- no raw reads

#: The readers of a model result and the ``.get`` calls on result data each may still hold
#: (the count after issue 33 item 1; before: 131, 91, 49, 56, 30). What is left reads a
#: table of words (FAMILY_WORDS.get …) or a free table of knobs, not a result's field.
READERS = {
    "engine/report/model.py": 1,
    "engine/report/model_parts.py": 0,
    "engine/report/model_results.py": 0,
    "engine/report/defences.py": 3,
    "engine/plots/tradeoff.py": 2,
    "gui/widgets/model_results.py": 0,
    "gui/widgets/defences_results.py": 1,
    "gui/widgets/defences_chart.py": 0,
}
#: Names whose ``.get`` is a read of result data (the dicts the readers used to walk).
RESULT_NAMES = {"result", "theory", "block", "attack", "a", "details", "model", "row", "r",
                "rec", "risk", "entry", "dp", "data", "lim", "limit", "cfg", "config", "c",
                "m", "rp", "og", "mv", "most", "strongest", "eb", "knobs", "bound", "gap"}


def _raw_reads(path: Path) -> int:
    tree = ast.parse(path.read_text(encoding="utf-8"))
    count = 0
    for node in ast.walk(tree):
        if isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) \
                and node.func.attr == "get":
            owner = node.func.value
            while isinstance(owner, ast.Attribute):
                owner = owner.value
            if isinstance(owner, ast.Name) and owner.id in RESULT_NAMES:
                count += 1
            elif isinstance(owner, (ast.Call, ast.BoolOp, ast.Subscript)):
                count += 1          # (x or {}).get(…), x["k"].get(…): a walk into raw data
    return count


@pytest.mark.parametrize("name", sorted(READERS))
def test_readers_do_not_walk_the_raw_result(name):
    assert _raw_reads(ROOT / name) <= READERS[name], (
        f"{name} reads result data with .get: read the typed block (engine.results.model) "
        "instead")
