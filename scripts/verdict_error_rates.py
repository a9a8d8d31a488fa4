"""How often the verdict itself is wrong, measured (issue 32 item 3).

For each audit type this plays many seeded games end to end, through the audit's real ``run()``,
on releases whose truth is known:

* **null** releases carry nothing about the people (a mechanism at ε → 0; location counts under
  overwhelming noise, for the informed and the auxiliary attacker; count tables that do not
  involve the sensitive column, and counts under overwhelming Laplace noise; a model whose
  outputs do not depend on its training records). Any level above LOW is a false alarm.
* **leak** releases carry a known leak the policy puts at a stated level (HIGH for the
  mechanism, location and model leaks, whose figures are far above the high thresholds; MEDIUM
  for the count tables' leak, see its case). A verdict below that level is a miss.

Each case reports games, the count of false alarms (null) or of games that reached the level
(leak), the rate and its 95 % Clopper–Pearson interval (Clopper & Pearson 1934, the exact
binomial interval ``engine.metrics.clopper_pearson``). The issue's bar: false alarms in at most
5 % of null games, the level reached in at least 90 % of leak games.

Usage::

    .venv/bin/python scripts/verdict_error_rates.py            # writes resources/verdict_error_rates.json
                                                               # and its table in the docs
    .venv/bin/python scripts/verdict_error_rates.py --time     # one seed of each case, timed
    .venv/bin/python scripts/verdict_error_rates.py --print    # measure and print, write nothing

``tests/claims/test_verdict_error_rates.py`` re-measures every case with the same seeds and
asserts the bundled file equals what it measures, so the numbers the report and the docs quote
(``engine.error_rates``) cannot drift from the code.
"""

from __future__ import annotations

import argparse
import json
import sys
import tempfile
import time
from dataclasses import dataclass
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parents[1]
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

from engine.metrics import clopper_pearson  # noqa: E402
from engine.policy import LEVELS, VerdictPolicy  # noqa: E402
from engine.runtime import rng  # noqa: E402

OUT = ROOT / "resources" / "verdict_error_rates.json"

# The synthetic city of tests/engine/test_location_audit.py (SMALL), one repetition, no sweep:
# the main game is what the verdict reads.
LOCATION_BASE = dict(city_users=600, city_epochs=96, aggregate_size=99, test_aggregates=1000,
                     shadow_aggregates=400, sweep_targets=0, repetitions=1,
                     attacks=("one_threshold", "two_threshold", "reference", "likelihood_ratio"),
                     target="observations", target_observations=15)

# A small synthetic census block (paper 003's game), both games on: the attribute game with the
# full DeSIA attack and the data-only guess, and the membership game. (Small because one game
# takes seconds to a minute on 2 cores; the cases' game counts are cut to fit.)
AGGREGATES_BASE = dict(census_records=60, census_auxiliary=400, max_targets=20, n_shadow=100,
                       reconstructions=2, attacks=("desia", "data_only"),
                       membership=True, mia_attacks=("desia_mia",))

# Predictions of a model on 2,000 records (half trained on), 5 classes.
MODEL_RECORDS, MODEL_CLASSES = 2000, 5
# The leak: the true class's logit-confidence z ~ N(1 + d·member, 1). The best test (on z, which
# the confidence attacks read) then has TPR at FPR t equal to Φ(d − Φ⁻¹(1 − t)) and balanced
# accuracy Φ(d / 2): with d = 2, 37 % at 1 % false alarms and 84 % right.
MODEL_LEAK_SHIFT = 2.0


@dataclass(frozen=True)
class Case:
    audit_type: str          # mechanism | location | aggregates | model
    name: str                # short key, unique within the audit type
    kind: str                # null | leak
    release: str             # the release, in words (docs and report quote it)
    size: str                # the size the games are played at, in words
    games: int
    first_seed: int
    expected: str = "low"    # null: at most this level; leak: at least this level

    @property
    def seeds(self) -> range:
        return range(self.first_seed, self.first_seed + self.games)


