"""Fixed-aggregate-statistics benchmarks (issue 7, paper 003): the issue's numbers.

A synthetic census block of 450 records (4,000 auxiliary records, seed 0), the P-tables "sex by
age group for each race" with m = 0.25·|D| = 112 released queries, race as the sensitive
attribute, every target unique on its quasi-identifiers:

1. DeSIA's deterministic module on every unique target: median and 95th-percentile seconds per
   target (goal: median under 1 s on 2 cores).
2. The stochastic module's 20,000 shadow datasets and the fit for one target, against a
   per-dataset Python loop computing only the answers (500 datasets, scaled to 20,000).
3. Memory: peak traced allocation (tracemalloc; numpy registers its buffers with it) while the
   20,000 shadow datasets' answers are built, at 5,000 and 20,000 shadows, beside the two
   things an unbatched build would hold at once — so the peak staying near the (N × m) answer
   matrix shows the shadows are made batch by batch.
4. CIP-rand with K = 100 reconstructions, on the exact release and on a Laplace-noised one
   (ε = 0.5 per query: the L1 model of §5.6). RAP-rand with K = 10 and K = 100 (the K runs
   are one stacked batch; on 2 CPU cores K = 100 takes a bit over a minute, on a GPU
   seconds); the K = 10 line also extrapolates linearly to K = 100.

``python -m bench.bench_aggregates`` (``--quick``: the first 20 targets, CIP K = 10, RAP K = 2
only).
"""

from __future__ import annotations

import resource
import sys
import time
import tracemalloc

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
          f"{np.percentile(seconds, 95):.3f} s, max {np.max(seconds):.3f} s "
          f"({len(release.queries)} released queries, |D| = {protected.n_records})",
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
    # The target the most released cells can count (whatever its race): the fit then has the
    # most features (a target no released cell covers leaves the classifier nothing to fit).
    covering = [sum(all(protected.codes[t, c] in allowed for c, allowed in q.conditions
                        if c != sensitive) for q in release.queries) for t in targets]
    target = targets[int(np.argmax(covering))]
    t0 = time.perf_counter()
    out = fit_and_score(release.queries, release.released_answers, protected.codes[target],
                        sensitive, auxiliary.codes, n, domain, n_shadow=20_000, seed=0)
    t_ours = time.perf_counter() - t0
    report(f"DeSIA stochastic module, 20,000 shadow datasets and the fit (shadows "
           f"{out['seconds']['shadows']:.2f} s, fit {out['seconds']['fit']:.2f} s on "
           f"{out['n_features']} features, validation AUC {out['validation_auc']:.3f}; "
           f"reference = answers alone, per-dataset loop of {loop} scaled to 20,000)",
           t_ours, t_loop)


def bench_memory(protected, auxiliary, domain, release, sensitive) -> None:
    from engine.attacks.aggregates.desia_stochastic import ShadowAnswers

    n, m = protected.n_records, len(release.queries)
    n_aux = auxiliary.n_records
    peaks = {}
    for n_shadow in (5_000, 20_000):
        tracemalloc.start()
        shadows = ShadowAnswers(list(release.queries), auxiliary.codes, domain, sensitive,
                                n_shadow, n - 1, randomise_sensitive=True, extra=False, seed=0)
        peaks[n_shadow] = tracemalloc.get_traced_memory()[1] / 2**20
        tracemalloc.stop()
        del shadows
    output = 20_000 * m * 8 / 2**20
    all_codes = 20_000 * (n - 1) * protected.codes.shape[1] * 4 / 2**20
    all_keys = 20_000 * n_aux * 4 / 2**20
    rss = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
    print(f"Shadow answers, peak traced memory: {peaks[5_000]:.0f} MiB for 5,000 shadows, "
          f"{peaks[20_000]:.0f} MiB for 20,000 — of which the kept (20,000 × {m}) answer "
          f"matrix is {output:.0f} MiB; unbatched, the 20,000 datasets' codes alone would take "
          f"{all_codes:.0f} MiB and the random keys that sample them from the {n_aux:,} "
          f"auxiliary records {all_keys:.0f} MiB. Process peak RSS so far {rss:.0f} MiB.",
          flush=True)


def bench_reconstructions(protected, auxiliary, domain, release, *, k_cip: int = 100,
                          k_rap: int = 10, k_rap_full: int | None = 100) -> None:
    from engine.aggregates.release import ReleaseSpec, noisy_answers
    from engine.attacks.aggregates.cip import reconstruct_cip
    from engine.attacks.aggregates.rap import reconstruct_rap
    from engine.runtime import device, rng

    n = protected.n_records
    t0 = time.perf_counter()
    exact = reconstruct_cip(domain.sizes, release.queries, release.released_answers, n,
                            k=k_cip, seed=0)
    print(f"CIP-rand, K = {k_cip} reconstructions (exact release): "
          f"{time.perf_counter() - t0:.1f} s ({exact.k} solved)", flush=True)
    spec = ReleaseSpec(kind="p_tables", fraction=0.25, mechanism="laplace", epsilon=0.5,
                       budget="per_query")
    noisy = noisy_answers(release.true_answers, spec, release.sensitivity, rng(0, "bench-noise"))
    t0 = time.perf_counter()
    rec = reconstruct_cip(domain.sizes, release.queries, noisy, n, k=k_cip, seed=0)
    statuses = rec.details["statuses"]
    print(f"CIP-rand, K = {k_cip} reconstructions (Laplace ε = 0.5 per query, L1 model): "
          f"{time.perf_counter() - t0:.1f} s ({sum(s == 'L1_OPTIMAL' for s in statuses)} "
          f"solved to optimality)", flush=True)
    dev = device()
    for k in dict.fromkeys((k_rap, k_rap_full)):
        if k is None:
            continue
        t0 = time.perf_counter()
        reconstruct_rap(domain.sizes, release.queries, release.released_answers, n, k=k,
                        seed=0)
        took = time.perf_counter() - t0
        note = "" if k >= 100 else (f"; K = 100 extrapolated linearly: about "
                                    f"{took * 100 / k:.0f} s")
        print(f"RAP-rand, K = {k} runs (one stacked batch, 1,500 epochs) on {dev}: "
              f"{took:.1f} s{note}", flush=True)


def main() -> None:
    quick = "--quick" in sys.argv
    protected, auxiliary, domain, release, sensitive, targets = _setup()
    bench_deterministic(protected, domain, release, sensitive,
                        targets[:20] if quick else targets)
    bench_stochastic(protected, auxiliary, domain, release, sensitive, targets)
    bench_memory(protected, auxiliary, domain, release, sensitive)
    bench_reconstructions(protected, auxiliary, domain, release,
                          k_cip=10 if quick else 100, k_rap=2 if quick else 10,
                          k_rap_full=None if quick else 100)


if __name__ == "__main__":
    main()
