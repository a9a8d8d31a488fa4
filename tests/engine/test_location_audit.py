"""Location audit engine: the game's sampling is exact, the attacks compute what their papers
say, the job follows the contract (progress, cancel, seeds) and bad settings get sentences."""

from __future__ import annotations

import re

import numpy as np
import pytest
import scipy.sparse as sp
from scipy import stats

from engine.attacks.location import likelihood_ratio, two_threshold
from engine.attacks.location.base import AggregateSet, AttackData
from engine.audits import location as L
from engine.data.errors import InputError
from engine.games import location_repeats, location_setup
from engine.games.location import CellPool, play, unknown_counts
from engine.runtime import CancelToken, JobCancelled, Progress, rng

SMALL = dict(city_users=600, city_epochs=96, aggregate_size=99, test_aggregates=1000,
             shadow_aggregates=400, sweep_targets=2, sweep_test_aggregates=400,
             attacks=("one_threshold", "two_threshold", "reference", "likelihood_ratio"),
             target="observations", target_observations=15, seed=3)


def small_pool(seed=0, people=60, cells=4, density=0.3):
    g = np.random.default_rng(seed)
    dense = (g.random((people, cells)) < density).astype(np.uint8)
    return dense, CellPool.from_rows(sp.csr_matrix(dense))


def test_each_cell_count_is_exactly_hypergeometric():
    dense, pool = small_pool()
    n, draws = 20, 40_000
    counts = unknown_counts(pool, n, draws, rng(1, "t"))
    for c in range(dense.shape[1]):
        ones = int(dense[:, c].sum())
        support = np.arange(0, min(ones, n) + 1)
        expected = stats.hypergeom.pmf(support, dense.shape[0], ones, n) * draws
        observed = np.bincount(counts[:, c].astype(int), minlength=support.size)[:support.size]
        keep = expected > 5
        chi2 = ((observed[keep] - expected[keep]) ** 2 / expected[keep]).sum()
        assert stats.chi2.sf(chi2, keep.sum() - 1) > 1e-3, (c, observed, expected)


def test_cells_keep_their_joint_law_through_people_who_visit_several():
    # The total over cells is the sample sum of each person's visit count: finite-population
    # variance n (1 − n/P) S². Independent per-cell sampling would get it wrong.
    dense, pool = small_pool(seed=2, density=0.5)
    w = dense.sum(axis=1).astype(float)
    n, draws, people = 15, 60_000, dense.shape[0]
    total = unknown_counts(pool, n, draws, rng(2, "t")).sum(axis=1)
    var = n * (1 - n / people) * w.var(ddof=1)
    assert total.mean() == pytest.approx(n * w.mean(), rel=0.01)
    assert total.var() == pytest.approx(var, rel=0.03)


def test_inactive_people_count_in_the_pool_size():
    dense, _ = small_pool()
    padded = sp.vstack([sp.csr_matrix(dense), sp.csr_matrix((140, dense.shape[1]))])
    pool = CellPool.from_rows(padded)
    assert pool.n_active <= dense.shape[0] and pool.size == 200
    counts = unknown_counts(pool, 50, 20_000, rng(3, "t"))
    assert counts.mean(axis=0) == pytest.approx(dense.sum(axis=0) * 50 / 200, rel=0.03)


def test_play_without_noise_or_unknown_people_is_the_target_alone():
    _, pool = small_pool()
    z = np.array([1, 1, 0, 0], dtype=np.float32)
    s = play(z, pool, 0, 1000, "none", 1.0, rng(4, "t"))
    assert s.labels.sum() == 500
    assert np.array_equal(s.x, s.labels[:, None] * z[None, :])


def test_informed_likelihood_ratio_orders_like_the_clipped_sum_for_laplace():
    g = np.random.default_rng(5)
    k, n = 6, 2000
    y = g.random(n) < 0.5
    x = (g.laplace(0, 2.0, (n, k)) + y[:, None]).astype(np.float32)
    laws = likelihood_ratio.unknown_count_law(None, k)
    llr = likelihood_ratio.llr_scores(x, laws, "laplace", 2.0)
    clipped = np.clip(x, 0, 1).sum(axis=1)
    assert stats.spearmanr(llr, clipped).statistic == pytest.approx(1.0, abs=1e-9)
    # And it equals (Σ|x| − |x − 1|)/b exactly.
    assert llr == pytest.approx(((np.abs(x) - np.abs(x - 1)) / 2.0).sum(axis=1), abs=1e-6)


