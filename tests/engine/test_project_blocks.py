"""Issue 18, defect 4: a project's settings and saved result are read through the engine's own
readers when it is opened. A setting whose form is wrong refuses the project with a sentence
naming it; a setting the audit would refuse opens with its sentence (a half-typed form, as the
app saves it); a damaged result is reported (``Project.result_problem``) so the app opens the
project without it.

The projects under tests/data/projects are real, tiny runs of each audit type, saved by the
engine (tests/data/projects/regenerate.py); each case here mutates one field of one of them.
"""

from __future__ import annotations

import json
import math
from pathlib import Path

import pytest

from engine.data.errors import InputError
from engine.project import load_project
from engine.results.result import result_problem

PROJECTS = Path(__file__).resolve().parents[1] / "data" / "projects"
AUDIT_TYPES = ("mechanism", "location", "aggregates", "model")
DELETE = object()


def saved(audit_type: str) -> dict:
    return json.loads((PROJECTS / f"{audit_type}.praudit.json").read_text(encoding="utf-8"))


def mutated(audit_type: str, path: tuple, value) -> dict:
    return _set(saved(audit_type), path, value)


def _set(data: dict, path: tuple, value) -> dict:
    """A copy of ``data`` with the field at ``path`` set to ``value`` (or removed)."""
    data = json.loads(json.dumps(data))            # a deep copy, several times faster
    where = data
    for step in path[:-1]:
        where = where[step]
    if value is DELETE:
        del where[path[-1]]
    else:
        where[path[-1]] = value
    return data


def write(tmp_path, data) -> Path:
    path = tmp_path / "p.praudit.json"
    # allow_nan: Python's JSON reader accepts NaN and Infinity, so a damaged file can hold them.
    path.write_text(json.dumps(data, allow_nan=True), encoding="utf-8")
    return path


@pytest.mark.parametrize("audit_type", AUDIT_TYPES)
def test_the_saved_projects_open_clean(audit_type):
    project = load_project(PROJECTS / f"{audit_type}.praudit.json")
    assert project.audit_type == audit_type
    assert project.config_problem is None and project.result_problem is None
    assert project.result["audit_type"] == audit_type


# (path, value, words the reason must contain)
DAMAGED_RESULTS = [
    (("result", "verdict", "level"), 5, "risk level"),
    (("result", "verdict"), "high", "verdict"),
    (("result", "verdict"), DELETE, "verdict is missing"),
    (("result", "verdict", "reasons"), [1, {"x": 2}], "reasons"),
    (("result", "attacks"), "x", "attacks"),
    (("result", "attacks", 0), "x", "attack 1"),
    (("result", "attacks", 0, "auc"), "0.9", "auc of attack 1"),
    (("result", "attacks", 0, "auc"), math.nan, "not finite"),
    (("result", "attacks", 0, "accuracy"), 1e308, "too large"),
    (("result", "attacks", 0, "auc_ci"), [0.1], "interval"),
    (("result", "attacks", 0, "roc", "fpr"), ["a", "b"], "ROC curve"),
    (("result", "attacks", 0, "roc"), {"fpr": [0.0]}, "ROC curve"),
    (("result", "attacks", 0, "tpr_at_fpr"), [{"tpr": "high"}], "true-positive rate"),
    (("result", "attacks", 0, "epsilon_lower_bound"), {"value": [1]}, "lower bound"),
    (("result", "attacks", 0, "details"), [1, 2], "details"),
    (("result", "baselines"), {"j": [1, {"k": "x"}]}, "baselines"),
    (("result", "theory"), 7, "theory"),
    (("result", "summary"), {"x": 1}, "summary"),
    (("result", "warnings"), "careful", "warnings"),
    (("result", "exposed_records"), [1, 2], "exposed records"),
    (("result", "audit_type"), "quantum", "different kind of audit"),
    (("result", "schema_version"), 99, "layout"),
    (("result", "seed"), 0.5, "seed"),
]


@pytest.mark.parametrize("audit_type", AUDIT_TYPES)
@pytest.mark.parametrize(("path", "value", "words"), DAMAGED_RESULTS,
                         ids=[".".join(map(str, c[0][1:])) + "=" + repr(c[1])[:12]
                              for c in DAMAGED_RESULTS])
def test_a_damaged_result_is_reported_and_the_settings_still_open(tmp_path, audit_type, path,
                                                                  value, words):
    project = load_project(write(tmp_path, mutated(audit_type, path, value)))
    assert project.config_problem is None
    assert project.result_problem is not None and words in project.result_problem
    assert project.config == saved(audit_type)["config"]


# The model audit's theory parts the report and the results page read (issue 19 item 5:
# engine.results.blocks.BttaBound, GeneralizationGap) and the verdict's stored headline.
DAMAGED_MODEL_BLOCKS = [
    (("result", "verdict", "headline"), [1], "strongest attack"),
    (("result", "verdict", "evidence"), "Holm", "evidence"),
    (("result", "theory", "btta_bound"), "x", "generalization-gap bound"),
    (("result", "theory", "btta_bound", "roc"), [1, 2], "ROC of the generalization-gap bound"),
    (("result", "theory", "btta_bound", "params", "q_prior"), "half", "an accuracy behind"),
    (("result", "theory", "generalization_gap", "test_accuracy_ci"), "wide", "interval"),
    (("result", "theory", "generalization_gap", "per_class"), {"0": 1}, "per-class"),
]


@pytest.mark.parametrize(("path", "value", "words"), DAMAGED_MODEL_BLOCKS,
                         ids=[".".join(map(str, c[0][-2:])) for c in DAMAGED_MODEL_BLOCKS])
