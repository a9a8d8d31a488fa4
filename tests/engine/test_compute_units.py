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
from engine.games import (
    aggregates_data,
    aggregates_membership,
    aggregates_scoring,
    aggregates_units,
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


def test_deterministic_targets_in_any_order_give_the_same_findings():
    # Every count released: two of the five targets are proved, three are not unique.
    config = AggregatesConfig(census_records=60, census_auxiliary=400, max_targets=5,
                              fraction=0.0, n_shadow=100, membership=False,
                              attacks=("desia_deterministic_only", "desia_no_verification"),
                              seed=3)
    here = G.play_aia(config)
    assert sorted(set(here.details["deterministic_status"])) == ["determined", "not_unique"]
    proved = here.determined
    assert np.array_equal(here.determined_value[proved], here.truth[proved])
    there = G.play_aia(config, executor=ShuffledExecutor())
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
                                   ("the attribute game's targets (proofs, learned guesses and "
                                    "reconstructions)", where)]
    # The count tables' other parts (issue 22 item 6): the membership game, a published
    # table's checks, the sweeps.
    count_tables = {"theory": {"deterministic": {"computed_on": where},
                               "membership": {"computed_on": where},
                               "published": {"computed_on": where},
                               "sweeps": {"noise": {"values": [1.0]}, "computed_on": where}}}
    assert [part for part, _ in computed_on(count_tables)] == [
        "the attribute game's targets (proofs, learned guesses and reconstructions)",
        "the membership game's targets", "the published table's checks",
        "the count-table sweeps"]


# --------------------------------------------------------------------------- count tables

# Every count released (so some targets are proved), six targets: two of each membership bit.
COUNT_TABLES = dict(census_records=60, census_auxiliary=400, max_targets=6, fraction=0.0,
                    n_shadow=100, reconstructions=2, seed=3)


def test_count_table_games_give_the_same_numbers_in_any_order_of_their_units():
    """Each target's stochastic module, reconstructions and membership proof are units: run
    last first on pickled copies they give the in-process numbers, which are those of the
    loops they replaced (result.json numbers equal before and after the change)."""
    config = AggregatesConfig(**COUNT_TABLES, attacks=("desia", "cip_rand", "data_only"),
                              mia_attacks=("desia_mia", "desia_mia_stochastic_only",
                                           "cip_rand_mia"))
    here, there = G.play_aia(config), G.play_aia(config, executor=ShuffledExecutor())
    assert here.scores.keys() == there.scores.keys()
    for name in here.scores:
        assert np.array_equal(here.scores[name], there.scores[name]), name
    # The stochastic module learned something: its scores are not one value for all.
    assert np.unique(here.scores["desia"]).size > 2
    mia_here, mia_there = aggregates_membership.play_mia(config), aggregates_membership.play_mia(config, executor=ShuffledExecutor())
    assert np.array_equal(mia_here.member, mia_there.member)
    assert np.array_equal(mia_here.determined_value, mia_there.determined_value)
    for name in mia_here.scores:
        assert np.array_equal(mia_here.scores[name], mia_there.scores[name]), name
    assert "this computer" in mia_here.computed_on and mia_there.computed_on == "a test executor"


def _stochastic_inputs(membership: bool):
    config = AggregatesConfig(**COUNT_TABLES)
    game, _ = G.setup_game(config, "aggregates-aia")
    s = game.codes.shape[1] - 1
    truth = rng(3, "test-stochastic-units").integers(0, game.domain.sizes[s], game.targets.size)
    released = G.released_per_target(config, game, truth)
    return game, aggregates_units.StochasticInputs(
        game.queries, released, game.codes[game.targets], s, game.aux_codes,
        game.codes.shape[0], game.domain, 100, "logistic", game.spec,
        float(game.base.sensitivity), 3, membership=membership)


