"""Cost model of the DP-mechanism audit (engine/audits/mechanism.py).

Two parts, measured separately by ``bench/bench_estimates.py --calibrate``:

* the exact theory — the optimal attacker's trade-off curve, the composed ε, the what-if
  sweep (25 settings of ε, or 24 numbers of observations up to 4k) and the bisection for the
  largest safe ε. Its cost depends on the mechanism and on k (a Laplace trade-off over k
  observations is a numerical convolution, the PLD accountant composes k times), not on the
  trials: a table per mechanism and sweep of (k, seconds, bytes), read on log–log axes;
* the membership game (paper 002 §3): N trials per hypothesis of k noisy releases each,
  drawn in batches of at most 2 M values, then sorted and measured — seconds per trial ×
  observation (the noise draws; per mechanism) plus seconds per trial (statistics, ROC,
  intervals); memory per trial (the scores of both attacks and their sorted copies) plus one
  batch.
"""

from __future__ import annotations

from engine.estimates import CostEstimate, CostPart, constants
from engine.estimates.scaling import loglog


def estimate(config) -> CostEstimate:
    CAL = constants("mechanism")
    m, k, n = config.mechanism, int(config.observations), int(config.trials)
    table = CAL["theory"][m][config.sweep]
    theory = CostPart(f"The best possible attacker, computed exactly, and the what-if sweep "
                      f"over {config.sweep} ({k:,} observations)", loglog(table, k, 1), loglog(table, k, 2),
                      "observations")
    batch = min(n, max(1, CAL["batch_values"] // max(1, k))) * k
    game = CostPart(f"The membership game: {n:,} trials × {k:,} observations per hypothesis",
                    CAL["game_seconds_per_value"][m] * 2 * n * k
                    + CAL["seconds_per_trial"] * n,
                    CAL["bytes_per_trial"] * n + CAL["bytes_per_batch_value"] * batch, "trials")
    return CostEstimate.from_parts("mechanism", 0.0, "trials", [theory, game])