def test_a_damaged_model_theory_or_headline_is_reported(tmp_path, path, value, words):
    project = load_project(write(tmp_path, mutated("model", path, value)))
    assert project.config_problem is None
    assert project.result_problem is not None and words in project.result_problem


def test_an_int_of_hundreds_of_digits_is_a_reason_not_an_overflow(tmp_path):
    data = mutated("mechanism", ("result", "attacks", 0, "n_positive"), 10 ** 400)
    assert "too large" in result_problem(data["result"], "mechanism")
    data = mutated("mechanism", ("result", "seed"), 10 ** 400)
    assert result_problem(data["result"], "mechanism") is None      # a seed, not a measurement


def test_a_number_too_long_to_read_is_a_sentence(tmp_path):
    path = tmp_path / "p.praudit.json"
    path.write_text('{"audit_type": "mechanism", "config": {"seed": 1' + "0" * 5000 + "}}")
    with pytest.raises(InputError, match="number too long"):
        load_project(path)


# (audit type, path, value, key the refusal names)
REFUSED_SETTINGS = [
    ("mechanism", ("config", "policy"), 7, "policy"),
    ("location", ("config", "policy"), [0.1], "policy"),
    ("aggregates", ("config", "policy", "fpr"), {"j": 1}, "policy.fpr"),
    ("model", ("config", "defences"), "yes", "defences"),
    ("mechanism", ("config", "epsilon"), [1.0, 2.0], "epsilon"),
    ("location", ("config", "attacks"), "one_threshold", "attacks"),
    ("aggregates", ("config", "schema"), 5, "schema"),
    ("model", ("config", "attacks"), [["btta"]], "attacks"),
    ("mechanism", ("config", "audit_type"), "location", "audit_type"),
    ("mechanism", ("audit_type",), "quantum", "audit_type"),
]


@pytest.mark.parametrize(("audit_type", "path", "value", "key"), REFUSED_SETTINGS)
def test_settings_of_the_wrong_form_refuse_the_project_naming_the_key(tmp_path, audit_type,
                                                                      path, value, key):
    path_ = write(tmp_path, mutated(audit_type, path, value))
    with pytest.raises(InputError) as info:
        load_project(path_)
    assert info.value.key == key and str(path_) in str(info.value)
    assert len(info.value.one_line().splitlines()) == 1


# A value the audit refuses, in a setting of the right form: what Save keeps of a form that is
# not finished (AuditPage.config_for_saving), so the project opens with the sentence.
HALF_TYPED = [
    ("mechanism", "epsilon", "0,5"),
    ("mechanism", "observations", math.nan),
    ("location", "epsilon", 1e308),
    ("aggregates", "max_targets", -1),
    ("model", "epochs", None),
    ("model", "family", 5),
]


@pytest.mark.parametrize(("audit_type", "key", "value"), HALF_TYPED)
def test_a_half_typed_setting_opens_with_its_sentence(tmp_path, audit_type, key, value):
    project = load_project(write(tmp_path, mutated(audit_type, ("config", key), value)))
    assert project.config_problem is not None and project.config_problem.key == key
    assert project.result_problem is None


def test_missing_settings_take_the_audits_defaults(tmp_path):
    data = mutated("mechanism", ("config", "epsilon"), DELETE)
    project = load_project(write(tmp_path, data))
    assert project.config_problem is None and "epsilon" not in project.config


JUNK = [DELETE, 5, "x", None, {}, math.nan, 1e308, {"j": [1, {"k": "x"}]}]


def _shortened(value):
    """``value`` with every list cut to its first 6 items (ROC curves of 512 points): the
    same form, a file a tenth the size to write and read a thousand times."""
    if isinstance(value, dict):
        return {k: _shortened(v) for k, v in value.items()}
    if isinstance(value, list):
        return [_shortened(v) for v in value[:6]]
    return value


def _paths(value, prefix=(), depth=0):
    if depth > 3:
        return
    if isinstance(value, dict):
        for k, v in value.items():
            yield (*prefix, k)
            yield from _paths(v, (*prefix, k), depth + 1)
    elif isinstance(value, list) and value:
        yield (*prefix, 0)
        yield from _paths(value[0], (*prefix, 0), depth + 1)


@pytest.mark.parametrize("audit_type", AUDIT_TYPES)
def test_every_field_mutated_opens_or_is_a_sentence(tmp_path, audit_type):
    """Every field of the settings, and of the result's first three levels, replaced by each
    kind of junk (or removed): load_project returns a project or raises one InputError
    sentence — never another exception."""
    data = _shortened(saved(audit_type))
    # The audit-specific theory is the views' to read (only its numbers are checked here):
    # its own fields, not theirs, keep the test short.
    fields = [p for p in _paths(data) if p[0] in ("config", "result", "decision_log", "name")
              and (p[:2] != ("result", "theory") or len(p) <= 3)]
    assert len(fields) > 90
    outcomes = {"opened": 0, "result damaged": 0, "setting to fix": 0, "refused": 0}
    for path in fields:
        for value in JUNK:
            try:
                project = load_project(write(tmp_path, _set(data, path, value)))
            except InputError as exc:
                assert len(exc.one_line().splitlines()) == 1
                outcomes["refused"] += 1
                continue
            if project.result_problem is not None:
                outcomes["result damaged"] += 1
            elif project.config_problem is not None:
                outcomes["setting to fix"] += 1
            else:
                outcomes["opened"] += 1
    assert all(outcomes.values()), outcomes