CASES: tuple[Case, ...] = (
    Case("mechanism", "epsilon_to_zero", "null",
         "a Laplace mechanism at ε = 0.01 (the best attacker is right 50.25 % of the time)",
         "2,000 trials, 1 observation", 100, 11_000),
    Case("mechanism", "epsilon_2", "leak",
         "a Laplace mechanism at ε = 2 per observation, 3 observations (the best attacker is "
         "right over 88 % of the time)",
         "2,000 trials, 3 observations", 20, 12_000, "high"),
    Case("location", "informed_noise", "null",
         "location counts under overwhelming noise (ε = 0.0001 per epoch), informed attacker",
         "600 people, 96 epochs, releases of 100 people, 1,000 test releases", 40, 21_000),
    Case("location", "auxiliary_noise", "null",
         "location counts under overwhelming noise (ε = 0.0001 per epoch), attacker with "
         "auxiliary data",
         "600 people, 96 epochs, releases of 100 people, 1,000 test releases", 40, 22_000),
    Case("location", "no_noise", "leak",
         "noise-free location counts of a person seen in 15 of them, attacker with auxiliary "
         "data",
         "600 people, 96 epochs, releases of 100 people, 1,000 test releases", 20, 23_000,
         "high"),
    Case("aggregates", "ignores_sensitive", "null",
         "count tables over sex, age and ethnicity only (the sensitive column is in none; the attribute game only)",
         "60 people, 20 targets", 3, 31_000),
    Case("aggregates", "overwhelming_noise", "null",
         "count tables under Laplace noise at ε = 0.01 per count",
         "60 people, 20 targets", 6, 32_000),
    # Noise-free, every table: the tables prove about half the targets' values (9 of 20 on the
    # first seed); a top-1 share near 45 % of 7 values is about 0.68 on the policy's scale
    # between a blind guess (0.5) and a sure answer (1): medium, not high.
    Case("aggregates", "no_noise", "leak",
         "noise-free count tables, every table released (they prove about half the targets' "
         "values)",
         "60 people, 20 targets", 6, 33_000, "medium"),
    Case("model", "outputs_ignore_training", "null",
         "a model whose outputs do not depend on which records it was trained on",
         "2,000 records, half trained on", 30, 41_000),
    Case("model", "confident_on_members", "leak",
         "a model surer on its training records (the best attack spots 37 % of them at 1 % "
         "false alarms and is right 84 % of the time)",
         "2,000 records, half trained on", 15, 42_000, "high"),
)


# --------------------------------------------------------------------------- one game

def _qi_only_queries(folder: Path) -> Path:
    """A custom query file over the synthetic block's quasi-identifiers only: every count of
    sex × 10-year age group, and ethnicity. The sensitive column (race)
    is in no query, so the tables carry nothing about it (the game's own draw of each target's
    value is invisible in them)."""
    path = folder / "qi_only_queries.csv"
    if path.exists():
        return path
    rows = ["label,sex,age,hispanic"]
    ages = [(lo, lo + 9) for lo in range(0, 110, 10)] + [(110, 115)]
    for sex in ("Male", "Female"):
        for lo, hi in ages:
            rows.append(f"{sex} {lo}-{hi},{sex},{lo}-{hi},")
    for hisp in ("Hispanic", "Not Hispanic"):
        rows.append(f"{hisp},,,{hisp}")
    path.write_text("\n".join(rows) + "\n", encoding="utf-8")
    return path


