"""Every torch path on the CPU and, where torch sees one, on the GPU (issue 22 item 8).

One small case of each path, the same case on each device, one line per device:

* batched training — 32 MLPs 100-64-10 on 5,000 × 100 records, 3 epochs
  (``engine.models.train_many_mlps``);
* DP-SGD — one MLP 100-64-10 on 5,000 records, 2 epochs, σ = 1 (``engine.defences.dp_sgd``);
* location sampling — 20,000 aggregates of 500 people on 200 cells drawn from a pool of 5,000
  (``engine.games.location.unknown_counts``; the CPU line is the numpy path the audit uses
  there, the GPU line the torch path it uses on a GPU);
* location MLP — the Fig. 11(b) meta-classifier on 20,000 shadow aggregates of 50 cells, at
  most 2,000 steps (``engine.attacks.location.meta_classifier``);
* RAP — K = 10 reconstructions of a 300-record, 3-column table from its 2-way marginals,
  300 epochs (``engine.attacks.aggregates.rap.reconstruct_rap``);
* RAP for 16 targets — 16 releases (K = 3 each) one at a time against the same 16 trained as
  one stack (``reconstruct_rap_many``: what the count-table game's GPU units do; the same
  reconstructions). On a CPU the two take about the same time; on a GPU an epoch costs its
  kernel launches, so the stack should take about the time of one release.

Wall seconds after a warm-up of the same case (first calls on a GPU start CUDA and its
libraries). On a machine without a GPU, one sentence says so and only the CPU lines print.
``python -m bench.bench_devices [--case NAME]`` (names: training, dpsgd, sampling, location_mlp,
rap, rap_one_at_a_time, rap_together).
"""

from __future__ import annotations

import itertools
import sys
import time

import numpy as np

CASES = ("training", "dpsgd", "sampling", "location_mlp", "rap", "rap_one_at_a_time",
         "rap_together")


def _classification(n=5_000, d=100, k=10, seed=0):
    g = np.random.default_rng(seed)
    centres = g.normal(size=(k, d))
    y = g.integers(0, k, n)
    X = (centres[y] + g.normal(scale=2.0, size=(n, d))).astype(np.float32)
    return X, y, k


def _training(device):
    from engine.models import TrainingSpec, reference_tasks
    from engine.models.batched import train_many_mlps

    X, y, k = _classification()
    spec = TrainingSpec(family="mlp", hidden=(64,), epochs=3, batch_size=128, seed=0)
    tasks = reference_tasks(32, 0, len(y))
    return lambda: train_many_mlps(spec, X, y, k, tasks=tasks, device=device)


def _dpsgd(device):
    from engine.defences.dpsgd import dp_sgd
    from engine.models import TrainingSpec

    X, y, k = _classification()
    spec = TrainingSpec(family="mlp", hidden=(64,), epochs=2, batch_size=128, seed=0)
    return lambda: dp_sgd(X, y, k, spec, noise_multiplier=1.0, device=device, seed=0)


def _pool():
    import scipy.sparse as sp

    from engine.games.location import CellPool

    g = np.random.default_rng(0)
    return CellPool.from_rows(sp.csr_matrix((g.random((5_000, 200)) < 0.05).astype(np.uint8)))


def _sampling(device):
    from engine.games.location import unknown_counts
    from engine.runtime import rng

    pool = _pool()
    sampler = "numpy" if device == "cpu" else device
    return lambda: unknown_counts(pool, 500, 20_000, rng(0, "bench"), device=sampler)


def location_data():
    """The location case's attack data: 20,000 shadow and 2,000 test aggregates of 50 cells,
    members' counts one higher in every cell (tests/engine/test_on_gpu.py reads its labels)."""
    from engine.attacks.location.base import AttackData
    from engine.games.location import AggregateSet

    g = np.random.default_rng(0)
    k = 50

    def aggregates(count):
        labels = g.random(count) < 0.5
        x = (g.poisson(5.0, size=(count, k)) + labels[:, None]).astype(np.float32)
        return AggregateSet(x=x, labels=labels, unknown=None)

    shadow = aggregates(20_000)
    test = aggregates(2_000)
    return AttackData(k=k, target=np.ones(k, dtype=np.float32), shadow=shadow, test=test,
                      mechanism="none", scale=0.0)


