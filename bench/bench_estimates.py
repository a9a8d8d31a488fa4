"""Cost estimates (engine/estimates) against measured runs — and their calibration.

``python -m bench.bench_estimates`` runs held-out configs of every audit type (sizes the
calibration did not use) in fresh processes and prints, per case, the estimated against the
measured time and peak memory:

    estimate mechanism laplace k=500: ours 12.1 s, reference 10.3 s, ratio 0.9 | memory ...

(ratio = measured / estimated: 1 is exact, 0.5 means the estimate was twice too long.)

``python -m bench.bench_estimates --calibrate [TYPE ...]`` measures the tables and constants
the cost models read and rewrites ``engine/estimates/calibration.py``. Run it on a quiet
machine (nothing else using the cores): the estimates are wall-clock times on this machine.

``python -m bench.bench_estimates --held-out`` is what a user's machine sees (issue 21): it
measures this machine as "Measure this machine" does (engine.estimates.machine, into a
temporary app-data folder), then runs small held-out configs (:func:`held_out_cases`: neither
the probes of that measurement nor this bench's calibration configs) in fresh processes, first
as the machine is ("quiet"), then with two CPU-burning processes this bench starts itself
("busy"), and prints measured ÷ estimated for each — with the estimate the app would show then
(this machine's factors, scaled by the slowdown measured at the start, engine.estimates.slowdown)
and, for comparison, the built-in constants alone. The goal: every ratio between 0.5 and 2.
At loads 0, 2, 8 and 15: ``python -m bench.bench_estimates_load``.
"""

from __future__ import annotations

import argparse
import datetime
import json
import platform
import pprint
import sys
from pathlib import Path

import numpy as np

from bench.estimates_model_config import model_config
from bench.measured_run import measure, peak_line

ROOT = Path(__file__).resolve().parents[1]
CALIBRATION = ROOT / "engine" / "estimates" / "calibration.py"
MECHANISMS = ("laplace", "gaussian", "discrete_laplace", "discrete_gaussian")


def _say(*args) -> None:
    print(*args, file=sys.stderr, flush=True)


# --------------------------------------------------------------------------- mechanism

def _mechanism(**kw) -> dict:
    from engine.audits.mechanism import MechanismConfig
    return {**MechanismConfig().to_dict(), **kw}


def calibrate_mechanism() -> dict:
    """Theory tables per mechanism and sweep (trials = 100, so the game is negligible and is
    subtracted), then the game's costs from two large games per mechanism (a 2 × 2 solve)."""
    ks = (1, 3, 10, 30, 100, 300, 1000, 3000)
    theory: dict = {}
    for m in MECHANISMS:
        theory[m] = {}
        for sweep in ("epsilon", "observations"):
            rows = []
            for k in ks:
                r = measure(_mechanism(mechanism=m, observations=k, trials=100, sweep=sweep))
                rows.append([k, round(r["wall_s"], 4), int(r["peak_bytes"])])
                _say(f"mechanism theory {m} {sweep} k={k}: {r['wall_s']:.2f} s, "
                     f"{r['peak_bytes'] / 1e6:.0f} MB")
            theory[m][sweep] = rows
    return {"theory": theory, **calibrate_mechanism_game(theory)}


