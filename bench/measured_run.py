"""Run one audit in a fresh process and measure what the cost estimates predict.

``measure(config_dict)`` starts ``python -m bench.measured_run`` with the config as JSON on
stdin; the child imports what the app imports before a run (engine, torch, the audit module),
reads its resident memory, runs the audit and reports the wall time of the run and its peak
resident memory above that baseline (VmHWM, the process's high-water mark, so each
measurement needs a process of its own). Used by ``bench/bench_estimates.py``; never by the app.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


def _status_bytes(field: str) -> int:
    with open("/proc/self/status", encoding="ascii") as fh:
        for line in fh:
            if line.startswith(field + ":"):
                return int(line.split()[1]) * 1024
    return 0


def _rss_bytes() -> int:
    return _status_bytes("VmRSS")


def _peak_bytes() -> int:
    """This process's resident high-water mark. Not ``getrusage().ru_maxrss``: Linux carries
    that across exec from the parent, so a child started by a calibration that had trained
    large models reported the parent's 1.5 GB for every run; VmHWM belongs to the new image."""
    return _status_bytes("VmHWM")


def measure(config: dict, *, timeout: float = 3600.0, threads: int | None = None) -> dict:
    """{"wall_s", "peak_bytes", "baseline_bytes"} of one run of ``config`` (a config dict)."""
    env = dict(os.environ, PRA_DEVICE=os.environ.get("PRA_DEVICE", "cpu"))
    if threads:
        env["OMP_NUM_THREADS"] = str(threads)
    out = subprocess.run([sys.executable, "-m", "bench.measured_run"], input=json.dumps(config),
                         capture_output=True, text=True, cwd=ROOT, env=env, timeout=timeout)
    if out.returncode != 0:
        raise RuntimeError(f"measured run failed: {out.stderr.strip()[-2000:]}")
    return json.loads(out.stdout.strip().splitlines()[-1])


def peak_line(arrays, peaks, margin: float = 1.0) -> tuple[float, float]:
    """(factor, fixed) of measured peak ≈ fixed + factor × the bytes a cost model names: the
    factor a non-negative least-squares slope (at least 1), the fixed part the largest residual
    times ``margin`` (so no calibration run is estimated below what it took)."""
    import numpy as np
    from scipy.optimize import nnls

    a, p = np.asarray(arrays, float), np.asarray(peaks, float)
    (factor, _), _ = nnls(np.c_[a, np.ones(a.size)], p)
    factor = max(1.0, float(factor))
    return factor, max(0.0, float(np.max(p - factor * a))) * margin


def _child() -> None:
    config_dict = json.loads(sys.stdin.read())
    import engine  # noqa: F401 - first, as in the app: it sets how torch's threads wait
    # isort: split
    import torch  # noqa: F401 - the app has it loaded before any run

    # The registry imports every audit module, so they are loaded before the baseline too.
    from engine.audits.registry import config_from_dict, run_audit
    config = config_from_dict(config_dict, "bench")
    baseline = _rss_bytes()
    t0 = time.perf_counter()
    result = run_audit(config)
    wall = time.perf_counter() - t0
    peak = _peak_bytes()
    print(json.dumps({"wall_s": wall, "peak_bytes": max(0, peak - baseline),
                      "baseline_bytes": baseline, "students": _student_epochs(result)}))


def _student_epochs(result) -> dict:
    """{"kcd": [[α, epochs]…], "dmp": [[T, epochs]…]}: how long each distilled student of a
    model audit's defences trained until it converged (the rows' ``student_epochs``); empty
    for other audits. The cost model's student tables are read from these counts."""
    data = result.to_dict() if hasattr(result, "to_dict") else result
    rows = (((data or {}).get("theory") or {}).get("defences") or {}).get("rows") or []
    out: dict = {}
    for row in rows:
        epochs = (row.get("defence_details") or {}).get("student_epochs")
        knob = {"kcd": "alpha", "dmp": "temperature"}.get(row.get("defence"))
        if epochs is not None and knob:
            out.setdefault(row["defence"], []).append([float(row["knobs"][knob]),
                                                       float(epochs)])
    return out


if __name__ == "__main__":
    _child()
