"""How numbers read on screen: the same rounding in the table, the banner and the boxes.

Kept Qt-free and tiny so that every widget formats a rate, an interval or an ε the same way.
"""

from __future__ import annotations

from engine.numbers import distinguishing_digits, is_finite


def is_number(value) -> bool:
    """A finite real number (not a bool): engine.numbers.is_finite, the one finite check."""
    return is_finite(value)


def pct(value, digits: int = 1) -> str:
    """0.1234 -> '12.3 %'; missing values -> '—'."""
    if not is_number(value):
        return "—"
    return f"{100 * value:.{digits}f} %"


def number(value, digits: int = 3) -> str:
    """A plain number with ``digits`` significant digits; missing values -> '—'."""
    if not is_number(value):
        return "—"
    return f"{value:.{digits}g}"


def bracket_number(value, other, digits: int = 3) -> str:
    """``value`` with enough significant digits to differ from ``other`` (narrow brackets)."""
    if not (is_number(value) and is_number(other)):
        return number(value, digits)
    return distinguishing_digits(value, other, digits)


def interval(ci, formatter=number) -> str:
    """'[0.81, 0.84]' from a two-element list; '' when there is no interval."""
    if not ci or len(ci) != 2 or not all(is_number(v) for v in ci):
        return ""
    return f"[{formatter(ci[0])}, {formatter(ci[1])}]"


def with_interval(value, ci, formatter=number) -> str:
    """'0.825 [0.81, 0.84]' (value and its confidence interval in one cell)."""
    text = formatter(value)
    ci_text = interval(ci, formatter)
    return f"{text} {ci_text}" if ci_text else text


def fpr_label(fpr: float) -> str:
    """0.001 -> '0.1 %', 0.01 -> '1 %', 0.1 -> '10 %' (as officers read false-alarm rates)."""
    return f"{100 * fpr:g} %"
