"""Count tables at tract scale (issue 22 item 5): DeSIA's 20,000 shadow datasets and its
deterministic module on a 29,500-record table, today's signal-cell path against the
whole-table path it replaced, in one run.

The table is a synthetic stand-in for a census tract (no network): 29,500 records over five
columns of 7 × 6 × 5 × 17 × 4 categories (14,280 possible records; skewed categories, the
4-category sensitive column tied to two quasi-identifiers), released as all 1- and 2-way
marginals (592 cells), exact; the attacker's auxiliary data are 9 × as many records from the
same distribution (paper 003 §5).

1. Attribute game (Alg. 2): one unique target's 20,000 shadow datasets on its signal cells,
   against the whole-table build (bench/desia_naive.py) timed at 200 and 400 shadows and
   extrapolated linearly to 20,000 (a full whole-table run takes about a quarter of an hour);
   peak traced memory (tracemalloc) of each.
2. Membership game (§6.2): the same, the whole-table path with its old default (every
   released query as a feature).
3. The deterministic module (Alg. 1) at the audit's default solver limit (10 s per solve):
   as published (two CP-SAT solves per target) on the first three unique targets, against
   the auditor's shortcut from the true table (engine.attacks.aggregates.desia_witness) on
   the same three and on every unique target: seconds per target and what each proved, and
   how (a witness table, the released zeros, or the solver).

``python -m bench.bench_tract`` (``--quick``: the whole-table path at 100 and 200 shadows,
one deterministic target as published, 20 with the shortcut). ``--deterministic``: part 3
only.
"""

from __future__ import annotations

import sys
import time
import tracemalloc

import numpy as np

from bench.timing import report

N_RECORDS = 29_500
SIZES = (7, 6, 5, 17, 4)
N_SHADOW = 20_000


def tract_table(seed: int = 0):
    """(Domain, protected codes, auxiliary codes, 1- and 2-way marginal queries)."""
    from engine.aggregates.queries import Domain, marginals

    names = ("age_group", "household", "tenure", "race_ethnicity", "income_band")
    dom = Domain(names, tuple(tuple(f"{c}_{i}" for i in range(s))
                              for c, s in zip(names, SIZES, strict=True)))
    g = np.random.default_rng(seed)
    total = 10 * N_RECORDS
    cols = [g.choice(s, total, p=g.dirichlet(np.full(s, 0.7))) for s in SIZES[:-1]]
    tied = (cols[0] + cols[3]) % SIZES[-1]
    sens = np.where(g.random(total) < 0.5, tied, g.integers(0, SIZES[-1], total))
    codes = np.stack(cols + [sens], axis=1).astype(np.int32)
    return dom, codes[:N_RECORDS], codes[N_RECORDS:], marginals(dom, (1, 2))


def unique_rows(codes: np.ndarray) -> np.ndarray:
    _, inv, cnt = np.unique(codes[:, :-1], axis=0, return_inverse=True, return_counts=True)
    return np.flatnonzero(cnt[inv.reshape(-1)] == 1)


def _timed(fn):
    tracemalloc.start()
    t0 = time.perf_counter()
    out = fn()
    took = time.perf_counter() - t0
    peak = tracemalloc.get_traced_memory()[1] / 2**20
    tracemalloc.stop()
    return out, took, peak


def _naive_seconds(fn, sizes) -> tuple[float, float]:
    """Whole-table seconds for N_SHADOW shadows, extrapolated from two smaller runs (fixed +
    per-shadow), and the peak traced MiB of the larger run."""
    runs = [_timed(lambda n=n: fn(n)) for n in sizes]
    (_, t1, _), (_, t2, peak) = runs
    per = (t2 - t1) / (sizes[1] - sizes[0])
    return max(t2, t2 + per * (N_SHADOW - sizes[1])), peak


def bench_shadows(dom, codes, aux, queries, target, sizes) -> None:
    from bench.desia_naive import naive_aia_features, naive_mia_features
    from engine.attacks.aggregates import desia_stochastic as ds

    s, n = len(SIZES) - 1, codes.shape[0]
    t_old, m_old = _naive_seconds(lambda k: naive_aia_features(
        queries, codes[target], s, aux, n, dom, n_shadow=k, seed=0), sizes)
    trows = ds.target_candidate_rows(codes[target], dom, s)
    contrib = ds.target_answers(queries, trows)
    mask = contrib.any(axis=0)
    plan = ds.signal_shadows(queries, mask, contrib, aux, n - 1, N_SHADOW, sensitive=s,
                             n_values=SIZES[-1], membership=False, seed=0,
                             stream=("bench-tract-aia",))
    (x, _), t_new, m_new = _timed(plan.build)
    report(f"Tract-sized table, attribute game: {N_SHADOW:,} shadow datasets of {n:,} records "
           f"({len(queries)} released cells; signal cells {x.shape[1]}, "
           f"{plan.class_sizes.size} record classes, chunks of {plan.chunk_rows:,}; "
           f"peak traced memory {m_new:.1f} MiB, whole-table path {m_old:.0f} MiB at "
           f"{sizes[1]} shadows; reference = whole tables, timed at {sizes[0]} and "
           f"{sizes[1]} shadows and extrapolated)", t_new, t_old)
    t_old, m_old = _naive_seconds(lambda k: naive_mia_features(
        queries, codes[target], aux, n, dom, n_shadow=k, seed=0), sizes)
    contrib = ds.target_answers(queries, codes[target][None, :])
    mask = contrib[0] > 0
    plan = ds.signal_shadows(queries, mask, contrib, aux, n - 1, N_SHADOW, sensitive=None,
                             n_values=1, membership=True, seed=0,
                             stream=("bench-tract-mia",))
    (x, _), t_new, m_new = _timed(plan.build)
    report(f"Tract-sized table, membership game: {N_SHADOW:,} shadow datasets (signal cells "
           f"{x.shape[1]} of {len(queries)}, {plan.class_sizes.size} record classes; peak "
           f"traced memory {m_new:.1f} MiB, whole-table path {m_old:.0f} MiB at "
           f"{sizes[1]} shadows; reference = whole tables with every cell, extrapolated)",
           t_new, t_old)


