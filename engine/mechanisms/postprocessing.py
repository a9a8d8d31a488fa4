"""Per-person contribution clipping and post-processing of released values.

Clipping each person's contribution to [0, Δ] is what makes Δ the sensitivity. Post-processing
(rounding, flooring at zero) cannot weaken DP (post-processing theorem, Dwork & Roth 2014,
Prop. 2.1), but auditors ask for it because published tables are rounded.
"""

from __future__ import annotations

import math

import numpy as np

from engine.data.errors import InputError, given_value

POSTPROCESS_MODES = ("none", "round", "round_nonnegative")


def clip_contribution(values, sensitivity: float) -> np.ndarray:
    """Clip each person's contribution to [0, Δ] so that one person changes a sum by at most Δ."""
    s = float(sensitivity)
    if not math.isfinite(s) or s <= 0:
        raise InputError(f"The sensitivity must be a positive finite number, got "
                         f"{given_value(sensitivity)}.", key="sensitivity")
    arr = np.asarray(values, dtype=np.float64)
    if np.isnan(arr).any():
        raise InputError("Some contributions are missing (NaN); fill or drop them before "
                         "clipping.", key="values")
    return np.clip(arr, 0.0, s)


def postprocess(released, mode: str) -> np.ndarray:
    """Apply the publication step: ``"none"``, ``"round"`` (nearest integer, ties to even) or
    ``"round_nonnegative"`` (round, then replace negatives by 0)."""
    arr = np.asarray(released)
    if mode == "none":
        return arr
    if mode == "round":
        return np.rint(arr) if np.issubdtype(arr.dtype, np.floating) else arr
    if mode == "round_nonnegative":
        rounded = np.rint(arr) if np.issubdtype(arr.dtype, np.floating) else arr
        return np.maximum(rounded, 0)
    raise InputError(f"Unknown post-processing {given_value(mode)}; choose one of "
                     f"{', '.join(repr(m) for m in POSTPROCESS_MODES)}.", key="postprocess")
