"""The decision rule of engine.evidence on releases that carry nothing (issue 32 items 2–3).

800 exact-null games per family size for m = 2, 6 and 11, 400 for m = 40 membership attacks whose scores
do not depend on membership, correlated through a shared part (they read the same trials).
Every attack goes through the metric layer of :func:`engine.auditing.evaluate_attack` — the
same threshold selection, counts, one-sided p-values and TPR figures (not the intervals the
verdict does not read), checked equal to ``evaluate_attack``'s own on the first games — and the verdict through
:func:`engine.evidence.verdict_block`. The verdict must be above LOW in at most 5 % of games
(Holm's family-wise level is 2.5 %, so the expected rate is below that), and the p-values must
be super-uniform (P[p ≤ u] ≤ u).
"""

from __future__ import annotations

import numpy as np
import pytest

from engine.auditing import evaluate_attack
from engine.evidence import verdict_block
from engine.metrics import (
    accuracy_p_value,
    best_balanced_accuracy_threshold,
    clopper_pearson,
    min_negatives_for,
    rates_at_threshold,
    roc_curve,
    split_for_selection,
    tpr_p_value,
)
from engine.policy import VerdictPolicy

pytestmark = pytest.mark.claims

POLICY = VerdictPolicy()
# Games per family size: enough that a 5 % false-alarm rate would be far outside the interval
# (at 0 alarms the 95 % upper end is 0.46 % for 800 games, 0.92 % for 400), sized so the whole
# file takes a few minutes on 2 cores — each m = 40 game evaluates 40 attacks.
GAMES = {2: 800, 6: 800, 11: 800, 40: 400}
N_PER_CLASS = 400          # ≥ 300 non-members: the TPR at 1 % is measurable, so tested too


def _entry(name: str, s: np.ndarray, y: np.ndarray) -> dict:
    """The fields of evaluate_attack's entry that the evidence reads, by the same steps."""
    sel = split_for_selection(y)
    threshold = best_balanced_accuracy_threshold(s[sel], y[sel])
    tp, fn, fp, tn = rates_at_threshold(s[~sel], y[~sel], threshold)
    fpr, tpr, _ = roc_curve(s, y)
    n_pos, n_neg = int(y.sum()), int(y.size - y.sum())
    i = int(np.nonzero(fpr <= POLICY.fpr + 1e-12)[0][-1])      # tpr is non-decreasing
    fps, tps = np.rint(fpr * n_neg).astype(np.int64), np.rint(tpr * n_pos).astype(np.int64)
    return {"name": name, "label": name, "accuracy": 0.5 * (tp / (tp + fn) + tn / (fp + tn)),
            "accuracy_p_value": accuracy_p_value(tp, fn, fp, tn),
            "n_positive": n_pos, "n_negative": n_neg,
            "details": {"accuracy_trials": int((~sel).sum())},
            "tpr_at_fpr": [{"fpr_target": POLICY.fpr, "tpr": float(tpr[i]),
                            "measurable": n_neg >= min_negatives_for(POLICY.fpr),
                            "p_value": tpr_p_value(fps, tps, n_pos, n_neg, POLICY.fpr)}]}


def _game(g: np.random.Generator, m: int, rho: float = 0.5):
    y = np.r_[np.ones(N_PER_CLASS, bool), np.zeros(N_PER_CLASS, bool)]
    shared = g.normal(size=y.size)
    scores = [np.sqrt(rho) * shared + np.sqrt(1 - rho) * g.normal(size=y.size)
              for _ in range(m)]
    return scores, y


def test_the_fast_path_is_evaluate_attacks_own():
    g = np.random.default_rng(2032)
    for _ in range(3):
        scores, y = _game(g, 1)
        mine = _entry("a", scores[0], y)
        real = evaluate_attack("a", "a", scores[0], y, delta=0.0, fpr_targets=(POLICY.fpr,))
        for key in ("accuracy_p_value", "n_positive", "n_negative"):
            assert mine[key] == real[key]
        assert mine["accuracy"] == pytest.approx(real["accuracy"], abs=1e-12)
        assert mine["details"]["accuracy_trials"] == real["details"]["accuracy_trials"]
        for key, value in mine["tpr_at_fpr"][0].items():
            assert real["tpr_at_fpr"][0][key] == value


@pytest.mark.parametrize("m", [2, 6, 11, 40])
def test_null_releases_are_above_low_in_at_most_5_percent_of_games(m):
    g = np.random.default_rng([32, m])
    games = GAMES[m]
    above, p_acc, p_tpr = 0, [], []
    for _ in range(games):
        scores, y = _game(g, m)
        attacks = [_entry(f"a{i}", s, y) for i, s in enumerate(scores)]
        verdict, _, ev = verdict_block(attacks, POLICY)
        assert ev.m == 2 * m
        above += verdict["level"] != "low"
        p_acc.append(attacks[0]["accuracy_p_value"])
        p_tpr.append(attacks[0]["tpr_at_fpr"][0]["p_value"])
    lo, hi = clopper_pearson(above, games)
    print(f"\nm = {m} attacks ({2 * m} tests): above LOW in {above} of {games} null games "
          f"({above / games:.2%}, 95 % CI [{lo:.2%}, {hi:.2%}])")
    assert above / games <= 0.05
    for name, ps in (("accuracy", p_acc), ("TPR at 1 %", p_tpr)):
        ps = np.asarray(ps)
        for u in (0.01, 0.025, 0.05, 0.1, 0.25, 0.5):
            share = float(np.mean(ps <= u))
            se = np.sqrt(u * (1 - u) / games)
            print(f"  {name} p-values: P[p ≤ {u}] = {share:.4f}")
            assert share <= u + 3 * se, (name, u, share)
