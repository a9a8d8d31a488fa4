"""Where an audit's units run (engine.compute, issue 22): the in-process default and the
[compute] setting. The Ray back-end is tested on a real local cluster in tests/cluster."""

from __future__ import annotations

import pytest

import engine.audits.location as L
from engine.compute import IN_PROCESS, InProcessExecutor, check_cluster, run_units
from engine.data.errors import InputError
from engine.runtime import CancelToken, JobCancelled, Progress, RecordingProgress, rng


def draw(index, shared, progress, cancel):
    progress(1.0, "drawn")
    return float(rng(shared, "unit", index).normal())


def test_in_process_units_run_in_order_with_progress_and_say_where():
    recorded = RecordingProgress()
    results, where = run_units(IN_PROCESS, draw, 4, 5, progress=Progress(recorded),
                               message="Drawing")
    assert results == [float(rng(5, "unit", i).normal()) for i in range(4)]
    assert "this computer" in where
    assert recorded.calls[-1] == (1.0, "Drawing (4 of 4)")
    fractions = [f for f, _ in recorded.calls]
    assert fractions == sorted(fractions)


def test_in_process_cancel_stops_before_the_next_unit():
    token = CancelToken()
    ran = []

    def unit(index, shared, progress, cancel):
        ran.append(index)
        if index == 1:
            token.cancel()
        return index

    with pytest.raises(JobCancelled):
        InProcessExecutor().map(unit, 5, None, cancel=token)
    assert ran == [0, 1]


def test_a_bad_cluster_setting_is_one_sentence():
    for bad in ("ray://", "my cluster", "host:99999", 5):
        with pytest.raises(InputError) as info:
            L.LocationConfig.from_dict({"compute": {"cluster": bad}})
        assert "cluster" in str(info.value) and "\n" not in str(info.value)
    with pytest.raises(InputError):
        L.LocationConfig.from_dict({"compute": {"nodes": 3}})
    assert L.LocationConfig.from_dict(
        {"compute": {"cluster": "ray://head.internal:10001"}}).compute.cluster == \
        "ray://head.internal:10001"



def test_the_cluster_setting_round_trips_and_defaults_to_this_computer():
    assert L.LocationConfig().compute.cluster == IN_PROCESS
    config = L.LocationConfig.from_dict({"compute": {"cluster": "local"}})
    assert L.LocationConfig.from_dict(config.to_dict()).compute.cluster == "local"
    assert check_cluster(None) == IN_PROCESS and check_cluster(" local ") == "local"
