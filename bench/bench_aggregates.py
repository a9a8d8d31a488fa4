"""Fixed-aggregate-statistics benchmarks (issue 7, paper 003), on the modules built so far.

A synthetic census block of 450 records (4,000 auxiliary records), the P-tables "sex by age
group for each race" with m = 0.25·|D| released queries, race as the sensitive attribute:

1. DeSIA's deterministic module on every target unique on its quasi-identifiers: median and
   95th-percentile seconds per target (goal: median under 1 s on 2 cores).
2. The stochastic module's 20,000 shadow datasets against a per-dataset Python loop (500
   datasets, scaled), and the whole fit for one target.
3. CIP with K = 100 reconstructions; RAP with K = 10 (K = 100 wants a GPU: see the note).

``python -m bench.bench_aggregates``.
"""

from __future__ import annotations

import time

import numpy as np

from bench.timing import report


def _setup():
    from engine.aggregates.release import ReleaseSpec, build_release
    from engine.attacks.aggregates.desia_stochastic import as_domain
    from engine.data.census import generate_census_blocks
    from engine.data.microdata import unique_targets
    from engine.runtime import rng

    protected, auxiliary = generate_census_blocks(0)
    domain = as_domain(protected.schema)
    release = build_release(ReleaseSpec(kind="p_tables", fraction=0.25), domain,
                            protected.codes, rng(0, "bench-release"))
    sensitive = protected.schema.index(protected.schema.sensitive)
    return protected, auxiliary, domain, release, sensitive, unique_targets(protected)


def bench_deterministic(protected, domain, release, sensitive, targets) -> None:
    from engine.attacks.aggregates import desia_deterministic as dd

    space = dd.RecordSpace.of(domain.sizes)
    masks = [space.matches(q.conditions) for q in release.queries]
    seconds, determined = [], 0
    for t in targets:
        qi = {c: int(protected.codes[t, c]) for c in range(protected.codes.shape[1])
              if c != sensitive}
        out = dd.infer(space, masks, release.released_answers, protected.n_records, qi,
                       sensitive, time_limit=30)
        seconds.append(out.seconds)
        determined += out.status == "determined"
    print(f"DeSIA deterministic module: {len(targets)} unique targets, {determined} "
          f"determined; per target median {np.median(seconds):.3f} s, 95th percentile "
          f"{np.percentile(seconds, 95):.3f} s ({len(release.queries)} released queries)",
          flush=True)


def bench_stochastic(protected, auxiliary, domain, release, sensitive, targets) -> None:
    from engine.aggregates.queries import answers
    from engine.attacks.aggregates.desia_stochastic import fit_and_score

    n, g = protected.n_records, np.random.default_rng(0)
    loop = 500
    t0 = time.perf_counter()
    for _ in range(loop):
        rows = g.choice(auxiliary.n_records, n - 1, replace=False)
        answers(release.queries, auxiliary.codes[rows])
    t_loop = (time.perf_counter() - t0) * 20_000 / loop
    t0 = time.perf_counter()
    out = fit_and_score(release.queries, release.released_answers, protected.codes[targets[0]],
                        sensitive, auxiliary.codes, n, domain, n_shadow=20_000, seed=0)
    t_ours = time.perf_counter() - t0
    report(f"DeSIA stochastic module, 20,000 shadow datasets and the fit (validation AUC "
           f"{out['validation_auc']:.3f}; reference = answers alone, per-dataset loop)",
           t_ours, t_loop)


def bench_reconstructions(protected, auxiliary, domain, release) -> None:
    from engine.attacks.aggregates.cip import reconstruct_cip
    from engine.attacks.aggregates.rap import reconstruct_rap

    t0 = time.perf_counter()
    reconstruct_cip(domain.sizes, release.queries, release.released_answers,
                    protected.n_records, k=100, seed=0)
    print(f"CIP-rand, K = 100 reconstructions: {time.perf_counter() - t0:.1f} s", flush=True)
    t0 = time.perf_counter()
    reconstruct_rap(domain.sizes, release.queries, release.released_answers,
                    protected.n_records, k=10, seed=0)
    print(f"RAP-rand, K = 10 runs (batched): {time.perf_counter() - t0:.1f} s; K = 100 on a "
          "CPU takes minutes, on a GPU the stacked runs are one tensor", flush=True)


def main() -> None:
    protected, auxiliary, domain, release, sensitive, targets = _setup()
    bench_deterministic(protected, domain, release, sensitive, targets)
    bench_stochastic(protected, auxiliary, domain, release, sensitive, targets)
    bench_reconstructions(protected, auxiliary, domain, release)


if __name__ == "__main__":
    main()
