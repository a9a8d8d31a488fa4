"""The location audit's result read once into typed objects (issue 33 item 1;
engine/results/location.py): old saved projects load without an exception, a key missing or
renamed reads as absent (never a wrong number), and the readers of location results — the
report sections, the results view and the accuracy-against-observations plot — reach no
key of result.json themselves."""

from __future__ import annotations

import ast
import copy
import json
from pathlib import Path

import pytest

from engine.plots import observations
from engine.report.location import LocationSections
from engine.results.blocks import ExactAttacker
from engine.results.loaded import load_result
from engine.results.location import (
    LocationDetails,
    LocationSettings,
    LocationTheory,
    load_theory,
)

ROOT = Path(__file__).resolve().parents[2]
PROJECT = ROOT / "tests" / "data" / "projects" / "location.praudit.json"


def saved() -> dict:
    """The location result of the project saved by an earlier version (tests/data)."""
    return json.loads(PROJECT.read_text("utf-8"))["result"]


def test_the_saved_project_is_read_typed():
    d = saved()
    r = load_result(d)
    th = r.theory
    assert isinstance(th, LocationTheory)
    assert th.sites == d["theory"]["sites"] and th.epochs_total == d["theory"]["epochs_total"]
    assert th.target.observations == d["theory"]["target"]["observations"]
    assert th.sweep.observations == tuple(d["theory"]["sweep"]["observations"])
    first = d["theory"]["sweep"]["attacks"]["one_threshold"][0]
    assert th.sweep.attacks["one_threshold"][0].accuracy == first["accuracy"]
    assert isinstance(th.optimal_attacker, ExactAttacker)
    assert th.composed.epsilon_basic == d["theory"]["composed"]["epsilon_basic"]
    assert th.guaranteed
    assert th.exposed[0].count == d["exposed_records"][0]["count"]
    two = th.details_of("two_threshold")
    assert two.per_cell_rule == d["attacks"][1]["details"]["per_cell_rule"]
    assert two.score_distribution.score == tuple(
        d["attacks"][1]["details"]["score_distribution"]["score"])
    assert LocationSettings.from_config(r.config).aggregate_size == d["config"]["aggregate_size"]


def _older(d: dict) -> dict:
    """``d`` as a version before the sweep, the target block, the score distributions, the
    exposed count and several settings were written."""
    old = copy.deepcopy(d)
    for key in ("sweep", "target", "composed", "optimal_attacker", "population"):
        old["theory"].pop(key)
    for a in old["attacks"]:
        a["details"].pop("score_distribution", None)
        a["details"].pop("per_cell_rule", None)
    old.pop("exposed_records")
    for key in ("repetitions", "sweep_test_aggregates", "policy", "traces"):
        old["config"].pop(key)
    return old


def test_a_result_saved_before_reads_its_missing_parts_as_absent():
    th = load_result(_older(saved())).theory
    assert th.sweep.observations == () and th.sweep.attacks == {}
    assert th.target.observations is None and th.target.rule is None
    assert th.population is None and th.optimal_attacker is None and not th.guaranteed
    assert th.exposed == () and not th.exposed_other
    assert th.details_of("two_threshold").score_distribution is None
    assert th.details_of("no such attack") == LocationDetails()
    cfg = LocationSettings.from_config(load_result(_older(saved())).config)
    assert cfg.repetitions == 1 and cfg.sweep_test_aggregates is None and cfg.synthetic


def test_a_renamed_key_reads_as_absent_and_is_kept():
    d = saved()
    d["theory"]["eps_per_epoch"] = d["theory"].pop("epsilon_per_epoch")
    d["theory"]["target"]["k"] = d["theory"]["target"].pop("observations")
    th = load_result(d).theory
    assert th.epsilon_per_epoch is None and th.extra["eps_per_epoch"] == 0.5
    assert th.target.observations is None and "k" in th.target.extra
    # A reader asking for a field the loader does not have is an error, not an empty widget.
    with pytest.raises(AttributeError):
        _ = th.eps_per_epoch


@pytest.mark.parametrize("damage", [
    {"sweep": "not a table"}, {"sweep": {"attacks": {"one_threshold": "x"}}},
    {"sweep": {"attacks": {"one_threshold": [None, {"accuracy": "high"}]}}},
    {"target": [1, 2]}, {"composed": 3}, {"published_release": "file"},
    {"optimal_attacker": {"tpr_at_fpr": [{"fpr": "a"}]}}])
def test_a_damaged_theory_never_raises(damage):
    d = saved()
    d["theory"].update(damage)
    th = load_theory(d["theory"], d)
    assert isinstance(th, LocationTheory)
    assert isinstance(observations.observations_series(d), tuple)


def test_the_report_sections_render_an_older_result():
    old = _older(saved())
    sections = LocationSections()
    for hook in (sections.audited, sections.threat_model, sections.method_theory,
                 sections.theory, sections.results):
        assert hook(old)
    assert sections.limitations(old) and sections.exposed(old, False)
    # The same sections from the loaded result as from its dict.
    r = load_result(saved())
    assert sections.limitations(r) == sections.limitations(saved())


# ----------------------------------------------------------------------------- no raw reads

READERS = ("engine/report/location.py", "engine/report/location_parts.py",
           "gui/widgets/location_results.py", "gui/widgets/location_detector.py",
           "engine/plots/observations.py")
# What a reader may still call .get on: its own word tables (capitalised constants) and the
# dicts it builds itself.
OWN_TABLES = {"labels", "lower"}


def raw_reads(path: Path) -> list[str]:
    """Each ``x.get(`` in ``path`` whose ``x`` is not a constant word table or a local dict
    the module builds (a read of result data by key)."""
    out = []
    for node in ast.walk(ast.parse(path.read_text("utf-8"))):
        if not (isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute)
                and node.func.attr == "get"):
            continue
        owner = node.func.value
        if isinstance(owner, ast.Dict):
            continue
        if isinstance(owner, ast.Name) and (owner.id.isupper() or owner.id in OWN_TABLES):
            continue
        out.append(f"{path.name}:{node.lineno}")
    return out


def test_the_readers_do_not_read_result_data_by_key():
    found = [hit for rel in READERS for hit in raw_reads(ROOT / rel)]
    assert found == [], found
