"""Claims of paper 003 on a synthetic census block (engine only: the aggregates audit is not
registered yet).

Setting (seed 7): a block of 150 records with 1,500 auxiliary records, race as the sensitive
value re-drawn uniformly for each target (the AIA game, Fig. 2), the Census P-tables released
(all 368 cells unless a test says otherwise), K = 5 reconstructions for CIP and RAP, 2,000
shadow datasets (1,000 in the MIA game, Fig. 9). Every target unique on its quasi-identifiers
is attacked: 79 at this seed (``max_targets`` = 80).

Statistical readings, all at 95 % (AIA AUCs pool the (target, value) pairs one-vs-rest, with
the target-clustered DeLong interval of ``evaluate``; MIA AUCs with DeLong, one trial per
target):

* **strict** — A's lower bound above B's upper bound.
* **paired** — the interval of AUC(A) − AUC(B) *on the same targets* lies above 0 (percentile
  interval of 4,000 seeded bootstrap resamples of the targets; a resampled target brings all
  of its pairs, so the within-target correlation is kept), and A's lower bound is above B's
  point estimate. Non-overlap of two intervals is a test at roughly the 0.5 % level; the
  paired reading is the 2.5 % one-sided test the sample supports. It is used where a block's
  79 targets do not give the strict reading; the measured intervals are in each docstring.
* **above chance** — the lower bound above 0.5; **at chance** — the interval covers 0.5: the
  attack cannot be told from random guessing at this size (absence of evidence, no proof).
"""

from __future__ import annotations

from functools import cache

import numpy as np
import pytest

from engine.audits.aggregates import AggregatesConfig, evaluate, play_aia

SETTING = dict(census_records=150, census_auxiliary=1500, max_targets=80, reconstructions=5,
               seed=7)
# RAP costs ~2 s a target on 2 cores (K = 5, 1,500 epochs): it runs in the full-release game
# only, where the claim needs it.
FULL_ATTACKS = ("desia", "desia_no_verification", "desia_stochastic_only", "cip_rand",
                "rap_rand", "data_only")
OTHER_ATTACKS = ("desia", "cip_rand", "data_only")


@cache
def game(fraction, epsilon=None):
    """(outcome, attacks by name) of the AIA game; ``fraction`` None = every P-table cell,
    ``epsilon`` = Laplace noise per query (§5.6)."""
    noise = {} if epsilon is None else {"mechanism": "laplace", "epsilon": epsilon,
                                        "budget": "per_query"}
    attacks = FULL_ATTACKS if fraction is None and epsilon is None else OTHER_ATTACKS
    config = AggregatesConfig(n_shadow=2000, fraction=fraction, attacks=attacks, **SETTING,
                              **noise)
    outcome = play_aia(config)
    return outcome, {a["name"]: a for a in evaluate(config, outcome)}


def paired_auc_gap(a, b, labels, clusters, *, n_boot: int = 4000, seed: int = 0,
                   confidence: float = 0.95) -> tuple[float, tuple[float, float]]:
    """AUC(a) − AUC(b) on the same trials, with a percentile interval from resampling the
    clusters (targets) with replacement. Exact per resample: the Mann–Whitney counts between
    every cluster pair are tabulated once, and a resample is a vector of cluster weights w,
    AUC = wᵀ C w / ((w·n₊)(w·n₋))."""
    y = np.asarray(labels, dtype=bool).ravel()
    c = np.asarray(clusters).ravel()
    k = int(c.max()) + 1

    def table(scores):
        s = np.asarray(scores, dtype=float).ravel()
        pos, neg = s[y], s[~y]
        cmp = (pos[:, None] > neg[None, :]) + 0.5 * (pos[:, None] == neg[None, :])
        by_pos = np.zeros((k, neg.size))
        np.add.at(by_pos, c[y], cmp)
        out = np.zeros((k, k))
        np.add.at(out.T, c[~y], by_pos.T)
        return out

    ta, tb = table(a), table(b)
    n_pos, n_neg = np.bincount(c[y], minlength=k), np.bincount(c[~y], minlength=k)
    w = np.random.default_rng(seed).multinomial(k, np.full(k, 1.0 / k), size=n_boot)
    w = np.vstack([np.ones(k), w]).astype(float)          # row 0: the sample itself
    den = (w @ n_pos) * (w @ n_neg)
    gaps = (np.einsum("bi,ij,bj->b", w, ta, w) - np.einsum("bi,ij,bj->b", w, tb, w)) / den
    lo, hi = np.quantile(gaps[1:], [(1 - confidence) / 2, (1 + confidence) / 2])
    return float(gaps[0]), (float(lo), float(hi))


