"""Job plumbing shared by every long computation (ARCHITECTURE §3).

* :class:`Progress` — a callable ``progress(fraction, message)`` with ``span(a, b)`` to map a
  sub-step onto a slice of the whole job.
* :class:`CancelToken` / :class:`JobCancelled` — cooperative cancellation checked at natural
  checkpoints.
* :func:`device` — CUDA when torch sees it, unless ``PRA_DEVICE=cpu`` (or the config) says CPU.
* :func:`rng` / :func:`torch_generator` — every random stream is derived from the config's seed,
  so the same config and seed give the same numbers on the same device. torch draws on a CPU
  generator wherever the numbers must not depend on the device (initial weights, batch orders,
  RAP's starts); draws made on the GPU itself (the location game's aggregates, DP-SGD's
  noise) use the GPU's own generator, so a GPU run gives other numbers than a CPU run — the
  same law, and the same numbers again on the next run on that GPU
  (:func:`deterministic_on_cuda`).
"""

from __future__ import annotations

import os
import threading
import time
from collections.abc import Callable
from contextlib import contextmanager
from dataclasses import dataclass, field

import numpy as np

ProgressCallback = Callable[[float, str], None]


class JobCancelled(Exception):
    """Raised by :meth:`CancelToken.check` when the user asked to stop the job."""


class CancelToken:
    """Thread-safe cancellation flag. The GUI sets it; the engine polls it with ``check()``."""

    def __init__(self) -> None:
        self._event = threading.Event()

    def cancel(self) -> None:
        self._event.set()

    @property
    def cancelled(self) -> bool:
        return self._event.is_set()

    def check(self) -> None:
        if self._event.is_set():
            raise JobCancelled("The job was cancelled.")


class _NeverCancelled(CancelToken):
    """Token that can never be cancelled: the default for synchronous calls."""

    def cancel(self) -> None:  # pragma: no cover - guarding misuse
        raise RuntimeError("NEVER cannot be cancelled; create a CancelToken instead.")


NEVER = _NeverCancelled()


class Progress:
    """Progress reporter: ``progress(fraction, message)``; ``fraction`` in [0, 1] of *this* span.

    ``span(a, b)`` returns a child reporter whose [0, 1] maps onto [a, b] of the parent, so a
    sub-step can report its own progress without knowing where it sits in the whole job.
    Fractions are clamped and never move backwards (a bar that jumps back looks broken).
    """

    def __init__(self, callback: ProgressCallback | None = None, *, _lo: float = 0.0,
                 _hi: float = 1.0, _root: Progress | None = None) -> None:
        self._callback = callback
        self._lo = _lo
        self._hi = _hi
        self._root = _root if _root is not None else self
        self._last = 0.0

    def __call__(self, fraction: float, message: str = "") -> None:
        f = min(max(float(fraction), 0.0), 1.0)
        self._root._emit(self._lo + f * (self._hi - self._lo), message)

    def _emit(self, absolute: float, message: str) -> None:
        absolute = max(absolute, self._last)
        self._last = absolute
        if self._callback is not None:
            self._callback(absolute, message)

    def span(self, a: float, b: float) -> Progress:
        if not 0.0 <= a <= b <= 1.0:
            raise ValueError(f"span({a}, {b}) must satisfy 0 <= a <= b <= 1")
        width = self._hi - self._lo
        return Progress(None, _lo=self._lo + a * width, _hi=self._lo + b * width, _root=self._root)


NO_PROGRESS = Progress(None)


@dataclass
class RecordingProgress:
    """Progress callback that records every call (for tests and the CLI's quiet mode)."""

    calls: list[tuple[float, str]] = field(default_factory=list)

    def __call__(self, fraction: float, message: str) -> None:
        self.calls.append((fraction, message))


# --------------------------------------------------------------------------- devices

def device(preference: str = "auto") -> str:
    """Return ``"cuda:0"`` when torch sees a GPU, else ``"cpu"``.

    ``preference="cpu"`` or the environment variable ``PRA_DEVICE=cpu`` forces the CPU.
    torch is imported lazily: most audits never need it.
    """
    forced = os.environ.get("PRA_DEVICE", "").strip().lower()
    if preference == "cpu" or forced == "cpu":
        return "cpu"
    try:
        import torch
    except ImportError:  # pragma: no cover - torch is a hard dependency, but stay usable
        return "cpu"
    if torch.cuda.is_available():
        return "cuda:0"
    return "cpu"


