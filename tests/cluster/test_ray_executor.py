"""A campaign on a real local Ray cluster gives the in-process numbers; Cancel reaches the
running tasks (issue 22, "Campaigns on an existing cluster engine")."""

from __future__ import annotations

import threading
import time

import numpy as np

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


def _count_tables(**more):
    import engine.audits.aggregates as A
    # Every count released: some targets are proved, some are not unique; both games, the
    # stochastic module, CIP and a sweep of each kind.
    tiny = dict(census_records=60, census_auxiliary=400, max_targets=6, fraction=0.0,
                n_shadow=100, reconstructions=1,
                attacks=("desia", "desia_no_verification", "cip_rand", "data_only",
                         "likelihood"),
                mia_attacks=("desia_mia", "desia_mia_stochastic_only", "cip_rand_mia",
                             "best_of_mia"),
                sweep_fractions=(0.5,), sweep_epsilons=(1.0,), sweep_targets=5,
                sweep_attacks=("desia", "cip_rand", "data_only"), seed=3)
    return A.AggregatesConfig(**{**tiny, **more})


def test_count_tables_units_on_ray_equal_the_in_process_run(ray_cluster):
    """The deterministic proofs, each target's stochastic module, likelihood attack and CIP
    reconstructions in both games, the membership proofs, the membership best-of's rehearsal
    and the sweep points, on Ray: the in-process numbers."""
    import engine.audits.aggregates as A
    here = A.run(_count_tables()).to_dict()
    there = A.run(_count_tables(compute=ComputeSettings(LOCAL))).to_dict()
    assert _numbers(there) == _numbers(here)
    theory = there["theory"]
    assert theory["deterministic"]["targets"] == 6
    assert theory["deterministic"]["determined"] > 0
    assert theory["membership"]["targets"] == 6
    assert {a["name"] for a in there["attacks"]} >= {"desia", "cip_rand", "likelihood"}
    assert {a["name"] for a in theory["membership"]["attacks"]} >= {"best_of_mia"}
    assert len(theory["sweeps"]["fraction"]["values"]) == 1
    assert len(theory["sweeps"]["noise"]["values"]) == 1
    for part in (theory["deterministic"], theory["membership"], theory["sweeps"]):
        assert "Ray" in part["computed_on"]
    for part in ("deterministic", "membership", "sweeps"):
        assert "this computer" in here["theory"][part]["computed_on"]


def test_rap_reconstructions_on_ray_equal_the_in_process_run(ray_cluster):
    """RAP is torch gradient descent: on a Ray worker (one thread) it gives the in-process
    reconstructions' votes."""
    import engine.games.aggregates as G
    from engine.attacks.aggregates import ATTRIBUTE_ATTACKS
    from engine.games import aggregates_units

    config = _count_tables()
    game, _ = G.setup_game(config, "aggregates-aia")
    released = G.released_per_target(config, game, game.codes[game.targets, -1])
    view = G.game_view(config, game, released[:2], game.codes.shape[0])
    view = G.GameView(**{**view.__dict__, "target_codes": view.target_codes[:2]})
    shared = aggregates_units.ReconstructionInputs(view, {"rap_rand": ATTRIBUTE_ATTACKS["rap_rand"],
                                           "desia_synthetic":
                                               ATTRIBUTE_ATTACKS["desia_synthetic"]})
    here = InProcessExecutor().map(aggregates_units.reconstruct_target, 2, shared)
    there = RayExecutor(LOCAL).map(aggregates_units.reconstruct_target, 2, shared)
    for a, b in zip(here, there, strict=True):
        assert a.keys() == b.keys() == {"rap_rand", "desia_synthetic", aggregates_units.CLOCK_CUTS}
        for name in a:
            assert np.array_equal(a[name], b[name]), name


def test_published_table_checks_on_ray_equal_the_in_process_run(ray_cluster):
    import engine.audits.aggregates as A
    from engine.games import aggregates_data, aggregates_scoring
    from engine.runtime import NEVER, NO_PROGRESS

    config = A.AggregatesConfig(
        data=str(A.SAMPLE_AUXILIARY), schema=A.demo_config().schema, release="published",
        release_options={"path": str(A.SAMPLE_BLOCK.parent / "sample_published_p_tables.csv")},
        published_records=450, max_targets=2, membership=False)
    data = aggregates_data.load_data(config)
    here = aggregates_scoring.published_findings(config, data, progress=NO_PROGRESS, cancel=NEVER)
    there = aggregates_scoring.published_findings(config, data, progress=NO_PROGRESS, cancel=NEVER,
                                 executor=RayExecutor(LOCAL))
    assert here[1] == there[1]
    assert _numbers(here[0]) == _numbers(there[0]) and here[0]["candidates"] == 20
    assert "Ray" in there[0]["computed_on"]


def test_a_count_table_job_cancelled_on_ray_stops(ray_cluster):
    """Cancel pressed while the stochastic module's units run on the cluster: the job raises
    JobCancelled and its running tasks are ended (both CPUs come back)."""
    import engine.audits.aggregates as A

    token = CancelToken()
    seen = []

    def on_progress(fraction, message):
        seen.append(message)
        if message.startswith("Learning from similar public records"):   # the stochastic module
            token.cancel()

    outcome = {}

    def job():
        try:
            A.run(_count_tables(n_shadow=200_000, membership=False, sweep_fractions=(),
                                sweep_epsilons=(), compute=ComputeSettings(LOCAL)),
                  progress=Progress(on_progress), cancel=token)
            outcome["ended"] = "finished"
        except JobCancelled:
            outcome["ended"] = "cancelled"

    worker = threading.Thread(target=job, daemon=True)
    worker.start()
    worker.join(HANG_GUARD_S)
    assert not worker.is_alive(), "the job did not stop after Cancel"
    assert outcome["ended"] == "cancelled"
    assert not any(m.startswith("Reconstructions") for m in seen)
    deadline = time.monotonic() + HANG_GUARD_S
    while ray_cluster.available_resources().get("CPU", 0) < 2:
        assert time.monotonic() < deadline, "the cancelled tasks still hold the CPUs"
        time.sleep(0.5)


def test_a_units_bad_input_sentence_arrives_as_in_process(ray_cluster):
    import pytest

    from engine.data.errors import InputError
    from tests.cluster.units import bad_input

    sentence = "KCD needs at least 2 records of each class per teacher; use fewer teachers."
    with pytest.raises(InputError) as info:
        RayExecutor(LOCAL).map(bad_input, 2, sentence)
    # The sentence alone, not wrapped in the worker's traceback.
    assert str(info.value) == sentence and info.value.key == "defences.kcd_teachers"
