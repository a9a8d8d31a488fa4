"""Issue 32 item 1: the game's figure said as the game's, and the officer's own question beside
it — on the people's real values, is the attacker better than the obvious guess?
(engine.attacks.real_people; engine.games.aggregates.evaluate; engine.games.model)."""

from __future__ import annotations

import csv

import numpy as np
import pytest
from scipy import stats

from engine.attacks.real_people import (
    difference_interval,
    game_sentence,
    obvious_value,
    real_people,
    real_people_sentence,
    sign_test_p,
)
from engine.audits.aggregates import AggregatesConfig
from engine.audits.aggregates import run as run_aggregates
from engine.games.aggregates import play_aia
from engine.games.aggregates_scoring import evaluate

KEYS = {"n", "correct", "accuracy", "accuracy_ci", "obvious_guess", "data_only",
        "scaled_score", "scaled_score_ci", "p_value"}


# --------------------------------------------------------------------------- the statistics

def test_sign_test_is_the_exact_binomial_tail():
    assert sign_test_p(0, 0) == 1.0
    assert sign_test_p(9, 1) == pytest.approx(stats.binomtest(9, 10, 0.5, "greater").pvalue)
    assert sign_test_p(3, 7) == pytest.approx(stats.binomtest(3, 10, 0.5, "greater").pvalue)


def test_block_counts_the_same_people_and_the_scale_ends():
    truth_obvious = np.array([True] * 8 + [False] * 2)          # 80 % hold the obvious value
    sure = real_people(np.ones(10, bool), truth_obvious, obvious_label="no",
                       data_only_correct=truth_obvious)
    assert set(sure) == KEYS
    assert sure["scaled_score"] == 1.0 and sure["obvious_guess"] == {
        "value": "no", "accuracy": 0.8, "correct": 8}
    assert sure["data_only"] == {"accuracy": 0.8, "correct": 8}
    same = real_people(truth_obvious, truth_obvious, obvious_label="no")
    assert same["scaled_score"] == 0.0 and same["p_value"] == 1.0 and same["data_only"] is None
    lo, hi = same["scaled_score_ci"]
    assert lo <= 0 <= hi
    # Everyone holds the obvious value: nothing can beat it, and nothing divides by zero.
    flat = real_people(np.zeros(5, bool), np.ones(5, bool), obvious_label="no")
    assert flat["scaled_score"] == -1.0 and flat["p_value"] == 1.0
    assert flat["scaled_score_ci"][0] == -1.0


@pytest.mark.claims
def test_difference_interval_covers_the_paired_difference():
    """Over many seeded samples the interval for p_b − p_c holds the true difference at
    least as often as it says (it is conservative by construction)."""
    g = np.random.default_rng(3)
    p_b, p_c, n, misses, runs = 0.10, 0.05, 80, 0, 2000
    for _ in range(runs):
        u = g.random(n)
        b, c = int(np.sum(u < p_b)), int(np.sum((u >= p_b) & (u < p_b + p_c)))
        lo, hi = difference_interval(b, c, n, 0.95)
        misses += not lo <= p_b - p_c <= hi
    assert misses / runs <= 0.05


def test_p_value_is_super_uniform_when_the_attack_is_no_better():
    """Null at its boundary: the attack beats the obvious guess on exactly as many people as
    the obvious guess beats it, in expectation (82/18 attribute, 2,000 seeded games)."""
    g = np.random.default_rng(11)
    n, share_yes, runs = 100, 0.18, 2000
    # The attack says "yes" to 30 % of the "yes" people and to r of the "no" people, with
    # 0.18·0.30 = 0.82·r: as many wins over the obvious guess as losses.
    r = share_yes * 0.30 / (1 - share_yes)
    ps = []
    for _ in range(runs):
        yes = g.random(n) < share_yes
        says_yes = np.where(yes, g.random(n) < 0.30, g.random(n) < r)
        right, obvious = says_yes == yes, ~yes
        ps.append(sign_test_p(int(np.sum(right & ~obvious)), int(np.sum(~right & obvious))))
    ps = np.array(ps)
    # The block's p-value is this test (checked on one draw, the rest kept fast).
    assert real_people(right, obvious, obvious_label="no")["p_value"] == ps[-1]
    for alpha in (0.01, 0.025, 0.05, 0.1):
        # Binomial margin for 2,000 games: the rate may exceed α only by sampling error.
        assert np.mean(ps <= alpha) <= alpha + 3 * np.sqrt(alpha * (1 - alpha) / runs), alpha


def test_obvious_value_is_the_most_common_first_on_ties():
    assert obvious_value(np.array([1, 1, 0, 2, 1]), 3) == 1
    assert obvious_value(np.array([2, 0, 2, 0]), 3) == 0


def test_words_say_which_game_and_name_the_obvious_guess():
    said = game_sentence(0.6, 2, feature="union", noun="worker")
    assert said.startswith("When a worker's 'union' is replaced by a coin toss, the tables let "
                           "the attacker recover the toss 60% of the time (blind guessing: 50%")
    rp = real_people(np.array([True] * 82 + [False] * 18), np.array([True] * 82 + [False] * 18),
                     obvious_label="no")
    text = real_people_sentence(rp, feature="union")
    assert "answering 'no' for everyone, the obvious guess, is right 82% of the time" in text
    assert "cannot be told apart from the obvious guess" in text


