"""DeSIA's stochastic module (paper 003 §3.2, Alg. 2), its MIA variant (§6.2) and the
likelihood attack (§7.2) on a small synthetic census block where the game (§2.3, Fig. 2)
is played for real: the block's race is re-randomised uniformly, so chance is 1/7."""

from __future__ import annotations

import numpy as np
import pytest

from engine.aggregates.queries import answers, contingency_table
from engine.attacks.aggregates import desia_stochastic as ds
from engine.attacks.aggregates import likelihood as lk
from engine.data.census import generate_census_blocks
from engine.data.errors import InputError
from engine.data.microdata import unique_targets
from engine.metrics import auc_score
from engine.runtime import CancelToken, JobCancelled

N_SHADOW = 1500


@pytest.fixture(scope="module")
def game():
    prot, aux = generate_census_blocks(seed=3, records_per_block=100, n_auxiliary=2000)
    dom = ds.as_domain(prot.schema)
    s = dom.index("race")
    codes = prot.codes.copy()
    codes[:, s] = np.random.default_rng(0).integers(0, dom.sizes[s], len(codes))
    targets = unique_targets(prot)[:7]
    return dom, s, codes, aux.codes, targets


def _auc(results, truth) -> float:
    p = np.array([r["probabilities"] for r in results])
    onehot = np.zeros_like(p, dtype=bool)
    onehot[np.arange(len(truth)), truth] = True
    return auc_score(p.ravel(), onehot.ravel())


def _run(game, columns, **kw):
    dom, s, codes, aux, targets = game
    qs = contingency_table(dom, columns)
    released = answers(qs, codes)
    # This block's race is re-randomised for everyone (the paper's game), so the shadows
    # re-draw every record's value too: Alg. 2 as published.
    res = ds.score_many_targets(qs, released, codes[targets], "race", aux, len(codes), dom,
                                n_shadow=N_SHADOW, seed=1, other_values="uniform", **kw)
    return res, codes[targets, s]


def test_full_table_reveals_unique_targets_race(game):
    res, truth = _run(game, ("sex", "age", "race"))
    assert _auc(res, truth) > 0.9
    assert min(r["validation_auc"] for r in res) > 0.9
    assert all(r["n_features"] == 7 for r in res)      # the target's row of the table


def test_race_marginal_alone_is_near_the_baseline(game):
    res, truth = _run(game, ("race",))
    # 7 targets give a noisy game AUC; the shadow validation AUC (500 datasets each) is tight
    assert _auc(res, truth) < 0.8
    assert max(r["validation_auc"] for r in res) < 0.65


def test_target_features_lose_no_accuracy(game):
    dom, s, codes, aux, targets = game
    qs = contingency_table(dom, ("sex", "race")) + contingency_table(dom, ("race",))
    released = answers(qs, codes)
    acc = {}
    for f in ("target", "all"):
        r = ds.fit_and_score(qs, released, codes[targets[0]], "race", aux, len(codes), dom,
                             n_shadow=N_SHADOW, seed=2, features=f)
        acc[f] = r["validation_auc"]
    assert acc["target"] >= acc["all"] - 0.02


def test_deterministic_per_seed_and_shared_with_many_targets(game):
    dom, s, codes, aux, targets = game
    qs = contingency_table(dom, ("race",))
    rel = answers(qs, codes)
    a = ds.fit_and_score(qs, rel, codes[targets[1]], "race", aux, len(codes), dom,
                         n_shadow=150, seed=5)
    b = ds.fit_and_score(qs, rel, codes[targets[1]], "race", aux, len(codes), dom,
                         n_shadow=150, seed=5)
    many = ds.score_many_targets(qs, rel, codes[targets[:2]], "race", aux, len(codes), dom,
                                 n_shadow=150, seed=5)
    np.testing.assert_array_equal(a["probabilities"], b["probabilities"])
    np.testing.assert_allclose(many[1]["probabilities"], a["probabilities"])


def test_cancel_raises(game):
    dom, s, codes, aux, targets = game
    qs = contingency_table(dom, ("race",))
    tok = CancelToken()
    tok.cancel()
    with pytest.raises(JobCancelled):
        ds.fit_and_score(qs, answers(qs, codes), codes[targets[0]], "race", aux, len(codes),
                         dom, n_shadow=300, cancel=tok)


def test_bad_model_name_is_a_sentence(game):
    dom, s, codes, aux, targets = game
    qs = contingency_table(dom, ("race",))
    with pytest.raises(InputError, match=r"Unknown stochastic-module model “xgb”.*logistic"):
        ds.fit_and_score(qs, answers(qs, codes), codes[targets[0]], "race", aux, len(codes),
                         dom, n_shadow=300, model="xgb")


def test_membership_variant_beats_chance_on_a_fine_table(game):
    dom, s, codes, aux, targets = game
    qs = contingency_table(dom, ("sex", "age", "race"))
    scores, labels = [], []
    g = np.random.default_rng(7)
    for t in targets[:6]:
        member = int(g.integers(0, 2))                  # Fig. 9: remove u* or another user
        other = (t + 1) % len(codes)
        d = np.delete(codes, other if member else t, axis=0)
        r = ds.membership_fit_and_score(qs, answers(qs, d), codes[t], aux, len(d), dom,
                                        n_shadow=N_SHADOW, seed=3, features="target")
        assert r["validation_auc"] > 0.8
        scores.append(r["probability_member"])
        labels.append(member)
    assert np.mean((np.array(scores) > 0.5) == np.array(labels)) > 0.8


def test_likelihood_voting_set_and_votes(game):
    dom, s, codes, aux, targets = game
    t = codes[targets[0]]
    qs = (contingency_table(dom, ("sex", "race")) + contingency_table(dom, ("sex",)))
    mask = lk.voting_queries(qs, t, s, dom.sizes[s])
    # only the target's sex row of sex × race votes; sex alone has no race condition
    assert mask.sum() == dom.sizes[s]
    assert all(dict(q.conditions)[dom.index("sex")] == {t[dom.index("sex")]}
               for q, m in zip(qs, mask, strict=True) if m)
    x = np.array([[10.0], [10.0], [0.0], [0.0]])
    z = np.array([0, 0, 1, 1])
    votes = lk.likelihood_votes(x + [[0.0], [1.0], [0.0], [1.0]], z, [10.4], 2)
    np.testing.assert_array_equal(votes, [[1.0, 0.0]])


def test_likelihood_attack_beats_chance_on_full_table(game):
    dom, s, codes, aux, targets = game
    qs = contingency_table(dom, ("sex", "age", "race"))
    rel = answers(qs, codes)
    hits = [lk.likelihood_attack(qs, rel, codes[t], "race", aux, len(codes), dom,
                                 n_shadow=N_SHADOW, seed=1)["prediction"] == codes[t, s]
            for t in targets]
    assert np.mean(hits) > 2 / 7
