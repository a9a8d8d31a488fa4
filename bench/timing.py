"""Shared timing helper: best of a few repeats, and the one-line report format."""

import time


def best_time(fn, repeats: int = 3) -> float:
    best = float("inf")
    for _ in range(repeats):
        t0 = time.perf_counter()
        fn()
        best = min(best, time.perf_counter() - t0)
    return best


def report(name: str, ours: float, reference: float) -> None:
    print(f"{name}: ours {ours:.4f} s, reference {reference:.4f} s, ratio {reference / ours:.1f}",
          flush=True)
