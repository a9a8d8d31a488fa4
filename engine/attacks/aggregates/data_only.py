"""The data-only guess (paper 003 §5 baselines): what an attacker learns from the auxiliary
sample alone, without the release. Beside an attack's score it tells how much of that attack's
success the release explains."""

from __future__ import annotations

import numpy as np


def data_only_scores(aux_codes: np.ndarray, target_codes: np.ndarray, s: int,
                     n_values: int) -> np.ndarray:
    """The same guess without the release: the sensitive values' frequencies among auxiliary
    records matching the target on as many quasi-identifiers as possible (all, then all but
    one, …), add-½ smoothed. Tells how much of an attack's success the release explains."""
    out = np.zeros((target_codes.shape[0], n_values))
    for i, t in enumerate(target_codes):
        matches = aux_codes[:, :s] == t[:s]
        agree = matches.sum(axis=1)
        for need in range(s, -1, -1):
            rows = agree >= need
            if rows.any():
                counts = np.bincount(aux_codes[rows, s], minlength=n_values) + 0.5
                out[i] = counts / counts.sum()
                break
    return out
