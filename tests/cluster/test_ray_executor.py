"""A campaign on a real local Ray cluster gives the in-process numbers; Cancel reaches the
running tasks (issue 22, "Campaigns on an existing cluster engine")."""

from __future__ import annotations

import threading
import time

import engine.audits.location as L
from engine.compute import LOCAL, ComputeSettings, InProcessExecutor, RayExecutor
from engine.runtime import CancelToken, JobCancelled, Progress, RecordingProgress
from tests.cluster.units import seeded_draw, slow_after_first

HANG_GUARD_S = 240      # not a speed limit: only stops a broken cancel from hanging the suite

SMALL = dict(city_users=600, city_epochs=96, aggregate_size=99, test_aggregates=1000,
             shadow_aggregates=400, sweep_targets=2, sweep_test_aggregates=400,
             attacks=("one_threshold", "two_threshold", "reference", "likelihood_ratio"),
             target="observations", target_observations=15, seed=3, repetitions=3)


def test_units_give_the_same_numbers_in_index_order(ray_cluster):
    shared = {"seed": 11}
    here = InProcessExecutor().map(seeded_draw, 8, shared)
    recorded = RecordingProgress()
    there = RayExecutor(LOCAL).map(seeded_draw, 8, shared, progress=Progress(recorded),
                                   message="Drawing")
    assert there == here
    assert recorded.calls[-1][0] == 1.0 and "8 of 8" in recorded.calls[-1][1]


def test_location_repetitions_and_sweep_on_ray_equal_the_in_process_run(ray_cluster):
    here = L.run(L.LocationConfig(**SMALL)).to_dict()
    there = L.run(L.LocationConfig(**SMALL, compute=ComputeSettings(LOCAL))).to_dict()
    for a, b in zip(here["attacks"], there["attacks"], strict=True):
        assert a["name"] == b["name"]
        assert a["details"]["repetitions"]["accuracy"] == b["details"]["repetitions"]["accuracy"]
        assert a["details"]["repetitions"]["auc"] == b["details"]["repetitions"]["auc"]
        assert a["accuracy"] == b["accuracy"] and a["auc"] == b["auc"]
    for key in ("observations", "optimal_accuracy", "dp_bound_accuracy", "attacks"):
        assert here["theory"]["sweep"][key] == there["theory"]["sweep"][key], key
    assert "Ray" in there["theory"]["sweep"]["computed_on"]
    assert "Ray" in there["theory"]["repetitions"]["computed_on"]
    assert "this computer" in here["theory"]["repetitions"]["computed_on"]


def test_cancel_reaches_the_running_tasks(ray_cluster):
    token = CancelToken()
    progress_seen = threading.Event()

    def on_progress(fraction, message):
        if fraction > 0:                 # unit 0 has finished: the others are running
            progress_seen.set()
            token.cancel()

    outcome = {}

    def campaign():
        try:
            RayExecutor(LOCAL).map(slow_after_first, 3, {}, progress=Progress(on_progress),
                                   cancel=token)
            outcome["ended"] = "finished"
        except JobCancelled:
            outcome["ended"] = "cancelled"

    worker = threading.Thread(target=campaign, daemon=True)
    worker.start()
    worker.join(HANG_GUARD_S)
    assert not worker.is_alive(), "the campaign did not stop after Cancel"
    assert progress_seen.is_set() and outcome["ended"] == "cancelled"
    # The running tasks were ended, not left to run their ten minutes: both CPUs come back.
    # (A hang guard, not a speed limit: uncancelled tasks would hold them for 600 s.)
    deadline = time.monotonic() + HANG_GUARD_S
    while ray_cluster.available_resources().get("CPU", 0) < 2:
        assert time.monotonic() < deadline, "the cancelled tasks still hold the CPUs"
        time.sleep(0.5)
    assert RayExecutor(LOCAL).map(seeded_draw, 2, {"seed": 1}) == \
        InProcessExecutor().map(seeded_draw, 2, {"seed": 1})

