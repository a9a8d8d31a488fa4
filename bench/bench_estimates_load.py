"""Estimates against measured runs at several loads (issue 33 item 5, "Estimates that hold under
load"): ``python -m bench.bench_estimates_load [--loads 0 2 8 15] [--cores N] [--cases ...]``.

For each load L this bench starts L busy-loop processes of its own (one core at 100 % each),
waits a moment, and runs the held-out configs of bench/bench_estimates.py (sizes no calibration
used) each in a fresh process (bench.measured_run), printing per config and load the figure the
app would show before the run — the quiet estimate × this machine's measured speed × the
slowdown measured now (engine.estimates.slowdown) — against the measured time:

    load 8 | model 3,000 records …: estimated 41.2 s (slowdown × 4.8), measured 37.9 s,
    ratio 0.92 pass

(ratio = measured / estimated; pass: between 0.5 and 2.) At the end, the slowdown alone: each
run's time over the same config's at the first load, against the ratio of the slowdowns
measured before them. ``--cores N`` pins this process, its
busy loops and its runs to N of the processors (the others' work on a shared machine is then
left alone; the estimate sees N processors, as on an N-core computer). By default the bench
first measures this machine as "Measure this machine" does, quiet (load 0), into a temporary
app-data folder (``--no-measure``: the built-in constants).

A benchmark, never a test: the ratios depend on the machine and what else runs on it.
"""

from __future__ import annotations

import argparse
import multiprocessing
import os
import sys
import tempfile
import time

from bench.bench_estimates import held_out_cases
from bench.measured_run import measure

LOADS = (0, 2, 8, 15)
GOAL = (0.5, 2.0)


def _burn() -> None:                # a busy program: one core at 100 %
    while True:
        pass


def _pin(cores: int | None) -> None:
    """This process (and what it starts from now on) on the first ``cores`` processors."""
    if cores is None or not hasattr(os, "sched_setaffinity"):
        return
    allowed = sorted(os.sched_getaffinity(0))[:cores]
    os.sched_setaffinity(0, allowed)


def _estimate(d: dict):
    """What the app would show for ``d`` now: a fresh slowdown reading, and the estimate as a
    fresh app would make it (torch's one-time start-up counted, whatever this process loaded)."""
    from engine.audits.registry import config_from_dict
    from engine.estimates import estimate
    from engine.estimates.slowdown import METER

    METER.forget()
    loaded = sys.modules.pop("torch._dynamo", None)
    try:
        return estimate(config_from_dict(d, "bench"))
    finally:
        if loaded is not None:
            sys.modules["torch._dynamo"] = loaded


def run_load(load: int, cases: list[tuple[str, dict]], settle_s: float = 2.0) -> list[tuple]:
    burners = [multiprocessing.Process(target=_burn, daemon=True) for _ in range(load)]
    for b in burners:
        b.start()
    rows = []
    try:
        time.sleep(settle_s if load else 0.0)
        for name, d in cases:
            shown = _estimate(d)
            try:
                r = measure(d)
            except RuntimeError as exc:        # a run that failed is reported, not timed
                print(f"load {load:>2} | {name}: the run failed ({str(exc)[-300:]})",
                      flush=True)
                continue
            ratio = r["wall_s"] / max(shown.expected_seconds, 1e-9)
            ok = GOAL[0] <= ratio <= GOAL[1]
            rows.append((load, name, shown.expected_seconds, shown.slowdown, r["wall_s"], ratio))
            print(f"load {load:>2} | {name}: estimated {shown.expected_seconds:.1f} s (slowdown "
                  f"× {shown.slowdown:.2f}), measured {r['wall_s']:.1f} s, ratio {ratio:.2f} "
                  f"{'pass' if ok else 'FAIL'} (load average {os.getloadavg()[0]:.1f})",
                  flush=True)
    finally:
        for b in burners:
            b.terminate()
        for b in burners:
            b.join()
    return rows


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--loads", type=int, nargs="*", default=list(LOADS))
    parser.add_argument("--cores", type=int, default=None,
                        help="pin the bench, its busy loops and its runs to this many processors")
    parser.add_argument("--cases", type=int, nargs="*", default=None,
                        help="which held-out configs (their numbers, from 0); default all")
    parser.add_argument("--no-measure", action="store_true",
                        help="the built-in constants, no measuring of this machine first")
    args = parser.parse_args(argv if argv is not None else sys.argv[1:])
    _pin(args.cores)
    cases = held_out_cases()
    if args.cases is not None:
        cases = [cases[i] for i in args.cases]
    print(f"{len(os.sched_getaffinity(0)) if hasattr(os, 'sched_getaffinity') else os.cpu_count()}"
          f" processors; load average before: {os.getloadavg()[0]:.1f}", flush=True)
    with tempfile.TemporaryDirectory(prefix="pra-bench-app-data-") as folder:
        os.environ["PRA_APP_DATA"] = folder                 # the children read it too
        if not args.no_measure:
            from engine.estimates.measuring import measure_machine
            t0 = time.perf_counter()
            measured = measure_machine()
            print(f"measured this machine in {time.perf_counter() - t0:.0f} s: " + ", ".join(
                f"{k} × {v:.2f}" for k, v in sorted(measured.factors.items())), flush=True)
        rows = []
        for load in args.loads:
            rows += run_load(load, cases)
    for load in args.loads:
        ratios = [r[5] for r in rows if r[0] == load]
        if not ratios:
            continue
        inside = sum(GOAL[0] <= x <= GOAL[1] for x in ratios)
        print(f"load {load}: ratios {min(ratios):.2f} to {max(ratios):.2f}, {inside} of "
              f"{len(ratios)} between {GOAL[0]} and {GOAL[1]}", flush=True)
    # The slowdown alone, apart from the quiet estimate's own error (the cost model and this
    # machine's factors): each run's time over the same config's at the first load, against
    # the measured slowdowns' ratio.
    base = {r[1]: r for r in rows if r[0] == args.loads[0]}
    for load, name, _, slow, wall, _ in rows:
        if load != args.loads[0] and name in base:
            took, said = wall / base[name][4], slow / base[name][3]
            print(f"load {load} vs {args.loads[0]} | {name}: took {took:.2f} times as long, the "
                  f"measured slowdown said {said:.2f} (ratio {took / said:.2f})", flush=True)
    return 0 if all(GOAL[0] <= r[5] <= GOAL[1] for r in rows) else 1


if __name__ == "__main__":
    sys.exit(main())
