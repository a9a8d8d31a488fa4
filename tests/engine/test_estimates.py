"""Cost estimates before a run (issue 11, "Long jobs"): engine/estimates.

What is checked here is the logic — tables read monotonically, a run that cannot fit refused
with the setting to lower, a long run needing a confirmation, estimates that grow with the
sizes that drive them, the command line's --yes. How close the estimates come to measured runs
is a benchmark, not a test (bench/bench_estimates.py prints estimated against measured time and
memory for held-out configs; the ratios are in docs/dev/hardening_status.md)."""

from __future__ import annotations

from dataclasses import replace

import pytest

import engine.estimates as est
from engine.audits.model import thorough_config
from engine.audits.registry import AUDIT_TYPES, demo_config
from engine.data.errors import InputError
from engine.estimates import CostEstimate, CostPart, estimate, preflight
from engine.estimates.scaling import loglog


def test_loglog_reads_a_power_law_exactly_and_never_decreases():
    table = [(10, 1.0), (100, 10.0), (1000, 50.0), (3000, 40.0)]
    assert loglog(table, 10) == pytest.approx(1.0)
    assert loglog(table, 31.6227766) == pytest.approx(10 ** 0.5, rel=1e-6)
    assert loglog(table, 5) == pytest.approx(1.0)                 # below: the first value
    values = [loglog(table, x) for x in (10, 50, 100, 500, 1000, 2000, 3000, 10_000)]
    assert values == sorted(values)                                # a dip is flattened
    # Beyond the table: the last slope, at most 2 (here 0: the table ends flat).
    assert loglog(table, 30_000) == pytest.approx(50.0)
    steep = [(1, 1.0), (2, 64.0)]                                  # slope 6 measured
    assert loglog(steep, 4) == pytest.approx(64.0 * 4)            # extrapolated at slope 2


def _cost(seconds=1.0, nbytes=1e6, resident=0.0, setting="trials"):
    return CostEstimate.from_parts("mechanism", resident, "data",
                                   [CostPart("The game", seconds, nbytes, setting, "game")])


def test_a_run_that_cannot_fit_is_refused_naming_the_setting_to_lower():
    check = preflight(_cost(nbytes=30e9), available=8e9)
    assert isinstance(check.refusal, InputError)
    assert check.refusal.key == "trials"
    text = str(check.refusal)
    assert "30.0 GB" in text and "8.0 GB" in text and "lower 'trials'" in text
    # The data held for the whole run is named when it is the biggest item.
    check = preflight(_cost(nbytes=1e9, resident=20e9), available=8e9)
    assert check.refusal.key == "data"
    assert preflight(_cost(nbytes=1e9), available=8e9).refusal is None


def test_long_or_memory_hungry_runs_ask_first():
    assert preflight(_cost(seconds=30), available=8e9).question is None
    long = preflight(_cost(seconds=3600), available=8e9)
    assert long.refusal is None
    assert "about 36 minutes to 1.6 hours" in long.question
    assert long.question.endswith("Start it anyway?")
    assert "('trials')" in long.question
    hungry = preflight(_cost(nbytes=5e9), available=8e9)
    assert "5.0 GB of the 8.0 GB" in hungry.question
    assert preflight(_cost(seconds=3600), available=8e9, confirm_seconds=7200).question is None


def test_words_for_durations_and_sizes():
    assert est.format_duration(3) == "under 10 seconds"
    assert est.format_duration(44) == "40 seconds"
    assert est.format_duration(600) == "10 minutes"
    assert est.format_duration(3 * 3600) == "3.0 hours"
    assert est.format_bytes(2.5e8) == "250 MB" and est.format_bytes(3.2e9) == "3.2 GB"
    assert est.about_duration(3) == "under 10 seconds"
    assert est.about_duration(600) == "about 10 minutes"


@pytest.mark.parametrize("name", list(AUDIT_TYPES))
def test_every_demo_has_a_finite_estimate(name):
    cost = estimate(demo_config(name))
    assert 0 < cost.seconds < 3600 and 0 < cost.peak_bytes < 16e9
    assert cost.parts and all(p.what and p.seconds >= 0 for p in cost.parts)
    assert cost.sentence().startswith(("About ", "Under 10 seconds"))
    d = cost.to_dict()
    assert d["seconds"] == round(cost.seconds, 1) and d["reference_machine"]


