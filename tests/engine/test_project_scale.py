"""bench/project_scale.py (issue 22 item 7): the projection is computed from the measured
calibration constants, prints without a GPU, and its GPU measurement runs (here on the CPU)."""

from __future__ import annotations

from dataclasses import replace

import pytest

from bench import project_scale as ps
from engine.estimates import calibration


def _by_unit(a=None):
    a = a or ps.Assumptions()
    jobs = ps.census_jobs(a) + [ps.lira_job(a, None), ps.location_job(a, None)]
    return {r["unit"]: r for r in ps.rows(a, jobs)}


def _doubled(table):
    return [[x, 2.0 * y] for x, y in table]


def test_doubling_the_measured_constants_doubles_the_core_hours(monkeypatch):
    before = _by_unit()
    monkeypatch.setitem(calibration.MODEL, "step_seconds",
                        _doubled(calibration.MODEL["step_seconds"]))
    monkeypatch.setitem(calibration.MODEL, "predict_seconds_per_mac",
                        2.0 * calibration.MODEL["predict_seconds_per_mac"])
    # the model's fixed costs and each attack's own (bench/estimates_model_parts) too
    monkeypatch.setitem(calibration.MODEL, "training_call_seconds",
                        2.0 * calibration.MODEL.get("training_call_seconds", 0.0))
    monkeypatch.setitem(calibration.MODEL, "startup_seconds",
                        2.0 * calibration.MODEL.get("startup_seconds", 0.0))
    monkeypatch.setitem(calibration.MODEL, "attack_costs", {
        name: [2.0 * fixed, 2.0 * per_cell]
        for name, (fixed, per_cell) in calibration.MODEL.get("attack_costs", {}).items()})
    # the census row's exact release takes the auditor's shortcut (its own measured table)
    monkeypatch.setitem(calibration.AGGREGATES, "witness_seconds",
                        _doubled(calibration.AGGREGATES["witness_seconds"]))
    after = _by_unit()
    for name, row in after.items():
        if name in ("reference model", "unique record"):   # LiRA; DeSIA's exact attack
            assert row["core_hours"] == pytest.approx(2.0 * before[name]["core_hours"],
                                                      rel=1e-9)
            assert row["cpu_cost"] == pytest.approx(2.0 * before[name]["cpu_cost"], rel=1e-9)
        else:                                     # constants of other jobs left alone
            assert row["core_hours"] == before[name]["core_hours"]


def test_the_location_row_follows_its_step_constants(monkeypatch):
    name = "target"                               # the location job's unit
    before = _by_unit()[name]["core_hours"]
    monkeypatch.setitem(calibration.LOCATION, "meta_step_seconds",
                        _doubled(calibration.LOCATION["meta_step_seconds"]))
    assert _by_unit()[name]["core_hours"] > 1.5 * before


def test_assumptions_scale_the_table():
    a = ps.Assumptions()
    base = _by_unit(a)
    more = _by_unit(replace(a, blocks=2 * a.blocks, reference_models=2 * a.reference_models,
                            targets=2 * a.targets))
    for name, row in base.items():
        assert more[name]["core_hours"] == pytest.approx(2.0 * row["core_hours"], rel=1e-12)
    # A unit is not split: 256 reference models on 100 nodes still take one model's time.
    lira = base["reference model"]
    assert lira["cpu_hours_on_nodes"] * 3600 == pytest.approx(lira["cpu_seconds"], rel=1e-12)
    cheap = _by_unit(replace(a, core_hour_price=a.core_hour_price / 4))
    for name, row in base.items():
        assert cheap[name]["cpu_cost"] == pytest.approx(row["cpu_cost"] / 4, rel=1e-12)


def test_the_table_prints_without_a_gpu(capsys, monkeypatch):
    monkeypatch.setenv("PRA_DEVICE", "cpu")
    ps.main(["--nodes", "10", "--core-hour-price", "0.1"])
    out = capsys.readouterr().out
    assert "not measured (no GPU here)" in out
    assert "no GPU path" in out                          # the census solver
    assert "hours on 10 CPU nodes" in out and "- core_hour_price = 0.1" in out
    header = next(line for line in out.splitlines() if line.startswith("| job"))
    rows = [line for line in out.splitlines() if line.startswith("| ") and line != header]
    assert len(rows) == 5
    assert all(line.count("|") == header.count("|") for line in rows)
    with pytest.raises(SystemExit, match="Unknown assumption"):
        ps.parse(["--cores", "3"])


def test_the_gpu_measurement_runs_on_a_device():
    """The GPU columns' measurement, run on the CPU with small sizes (it is the same code a GPU
    runs; the numbers here mean nothing)."""
    a = replace(ps.Assumptions(), lira_features=20, lira_classes=3, lira_hidden=(8,),
                lira_batch=32, pool_people=400, target_cells=6, aggregate_people=50,
                city_sites=10, city_epochs=4, obs_per_person=5.0)
    out = ps.measure_gpu(a, "cpu", lira_rows=200, lira_models=2, aggregates=300, meta_steps=20)
    assert set(out) == {"lira", "location"} and all(v > 0 for v in out.values())
    jobs = [ps.lira_job(a, out["lira"]), ps.location_job(a, out["location"])]
    text = ps.table(a, jobs, "a test device")
    assert "measured here on a test device" in text and "not measured" not in text
