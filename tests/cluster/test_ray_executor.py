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



# --------------------------------------------------------------------------- model and count tables

def _numbers(result: dict) -> dict:
    """A result's numbers: everything but the timings and where the parts ran."""
    skip = {"runtime_s", "training_runtime_s", "computed_on", "deterministic_seconds",
            "median_s", "p95_s", "seconds", "software", "created", "config", "config_sha256"}

    def clean(x):
        if isinstance(x, dict):
            return {k: clean(v) for k, v in x.items() if k not in skip}
        if isinstance(x, list):
            return [clean(v) for v in x]
        return x
    return clean(result)


def _tiny_model(**more):
    from engine.audits.model import ModelConfig
    from engine.defences.config import DefenceConfig
    return ModelConfig(synthetic="mixed", synthetic_records=400, epochs=2, shadow_models=2, reference_models=2,
                       attacks=("confidence", "lira_offline", "rmia"), seed=5,
                       defences=DefenceConfig(enabled=True, kcd_alphas=(0.5,), kcd_teachers=2,
                                              dmp_temperatures=(2.0,), l2_weight_decays=(1e-3,),
                                              dpsgd_noise_multipliers=(1.0,),
                                              reference_models=2), **more)


def test_model_audit_with_defences_on_ray_equals_the_in_process_run(ray_cluster):
    import engine.audits.model as M
    here = M.run(_tiny_model()).to_dict()
    there = M.run(_tiny_model(compute=ComputeSettings(LOCAL))).to_dict()
    assert _numbers(there) == _numbers(here)
    defences = there["theory"]["defences"]
    # The strongest attacks were re-run on every defended setting, on Ray.
    assert defences["reference_models"] == 2
    assert all("lira_offline" in row["attacks_run"] for row in defences["rows"])
    assert "Ray" in defences["computed_on"] and "Ray" in there["theory"]["model"]["computed_on"]
    assert "this computer" in here["theory"]["defences"]["computed_on"]


def test_count_tables_deterministic_targets_on_ray_equal_the_in_process_run(ray_cluster):
    import engine.audits.aggregates as A
    # Every count released: some targets are proved, some are not unique.
    tiny = dict(census_records=60, census_auxiliary=400, max_targets=6, fraction=0.0,
                n_shadow=100, membership=False,
                attacks=("desia", "desia_no_verification", "data_only"), seed=3)
    here = A.run(A.AggregatesConfig(**tiny)).to_dict()
    there = A.run(A.AggregatesConfig(**tiny, compute=ComputeSettings(LOCAL))).to_dict()
    assert _numbers(there) == _numbers(here)
    assert there["theory"]["deterministic"]["targets"] == 6
    assert there["theory"]["deterministic"]["determined"] > 0
    assert "Ray" in there["theory"]["deterministic"]["computed_on"]
    assert "this computer" in here["theory"]["deterministic"]["computed_on"]


def test_a_units_bad_input_sentence_arrives_as_in_process(ray_cluster):
    import pytest

    from engine.data.errors import InputError
    from tests.cluster.units import bad_input

    sentence = "KCD needs at least 2 records of each class per teacher; use fewer teachers."
    with pytest.raises(InputError) as info:
        RayExecutor(LOCAL).map(bad_input, 2, sentence)
    # The sentence alone, not wrapped in the worker's traceback.
    assert str(info.value) == sentence and info.value.key == "defences.kcd_teachers"
