"""Coverage of the census study's intervals (issue 22 item 3; bench/study_census_tables.py), by
simulation where the truth is known.

The study pools attribute-inference trials over repetitions in which one person can be attacked
several times (acs12: 523 trials on 202 people), and reports, per attack, the AUC and top-1
with a percentile interval from resampling the distinct people (2,000 seeded resamples), the
clustered DeLong interval of the audit beside it, and the paired AUC gap between two attacks on
the same trials with the same resampling. Here the trials come from a known law at the study's
size — 200 people, each attacked 1 to 4 times, with a per-person exposure shared by all of that
person's trials (the correlation the resampling of people is for), |V| = 3 values, two
correlated attacks — and the truth is the same law's pooled AUC, top-1 and gap on 400,000
people. Judged as in test_interval_coverage.py: a one-sided exact binomial test against the
nominal 95 % fails when the observed coverage is implausibly low (p < 0.001).
"""

from __future__ import annotations

from functools import cache

import numpy as np
import pytest
from scipy import stats

NOMINAL = 0.95
P_VALUE_FLOOR = 1e-3
VALUES = 3
PEOPLE = 200
SEEDS = 200


def _trials(g: np.random.Generator, people: int):
    """(person, truth, scores of attack a, scores of attack b), one row per trial."""
    appearances = g.integers(1, 5, people)                # 1–4 trials a person, like the blocks
    person = np.repeat(np.arange(people), appearances)
    n = person.size
    exposure = g.normal(0.0, 1.0, people)[person]         # shared by a person's trials
    truth = g.integers(0, VALUES, n)
    base = g.normal(0.0, 1.0, (n, VALUES))
    a = base.copy()
    a[np.arange(n), truth] += 1.0 + 0.8 * exposure
    b = base + g.normal(0.0, 0.7, (n, VALUES))            # a weaker attack, correlated with a
    b[np.arange(n), truth] += 0.8 + 0.8 * exposure
    softmax = [np.exp(x) / np.exp(x).sum(axis=1, keepdims=True) for x in (a, b)]
    return person, truth, softmax[0], softmax[1]


def _pooled_auc(scores: np.ndarray, truth: np.ndarray) -> float:
    from engine.metrics import auc_score

    member = np.zeros(scores.shape, dtype=bool)
    member[np.arange(truth.size), truth] = True
    return auc_score(scores.ravel(), member.ravel())


@cache
def _truth() -> dict:
    _, truth, sa, sb = _trials(np.random.default_rng([22, 0]), 400_000)
    a, b = _pooled_auc(sa, truth), _pooled_auc(sb, truth)
    return {"auc": a, "gap": a - b, "top1": float(np.mean(sa.argmax(axis=1) == truth))}


@pytest.mark.slow
def test_the_census_studys_person_resampled_intervals_cover_the_truth():
    from bench.study_census_tables import paired_gap, pooled

    truth = _truth()
    hits = {"auc (people resampled)": 0, "auc (clustered DeLong)": 0, "top-1": 0,
            "paired gap": 0}
    for seed in range(SEEDS):
        person, t, sa, sb = _trials(np.random.default_rng([22, 1, seed]), PEOPLE)
        trials = [{"people": person, "truth": t, "scores": {"a": sa, "b": sb}}]
        m, gap = pooled(trials, "a"), paired_gap(trials, "a", "b")
        hits["auc (people resampled)"] += m["auc_ci"][0] <= truth["auc"] <= m["auc_ci"][1]
        hits["auc (clustered DeLong)"] += (m["auc_delong_ci"][0] <= truth["auc"]
                                           <= m["auc_delong_ci"][1])
        hits["top-1"] += m["top1_ci"][0] <= truth["top1"] <= m["top1_ci"][1]
        hits["paired gap"] += gap["ci"][0] <= truth["gap"] <= gap["ci"][1]
    print(f"covered, of {SEEDS} seeds: {hits}")
    for key, h in hits.items():
        p = stats.binomtest(h, SEEDS, NOMINAL, alternative="less").pvalue
        assert p >= P_VALUE_FLOOR, f"{key}: covered {h}/{SEEDS}"
