"""How much slower than on a quiet machine a run started now will go, measured rather than
assumed (issue 33 item 5, "Estimates that hold under load").

The estimate used to read the programs running (/proc/loadavg) and assume a run gets
cores / (load + cores) of the processors. On a machine at load 7–18 that overcorrected 3 to 30
times (count tables estimated at 17–45 minutes for a 333-second run): the load counts threads
this process does not compete with — other containers' and cgroups' threads, threads waiting
on disk, programs kept at a lower priority — so it says nothing certain about the share of
the processors this process will get.

So the share is measured: :func:`probe_share` runs as many threads as the run will use
processors (:func:`probe_threads`), each hashing a buffer (hashlib lets go of Python's lock
while it hashes, so the threads really run side by side) for :data:`PROBE_SECONDS`, and reads
each thread's own processor time against the wall clock. A thread that had a core to itself
used one second of processor time per second; one that shared its core with three busy
programs, a quarter. The slowdown is the inverse of that share, averaged over the threads.

Nothing here compares the probe with a reference machine's speed: how fast this computer is
(its processors, its memory) is what "Measure this machine" fits (engine.estimates.machine);
the probe measures only the share of it that other programs leave to this one now. A reading
is reused for :data:`READING_SECONDS` (the estimate follows every keystroke on the form).

The probe's threads and the run's need not be as many: a run whose heavy steps use one thread
(numpy's draws, scikit-learn's fits) beside two busy programs on two processors gets two
thirds of a processor (slowdown 1.5), while the probe's two threads see half each (2.0) —
measured 28 Nov 2026, 2 cores, two busy loops: mechanism 1.5, count tables 1.3, location 1.7
times the quiet time; the model audit, training on both processors, 1.7–2.0. So the reading is
turned into the busy programs it implies, L = slowdown × cores − probe threads (the threads
that share the processors with the probe's), and the run's slowdown is (L + its threads) ÷
cores, at least 1 (:func:`slowdown_for`).

What a measurement before the run cannot see — a load that starts or stops during it — is the
job of the time left re-estimated from the run's own progress (engine.estimates.remaining).

Pure Python and Qt-free; the clock and the probe can be passed in (tests).
"""

from __future__ import annotations

import hashlib
import os
import threading
import time
from collections.abc import Callable

PROBE_SECONDS = 0.15         # the probe's length (a keystroke's estimate must stay instant)
READING_SECONDS = 5.0        # one reading serves this long
MAX_PROBE_THREADS = 4        # enough to see how the processors a run uses are shared
SLOWDOWN_RANGE = (1.0, 100.0)
_BUFFER = bytes(256 * 1024)  # hashed again and again: a quarter of a millisecond per call

# A probe: (threads, seconds) -> [(processor seconds, wall seconds) per thread].
Probe = Callable[[int, float], list[tuple[float, float]]]


def usable_cores() -> int:
    """The processors this process may run on (its affinity where the system says it)."""
    try:
        return max(len(os.sched_getaffinity(0)), 1)
    except (AttributeError, OSError):
        return max(os.cpu_count() or 1, 1)


def probe_threads(cores: int | None = None) -> int:
    """How many threads the probe runs: one per processor the run may use, at most
    :data:`MAX_PROBE_THREADS` (the audits' heavy steps use two to four threads)."""
    return max(1, min(cores if cores is not None else usable_cores(), MAX_PROBE_THREADS))


def _hash_until(deadline: float, out: list, index: int) -> None:
    cpu0, wall0 = time.thread_time(), time.perf_counter()
    h = hashlib.sha256()
    while time.perf_counter() < deadline:
        h.update(_BUFFER)
    out[index] = (time.thread_time() - cpu0, time.perf_counter() - wall0)


def probe_share(threads: int, seconds: float = PROBE_SECONDS) -> list[tuple[float, float]]:
    """Run ``threads`` hashing threads for ``seconds``; each one's (processor seconds, wall
    seconds)."""
    out: list = [None] * threads
    deadline = time.perf_counter() + seconds
    workers = [threading.Thread(target=_hash_until, args=(deadline, out, i), daemon=True,
                                name=f"load probe {i}") for i in range(threads)]
    for w in workers:
        w.start()
    for w in workers:
        w.join()
    return [r for r in out if r is not None]


def slowdown_from(readings: list[tuple[float, float]]) -> float:
    """The slowdown the probe's threads saw: wall time over processor time, summed over the
    threads (1 when each had a core to itself), within :data:`SLOWDOWN_RANGE`; 1 when the
    readings say nothing (no thread ran, a clock that did not move)."""
    cpu = sum(max(c, 0.0) for c, _ in readings)
    wall = sum(max(w, 0.0) for _, w in readings)
    if cpu <= 0 or wall <= 0:
        return 1.0
    return min(max(wall / cpu, SLOWDOWN_RANGE[0]), SLOWDOWN_RANGE[1])


def slowdown_for(probe_slowdown: float, probe_threads: int, cores: int,
                 run_threads: int) -> float:
    """The slowdown of a run on ``run_threads`` threads, from the probe's reading on
    ``probe_threads`` threads over ``cores`` processors (module docstring): the busy programs
    the reading implies, L = slowdown × cores − probe threads, share the processors with the
    run's threads: (L + run threads) ÷ cores, at least 1, within :data:`SLOWDOWN_RANGE`."""
    cores = max(int(cores), 1)
    busy = max(probe_slowdown * cores - probe_threads, 0.0)
    value = (busy + max(int(run_threads), 1)) / cores
    return min(max(value, SLOWDOWN_RANGE[0]), SLOWDOWN_RANGE[1])


class SlowdownMeter:
    """The measured slowdown, one reading reused for :data:`READING_SECONDS`."""

    def __init__(self, *, probe: Probe = probe_share, clock: Callable[[], float] = time.monotonic,
                 cores: Callable[[], int] = usable_cores) -> None:
        self.probe, self.clock, self.cores = probe, clock, cores
        # (when, the probe's slowdown, its threads, the processors)
        self._reading: tuple[float, float, int, int] | None = None
        self._lock = threading.Lock()

    def __call__(self, *, fresh: bool = False, threads: int | None = None) -> float:
        """The slowdown a run on ``threads`` threads is expected to see now (None: the
        probe's own reading, one thread per processor)."""
        with self._lock:
            now = self.clock()
            if fresh or self._reading is None or now - self._reading[0] >= READING_SECONDS:
                cores = self.cores()
                n = probe_threads(cores)
                self._reading = (self.clock(), slowdown_from(self.probe(n, PROBE_SECONDS)),
                                 n, cores)
            _, value, n, cores = self._reading
            return value if threads is None else slowdown_for(value, n, cores, threads)

    def forget(self) -> None:
        """Drop the reading (the next call measures)."""
        with self._lock:
            self._reading = None


#: The one meter of this process: the estimate before a run and "Measure this machine" read it.
METER = SlowdownMeter()
