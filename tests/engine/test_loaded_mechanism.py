"""The one loader of result.json (issue 33 item 1) for the mechanism audit and the parts every
audit shares: a saved result is read once into typed, frozen objects; an old result (keys
missing or renamed) reads as absent, never as an exception; the report and the results page
read it by attribute, so a renamed field is an error, not a silently empty cell; the finite
check and the rate lookup exist once."""

from __future__ import annotations

import ast
import copy
import dataclasses
import json
from pathlib import Path

import pytest

from engine.headline import headline, headline_of_result
from engine.policy import VerdictPolicy
from engine.results.blocks import AttackEntry, ComposedPrivacy, ExactAttacker
from engine.results.loaded import LoadedResult, load_result
from engine.results.mechanism import InverseAnswer, MechanismSweep, MechanismTheory

ROOT = Path(__file__).resolve().parents[2]
PROJECT = ROOT / "tests" / "data" / "projects" / "mechanism.praudit.json"


def saved_result() -> dict:
    """The result of the saved mechanism project (tests/data/projects)."""
    return json.loads(PROJECT.read_text(encoding="utf-8"))["result"]


def test_a_saved_mechanism_result_reads_as_typed_blocks():
    r = load_result(saved_result())
    th = r.theory
    assert isinstance(th, MechanismTheory)
    assert isinstance(th.composed, ComposedPrivacy) and th.composed.epsilon_pld_pessimistic > 0
    assert isinstance(th.optimal_attacker, ExactAttacker)
    assert th.optimal_attacker.targets and th.optimal_attacker.tpr_at(
        th.optimal_attacker.targets[0]) is not None
    assert isinstance(th.sweep, MechanismSweep) and len(th.sweep.values) > 1
    assert isinstance(th.inverse, InverseAnswer)
    assert all(isinstance(a, AttackEntry) for a in r.attacks) and r.attacks
    # Loading is idempotent: the entry points read once and pass the loaded result on.
    assert load_result(r) is r


def test_a_missing_or_renamed_key_reads_as_absent():
    d = saved_result()
    th = d["theory"]
    th["composition"] = th.pop("composed")                # renamed by a later version
    del th["epsilon_total"], th["inverse"], th["sweep"]   # not written by an earlier one
    th["optimal_attacker"]["tpr_at_fpr"] = "damaged"
    r = load_result(d)
    assert r.theory.composed == ComposedPrivacy()
    assert r.theory.epsilon_total is None
    assert r.theory.inverse is None and r.theory.sweep is None
    assert r.theory.optimal_attacker.tpr_at_fpr == ()
    assert r.theory.extra["composition"]          # the unknown key is kept, not lost
    # A renamed field is an error where it is read, not a silently empty widget.
    with pytest.raises(AttributeError):
        _ = r.theory.composition
    with pytest.raises(dataclasses.FrozenInstanceError):
        r.theory.epsilon_total = 1.0


def _old(d: dict) -> dict:
    """``d`` as an earlier version saved it: no evidence, no stored headline, no bands, no
    inverse question, no decision log, no input fingerprints."""
    d = copy.deepcopy(d)
    d["verdict"].pop("evidence", None)
    d["verdict"].pop("headline", None)
    d["theory"].pop("inverse", None)
    d["theory"].pop("worst_case_dp", None)
    for a in d["attacks"]:
        a["details"].pop("roc_band", None)
        a.pop("epsilon_lower_bound", None)
    d.pop("config_sha256", None)
    d.pop("software", None)
    d["inputs"] = [{"path": "x.csv"}]
    return d


def test_the_loader_reads_a_result_saved_by_an_earlier_version():
    r = load_result(_old(saved_result()))
    assert r.verdict is not None and r.verdict.evidence_block is None
    assert r.theory.inverse is None and r.theory.worst_case_dp is None
    assert all(a.roc_band is None and a.epsilon_bound is None for a in r.attacks)
    assert r.inputs[0].sha256 is None and r.inputs[0].missing_values is None
    # The headline is rebuilt from the typed attacks.
    assert headline_of_result(r).name in {a.name for a in r.attacks}


def test_the_report_and_the_screen_read_an_old_result_without_an_exception():
    from engine.report.mechanism import MechanismSections
    from engine.report.pdf import build_story

    old = _old(saved_result())
    assert build_story(old)                              # every section, loaded once
    hooks = MechanismSections()
    r = load_result(old)
    assert hooks.theory(r) and hooks.audited(r)


