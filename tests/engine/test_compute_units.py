"""The model audit's and the count tables' heavy loops as units of engine.compute (issue 22
item 6), in this process: split into units they give the numbers the single loops gave, in
whatever order the units run and after a round trip through pickle (what a Ray worker
receives and sends back). The same audits on a real Ray cluster: tests/cluster."""

from __future__ import annotations

import pickle

import numpy as np

import engine.games.aggregates as G
import engine.games.model as GM
import engine.models.batched as B
from engine.audits.aggregates import AggregatesConfig
from engine.defences.tradeoff import (
    DefenceSetting,
    _train_all,
    defended_references,
    train_sweep,
)
from engine.models import TrainingSpec, reference_tasks, train_many_mlps
from engine.runtime import NEVER, NO_PROGRESS, rng


class ShuffledExecutor:
    """Runs the units last first, each on a pickled copy of the shared data, and returns
    pickled copies of the results: what a cluster does, without the cluster."""

    where = "a test executor"

    def map(self, unit, count, shared, *, progress=NO_PROGRESS, cancel=NEVER, message="",
            weights=None):
        results = [None] * count
        for index in reversed(range(count)):
            copy = pickle.loads(pickle.dumps(shared))
            results[index] = pickle.loads(pickle.dumps(unit(index, copy, NO_PROGRESS, NEVER)))
        return results

    def close(self):
        pass


def _shuffled_run_units(cluster, unit, count, shared, **kw):
    kw.pop("message", None)
    executor = ShuffledExecutor()
    return executor.map(unit, count, shared, **kw), executor.where


def _data(n=240, d=5, k=3):
    g = rng(0, "test-compute-units")
    X = g.normal(size=(n, d)).astype(np.float32)
    y = np.argmax(X @ g.normal(size=(d, k)) + 0.7 * g.normal(size=(n, k)), axis=1)
    return X, y, k


def test_stack_parts_give_the_numbers_of_one_stacked_call(monkeypatch):
    # A CPU step budget this small makes stacks of two, so seven models are four units.
    monkeypatch.setattr(B, "CPU_STEP_MACS", 2 * 32 * (5 * 64 + 64 * 3) + 1)
    X, y, k = _data()
    spec = TrainingSpec(family="mlp", architecture="small", epochs=2, batch_size=32, seed=3,
                        hidden=(64,))
    masks = np.array([t.mask(y.size) for t in reference_tasks(7, 11, y.size)])
    parts = GM.stack_parts(spec, masks.shape[0], X.shape[1], k, "cpu")
    assert [len(p) for p in parts] == [2, 2, 2, 1]
    shared = GM.StackInputs(spec=spec, X=X, y=y, k=k, device="cpu", masks=masks,
                            seeds=tuple(range(7)), parts=parts)
    split = np.concatenate(ShuffledExecutor().map(GM.train_stack_part, len(parts), shared))
    # What train_and_query ran before the stack was split into units.
    whole = train_many_mlps(spec, X, y, k, masks, device="cpu").predict_proba(X)
    assert split.dtype == whole.dtype and np.array_equal(split, whole)


def test_each_stack_part_says_whether_it_trains_shadow_or_reference_models(monkeypatch):
    """The walk-through read "Training 6 reference models" for 2 shadows and 4 references."""
    from engine.runtime import Progress, RecordingProgress
    monkeypatch.setattr(B, "CPU_STEP_MACS", 2 * 32 * (5 * 64 + 64 * 3) + 1)    # stacks of two
    X, y, k = _data()
    spec = TrainingSpec(family="mlp", architecture="small", epochs=1, batch_size=32, seed=3,
                        hidden=(64,))
    masks = np.array([t.mask(y.size) for t in reference_tasks(5, 11, y.size)])
    parts = GM.stack_parts(spec, masks.shape[0], X.shape[1], k, "cpu")
    shared = GM.StackInputs(spec=spec, X=X, y=y, k=k, device="cpu", masks=masks,
                            seeds=tuple(range(5)), parts=parts, n_shadow=3)
    said = []
    for index in range(len(parts)):
        record = RecordingProgress()
        GM.train_stack_part(index, shared, Progress(record), NEVER)
        said.append(record.calls[0][1])
    assert said == ["Training 2 shadow models", "Training 2 shadow and reference models",
                    "Training the reference model"]


