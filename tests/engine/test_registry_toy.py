"""One registry entry per audit type (issue 19 item 2; docs/dev/adding_an_audit_type.md).

A toy fifth audit type, defined in test-only files (tests/toy_audit) and registered with one
entry in ``engine.audits.registry.AUDIT_TYPES``, goes through every path a real one does —
settings read from a config file and a project file, ``run_audit``, the CLI's ``run`` and
``demo``, the estimate and its constants, the PDF report with its own section — with no other
engine file touched. The GUI half (one line of the page table) is
tests/gui/test_registry_toy_page.py.
"""

from __future__ import annotations

import json
import re

import pytest

from engine.audits.registry import AUDIT_TYPES, config_from_dict, demo_config, run_audit
from engine.estimates import constants, estimate
from engine.project import Project, load_config, load_project, save_project
from engine.report.sections import AuditSections
from tests.toy_audit import audit as toy_audit
from tests.toy_audit.entry import TOY

try:
    from pypdf import PdfReader
except ImportError:  # pragma: no cover - pypdf is in the dev extras
    PdfReader = None


@pytest.fixture
def toy(monkeypatch):
    """The toy's one registry entry, for the length of a test."""
    monkeypatch.setitem(AUDIT_TYPES, "toy", TOY)
    return TOY


@pytest.fixture
def cli(monkeypatch, tmp_path):
    """main.main in this process (so the toy's entry, patched in, is seen), without making the
    session's private temp folder the default for the tests that follow."""
    import main

    monkeypatch.setattr("engine.private_tmp.use_private_tmp", lambda: tmp_path)
    return main.main


def pdf_text(path) -> str:
    assert path.read_bytes()[:5] == b"%PDF-"
    if PdfReader is None:  # pragma: no cover
        pytest.skip("pypdf is needed to read the report back")
    return re.sub(r"\s+", " ", " ".join(p.extract_text() or "" for p in PdfReader(str(path)).pages))


@pytest.mark.parametrize("name", list(AUDIT_TYPES))
def test_every_entry_names_parts_that_exist(name):
    """The string references of an entry (the parts in layers above the registry) resolve,
    and each part is of its audit type: a misspelt module or name fails here, not in a run."""
    entry = AUDIT_TYPES[name]
    assert entry.name == name == entry.config.audit_type
    assert isinstance(entry.demo(), entry.config)
    assert entry.config().to_dict()["audit_type"] == name
    assert callable(entry.cost_model())
    assert isinstance(entry.constants(), dict) and entry.constants()
    assert issubclass(entry.sections(), AuditSections)
    assert entry.title and entry.question and entry.report_title


def test_toy_audit_type_reads_runs_and_estimates_through_its_entry(toy):
    config = config_from_dict({"audit_type": "toy", "coins": 40, "seed": 3}, "toy.toml")
    assert config == toy_audit.ToyConfig(seed=3, coins=40)
    result = run_audit(config)
    assert result.audit_type == "toy" and result.theory["coins"] == 40
    assert run_audit(config).theory == result.theory              # same seed, same numbers
    assert demo_config("toy") == toy_audit.demo_config()
    assert constants("toy")["seconds_per_coin"] == 1e-3
    cost = estimate(config, slowdown=1.0)
    assert cost.audit_type == "toy" and cost.seconds == pytest.approx(40e-3)
    assert cost.parts[0].name == "tossing"


def test_toy_audit_type_is_refused_without_its_entry():
    """Without the entry, nothing else knows the toy: its settings are refused in a sentence
    naming the key (what makes the entry the one place an audit type is found)."""
    with pytest.raises(Exception, match="the audit to run must be one of"):
        config_from_dict({"audit_type": "toy"}, "toy.toml")


def test_toy_audit_type_runs_from_the_command_line_with_its_report(toy, cli, tmp_path):
    config_path = tmp_path / "toy.toml"
    config_path.write_text('audit_type = "toy"\nname = "Tossed"\ncoins = 30\n', encoding="utf-8")
    assert load_config(config_path) == toy_audit.ToyConfig(name="Tossed", coins=30)
    out = tmp_path / "run"
    assert cli(["run", str(config_path), "--out", str(out), "--quiet"]) == 0
    result = json.loads((out / "result.json").read_text(encoding="utf-8"))
    assert result["audit_type"] == "toy" and result["theory"]["coins"] == 30
    text = pdf_text(out / "report.pdf")
    assert "Toy coin-toss audit" in text                  # the cover, from the entry
    assert "Toy theory: a fair coin came up heads" in text  # section 6, from its sections

    assert cli(["demo", "toy", "--out", str(tmp_path / "demo"), "--quiet"]) == 0
    demo = json.loads((tmp_path / "demo" / "result.json").read_text(encoding="utf-8"))
    assert demo["name"] == "Toy demo" and demo["theory"]["coins"] == 50


def test_toy_audit_type_saves_and_opens_as_a_project(toy, tmp_path):
    result = run_audit(toy_audit.ToyConfig(coins=10)).to_dict()
    path = save_project(tmp_path / "toy.praudit.json",
                        Project("toy", toy_audit.ToyConfig(coins=10).to_dict(), result))
    project = load_project(path)
    assert project.audit_type == "toy" and project.config_problem is None
    assert project.result_problem is None
    assert project.result["theory"] == result["theory"]


def test_command_line_checks_demo_and_sample_names_against_the_registry(cli, tmp_path,
                                                                         capsys):
    """main.py keeps no list of audit types: an unknown name is refused in one sentence that
    names the registry's types (exit 2), before anything runs or the app opens."""
    assert cli(["demo", "coins", "--out", str(tmp_path / "d")]) == 2
    assert cli(["--sample", "coins"]) == 2
    err = capsys.readouterr().err
    assert ("no sample audit called “coins”; choose one of mechanism, location, aggregates, "
            "model, model-thorough." in err)
    assert "no sample audit called 'coins'; choose one of mechanism, location" in err
    assert not (tmp_path / "d").exists()
