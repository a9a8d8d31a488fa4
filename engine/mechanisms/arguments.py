"""Checks of mechanism parameters shared by calibration, sampling, accounting and trade-offs.

Configs are validated with key names before any of this runs (engine/audits); these checks
guard the functions when they are called directly, with the same plain sentences.
"""

from __future__ import annotations

import math

from engine.data.errors import InputError, given_value

MECHANISM_NAMES = ("laplace", "gaussian", "discrete_laplace", "discrete_gaussian")


def positive(value, what: str, key: str) -> float:
    """A positive finite number, else InputError naming ``what``."""
    try:
        v = float(value)
    except (TypeError, ValueError):
        raise InputError(f"The {what} must be a number, got {given_value(value)}.", key=key) from None
    if not math.isfinite(v) or v <= 0:
        raise InputError(f"The {what} must be a positive finite number, got {given_value(value)}.", key=key)
    return v


def sensitivity(value, *, integer: bool = False) -> float:
    """Δ > 0; a whole number for the discrete mechanisms (they add integer noise)."""
    s = positive(value, "sensitivity", "sensitivity")
    if integer and s != round(s):
        raise InputError(f"Discrete mechanisms add integer noise, so the sensitivity must be a "
                         f"whole number (1, 2, ...); got {given_value(value)}.", key="sensitivity")
    return s


def open_delta(value) -> float:
    """δ strictly between 0 and 1."""
    try:
        d = float(value)
    except (TypeError, ValueError):
        raise InputError(f"Delta must be a number, got {given_value(value)}.", key="delta") from None
    if not 0.0 < d < 1.0:
        raise InputError(f"Delta must lie strictly between 0 and 1 (for example 1e-5), got "
                         f"{given_value(value)}.", key="delta")
    return d


def observations(value) -> int:
    """k ≥ 1, a whole number."""
    try:
        k = int(value)
    except (TypeError, ValueError):
        raise InputError(f"The number of observations must be a whole number, got {given_value(value)}.",
                         key="observations") from None
    if k != value or k < 1:
        raise InputError(f"The number of observations must be a whole number of at least 1, "
                         f"got {given_value(value)}.", key="observations")
    return k


def unknown_mechanism(name) -> InputError:
    """The error to raise for a mechanism name that is not one of :data:`MECHANISM_NAMES`."""
    return InputError(f"Unknown mechanism {given_value(name)}; choose one of {', '.join(MECHANISM_NAMES)}.",
                      key="mechanism")
