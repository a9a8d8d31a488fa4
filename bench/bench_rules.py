"""The disclosure rules on a table of 30,000 records (issue 34, "Speed and memory": the rule
checks on a table of 30,000 records with all 1- and 2-way marginals take under 5 s).

``python -m bench.bench_rules`` draws a seeded synthetic table of 30,000 records with six
columns (five quasi-identifiers of 4–12 values and a sensitive column of 4) and a whole-number
value column, releases all 1- and 2-way marginals of the six (engine.aggregates.queries
.marginals), and times, median of 3 runs, what the count-table audit's rules part does after
the attacks: the cells and their people (engine.rules.cells), every rule including
differencing and, with the value column, dominance and p % (engine.rules.checks,
engine.rules.differencing), and the comparison for 50 targets (engine.rules.compare). It
prints the cells, the failing cells and the seconds; docs/methods/rules.md records the figure.
"""

from __future__ import annotations

import argparse
import statistics
import time

import numpy as np

from engine.aggregates.queries import Domain, marginals
from engine.rules import (
    RuleSettings,
    cells_from_microdata,
    compare_targets,
    confident_right,
    disagreement,
    failures_by_cell,
    holding_cells,
    rules_block,
)

SIZES = (8, 10, 6, 12, 5, 4)          # the last column is the sensitive one
GOAL_S = 5.0


def synthetic(n: int, seed: int = 7):
    g = np.random.default_rng(seed)
    # Skewed categories (a Zipf-like weight per value), so some cells are small.
    cols = []
    for k in SIZES:
        w = 1.0 / np.arange(1, k + 1) ** 1.2
        cols.append(g.choice(k, n, p=w / w.sum()))
    codes = np.column_stack(cols).astype(np.int32)
    values = np.round(g.lognormal(10, 1.0, n))
    domain = Domain(columns=tuple(f"c{j}" for j in range(len(SIZES))),
                    labels=tuple(tuple(str(v) for v in range(k)) for k in SIZES))
    return domain, codes, values


def check_once(domain, queries, codes, values, targets, scores, truth):
    settings = RuleSettings(value_column="value")
    s = codes.shape[1] - 1
    start = time.perf_counter()
    cells = cells_from_microdata(queries, codes, s, domain.sizes[s], values=values)
    checked = failures_by_cell(cells, settings, domain.sizes, float(codes.shape[0]))
    holds = holding_cells(queries, codes[targets], s)
    found, attack = confident_right(scores, truth)
    rows = compare_targets([f"record {t + 1}" for t in targets], holds, checked[0],
                           cells.labels, cells.tables, np.zeros(targets.size, bool), found,
                           attack)
    block = rules_block(cells, settings, checked, targets=rows,
                        disagreement=disagreement(rows), seconds=None)
    return time.perf_counter() - start, block


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--records", type=int, default=30_000)
    ap.add_argument("--repeats", type=int, default=3)
    args = ap.parse_args(argv)
    domain, codes, values = synthetic(args.records)
    queries = marginals(domain, ways=(1, 2))
    g = np.random.default_rng(1)
    targets = np.sort(g.choice(codes.shape[0], 50, replace=False))
    truth = codes[targets, -1]
    scores = {"a": g.dirichlet(np.ones(SIZES[-1]), targets.size)}
    times = []
    block = None
    for _ in range(args.repeats):
        seconds, block = check_once(domain, queries, codes, values, targets, scores, truth)
        times.append(seconds)
    median = statistics.median(times)
    summary = block["summary"]
    print(f"rules on {codes.shape[0]:,} records, {len(SIZES)} columns, all 1- and 2-way "
          f"marginals: {summary['cells']:,} cells, {summary['failed_cells']:,} failing "
          f"({', '.join(f'{k} {v}' for k, v in summary['by_rule'].items())})")
    print(f"median of {len(times)}: {median:.3f} s (runs: "
          f"{', '.join(f'{t:.3f}' for t in times)}); goal under {GOAL_S:g} s: "
          f"{'met' if median < GOAL_S else 'NOT met'}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
