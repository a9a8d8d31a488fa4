"""Issue 22, item 4: the auxiliary attacker's luck of the split.

The people are split once per run into the attacker's own data (auxiliary pool) and the people
released. The first run's interval covers the chance of its test releases only; which people the
attacker happens to know moves the result too (on public traces one auxiliary attack scored
0.69 with one seed and 0.94 / 0.97 with two others). Repetitions now redraw the split, and the
spread across them is reported beside the interval. These checks use traces where the split
matters by construction: half the people never visit the target's site and half visit it in 1
to 6 of the target's 40 hours, so a small auxiliary pool's average differs from the release
pool's by chance and shifts every threshold the attacker learns from it.
"""

from __future__ import annotations

import math

import numpy as np
import pytest
import scipy.sparse as sp
from scipy import stats

from engine.attacks.location import one_threshold
from engine.attacks.location.base import AttackData
from engine.audits import location as L
from engine.games.location import CellPool, play
from engine.metrics import balanced_accuracy_with_ci, rates_at_threshold
from engine.runtime import rng

HOURS = 40            # the target's positive observations, all at one site
PEOPLE = 2000         # everyone, the target included


def visits(seed: int = 0) -> np.ndarray:
    """(PEOPLE − 1, HOURS) 0/1: which of the target's cells each other person is counted in."""
    g = np.random.default_rng(seed)
    dense = np.zeros((PEOPLE - 1, HOURS), dtype=np.uint8)
    for i in range(PEOPLE - 1):
        if g.random() >= 0.5:
            dense[i, g.choice(HOURS, size=int(g.integers(1, 7)), replace=False)] = 1
    return dense


def write_traces(path, seed: int = 0):
    """The same people as a traces CSV (target "T"; someone never at site A is seen once at
    site B, so that they exist in the data)."""
    dense = visits(seed)
    rows = ["user_id,site,epoch"] + [f"T,A,{e}" for e in range(HOURS)]
    for i, row in enumerate(dense):
        hours = np.flatnonzero(row)
        rows += [f"p{i},A,{e}" for e in hours] or [f"p{i},B,0"]
    path.write_text("\n".join(rows) + "\n")
    return path


@pytest.mark.slow
def test_a_small_auxiliary_pool_spreads_the_accuracy_more_than_a_large_one(tmp_path):
    """n = 60 people per release: a pool of 62 gives the attacker the chance composition of
    those 62, a pool of 1,000 averages it out. Measured with 8 repetitions for seeds 1–5: the
    standard deviation of the accuracy over the repetitions was 0.053–0.123 with the pool of
    62 and 0.008–0.020 with the pool of 1,000 (means over seeds 1–3: 0.105 and 0.014). Before
    the split was redrawn, repetitions could not show this at all."""
    traces = write_traces(tmp_path / "uneven.csv")
    base = dict(traces=str(traces), target="id", target_id="T", attacker="auxiliary",
                aggregate_size=60, test_aggregates=2000, shadow_aggregates=400,
                sweep_targets=0, attacks=("one_threshold",), epsilon=1.0, repetitions=8)
    sd = {}
    for aux in (62, 1000):
        sd[aux] = float(np.mean([
            L.run(L.LocationConfig(**base, auxiliary_size=aux, seed=seed))
            .attacks[0]["details"]["repetitions"]["accuracy_sd"] for seed in (1, 2, 3)]))
    assert sd[62] > 3 * sd[1000], sd


AUDITS = 20           # simulated audits, each with REPETITIONS splits
REPETITIONS = 8
N_OTHERS = 60         # people per release besides the target
SMALL_POOL = 62       # the attacker's auxiliary pool


def split_accuracies(seed: int = 5) -> np.ndarray:
    """(AUDITS·REPETITIONS, 3): per split of the people, the one-threshold attack's balanced
    accuracy on fresh test releases and its interval (the audit's own game: Laplace noise of
    scale 1 per cell, i.e. ε = 1 per hour with C = 1; auxiliary attacker; 400 shadow and 1,000
    test releases)."""
    dense = visits()
    z = np.ones(HOURS, dtype=np.float32)
    out = []
    for j in range(AUDITS * REPETITIONS):
        order = rng(seed, "split", j).permutation(PEOPLE - 1)
        aux = CellPool.from_rows(sp.csr_matrix(dense[order[:SMALL_POOL]]))
        release = CellPool.from_rows(sp.csr_matrix(dense[order[SMALL_POOL:]]))
        shadow = play(z, aux, N_OTHERS, 400, "laplace", 1.0, rng(seed, "shadow", j))
        test = play(z, release, N_OTHERS, 1000, "laplace", 1.0, rng(seed, "test", j))
        o = one_threshold.attack(AttackData(k=HOURS, target=z, shadow=shadow, test=test,
                                            mechanism="laplace", scale=1.0), fpr_targets=())
        acc, (lo, hi) = balanced_accuracy_with_ci(
            *rates_at_threshold(o.scores, test.labels, o.threshold), 0.95)
        out.append((acc, lo, hi))
    return np.array(out)


def at_least_95_percent(covered: int, total: int) -> bool:
    """Not implausibly below 95 % (one-sided exact binomial test, p ≥ 0.001), as in
    test_interval_coverage.py."""
    return stats.binomtest(covered, total, 0.95, alternative="less").pvalue >= 1e-3


@pytest.mark.slow
def test_the_first_runs_interval_misses_the_split_average_and_the_spread_does_not():
    """The quantity of interest is the accuracy an auxiliary attacker with a pool of this size
    reaches on average over which people it happens to know (estimated here by the mean over
    all 160 splits; its own standard error is about 0.005). The first run's 95 % interval covers
    only the test releases' chance, so it covers that average far less often than 95 %; the
    first run ± t₀.₉₇₅,₇ × (standard deviation over the audit's 8 repetitions) — what the
    spread now reported lets a reader form — covers it at its nominal level."""
    runs = split_accuracies()
    truth = runs[:, 0].mean()
    audits = runs.reshape(AUDITS, REPETITIONS, 3)
    first = audits[:, 0]
    interval_covers = (first[:, 1] <= truth) & (truth <= first[:, 2])
    t = stats.t.ppf(0.975, REPETITIONS - 1)
    sd = audits[:, :, 0].std(axis=1, ddof=1)
    spread_covers = np.abs(first[:, 0] - truth) <= t * sd
    # Measured (seed 5): split-to-split sd 0.068 against a mean half-width of 0.025; the
    # interval covers in 7 of 20 audits (32 of all 160 splits), the spread in 20 of 20.
    assert not at_least_95_percent(int(interval_covers.sum()), AUDITS), interval_covers.sum()
    assert at_least_95_percent(int(spread_covers.sum()), AUDITS), spread_covers.sum()
    # The split-to-split spread is larger than the interval's half-width in most audits.
    half = 0.5 * (first[:, 2] - first[:, 1])
    assert np.mean(sd > half) > 0.5 and math.isfinite(truth)
