"""The toy audit's cost model and its measured constants (engine/estimates has one per audit
type; the constants of a real audit live in engine/estimates/calibration.py)."""

from __future__ import annotations

from engine.estimates import CostEstimate, CostPart, constants

CONSTANTS = {"seconds_per_coin": 1e-3, "bytes_per_coin": 8.0}


def estimate(config) -> CostEstimate:
    c = constants("toy")
    return CostEstimate.from_parts(
        "toy", c["bytes_per_coin"] * config.coins, "coins",
        [CostPart(f"Tossing {config.coins} coins", c["seconds_per_coin"] * config.coins,
                  0.0, setting="coins", name="tossing")])
