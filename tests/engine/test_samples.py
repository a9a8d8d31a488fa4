"""The bundled samples (issue 33 item 3, "A first run in two minutes"): every sample the app
offers and every ``main.py demo NAME`` of an audit type is estimated under two minutes on the
reference machine (the cost model, never a timer) and does not ask "Start it anyway?"; the
model's whole defence sweep is the thorough sample, a named sample of its own."""

from __future__ import annotations

import tomllib
from pathlib import Path

import pytest

import main as cli_main
from engine.audits.model import demo_config, thorough_config
from engine.audits.registry import AUDIT_TYPES, config_from_dict
from engine.audits.samples import (
    EXTRA_SAMPLES,
    audit_type_of,
    sample_config,
    sample_names,
)
from engine.data.errors import InputError
from engine.estimates import preflight

CONFIGS = Path(__file__).resolve().parents[2] / "resources" / "configs"
TWO_MINUTES = 120.0


def quiet_seconds(config) -> float:
    """The registry's cost model of ``config``: seconds on the reference machine, quiet."""
    return AUDIT_TYPES[config.audit_type].cost_model()(config).seconds


def toml_config(name: str):
    with open(CONFIGS / name, "rb") as fh:
        return config_from_dict(tomllib.load(fh), source=name)


@pytest.mark.parametrize("audit_type", list(AUDIT_TYPES))
def test_every_quick_sample_is_estimated_under_two_minutes(audit_type):
    """The demo the command line runs and the TOML the app's form loads are the same config,
    and the cost model puts it under two minutes on two quiet cores."""
    demo = AUDIT_TYPES[audit_type].demo()
    assert toml_config(f"{audit_type}_demo.toml") == demo
    assert sample_config(audit_type) == demo
    assert quiet_seconds(demo) < TWO_MINUTES


@pytest.mark.parametrize("audit_type", list(AUDIT_TYPES))
def test_no_quick_sample_asks_start_it_anyway(audit_type):
    """The app asks "Start it anyway?" (and the command line wants --yes) above the
    confirmation line; the app's own quick samples stay under it, given the memory."""
    cost = AUDIT_TYPES[audit_type].cost_model()(AUDIT_TYPES[audit_type].demo())
    check = preflight(cost, available=16e9)
    assert check.refusal is None and check.question is None


def test_the_model_sample_keeps_the_strongest_attacks_and_a_defended_setting_per_defence():
    """Quick, but still the expert's audit: every default attack (LiRA, RMIA, BTTA, the metric
    attacks) with 16 reference and 8 shadow models, and one setting of each defence, each
    judged by LiRA and RMIA on reference models trained under it."""
    quick = demo_config()
    assert set(quick.attacks) >= {"btta", "lira_online", "lira_offline", "rmia",
                                  "modified_entropy", "confidence"}
    assert quick.reference_models == 16 and quick.shadow_models == 8
    defences = quick.defences
    assert defences.enabled and defences.reference_models >= 2
    families = [s.defence for s in defences.settings()[1:]]
    assert sorted(families) == ["dmp", "dp_sgd", "kcd", "l2"]


def test_the_thorough_sample_is_the_full_sweep_offered_by_name():
    thorough = sample_config("model-thorough")
    assert thorough == thorough_config() == toml_config("model_thorough.toml")
    assert audit_type_of("model-thorough") == "model"
    assert "model-thorough" in sample_names() and "model-thorough" in EXTRA_SAMPLES
    assert len(thorough.defences.settings()) - 1 == 14      # every setting of issue 9's sweep
    assert thorough.defences.reference_models == 4
    # its time is the cost model's, and longer than the quick sample's
    assert quiet_seconds(thorough) > 3 * quiet_seconds(demo_config())


def test_an_unknown_sample_names_every_sample():
    with pytest.raises(InputError) as info:
        sample_config("coins")
    assert "mechanism, location, aggregates, model, model-thorough" in str(info.value)


@pytest.fixture
def ran(monkeypatch, tmp_path):
    """main.main with the run replaced: the config each demo would run, and its --yes."""
    runs = []
    monkeypatch.setattr(cli_main, "_run_config",
                        lambda config, out, **kw: runs.append((config, kw["yes"])) or 0)
    monkeypatch.setattr("engine.private_tmp.use_private_tmp", lambda: tmp_path)
    return runs


def test_the_command_line_demos_are_the_samples(ran, tmp_path):
    for name in ("mechanism", "location", "aggregates", "model"):
        assert cli_main.main(["demo", name, "--out", str(tmp_path / name)]) == 0
        assert ran[-1] == (AUDIT_TYPES[name].demo(), False)
    assert cli_main.main(["demo", "model-thorough", "--out", str(tmp_path / "t"), "--yes"]) == 0
    assert ran[-1] == (thorough_config(), True)


def test_the_model_demo_runs_without_yes(monkeypatch, capsys):
    """``main.py demo model`` refused without --yes while the sample took 13 minutes; now its
    estimate on a quiet machine stays under the confirmation line."""
    monkeypatch.setattr("engine.estimates.machine_slowdown", lambda **kw: 1.0)
    monkeypatch.setattr("engine.estimates.available_memory_bytes", lambda: 16e9)
    assert cli_main._check_cost(demo_config(), quiet=True, yes=False) is None
