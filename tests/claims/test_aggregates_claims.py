"""Claims of paper 003 on a synthetic census block (engine only: the aggregates audit is not
registered yet).

Setting (seed 7): a block of 150 records with 1,500 auxiliary records, race as the sensitive
value re-drawn uniformly for each target (the AIA game, Fig. 2), the Census P-tables released
(all 368 cells unless a test says otherwise), K = 5 reconstructions for CIP and RAP, 2,000
shadow datasets (1,000 in the MIA game, Fig. 9). Every target unique on its quasi-identifiers
is attacked: 79 at this seed (``max_targets`` = 80). Where one block's targets are too few
for the effect (DeSIA against CIP, AIA and MIA), three blocks — seeds 7, 8 and 9, 232 targets —
are pooled: their targets are independent, so they pool as clusters of one sample.

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

from engine.audits.aggregates import AggregatesConfig
from engine.games.aggregates import play_aia
from engine.games.aggregates_scoring import evaluate

# About 6 minutes on 2 cores (the three blocks' games, RAP's 1,500 epochs a target): run by
# `make test-claims`, not `make test` (issue 18). Sizes are the claims' own (module docstring).
pytestmark = pytest.mark.claims

SETTING = dict(census_records=150, census_auxiliary=1500, max_targets=80, reconstructions=5,
               seed=7)
# RAP costs ~2 s a target on 2 cores (K = 5, 1,500 epochs): it runs in the full-release game
# only, where the claim needs it.
FULL_ATTACKS = ("desia", "desia_no_verification", "desia_stochastic_only", "cip_rand",
                "rap_rand", "best_of", "data_only")
OTHER_ATTACKS = ("desia", "cip_rand", "best_of", "data_only")


BLOCKS = 3          # pooled blocks (seeds 7, 8, 9) for the DeSIA-against-CIP claims


def game(fraction, epsilon=None, block=0):
    """(outcome, attacks by name) of the AIA game; ``fraction`` None = every P-table cell,
    ``epsilon`` = Laplace noise per query (§5.6); ``block`` > 0 = another block (seed + block),
    played with DeSIA, CIP-rand and the data-only guess. Cached on the normalised arguments
    (``functools.cache`` alone would play game(None) and game(None, block=0) twice)."""
    return _game(fraction, epsilon, block)


@cache
def _game(fraction, epsilon, block):
    noise = {} if epsilon is None else {"mechanism": "laplace", "epsilon": epsilon,
                                        "budget": "per_query"}
    attacks = FULL_ATTACKS if (fraction, epsilon, block) == (None, None, 0) else OTHER_ATTACKS
    setting = dict(SETTING, seed=SETTING["seed"] + block)
    config = AggregatesConfig(n_shadow=2000, fraction=fraction, attacks=attacks, **setting,
                              **noise)
    outcome = play_aia(config)
    return outcome, {a["name"]: a for a in evaluate(config, outcome)}


def pooled_aia(names, blocks=BLOCKS, epsilon=None):
    """Scores of ``names`` over the full-release games of ``blocks`` blocks at ``epsilon``
    (None = exact counts), stacked: (scores by name as (pairs,) arrays, member (pairs,),
    clusters (pairs,): one cluster per target)."""
    scores = {name: [] for name in names}
    member, clusters, offset = [], [], 0
    for b in range(blocks):
        outcome, _ = game(None, epsilon, block=b)
        t, v = outcome.scores[names[0]].shape
        m = np.zeros((t, v), dtype=bool)
        m[np.arange(t), outcome.truth] = True
        for name in names:
            scores[name].append(outcome.scores[name].ravel())
        member.append(m.ravel())
        clusters.append(offset + np.repeat(np.arange(t), v))
        offset += t
    return ({name: np.concatenate(x) for name, x in scores.items()}, np.concatenate(member),
            np.concatenate(clusters))


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
    [0.459, 0.589] → 0.689 [0.621, 0.758], gap 0.165 [0.085, 0.247]. Seeds 8 and 9: DeSIA
    gaps 0.251 [0.184, 0.321] and 0.235 [0.155, 0.318], CIP-rand 0.227 [0.136, 0.313] and
    0.271 [0.172, 0.362].
    """
    few_outcome, few = game(0.25)
    many_outcome, many = game(None)
    for name in ("desia", "cip_rand"):
        assert_paired_win(aia_gap(many_outcome, name, few_outcome, name), many[name],
                          few[name])


@pytest.mark.slow
def test_removing_verification_lowers_desia_auc():
    """Table 3 order (strict reading). Holds at seed 7; not at seed 8 (DeSIA 0.807 [0.751,
    0.863], without verification 0.738 [0.674, 0.801]: overlapping) nor at seed 9 (0.796
    against 0.832: reversed) — one 150-record block does not carry this claim at every seed."""
    _, attacks = game(None)
    assert attacks["desia"]["auc_ci"][0] > attacks["desia_no_verification"]["auc_ci"][1]


