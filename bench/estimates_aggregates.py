"""Calibration of the count-tables cost model (engine/estimates/aggregates.py) and its held-out
cases, for ``python -m bench.bench_estimates [--calibrate] aggregates``.

:func:`calibrate` times the audit's inner steps directly on synthetic census blocks (three
releases: 450 records with m = 112 and all 368 counts, 150 records with m = 38), each a few
times, the fastest run kept — the deterministic module per target and a CIP reconstruction
(exact and noisy; also on a block with a quasi-identifier more, for wider CP-SAT models), the
shadow datasets (AIA and MIA), the classifiers of the stochastic module per model, RAP's
epochs on one thread — and fits the cost model's constants to them (non-negative least
squares, or log–log tables where the cost is not linear). Unique records from generated
census blocks. Memory: RAP's tensors and the CP-SAT model from peaks of fresh processes; the
audit's fixed cost and the MIA shadows' copies from two whole audits measured with
bench.measured_run. About 75 s on 2 cores shared with other work (the held-out cases then
take about 2 minutes).

:func:`cases` are held-out configs (other block sizes, Laplace noise, RAP, the bundled CSV at
another m/|D| with a sweep) that bench/bench_estimates.py runs and compares with the
estimate.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import time
from dataclasses import replace

import numpy as np

from bench.measured_run import ROOT, measure


def _say(*args) -> None:
    print(*args, file=sys.stderr, flush=True)


def _config(**kw) -> dict:
    from engine.audits.aggregates import AggregatesConfig
    return {**AggregatesConfig().to_dict(), **kw}


def _cfg(**kw):
    from engine.audits.registry import config_from_dict
    return config_from_dict(_config(**kw), "bench")


def _game(config):
    from engine.games.aggregates import record_space, setup_game
    game, _ = setup_game(config, "bench-estimates")
    space = record_space(game.domain)
    masks = [space.matches(q.conditions) for q in game.queries]
    return game, space, masks


def _nnls(rows, values) -> np.ndarray:
    from scipy.optimize import nnls
    coef, _ = nnls(np.asarray(rows, float), np.asarray(values, float))
    return coef


def _peak_child(code: str) -> float:
    """Peak resident bytes a snippet adds in a fresh process (``code`` sets ``setup`` and
    ``work``, two functions: the first's memory is the baseline)."""
    script = ("import resource, json\n" + code + "\nsetup()\n"
              "def rss():\n"
              "    for line in open('/proc/self/status'):\n"
              "        if line.startswith('VmRSS:'): return int(line.split()[1]) * 1024\n"
              "base = rss()\nwork()\n"
              "print(json.dumps(resource.getrusage(resource.RUSAGE_SELF).ru_maxrss * 1024 "
              "- base))\n")
    out = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True,
                         cwd=ROOT, timeout=600, env=dict(os.environ, PRA_DEVICE="cpu"))
    if out.returncode != 0:
        raise RuntimeError(out.stderr[-2000:])
    return float(json.loads(out.stdout.strip().splitlines()[-1]))


def _wide_game() -> dict:
    """A census block of 450 records with one more quasi-identifier ("zone", 8 values, no
    released count mentions it): 8 times the possible records of the plain block, so the
    solver steps are measured over a wider range of model sizes."""
    from engine.aggregates.queries import Domain
    from engine.aggregates.release import ReleaseSpec, build_release
    from engine.attacks.aggregates.desia_deterministic import RecordSpace
    from engine.data.census import generate_census_blocks
    from engine.games.aggregates_data import domain_and_codes

    protected, _ = generate_census_blocks(3, records_per_block=450, n_auxiliary=10)
    schema = protected.schema
    columns = list(schema.quasi_identifiers) + [schema.sensitive]
    domain, codes = domain_and_codes(protected, columns)
    s = len(columns) - 1
    g = np.random.default_rng(3)
    codes = np.insert(codes, s, g.integers(0, 8, codes.shape[0]), axis=1).astype(np.int32)
    domain = Domain(domain.columns[:s] + ("zone",) + domain.columns[s:],
                    domain.labels[:s] + (tuple(str(z) for z in range(8)),)
                    + domain.labels[s:])
    release = build_release(ReleaseSpec(kind="p_tables", fraction=0.25), domain, codes,
                            np.random.default_rng(4))
    space = RecordSpace.of(domain.sizes)
    _, first, counts = np.unique(codes[:, :s + 1], axis=0, return_index=True,
                                 return_counts=True)
    unique = np.sort(first[counts == 1])[:6]
    return {"space": space, "masks": [space.matches(q.conditions) for q in release.queries],
            "released": release.released_answers, "queries": list(release.queries),
            "sizes": domain.sizes, "n": codes.shape[0], "s": s + 1, "codes": codes,
            "targets": [{c: int(codes[t, c]) for c in range(s + 1)} for t in unique]}