def test_stochastic_units_give_the_rows_of_one_many_target_call():
    """A target's shadow datasets are seeded by the config's seed, the target's own key and the
    chunk's number, never by its place among the targets: one unit per target, run in any
    order, gives the rows of the one call over every target the game made before."""
    from engine.attacks.aggregates.desia_stochastic import (
        membership_score_many_targets,
        score_many_targets,
    )
    game, aia = _stochastic_inputs(membership=False)
    whole = np.array([r["probabilities"] for r in score_many_targets(
        aia.queries, aia.released, aia.target_codes, aia.sensitive_column, aia.aux_codes,
        aia.dataset_size, aia.domain, n_shadow=100, seed=3)])
    split = np.array(ShuffledExecutor().map(aggregates_units.stochastic_target, whole.shape[0], aia))
    assert np.array_equal(split, whole)
    _, mia = _stochastic_inputs(membership=True)
    whole = np.array([r["probability_member"] for r in membership_score_many_targets(
        mia.queries, mia.released, mia.target_codes, mia.aux_codes, mia.dataset_size,
        mia.domain, n_shadow=100, seed=3)])
    split = np.array(ShuffledExecutor().map(aggregates_units.stochastic_target, whole.shape[0], mia))
    assert np.array_equal(split, whole)


def test_rap_reconstructions_as_units_give_the_loop_numbers():
    """RAP (torch gradient descent) per target, last target first on pickled copies, against
    the loop over targets the game ran before."""
    from engine.attacks.aggregates import ATTRIBUTE_ATTACKS, RECONSTRUCTIONS

    config = AggregatesConfig(**{**COUNT_TABLES, "reconstructions": 1})
    game, _ = G.setup_game(config, "aggregates-aia")
    released = G.released_per_target(config, game, game.codes[game.targets, -1])
    view = G.game_view(config, game, released[:2], game.codes.shape[0])
    view = G.GameView(**{**view.__dict__, "target_codes": view.target_codes[:2]})
    readers = {"rap_rand": ATTRIBUTE_ATTACKS["rap_rand"]}
    split = aggregates_units.reconstruction_reads(readers, view, executor=ShuffledExecutor(),
                                    progress=NO_PROGRESS, cancel=NEVER)["rap_rand"]
    loop = np.array([ATTRIBUTE_ATTACKS["rap_rand"].read(
        RECONSTRUCTIONS["rap_rand"](view, i, NEVER), view, i) for i in range(2)])
    assert split.shape == (2, view.n_values) and np.array_equal(split, loop)


def test_rap_targets_trained_together_give_the_numbers_of_one_target_per_unit(monkeypatch):
    """On a GPU several targets' RAP reconstructions train as one unit
    (aggregates_units.targets_per_unit > 1, aggregates_units.reconstruct_targets); forced here on the CPU, three targets a
    unit (the last unit holding the rest), run last first on pickled copies, give the scores
    of one target per unit — RAP-rand and the synthetic-data ablation that reads the same
    reconstructions — while CIP-rand stays one target per unit beside them."""
    from engine.attacks.aggregates import ATTRIBUTE_ATTACKS

    config = AggregatesConfig(**{**COUNT_TABLES, "reconstructions": 1, "max_targets": 5})
    game, _ = G.setup_game(config, "aggregates-aia")
    released = G.released_per_target(config, game, game.codes[game.targets, -1])
    view = G.game_view(config, game, released, game.codes.shape[0])
    assert view.target_codes.shape[0] == 5
    readers = {n: ATTRIBUTE_ATTACKS[n] for n in ("rap_rand", "desia_synthetic", "cip_rand")}
    one = aggregates_units.reconstruction_reads(readers, view, executor=ShuffledExecutor(),
                                  progress=NO_PROGRESS, cancel=NEVER)
    seen = []

    class Recording(ShuffledExecutor):
        def map(self, unit, count, shared, **kw):
            seen.append((unit.__name__, count, sorted(shared.readers)))
            return super().map(unit, count, shared, **kw)

    monkeypatch.setattr(aggregates_units, "targets_per_unit", lambda view: 3)
    together = aggregates_units.reconstruction_reads(readers, view, executor=Recording(),
                                       progress=NO_PROGRESS, cancel=NEVER)
    assert seen == [("reconstruct_target", 5, ["cip_rand"]),
                    ("reconstruct_targets", 2, ["desia_synthetic", "rap_rand"])]
    assert list(together) == list(readers)
    for name in readers:
        assert np.array_equal(one[name], together[name]), name