def test_estimates_grow_with_what_drives_them():
    mech = demo_config("mechanism")
    base = estimate(mech)
    assert estimate(replace(mech, trials=20 * mech.trials)).seconds > base.seconds
    assert estimate(replace(mech, trials=100 * mech.trials)).peak_bytes > base.peak_bytes
    assert estimate(replace(mech, observations=50 * mech.observations)).seconds > base.seconds
    model = demo_config("model")
    base = estimate(model)
    assert estimate(replace(model, synthetic_records=4 * model.synthetic_records)).seconds \
        > base.seconds
    assert estimate(replace(model, epochs=4 * model.epochs)).seconds > base.seconds
    assert estimate(replace(model, architecture="purchase")).seconds > base.seconds
    many = estimate(replace(model, reference_models=256))
    assert many.peak_bytes > base.peak_bytes and many.seconds > base.seconds
    assert many.memory_setting() == "reference_models"
    # The demo runs the defences' sweep; without it the run is shorter.
    assert model.defences.enabled
    without = replace(model, defences=replace(model.defences, enabled=False))
    assert estimate(without).seconds < base.seconds
    # Fewer settings of the thorough sample's full sweep cost less than the whole sweep.
    full = thorough_config()
    fewer = replace(full, defences=replace(full.defences, kcd_alphas=(0.0, 1.0)))
    assert estimate(without).seconds < estimate(fewer).seconds < estimate(full).seconds


def test_a_huge_model_audit_is_refused_before_it_starts():
    model = replace(demo_config("model"), synthetic_records=1_000_000, reference_models=1024,
                    attacks=("lira_online",))
    check = preflight(estimate(model), available=16e9)
    assert check.refusal is not None and check.refusal.key == "reference_models"


# --------------------------------------------------------------------------- command line

def _config_file(tmp_path, **kw):
    from engine.project import config_to_toml
    config = replace(demo_config("mechanism"), trials=1000, **kw)
    path = tmp_path / "audit.toml"
    path.write_text(config_to_toml(config.to_dict()), encoding="utf-8")
    return path


def test_the_command_line_needs_yes_above_the_line(tmp_path, monkeypatch, capsys):
    import main
    path = _config_file(tmp_path)
    monkeypatch.setattr(est, "CONFIRM_SECONDS", 0.0)
    assert main.main(["run", str(path), "--out", str(tmp_path / "a"), "--no-report"]) == 2
    err = capsys.readouterr().err
    assert "Estimated: " in err and "of memory" in err and "--yes" in err
    assert not (tmp_path / "a" / "result.json").exists()
    assert main.main(["run", str(path), "--out", str(tmp_path / "b"), "--no-report",
                      "--yes"]) == 0
    assert (tmp_path / "b" / "result.json").exists()


def test_the_command_line_refuses_a_run_that_cannot_fit(tmp_path, monkeypatch, capsys):
    import main
    path = _config_file(tmp_path)
    monkeypatch.setattr(est, "available_memory_bytes", lambda: 1e6)
    assert main.main(["run", str(path), "--out", str(tmp_path / "a"), "--yes"]) == 2
    err = capsys.readouterr().err
    # The setting named is the biggest user of memory (at 1,000 trials: the exact theory's
    # observations, not the trials).
    from engine.audits.registry import config_from_dict
    from engine.project import read_config_file
    key = estimate(config_from_dict(read_config_file(path), str(path))).memory_setting()
    assert key in ("observations", "trials")
    assert "error:" in err and f"lower '{key}'" in err and "free" in err
    assert not (tmp_path / "a").exists()


def test_the_estimate_scales_with_the_slowdown_measured_now():
    # Issue 21: on a busy machine the quiet figure was 3-18 × short; issue 33 item 5: the
    # slowdown is measured (engine.estimates.slowdown, tests/engine/test_estimates_slowdown.py).
    quiet = _cost(seconds=120)
    busy = replace(quiet, slowdown=8.5)
    assert busy.expected_seconds == 8.5 * quiet.expected_seconds
    assert "busy" in busy.sentence() and "busy" not in quiet.sentence()
    # A run fine on a quiet machine is asked about when the machine is busy.
    assert preflight(quiet, available=8e9).question is None
    assert preflight(busy, available=8e9).question is not None