def test_per_cell_thresholds_match_brute_force():
    g = np.random.default_rng(6)
    values = np.round(g.normal(size=(300, 3)) + (g.random(300) < 0.5)[:, None], 1)
    labels = g.random(300) < 0.5
    tau = two_threshold.per_cell_thresholds(values, labels)
    for c in range(3):
        best = max((np.mean(values[labels, c] > t) - np.mean(values[~labels, c] > t))
                   for t in np.unique(values[:, c]))
        got = np.mean(values[labels, c] > tau[c]) - np.mean(values[~labels, c] > tau[c])
        assert got == pytest.approx(best)


def test_two_threshold_score_is_binomial_for_the_informed_attacker():
    g = np.random.default_rng(7)
    k, n, b = 20, 20_000, 2.0
    y = np.zeros(n, bool)
    y[: n // 2] = True
    x = (g.laplace(0, b, (n, k)) + y[:, None]).astype(np.float32)
    from engine.attacks.location.base import AggregateSet
    data = AttackData(k=k, target=np.ones(k, np.float32), shadow=AggregateSet(x, y, None),
                      test=AggregateSet(x, y, None), mechanism="laplace", scale=b)
    out = two_threshold.attack(data)
    p0 = 0.5 * np.exp(-0.5 / b)          # P(Lap(b) > ½): the per-cell threshold sits at ½
    assert np.allclose(out.details["per_cell_thresholds"], 0.5, atol=0.25)
    assert out.scores[~y].mean() / k == pytest.approx(p0, abs=0.02)
    assert out.scores[y].mean() / k == pytest.approx(1 - p0, abs=0.02)


class Recorder(Progress):
    def __init__(self):
        self.values = []
        super().__init__(lambda f, m: self.values.append(f))


def test_run_follows_the_job_contract_and_is_reproducible():
    config = L.LocationConfig(**SMALL)
    rec = Recorder()
    result = L.run(config, progress=rec).to_dict()
    assert rec.values[-1] == pytest.approx(1.0)
    assert [a["name"] for a in result["attacks"]] == list(SMALL["attacks"])
    theory = result["theory"]
    assert theory["observations"] == pytest.approx(15, abs=3)
    assert theory["target"]["id"] == "(redacted)"
    assert set(theory["sweep"]["attacks"]) == set(location_repeats.SWEEP_ATTACKS)
    exposed = result["exposed_records"][0]
    assert "people" not in exposed and exposed["count"] >= 1
    again = L.run(config).to_dict()
    assert [a["auc"] for a in again["attacks"]] == [a["auc"] for a in result["attacks"]]
    other = L.run(L.LocationConfig(**{**SMALL, "seed": 4})).to_dict()
    assert [a["auc"] for a in other["attacks"]] != [a["auc"] for a in result["attacks"]]


def test_cancel_stops_the_job():
    token = CancelToken()
    token.cancel()
    with pytest.raises(JobCancelled):
        L.run(L.LocationConfig(**SMALL), cancel=token)


def test_exposed_people_rule_is_the_exact_k_threshold():
    from engine.mechanisms.tradeoff import mechanism_tradeoff

    config = L.LocationConfig(**{**SMALL, "list_exposed_ids": True})
    result = L.run(config).to_dict()
    exposed = result["exposed_records"][0]
    k_star = exposed["min_observations"]
    scale = result["theory"]["noise_scale"]
    policy = config.policy

    def risky(k):
        t = mechanism_tradeoff("laplace", scale, 1.0, k)
        return t.tpr_at(policy.fpr) >= policy.high_tpr or t.accuracy() >= policy.high_accuracy
    assert risky(k_star) and not risky(k_star - 1)
    assert all(p["observations"] >= k_star for p in exposed["people"])
    assert len(exposed["people"]) == min(exposed["count"], 1000)


@pytest.mark.parametrize("change, key, words", [
    ({"aggregate_size": 5000}, "aggregate_size", "at most 299"),
    ({"aggregate_size": 400}, "aggregate_size", "300 left for releases"),
    ({"auxiliary_size": 599}, "auxiliary_size", "leaves nobody"),
    ({"target": "id", "target_id": "nobody"}, "target_id", "not among"),
])
def test_impossible_sizes_and_targets_get_sentences(change, key, words):
    with pytest.raises(InputError) as err:
        L.run(L.LocationConfig(**{**SMALL, **change}))
    assert err.value.key == key and words in str(err.value)


@pytest.mark.parametrize("d, key", [
    ({"clip_per_epoch": 0}, "clip_per_epoch"),
    ({"epsilon": 0}, "epsilon"),
    ({"epsilon": -1}, "epsilon"),
    ({"attacks": ["one_threshold", "magic"]}, "attacks"),
    ({"target": "id"}, "target_id"),
    ({"mechanism": "gaussian", "delta": 0}, "delta"),
    ({"known_fraction": 1.5}, "known_fraction"),
    ({"colour": "red"}, "colour"),
])
def test_bad_config_values_name_their_key(d, key):
    with pytest.raises(InputError) as err:
        L.LocationConfig.from_dict({"audit_type": "location", **d}, source="my.toml")
    assert err.value.key == key and "my.toml" in str(err.value)


def test_config_round_trips_through_its_dict():
    config = L.LocationConfig(**SMALL)
    assert L.LocationConfig.from_dict(config.to_dict()) == config


def _write_release(path, traces, clipped, rows, scale, seed):
    """A published release: the clipped traces of ``rows`` summed, Laplace noise per cell."""
    values = np.asarray(clipped[rows].sum(axis=0)).ravel().astype(float)
    values += np.random.default_rng(seed).laplace(0, scale, values.size)
    e, s = np.divmod(np.arange(values.size), traces.n_sites)
    lines = ["site,epoch,count"] + [f"{traces.site_labels[j]},{traces.epoch_labels[i]},{v:.3f}"
                                    for i, j, v in zip(e, s, values, strict=True)]
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    return path


def test_published_release_is_attacked_with_auxiliary_traces(tmp_path):
    from engine.data.traces import clip_per_epoch

    base = {**SMALL, "attacker": "auxiliary", "sweep_targets": 0, "target_observations": 40}
    config = L.LocationConfig(**base)
    traces, _ = location_setup.load_population(config)
    clipped = clip_per_epoch(traces, 1, rng(config.seed, "clipping"))
    target = location_setup.choose_target(config, traces, clipped, rng(0, "unused"))
    others = np.delete(np.arange(traces.n_users), target)
    released = np.random.default_rng(1).choice(others, 99, replace=False)
    scale = location_setup.cell_noise_scale(config)
    with_target = _write_release(tmp_path / "with.csv", traces, clipped,
                                 np.r_[released, target], scale, 2)
    without = _write_release(tmp_path / "without.csv", traces, clipped, released, scale, 2)
    verdicts = {}
    for name, path in (("with", with_target), ("without", without)):
        result = L.run(L.LocationConfig(**base, release=str(path))).to_dict()
        pub = result["theory"]["published_release"]
        verdicts[name] = pub["attacks"]["likelihood_ratio"]
        assert result["inputs"][-1]["sha256"] and "published release" in result["summary"]
    assert verdicts["with"]["score"] > verdicts["without"]["score"]
    assert verdicts["with"]["share_absent_at_least"] < verdicts["without"]["share_absent_at_least"]


def test_published_release_needs_the_auxiliary_attacker():
    with pytest.raises(InputError) as err:
        L.LocationConfig.from_dict({"release": "r.csv", "attacker": "informed"})
    assert err.value.key == "attacker"


def test_torch_sampling_path_draws_the_same_law():
    """The GPU path (torch.topk + a selection matmul) run here on the CPU: each cell's count
    is hypergeometric and the total keeps the finite-population variance."""
    dense, pool = small_pool(seed=8, density=0.4)
    n, draws, people = 20, 30_000, dense.shape[0]
    counts = unknown_counts(pool, n, draws, rng(8, "t"), device="cpu")
    for c in range(dense.shape[1]):
        ones = int(dense[:, c].sum())
        assert counts[:, c].mean() == pytest.approx(n * ones / people, rel=0.02)
        assert counts[:, c].var() == pytest.approx(
            stats.hypergeom.var(people, ones, n), rel=0.05)
    w = dense.sum(axis=1).astype(float)
    assert counts.sum(axis=1).var() == pytest.approx(n * (1 - n / people) * w.var(ddof=1),
                                                     rel=0.05)


def test_alg7_per_cell_thresholds_hold_their_fpr_on_shadows():
    g = np.random.default_rng(9)
    values = g.laplace(0, 2.0, (20_000, 5)) + (np.arange(20_000) % 2 == 0)[:, None]
    labels = np.arange(20_000) % 2 == 0
    tau = two_threshold.per_cell_thresholds_at_fpr(values, labels, 0.2)
    assert np.mean(values[~labels] > tau[None, :], axis=0) == pytest.approx([0.2] * 5, abs=1e-3)


def test_repetitions_replay_the_game_with_fresh_releases():
    config = L.LocationConfig(**{**SMALL, "repetitions": 3, "sweep_targets": 0,
                                 "attacks": ("one_threshold", "likelihood_ratio")})
    result = L.run(config).to_dict()
    for a in result["attacks"]:
        reps = a["details"]["repetitions"]
        assert len(reps["accuracy"]) == 3 and reps["accuracy"][0] == a["accuracy"]
        assert len(set(reps["accuracy"])) > 1 and reps["accuracy_sd"] > 0


TINY = dict(city_users=200, city_epochs=24, test_aggregates=100, shadow_aggregates=50,
            sweep_targets=2, sweep_test_aggregates=50, attacks=("one_threshold",),
            target="observations", target_observations=5, repetitions=1, seed=4)


@pytest.mark.parametrize("setting", [
    {"attacker": "informed"},
    {"attacker": "informed", "auxiliary_size": 150},
    {"attacker": "auxiliary"},
    # 100 in the auxiliary pool, 99 left for releases: n = 99 used to be accepted and then
    # crashed in the observation sweep ("cannot draw 99 people from a pool of 98").
    {"attacker": "auxiliary", "auxiliary_size": 100},
    {"attacker": "partial", "known_fraction": 0.3, "auxiliary_size": 30},
    {"attacker": "informed", "sweep_targets": 0, "auxiliary_size": 120},
])
def test_the_suggested_aggregate_size_is_the_largest_that_runs(setting):
    """Issue 18: for n above the population the hint offered the population's size, which the
    pools then refused. The size a refusal suggests must run, and one more must be refused."""
    with pytest.raises(InputError) as err:
        L.run(L.LocationConfig(**{**TINY, **setting, "aggregate_size": 10_000}))
    assert err.value.key == "aggregate_size"
    suggested = int(re.search(r"at most ([\d,]+)", str(err.value)).group(1).replace(",", ""))
    assert suggested >= 1
    result = L.run(L.LocationConfig(**{**TINY, **setting, "aggregate_size": suggested}))
    assert result.to_dict()["attacks"]
    with pytest.raises(InputError) as err:
        L.run(L.LocationConfig(**{**TINY, **setting, "aggregate_size": suggested + 1}))
    assert err.value.key == "aggregate_size" and f"at most {suggested:,}" in str(err.value)


# --------------------------------------------------------------------------- issue 22, item 4

def test_each_repetition_redraws_the_attackers_split_reproducibly():
    """The people are split afresh into the attacker's pool and the release pool in every
    repetition r ≥ 1 (seeded by the config's seed and r), keeping the target and the sizes."""
    config = L.LocationConfig(**SMALL)
    first = location_repeats.split_for_repetition(config, 600, 17, 250, 1)
    again = location_repeats.split_for_repetition(config, 600, 17, 250, 1)
    second = location_repeats.split_for_repetition(config, 600, 17, 250, 2)
    other_seed = location_repeats.split_for_repetition(L.LocationConfig(**{**SMALL, "seed": 4}), 600, 17, 250, 1)
    for aux, release in (first, second):
        assert aux.size == 250 and release.size == 349
        assert np.intersect1d(aux, release).size == 0 and 17 not in aux and 17 not in release
        assert np.array_equal(np.sort(np.r_[aux, release]), np.delete(np.arange(600), 17))
    assert np.array_equal(first[0], again[0]) and np.array_equal(first[1], again[1])
    assert not np.array_equal(first[0], second[0])
    assert not np.array_equal(first[0], other_seed[0])


def test_repetitions_replay_with_fresh_splits_and_report_their_spread():
    config = L.LocationConfig(**{**SMALL, "repetitions": 3, "sweep_targets": 0,
                                 "attacker": "auxiliary", "auxiliary_size": 250,
                                 "attacks": ("one_threshold", "two_threshold")})
    result = L.run(config).to_dict()
    overview = result["theory"]["repetitions"]
    assert overview["count"] == 3 and overview["split_redrawn"] is True
    # Repetition 0 is the run's own pool; the others share only part of it.
    assert overview["auxiliary_pool_overlap"][0] == 1.0
    assert all(0 < share < 0.9 for share in overview["auxiliary_pool_overlap"][1:])
    for a in result["attacks"]:
        reps = a["details"]["repetitions"]
        for key in ("accuracy", "auc"):
            values = [reps[f"{key}_{s}"] for s in ("mean", "sd", "min", "max")]
            assert all(np.isfinite(values)), (a["name"], key, values)
            assert reps[f"{key}_min"] <= reps[f"{key}_mean"] <= reps[f"{key}_max"]
            assert reps[f"{key}_min"] == min(reps[key]) and reps[f"{key}_max"] == max(reps[key])
        half = 0.5 * (a["accuracy_ci"][1] - a["accuracy_ci"][0])
        assert reps["accuracy_ci_half_width"] == pytest.approx(half)
        assert isinstance(reps["sentence"], str)
    assert L.LocationConfig.from_dict(result["config"]) == config


def test_repetition_zero_is_the_run_without_repetitions():
    """Same seed ⇒ the first repetition's numbers are today's: redrawing the split in later
    repetitions must not shift the first run's streams."""
    base = {**SMALL, "attacker": "partial", "known_fraction": 0.5}
    once = L.run(L.LocationConfig(**base)).to_dict()
    thrice = L.run(L.LocationConfig(**{**base, "repetitions": 3})).to_dict()
    for a, b in zip(once["attacks"], thrice["attacks"], strict=True):
        reps = b["details"].pop("repetitions")
        assert a == b
        assert reps["accuracy"][0] == a["accuracy"] and reps["auc"][0] == a["auc"]
    thrice["theory"].pop("repetitions")
    assert once["theory"] == thrice["theory"]
    # The summary adds the mean over the repetitions (issue 32 item 6); the rest is today's.
    extra = re.compile(r" Over the 3 repetitions of the game .*?the one the tables show\.")
    assert extra.search(thrice["summary"])
    assert extra.sub("", thrice["summary"]) == once["summary"]


def test_midpoint_rule_is_paper_000_alg5_on_a_hand_made_example():
    # Two cells; members are rows 0, 1, 4 and non-members rows 2, 3, 5.
    values = np.array([[5.0, 2.0], [7.0, 4.0], [1.0, 0.0], [3.0, 1.0], [6.0, 3.0], [2.0, 5.0]])
    labels = np.array([True, True, False, False, True, False])
    # T_le = ½(μ⁰ + μ¹): cell 0 ½((1+3+2)/3 + (5+7+6)/3) = ½(2 + 6) = 4;
    # cell 1 ½((0+1+5)/3 + (2+4+3)/3) = ½(2 + 3) = 2.5.
    assert two_threshold.per_cell_midpoints(values, labels).tolist() == [4.0, 2.5]
    data = AttackData(k=2, target=np.ones(2, np.float32),
                      shadow=AggregateSet(values.astype(np.float32), labels, None),
                      test=AggregateSet(values.astype(np.float32), labels, None),
                      mechanism="laplace", scale=1.0)
    out = two_threshold.attack(data, rule="midpoint")
    assert out.details["per_cell_thresholds"] == [4.0, 2.5]
    assert out.details["threshold_rule"] == "midpoint"
    assert "halfway" in out.details["per_cell_rule"] and out.details["paper"].endswith("Alg. 4, 5")
    # Alg. 4 counts the cells above their thresholds: row 0 is above in cell 0 only.
    assert out.scores.tolist() == [1.0, 2.0, 0.0, 0.0, 2.0, 1.0]
    best = two_threshold.attack(data)
    assert best.details["threshold_rule"] == "best_accuracy"
    assert best.details["per_cell_thresholds"] == two_threshold.per_cell_thresholds(
        values.astype(np.float32), labels).tolist()


def test_threshold_rule_reaches_the_attack_and_conflicts_get_a_sentence():
    config = L.LocationConfig(**{**SMALL, "sweep_targets": 0, "attacks": ("two_threshold",),
                                 "threshold_rule": "midpoint"})
    (a,) = L.run(config).to_dict()["attacks"]
    assert a["details"]["threshold_rule"] == "midpoint"
    with pytest.raises(InputError) as err:
        L.LocationConfig.from_dict({"threshold_rule": "midpoint", "per_cell_fpr": 0.1})
    assert err.value.key == "threshold_rule" and err.value.setting == "threshold_rule"
    assert "set that false-positive rate to 0" in str(err.value)
    with pytest.raises(InputError) as err:
        L.LocationConfig.from_dict({"threshold_rule": "median"})
    assert err.value.key == "threshold_rule"



def test_the_exposed_count_names_the_line_it_counts():
    """Walk-through 2026-11-26: "14,234 of 16,000 people are exposed as much or more" after
    "the most exposed person" read as a contradiction; the count is of everyone the best
    possible attacker puts over the high-risk line, so the sentence says that line."""
    from engine.games.location_theory import exposed_sentence as _exposed_sentence

    assert _exposed_sentence({"count": 14234, "population": 16000, "min_observations": 40}) == (
        "14,234 of 16,000 people are at high risk: the best possible attacker reaches the "
        "verdict's high-risk line for anyone seen in 40 or more of the released counts.")
    assert "in any of the released counts" in _exposed_sentence(
        {"count": 5, "population": 9, "min_observations": 1})
    assert _exposed_sentence({"count": 0, "population": 9, "min_observations": None}).startswith(
        "None of the 9 people")