@pytest.mark.slow
def test_desia_beats_the_data_only_guess():
    _, attacks = game(None)
    assert attacks["desia"]["auc_ci"][0] > attacks["data_only"]["auc_ci"][1]


@pytest.mark.slow
def test_desia_beats_the_cip_reconstruction_attack():
    """Paper 003 §5.1, Fig. 1: DeSIA outperforms the reconstruction-based attacks (PPMF: AUC
    0.75 against 0.63 for CIP-rand). Reading: paired, on the full P-tables, three blocks
    pooled (232 targets).

    Per block (79 / 80 / 73 targets), DeSIA against CIP-rand: seed 7 0.783 [0.728, 0.838]
    against 0.644 [0.576, 0.711], paired gap 0.139 [0.074, 0.206]; seed 8 0.807 against 0.759,
    gap 0.048 [−0.027, 0.120]; seed 9 0.796 against 0.784, gap 0.012 [−0.058, 0.089]. One
    block's targets do not show the gap at every seed (the effect is smaller than the paper's
    and varies between blocks). Pooled: DeSIA 0.795 [0.762, 0.829], CIP-rand 0.730 [0.691,
    0.768] (the strict reading misses by 0.006), paired gap 0.066 [0.025, 0.107]. At the
    paper's m/|D| = 0.25 a 150-record block releases only 38 cells and every attack is near
    chance (seed 7: DeSIA 0.566 [0.500, 0.631], CIP-rand 0.503; gap 0.063 [−0.030, 0.153]):
    not shown there at this size.
    """
    from engine.metrics import clustered_auc_ci

    scores, member, clusters = pooled_aia(("desia", "cip_rand"))
    desia = clustered_auc_ci(scores["desia"], member, clusters)
    cip = clustered_auc_ci(scores["cip_rand"], member, clusters)
    gap = paired_auc_gap(scores["desia"], scores["cip_rand"], member, clusters)
    assert_paired_win(gap, {"name": "desia", "auc": desia[0], "auc_ci": desia[1]},
                      {"name": "cip_rand", "auc": cip[0], "auc_ci": cip[1]})


@pytest.mark.slow
def test_desia_beats_the_rap_reconstruction_attack():
    """Paper 003 §5.1, Fig. 1: DeSIA outperforms the reconstruction-based attacks (PPMF: AUC
    0.75 against 0.59 for RAP-rand). Reading: paired, on the full P-tables, one block (RAP
    costs ~2 s a target on 2 cores, so it is not pooled over three blocks).

    Measured: seed 7 DeSIA 0.783 [0.728, 0.838], RAP-rand 0.689 [0.621, 0.758] (the
    intervals overlap: the strict reading does not hold), paired gap 0.093 [0.023, 0.165].
    Other blocks: seed 8 0.807 against 0.727, gap 0.080 [0.026, 0.136]; seed 9 0.796 against
    0.767, gap 0.029 [−0.031, 0.089] — at seed 9 this single-block test fails: one block is
    not always enough for this claim either.
    """
    outcome, attacks = game(None)
    assert_paired_win(aia_gap(outcome, "desia", outcome, "rap_rand"), attacks["desia"],
                      attacks["rap_rand"])


@pytest.mark.slow
@pytest.mark.parametrize("epsilon", [None, 1.0], ids=["exact", "laplace-eps-1"])
def test_the_combination_is_at_least_as_strong_as_desia_and_cip(epsilon):
    """Issue 22 item 3. This replaces the claim "CIP falls to chance under Laplace noise (ε = 1
    per count) while DeSIA stays above" (paper 003 §5.6, Fig. 8), which is not true in
    general: it held on seed 7's synthetic block (CIP-rand 0.534 [0.467, 0.602], DeSIA 0.604
    [0.536, 0.672]) but not on seed 9's (CIP-rand 0.616 [0.546, 0.687], above chance), and it
    reverses on a public census table (openintro "census", 500 people, 3-way marginals,
    ε = 1: CIP-rand above DeSIA; numbers in docs/methods/aggregates_audit.md, "Real
    census-like tables", and bench/study_census_tables.py). Which of the two scorers wins
    depends on the table, so the product plays the combination "best_of": the proofs, then
    whichever of the stochastic module and CIP-rand ranks the truth better on a shadow game
    the attacker plays on its own auxiliary sample. (The reversal on public tables came from
    the published stochastic module's shadows, which re-draw every record's value uniformly;
    with the shadows that keep the other records' values — the default since — the module
    is ahead of CIP-rand at ε = 1 on the public GSS table, paired gap +0.17 [0.12, 0.22] on
    219 people, level with it on ACS 2012 (+0.02 [−0.03, +0.07], 202 people), and above its
    uniform version on both. The per-block numbers in
    these docstrings were measured with the uniform shadows; the assertions are unchanged.)

    What is true, and tested here on three synthetic blocks pooled (seeds 7, 8, 9; 232
    targets): the combination is at least as strong as DeSIA and as CIP-rand, exact and at
    ε = 1 — the paired interval of AUC(best_of) − AUC(other), from resampling targets
    (:func:`paired_auc_gap`), reaches 0 or above, so no component is significantly stronger
    (the 2.5 % one-sided test this sample supports; the tolerance is the interval's own width,
    set by the number of targets, not chosen to pass) — and it is above chance. A combination
    that kept the weaker scorer would fail where the two differ: on these blocks DeSIA beats
    CIP-rand by a paired 0.066 [0.025, 0.107] without noise (test above).
    """
    from engine.metrics import clustered_auc_ci

    names = ("best_of", "desia", "cip_rand")
    scores, member, clusters = pooled_aia(names, epsilon=epsilon)
    auc, (lo, _) = clustered_auc_ci(scores["best_of"], member, clusters)
    assert lo > 0.5, (auc, lo)
    for other in ("desia", "cip_rand"):
        gap, (_, hi) = paired_auc_gap(scores["best_of"], scores[other], member, clusters)
        assert hi >= 0.0, (other, gap, hi)