# --------------------------------------------------------------------------- the count tables

AGES = range(18, 43)


def _skewed_table(path, n=120, seed=5):
    """People mostly unique on (age, sex, region); 'union' 18 % yes, independent of them."""
    g = np.random.default_rng(seed)
    with open(path, "w", newline="") as f:
        w = csv.writer(f)
        w.writerow(["age", "sex", "region", "union"])
        for _ in range(n):
            w.writerow([int(g.choice(AGES)), ["f", "m"][int(g.integers(2))],
                        f"r{int(g.integers(8))}", "yes" if g.random() < 0.18 else "no"])
    return str(path)


def _config(data, **kw):
    schema = {"columns": [
        {"name": "age", "kind": "categorical", "role": "quasi_identifier",
         "categories": [str(a) for a in AGES]},
        {"name": "sex", "kind": "categorical", "role": "quasi_identifier",
         "categories": ["f", "m"]},
        {"name": "region", "kind": "categorical", "role": "quasi_identifier",
         "categories": [f"r{i}" for i in range(8)]},
        {"name": "union", "kind": "categorical", "role": "sensitive",
         "categories": ["no", "yes"]}]}
    base = dict(data=data, schema=schema, sensitive="union", release="marginals",
                fraction=0.0, max_targets=30, n_shadow=100, reconstructions=2,
                membership=False, attacks=("desia_deterministic_only", "data_only"))
    return AggregatesConfig(**{**base, **kw})


@pytest.fixture(scope="module")
def table(tmp_path_factory):
    return _skewed_table(tmp_path_factory.mktemp("real") / "workers.csv")


def test_a_release_that_carries_nothing_is_no_better_than_the_obvious_guess(table):
    """Counts over the quasi-identifiers only: nothing about 'union' is released. On the real
    people no attack is measurably better than the obvious guess ("no" for everyone): each
    scaled score's interval reaches 0 or below and its p-value is not small; the guess from
    similar people's records lands near the obvious guess. (The attack that reads the tables
    falls back to a coin toss where they prove nothing — right about half the time, below the
    obvious guess: the game's 50 % line is not the real people's.)"""
    config = _config(table, release_options={"ways": [1, 2, 3],
                                             "columns": ["age", "sex", "region"]})
    outcome = play_aia(config)
    entries = {a["name"]: a for a in evaluate(config, outcome)}
    for name, entry in entries.items():
        rp = entry["details"]["real_people"]
        assert set(rp) == KEYS, name
        assert rp["obvious_guess"]["value"] == "no" and rp["obvious_guess"]["accuracy"] > 0.6
        assert rp["n"] == outcome.targets.size
        assert rp["scaled_score_ci"][0] <= 0, name
        assert rp["p_value"] > 0.05, name
    data_only = entries["data_only"]["details"]["real_people"]
    assert abs(data_only["accuracy"] - data_only["obvious_guess"]["accuracy"]) <= 0.15
    assert data_only["scaled_score_ci"][0] <= 0 <= data_only["scaled_score_ci"][1]
    assert entries["desia_deterministic_only"]["details"]["real_people"]["data_only"] == {
        "accuracy": data_only["accuracy"], "correct": data_only["correct"]}
    # Same config, same numbers (every stream from the config's seed).
    again = {a["name"]: a for a in evaluate(config, play_aia(config))}
    assert all(again[n]["details"]["real_people"] == e["details"]["real_people"]
               for n, e in entries.items())


def test_a_leaky_release_beats_the_obvious_guess(table):
    """Exact counts of every (age, sex, region, union) cell: a person unique on the first
    three has their 'union' in the table, so the attack beats "no for everyone" on the real
    people, measurably."""
    config = _config(table, release_options={"ways": [4]})
    outcome = play_aia(config)
    entries = {a["name"]: a for a in evaluate(config, outcome)}
    for name in ("desia_deterministic_only",):
        rp = entries[name]["details"]["real_people"]
        assert rp["scaled_score"] > 0.5 and rp["scaled_score_ci"][0] > 0, name
        assert rp["p_value"] < 0.01, name       # every discordant person goes its way
    # The release-free guess is the officer's baseline, never better than the tables here.
    assert entries["data_only"]["details"]["real_people"]["scaled_score_ci"][0] <= 0


def test_the_summary_says_which_game_and_quotes_the_real_people(table):
    r = run_aggregates(_config(table, release_options={"ways": [4]})).to_dict()
    summary = r["summary"]
    assert "when a person's 'union' is replaced by a coin toss" in summary.lower()
    assert "the tables let the attacker recover the toss" in summary
    assert "answering 'no' for everyone, the obvious guess" in summary
    assert "Scaled score" in summary and "blind guessing: 50%" in summary
    # The old wording read the game's figure as about the real people.
    assert "the best guess of a person's 'union'" not in summary


@pytest.mark.claims
def test_best_of_carries_the_real_people_too(table):
    """The combination (its choice made on the attacker's own stand-ins) is scored on the real
    people like every attack; on the leaky release it beats the obvious guess."""
    config = _config(table, release_options={"ways": [4]}, n_shadow=200,
                     attacks=("best_of", "data_only"))
    entries = {a["name"]: a for a in evaluate(config, play_aia(config))}
    rp = entries["best_of"]["details"]["real_people"]
    assert set(rp) == KEYS and rp["scaled_score_ci"][0] > 0 and rp["p_value"] < 0.01
