"""Every audit's ``run`` reads config → game → attacks → headline → result in at most 60 lines
(issue 33 item 2: they were 144–167 lines, the game's and the wording's work inline).

Measured on each registered audit type's ``run`` (engine.audits.registry), from its ``def`` to
its last line (decorators and the comment above it not counted), so a new audit type is held
to the same shape."""

from __future__ import annotations

import inspect

import pytest

from engine.audits.registry import AUDIT_TYPES

MAX_RUN_LINES = 60


def run_lines(run) -> int:
    """Lines of ``run`` from its ``def`` line to its last (a decorated run is unwrapped)."""
    lines, _ = inspect.getsourcelines(inspect.unwrap(run))
    first = next(i for i, line in enumerate(lines) if line.lstrip().startswith("def "))
    return len(lines) - first


@pytest.mark.parametrize("name", sorted(AUDIT_TYPES))
def test_each_audit_run_is_at_most_60_lines(name):
    run = AUDIT_TYPES[name].run
    n = run_lines(run)
    assert n <= MAX_RUN_LINES, (
        f"{inspect.getsourcefile(inspect.unwrap(run))}: run() is {n} lines; move blocks of work "
        f"into named functions of the game, attack or headline modules (at most "
        f"{MAX_RUN_LINES}).")


def test_the_measure_counts_from_def_to_the_last_line():
    def three():
        x = 1
        return x

    assert run_lines(three) == 3
