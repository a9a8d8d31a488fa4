"""Units of work for the cluster tests (a module the Ray workers can import)."""

from __future__ import annotations

import time

import numpy as np

from engine.runtime import rng


def seeded_draw(index, shared, progress, cancel):
    """A unit whose numbers depend only on the seed and its index (engine.compute's rule)."""
    return float(rng(shared["seed"], "unit", index).normal())


def slow_after_first(index, shared, progress, cancel):
    """Unit 0 ends at once; every other unit runs for ten minutes unless cancelled."""
    if index == 0:
        return 0
    end = time.monotonic() + 600
    while time.monotonic() < end:
        cancel.check()
        time.sleep(0.05)
    return int(np.int64(index))


def bad_input(index, shared, progress, cancel):
    """A unit that finds bad input (as a defence that does not fit the data does)."""
    from engine.data.errors import InputError
    raise InputError(shared, key="defences.kcd_teachers")
