"""A comparison of 4 candidates against the same 4 audits run one by one (issue 34 item 1,
"Speed and memory": a comparison of 4 candidates costs at most 4 × one audit plus 10 %).

``python -m bench.bench_compare`` runs, in this one process, the location sample's candidates
at ε = 0.5, 1, 2 and 4 per hour (the example spec's smaller sizes,
resources/configs/compare_location_epsilon.toml) twice, alternating the order:

* **one by one** — ``engine.audits.registry.run_audit`` on each candidate's config, nothing
  written (the audits alone);
* **compared** — ``engine.compare.run_comparison`` over the same four candidates: the same runs
  plus each candidate's folder, comparison.json after each, the summary and the cost draws.

It prints both times, the ratio compared ÷ one-by-one (goal ≤ 1.10), the comparison's time
against its own candidates' audit times (each result's runtime_s: what the comparison adds,
measured in the same minute, so load from other programs changes both alike) and the largest
resident memory; docs/methods/compare.md records the figures. A first small run warms the
imports, so neither side pays for them.
"""

from __future__ import annotations

import argparse
import resource
import tempfile
import time
from pathlib import Path

from engine.audits.registry import run_audit
from engine.compare import Candidate, load_candidates, run_comparison
from engine.data.paths import APP_FOLDER

SPEC = APP_FOLDER / "resources" / "configs" / "compare_location_epsilon.toml"
EPSILONS = (0.5, 1.0, 2.0, 4.0)


def candidate_set():
    spec = load_candidates(SPEC)
    return type(spec)(audit_type=spec.audit_type, base=spec.base,
                      candidates=tuple(Candidate(f"ε = {e:g}", {"epsilon": e})
                                       for e in EPSILONS),
                      name="bench", source=str(SPEC))


def one_by_one(cset) -> float:
    start = time.perf_counter()
    for config in cset.configs():
        result = run_audit(config)
        result.to_dict()
        del result
    return time.perf_counter() - start


def compared(cset, folder: Path) -> tuple[float, float]:
    """The comparison's wall time, and the sum of its candidates' own audit times (each
    result's runtime_s): their ratio is what the comparison adds, measured in the same
    minute, so other programs' load changes both alike."""
    start = time.perf_counter()
    comparison = run_comparison(cset, folder)
    return time.perf_counter() - start, sum(r.runtime_s for r in comparison.rows)


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--rounds", type=int, default=1, help="rounds of both (default 1)")
    args = parser.parse_args(argv)
    cset = candidate_set()
    warm = type(cset)(audit_type=cset.audit_type, base={**cset.base, "test_aggregates": 200,
                                                        "shadow_aggregates": 100},
                      candidates=cset.candidates[:2], name="warm-up", source="warm-up")
    with tempfile.TemporaryDirectory() as tmp:
        run_comparison(warm, Path(tmp) / "warm")
        alone, together, inside = [], [], []
        for r in range(args.rounds):
            if r % 2 == 0:
                alone.append(one_by_one(cset))
            wall, own = compared(cset, Path(tmp) / f"c{r}")
            together.append(wall)
            inside.append(own)
            if r % 2 == 1:
                alone.append(one_by_one(cset))
    a, c, own = sum(alone), sum(together), sum(inside)
    peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
    print(f"4 location candidates (ε {', '.join(f'{e:g}' for e in EPSILONS)}), "
          f"{args.rounds} round(s): one by one {a:.1f} s, compared {c:.1f} s, "
          f"ratio {c / a:.3f} (goal ≤ 1.10); the comparison against its own candidates' audit "
          f"times {c:.1f} / {own:.1f} s = {c / own:.3f}; peak resident memory {peak:.0f} MB")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
