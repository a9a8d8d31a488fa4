"""Top-1 guesses break ties at random (issue 20 item 4): an attack with no evidence about a
target is a blind guess, not "always the first category"."""

from __future__ import annotations

import numpy as np
from scipy import stats

from engine.games.aggregates_scoring import top1_guesses


def test_a_unique_best_value_is_always_the_guess():
    g = np.random.default_rng(0)
    scores = g.random((500, 4))
    assert np.array_equal(top1_guesses(scores, np.random.default_rng(1)),
                          scores.argmax(axis=1))


def test_tied_values_are_guessed_uniformly():
    scores = np.zeros((30_000, 3))              # no evidence at all: all three values tie
    guesses = top1_guesses(scores, np.random.default_rng(2))
    counts = np.bincount(guesses, minlength=3)
    assert stats.chisquare(counts).pvalue > 1e-3, counts
    # Only the tied values are ever guessed.
    partial = np.array([[0.2, 0.5, 0.5, 0.1]] * 20_000)
    guesses = top1_guesses(partial, np.random.default_rng(3))
    counts = np.bincount(guesses, minlength=4)
    assert counts[0] == counts[3] == 0
    assert stats.chisquare(counts[1:3]).pvalue > 1e-3, counts


def test_a_blind_guess_scores_chance_not_the_share_of_the_first_category():
    # Every target's value is the LAST category; argmax on ties would score 0 %.
    scores = np.ones((4000, 4))
    truth = np.full(4000, 3)
    hits = top1_guesses(scores, np.random.default_rng(4)) == truth
    lo, hi = stats.binomtest(int(hits.sum()), hits.size).proportion_ci(0.999)
    assert lo < 0.25 < hi


def test_same_seed_same_guesses():
    scores = np.zeros((100, 5))
    a = top1_guesses(scores, np.random.default_rng(9))
    b = top1_guesses(scores, np.random.default_rng(9))
    assert np.array_equal(a, b)