def calibrate_mechanism_game(theory: dict | None = None) -> dict:
    """The membership game's costs: two large games per mechanism, the theory's time (its
    table, ``theory`` or the current calibration's) subtracted. One cost per trial shared by
    every mechanism (statistics, ROC, intervals: the same code whatever the noise) and one
    cost per noise value per mechanism, fitted together by non-negative least squares over
    the eight games. A 2 × 2 solve per mechanism, as before 28 Nov 2026, put the Laplace
    game's per-value cost at the floor (1e-10 s) and its time on the per-trial cost; "Measure
    this machine", whose mechanism probe is a Laplace game, then read a factor of 3.7 on the
    reference machine itself and made every Gaussian and discrete-Laplace estimate 1.5–2.6
    times long."""
    from scipy.optimize import nnls

    from engine.estimates.scaling import loglog
    if theory is None:
        from engine.estimates import calibration as current
        theory = current.MECHANISM["theory"]
    batch_values = 1 << 21
    rows, times, per_trial_bytes, per_value_bytes = [], [], [], []
    for i, m in enumerate(MECHANISMS):
        b_rows, b = [], []
        for n, k in ((400_000, 2), (40_000, 100)):
            r = measure(_mechanism(mechanism=m, observations=k, trials=n))
            theory_s = loglog(theory[m]["epsilon"], k, 1)
            row = [0.0] * (len(MECHANISMS) + 1)
            row[i] = 2.0 * n * k                      # noise values drawn, both hypotheses
            row[-1] = float(n)                        # trials
            rows.append(row)
            times.append(max(r["wall_s"] - theory_s, 1e-3))
            batch = min(n, max(1, batch_values // k)) * k
            b_rows.append([n, batch])
            b.append(r["peak_bytes"])
            _say(f"mechanism game {m} N={n} k={k}: {r['wall_s']:.2f} s, "
                 f"{r['peak_bytes'] / 1e6:.0f} MB")
        # Memory per mechanism, the largest kept: an estimate of memory must not fall short.
        bt, bv = np.linalg.lstsq(np.array(b_rows, float), np.array(b, float), rcond=None)[0]
        per_trial_bytes.append(max(bt, 0.0))
        per_value_bytes.append(max(bv, 0.0))
    coef, _ = nnls(np.array(rows), np.array(times))
    game_value = {m: float(max(coef[i], 1e-10)) for i, m in enumerate(MECHANISMS)}
    return {"game_seconds_per_value": game_value, "seconds_per_trial": float(coef[-1]),
            "bytes_per_trial": float(max(per_trial_bytes)),
            "bytes_per_batch_value": float(max(per_value_bytes)), "batch_values": batch_values}


def mechanism_cases() -> list[tuple[str, dict]]:
    return [("laplace k=50 N=50000", _mechanism(observations=50, trials=50_000)),
            ("laplace k=500 sweep=observations",
             _mechanism(observations=500, trials=20_000, sweep="observations")),
            ("gaussian k=20 N=1000000", _mechanism(mechanism="gaussian", observations=20,
                                                   trials=1_000_000)),
            ("discrete_gaussian k=200", _mechanism(mechanism="discrete_gaussian",
                                                   observations=200, trials=20_000)),
            ("discrete_laplace k=2000", _mechanism(mechanism="discrete_laplace",
                                                   observations=2000, trials=20_000))]


# --------------------------------------------------------------------------- model

# The model configs come from bench/estimates_model_config, which
# bench/estimates_model_parts reads too (no import circle between the two benches).
_model = model_config


def _step_time(models: int, d: int, k: int, hidden: tuple, batch: int = 128) -> tuple:
    """(multiply-adds of one stacked step, seconds per step) of ``models`` MLPs trained
    together on 20 batches of random binary rows per epoch, through
    engine.models.train_many_mlps: 3 epochs minus 1 epoch, over the 40 steps between (what
    is left is the cost of a step, without the set-up every training call pays once)."""
    import time

    from engine.estimates.model import macs_per_row
    from engine.models import TrainingSpec, train_many_mlps

    g = np.random.default_rng(0)
    rows = 20 * batch
    X = (g.random((rows, d)) < 0.2).astype(np.float32)
    y = g.integers(0, k, rows)
    masks = np.ones((models, rows), dtype=bool)
    took = {}
    for epochs in (1, 3):
        spec = TrainingSpec(family="mlp", hidden=hidden, activation="tanh", epochs=epochs,
                            batch_size=batch, seed=0).resolved()
        t0 = time.perf_counter()
        train_many_mlps(spec, X, y, k, masks, device="cpu")
        took[epochs] = time.perf_counter() - t0
    return models * batch * macs_per_row((d, *hidden, k)), max(took[3] - took[1], 1e-6) / 40


def calibrate_model() -> dict:
    """Step times over four decades of step sizes, prediction speed, the attacks' cost per
    (record × class), the other families' fits, DP-SGD's factor and the memory factor, from
    whole audits of held-apart sizes."""
    import time

    from engine.audits.registry import config_from_dict
    from engine.estimates import calibration as old
    from engine.estimates import estimate
    from engine.estimates.model import NEEDS_REFERENCE, data_size, macs_per_row

    _step_time(1, 24, 2, (16,))             # torch's first call pays for its warm-up
    steps = []
    for models, d, k, hidden in [(1, 24, 2, (128,)), (4, 24, 2, (128,)), (1, 600, 100, (128,)),
                                 (4, 600, 100, (128,)), (16, 600, 100, (128,)),
                                 (64, 600, 100, (128,)), (4, 600, 100, (1024, 512, 256, 128)),
                                 (16, 600, 100, (1024, 512, 256, 128)),
                                 (48, 600, 100, (1024, 512, 256, 128))]:
        macs, seconds = _step_time(models, d, k, hidden)
        steps.append([macs, seconds])
        _say(f"model step {models} × {d}-{hidden}-{k}: {macs:.3g} MACs, {seconds * 1e3:.2f} ms")
    steps.sort()
    # Prediction: every model on every record (engine.models.mlp.iter_logits).
    from engine.models import TrainingSpec, train_many_mlps
    g = np.random.default_rng(1)
    X = (g.random((20_000, 600)) < 0.2).astype(np.float32)
    spec = TrainingSpec(family="mlp", architecture="small", epochs=1, seed=0).resolved()
    many = train_many_mlps(spec, X[:256], g.integers(0, 100, 256), 100,
                           np.ones((16, 256), bool), device="cpu")
    t0 = time.perf_counter()
    many.predict_proba(X)
    predict = (time.perf_counter() - t0) / (16 * 20_000 * macs_per_row((600, 128, 100)))
    _say(f"model predict: {predict:.3g} s per multiply-add")
    table = {"step_seconds": steps, "predict_seconds_per_mac": predict,
             "load_seconds_per_cell": 2e-8, "attack_seconds_per_cell": 1e-6,
             "reference_attack_seconds_per_cell": 1e-8, "dpsgd_factor": 3.0,
             "bytes_factor": 1.0, "bytes_fixed": 0.0,
             "family_seconds": getattr(old, "MODEL", {}).get("family_seconds", {})}
    # Whole audits: the attacks' and loading's constants from what training does not explain.
    import engine.estimates.calibration as cal
    cal.MODEL = table               # the cost model reads these from now on
    residual_rows, residual_t = [], []
    for kw in [dict(synthetic_records=4000, attacks=["btta", "confidence", "ml_leaks", "shokri",
                                                    "label_only"], shadow_models=4),
               dict(synthetic_records=8000, shadow_models=4, reference_models=8,
                    attacks=["lira_online", "rmia"]),
               dict(synthetic_records=20_000, epochs=2, shadow_models=2,
                    attacks=["confidence"])]:
        d = _model(**kw)
        config = config_from_dict(d, "bench")
        n, width, k = data_size(config)
        r = measure(d)
        est = estimate(config)
        known = est.seconds_of("training")
        plain = [a for a in config.attacks if a not in NEEDS_REFERENCE]
        refs = len(config.attacks) - len(plain)
        universe = n * (1 - config.attacker_fraction)
        residual_rows.append([n * width, universe * k * len(plain),
                              universe * k * config.reference_models * refs])
        residual_t.append(max(r["wall_s"] - known, 0.0))
        _say(f"model audit {kw}: {r['wall_s']:.1f} s, training estimate {known:.1f} s, "
             f"{r['peak_bytes'] / 1e6:.0f} MB (estimated {est.peak_bytes / 1e6:.0f} MB)")
    from scipy.optimize import nnls
    coef, _ = nnls(np.array(residual_rows, float), np.array(residual_t))
    table["load_seconds_per_cell"] = float(max(coef[0], 1e-9))
    table["attack_seconds_per_cell"] = float(max(coef[1], 1e-8))
    table["reference_attack_seconds_per_cell"] = float(max(coef[2], 1e-10))
    # Other families: one model each at two sizes.
    fam = {}
    from engine.models import train_model
    for family in ("logistic", "random_forest", "gradient_boosting"):
        rows = []
        for n_rows, k in ((1000, 10), (4000, 10)):
            Xf = (g.random((n_rows, 100)) < 0.3).astype(np.float32)
            yf = g.integers(0, k, n_rows)
            spec = TrainingSpec(family=family, seed=0).resolved()
            t0 = time.perf_counter()
            train_model(spec, Xf, yf, k, device="cpu")
            rows.append([n_rows * 100 * k, time.perf_counter() - t0])
        fam[family] = rows
        _say(f"model family {family}: {rows}")
    table["family_seconds"] = fam
    # DP-SGD: per-sample gradients make a model `dpsgd_factor` times a plain one of the same
    # size, after a fixed set-up (Opacus wraps the model, the accountant plans the noise):
    # from two sizes, each plain time the best of three (they are short).
    from engine.defences.dpsgd import dp_sgd
    spec = TrainingSpec(family="mlp", architecture="small", epochs=3, seed=0).resolved()
    plain_t, dp_t = [], []
    for n_rows in (2000, 8000):
        Xd = (g.random((n_rows, 600)) < 0.2).astype(np.float32)
        yd = g.integers(0, 100, n_rows)
        runs = []
        for _ in range(3):
            t0 = time.perf_counter()
            train_model(spec, Xd, yd, 100, device="cpu")
            runs.append(time.perf_counter() - t0)
        plain_t.append(min(runs))
        t0 = time.perf_counter()
        dp_sgd(Xd, yd, 100, spec, noise_multiplier=1.0, seed=0, device="cpu")
        dp_t.append(time.perf_counter() - t0)
    factor = (dp_t[1] - dp_t[0]) / max(plain_t[1] - plain_t[0], 1e-6)
    table["dpsgd_factor"] = float(max(factor, 1.0))
    table["dpsgd_fixed_seconds"] = float(max(dp_t[0] - table["dpsgd_factor"] * plain_t[0], 0.0))
    _say(f"model DP-SGD: plain {plain_t} s, DP-SGD {dp_t} s: factor "
         f"{table['dpsgd_factor']:.1f}, set-up {table['dpsgd_fixed_seconds']:.2f} s")
    # The trade-off's measuring of one setting: the 8 supervised attacks and their metrics on
    # the audit universe (engine.defences.tradeoff.measure), seconds = fixed + per (record ×
    # class), from two sizes — cheaper per cell than the audit's own attacks, which train
    # attack models on shadow models.
    from engine.audits.model import ModelConfig
    from engine.defences.tradeoff import SUPERVISED_ATTACKS
    from engine.defences.tradeoff import measure as measure_setting
    rows_m, secs_m = [], []
    for n_rows in (1000, 4000):
        Xm = (g.random((n_rows, 600)) < 0.2).astype(np.float32)
        ym = g.integers(0, 100, n_rows)
        fitted = train_model(spec, Xm, ym, 100, device="cpu")
        inside = np.arange(n_rows) % 2 == 0
        t0 = time.perf_counter()
        measure_setting(ModelConfig(), fitted, Xm, ym, inside, attacks=SUPERVISED_ATTACKS,
                        delta=1e-5, fpr_targets=(0.001, 0.01, 0.1))
        rows_m.append([1.0, n_rows * 100.0])
        secs_m.append(time.perf_counter() - t0)
    fixed, per_cell = nnls(np.array(rows_m), np.array(secs_m))[0]
    table["tradeoff_measure_seconds"] = [float(fixed), float(max(per_cell, 1e-9))]
    _say(f"model trade-off measuring: {secs_m} s at 1,000 and 4,000 records")
    # Distilled students train until they converge: each stack as long as its slowest student
    # (engine.estimates.model.student_epochs). Their epochs are counted in two runs (not fitted
    # from their time): per α and per temperature, ÷ the recipe's epochs, at the records the
    # students train on (KCD: the members; DMP: the held-out reference records).
    kcd, dmp = [], []
    for records in (3000, 8000):
        d = _model(synthetic_records=records, attacks=["confidence", "btta"],
                   defences={"enabled": True, "l2_weight_decays": [],
                             "dpsgd_noise_multipliers": [], "dpsgd_target_epsilons": []})
        universe = records - d["attacker_fraction"] * records
        members = d["train_fraction"] * universe
        r = measure(d)
        for rows, out, size in ((r["students"].get("kcd", []), kcd, members),
                                (r["students"].get("dmp", []), dmp, universe - members)):
            out.append([round(size), [[knob, round(epochs / d["epochs"], 4)]
                                      for knob, epochs in sorted(rows)]])
        _say(f"model defences at {records:,} records: students' epochs {r['students']}")
    table["kcd_student_epochs"], table["dmp_student_epochs"] = kcd, dmp
    table.pop("student_epochs", None)
    # Memory: peak = fixed + factor × the arrays the model names (what torch, numpy or
    # scikit-learn allocate besides them, and their scratch space), no calibration run
    # underestimated (bench.measured_run.peak_line).
    def fit_memory(kind: str, configs: list[dict]) -> None:
        table[f"{kind}_factor"], table[f"{kind}_fixed"] = 1.0, 0.0
        raw, peak = [], []
        for d in configs:
            raw.append(estimate(config_from_dict(d, "bench")).peak_bytes)
            peak.append(measure(d)["peak_bytes"])
        table[f"{kind}_factor"], table[f"{kind}_fixed"] = peak_line(raw, peak)
        _say(f"model memory ({kind}): {[round(x / 1e6) for x in peak]} MB measured over "
             f"{[round(x / 1e6) for x in raw]} MB of arrays: × {table[f'{kind}_factor']:.2f} + "
             f"{table[f'{kind}_fixed'] / 1e6:.0f} MB")

    fit_memory("bytes", [_model(synthetic_records=4000),
                         _model(synthetic_records=8000, reference_models=32),
                         _model(synthetic_records=16000, reference_models=32)])
    fit_memory("family_bytes", [
        _model(synthetic="mixed", synthetic_records=4000, family="gradient_boosting",
               shadow_models=2, attacks=["confidence"]),
        _model(synthetic="mixed", synthetic_records=8000, family="random_forest",
               shadow_models=2, attacks=["confidence"]),
        _model(synthetic="mixed", synthetic_records=40000, family="gradient_boosting",
               shadow_models=2, attacks=["confidence"])])
    # Fixed costs and each attack's own cost (bench/estimates_model_parts: what the per-cell
    # constants above cannot see on small audits).
    from bench.estimates_model_parts import calibrate as calibrate_parts
    return calibrate_parts(_say, base=table)


def model_cases() -> list[tuple[str, dict]]:
    return [("purchase 4000 default", _model()),
            ("purchase 10000 purchase-architecture 16 refs",
             _model(synthetic_records=10_000, architecture="purchase", epochs=10)),
            ("mixed 20000 boosting", _model(synthetic="mixed", synthetic_records=20_000,
                                            family="gradient_boosting", shadow_models=4,
                                            attacks=["confidence", "btta"])),
            ("purchase 2000 defences", _model(synthetic_records=2000,
                                              defences={"enabled": True}))]


# --------------------------------------------------------------------------- driver

def _lazy(module: str, name: str):
    """A function of bench/estimates_<type>.py, imported when called (each audit type's
    calibration lives in a module of its own)."""
    def call(*args, **kw):
        import importlib
        return getattr(importlib.import_module(module), name)(*args, **kw)
    return call


CALIBRATORS = {"mechanism": calibrate_mechanism, "model": calibrate_model,
               # the game's costs only, the theory tables kept (minutes instead of a quarter hour)
               "mechanism-game": calibrate_mechanism_game,
               "location": _lazy("bench.estimates_location", "calibrate"),
               "aggregates": _lazy("bench.estimates_aggregates", "calibrate"),
               "model-parts": _lazy("bench.estimates_model_parts", "calibrate")}
# Calibrations of part of a table: the audit type whose table they update.
PARTIAL = {"model-parts": "model", "mechanism-game": "mechanism"}
CASES = {"mechanism": mechanism_cases, "model": model_cases,
         "location": _lazy("bench.estimates_location", "cases"),
         "aggregates": _lazy("bench.estimates_aggregates", "cases")}


def write_calibration(tables: dict) -> None:
    import importlib

    from engine.estimates import calibration as old
    importlib.reload(old)           # the file as it is now, not as this process first read it
    merged = {name: getattr(old, name.upper(), {}) for name in CALIBRATORS}
    merged = {name: table for name, table in merged.items() if table or name in tables}
    merged.update(tables)
    machine = (f"{platform.processor() or platform.machine()}, "
               f"{__import__('os').cpu_count()} cores, CPU only, measured "
               f"{datetime.date.today().isoformat()}")
    lines = ['"""Constants of the cost models (engine/estimates), measured on the reference',
             'machine by `python -m bench.bench_estimates --calibrate` — do not edit by hand;',
             're-run that command on a quiet machine after a change that makes an audit faster',
             'or slower."""', "", f"REFERENCE_MACHINE = {machine!r}", ""]
    for name, table in merged.items():
        lines.append(f"{name.upper()} = {pprint.pformat(table, width=96, sort_dicts=True)}")
        lines.append("")
    CALIBRATION.write_text("\n".join(lines), encoding="utf-8")


def check(types) -> None:
    from engine.audits.registry import config_from_dict
    from engine.estimates import estimate
    for t in types:
        for name, d in CASES[t]():
            est = estimate(config_from_dict(d, "bench"))
            r = measure(d)
            print(f"estimate {t} {name}: ours {est.seconds:.1f} s, reference {r['wall_s']:.1f} s,"
                  f" ratio {r['wall_s'] / max(est.seconds, 1e-9):.2f} | memory ours "
                  f"{est.peak_bytes / 1e6:.0f} MB, reference {r['peak_bytes'] / 1e6:.0f} MB, "
                  f"ratio {r['peak_bytes'] / max(est.peak_bytes, 1):.2f}", flush=True)


# --------------------------------------------------------------------------- held out

def held_out_cases() -> list[tuple[str, dict]]:
    """Small configs of every type that no calibration ran (a few seconds each on 2 cores)."""
    from engine.audits.registry import demo_config

    def demo(audit_type: str, **kw) -> dict:
        return {**demo_config(audit_type).to_dict(), **kw}

    model = demo("model", synthetic_records=3000, shadow_models=3, reference_models=4,
                 epochs=15, attacks=["confidence", "shokri"])
    model["defences"] = {**model["defences"], "enabled": False}
    # The sample audit's shape at a tenth of its cost: defences with an α = 1 student (the
    # slowest to converge), DMP, L2, DP-SGD, and LiRA re-run on every setting.
    defended = demo("model", synthetic_records=2000, shadow_models=2, reference_models=4,
                    epochs=10, attacks=["confidence", "lira_online"])
    defended["defences"] = {**defended["defences"], "kcd_alphas": [0.5, 1.0],
                            "dmp_temperatures": [1.0], "l2_weight_decays": [0.001],
                            "dpsgd_noise_multipliers": [1.0], "reference_models": 2}
    return [("mechanism gaussian k=50 N=300,000",
             demo("mechanism", mechanism="gaussian", observations=50, trials=300_000)),
            ("mechanism discrete Laplace k=30 N=100,000",
             demo("mechanism", mechanism="discrete_laplace", observations=30, trials=100_000)),
            ("location sample, aggregates of 399, 10,000 tests",
             demo("location", aggregate_size=399, test_aggregates=10_000, sweep_targets=3,
                  sweep_test_aggregates=1000)),
            ("count tables Laplace ε=1, 4,000 shadows, 8 targets",
             demo("aggregates", mechanism="laplace", epsilon=1.0, n_shadow=4000, max_targets=8,
                  reconstructions=4, sweep_targets=5, membership=False)),
            ("model 3,000 records, 3 shadows, confidence + Shokri", model),
            ("model 2,000 records with defences (KCD α 0.5 and 1, DMP, L2, DP-SGD; LiRA on "
             "each)", defended)]


def _burn() -> None:                # a busy program: one core at 100 %
    while True:
        pass


def _held_out_lines(label: str) -> list[float]:
    from engine.audits.registry import config_from_dict
    from engine.estimates import estimate
    ratios = []
    for name, d in held_out_cases():
        config = config_from_dict(d, "bench")
        # Each case runs in a fresh process, which pays torch's one-time start-up (the model
        # estimate counts it only while this process has not paid it): estimate as a fresh
        # app would, whatever this process has loaded already.
        loaded = sys.modules.pop("torch._dynamo", None)
        try:
            shown = estimate(config)                        # what the app would show now
            built_in = estimate(config, slowdown=shown.slowdown, machine=False)
        finally:
            if loaded is not None:
                sys.modules["torch._dynamo"] = loaded
        r = measure(d)
        ratio = r["wall_s"] / max(shown.expected_seconds, 1e-9)
        ratios.append(ratio)
        print(f"held-out {label} {name}: estimated {shown.expected_seconds:.1f} s (slowdown × "
              f"{shown.slowdown:.2f}), measured {r['wall_s']:.1f} s, ratio {ratio:.2f} "
              f"(built-in constants alone: ratio "
              f"{r['wall_s'] / max(built_in.expected_seconds, 1e-9):.2f})", flush=True)
    return ratios


def held_out(*, calibrate: bool = True, busy_wait_s: float = 1.0) -> int:
    import multiprocessing
    import os
    import tempfile
    import time

    with tempfile.TemporaryDirectory(prefix="pra-bench-app-data-") as folder:
        os.environ["PRA_APP_DATA"] = folder                 # the children read it too
        if calibrate:
            from engine.estimates.measuring import measure_machine
            t0 = time.perf_counter()
            measured = measure_machine()
            print(f"measured this machine in {time.perf_counter() - t0:.0f} s (load average "
                  f"{os.getloadavg()[0]:.1f}): " + ", ".join(
                      f"{k} × {v:.2f}" for k, v in sorted(measured.factors.items())), flush=True)
        quiet = _held_out_lines("quiet")
        from engine.estimates.slowdown import METER
        burners = [multiprocessing.Process(target=_burn, daemon=True) for _ in range(2)]
        for b in burners:
            b.start()
        try:
            # The estimate measures the share of the processors left to it
            # (engine.estimates.slowdown): a second is enough for the two to be running.
            time.sleep(min(busy_wait_s, 1.0))
            print(f"two busy processes started; measured slowdown "
                  f"{METER(fresh=True):.2f} (load average {os.getloadavg()[0]:.1f})", flush=True)
            busy = _held_out_lines("busy")
        finally:
            for b in burners:
                b.terminate()
                b.join()
    for label, ratios in (("quiet", quiet), ("busy", busy)):
        inside = sum(0.5 <= r <= 2 for r in ratios)
        print(f"held-out {label}: ratios {min(ratios):.2f} to {max(ratios):.2f}, {inside} of "
              f"{len(ratios)} between 0.5 and 2", flush=True)
    return 0


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--calibrate", action="store_true")
    parser.add_argument("--held-out", action="store_true",
                        help="measure this machine, then held-out configs quiet and busy")
    parser.add_argument("--no-measure", action="store_true",
                        help="with --held-out: the built-in constants, no measuring first")
    parser.add_argument("types", nargs="*",
                        default=[t for t in CALIBRATORS if t not in PARTIAL])
    args = parser.parse_args(argv if argv is not None else [])
    if args.held_out:
        return held_out(calibrate=not args.no_measure)
    if args.calibrate:
        # "model-parts": only the model's fixed and per-attack costs (bench/estimates_model_parts)
        # "mechanism-game": only the membership game's costs, merged into the current table
        tables = {PARTIAL.get(t, t): CALIBRATORS[t]() for t in args.types}
        if "mechanism-game" in args.types:
            from engine.estimates import calibration as current
            tables["mechanism"] = {**current.MECHANISM, **tables["mechanism"]}
        write_calibration(tables)
        _say(json.dumps({"written": str(CALIBRATION)}))
        import importlib

        import engine.estimates.calibration
        importlib.reload(engine.estimates.calibration)     # the check reads the new constants
    check(sorted({PARTIAL.get(t, t) for t in args.types}))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