def test_an_estimate_is_shown_as_a_range():
    assert est.duration_range(3) == "under 10 seconds"
    assert est.duration_range(200) == "about 2 to 5 minutes"
    assert est.duration_range(60) == "about 40 seconds to 2 minutes"
    assert _cost(seconds=200).sentence().startswith("About 2 to 5 minutes")


def test_a_cell_over_the_csv_modules_limit_still_gives_an_estimate(tmp_path):
    """Issue 18: a training table with a 200 KB cell (or a quote left open) made the probe's
    csv reader raise, and the command line printed "No estimate … (Error)"."""
    from engine.estimates.probe import csv_shape
    rows = [f"{20 + i},{'ab'[i % 2]},{'yes' if i % 3 else 'no'}" for i in range(50)]
    huge = tmp_path / "huge_cell.csv"
    huge.write_text("age,note,label\n" + f'{19},"{"x" * 200_000}",no\n' + "\n".join(rows) + "\n",
                    encoding="utf-8")
    shape = csv_shape(huge)
    assert shape is not None and shape.columns == ("age", "note", "label")
    assert shape.rows == 51
    config = replace(demo_config("model"), data=str(huge), epochs=2)
    cost = estimate(config)
    assert 0 < cost.seconds < float("inf") and 0 < cost.peak_bytes < float("inf")


def test_the_command_line_says_why_there_is_no_estimate(tmp_path, monkeypatch, capsys):
    """An estimate that fails says the reason in a sentence, and the run goes on."""
    import main
    path = _config_file(tmp_path)

    def bad_input(config):
        raise InputError("people.csv: row 7, column 'age' holds '1e309', which is not a finite "
                         "number (it stands for infinity); write a plain number.",
                         source="people.csv")

    monkeypatch.setattr(est, "estimate", bad_input)
    assert main.main(["run", str(path), "--out", str(tmp_path / "a"), "--no-report"]) == 0
    err = capsys.readouterr().err
    assert ("No estimate of the run's time and memory: people.csv: row 7, column 'age' holds "
            "'1e309'") in err and "The run goes on." in err
    assert "(InputError)" not in err

    def bug(config):
        raise RuntimeError("could not convert 'Jane Doe'")

    monkeypatch.setattr(est, "estimate", bug)
    assert main.main(["run", str(path), "--out", str(tmp_path / "b"), "--no-report"]) == 0
    err = capsys.readouterr().err
    assert "the estimate itself failed (RuntimeError: could not convert '…')" in err
    assert "Jane Doe" not in err


def _model_config(**kw):
    from engine.audits.registry import config_from_dict
    d = {**demo_config("model").to_dict(), **kw}
    d["defences"] = {**d["defences"], "enabled": False}
    return config_from_dict(d, "test")


def test_the_model_estimate_counts_torchs_start_up_only_until_it_has_happened(monkeypatch):
    """Torch loads its compiler package the first time an optimiser steps (~2.5 s, once per
    process; bench/estimates_model_parts): the first run of a session pays it, the next not."""
    import sys

    from engine.estimates import model as cost
    monkeypatch.setattr(est, "constants", lambda t: {**AUDIT_TYPES[t].constants(),
                                                     "startup_seconds": 3.0})
    monkeypatch.setattr(cost, "constants", est.constants)
    config = _model_config(attacks=["confidence"])
    monkeypatch.delitem(sys.modules, "torch._dynamo", raising=False)
    first = estimate(config, slowdown=1.0, machine=False)
    assert first.seconds_of("startup") == pytest.approx(3.0)
    monkeypatch.setitem(sys.modules, "torch._dynamo", object())
    again = estimate(config, slowdown=1.0, machine=False)
    assert again.seconds_of("startup") == 0.0
    assert first.seconds == pytest.approx(again.seconds + 3.0)
    # A predictions file with threshold attacks only trains nothing: no start-up.
    monkeypatch.delitem(sys.modules, "torch._dynamo", raising=False)
    assert cost._startup_parts(replace(config, source="predictions")) == []
    assert cost._startup_parts(replace(config, source="predictions",
                                       attacks=("shokri",))) != []


