"""Running OR-Tools CP-SAT under the job contract (ARCHITECTURE §3).

A solve gets the cancel token through a watchdog thread that calls ``stop_search()`` while the
search runs (CP-SAT only honours it during search, so the watchdog keeps calling it until the
solve returns), plus a per-solve time limit; then ``cancel.check()`` raises JobCancelled.
"""

from __future__ import annotations

import os
import threading

from engine.runtime import NEVER, CancelToken

POLL_SECONDS = 0.05
# Deterministic solves: wall-clock limit = this × the limit + 5 s, a guard only. At 3× a 2-core
# machine at load 6 (27 Nov 2026) cut 2-unit CIP solves at 11 s, and the same seed gave other
# reconstructions. At 10× a solve keeps its deterministic limit up to a tenfold slowdown where
# a unit is about a second of one core (the tests' noisy model); on the GSS table's L1 models
# at load 5 on 2 cores a block still had 28 of ~150–200 solves cut, so a cut solve is marked
# (cip._wall_clock_mark) and the audit says so (games.aggregates.CLOCK_CUTS).
# The environment variable PRA_SOLVER_WALL_BACKSTOP overrides it (read at every solve, so Ray
# workers started here see it too): the tests set it high, since a test's numbers must not
# depend on how busy the machine is (docs/dev/tests.md).
WALL_BACKSTOP = 10.0


def wall_backstop() -> float:
    """The backstop factor in force: PRA_SOLVER_WALL_BACKSTOP when set to a number ≥ 1, else
    WALL_BACKSTOP."""
    try:
        value = float(os.environ.get("PRA_SOLVER_WALL_BACKSTOP", ""))
    except ValueError:
        return WALL_BACKSTOP
    return value if value >= 1.0 else WALL_BACKSTOP


def solve(model, *, time_limit: float, workers: int = 2, cancel: CancelToken = NEVER,
          seed: int = 0, deterministic: bool = False):
    """Solve ``model``; returns (status name, solver). Raises JobCancelled if cancelled.

    ``deterministic``: ``time_limit`` is CP-SAT's deterministic time (work units, about a
    second each on a current core), so a limit that binds stops the search at the same point
    on every run and machine; a wall clock of WALL_BACKSTOP × ``time_limit`` + 5 s only guards
    against a much slower machine. Otherwise ``time_limit`` is wall-clock seconds."""
    from ortools.sat.python import cp_model

    solver = cp_model.CpSolver()
    if deterministic:
        solver.parameters.max_deterministic_time = float(time_limit)
        solver.parameters.max_time_in_seconds = wall_backstop() * float(time_limit) + 5.0
    else:
        solver.parameters.max_time_in_seconds = float(time_limit)
    solver.parameters.num_workers = int(workers)
    solver.parameters.random_seed = int(seed) % (2**31 - 1)
    done = threading.Event()

    def watchdog() -> None:
        while not done.wait(POLL_SECONDS):
            if cancel.cancelled:
                solver.stop_search()

    watcher = None
    if cancel is not NEVER:
        watcher = threading.Thread(target=watchdog, name="cp-sat-cancel", daemon=True)
        watcher.start()
    try:
        status = solver.solve(model)
    finally:
        done.set()
        if watcher is not None:
            watcher.join()
    cancel.check()
    return solver.status_name(status), solver
