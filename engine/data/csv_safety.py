"""Spreadsheet formula neutralisation for the CSV files the app writes (issue 11).

A text cell that starts with ``=``, ``+``, ``-``, ``@``, a tab or a carriage return is run as
a formula when the file is opened in Excel or LibreOffice (CSV injection: a class name such as
``=HYPERLINK(...)`` taken from a user's data would become a live link in the officer's
spreadsheet). Such a cell is written with a leading apostrophe — spreadsheets show the text as
typed — and the app's own loaders remove that apostrophe again, so files round-trip. Numbers
(``-1.5``, ``+3``, ``-inf``) are left alone: they are values, not formulas, and a negative logit
must stay a number.
"""

from __future__ import annotations

FORMULA_STARTS = ("=", "+", "-", "@", "\t", "\r")
GUARD = "'"


def needs_guard(text: str) -> bool:
    """True for a formula-like text, and for a text that would read back as one once the
    guard is removed (so a cell that already starts with an apostrophe round-trips too)."""
    if not text:
        return False
    if text[0] in FORMULA_STARTS:
        return not _is_number(text)
    return text[0] == GUARD and needs_guard(text[1:])


def neutralise(cell) -> str:
    """The text of ``cell`` as it is safe to write (module docstring)."""
    text = str(cell)
    return GUARD + text if needs_guard(text) else text


def restore(cell) -> str:
    """Undo :func:`neutralise` for a cell read back by the app's loaders."""
    text = str(cell)
    return text[1:] if text[:1] == GUARD and needs_guard(text[1:]) else text


def _is_number(text: str) -> bool:
    try:
        float(text)
    except ValueError:
        return False
    return True
