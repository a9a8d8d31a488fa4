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


def whole_percent(share: float) -> str:
    """``share`` (0–1) as a whole percentage for a sentence, never rounded to a certainty it is
    not: 0.995 reads "99.5%", not "100%" (a summary's "right 100% of the time" beside the
    verdict's "right 99.5%" read as a contradiction, walk-through 2026-11-26), and 0.004 reads
    "0.4%", not "0%". Exact 0 and 1 stay "0%" and "100%"."""
    if not (isinstance(share, (int, float)) and math.isfinite(share)):
        return "—"
    for digits in (0, 1, 2):
        text = f"{share:.{digits}%}"
        shown = float(text.rstrip("%")) / 100
        if (shown < 1 or share >= 1) and (shown > 0 or share <= 0):
            return text
    return "over 99.99%" if share < 1 else "under 0.01%"
