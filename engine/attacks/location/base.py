"""What every location attack receives (paper 000, Alg. 1); what it returns is
engine.attacks.outcome.AttackOutcome."""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np


@dataclass(frozen=True)
class AggregateSet:
    """Labelled aggregates on the read cells: what the attacker computes its scores from."""

    x: np.ndarray              # (count, m) float32: read cells minus what the attacker knows
    labels: np.ndarray         # (count,) bool: True = target in the aggregate
    unknown: np.ndarray | None  # (count, m) counts of the unknown others (before noise and
    #                            target), kept for the shadow set so attacks can learn its law


@dataclass(frozen=True)
class AttackData:
    """The attacker's view: its shadow aggregates (with labels) and the test aggregates.

    The read cells are ordered with the target's k positive observations first; the rest (if
    any) are cells only the reference attack reads.
    """

    k: int                         # number of the target's positive observations (read first)
    target: np.ndarray             # (m,) the target's clipped trace on the read cells (0/1)
    shadow: AggregateSet           # training aggregates, built by the attacker (Alg. 1 l. 1–8)
    test: AggregateSet             # evaluation aggregates (the challenger's releases)
    mechanism: str                 # noise mechanism name or "none"
    scale: float                   # its noise scale (b, σ, t or σ; unused for "none")
    reference: np.ndarray | None = None  # (m,) mean of the reference traces (Dwork et al.)


def midpoint_threshold(shadow_scores: np.ndarray, shadow_labels: np.ndarray) -> float:
    """Alg. 3: the midpoint of the member and non-member mean scores on shadow aggregates,
    which maximises accuracy on a balanced set when both laws are symmetric with equal spread."""
    return float(0.5 * (shadow_scores[shadow_labels].mean() + shadow_scores[~shadow_labels].mean()))