def bench_fit(dom, codes, aux, queries, target) -> None:
    from engine.aggregates.queries import answers
    from engine.attacks.aggregates import desia_stochastic as ds

    out = ds.fit_and_score(queries, answers(queries, codes), codes[target], len(SIZES) - 1,
                           aux, codes.shape[0], dom, n_shadow=N_SHADOW, seed=0)
    print(f"Tract-sized table, one target end to end: shadows {out['seconds']['shadows']:.2f} "
          f"s, logistic fit {out['seconds']['fit']:.2f} s on {out['n_features']} features "
          f"(validation AUC {out['validation_auc']:.3f})", flush=True)


def _prove(dd, space, masks, released, n, codes, targets, time_limit, **shortcut):
    s = len(SIZES) - 1
    seconds, outcomes = [], {}
    for t in targets:
        out = dd.infer(space, masks, released, n, {c: int(codes[t, c]) for c in range(s)}, s,
                       time_limit=time_limit, **shortcut)
        seconds.append(out.seconds)
        key = f"{out.status} ({out.settled_by})" if out.settled_by else out.status
        outcomes[key] = outcomes.get(key, 0) + 1
    return np.array(seconds), outcomes


def bench_deterministic(dom, codes, queries, targets, old_targets: int,
                        time_limit: float = 10.0) -> None:
    """Alg. 1 as published (two CP-SAT solves) on the first ``old_targets`` unique targets,
    and the auditor's shortcut (desia_witness) on the same ones and on every unique target."""
    from engine.aggregates.queries import answers
    from engine.attacks.aggregates import desia_deterministic as dd
    from engine.attacks.aggregates import desia_witness as dw

    s = len(SIZES) - 1
    released = answers(queries, codes)
    t0 = time.perf_counter()
    space = dd.RecordSpace.of(dom)
    masks = [space.matches(q.conditions) for q in queries]
    setup = time.perf_counter() - t0
    t0 = time.perf_counter()
    layout = dw.ReleaseLayout.of(space, masks, s)
    truth = np.bincount(np.ravel_multi_index(tuple(codes.T), dom.sizes),
                        minlength=space.codes.shape[0])
    setup_new = time.perf_counter() - t0
    n = codes.shape[0]
    old, old_out = _prove(dd, space, masks, released, n, codes, targets[:old_targets],
                          time_limit)
    same, same_out = _prove(dd, space, masks, released, n, codes, targets[:old_targets],
                            time_limit, true_counts=truth, layout=layout)
    new, new_out = _prove(dd, space, masks, released, n, codes, targets, time_limit,
                          true_counts=truth, layout=layout)
    print(f"Tract-sized table, deterministic module ({space.codes.shape[0]:,} possible records, "
          f"{len(queries)} cells, {time_limit:g} s per solve; record space and cell masks "
          f"{setup:.2f} s once, the shortcut's layout and true table {setup_new:.2f} s once):\n"
          f"  as published (two solves), first {old.size} unique targets: per target median "
          f"{np.median(old):.2f} s, max {np.max(old):.2f} s; outcomes {old_out}\n"
          f"  auditor's shortcut, the same {same.size}: median {np.median(same):.2f} s, max "
          f"{np.max(same):.2f} s; outcomes {same_out}\n"
          f"  auditor's shortcut, all {new.size} unique targets: median {np.median(new):.2f} s, "
          f"max {np.max(new):.2f} s, total {new.sum():.1f} s; outcomes {new_out}", flush=True)


def main() -> None:
    quick = "--quick" in sys.argv
    dom, codes, aux, queries = tract_table()
    targets = unique_rows(codes)
    if "--deterministic" not in sys.argv:
        bench_parts_1_2(dom, codes, aux, queries, targets, quick)
    bench_deterministic(dom, codes, queries, targets[:20] if quick else targets,
                        1 if quick else 3)


def bench_parts_1_2(dom, codes, aux, queries, targets, quick: bool) -> None:
    bench_shadows(dom, codes, aux, queries, int(targets[0]), (100, 200) if quick else (200, 400))
    bench_fit(dom, codes, aux, queries, int(targets[0]))


if __name__ == "__main__":
    main()