def _location_mlp(device):
    from engine.attacks.location import meta_classifier

    data = location_data()

    def run():
        saved = meta_classifier.MAX_STEPS
        meta_classifier.MAX_STEPS = 2_000
        try:
            return meta_classifier.attack(data, seed=0, device=device)
        finally:
            meta_classifier.MAX_STEPS = saved
    return run


def _rap_releases(count: int):
    """(sizes, 2-way marginal queries, (count, m) releases of 300-record datasets)."""
    from engine.aggregates.queries import CountingQuery, answers

    sizes = (2, 18, 5)
    queries = [CountingQuery(((a, frozenset([u])), (b, frozenset([v]))))
               for a, b in itertools.combinations(range(3), 2)
               for u in range(sizes[a]) for v in range(sizes[b])]
    released = []
    for seed in range(count):
        g = np.random.default_rng(seed)
        data = np.column_stack([g.integers(0, s, 300) for s in sizes]).astype(np.int32)
        released.append(answers(queries, data))
    return sizes, queries, np.array(released, dtype=float)


def _rap(device):
    from engine.attacks.aggregates.rap import reconstruct_rap

    sizes, queries, released = _rap_releases(1)
    return lambda: reconstruct_rap(sizes, queries, released[0], 300, k=10, epochs=300,
                                   device_name=device)


RAP_TARGETS = 16


def _rap_one_at_a_time(device):
    from engine.attacks.aggregates.rap import reconstruct_rap

    sizes, queries, released = _rap_releases(RAP_TARGETS)
    return lambda: [reconstruct_rap(sizes, queries, r, 300, k=3, epochs=300, seed=i,
                                    device_name=device) for i, r in enumerate(released)]


def _rap_together(device):
    from engine.attacks.aggregates.rap import reconstruct_rap_many

    sizes, queries, released = _rap_releases(RAP_TARGETS)
    return lambda: reconstruct_rap_many(sizes, queries, released, 300, k=3, epochs=300,
                                        seeds=range(RAP_TARGETS), device_name=device)


BUILDERS = {"training": (_training, "batched training, 32 MLPs 100-64-10, 5,000 records, "
                                    "3 epochs"),
            "dpsgd": (_dpsgd, "DP-SGD, one MLP 100-64-10, 5,000 records, 2 epochs"),
            "sampling": (_sampling, "location sampling, 20,000 aggregates of 500 people on "
                                    "200 cells"),
            "location_mlp": (_location_mlp, "location MLP, Fig. 11(b) on 20,000 shadows of "
                                            "50 cells, at most 2,000 steps"),
            "rap": (_rap, "RAP, K = 10 on 300 records, 2-way marginals, 300 epochs"),
            "rap_one_at_a_time": (_rap_one_at_a_time, f"RAP, {RAP_TARGETS} targets' releases "
                                  "one at a time, K = 3, 300 records, 300 epochs"),
            "rap_together": (_rap_together, f"RAP, the same {RAP_TARGETS} releases trained "
                             "together (the count-table game's GPU units)")}


def gpu_device() -> str | None:
    """The GPU the engine would use, or None (also when PRA_DEVICE=cpu says CPU only)."""
    from engine.runtime import device

    dev = device()
    return dev if dev.startswith("cuda") else None


def _timed(run, device: str) -> float:
    import torch

    def sync():
        if device.startswith("cuda"):
            torch.cuda.synchronize(device)
    run()                                   # warm-up: first calls, CUDA start
    sync()
    t0 = time.perf_counter()
    run()
    sync()
    return time.perf_counter() - t0


def line(case: str, device: str, seconds: float) -> str:
    where = "GPU " + device if device.startswith("cuda") else "CPU"
    return f"{BUILDERS[case][1]}: {where} {seconds:.3f} s"


def main(argv: list[str] | None = None) -> None:
    from engine.runtime import torch_threads

    argv = sys.argv[1:] if argv is None else argv
    cases = [argv[argv.index("--case") + 1]] if "--case" in argv else list(CASES)
    gpu = gpu_device()
    if gpu is None:
        print("torch paths on each device: no GPU was found (or PRA_DEVICE=cpu), so only the "
              "CPU lines print.", flush=True)
    for case in cases:
        build = BUILDERS[case][0]
        with torch_threads(None):
            print(line(case, "cpu", _timed(build("cpu"), "cpu")), flush=True)
        if gpu is not None:
            print(line(case, gpu, _timed(build(gpu), gpu)), flush=True)


if __name__ == "__main__":
    main()