def test_each_model_attack_is_estimated_by_its_own_measured_cost(monkeypatch):
    """Shokri's attack models cost seconds however few the records; a threshold attack next
    to nothing: one shared cost per cell estimated the first 0.9 s for a 6.2 s run."""
    from engine.estimates import model as cost
    table = {**AUDIT_TYPES["model"].constants(),
             "attack_costs": {"shokri": [4.0, 1e-5], "confidence": [0.01, 1e-7],
                              "rmia": [0.0, 2e-8]}}
    monkeypatch.setattr(cost, "constants", lambda t: table)
    assert cost.attack_seconds("shokri", 1000, 2, 0) == pytest.approx(4.0 + 1e-5 * 2000)
    assert cost.attack_seconds("confidence", 1000, 2, 0) == pytest.approx(0.01 + 2e-4)
    # Shokri's attack models train on the shadow outputs: 8 shadows × 500 records is 4,000 rows
    assert cost.attack_seconds("shokri", 1000, 2, 0, shadow_rows=4000) == pytest.approx(
        4.0 + 1e-5 * 8000)
    # a threshold attack reads the audited records whatever the shadows
    assert cost.attack_seconds("confidence", 1000, 2, 0, shadow_rows=4000) == pytest.approx(
        0.01 + 2e-4)
    # the reference attacks read every reference model's output
    assert cost.attack_seconds("rmia", 1000, 2, 8) == pytest.approx(2e-8 * 2000 * 8)
    # an attack the table lacks falls back on the shared per-cell constant
    assert cost.attack_seconds("entropy", 1000, 2, 0) == pytest.approx(
        table["attack_seconds_per_cell"] * 2000)


def test_a_stack_of_distilled_students_costs_its_slowest_students_epochs(monkeypatch):
    """KCD's and DMP's students train as one stack until the last has converged (engine.models
    .mlp.Convergence), so the stack's epochs are its slowest knob's: on the sample audit α = 1
    trained 1,309 epochs where α ≤ 0.25 stopped at the recipe's 30. The factors are counted
    per knob at two sizes (engine.estimates.calibration), log-linear between the sizes."""
    from engine.estimates import model as est_model

    tables = {"kcd_student_epochs": [[100, [[0.0, 1.0], [1.0, 20.0]]],
                                     [1000, [[0.0, 1.0], [1.0, 40.0]]]],
              "dmp_student_epochs": [[100, [[1.0, 3.0], [4.0, 1.0]]]]}
    monkeypatch.setattr(est_model, "constants", lambda kind: tables)
    kcd = est_model.student_epochs
    assert kcd("kcd", (0.0, 0.5, 1.0), 100) == 20.0          # the slowest α, not the mean
    assert kcd("kcd", (0.0, 0.5), 100) == 10.5               # linear between two α
    assert kcd("kcd", (1.0,), 1000) == 40.0
    assert kcd("kcd", (1.0,), 10 ** 1.5 * 10) == pytest.approx(30.0)   # half-way in log size
    assert kcd("kcd", (1.0,), 10) == 20.0 and kcd("kcd", (1.0,), 10 ** 6) == 40.0
    assert kcd("dmp", (2.0, 4.0), 5000) == pytest.approx(1 + 2 * (4 - 2) / 3)
    monkeypatch.setattr(est_model, "constants", lambda kind: {"student_epochs": 7.0})
    assert kcd("kcd", (1.0,), 100) == 7.0                     # constants from before the tables


def test_the_sample_audits_students_are_estimated_by_the_slowest_alpha():
    """With the shipped constants, a sweep whose largest α is 1 costs far more KCD time than
    one that stops at α = 0.5 with as many students (the sample audit's α = 1 student alone
    trained 44 times the recipe's epochs)."""
    from engine.estimates.model import defence_seconds

    model = demo_config("model")
    slow = replace(model, defences=replace(model.defences, kcd_alphas=(0.0, 0.25, 1.0)))
    quick = replace(model, defences=replace(model.defences, kcd_alphas=(0.0, 0.25, 0.5)))
    assert defence_seconds(slow)["kcd"] > 3 * defence_seconds(quick)["kcd"]