def _model_predictions(case: Case, seed: int, folder: Path) -> Path:
    """Predictions of a model on MODEL_RECORDS records, half of them members. The true class's
    probability is sigmoid(z), the rest shared evenly by the other classes; z ~ N(1, 1) for
    everyone (null: nothing depends on membership) or N(1 + d·member, 1) (leak)."""
    from engine.data.predictions import write_predictions_csv

    g = rng(seed, "verdict-error-rates", case.name)
    n, k = MODEL_RECORDS, MODEL_CLASSES
    labels = g.integers(0, k, n)
    member = g.permutation(np.arange(n) < n // 2)
    shift = MODEL_LEAK_SHIFT * member if case.kind == "leak" else 0.0
    z = g.normal(1.0 + shift, 1.0, size=n)
    p_true = 1.0 / (1.0 + np.exp(-z))
    probs = np.repeat(((1.0 - p_true) / (k - 1))[:, None], k, axis=1)
    probs[np.arange(n), labels] = p_true
    return write_predictions_csv(folder / f"predictions_{case.name}_{seed}.csv", labels=labels,
                                 member=member, probs=probs)


def play(case: Case, seed: int, folder: Path) -> str:
    """The verdict level of one seeded game of ``case`` through the audit's own ``run()``."""
    if case.audit_type == "mechanism":
        from engine.audits.mechanism import MechanismConfig, run
        eps, k = (0.01, 1) if case.kind == "null" else (2.0, 3)
        result = run(MechanismConfig(mechanism="laplace", epsilon=eps, observations=k,
                                     trials=2000, seed=seed))
    elif case.audit_type == "location":
        from engine.audits.location import LocationConfig, run
        settings = dict(LOCATION_BASE, seed=seed)
        if case.name == "informed_noise":
            settings.update(attacker="informed", epsilon=1e-4)
        elif case.name == "auxiliary_noise":
            settings.update(attacker="auxiliary", epsilon=1e-4)
        else:
            settings.update(attacker="auxiliary", mechanism="none")
        result = run(LocationConfig(**settings))
    elif case.audit_type == "aggregates":
        from engine.audits.aggregates import AggregatesConfig, run
        settings = dict(AGGREGATES_BASE, seed=seed)
        if case.name == "ignores_sensitive":
            # No membership game here: counts over the quasi-identifiers can prove who is in
            # the data (a real leak, which raises the level), and this case is the null of
            # the attribute game only.
            settings.update(release="custom", fraction=0.0, membership=False,
                            release_options={"path": str(_qi_only_queries(folder))})
        elif case.name == "overwhelming_noise":
            settings.update(mechanism="laplace", epsilon=0.01, budget="per_query")
        else:
            # Every table, no noise: the deterministic part of DeSIA proves targets' values.
            settings.update(fraction=0.0, membership=False,
                            attacks=("desia_deterministic_only", "data_only"))
        result = run(AggregatesConfig(**settings))
    elif case.audit_type == "model":
        from engine.audits.model import ModelConfig, run
        path = _model_predictions(case, seed, folder)
        result = run(ModelConfig(source="predictions", predictions=str(path),
                                 prediction_kind="probabilities", seed=seed))
    else:
        raise ValueError(f"unknown audit type {case.audit_type!r}")
    return result.verdict["level"]


# --------------------------------------------------------------------------- many games

def _rounded(x: float) -> float:
    return round(float(x), 4)


def summarise(case: Case, levels: list[str]) -> dict:
    """The case's entry of the JSON file from the levels of its games (in seed order)."""
    rank = {lv: i for i, lv in enumerate(LEVELS)}
    if case.kind == "null":       # a false alarm: any level above the expected (low)
        hits = sum(rank[lv] > rank[case.expected] for lv in levels)
        counted = "games with a level above low"
    else:                         # the leak found: the expected level or above
        hits = sum(rank[lv] >= rank[case.expected] for lv in levels)
        counted = f"games that reached {case.expected}"
    lo, hi = clopper_pearson(hits, len(levels))
    return {"name": case.name, "kind": case.kind, "release": case.release, "size": case.size,
            "expected_level": case.expected, "games": len(levels),
            "seeds": [case.seeds.start, case.seeds.stop - 1], "count": int(hits),
            "counted": counted, "rate": _rounded(hits / len(levels)),
            "ci95": [_rounded(lo), _rounded(hi)],
            "levels": {lv: levels.count(lv) for lv in LEVELS}}


def measure(case: Case, folder: Path, log=None) -> dict:
    levels = []
    for seed in case.seeds:
        levels.append(play(case, seed, folder))
        if log:
            log(f"{case.audit_type}/{case.name} seed {seed}: {levels[-1]}")
    return summarise(case, levels)


def document(entries: dict[tuple[str, str], dict]) -> dict:
    """The whole JSON document from the measured entries, keyed (audit type, case name)."""
    audits: dict[str, list] = {}
    for case in CASES:
        audits.setdefault(case.audit_type, []).append(entries[(case.audit_type, case.name)])
    return {"about": "How often the verdict is wrong, measured by "
                     "scripts/verdict_error_rates.py (issue 32 item 3): null releases carry "
                     "nothing about the people (any level above low is a false alarm); leak "
                     "releases carry a known leak the policy puts at the expected level. "
                     "Intervals: 95 % Clopper-Pearson.",
            "policy": VerdictPolicy().to_dict(),
            "audits": audits}


def measure_all(log=None) -> dict:
    with tempfile.TemporaryDirectory(prefix="verdict-error-rates-") as tmp:
        folder = Path(tmp)
        return document({(c.audit_type, c.name): measure(c, folder, log) for c in CASES})


def write(doc: dict, path: Path = OUT) -> None:
    path.write_text(json.dumps(doc, indent=1, ensure_ascii=False) + "\n", encoding="utf-8")


DOCS = (ROOT / "docs" / "methods" / "intervals.md", ROOT / "docs" / "user_guide.md")
START, END = "<!-- verdict-error-rates:start -->", "<!-- verdict-error-rates:end -->"


def fill_docs() -> None:
    """Put the bundled file's table (engine.error_rates.markdown_table) between the markers of
    each document in DOCS; the fast test tests/report/test_verdict_error_rates_docs.py checks
    they carry it."""
    from engine import error_rates

    error_rates._document.cache_clear()
    table = error_rates.markdown_table()
    for path in DOCS:
        text = path.read_text(encoding="utf-8")
        head, rest = text.split(START, 1)
        _, tail = rest.split(END, 1)
        path.write_text(f"{head}{START}\n{table}\n{END}{tail}", encoding="utf-8")


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--time", action="store_true", help="one seed of each case, timed")
    ap.add_argument("--print", action="store_true", help="measure and print, write nothing")
    ap.add_argument("--only", default="", help="audit type to measure (with --print)")
    ap.add_argument("--docs", action="store_true",
                    help="only put the bundled file's table into the docs")
    args = ap.parse_args(argv)
    if args.docs:
        fill_docs()
        return 0
    if args.time:
        with tempfile.TemporaryDirectory() as tmp:
            for case in CASES:
                if args.only and case.audit_type != args.only:
                    continue
                t0 = time.perf_counter()
                level = play(case, case.first_seed, Path(tmp))
                print(f"{case.audit_type:10s} {case.name:24s} {level:6s} "
                      f"{time.perf_counter() - t0:6.1f} s/game × {case.games}", flush=True)
        return 0
    if args.print or args.only:
        with tempfile.TemporaryDirectory() as tmp:
            for case in CASES:
                if args.only and case.audit_type != args.only:
                    continue
                e = measure(case, Path(tmp), log=lambda m: print(m, flush=True))
                print(json.dumps(e), flush=True)
        return 0
    t0 = time.perf_counter()
    doc = measure_all(log=lambda m: print(m, flush=True))
    write(doc)
    fill_docs()
    print(f"wrote {OUT} and its table in the docs in {time.perf_counter() - t0:.0f} s")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
