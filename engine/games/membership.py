"""The membership game against a DP mechanism, played many times (paper 002 §3).

One trial: the challenger flips b ∈ {0, 1}; everyone else contributes ``baseline`` to each of
the person's k observations (the attacker knows it — the worst case DP protects against); if
b = 1 the person adds their clipped contribution (Δ by default, the most the mechanism allows);
the mechanism adds noise and post-processes each release. The attacker sees the k releases and
outputs a score. We play N trials per hypothesis and return the labelled scores.

Vectorised over trials in batches sized so one batch holds at most ``MAX_BATCH_VALUES`` noise
values: memory stays bounded for any N and k (never N × k at once), and the progress bar and
the cancel button respond between batches.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

import numpy as np

from engine.mechanisms.postprocessing import clip_contribution, postprocess
from engine.mechanisms.sampling import sample_noise
from engine.runtime import NEVER, NO_PROGRESS, CancelToken, Progress

MAX_BATCH_VALUES = 1 << 21  # 2 M noise values ≈ 16 MB per hypothesis and batch


@dataclass(frozen=True)
class MechanismGame:
    mechanism: str
    scale: float            # b, σ or t: the noise parameter of one release
    sensitivity: float      # Δ
    observations: int       # k releases per person
    trials: int             # N games per hypothesis
    postprocess: str = "none"
    baseline: float = 0.0   # everyone else's known contribution to each release
    contribution: float | None = None  # the person's value before clipping; None = Δ

    def batch_size(self) -> int:
        return max(1, min(self.trials, MAX_BATCH_VALUES // max(1, self.observations)))


def _releases(game: MechanismGame, member: bool, n: int, rng: np.random.Generator) -> np.ndarray:
    """(n, k) releases minus the known baseline: what the attacker works with."""
    noise = sample_noise(game.mechanism, game.scale, (n, game.observations), rng)
    value = game.sensitivity if game.contribution is None else game.contribution
    person = clip_contribution(np.asarray(value, dtype=float), game.sensitivity) if member else 0.0
    released = postprocess(game.baseline + person + noise, game.postprocess)
    return np.asarray(released, dtype=float) - game.baseline


def play(game: MechanismGame, statistics: dict[str, Callable[[np.ndarray], np.ndarray]],
         rng: np.random.Generator, *, progress: Progress = NO_PROGRESS,
         cancel: CancelToken = NEVER) -> tuple[dict[str, np.ndarray], np.ndarray]:
    """Play ``game.trials`` games per hypothesis; return ``(scores by attack, labels)``.

    ``labels`` has shape (2N,): the first N trials are non-members (b = 0), the last N members.
    """
    n = game.trials
    labels = np.r_[np.zeros(n, dtype=bool), np.ones(n, dtype=bool)]
    scores = {name: np.empty(2 * n) for name in statistics}
    batch = game.batch_size()
    done = 0
    while done < n:
        cancel.check()
        m = min(batch, n - done)
        for member, offset in ((False, 0), (True, n)):
            x = _releases(game, member, m, rng)
            for name, stat in statistics.items():
                scores[name][offset + done: offset + done + m] = stat(x)
        done += m
        progress(done / n, f"Membership game: {done:,} of {n:,} trials per hypothesis")
    return scores, labels


def play_reference(game: MechanismGame, statistic: Callable[[list[float]], float],
                   rng: np.random.Generator) -> tuple[np.ndarray, np.ndarray]:
    """Straightforward per-trial loop: the baseline that ``make bench`` compares against."""
    n = game.trials
    value = game.sensitivity if game.contribution is None else game.contribution
    person = float(min(max(value, 0.0), game.sensitivity))
    out = []
    labels = []
    for member in (False, True):
        for _ in range(n):
            xs = []
            for _ in range(game.observations):
                noise = float(sample_noise(game.mechanism, game.scale, 1, rng)[0])
                released = game.baseline + (person if member else 0.0) + noise
                released = float(postprocess(np.asarray([released]), game.postprocess)[0])
                xs.append(released - game.baseline)
            out.append(statistic(xs))
            labels.append(member)
    return np.asarray(out), np.asarray(labels)


def tradeoff_summary(tradeoff, fpr_targets) -> dict:
    """An exact trade-off curve (engine.mechanisms.tradeoff) as the result's theory block
    records it: accuracy, AUC, advantage, TPR at each FPR target and 512 points of its ROC.
    The mechanism and location audits both quote it (moved here from the mechanism audit,
    issue 33 item 2, so the location game does not import an audit)."""
    fpr, tpr = tradeoff.roc_points(512)
    return {
        "statistic": tradeoff.statistic,
        "method": tradeoff.method,
        "numerical_error": float(tradeoff.numerical_error),
        "accuracy": float(tradeoff.accuracy()),
        "auc": float(tradeoff.auc()),
        "advantage": float(tradeoff.advantage()),
        "tpr_at_fpr": [{"fpr": float(t), "tpr": float(tradeoff.tpr_at(t))} for t in fpr_targets],
        "roc": {"fpr": np.asarray(fpr).tolist(), "tpr": np.asarray(tpr).tolist()},
    }