SETTINGS = [DefenceSetting.of("none"), DefenceSetting.of("kcd", alpha=0.5, n_teachers=2),
            DefenceSetting.of("dmp", temperature=2.0), DefenceSetting.of("l2", weight_decay=1e-3),
            DefenceSetting.of("dp_sgd", noise_multiplier=1.0)]


def test_defended_settings_and_their_reference_models_as_units_give_the_loop_numbers():
    X, y, k = _data()
    spec = TrainingSpec(family="mlp", architecture="small", epochs=1, batch_size=32, seed=3)
    common = dict(delta=1e-4, reference=X[:40], device="cpu")
    members = np.arange(40, 160)
    # The sweep: one unit per job group, run last first, against the one sequential call.
    looped = _train_all(SETTINGS, X[members], y[members], k, spec, seed=3, **common,
                        progress=NO_PROGRESS, cancel=NEVER)
    split = train_sweep(SETTINGS, X[members], y[members], k, spec, seed=3, **common,
                        executor=ShuffledExecutor())
    for a, b in zip(looped, split, strict=True):
        assert np.array_equal(a.predict_proba(X), b.predict_proba(X))
    # The reference models under each defence: one unit per reference model, against the
    # loop defended_references ran before (each reference model trains the whole sweep on
    # its half of the universe, queried on the universe).
    universe = np.arange(40, 240)
    refs = defended_references(SETTINGS, X[universe], y[universe], k, spec, n_models=2,
                               seed=3, **common, executor=ShuffledExecutor())
    campaign = int(rng(3, "defences", "reference-models").integers(0, 2**63 - 1))
    for r, task in enumerate(reference_tasks(2, campaign, universe.size, design="balanced")):
        models = _train_all(SETTINGS, X[universe][task.rows], y[universe][task.rows], k, spec,
                            seed=task.seed, **common, progress=NO_PROGRESS, cancel=NEVER)
        for i, model in enumerate(models):
            expected = model.predict_proba(X[universe]).astype(np.float32)
            assert np.array_equal(refs[i].probs[r], expected), (r, SETTINGS[i].label())


def test_deterministic_targets_in_any_order_give_the_same_findings(monkeypatch):
    # Every count released: two of the five targets are proved, three are not unique.
    config = AggregatesConfig(census_records=60, census_auxiliary=400, max_targets=5,
                              fraction=0.0, n_shadow=100, membership=False,
                              attacks=("desia_deterministic_only", "desia_no_verification"),
                              seed=3)
    here = G.play_aia(config)
    assert sorted(set(here.details["deterministic_status"])) == ["determined", "not_unique"]
    proved = here.determined
    assert np.array_equal(here.determined_value[proved], here.truth[proved])
    monkeypatch.setattr(G, "run_units", _shuffled_run_units)
    there = G.play_aia(config)
    assert here.details["deterministic_status"] == there.details["deterministic_status"]
    assert np.array_equal(here.determined_value, there.determined_value)
    for name in here.scores:
        assert np.array_equal(here.scores[name], there.scores[name]), name
    assert "this computer" in here.details["deterministic_computed_on"]
    assert there.details["deterministic_computed_on"] == "a test executor"


def test_the_report_says_where_each_part_ran():
    from engine.report.sections import computed_on

    where = "a private Ray instance on this computer (2 processors)"
    result = {"theory": {"model": {"computed_on": where}, "defences": {"computed_on": where},
                         "deterministic": {"computed_on": where},
                         "generalization_gap": {"gap": 0.1}}}
    assert computed_on(result) == [("the shadow and reference models", where),
                                   ("the defended models and their reference models", where),
                                   ("the deterministic proofs", where)]