def test_one_target_per_unit_on_a_cpu_and_several_on_a_gpu(monkeypatch):
    """The CPU keeps one target per unit (the work grows with the targets); a GPU takes up to
    64, fewer when one target's stack of models is large."""
    config = AggregatesConfig(**COUNT_TABLES)
    game, _ = G.setup_game(config, "aggregates-aia")
    view = G.game_view(config, game, np.zeros((1, len(game.queries))), game.codes.shape[0])
    monkeypatch.setattr(aggregates_units, "device", lambda: "cpu")
    assert aggregates_units.targets_per_unit(view) == 1
    monkeypatch.setattr(aggregates_units, "device", lambda: "cuda:0")
    assert aggregates_units.targets_per_unit(view) == 64
    big = G.GameView(**{**view.__dict__, "n_records": 100_000, "reconstructions": 10})
    per_target = 10 * 100_000 * len(game.queries)
    assert aggregates_units.targets_per_unit(big) == max(1, min(64, aggregates_units._GPU_ELEMENTS // per_target)) < 64


def test_sweep_points_in_any_order_give_the_same_sweep():
    from engine.games import aggregates_parts

    config = AggregatesConfig(**COUNT_TABLES, sweep_targets=5,
                              sweep_attacks=("cip_rand", "data_only"))
    data = aggregates_data.load_data(config)
    here = aggregates_parts.sweep(config, data, "epsilon", (1.0, 10.0), progress=NO_PROGRESS, cancel=NEVER)
    there = aggregates_parts.sweep(config, data, "epsilon", (1.0, 10.0), progress=NO_PROGRESS, cancel=NEVER,
                    executor=ShuffledExecutor())
    assert here["values"] == [10.0, 1.0]          # from the least noise to the most
    assert {k: v for k, v in here.items() if k != "computed_on"} == \
        {k: v for k, v in there.items() if k != "computed_on"}
    assert there["computed_on"] == "a test executor"
    assert here["attacks"]["cip_rand"][0] != here["attacks"]["cip_rand"][1]


def test_published_table_checks_in_any_order_give_the_same_findings():
    """Each combination's proof on a published table is a unit: run last first on pickled
    copies, the findings and the exposed records are those of the in-process run."""
    import engine.audits.aggregates as A

    config = AggregatesConfig(
        data=str(A.SAMPLE_AUXILIARY), schema=A.demo_config().schema, release="published",
        release_options={"path": str(A.SAMPLE_BLOCK.parent / "sample_published_p_tables.csv")},
        published_records=450, max_targets=5, membership=False)
    data = aggregates_data.load_data(config)
    here = aggregates_scoring.published_findings(config, data, progress=NO_PROGRESS, cancel=NEVER)
    there = aggregates_scoring.published_findings(config, data, progress=NO_PROGRESS, cancel=NEVER,
                                 executor=ShuffledExecutor())
    assert here[1] == there[1] and here[0]["determined"] > 0
    assert {k: v for k, v in here[0].items() if k != "computed_on"} == \
        {k: v for k, v in there[0].items() if k != "computed_on"}
    assert "this computer" in here[0]["computed_on"]
    assert there[0]["computed_on"] == "a test executor"


def test_the_likelihood_attacks_targets_as_units_give_the_loop_numbers():
    """The likelihood attack (paper 003 §7.2) per target is a unit (issue 22 item 6): last
    target first on pickled copies, through the game, the numbers of the loop over targets
    it replaced; the game sends it to the executor it is given."""
    from engine.attacks.aggregates import likelihood_scores
    from engine.attacks.aggregates.likelihood import likelihood_attack

    config = AggregatesConfig(**{**COUNT_TABLES, "attacks": ("likelihood",), "n_shadow": 200})
    game, _ = G.setup_game(config, "aggregates-aia")
    released = G.released_per_target(config, game, game.codes[game.targets, -1])
    view = G.game_view(config, game, released, game.codes.shape[0])
    loop = np.array([likelihood_attack(view.queries, view.released[i], view.target_codes[i],
                                       view.sensitive_column, view.aux_codes, view.n_records,
                                       view.domain, n_shadow=view.n_shadow,
                                       seed=view.seed)["probabilities"]
                     for i in range(view.target_codes.shape[0])])
    split = likelihood_scores(view, progress=NO_PROGRESS, cancel=NEVER,
                              executor=ShuffledExecutor())
    assert split.shape == loop.shape and np.array_equal(split, loop)
    sent = []

    class Recording(ShuffledExecutor):
        def map(self, unit, count, shared, **kw):
            sent.append(unit.__name__)
            return super().map(unit, count, shared, **kw)

    here = G.play_aia(config)
    there = G.play_aia(config, executor=Recording())
    assert "likelihood_target" in sent
    assert np.array_equal(here.scores["likelihood"], there.scores["likelihood"])
    assert np.unique(here.scores["likelihood"]).size > 1