def aia_gap(outcome_a, name_a, outcome_b, name_b):
    """Paired AUC gap of two AIA attacks (possibly from two games on the same targets)."""
    assert np.array_equal(outcome_a.targets, outcome_b.targets)
    assert np.array_equal(outcome_a.truth, outcome_b.truth)
    sa, sb = outcome_a.scores[name_a], outcome_b.scores[name_b]
    t, v = sa.shape
    member = np.zeros((t, v), dtype=bool)
    member[np.arange(t), outcome_a.truth] = True
    return paired_auc_gap(sa, sb, member, np.repeat(np.arange(t), v))


def assert_paired_win(gap, winner: dict, loser: dict) -> None:
    diff, (lo, _) = gap
    assert lo > 0.0, (winner["name"], loser["name"], gap)
    assert winner["auc_ci"][0] > loser["auc"], (winner["name"], winner["auc_ci"], loser["auc"])


@pytest.mark.slow
def test_every_deterministically_vulnerable_target_is_truly_determined_and_right():
    outcome, _ = game(None)
    assert outcome.determined.sum() >= 1
    assert (outcome.determined_value[outcome.determined]
            == outcome.truth[outcome.determined]).all()


@pytest.mark.slow
def test_the_deterministic_module_only_adds_to_the_stochastic_one():
    _, attacks = game(None)
    assert attacks["desia"]["auc"] >= attacks["desia_stochastic_only"]["auc"] - 1e-12


@pytest.mark.slow
def test_more_released_aggregates_raise_desia_success():
    _, few = game(0.25)
    _, many = game(None)
    assert many["desia"]["auc_ci"][0] > few["desia"]["auc_ci"][1]


@pytest.mark.slow
def test_more_released_aggregates_raise_every_attacks_success():
    """Paper 003 §5.3, Fig. 6: "increasing the number of released aggregates increases the
    risk on average and lifts the performance of all methods". Here m/|D| = 0.25 (38 cells)
    against the full P-tables (368 cells), same targets and secrets; reading: paired, for
    DeSIA and for CIP-rand (RAP-rand is not re-run at 0.25 here: ~3 min on 2 cores).

    Measured (seed 7, 79 targets): DeSIA 0.566 [0.500, 0.631] → 0.783 [0.728, 0.838], gap
    0.217 [0.146, 0.285]; CIP-rand 0.503 [0.437, 0.569] → 0.644 [0.576, 0.711], gap 0.141
    [0.058, 0.222] (the strict reading holds too, by 0.007); RAP-rand, measured once, 0.524
    [0.459, 0.589] → 0.689 [0.621, 0.758], gap 0.165 [0.085, 0.247].
    """
    few_outcome, few = game(0.25)
    many_outcome, many = game(None)
    for name in ("desia", "cip_rand"):
        assert_paired_win(aia_gap(many_outcome, name, few_outcome, name), many[name],
                          few[name])


@pytest.mark.slow
def test_removing_verification_lowers_desia_auc():
    _, attacks = game(None)
    assert attacks["desia"]["auc_ci"][0] > attacks["desia_no_verification"]["auc_ci"][1]


@pytest.mark.slow
def test_desia_beats_the_data_only_guess():
    _, attacks = game(None)
    assert attacks["desia"]["auc_ci"][0] > attacks["data_only"]["auc_ci"][1]


@pytest.mark.slow
def test_desia_beats_the_cip_and_rap_reconstruction_attacks():
    """Paper 003 §5.1, Fig. 1: DeSIA outperforms every reconstruction-based attack (PPMF: AUC
    0.75 against 0.63 for CIP-rand and 0.59 for RAP-rand). Reading: paired, on the full
    P-tables.

    Measured (seed 7, 79 targets): DeSIA 0.783 [0.728, 0.838], CIP-rand 0.644 [0.576, 0.711]
    (strict reading holds too), RAP-rand 0.689 [0.621, 0.758] (strict does not: the intervals
    overlap); paired gaps 0.139 [0.074, 0.206] and 0.093 [0.023, 0.165]. At the paper's
    m/|D| = 0.25 a 150-record block releases only 38 cells and every attack is near chance
    (DeSIA 0.566 [0.500, 0.631], CIP-rand 0.503, RAP-rand 0.524; gaps 0.063 [−0.030, 0.153]
    and 0.041 [−0.036, 0.118]): the claim is not shown there at this size.
    """
    outcome, attacks = game(None)
    for other in ("cip_rand", "rap_rand"):
        assert_paired_win(aia_gap(outcome, "desia", outcome, other), attacks["desia"],
                          attacks[other])


