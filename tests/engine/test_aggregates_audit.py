"""The AIA game of the aggregates audit (engine part): seeds, cancel, the data-only guess."""

from __future__ import annotations

import numpy as np
import pytest

from engine.audits.aggregates import AggregatesConfig, data_only_scores, play_aia
from engine.runtime import CancelToken, JobCancelled

SMALL = dict(census_records=80, census_auxiliary=600, max_targets=6, n_shadow=400,
             reconstructions=2, attacks=("desia", "cip_rand", "data_only"))


def test_same_seed_same_scores_and_other_seed_other_scores():
    a = play_aia(AggregatesConfig(**SMALL))
    b = play_aia(AggregatesConfig(**SMALL))
    c = play_aia(AggregatesConfig(**{**SMALL, "seed": 8}))
    for name in SMALL["attacks"]:
        assert np.array_equal(a.scores[name], b.scores[name])
        assert a.scores[name].shape == (a.targets.size, 7)
    assert not np.array_equal(a.truth, c.truth) or not np.array_equal(a.targets, c.targets)


def test_cancel_stops_the_game():
    token = CancelToken()
    token.cancel()
    with pytest.raises(JobCancelled):
        play_aia(AggregatesConfig(**SMALL), cancel=token)


def test_data_only_guess_uses_the_closest_auxiliary_records():
    aux = np.array([[0, 0, 1], [0, 0, 1], [0, 1, 2], [1, 1, 0]], dtype=np.int32)
    scores = data_only_scores(aux, np.array([[0, 0, 0], [1, 0, 0]], dtype=np.int32), 2, 3)
    assert scores.sum(axis=1) == pytest.approx([1, 1])
    assert scores[0].argmax() == 1                  # exact QI match: value 1 twice
    assert scores[1].argmax() in (0, 1)             # one QI in common with rows 0, 1, 3
