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


def is_finite(x) -> bool:
    """True for a real number that is finite (not a bool, None, text, NaN or ±inf): the one
    check every reader of results uses before it prints or plots a figure (issue 33 item 1;
    there were nine private copies)."""
    return isinstance(x, (int, float)) and not isinstance(x, bool) and math.isfinite(x)


# Two false-alarm rates are the same setting when they agree to this relative precision
# (configs store 0.01; a float written and read back, or 1/100 computed, must still match).
_RATE_REL_TOL = 1e-9


def same_rate(a, b) -> bool:
    """True when two false-alarm rates name the same setting: the one comparison of rates
    (issue 33 item 1: there were bare ``abs(a - b) < 1e-12`` checks besides three helpers).
    The lookup of a TPR row by its rate is :func:`engine.results.blocks.tpr_row_at`."""
    try:
        return math.isclose(float(a), float(b), rel_tol=_RATE_REL_TOL, abs_tol=1e-15)
    except (TypeError, ValueError):
        return False
