"""Measuring this machine (engine.estimates.machine; issue 21: "A 'Measure this machine'
action re-fits the cost constants on the user's workstation"): the measurement stores its
constants in the app-data folder, the estimates then use them, and a damaged file is ignored
with one sentence."""

from __future__ import annotations

import json

import pytest

from engine.audits.registry import demo_config
from engine.estimates import estimate
from engine.estimates.machine import constants_path, in_use, load
from engine.estimates.measuring import measure_machine
from engine.runtime import CancelToken, JobCancelled, Progress, RecordingProgress


@pytest.fixture
def app_data(tmp_path, monkeypatch):
    monkeypatch.setenv("PRA_APP_DATA", str(tmp_path / "app data"))
    return tmp_path / "app data"


def test_the_measured_constants_are_stored_and_used_by_the_estimate(app_data):
    config = demo_config("mechanism")
    assert in_use().startswith("The time estimates use built-in times")
    built_in = estimate(config, slowdown=1.0).seconds
    progress = RecordingProgress()
    measured = measure_machine(Progress(progress), types=("mechanism",), scale=0.01)
    stored = json.loads(constants_path().read_text(encoding="utf-8"))
    assert constants_path().parent == app_data
    assert stored["factors"] == {"mechanism": pytest.approx(measured.factors["mechanism"])}
    factor = measured.factors["mechanism"]
    assert factor != 1.0
    assert estimate(config, slowdown=1.0).seconds == pytest.approx(built_in * factor)
    assert estimate(config, slowdown=1.0, machine=False).seconds == pytest.approx(built_in)
    # other audit types were not measured: their estimates stay the built-in ones
    model = demo_config("model")
    assert estimate(model, slowdown=1.0).seconds == \
        pytest.approx(estimate(model, slowdown=1.0, machine=False).seconds)
    assert in_use().startswith("The time estimates use times measured on this machine on ")
    assert progress.calls[-1][0] == 1.0
    assert any("Measuring this machine" in m for _, m in progress.calls)


def test_a_new_measurement_keeps_the_factors_of_types_it_did_not_measure(app_data):
    constants_path().parent.mkdir(parents=True)
    constants_path().write_text(json.dumps({"format": 1, "measured_on": "2026-01-02",
                                            "factors": {"model": 2.5}}), encoding="utf-8")
    measure_machine(types=("mechanism",), scale=0.01)
    factors = json.loads(constants_path().read_text(encoding="utf-8"))["factors"]
    assert factors["model"] == 2.5 and "mechanism" in factors


def test_a_cancelled_measurement_stores_nothing(app_data):
    token = CancelToken()
    token.cancel()
    with pytest.raises(JobCancelled):
        measure_machine(cancel=token, types=("mechanism",), scale=0.01)
    assert not constants_path().exists()


@pytest.mark.parametrize("content", [
    b"\x00\xff not json",
    b'{"format": 1, "measured_on": "2026-01-02"',
    b'{"format": 1, "measured_on": "2026-01-02", "factors": {"mechanism": -3}}',
    b'{"format": 1, "measured_on": "2026-01-02", "factors": {"mechanism": NaN}}',
    b'{"format": 1, "measured_on": "yesterday", "factors": {"mechanism": 2}}',
    b'{"format": 7, "measured_on": "2026-01-02", "factors": {"mechanism": 2}}',
    b'["format", 1]',
    b'{"format": 1, "measured_on": "2026-01-02", "factors": "fast"}',
])
def test_a_damaged_constants_file_is_ignored_with_a_sentence(app_data, content):
    constants_path().parent.mkdir(parents=True)
    constants_path().write_bytes(content)
    config = demo_config("mechanism")
    constants, problem = load()
    assert constants is None
    assert problem is not None and str(constants_path()) in problem
    assert problem.count(". ") == 0 and problem.endswith("replace the file.")
    assert "Traceback" not in problem
    assert estimate(config, slowdown=1.0).seconds == \
        pytest.approx(estimate(config, slowdown=1.0, machine=False).seconds)
    assert in_use().startswith(problem)


def test_a_folder_in_place_of_the_file_is_ignored_with_a_sentence(app_data):
    constants_path().mkdir(parents=True)
    constants, problem = load()
    assert constants is None and problem is not None
    assert estimate(demo_config("mechanism"), slowdown=1.0).seconds > 0


def test_each_probe_is_divided_by_the_slowdown_measured_around_it(app_data, monkeypatch):
    """The slowdown other programs cause is measured just before and just after each probe
    audit (engine.estimates.slowdown, issue 33 item 5) and divided out: a probe that ran 10 s
    while the measured slowdown went from 1.5 to 2.5 counts 10 / 2 s of a quiet machine."""
    import engine.estimates.measuring as measuring

    ticks = iter([0.0, 10.0])
    readings = iter([1.5, 2.5])
    asked = []

    def slowdown(*, fresh=False, threads=None):
        asked.append(fresh)
        return next(readings)

    monkeypatch.setattr(measuring, "run_audit", lambda *a, **k: None)
    monkeypatch.setattr(measuring, "estimate",
                        lambda config, **k: type("E", (), {"seconds": 2.5})())
    measured = measure_machine(types=("mechanism",), scale=0.01, clock=lambda: next(ticks),
                               slowdown=slowdown)
    assert measured.factors["mechanism"] == pytest.approx((10.0 / 2.0) / 2.5)
    assert asked == [True, True]              # fresh readings, never one from before the probe