def test_the_headline_reads_typed_entries_and_dicts_alike():
    d = saved_result()
    policy = VerdictPolicy()
    typed = load_result(d).attacks
    assert headline(typed, policy) == headline(d["attacks"], policy)


# ----------------------------------------------------------------------- no reader reaches in

# Files that read results (issue 33 item 1): at most this many ``.get(`` on result data each
# (each remaining one is a shim for callers still passing dicts, or a free-form block: the
# report lists them). A new ``result.get(...)`` in one of them fails here.
READERS = {
    "engine/report/mechanism.py": 0,
    "engine/report/sections.py": 0,
    "engine/report/sections_base.py": 4,
    "engine/report/sections_results.py": 3,
    "engine/report/sections_theory.py": 0,
    "engine/report/sections_verdict.py": 0,
    "engine/report/sections_records.py": 11,
    "engine/report/pdf.py": 1,
    "engine/report/charts.py": 0,
    "engine/plots/series.py": 5,
    "engine/headline.py": 21,
    "gui/widgets/mechanism_results.py": 0,
    "gui/widgets/sweep_plot.py": 0,
    "gui/widgets/metrics_table.py": 0,
    "gui/widgets/results_view.py": 0,
    "gui/widgets/verdict_banner.py": 0,
}
# Names that hold result data in those files; ``.get`` on other names (the module's own
# word tables, Qt's) does not count.
RESULT_NAMES = {"result", "r", "theory", "th", "block", "attack", "a", "e", "details", "cfg",
                "config", "inv", "inverse", "sweep", "evidence", "verdict", "opt", "worst",
                "optimal", "composed", "comp", "bound", "eb", "gdp", "row", "t", "values",
                "stored", "named", "extra", "reps", "sw", "out", "target", "raw", "pol",
                "software"}


def _result_gets(path: Path) -> int:
    count = 0
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if (isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute)
                and node.func.attr == "get"):
            target = node.func.value
            while isinstance(target, (ast.Attribute, ast.Subscript, ast.Call)):
                target = target.value if not isinstance(target, ast.Call) else target.func
            if isinstance(target, ast.Name) and target.id in RESULT_NAMES:
                count += 1
    return count


@pytest.mark.parametrize("name", sorted(READERS))
def test_readers_read_typed_objects_not_dicts(name):
    assert _result_gets(ROOT / name) <= READERS[name], (
        f"{name} reads result data with .get: read the typed object of "
        "engine.results (load_result) by attribute instead")


def test_the_finite_check_and_the_rate_comparison_exist_once():
    """No private finite check or bare rate comparison in the files of the shared readers
    (engine.numbers.is_finite and same_rate; engine.results.blocks.tpr_row_at)."""
    files = [ROOT / n for n in READERS] + [ROOT / "engine/results/blocks.py",
                                           ROOT / "engine/results/mechanism.py"]
    for path in files:
        tree = ast.parse(path.read_text(encoding="utf-8"))
        defs = {n.name for n in ast.walk(tree) if isinstance(n, ast.FunctionDef)}
        assert not defs & {"_finite", "_ok", "_is_finite"}, path
        source = path.read_text(encoding="utf-8")
        assert "math.isfinite" not in source, path
        assert "< 1e-12" not in source, path


def test_a_loaded_result_is_what_the_entry_points_pass_on(monkeypatch):
    """build_story loads once and every section is given the loaded result."""
    from engine.report import pdf
    from engine.report.mechanism import MechanismSections

    seen = []
    original = MechanismSections.theory

    def spy(self, result):
        seen.append(result)
        return original(self, result)

    monkeypatch.setattr(MechanismSections, "theory", spy)
    pdf.build_story(saved_result())
    assert seen and all(isinstance(x, LoadedResult) for x in seen)


@pytest.mark.parametrize("path", sorted((ROOT / "tests" / "data" / "projects").glob(
    "*.praudit.json")), ids=lambda p: p.name.split(".")[0])
def test_every_saved_project_loads_without_an_exception(path):
    """The saved projects of every audit type (written by earlier versions) read into typed
    objects; a second load is the same object (the entry points load once)."""
    d = json.loads(path.read_text(encoding="utf-8"))["result"]
    r = load_result(d)
    assert r.audit_type == d["audit_type"]
    assert len(r.attacks) == len(d.get("attacks") or [])
    assert all(isinstance(a, AttackEntry) and a.problem is None for a in r.attacks)
    assert r.verdict is not None and r.verdict_problem is None
    assert load_result(r) is r
