"""Reference attack of Dwork, Smith, Steinke, Ullman & Vadhan (2015), as in paper 000 App. C.

The attacker compares two inner products with the released aggregate: with the target's trace
and with a reference vector, the mean trace of a few people known *not* to be in the release
(drawn from its auxiliary population). Score = ⟨z − w, x⟩. Cells the target and the references
share cancel; when the reference is orthogonal to the target this is the one-threshold attack,
otherwise weaker (paper 000 App. C).
"""

from __future__ import annotations

import numpy as np

from engine.attacks.location.base import AttackData, midpoint_threshold
from engine.attacks.outcome import AttackOutcome

LABEL = "Reference attack (Dwork et al. 2015; paper 000, App. C)"


def score(x: np.ndarray, target: np.ndarray, reference: np.ndarray) -> np.ndarray:
    return x.astype(np.float64) @ (target - reference).astype(np.float64)


def attack(data: AttackData, n_references: int) -> AttackOutcome:
    if data.reference is None:
        raise ValueError("the reference attack needs reference traces")
    shadow = score(data.shadow.x, data.target, data.reference)
    threshold = midpoint_threshold(shadow, data.shadow.labels)
    return AttackOutcome("reference", LABEL, score(data.test.x, data.target, data.reference),
                         threshold, {
                             "statistic": "⟨target − mean reference trace, released values⟩",
                             "paper": "000 App. C (Dwork et al. 2015)",
                             "n_references": int(n_references),
                             "overlap": float(np.dot(data.target, data.reference)
                                              / max(np.dot(data.target, data.target), 1.0)),
                         })
