"""Membership attacks on a simulated DP mechanism (paper 002 §3; ARCHITECTURE §6).

The attacker of the DP definition knows everyone else's data, so it can subtract their
contribution (``baseline``) from each of the person's k released values; what is left is the
person's contribution (0 or Δ) plus noise. Each attack maps the (trials, k) matrix of releases
to one score per trial (higher = "member").

* **Neyman–Pearson optimal** — the likelihood-ratio test, the most powerful test at every FPR
  (Neyman–Pearson lemma), so its ROC is the mechanism's exact trade-off curve:
  Laplace noise: log-ratio of Lap(Δ, b) to Lap(0, b) at x is (|x| − |x − Δ|)/b, an increasing
  affine function of clip(x, 0, Δ), so the statistic is Σ clip(xᵢ, 0, Δ);
  Gaussian noise: log-ratio is linear in x, so the statistic is Σ xᵢ.
  The discrete variants have the same shapes of log-ratio on the integers.
* **Naive sum** — Σ xᵢ whatever the noise: what a careless analyst would do. For Laplace it
  lets single large noise draws dominate, which is why it is weaker than the optimal test.
"""

from __future__ import annotations

from collections.abc import Callable

import numpy as np

Statistic = Callable[[np.ndarray], np.ndarray]

LAPLACE_FAMILY = ("laplace", "discrete_laplace")


def optimal_statistic(mechanism: str, sensitivity: float) -> tuple[Statistic, str]:
    """The likelihood-ratio statistic for ``mechanism`` and its description in words."""
    if mechanism in LAPLACE_FAMILY:
        def clipped_sum(x: np.ndarray) -> np.ndarray:
            return np.clip(x, 0.0, sensitivity).sum(axis=1)
        return clipped_sum, "sum over the k releases of clip(x − others, 0, Δ)"

    def plain_sum(x: np.ndarray) -> np.ndarray:
        return x.sum(axis=1, dtype=float)
    return plain_sum, "sum over the k releases of (x − others)"


def naive_sum_statistic(x: np.ndarray) -> np.ndarray:
    """Σ xᵢ: the natural but, for Laplace noise, sub-optimal statistic."""
    return x.sum(axis=1, dtype=float)


ATTACK_LABELS = {
    "np_optimal": "Neyman–Pearson optimal attacker (likelihood-ratio test; paper 002 Thm 1)",
    "naive_sum": "Naive sum attacker (adds up the k releases)",
}