@pytest.mark.slow
def test_under_laplace_noise_desia_stays_above_chance_and_cip_is_weakened():
    """What is left of paper 003 §5.6 / Fig. 8 that holds on every block measured: without
    noise CIP-rand is above chance; with Laplace noise ε = 1 per count DeSIA is still above
    chance, and CIP-rand's AUC drops below its noise-free AUC (paired on the same targets
    and secrets). Whether CIP-rand reaches chance at ε = 1 varies between blocks (seed 7:
    0.534 [0.467, 0.602]; seed 9: 0.616 [0.546, 0.687]) and it does not on real census-like
    tables (see the test above), so that is no longer asserted.
    """
    clean_outcome, clean = game(None)
    noisy_outcome, noisy = game(None, 1.0)
    assert clean["cip_rand"]["auc_ci"][0] > 0.5
    assert noisy["desia"]["auc_ci"][0] > 0.5, noisy["desia"]["auc_ci"]
    gap, (lo, _) = aia_gap(clean_outcome, "cip_rand", noisy_outcome, "cip_rand")
    assert lo > 0.0, (gap, lo)


@pytest.mark.slow
def test_exposed_records_name_the_cells_that_pin_them_down():
    from engine.games.aggregates_scoring import exposed_records

    outcome, _ = game(None)
    exposed = exposed_records(outcome)
    assert len(exposed) == int(outcome.determined.sum())
    for entry in exposed:
        assert entry["record"] == "(redacted)" and entry["value_correct"]
        assert entry["pinning_count"] and entry["tables"]
        assert "pinning_cells" not in entry          # their labels spell out the record
    listed = exposed_records(outcome, list_records=True)
    for entry, full in zip(exposed, listed, strict=True):
        assert len(full["pinning_cells"]) == entry["pinning_count"]
        assert full["tables"] == entry["tables"] and isinstance(full["record"], dict)


def mia_game(block=0):
    return _mia_game(block)


@cache
def _mia_game(block):
    from engine.games.aggregates_membership import play_mia

    setting = dict(SETTING, seed=SETTING["seed"] + block)
    config = AggregatesConfig(n_shadow=1000, fraction=None,
                              mia_attacks=("desia_mia", "desia_mia_stochastic_only",
                                           "cip_rand_mia"), **setting)
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
    (one trial per target, resampled), three blocks pooled.

    Per block: seed 7 (79 targets, 30 members) DeSIA-MIA 0.800 [0.705, 0.895] against CIP-rand
    MIA 0.619 [0.507, 0.731], gap 0.181 [0.037, 0.315]; seed 8 0.700 against 0.628, gap 0.071
    [−0.082, 0.215]; seed 9 0.703 against 0.569, gap 0.135 [−0.017, 0.286]. Pooled (232
    targets, 101 members): DeSIA-MIA 0.740 [0.678, 0.802], CIP-rand MIA 0.607 [0.543, 0.671]
    (strict holds, by 0.007), paired gap 0.132 [0.050, 0.215]. RAP-rand MIA, measured once
    (seed 7; not re-run: ~3 min on 2 cores): 0.635 [0.515, 0.754], gap 0.165 [0.023, 0.310].
    Unlike the paper's, CIP's MIA is above chance here.
    """
    from engine.metrics import delong_auc_ci

    outcomes = [mia_game(b) for b in range(BLOCKS)]
    member = np.concatenate([o.member for o in outcomes])
    desia_scores = np.concatenate([o.scores["desia_mia"] for o in outcomes])
    cip_scores = np.concatenate([o.scores["cip_rand_mia"] for o in outcomes])
    desia = delong_auc_ci(desia_scores, member)
    cip = delong_auc_ci(cip_scores, member)
    gap = paired_auc_gap(desia_scores, cip_scores, member, np.arange(member.size))
    assert_paired_win(gap, {"name": "desia_mia", "auc": desia[0], "auc_ci": desia[1]},
                      {"name": "cip_rand_mia", "auc": cip[0], "auc_ci": cip[1]})
