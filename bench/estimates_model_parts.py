"""The model cost model's fixed costs and per-attack costs (issue 21, "Estimates that hold"),
measured part by part — ``python -m bench.bench_estimates --calibrate model-parts``.

Why apart from ``calibrate_model`` of bench/bench_estimates.py: that calibration fits the attacks
as one cost per (record × class) shared by every attack, and has no fixed part. On the held-out
config of 3,000 records (two attacks) the estimate was 0.9 s for a 6.2 s run on a quiet
machine: what a small audit costs is mostly what no per-record constant sees —

* **the first training of a session**: torch loads its compiler package (``torch._dynamo``)
  the first time an optimiser steps, about 2.5 s of CPU on the reference machine, once per
  process (``startup_seconds``; the estimate counts it only while it has not happened yet);
* **a training call's set-up**: tensors, optimiser, the first step (``training_call_seconds``,
  per call: the audited model, the stack of shadow/reference models, an attack model);
* **each attack's own cost**: Shokri's and ML-Leaks' attack models train an MLP per class
  group, BTTA fits closed forms, LiRA and RMIA read every reference model — one
  ``[fixed seconds, seconds per cell]`` per attack (``attack_costs``), a cell being one
  (audited record × class), times the reference models for the attacks that read them.

Each attack is timed on the same game outputs at two sizes (the best of two runs each, after
one warm-up of torch), the two points giving the fixed part and the slope.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import time
from pathlib import Path

import numpy as np

from bench.estimates_model_config import model_config

ROOT = Path(__file__).resolve().parents[1]

# Two sizes of purchase-style records (100 classes): the slope needs a factor of ~4 between.
SIZES = (2000, 8000)
SHADOWS, REFERENCES = 4, 8

_FRESH_PROCESS = r"""
import json, time
import numpy as np
import torch  # noqa: F401 - the app has torch loaded before any run
from engine.models import TrainingSpec, train_model
g = np.random.default_rng(0)
X = (g.random((256, 24)) < 0.3).astype(np.float32)
y = g.integers(0, 2, 256)
spec = TrainingSpec(family="mlp", architecture="small", epochs=1, batch_size=256,
                    seed=0).resolved()
took = []
for _ in range(3):
    t0 = time.perf_counter()
    train_model(spec, X, y, 2, device="cpu")
    took.append(time.perf_counter() - t0)
print(json.dumps(took))
"""


def fixed_costs() -> dict[str, float]:
    """``startup_seconds`` and ``training_call_seconds`` from three one-step trainings in a
    fresh process: the first pays the start-up and a call, the later ones a call only."""
    runs = []
    for _ in range(3):
        out = subprocess.run([sys.executable, "-c", _FRESH_PROCESS], capture_output=True,
                             text=True, cwd=ROOT, timeout=600,
                             env={**os.environ, "PRA_DEVICE": "cpu"})
        if out.returncode != 0:
            raise RuntimeError(out.stderr[-2000:])
        runs.append(json.loads(out.stdout.strip().splitlines()[-1]))
    first = float(np.median([r[0] for r in runs]))
    call = float(np.median([min(r[1:]) for r in runs]))
    return {"startup_seconds": max(first - call, 0.0), "training_call_seconds": call}


def _outputs(records: int):
    # 20 epochs, as the sample audit trains: Shokri's and ML-Leaks' attack models stop early
    # (no group improving for 5 checks), and on the near-uniform outputs of 3-epoch models they
    # stopped after ~60 of their 300 epochs — the calibration then said 2.6 s for an attack that
    # took 18 s on the sample's outputs (28 Nov 2026).
    from engine.audits.registry import config_from_dict
    from engine.games.model import train_and_query
    from engine.runtime import NEVER, NO_PROGRESS

    d = model_config(synthetic_records=records, shadow_models=SHADOWS, reference_models=REFERENCES,
               epochs=20, attacks=["confidence", "lira_online"])
    config = config_from_dict(d, "bench")
    return config, train_and_query(config, progress=NO_PROGRESS, cancel=NEVER)


def attack_costs(say=print) -> dict[str, list[float]]:
    """``{attack: [fixed seconds, seconds per cell]}`` for every attack of the model table."""
    from engine.attacks.model import ATTACKS
    from engine.estimates.model import TRAINING_ATTACKS
    from engine.games.model import NEEDS_REFERENCE
    from engine.runtime import NEVER, device

    dev = device()
    points: dict[str, list[tuple[float, float]]] = {name: [] for name in ATTACKS}
    for records in SIZES:
        config, out = _outputs(records)
        universe, k = out.target.probs.shape
        ATTACKS["shokri"](out, config, device=dev, cancel=NEVER)         # warm-up
        for name, attack in ATTACKS.items():
            # Shokri's and ML-Leaks' attack models train on the shadow outputs: their cells
            # are shadow rows × classes (engine.estimates.model.attack_seconds).
            rows = out.shadow.probs.shape[0] if name in TRAINING_ATTACKS else universe
            cells = rows * k * (REFERENCES if name in NEEDS_REFERENCE else 1)
            best = np.inf
            for _ in range(2):
                t0 = time.perf_counter()
                attack(out, config, device=dev, cancel=NEVER)
                best = min(best, time.perf_counter() - t0)
            points[name].append((cells, best))
            say(f"model attack {name} on {universe:,} records × {k} classes: {best:.3f} s")
    costs = {}
    for name, ((c1, t1), (c2, t2)) in points.items():
        slope = max((t2 - t1) / (c2 - c1), 0.0)
        costs[name] = [max(t1 - slope * c1, 0.0), slope]
    return costs


def calibrate(say=print, base: dict | None = None) -> dict:
    """The model table (``base``, or engine/estimates/calibration.py's) with these parts
    measured anew, the rest as it is."""
    from engine.estimates import calibration as old

    table = dict(base if base is not None else getattr(old, "MODEL", {}))
    fixed = fixed_costs()
    say(f"model start-up {fixed['startup_seconds']:.2f} s, training call "
        f"{fixed['training_call_seconds'] * 1e3:.1f} ms")
    table.update(fixed)
    table["attack_costs"] = attack_costs(say)
    return table
