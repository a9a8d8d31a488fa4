"""Location audit benchmarks (issue: paper 000 at full scale on 2 cores, < 10 min, < 4 GB).

1. Aggregate sampling, ours against a straightforward implementation that builds each
   aggregate from sampled traces in a Python loop (the full sites × epochs sum of n people,
   then the read cells), on a reduced size: same work, same numbers in distribution.
2. The paper's experiment at full scale: a synthetic city the size of the paper's (15,800
   people, 96 sites × 800 hourly epochs), the target with 60 positive observations, n = 1,999,
   2,000 and 200,000 shadow aggregates, 50,000 test aggregates, informed and auxiliary
   attacker, every attack: wall time and peak memory (tracemalloc of numpy/scipy/torch CPU
   buffers is not complete, so we report the process's peak resident set from getrusage).

``python -m bench.bench_location --quick`` runs only the first case.
"""

from __future__ import annotations

import resource
import sys
import time

import numpy as np

from bench.timing import report


def _naive_aggregates(rows_matrix, pool_rows, n, count, cells, rng):
    """One aggregate at a time: sample n people, add their full traces, read the cells."""
    out = np.zeros((count, cells.size))
    for i in range(count):
        chosen = rng.choice(pool_rows, size=n, replace=False)
        full = np.zeros(rows_matrix.shape[1])
        for r in chosen:
            row = rows_matrix.getrow(r)
            full[row.indices] += row.data
        out[i] = full[cells]
    return out


def bench_sampling() -> None:
    from engine.data.city import generate_city
    from engine.games.location import CellPool, unknown_counts
    from engine.runtime import rng

    city = generate_city(1, n_users=4000, n_epochs=168)
    m = city.matrix.tocsr()
    k_all = m.getnnz(axis=1)
    target = int(np.argmin(np.abs(k_all - 40)))
    cells = m[target].indices
    pool_rows = np.delete(np.arange(city.n_users), target)
    n, count = 499, 200
    t0 = time.perf_counter()
    ref = _naive_aggregates(m, pool_rows, n, count, cells, rng(0, "naive"))
    t_ref = time.perf_counter() - t0
    pool = CellPool.from_rows(m[pool_rows][:, cells])
    big = 20_000
    t0 = time.perf_counter()
    ours = unknown_counts(pool, n, big, rng(0, "ours"))
    t_ours = (time.perf_counter() - t0) * count / big       # per the same 200 aggregates
    # Same law: the per-cell means agree within sampling error.
    gap = np.abs(ours.mean(0) - ref.mean(0)).max()
    report(f"location aggregate sampling (n={n}, {cells.size} cells, per 200 aggregates; "
           f"max mean gap {gap:.2f})", t_ours, t_ref)


def bench_full_scale() -> None:
    from engine.audits import location as L

    for attacker in ("informed", "auxiliary"):
        config = L.LocationConfig(
            name="bench", city_users=15_800, city_epochs=800, target="observations",
            target_observations=60,
            attacker=attacker, aggregate_size=1999, shadow_aggregates=2000,
            large_shadow_aggregates=200_000, test_aggregates=50_000, sweep_targets=0,
            attacks=L.ATTACKS, seed=7)
        t0 = time.perf_counter()
        result = L.run(config)
        wall = time.perf_counter() - t0
        peak_mb = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
        accs = ", ".join(f"{a['name']} {a['accuracy']:.3f}" for a in result.attacks)
        print(f"location full scale ({attacker}, k = {result.theory['observations']}, "
              f"optimum {result.theory['optimal_attacker']['accuracy']:.3f}): {wall:.1f} s, "
              f"peak RSS {peak_mb:.0f} MB; {accs}", flush=True)


def main() -> None:
    bench_sampling()
    if "--quick" not in sys.argv:
        bench_full_scale()


if __name__ == "__main__":
    main()
