"""Number formatting rules shared by the GUI and the report (no Qt, no reportlab)."""

from __future__ import annotations

import math


def distinguishing_digits(value: float, other: float, digits: int = 3,
                          most: int = 8) -> str:
    """``value`` with enough significant digits to differ from ``other`` (up to ``most``).

    An accounting bracket whose ends print alike ("between 9.99 and 9.99") reads as a
    contradiction; "between 9.98996 and 9.98997" shows how narrow it really is.
    """
    finite = all(isinstance(v, (int, float)) and math.isfinite(v) for v in (value, other))
    while finite and digits < most and f"{value:.{digits}g}" == f"{other:.{digits}g}":
        digits += 1
    return f"{value:.{digits}g}"
