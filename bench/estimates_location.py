"""Calibration of the location audit's cost model (engine/estimates/location.py) and its
held-out cases, for ``python -m bench.bench_estimates [--calibrate] location``.

The inner steps are timed directly, in this process, on a synthetic city (the engine's own
functions: engine.games.location.play through build_scenario, each attack, the trade-off
curves and the accountant), and their constants fitted by non-negative least squares over
their sizes; the one-off costs (torch's optimiser set-up, what a whole run spends outside the
steps) and the memory factor come from whole audits in fresh processes
(:func:`bench.measured_run.measure`) at sizes the cases below do not use.
"""

from __future__ import annotations

import math
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import numpy as np

from bench.measured_run import ROOT, measure, peak_line
from engine.attacks.location.likelihood_ratio import BATCH_AGGREGATES
from engine.games.location import MAX_NOISE_ROWS as NOISE_ROWS

MECHANISMS = ("laplace", "gaussian", "discrete_laplace", "discrete_gaussian")


def _say(*args) -> None:
    print(*args, file=sys.stderr, flush=True)


def _location(**kw) -> dict:
    from engine.audits.location import LocationConfig
    d = {**LocationConfig().to_dict(), **kw}
    for key in ("attacks", "fpr_targets"):
        d[key] = list(d[key])
    return d


def _timed(fn, *args, **kw):
    t0 = time.perf_counter()
    out = fn(*args, **kw)
    return out, time.perf_counter() - t0


def _theory_tables() -> tuple[dict, dict]:
    """Seconds of one exact trade-off curve and of one accountant's composition over k."""
    from engine.audits.location import LocationConfig
    from engine.games.location_setup import cell_noise_scale, epoch_sensitivity
    from engine.mechanisms.accounting import compose
    from engine.mechanisms.tradeoff import mechanism_tradeoff
    trade, comp = {}, {}
    for mech in MECHANISMS:
        scale = cell_noise_scale(LocationConfig(mechanism=mech))
        sens = epoch_sensitivity(mech, 1)
        if mech.startswith("discrete"):
            sens = max(1.0, float(math.ceil(sens)))
        trade[mech], comp[mech] = [], []
        for k in (1, 3, 10, 30, 100, 300, 1000, 3000):
            _, t1 = _timed(mechanism_tradeoff, mech, scale, 1.0, k)
            _, t2 = _timed(compose, mech, scale, sens, k, 1e-5, epsilon0=0.5)
            trade[mech].append([k, round(t1, 5)])
            comp[mech].append([k, round(t2, 5)])
        _say(f"location theory {mech}: trade-off {trade[mech]}, accountant {comp[mech]}")
    return trade, comp


def _noise_seconds() -> tuple[dict, dict]:
    """Seconds and working bytes per noise value drawn (a block of engine.games.location.play:
    the draw and its float32 copy; numpy's buffers are seen by tracemalloc)."""
    import tracemalloc

    from engine.mechanisms.sampling import sample_noise
    from engine.runtime import rng
    out, nbytes = {"none": 0.0}, {"none": 0.0}
    g = rng(0, "bench")
    for mech in MECHANISMS:
        sample_noise(mech, 1.0, (1000, 8), g)
        _, t = _timed(sample_noise, mech, 2.0, (NOISE_ROWS, 64), g)
        out[mech] = t / (NOISE_ROWS * 64)
        tracemalloc.start()
        sample_noise(mech, 2.0, (NOISE_ROWS, 64), g).astype(np.float32)
        nbytes[mech] = tracemalloc.get_traced_memory()[1] / (NOISE_ROWS * 64)
        tracemalloc.stop()
    _say(f"location noise seconds per value: {out}; bytes per value {nbytes}")
    return out, nbytes


def _meta_steps() -> tuple[list, float]:
    """(batch multiply-adds, seconds per Adam step) of the meta-classifier's network on one
    thread; and seconds per multiply-add of a forward pass (validation)."""
    import torch

    from engine.attacks.location.meta_classifier import _network
    from engine.runtime import torch_threads
    table = []
    with torch_threads(1):
        for k, hidden in ((10, 10), (60, 60), (100, 100), (300, 300), (600, 600),
                          (1200, 1200)):
            net = _network(torch, k, "fig11b" if k == hidden else "mlp100")
            opt = torch.optim.Adam(net.parameters(), lr=1e-3)
            loss_fn = torch.nn.BCEWithLogitsLoss()
            x = torch.randn(512, k)
            y = (torch.rand(512) < 0.5).float()
            steps = max(10, min(300, int(3e9 / (512 * k * hidden + 1))))

            def run(n, net=net, opt=opt, loss_fn=loss_fn, x=x, y=y):
                for _ in range(n):
                    opt.zero_grad()
                    loss_fn(net(x).squeeze(1), y).backward()
                    opt.step()
            run(3)
            _, t = _timed(run, steps)
            table.append([512 * (k * hidden + hidden), t / steps])
        net = _network(torch, 300, "fig11b")
        x = torch.randn(20_000, 300)
        with torch.no_grad():
            net(x)
            _, t = _timed(net, x)
    forward = t / (20_000 * (300 * 300 + 300))
    _say(f"location meta step table {table}; forward {forward:.3g} s per multiply-add")
    return table, forward