@pytest.mark.slow
def test_cip_falls_to_chance_under_laplace_noise_while_desia_stays_above():
    """Paper 003 §5.6, Fig. 8: with Laplace noise per statistic "CIP ... struggles to perform
    better than the random guess baseline when faced with larger levels of noise" while DeSIA
    stays robust. Reading: without noise CIP-rand is above chance; at ε = 1 per query CIP-rand
    is at chance while DeSIA is still above chance.

    Measured (seed 7, 79 targets; the noise-free game above): CIP-rand 0.644 [0.576, 0.711]
    without noise; ε = 2: DeSIA 0.661 [0.598, 0.725], CIP-rand 0.566 [0.500, 0.633]; ε = 1:
    DeSIA 0.604 [0.536, 0.672], CIP-rand 0.534 [0.467, 0.602]; ε = 0.7: DeSIA 0.567 [0.497,
    0.637], CIP-rand 0.519 [0.455, 0.582]; at ε = 0.5 and 0.1 (40 targets) every attack is at
    chance. The paired gap DeSIA − CIP-rand is significant at ε = 2 (0.095 [0.022, 0.166]) but
    not at ε = 1 (0.069 [−0.003, 0.141]): "CIP falls first" rests on the two attacks' own
    intervals, not on a significant difference between them at that level. RAP-rand (40
    targets, measured once): ε = 2 0.600 [0.490, 0.710], ε = 0.5 0.556 [0.469, 0.642] — not
    shown above chance where CIP falls, so it is not part of the claim here.
    """
    _, clean = game(None)
    _, noisy = game(None, 1.0)
    assert clean["cip_rand"]["auc_ci"][0] > 0.5
    lo, hi = noisy["cip_rand"]["auc_ci"]
    assert lo <= 0.5 <= hi, (lo, hi)
    assert noisy["desia"]["auc_ci"][0] > 0.5, noisy["desia"]["auc_ci"]


@pytest.mark.slow
def test_exposed_records_name_the_cells_that_pin_them_down():
    from engine.audits.aggregates import exposed_records

    outcome, _ = game(None)
    exposed = exposed_records(outcome)
    assert len(exposed) == int(outcome.determined.sum())
    for entry in exposed:
        assert entry["record"] == "(redacted)" and entry["value_correct"]
        assert entry["pinning_cells"] and entry["tables"]


@cache
def mia_game():
    from engine.audits.aggregates import play_mia

    config = AggregatesConfig(n_shadow=1000, fraction=None,
                              mia_attacks=("desia_mia", "desia_mia_stochastic_only",
                                           "cip_rand_mia"), **SETTING)
    return play_mia(config)


@pytest.mark.slow
def test_desia_mia_memberships_it_proves_are_right_and_it_beats_chance():
    from engine.metrics import delong_auc_ci

    outcome = mia_game()
    assert outcome.determined.sum() >= 1
    assert (outcome.determined_value[outcome.determined]
            == outcome.member[outcome.determined]).all()
    auc, (lo, _) = delong_auc_ci(outcome.scores["desia_mia"], outcome.member)
    assert lo > 0.5, auc
    auc_stochastic = delong_auc_ci(outcome.scores["desia_mia_stochastic_only"],
                                   outcome.member)[0]
    assert auc >= auc_stochastic - 1e-12


@pytest.mark.slow
def test_desia_mia_beats_the_cip_reconstruction_mia():
    """Paper 003 §6.3, Fig. 10: DeSIA-MIA (AUC 0.85) "substantially" outperforms the
    reconstruction MIAs; CIP's adaptation is no better than a random guess. Reading: paired
    (one trial per target, resampled).

    Measured (seed 7, 79 targets, 30 members): DeSIA-MIA 0.800 [0.705, 0.895], CIP-rand MIA
    0.619 [0.507, 0.731], gap 0.181 [0.037, 0.315] (the intervals overlap: strict does not
    hold). RAP-rand MIA, measured once (not re-run: ~3 min on 2 cores): 0.635 [0.515, 0.754],
    gap 0.165 [0.023, 0.310]. Unlike the paper, CIP's MIA is (just) above chance here.
    """
    from engine.metrics import delong_auc_ci

    outcome = mia_game()
    n = outcome.member.size
    desia = delong_auc_ci(outcome.scores["desia_mia"], outcome.member)
    cip = delong_auc_ci(outcome.scores["cip_rand_mia"], outcome.member)
    gap = paired_auc_gap(outcome.scores["desia_mia"], outcome.scores["cip_rand_mia"],
                         outcome.member, np.arange(n))
    assert_paired_win(gap, {"name": "desia_mia", "auc": desia[0], "auc_ci": desia[1]},
                      {"name": "cip_rand_mia", "auc": cip[0], "auc_ci": cip[1]})
