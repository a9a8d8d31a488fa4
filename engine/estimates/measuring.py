"""Measuring this machine (issue 21, "Measure this machine", ``python main.py calibrate``):
one small audit per type, run in this process, against its estimate with the built-in
constants; the factors are stored and read by engine.estimates.machine (see there)."""

from __future__ import annotations

import datetime
import json
import os
import platform
import time
from pathlib import Path

from engine.atomic_write import write_text
from engine.audits.registry import config_from_dict, demo_config, run_audit
from engine.estimates import RUN_THREADS, estimate, machine_slowdown
from engine.estimates.machine import (
    FACTOR_RANGE,
    KIND_WORDS,
    MachineConstants,
    constants_path,
    load,
)
from engine.runtime import NEVER, NO_PROGRESS, CancelToken, Progress, load_torch


def _probe_configs(scale: float) -> dict[str, list[dict]]:
    """One small audit per type, none of them a calibration config of the bench (sizes
    × ``scale``: 1 for the real measurement, far less in tests)."""

    def sized(n: float, least: int) -> int:
        return max(least, int(round(n * scale)))

    mechanism = {**demo_config("mechanism").to_dict(), "observations": 20,
                 "trials": sized(1_000_000, 200)}
    # The location probe draws the synthetic city rather than reading the sample's small
    # traces file: on that file the audit runs 2–3 s, mostly parts whose fixed costs the
    # estimate overrates, so its factor (0.40–0.80 over four quiet runs, 1.63 in a fresh
    # process) said more about those seconds than about the machine, and made held-out
    # location estimates 2.8 times short. The city probe runs ~10 s on games and attacks, as
    # real location audits do (its built-in estimate within 20 % of the run here).
    location = {**demo_config("location").to_dict(), "traces": "",
                "city_users": sized(8000, 200), "city_epochs": sized(800, 48),
                "aggregate_size": sized(499, 40),
                "test_aggregates": sized(20_000, 200), "shadow_aggregates": sized(2000, 200),
                "sweep_targets": 2, "sweep_test_aggregates": sized(2000, 200)}
    aggregates = {**demo_config("aggregates").to_dict(), "n_shadow": sized(6000, 100),
                  "reconstructions": 3, "max_targets": sized(10, 2), "sweep_targets": 5,
                  "membership": False}
    model = demo_config("model").to_dict()
    model = {**model, "synthetic_records": sized(4000, 1000), "shadow_models": 2,
             "reference_models": 4, "epochs": sized(10, 1),
             "defences": {**model.get("defences", {}), "enabled": False}}
    return {"mechanism": [mechanism], "location": [location], "aggregates": [aggregates],
            "model": [model]}


def measure_machine(progress: Progress = NO_PROGRESS, cancel: CancelToken = NEVER, *,
                    types: tuple[str, ...] = ("mechanism", "location", "aggregates", "model"),
                    scale: float = 1.0, path: Path | None = None,
                    clock=time.perf_counter, slowdown=machine_slowdown) -> MachineConstants:
    """Run the probe audits, fit one speed factor per audit type, store them (atomically) and
    return them. A job (ARCHITECTURE §3): progress per audit, cancelled between and within
    audits — a cancelled measurement stores nothing. ``slowdown``: the measured slowdown
    (engine.estimates.machine_slowdown; tests pass their own)."""

    # torch and its compiler package are loaded first, as the app loads them when its window
    # opens (gui.app.preload_torch): their one-time 2–5 s would otherwise land on whichever
    # probe trains a network first (the location probe's meta-classifier), whose estimate has
    # no such part, and inflate its factor (measured: 1.63 in a fresh process, 0.8 warm).
    load_torch()
    probes = _probe_configs(scale)
    jobs = [(t, d) for t in types for d in probes[t]]
    factors: dict[str, float] = {}
    measured: dict[str, list[float]] = {}
    for i, (audit_type, d) in enumerate(jobs):
        cancel.check()
        part = progress.span(i / len(jobs), (i + 1) / len(jobs))
        part(0.0, f"Measuring this machine: audit {i + 1} of {len(jobs)} "
                  f"({KIND_WORDS.get(audit_type, audit_type)})")
        config = config_from_dict(d, "measuring this machine")
        built_in = estimate(config, slowdown=1.0, machine=False).seconds
        # The share of the processors other programs left to this probe, measured just
        # before and just after it (engine.estimates.slowdown), divided out as the estimate
        # multiplies it back in: the factor is this computer's speed, not its load then.
        threads = RUN_THREADS.get(audit_type, 1)
        before = slowdown(fresh=True, threads=threads)
        start = clock()
        run_audit(config, progress=part.span(0.0, 1.0), cancel=cancel)
        took = clock() - start
        took /= 0.5 * (before + slowdown(fresh=True, threads=threads))
        sums = measured.setdefault(audit_type, [0.0, 0.0])
        sums[0] += took
        sums[1] += built_in
    for audit_type, (took, built_in) in measured.items():
        if built_in > 0:
            factors[audit_type] = min(max(took / built_in, FACTOR_RANGE[0]), FACTOR_RANGE[1])
    cancel.check()
    previous, _ = load(path)
    if previous is not None:                    # types not measured now keep their factor
        factors = {**previous.factors, **factors}
    constants = MachineConstants(factors, datetime.date.today().isoformat(),
                                 f"{platform.machine()}, {os.cpu_count()} cores")
    target = Path(path) if path is not None else constants_path()
    target.parent.mkdir(parents=True, exist_ok=True)
    write_text(target, json.dumps(constants.to_dict(), indent=2) + "\n")
    progress(1.0, "Done")
    return constants
