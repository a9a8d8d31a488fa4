"""How torch's CPU threads wait, quiet and with other programs on the cores (issue 21, "estimates
that hold": the model estimate was 3–18 times low on a busy machine).

torch runs its CPU kernels on OpenMP threads. By default a thread that finishes its share spins
at full speed while it waits for the others; when other programs hold the cores, the spinning
thread takes the core from the very thread it waits for. ``engine/__init__.py`` therefore sets
``OMP_WAIT_POLICY=PASSIVE`` (threads sleep while they wait) unless the user set it. This bench
runs the model audit's held-out sample (bench/bench_estimates.py) in fresh processes, the way
the estimates bench measures it, three ways in turn:

* ``spinning``: OpenMP's default wait (what ran before), two threads;
* ``sleeping``: ``OMP_WAIT_POLICY=PASSIVE`` (what runs now), two threads;
* ``one thread``: ``OMP_NUM_THREADS=1`` (the other way out of the contention),

first on the machine as it is, then with two busy programs (one core each at 100 %), and prints
the median wall time of each and the ratio spinning ÷ sleeping. The three give the same
numbers (checked by tests/engine/test_thread_wait.py).

``python -m bench.bench_threads [--repeats N]`` (default 3; about 4 minutes on 2 cores).

Measured 27 Nov 2026, 2 cores, no GPU: quiet (load 1.0) spinning 7.1 s, sleeping 7.3 s, one
thread 6.9 s (spinning ÷ sleeping 0.98: no cost when the cores are free); with the two busy
programs spinning 13.7 s (one run 29.3 s), sleeping 11.9 s, one thread 11.5 s (1.16). With six
other engineers' jobs on the cores (load 7–12, the same sample in one process, interleaved):
spinning 48–94 s, sleeping 10–18 s, one thread 16–20 s — the many-times-low estimates of
issue 21 on a busy machine.
"""

from __future__ import annotations

import argparse
import multiprocessing
import os
import statistics
import time

from bench.measured_run import measure

WAYS = {"spinning": {"OMP_WAIT_POLICY": ""},        # empty: OpenMP's own default
        "sleeping": {"OMP_WAIT_POLICY": "PASSIVE"},
        "one thread": {"OMP_WAIT_POLICY": "PASSIVE", "OMP_NUM_THREADS": "1"}}


def _model_case() -> dict:
    from bench.bench_estimates import held_out_cases

    return dict(held_out_cases())["model 3,000 records, 3 shadows, confidence + Shokri"]


def _burn() -> None:                # a busy program: one core at 100 %
    while True:
        pass


def _run(config: dict, env: dict) -> float:
    saved = {k: os.environ.get(k) for k in env}
    os.environ.update(env)          # measure() hands this process's environment to the child
    try:
        return measure(config)["wall_s"]
    finally:
        for k, v in saved.items():
            if v is None:
                os.environ.pop(k, None)
            else:
                os.environ[k] = v


def phase(label: str, config: dict, repeats: int) -> dict[str, float]:
    times: dict[str, list[float]] = {way: [] for way in WAYS}
    for _ in range(repeats):                    # interleaved: each way sees the same load
        for way, env in WAYS.items():
            times[way].append(_run(config, env))
    medians = {way: statistics.median(t) for way, t in times.items()}
    for way, t in times.items():
        print(f"{label} {way}: median {medians[way]:.1f} s "
              f"(runs {', '.join(f'{x:.1f}' for x in t)})", flush=True)
    print(f"{label}: spinning ÷ sleeping {medians['spinning'] / medians['sleeping']:.2f}, "
          f"one thread ÷ sleeping {medians['one thread'] / medians['sleeping']:.2f} "
          f"(load average {os.getloadavg()[0]:.1f})", flush=True)
    return medians


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeats", type=int, default=3)
    args = parser.parse_args(argv)
    config = _model_case()
    phase("as it is", config, args.repeats)
    burners = [multiprocessing.Process(target=_burn, daemon=True) for _ in range(2)]
    for b in burners:
        b.start()
    try:
        time.sleep(5)
        phase("two busy programs", config, args.repeats)
    finally:
        for b in burners:
            b.terminate()
            b.join()
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
