"""The count-tables audit's typed result (engine/results/aggregates.py; issue 33 item 1): read
once by the loader, old saved results included, and read by attribute everywhere else — a key
renamed or missing reads as absent, never as an error, and no reader of the count-tables
results reaches into the raw dicts."""

from __future__ import annotations

import ast
import copy
import json
import re
from pathlib import Path

import pytest

from engine.report import (
    aggregates_bounds,
    aggregates_exposed,
    aggregates_measured,
    aggregates_setup,
)
from engine.results.aggregates import AggregatesTheory, CountDetails
from engine.results.loaded import load_result
from tests.engine.test_report_aggregates import contract_result

ROOT = Path(__file__).resolve().parents[2]
PROJECT = ROOT / "tests" / "data" / "projects" / "aggregates.praudit.json"

#: The modules that read count-tables results (the loader, engine/results/aggregates.py,
#: is the one place that reads the dicts key by key).
READERS = ("engine/report/aggregates.py", "engine/report/aggregates_words.py",
           "engine/report/aggregates_setup.py", "engine/report/aggregates_measured.py",
           "engine/report/aggregates_bounds.py", "engine/report/aggregates_exposed.py",
           "gui/widgets/aggregates_results.py", "gui/widgets/aggregates_sections.py",
           "engine/plots/count_sweeps.py", "engine/report/aggregates_rules.py",
           "gui/widgets/aggregates_rules_view.py")
#: Names a result, one of its blocks or an attack entry goes by in those modules.
RESULT_NAMES = re.compile(r"\b(result|theory|th|block|attack|attacks|a|details|d|rp|og|do|det|"
                          r"game|rel|release|dp|pub|published|sw|sweep|sweeps|cfg|config|mem|"
                          r"membership|row|rows|rec|record|records|r|e|rest|ex|cell|head)\b")
#: The one allowed: engine.plots.count_sweeps.measured_sweep_series also takes a sweep's rows
#: as dicts (engine.report.charts.attack_sweep_chart without curves), read there.
ALLOWED_RAW_GETS = 1


def _sections(result, include_records: bool = True) -> None:
    """Every count-tables section of the report, built from ``result``."""
    aggregates_setup.audited(result)
    aggregates_setup.threat_model(result)
    aggregates_setup.method_theory(result)
    aggregates_setup.method_common(result)
    aggregates_measured.results(result)
    aggregates_bounds.theory(result)
    aggregates_bounds.limitations(result)
    aggregates_exposed.exposed_records(result, include_records)


def test_the_loader_types_the_theory_the_details_and_the_exposed_records():
    r = load_result(contract_result(published=False))
    th = r.theory
    assert isinstance(th, AggregatesTheory)
    assert th.game.sensitive == "race" and th.game.chance == 0.25 and th.game.targets == 40
    assert th.release.tables[0].table == "P1" and th.release.preview[3].count == 3
    assert th.dp is not None and th.dp.epsilon_change == 2 * th.dp.epsilon_release
    assert th.deterministic.settled_by["solver"] == 1
    assert [a.name for a in th.membership.attacks] == ["desia_mia", "cip_rand_mia"]
    assert set(th.sweeps) == {"fraction", "noise"}
    assert th.sweep("fraction").attacks and th.sweep("nothing") is None
    d = th.details_of(r.attack("desia"))
    assert isinstance(d, CountDetails) and d.top1_accuracy is not None and not d.membership_game
    assert th.details_of(th.membership.attacks[0]).membership_game
    assert th.exposed and all(e.tables for e in th.exposed)
    assert th.settings.mechanism == "laplace" and th.settings.max_targets is not None


def test_a_renamed_or_missing_key_reads_as_absent():
    """An old project's result with keys an earlier version named otherwise: each reads as
    None / empty (the unknown key kept in ``extra``), and the renamed field itself is an
    attribute error, not a silently empty value."""
    old = contract_result()
    old["theory"]["game"]["sensitive_attribute"] = old["theory"]["game"].pop("sensitive")
    del old["theory"]["deterministic"]
    details = old["attacks"][0]["details"]
    details["top_1"] = details.pop("top1_accuracy")
    details.pop("real_people", None)
    old["config"].pop("sensitive", None)
    r = load_result(old)
    th = r.theory
    assert th.game.sensitive is None and th.game.extra["sensitive_attribute"] == "race"
    assert th.sensitive is None
    assert th.deterministic is None
    d = th.details_of(r.attacks[0])
    assert d.top1_accuracy is None and d.real_people is None and "top_1" in d.extra
    with pytest.raises(AttributeError):
        th.game.sensitive_attribute       # noqa: B018 - a renamed key is no attribute
    with pytest.raises(AttributeError):
        d.top_1                            # noqa: B018
    # The report shows what is there and a dash for the rest.
    _sections(old)


@pytest.mark.parametrize("key", ["game", "release", "dp", "deterministic", "membership",
                                 "sweeps", "published"])
def test_a_result_saved_without_a_theory_part_loads_and_reports(key):
    result = contract_result(published=True)
    result["theory"].pop(key, None)
    for a in result["attacks"]:
        for k in ("real_people", "excluding_determined", "chance", "top1_accuracy_ci"):
            a["details"].pop(k, None)
    for e in result["exposed_records"]:
        e.pop("tables", None)
        e.pop("pinning_cells", None)
    _sections(load_result(result))
    _sections(result)          # a dict is loaded by the section itself


def test_a_result_with_damaged_parts_reads_them_as_absent():
    result = contract_result()
    th = result["theory"]
    th["game"] = ["not", "a", "table"]
    th["release"]["tables"] = "P1"
    th["deterministic"]["settled_by"] = [1, 2]
    th["sweeps"] = []                     # written as a list by some runs
    result["exposed_records"] = [{"record": "(redacted)"}, "junk"]
    r = load_result(result)
    assert r.theory.game.values == () and r.theory.release.tables == ()
    assert r.theory.deterministic.settled_by is None and r.theory.sweeps == {}
    assert len(r.theory.exposed) == 1 and r.theory.exposed[0].cell_count == 0
    _sections(r)


def test_the_loader_reads_the_saved_old_project():
    """tests/data/projects/aggregates.praudit.json: a project saved by an earlier version."""
    project = json.loads(PROJECT.read_text(encoding="utf-8"))
    result = project["result"]
    r = load_result(result)
    assert isinstance(r.theory, AggregatesTheory)
    assert r.theory.game.present and r.theory.release.present
    for a in r.attacks:
        r.theory.details_of(a)
    _sections(r)
    # The same with every optional block of the theory gone, as an older version saved it.
    older = copy.deepcopy(result)
    older["theory"] = {k: v for k, v in older["theory"].items() if k in ("game", "release")}
    _sections(load_result(older))


def _raw_gets(path: Path) -> list[str]:
    """The ``.get(`` calls in ``path`` whose receiver is named like result data."""
    out = []
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if (isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute)
                and node.func.attr == "get"
                and RESULT_NAMES.search(ast.unparse(node.func.value))):
            out.append(f"{path.name}:{node.lineno}: {ast.unparse(node)}")
    return out


def test_no_reader_reaches_into_the_raw_result():
    """Issue 33 item 1: the readers of count-tables results read typed objects; a ``.get`` on
    a result, a theory block, an attack or its details is a key the loader should type."""
    found = [g for f in READERS for g in _raw_gets(ROOT / f)]
    assert len(found) <= ALLOWED_RAW_GETS, "\n".join(found)
