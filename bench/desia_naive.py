"""The whole-table shadow path of DeSIA's stochastic module as it was before issue 22 item 5,
kept as the bench's reference (never used by the app).

Every shadow dataset's answers to *every* released query are built from a membership matrix
over the auxiliary pool (engine.attacks.aggregates.desia_stochastic.ShadowAnswers, still the
likelihood attack's path), then each target keeps the columns of its signal cells and adds its
own row — the features the classifier saw before the signal-cell path.
"""

from __future__ import annotations

import numpy as np

from engine.attacks.aggregates.desia_stochastic import (
    ShadowAnswers,
    _feature_mask,
    label_stream,
    target_answers,
    target_candidate_rows,
)


def naive_aia_features(queries, target_codes, sensitive: int, auxiliary, dataset_size: int,
                       domain, *, n_shadow: int, seed: int = 0,
                       features: str = "target") -> tuple[np.ndarray, np.ndarray]:
    """(N × m_s features, N labels) of one target, built as the old score_many_targets did."""
    shadows = ShadowAnswers(list(queries), auxiliary, domain, sensitive, n_shadow,
                            dataset_size - 1, randomise_sensitive=True, extra=False, seed=seed)
    trows = target_candidate_rows(target_codes, domain, sensitive)
    contrib = target_answers(list(queries), trows)
    mask = _feature_mask(features, contrib)
    z = label_stream(seed, "desia-aia-labels", trows[0], sensitive).integers(
        0, domain.sizes[sensitive], size=n_shadow)
    return shadows.aux_answers[:, mask] + contrib[z][:, mask], z


def naive_mia_features(queries, target_codes, auxiliary, dataset_size: int, domain, *,
                       n_shadow: int, seed: int = 0, features: str = "all"
                       ) -> tuple[np.ndarray, np.ndarray]:
    """(N × m_s features, N labels) of one membership target, as the old path built them
    (its default was every released query)."""
    shadows = ShadowAnswers(list(queries), auxiliary, domain, 0, n_shadow, dataset_size - 1,
                            randomise_sensitive=False, extra=True, seed=seed)
    target = np.asarray(target_codes)
    contrib = target_answers(list(queries), target[None, :])[0]
    mask = _feature_mask(features, contrib[None, :])
    b = label_stream(seed, "desia-mia-labels", target, None).integers(0, 2, size=n_shadow)
    full = shadows.aux_answers + np.where(b[:, None] == 1, contrib[None, :],
                                          shadows.extra_answers)
    return full[:, mask], b
