"""What every attack returns, whatever it attacks (issue 33 item 2: the model and location
attacks had a class each, with the same name and the same first five fields).

A score per record or release (higher = member, as in engine.metrics) and the threshold the
attack's own rule chose on data the evaluation does not contain.
"""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np


@dataclass
class AttackOutcome:
    """A score per record (higher = member) and the attack's own decision rule.

    ``threshold`` was chosen on data the evaluated scores do not contain (shadow outputs or
    aggregates, reference models, or a fixed rule such as BTTA's posterior ≥ ½);
    ``decisions`` is ``scores >= threshold`` unless the attack's rule says otherwise. ``raw``
    is the attack's underlying statistic where it differs from the score (e.g. a metric before
    subtracting the class threshold). ``details`` is JSON-friendly (no arrays).

    Scores are held as float64: every metric reads them so (engine.metrics.as_scores_labels),
    so a float32 score of a location attack measures the same after the exact widening.
    """

    name: str
    label: str
    scores: np.ndarray                   # (n,) float, higher = member
    threshold: float
    details: dict = field(default_factory=dict)
    decisions: np.ndarray | None = None  # (n,) bool
    raw: np.ndarray | None = None        # (n,) float

    def __post_init__(self):
        self.scores = np.asarray(self.scores, dtype=np.float64)
        if self.decisions is None:
            self.decisions = self.scores >= self.threshold
        self.decisions = np.asarray(self.decisions, dtype=bool)

    def keep(self, rows) -> None:
        """Keep only ``rows`` of the scores, decisions and raw statistic (in place)."""
        self.scores = self.scores[rows]
        self.decisions = self.decisions[rows]
        if self.raw is not None:
            self.raw = self.raw[rows]