# --------------------------------------------------------------------------- seeding

def rng(seed: int, *stream: int | str) -> np.random.Generator:
    """Independent numpy Generator for ``(seed, *stream)``.

    Different named streams (``rng(seed, "game", "laplace")``) are statistically independent
    and stable: adding a stream elsewhere never shifts the numbers of this one.
    """
    keys = [int(seed) & 0xFFFFFFFFFFFFFFFF]
    for s in stream:
        if isinstance(s, str):
            keys.append(int.from_bytes(s.encode("utf-8")[:8].ljust(8, b"\0"), "little")
                        ^ _stable_hash(s))
        else:
            keys.append(int(s) & 0xFFFFFFFFFFFFFFFF)
    return np.random.Generator(np.random.PCG64(np.random.SeedSequence(keys)))


def _stable_hash(text: str) -> int:
    """64-bit FNV-1a: Python's ``hash`` of a str changes between runs, this does not."""
    h = 0xCBF29CE484222325
    for byte in text.encode("utf-8"):
        h ^= byte
        h = (h * 0x100000001B3) & 0xFFFFFFFFFFFFFFFF
    return h


def torch_generator(seed: int, *stream: int | str, device_name: str = "cpu"):
    """torch.Generator seeded from the same ``(seed, *stream)`` scheme as :func:`rng`."""
    import torch

    g = torch.Generator(device=device_name)
    g.manual_seed(int(rng(seed, *stream).integers(0, 2**63 - 1)))
    return g


def load_torch() -> None:
    """Import torch and its compiler package, which torch's optimisers load the first time one
    is made (2 s on an idle 2-core machine, 5–16 s under load, once per process). The app does
    it when its window opens (gui.app.preload_torch) and "Measure this machine" before it
    times its probes, so no job's time holds it. A failed import is left to the job that needs
    torch, which says what is wrong."""
    try:
        import torch  # noqa: F401
        import torch._dynamo  # noqa: F401
    except Exception:  # noqa: BLE001 - the job that needs torch will say what is wrong
        pass


@contextmanager
def torch_threads(n: int | None):
    """Run torch CPU operations on ``n`` threads inside the block (``None``: leave as is).

    Small networks and tensors train several times faster on one CPU thread than on two:
    every operation is too short to repay the hand-off between threads (measured: a k → k MLP
    on 200,000 shadow releases, 26 s on one thread against 70 s on two under load). torch's
    setting is process-wide; jobs run one at a time (the GUI's JobRunner), and it is restored
    on exit.
    """
    if n is None:
        yield
        return
    import torch

    before = torch.get_num_threads()
    torch.set_num_threads(int(n))
    try:
        yield
    finally:
        torch.set_num_threads(before)


@contextmanager
def deterministic_on_cuda(device_name):
    """Inside the block, torch's deterministic kernels on a CUDA device (restored on exit).

    On a GPU the backward pass of ``index_select`` (and ``gather``, ``index_add``) sums
    gradients with atomic additions whose order changes from run to run, so the same config and
    seed would give slightly different floats on the same GPU, and over hundreds of Adam steps
    different reconstructions. torch's deterministic mode swaps in sorted, ordered kernels
    (torch.use_deterministic_algorithms lists them). ``warn_only``: an operation without a
    deterministic kernel warns rather than stops the audit. cuBLAS needs a fixed workspace to
    promise the same bits (CUBLAS_WORKSPACE_CONFIG, read when cuBLAS first starts); set here only
    when the user has not. A CPU device is left alone: its kernels are already deterministic and
    its numbers must not change. Process-wide, like :func:`torch_threads`; jobs run one at a
    time.
    """
    import torch

    if torch.device(device_name).type != "cuda":
        yield
        return
    os.environ.setdefault("CUBLAS_WORKSPACE_CONFIG", ":4096:8")
    was_on = torch.are_deterministic_algorithms_enabled()
    was_warn_only = torch.is_deterministic_algorithms_warn_only_enabled()
    torch.use_deterministic_algorithms(True, warn_only=True)
    try:
        yield
    finally:
        torch.use_deterministic_algorithms(was_on, warn_only=was_warn_only)


class Stopwatch:
    """Wall-clock timer for ``runtime_s`` and ETA estimates."""

    def __init__(self) -> None:
        self.start = time.perf_counter()

    def elapsed(self) -> float:
        return time.perf_counter() - self.start
