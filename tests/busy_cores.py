"""Busy-loop processes that load the machine's cores while a test presses Cancel (issue 11:
"cancel timing under load"); shared by the engine's and the GUI's cancel tests."""

from __future__ import annotations

import subprocess
import sys
import time


class BusyCores:
    """``n`` busy-loop processes for the duration of the ``with`` block; ``settle_s`` lets the
    scheduler share the cores before the block's body runs. ``n = 0`` is a quiet block."""

    def __init__(self, n: int, settle_s: float):
        self.n, self.settle_s = int(n), float(settle_s)
        self.procs: list[subprocess.Popen] = []

    def __enter__(self) -> BusyCores:
        self.procs = [subprocess.Popen([sys.executable, "-c", "while True: pass"])
                      for _ in range(self.n)]
        if self.procs:
            time.sleep(self.settle_s)
        return self

    def __exit__(self, *exc) -> bool:
        for p in self.procs:
            p.kill()
        for p in self.procs:
            p.wait(timeout=10)
        return False

    @property
    def pids(self) -> set[int]:
        return {p.pid for p in self.procs}
