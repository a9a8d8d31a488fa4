"""torch's CPU threads sleep while they wait (engine/__init__.py; bench/bench_threads.py says why
and how much it matters on a busy machine), and how they wait never changes the numbers."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]

# Trains a stack of 4 MLPs large enough per step (4 × 256 rows × ~60,000 multiply-adds) to run
# on all of torch's threads (engine.models.mlp._SMALL_STEP), prints a hash of the weights.
TRAIN = """
import hashlib, numpy as np
import engine
from engine.models.mlp import train_stacked
from engine.models.spec import TrainingSpec
g = np.random.default_rng(0)
X = g.normal(size=(2000, 120)).astype(np.float32)
y = g.integers(0, 10, 2000)
spec = TrainingSpec(hidden=(256, 128), epochs=2, batch_size=256, lr=1e-3).resolved()
rows = [np.arange(i, 2000, 4) for i in range(4)]
params, _ = train_stacked(spec, X, y, 10, rows, [1, 2, 3, 4], device="cpu")
h = hashlib.sha256()
for p in params:
    for t in (p if isinstance(p, (tuple, list)) else (p,)):
        h.update(t.detach().cpu().numpy().tobytes())
print(h.hexdigest())
"""


def _python(code: str, **env) -> str:
    full = {k: v for k, v in os.environ.items() if k not in ("OMP_WAIT_POLICY", "OMP_NUM_THREADS")}
    full.update(env)
    out = subprocess.run([sys.executable, "-c", code], cwd=ROOT, env=full, capture_output=True,
                         text=True, timeout=600)
    assert out.returncode == 0, out.stderr[-2000:]
    return out.stdout.strip().splitlines()[-1]


def test_importing_the_engine_makes_torch_threads_sleep_while_they_wait():
    code = "import os, engine; print(os.environ.get('OMP_WAIT_POLICY'))"
    assert _python(code) == "PASSIVE"


def test_a_users_own_wait_setting_is_kept():
    code = "import os, engine; print(os.environ.get('OMP_WAIT_POLICY'))"
    assert _python(code, OMP_WAIT_POLICY="ACTIVE") == "ACTIVE"


def test_the_app_loads_the_engine_before_torch():
    # The setting works only if it is in place when torch (and its OpenMP) first loads. The app
    # imports its window (and with it the engine) before it preloads torch (gui.app).
    code = ("import sys\n"
            "class Watch:\n"
            "    seen = None\n"
            "    def find_spec(self, name, path=None, target=None):\n"
            "        if name == 'torch' and Watch.seen is None:\n"
            "            Watch.seen = 'engine' in sys.modules\n"
            "        return None\n"
            "sys.meta_path.insert(0, Watch())\n"
            "import gui.app, gui.main_window\n"
            "import torch\n"
            "print(Watch.seen)")
    assert _python(code, QT_QPA_PLATFORM="offscreen") == "True"


def test_how_threads_wait_and_how_many_there_are_leave_the_weights_unchanged():
    spinning = _python(TRAIN, OMP_WAIT_POLICY="ACTIVE")
    sleeping = _python(TRAIN, OMP_WAIT_POLICY="PASSIVE")
    one_thread = _python(TRAIN, OMP_WAIT_POLICY="PASSIVE", OMP_NUM_THREADS="1")
    assert spinning == sleeping == one_thread