def _meta_setup() -> tuple[float, float]:
    """(seconds, resident bytes) of torch's optimiser set-up, paid by the first Adam of a
    process (it imports torch._dynamo), in a fresh process."""
    code = ("import time, torch\nfrom bench.measured_run import _rss_bytes\n"
            "net = torch.nn.Linear(4, 1)\nb = _rss_bytes()\nt0 = time.perf_counter()\n"
            "torch.optim.Adam(net.parameters())\n"
            "print(time.perf_counter() - t0, _rss_bytes() - b)")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                         cwd=ROOT, check=True)
    seconds, nbytes = out.stdout.strip().splitlines()[-1].split()
    return float(seconds), float(nbytes)


def _scenarios(CAL: dict) -> dict:
    """Games and attacks of several targets and attackers, timed step by step; the constants
    of the game, the attacks and the sizes the model reads (active people, LR support)."""
    import tracemalloc
    from dataclasses import replace

    import scipy.sparse as sp

    from engine.attacks.location import (
        likelihood_ratio,
        meta_classifier,
        one_threshold,
        reference,
        two_threshold,
    )
    from engine.auditing import evaluate_attack
    from engine.audits import location as L
    from engine.data.city import generate_city
    from engine.data.traces import clip_per_epoch
    from engine.games import location as location_game
    from engine.games import location_setup
    from engine.runtime import NEVER, NO_PROGRESS, rng

    loads = []
    for users, epochs in ((3000, 300), (8000, 400)):
        traces, t_city = _timed(generate_city, 3, n_users=users, n_epochs=epochs)
        clipped, t_clip = _timed(lambda t=traces: sp.csr_matrix(
            clip_per_epoch(t, 1, rng(3, "clipping"))))
        loads.append((users * epochs, t_city, clipped.nnz, t_clip))
        _say(f"location city {users} × {epochs}: {t_city:.2f} s, clipping {clipped.nnz:,} "
             f"observations {t_clip:.2f} s")
    city = sum(r[1] for r in loads) / sum(r[0] for r in loads)
    clip = sum(r[3] for r in loads) / sum(r[2] for r in loads)
    # The CSV loader, on the smaller city written out.
    from engine.data.city import write_traces_csv
    from engine.data.traces import load_traces_csv
    small = generate_city(4, n_users=3000, n_epochs=300)
    with tempfile.TemporaryDirectory() as tmp:
        path = write_traces_csv(small, Path(tmp) / "t.csv")
        _, t_csv = _timed(load_traces_csv, path)
    csv = t_csv / small.matrix.nnz
    _say(f"location CSV: {small.matrix.nnz:,} rows read in {t_csv:.2f} s")

    k_all = clipped.getnnz(axis=1)
    n_users, n_cells = clipped.shape
    mean_obs = clipped.nnz / n_users
    g = rng(5, "bench-pools")
    game_rows, game_t = [], []
    att = {"cheap": [], "llr": [], "eval": [], "llr_bytes": []}
    pop_active, pop_count, meta_epochs, ref_cells = [], [], [], []
    settings = [dict(attacker="informed", k=400, S=2000, T=40_000, n=1999),
                dict(attacker="auxiliary", k=300, S=2000, T=20_000, n=1999),
                dict(attacker="auxiliary", k=60, S=4000, T=30_000, n=999),
                dict(attacker="partial", k=150, S=2000, T=20_000, n=2999),
                dict(attacker="auxiliary", k=20, S=8000, T=10_000, n=3999)]
    for i, st in enumerate(settings):
        config = L.LocationConfig(attacker=st["attacker"], aggregate_size=st["n"],
                                  shadow_aggregates=st["S"], test_aggregates=st["T"],
                                  target="observations", target_observations=st["k"],
                                  seed=11 + i)
        target = int(np.argmin(np.abs(k_all - st["k"])))
        others = g.permutation(np.delete(np.arange(n_users), target))
        aux, rel = np.sort(others[: others.size // 2]), np.sort(others[others.size // 2:])
        scale = location_setup.cell_noise_scale(config)
        sc, t = _timed(location_game.build_scenario, config, traces, clipped, target, rel, aux,
                       scale, ("bench", i), n_test=st["T"], with_reference=True,
                       with_large=False, progress=NO_PROGRESS, cancel=NEVER)
        d = sc.data
        m, k = d.target.size, d.k
        u = config.unknown_size()
        count = st["S"] + st["T"]
        ref_cells.append((m - k) / (config.reference_traces * mean_obs))
        # Active people of the auxiliary pool on the m read cells (target + references).
        active = _active(clipped, sc, target, aux, config, i) if u else 0
        noise = CAL["noise_seconds_per_value"]["laplace"] * count * m
        game_rows.append([clipped.nnz, count * m, count * active,
                          count * u * m * mean_obs / n_cells])
        game_t.append(max(t - noise, 0.0))
        if u:
            x = active / (aux.size)
            pop_active.append(-math.log(max(1 - x, 1e-9)) * n_cells / (m * mean_obs))
            support = float(np.rint(d.shadow.unknown[:, :k]).max()) + 2
            mu0 = u * mean_obs / n_cells
            # support = 3 + μ + 4√μ, μ = pop · μ0: solve for pop.
            root = max(0.0, (-4 + math.sqrt(16 + 4 * max(support - 3, 0))) / 2)
            pop_count.append(root ** 2 / mu0)
        else:
            support = 1.0
        times = {}
        for name, fn, args in (("one_threshold", one_threshold.attack, (d,)),
                               ("two_threshold", two_threshold.attack, (d,)),
                               ("reference", reference.attack, (d, 5)),
                               ("likelihood_ratio", likelihood_ratio.attack, (d,))):
            if name == "likelihood_ratio":
                tracemalloc.start()
            out, times[name] = _timed(fn, *args)
            if name == "likelihood_ratio":
                att["llr_bytes"].append(tracemalloc.get_traced_memory()[1]
                                        / (min(st["T"], BATCH_AGGREGATES) * support))
                tracemalloc.stop()
            _, te = _timed(evaluate_attack, name, name, out.scores, d.test.labels,
                           delta=1e-5, fpr_targets=(0.001, 0.01, 0.1))
            att["eval"].append((st["T"], te))
        att["cheap"].append(((st["S"] + st["T"]) * m, times["one_threshold"]
                             + times["two_threshold"] + times["reference"]))
        att["llr"].append(((st["S"] + st["T"]) * k, (st["S"] + st["T"]) * k * support,
                           times["likelihood_ratio"]))
        out, t_meta = _timed(meta_classifier.attack, replace(d), architecture="fig11b", seed=1)
        per_epoch = math.ceil(0.9 * st["S"] / min(512, 0.9 * st["S"]))
        meta_epochs.append(out.details["training_steps"] / per_epoch)
        _say(f"location scenario {st}: m = {m}, active {active}, support {support:.0f}: game "
             f"{t:.2f} s, attacks {times}, meta {t_meta:.2f} s "
             f"({out.details['training_steps']} steps)")
    from scipy.optimize import nnls
    coef, _ = nnls(np.array(game_rows, float), np.array(game_t))
    cheap = sum(v for _, v in att["cheap"]) / sum(c for c, _ in att["cheap"]) / 3
    llr, _ = nnls(np.array([r[:2] for r in att["llr"]], float),
                  np.array([r[2] for r in att["llr"]]))
    ev = sum(v for _, v in att["eval"]) / sum(c for c, _ in att["eval"])
    return {"city_seconds_per_cell": city, "clip_seconds_per_obs": clip,
            "csv_seconds_per_row": csv, "slice_seconds_per_obs": float(max(coef[0], 1e-10)),
            "value_seconds": float(coef[1]), "key_seconds": float(max(coef[2], 1e-10)),
            "visit_seconds": float(coef[3]),
            "reference_cells_factor": float(min(1.0, 1.2 * max(ref_cells))),
            "pop_active": float(max(pop_active)), "pop_count": float(max(pop_count)),
            "cheap_seconds_per_value": float(cheap),
            "llr_seconds_per_value": float(llr[0]),
            "llr_seconds_per_support_value": float(max(llr[1], 1e-10)),
            "llr_bytes_per_value": float(max(att["llr_bytes"])),
            "eval_seconds_per_test": float(ev),
            # Early stopping ends after a data-dependent number of epochs (16 to 175 seen):
            # the mean of those measured, which leans long.
            "meta_epochs": float(math.ceil(np.mean(meta_epochs)))}


def _active(clipped, sc, target, aux, config, i) -> int:
    """Active people in the auxiliary pool on the scenario's m read cells (target + refs)."""
    from engine.runtime import rng
    cells = clipped[target].indices.astype(np.int64)
    g_ref = rng(config.seed, "reference-traces", "bench", i)
    refs = g_ref.choice(aux, size=min(config.reference_traces, aux.size), replace=False)
    ref_mean = np.asarray(clipped[refs].mean(axis=0)).ravel()
    cells = np.r_[cells, np.setdiff1d(np.flatnonzero(ref_mean), cells)]
    return int((clipped[aux][:, cells].getnnz(axis=1) > 0).sum())


def calibrate() -> dict:
    import engine.estimates.calibration as cal
    from engine.audits.registry import config_from_dict
    from engine.estimates import estimate

    t_start = time.perf_counter()
    trade, comp = _theory_tables()
    noise_s, noise_b = _noise_seconds()
    table: dict = {"tradeoff_seconds": trade, "compose_seconds": comp,
                   "noise_seconds_per_value": noise_s, "noise_bytes_per_value": noise_b}
    steps, forward = _meta_steps()
    table.update({"meta_step_seconds": steps, "meta_value_seconds": forward,
                  "overhead_seconds": 0.0,
                  "csv_bytes_per_row": 200.0, "bytes_per_obs": 12.0, "bytes_factor": 1.0})
    table["meta_setup_seconds"], table["meta_setup_bytes"] = _meta_setup()
    _say(f"location meta set-up {table['meta_setup_seconds']:.2f} s, "
         f"{table['meta_setup_bytes'] / 1e6:.0f} MB")
    table.update(_scenarios(table))
    _say(f"location in-process steps done in {time.perf_counter() - t_start:.0f} s: "
         f"{ {k: v for k, v in table.items() if not isinstance(v, (dict, list))} }")
    # Whole audits in fresh processes: what a run spends outside the timed steps, and the
    # memory factor (measured peak over the arrays the model names, the largest ratio).
    cal.LOCATION = table
    residual, peaks, arrays = [], [], []
    for d in (_location(city_users=8000, city_epochs=400, aggregate_size=1499,
                        test_aggregates=30_000, sweep_targets=3),
              _location(city_users=5000, city_epochs=250, attacker="auxiliary",
                        aggregate_size=999, test_aggregates=15_000, sweep_targets=2,
                        sweep_test_aggregates=3000),
              _location(traces="resources/location/sample_city.csv", aggregate_size=299,
                        attacker="partial", test_aggregates=8000, sweep_targets=4)):
        config = config_from_dict(d, "bench")
        r = measure(d)
        est = estimate(config)
        residual.append(r["wall_s"] - est.seconds)
        peaks.append(r["peak_bytes"] - table["meta_setup_bytes"])
        arrays.append(est.peak_bytes - table["meta_setup_bytes"])
        _say(f"location audit {config.city_users if not config.traces else config.traces} "
             f"{config.attacker}: {r['wall_s']:.1f} s (steps estimated {est.seconds:.1f} s), "
             f"{r['peak_bytes'] / 1e6:.0f} MB (arrays {est.peak_bytes / 1e6:.0f} MB)")
    table["overhead_seconds"] = float(max(0.0, float(np.median(residual))))
    # Peak = fixed + factor × arrays, no calibration run underestimated (+10 %).
    table["bytes_factor"], table["overhead_bytes"] = peak_line(arrays, peaks, margin=1.1)
    _say(f"location overhead {table['overhead_seconds']:.2f} s, memory factor "
         f"{table['bytes_factor']:.2f} + {table['overhead_bytes'] / 1e6:.0f} MB; calibration took {time.perf_counter() - t_start:.0f} s")
    return table


def cases() -> list[tuple[str, dict]]:
    """Held-out configs: sizes, attackers and mechanisms the calibration did not use."""
    return [("city 6000 × 300 informed laplace",
             _location(city_users=6000, city_epochs=300, aggregate_size=999,
                       shadow_aggregates=3000, test_aggregates=25_000, sweep_targets=4,
                       sweep_test_aggregates=2500)),
            ("city 12000 × 600 auxiliary gaussian",
             _location(city_users=12_000, city_epochs=600, attacker="auxiliary",
                       mechanism="gaussian", aggregate_size=2499, test_aggregates=20_000,
                       sweep_targets=3, sweep_test_aggregates=2000)),
            ("city 10000 × 500 discrete laplace, large MLP, 2 repetitions",
             _location(city_users=10_000, city_epochs=500, mechanism="discrete_laplace",
                       aggregate_size=1999, large_shadow_aggregates=20_000,
                       test_aggregates=30_000, repetitions=2, sweep_targets=0)),
            ("sample CSV, partial attacker, k = 40",
             _location(traces="resources/location/sample_city.csv", aggregate_size=599,
                       attacker="partial", known_fraction=0.3, target="observations",
                       target_observations=40, test_aggregates=40_000, sweep_targets=5))]