def deterministic_tables(games: dict, shapes: dict, ms: dict, big: dict) -> dict:
    """The deterministic module's seconds per target over the model's terms W, two ways on the
    same targets: ``det_seconds`` as published (two CP-SAT solves: what a noisy release, the
    ablations and a published table take) and ``witness_seconds`` with the auditor's shortcut
    from the true table (desia_witness: what an exact release's targets take); ``big`` is
    :func:`_wide_game`'s block, which the CIP table reads too."""
    from engine.attacks.aggregates import desia_deterministic as dd
    from engine.attacks.aggregates import desia_witness as dw
    from engine.estimates import aggregates as est

    def timed(space, masks, released, n, qi, s, **shortcut) -> float:
        t0 = time.perf_counter()
        dd.infer(space, masks, released, n, qi, s, time_limit=10.0, seed=7, **shortcut)
        return time.perf_counter() - t0

    def counts_of(space, codes) -> np.ndarray:
        return np.bincount(np.ravel_multi_index(tuple(codes.T), space.domain_sizes),
                           minlength=space.codes.shape[0])

    cases = []
    for name in ("450 m=112", "450 all", "150 m=38"):
        game, space, masks = games[name]
        s = game.codes.shape[1] - 1
        cases.append((name, space, masks, game.base.released_answers, game.codes, s,
                      [{c: int(game.codes[t, c]) for c in range(s)} for t in game.targets[:8]],
                      est._work(shapes[name], ms[name])))
    cases.append(("8 zones", big["space"], big["masks"], big["released"], big["codes"],
                  big["s"], big["targets"],
                  est._work(replace(shapes["450 m=112"],
                                    record_space=big["space"].codes.shape[0]), ms["450 m=112"])))
    published, shortcut = [], []
    for name, space, masks, released, codes, s, targets, w in cases:
        layout = dw.ReleaseLayout.of(space, masks, s)
        truth = counts_of(space, codes)
        two = [timed(space, masks, released, codes.shape[0], qi, s) for qi in targets]
        one = [timed(space, masks, released, codes.shape[0], qi, s, true_counts=truth,
                     layout=layout) for qi in targets]
        published.append([round(w, 1), round(float(np.median(two)), 5)])
        shortcut.append([round(w, 1), round(float(np.median(one)), 5)])
        _say(f"aggregates deterministic {name}: W = {w:,.0f}, {published[-1][1] * 1e3:.1f} ms "
             f"per target as published, {shortcut[-1][1] * 1e3:.1f} ms with the true table")
    # The shortcut once more at tract scale (bench/bench_tract.py's table: 14,280 possible
    # records, 592 cells), where the published path stops at its time limit on every target:
    # without this point an exact tract-sized release would be read off the block sizes.
    from bench.bench_tract import tract_table, unique_rows
    from engine.aggregates.queries import answers

    dom, codes, _, queries = tract_table()
    space = dd.RecordSpace.of(dom)
    masks = [space.matches(q.conditions) for q in queries]
    s = codes.shape[1] - 1
    layout = dw.ReleaseLayout.of(space, masks, s)
    truth, released = counts_of(space, codes), answers(queries, codes)
    w = float(space.codes.shape[0] + sum(int(mk.sum()) for mk in masks))   # terms, as _work
    one = [timed(space, masks, released, codes.shape[0],
                 {c: int(codes[t, c]) for c in range(s)}, s, true_counts=truth, layout=layout)
           for t in (lambda u: u[::max(1, u.size // 24)][:24])(unique_rows(codes))]
    shortcut.append([round(w, 1), round(float(np.median(one)), 5)])
    _say(f"aggregates deterministic tract: W = {w:,.0f}, {shortcut[-1][1] * 1e3:.1f} ms per "
         "target with the true table")
    return {"det_seconds": sorted(published), "witness_seconds": sorted(shortcut)}


def _least(work, *args, **kw) -> float:
    """The fastest of two runs of ``work(*args, **kw)`` (seconds): other work on a shared
    machine only ever adds time."""
    best = float("inf")
    for _ in range(2):
        t0 = time.perf_counter()
        work(*args, **kw)
        best = min(best, time.perf_counter() - t0)
    return best


def calibrate() -> dict:
    import engine.estimates.calibration as cal
    from engine.aggregates.release import noisy_answers
    from engine.attacks.aggregates import cip, rap
    from engine.attacks.aggregates.desia_stochastic import (
        ShadowAnswers,
        membership_score_many_targets,
        score_many_targets,
    )
    from engine.data.census import generate_census_blocks
    from engine.data.microdata import unique_targets
    from engine.estimates import aggregates as est
    from engine.estimates.aggregates import released, shape

    started = time.perf_counter()
    table: dict = {"unique_cell_share": 0.2, "unique_floor_share": 0.1,
                   "det_seconds": [[1, 0.05]], "cip_seconds": [[1, 0.05]], "cip_l1_factor": 1.5,
                   "noise_seconds": 5e-8,
                   "shadow_seconds": [1e-8, 1e-9], "mia_shadow_factor": 1.0,
                   "signal_shadow_seconds": [1e-6, 1e-6, 3e-7],
                   "fit_seconds": {}, "fit_linear": {}, "fit_copies": 4.0, "rap_seconds": [1e-3, 1e-9, 0.5],
                   "rap_bytes_per_cell": 64.0, "rap_bytes": 50e6, "solver_bytes_per_term": 500.0,
                   "mia_copies": 6.0, "overhead_seconds": 1.0, "base_bytes": 150e6}
    cal.AGGREGATES = table              # the cost model reads these from now on

    # Unique records: |D|·exp(−(|D|−1)/(share·cells)) from small census blocks, the floor
    # share of the cells from large ones, quasi-identifiers with race and with Hispanic origin.
    shares, floors = [], []
    for sensitive in ("race", "hispanic"):
        for n in (100, 150, 1500, 3000):
            cells = shape(_cfg(census_records=n, sensitive=sensitive)).qi_cells
            for seed in (0, 1, 2):
                protected, _ = generate_census_blocks(seed, records_per_block=n, n_auxiliary=10,
                                                      sensitive=sensitive)
                u = max(int(unique_targets(protected).size), 1)
                if n <= 150 and u < n:
                    shares.append((n - 1) / (cells * np.log(n / u)))
                elif n > 150:
                    floors.append(u / cells)
    table["unique_cell_share"] = float(np.median(shares))
    table["unique_floor_share"] = float(np.median(floors))
    _say(f"aggregates unique records: share of cells {table['unique_cell_share']:.3f}, floor "
         f"{table['unique_floor_share']:.3f}")

    configs = {"450 m=112": _cfg(census_records=450, census_auxiliary=4000, fraction=0.25),
               "450 all": _cfg(census_records=450, census_auxiliary=4000, fraction=0.0),
               "150 m=38": _cfg(census_records=150, census_auxiliary=1350, fraction=0.25),
               "450 aux 12000": _cfg(census_records=450, census_auxiliary=12000,
                                     fraction=0.25)}
    games = {name: _game(c) for name, c in configs.items()}
    shapes = {name: shape(c) for name, c in configs.items()}
    ms = {name: released(shapes[name], c.fraction) for name, c in configs.items()}
    for name, (game, _, _) in games.items():
        assert ms[name] == len(game.queries), (name, ms[name], len(game.queries))

    big = _wide_game()
    table.update(deterministic_tables(games, shapes, ms, big))
    w_big = est._work(replace(shapes["450 m=112"], record_space=big["space"].codes.shape[0]),
                      ms["450 m=112"])

    # CIP: seconds per reconstruction (exact model), and the L1 model's factor under noise.
    rows, ts = [], []
    for name in ("450 m=112", "450 all", "150 m=38"):
        game, _, _ = games[name]
        rows.append([1.0, est._work(shapes[name], ms[name])])
        ts.append(_least(cip.reconstruct_cip, game.domain.sizes, game.queries,
                         game.base.released_answers, game.codes.shape[0], k=4, seed=1,
                         time_limit=10.0) / 4)
        _say(f"aggregates CIP {name}: {ts[-1] * 1e3:.1f} ms per reconstruction")
    rows.append([1.0, w_big])
    ts.append(_least(cip.reconstruct_cip, big["sizes"], big["queries"], big["released"],
                     big["n"], k=4, seed=1, time_limit=10.0) / 4)
    _say(f"aggregates CIP 8 zones: {ts[-1] * 1e3:.1f} ms per reconstruction")
    table["cip_seconds"] = sorted([[round(w, 1), round(t, 5)]
                                    for (_, w), t in zip(rows, ts, strict=True)])
    from engine.aggregates.release import ReleaseSpec
    game, _, _ = games["450 m=112"]
    spec = ReleaseSpec(kind="p_tables", fraction=0.25, mechanism="laplace", epsilon=1.0)
    noisy = noisy_answers(game.base.true_answers, spec, game.base.sensitivity,
                          np.random.default_rng(0))
    took = _least(cip.reconstruct_cip, game.domain.sizes, game.queries, noisy,
                  game.codes.shape[0], k=4, seed=1, time_limit=10.0)
    exact = est.loglog(table["cip_seconds"], est._work(shapes["450 m=112"], ms["450 m=112"]))
    table["cip_l1_factor"] = float(max(1.0, took / 4 / exact))
    values = np.zeros((20_000, ms["450 m=112"]), dtype=np.int64)
    table["noise_seconds"] = float(_least(noisy_answers, values, spec, game.base.sensitivity,
                                          np.random.default_rng(0)) / values.size)
    _say(f"aggregates CIP noisy: factor {table['cip_l1_factor']:.2f}")

    # Shadow datasets: seconds per shadow over n_aux and |D|·(1 + q).
    rows, ts = [], []
    N = 3000
    for name in ("450 m=112", "450 all", "150 m=38", "450 aux 12000"):
        game, _, _ = games[name]
        sh, m = shapes[name], ms[name]
        s = game.codes.shape[1] - 1
        rows.append([sh.n_aux, sh.n * (1 + sh.cover_per_query * m)])
        ts.append(_least(ShadowAnswers, game.queries, game.aux_codes, game.domain, s, N,
                         sh.n - 1, randomise_sensitive=True, extra=False, seed=0) / N)
        _say(f"aggregates shadows {name}: {ts[-1] * 1e6:.1f} µs per shadow")
    table["shadow_seconds"] = [float(max(v, 1e-12)) for v in _nnls(rows, ts)]
    game, _, _ = games["450 m=112"]
    took = _least(ShadowAnswers, game.queries, game.aux_codes, game.domain, 0, N,
                  shapes["450 m=112"].n - 1, randomise_sensitive=False, extra=True, seed=0)
    table["mia_shadow_factor"] = float(max(0.2, took
                                           / est.shadow_seconds(shapes["450 m=112"], N,
                                                                ms["450 m=112"])))
    _say(f"aggregates MIA shadows: factor {table['mia_shadow_factor']:.2f}")

    # Signal-cell shadows, per target (the stochastic modules' path): seconds over n_aux
    # (grouping the records into classes) and per shadow over classes·values + features,
    # with the tract-sized table of bench/bench_tract.py for a large n_aux.
    from bench.bench_tract import tract_table, unique_rows
    from engine.attacks.aggregates.desia_stochastic import (
        signal_shadows,
        target_answers,
        target_candidate_rows,
    )

    def signal_run(queries, codes, aux, domain, t, n_shadow):
        s = codes.shape[1] - 1
        contrib = target_answers(queries, target_candidate_rows(codes[t], domain, s))
        mask = contrib.any(axis=0)
        signal_shadows(queries, mask, contrib, aux, codes.shape[0] - 1, n_shadow,
                       sensitive=s, n_values=domain.sizes[s], membership=False, seed=0,
                       stream=("calibration",)).build()

    rows, ts = [], []
    for name in ("450 m=112", "450 all", "450 aux 12000"):
        game, _, _ = games[name]
        sh, m = shapes[name], ms[name]
        for n_shadow in (2000, 8000):
            rows.append([sh.n_aux, n_shadow, n_shadow * (est.signal_classes(sh) * sh.k
                                                         + sh.tables_per_query * m)])
            ts.append(_least(signal_run, game.queries, game.codes, game.aux_codes,
                             game.domain, game.targets[0], n_shadow))
    dom, codes, aux, queries = tract_table()
    tsh = replace(shapes["450 m=112"], n_aux=aux.shape[0], columns=codes.shape[1],
                  k=dom.sizes[-1], tables_per_query=1.0)
    for n_shadow in (2000, 8000):
        contrib = target_answers(queries, target_candidate_rows(
            codes[unique_rows(codes)[0]], dom, codes.shape[1] - 1))
        rows.append([tsh.n_aux, n_shadow, n_shadow * (est.signal_classes(tsh) * tsh.k
                                                      + float(contrib.any(axis=0).sum()))])
        ts.append(_least(signal_run, queries, codes, aux, dom, unique_rows(codes)[0],
                         n_shadow))
    table["signal_shadow_seconds"] = [float(max(v, 1e-12)) for v in _nnls(rows, ts)]
    _say("aggregates signal-cell shadows: " + ", ".join(
        f"{v:.3g}" for v in table["signal_shadow_seconds"]))

    # Classifiers: seconds per fit over N_train·(features + 1)·classes, per model.
    def fits(model: str, name: str, n_shadow: int, mia: bool, n_targets: int = 2):
        game, _, _ = games[name]
        s = game.codes.shape[1] - 1
        rel = np.repeat(game.base.released_answers[None, :], n_targets, axis=0)
        t = game.targets[:n_targets]
        if mia:
            res = membership_score_many_targets(game.queries, rel, game.codes[t],
                                                game.aux_codes, game.codes.shape[0],
                                                game.domain, n_shadow=n_shadow, model=model,
                                                seed=0)
            classes = 2
        else:
            res = score_many_targets(game.queries, rel, game.codes[t], s, game.aux_codes,
                                     game.codes.shape[0], game.domain, n_shadow=n_shadow,
                                     model=model, seed=0)
            classes = game.domain.sizes[s]
        out = []
        for r in res:
            work = n_shadow * 2 / 3 * (r["n_features"] + 1) * classes
            out.append([work, r["seconds"]["fit"]])
        _say(f"aggregates fit {model} {'MIA' if mia else 'AIA'} {name} N={n_shadow}: "
             + ", ".join(f"{w:,.0f} → {s:.2f} s" for w, s in out))
        return out

    fits("logistic", "150 m=38", 500, False, 1)           # scikit-learn's first fit
    fit_rows = {"logistic": fits("logistic", "450 all", 2000, False)
                + fits("logistic", "450 all", 8000, False)
                + fits("logistic", "450 all", 20000, False, 1)
                + fits("logistic", "150 m=38", 2000, True, 1)
                + fits("logistic", "450 m=112", 6000, True, 1)
                + fits("logistic", "450 m=112", 20000, True, 1)}
    for model in ("mlp", "random_forest", "svm"):
        fit_rows[model] = (fits(model, "450 all", 600, False, 1)
                           + fits(model, "450 all", 2000, False, 1)
                           + fits(model, "150 m=38", 1000, True, 1))
    fit_rows["logistic"] += fits("logistic", "450 all", 12000, True, 1)
    # Logistic: a line over the points' upper envelope — the fixed cost of a small fit (their
    # median), the steepest slope of the large fits above it (how many iterations the
    # cross-validated fits need depends on the release: an estimate should rather err long).
    pts = fit_rows["logistic"]
    a = float(np.median([t for w, t in pts if w < 200_000]))
    b = max((t - a) / w for w, t in pts if w >= 300_000)
    table["fit_linear"] = {"logistic": [max(a, 1e-3), float(max(b, 1e-10))]}
    table["fit_seconds"] = {}
    for model, pts in fit_rows.items():
        if model not in table["fit_linear"]:
            table["fit_seconds"][model] = [[round(w, 1), round(max(s, 1e-4), 4)]
                                           for w, s in sorted(pts)]

    # RAP: seconds per epoch over K·|D|·(Σ domains + m), from 100 − 3 epochs (the fastest of
    # four runs each), on one thread (below K·|D|·m = 2·10⁶, as RAP runs small problems:
    # torch's threads stall when another process holds a core); the rest is set-up.
    game, _, _ = games["150 m=38"]
    rap.reconstruct_rap(game.domain.sizes, game.queries, game.base.released_answers,
                        game.codes.shape[0], k=2, seed=0, epochs=20)      # torch warm-up
    rows, per_epoch, setups = [], [], []
    for name, k in (("150 m=38", 4), ("150 m=38", 60), ("450 m=112", 10), ("450 all", 4)):
        game, _, _ = games[name]
        sh, m = shapes[name], ms[name]
        took = {epochs: min(_least(rap.reconstruct_rap, game.domain.sizes, game.queries,
                                   game.base.released_answers, game.codes.shape[0], k=k,
                                   seed=0, epochs=epochs, tol=-1.0),
                            _least(rap.reconstruct_rap, game.domain.sizes, game.queries,
                                   game.base.released_answers, game.codes.shape[0], k=k,
                                   seed=0, epochs=epochs, tol=-1.0))
                for epochs in (3, 100)}
        e = max(took[100] - took[3], 1e-6) / 97
        rows.append([1.0, k * sh.n * (sh.domain_total + m)])
        per_epoch.append(e)
        setups.append(max(took[3] - 3 * e, 0.0))
        _say(f"aggregates RAP {name} K={k}: {e * 1e3:.2f} ms per epoch, set-up "
             f"{setups[-1]:.2f} s")
    e0, e1 = _nnls(rows, per_epoch)
    table["rap_seconds"] = [float(max(e0, 1e-6)), float(max(e1, 1e-12)),
                            float(np.max(setups))]

    # Memory of RAP's tensors and of a CP-SAT model, in fresh processes.
    sh, m = shapes["450 all"], ms["450 all"]
    k_mem = 200
    prelude = ("from engine.audits.registry import config_from_dict\n"
               "from engine.audits.aggregates import AggregatesConfig\n"
               "from engine.games.aggregates import record_space, setup_game\n"
               "import engine.attacks.aggregates.rap as rap\n"
               "import engine.attacks.aggregates.desia_deterministic as dd\n"
               "import torch, ortools.sat.python.cp_model\n"
               "g = None\n"
               "def setup():\n"
               "    global g\n"
               "    c = config_from_dict({**AggregatesConfig().to_dict(), "
               "'census_records': 450, 'fraction': 0.0}, 'bench')\n"
               "    g, _ = setup_game(c, 'x')\n")
    peaks = {k: _peak_child(prelude + (
        "def work():\n"
        f"    rap.reconstruct_rap(g.domain.sizes, g.queries, g.base.released_answers, 450, "
        f"k={k}, seed=0, epochs=3)\n")) for k in (4, k_mem)}
    rap_peak = peaks[k_mem]
    per_cell = (peaks[k_mem] - peaks[4]) / ((k_mem - 4) * sh.n * (sh.domain_total + m))
    table["rap_bytes_per_cell"] = float(max(4.0, per_cell))
    table["rap_bytes"] = float(max(0.0, peaks[4] - per_cell * 4 * sh.n
                                   * (sh.domain_total + m)))
    solver_peak = _peak_child(prelude + (
        "def work():\n"
        "    space = record_space(g.domain)\n"
        "    masks = [space.matches(q.conditions) for q in g.queries]\n"
        "    models = [dd.build_model(space, masks, g.base.released_answers, 450, None) "
        "for _ in range(5)]\n"))
    table["solver_bytes_per_term"] = float(max(50.0, solver_peak / 5 / est._work(sh, m)))
    _say(f"aggregates memory: RAP {table['rap_bytes'] / 1e6:.0f} MB + "
         f"{table['rap_bytes_per_cell']:.0f} bytes per cell "
         f"({rap_peak / 1e6:.0f} MB at K = {k_mem}), CP-SAT model "
         f"{table['solver_bytes_per_term']:.0f} bytes per term")

    # Whole audits: the fixed cost (imports, data, metrics, report data) and the MIA's copies.
    from engine.estimates import estimate
    table["overhead_seconds"], table["base_bytes"] = 0.0, 0.0
    small = _config(census_records=150, census_auxiliary=1350, n_shadow=300,
                    attacks=["desia_stochastic_only", "data_only"], membership=False,
                    max_targets=10)
    r = measure(small)
    e = estimate(_cfg(**{k: v for k, v in small.items() if k != "audit_type"}))
    table["overhead_seconds"] = float(max(0.2, r["wall_s"] - e.seconds))
    table["base_bytes"] = float(max(50e6, r["peak_bytes"] - (e.peak_bytes - e.resident_bytes)
                                    - e.resident_bytes))
    _say(f"aggregates fixed cost: {r['wall_s']:.1f} s measured, {table['overhead_seconds']:.1f} "
         f"s overhead, {r['peak_bytes'] / 1e6:.0f} MB peak")
    heavy = _config(census_records=450, census_auxiliary=4000, fraction=0.0, n_shadow=16000,
                    attacks=["data_only"], mia_attacks=["desia_mia_stochastic_only"],
                    max_targets=8)
    r = measure(heavy)
    cfg = _cfg(**{k: v for k, v in heavy.items() if k != "audit_type"})
    sh, m = shape(cfg), released(shape(cfg), cfg.fraction)
    keys = est._shadow_bytes(sh, cfg.n_shadow, m, 0.0)
    e = estimate(cfg)
    table["mia_copies"] = float(max(2.0, (r["peak_bytes"] - e.resident_bytes - keys)
                                    / (8.0 * cfg.n_shadow * m)))
    _say(f"aggregates MIA audit: {r['wall_s']:.1f} s measured ({e.seconds:.1f} s estimated), "
         f"{r['peak_bytes'] / 1e6:.0f} MB peak: {table['mia_copies']:.1f} copies of the "
         f"shadow answers")
    _say(f"aggregates calibration took {time.perf_counter() - started:.0f} s")
    return table


def cases() -> list[tuple[str, dict]]:
    from engine.audits.registry import demo_config
    demo = demo_config("aggregates").to_dict()
    return [
        ("census 300, default attacks, both games, N=4000, K=5",
         _config(census_records=300, census_auxiliary=2700, n_shadow=4000, reconstructions=5,
                 max_targets=20)),
        ("census 600, Laplace ε=1, DeSIA + CIP-rand + likelihood, N=3000",
         _config(census_records=600, census_auxiliary=5400, mechanism="laplace", epsilon=1.0,
                 attacks=["desia", "cip_rand", "likelihood", "data_only"], membership=False,
                 n_shadow=3000, reconstructions=4, max_targets=12)),
        ("census 200, RAP-rand K=6 and RAP MIA, 6 targets",
         _config(census_records=200, census_auxiliary=1800, n_shadow=2000,
                 attacks=["desia", "rap_rand"], mia_attacks=["desia_mia", "rap_rand_mia"],
                 reconstructions=6, max_targets=6)),
        ("sample CSV, m/|D| = 0.5, sweep over m/|D|, N=3000",
         {**demo, "fraction": 0.5, "n_shadow": 3000, "max_targets": 16, "membership": False,
          "attacks": ["desia", "cip_rand", "data_only"], "reconstructions": 3,
          "sweep_fractions": [0.1, 1.0], "sweep_targets": 8}),
    ]


if __name__ == "__main__":         # a quick look: the cases' estimates only
    from engine.audits.registry import config_from_dict
    from engine.estimates import estimate
    for name, d in cases():
        print(name, estimate(config_from_dict(d, "bench")).to_dict())
