"""Wide stacks trained in groups on a CPU against one stack (issue 11, cancel within 2 s).

A stacked optimiser step cannot be interrupted, so on a CPU ``engine.models.train_many_mlps``
trains a stack in groups whose step stays under ``engine.models.batched.CPU_STEP_MACS``
multiply-adds. What that costs, measured here: the model audit's paper-scale stack — 26 MLPs of
paper 004's 1024-512-256-128 (tanh) on 600 binary features and 100 classes, batch 128 — for
one epoch of 20 steps on the same rows, as one stack of 26 (``group_size=26``, the reference)
and in the CPU groups (the default), interleaved, best of 3 wall times; and the slowest of 3
stops after a Cancel pressed 1 s into the training.

``python -m bench.bench_stack_groups``.
"""

from __future__ import annotations

import threading
import time

import numpy as np

N_MODELS, ROWS, FEATURES, CLASSES, BATCH = 26, 20 * 128, 600, 100, 128


def _train(group_size, X, y, spec, masks) -> float:
    from engine.models import train_many_mlps

    t0 = time.perf_counter()
    train_many_mlps(spec, X, y, CLASSES, masks, group_size=group_size, device="cpu")
    return time.perf_counter() - t0


def _stop_time(group_size, X, y, spec, masks) -> float:
    """Seconds from Cancel (pressed 1 s into the training) to the job's end."""
    from engine.models import train_many_mlps
    from engine.runtime import CancelToken, JobCancelled

    token, end = CancelToken(), []

    def job():
        try:
            train_many_mlps(spec, X, y, CLASSES, masks, group_size=group_size, device="cpu",
                            cancel=token)
        except JobCancelled:
            pass
        end.append(time.perf_counter())

    worker = threading.Thread(target=job)
    worker.start()
    time.sleep(1.0)
    pressed = time.perf_counter()
    token.cancel()
    worker.join()
    return end[0] - pressed


def main() -> None:
    from bench.timing import report
    from engine.models import TrainingSpec
    from engine.models.batched import cpu_group_size

    g = np.random.default_rng(0)
    X = (g.random((ROWS, FEATURES)) < 0.2).astype(np.float32)
    y = g.integers(0, CLASSES, ROWS)
    spec = TrainingSpec(family="mlp", architecture="purchase", epochs=1, batch_size=BATCH,
                        seed=0).resolved()
    masks = np.ones((N_MODELS, ROWS), dtype=bool)
    _train(N_MODELS, X[:256], y[:256], spec, masks[:, :256])          # warm-up
    best = {"one stack": [np.inf, 0.0], "groups": [np.inf, 0.0]}
    for _ in range(3):
        for name, size in (("one stack", N_MODELS), ("groups", None)):
            best[name][0] = min(best[name][0], _train(size, X, y, spec, masks))
            best[name][1] = max(best[name][1], _stop_time(size, X, y, spec, masks))
    size = cpu_group_size(spec, FEATURES, CLASSES)
    print(f"stacked training: {N_MODELS} MLPs {FEATURES}-1024-512-256-128-{CLASSES}, "
          f"{ROWS // BATCH} steps of {BATCH} rows, CPU groups of {size}; slowest stop after "
          f"Cancel: one stack {best['one stack'][1]:.2f} s, groups {best['groups'][1]:.2f} s",
          flush=True)
    report(f"{N_MODELS} wide MLPs in CPU groups of {size} vs one stack (wall)",
           best["groups"][0], best["one stack"][0])


if __name__ == "__main__":
    main()
