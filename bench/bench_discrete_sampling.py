"""Vectorised exact discrete samplers vs the per-sample pure-Python reference (CKS 2020, Alg. 1–3).

Each case draws the same number of samples with both implementations and prints
``name: ours X s, reference Y s, ratio Z`` (ratio = reference / ours, so > 1 means faster).
"""

from __future__ import annotations

import sys
from fractions import Fraction
from pathlib import Path

if __package__ in (None, ""):  # run as a script: make ``bench`` importable like ``-m bench``
    sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from bench.timing import best_time, report  # noqa: E402
from engine.mechanisms.sampling import (  # noqa: E402
    _reference_discrete_gaussian,
    _reference_discrete_laplace,
    discrete_gaussian_samples,
    discrete_laplace_samples,
)
from engine.runtime import rng  # noqa: E402

# (name, vectorised call, reference call, samples); sizes keep each case well under ~10 s.
CASES = [
    ("discrete_laplace t=1.5 n=20000",
     lambda n, g: discrete_laplace_samples(1.5, n, g),
     lambda n, g: _reference_discrete_laplace(1.5, n, g), 20_000),
    ("discrete_laplace t=12.34 n=20000",
     lambda n, g: discrete_laplace_samples(12.34, n, g),
     lambda n, g: _reference_discrete_laplace(12.34, n, g), 20_000),
    ("discrete_gaussian sigma=3.7 n=20000",
     lambda n, g: discrete_gaussian_samples(3.7, n, g),
     lambda n, g: _reference_discrete_gaussian(3.7**2, n, g), 20_000),
    # σ² = 5915589389/590101: the exponent's denominator exceeds 2**62 (big-integer path).
    ("discrete_gaussian sigma=100.123456789 n=5000",
     lambda n, g: discrete_gaussian_samples(100.123456789, n, g),
     lambda n, g: _reference_discrete_gaussian(
         float(Fraction(100.123456789**2).limit_denominator(10**6)), n, g), 5_000),
]


def _run(fn, n: int, seed: int) -> None:
    out = fn(n, rng(seed, "bench", "discrete-sampling"))
    assert out.shape == (n,)


def main() -> None:
    for name, ours, reference, n in CASES:
        _run(ours, 100, 0)  # warm-up (imports, first allocation)
        t_ours = best_time(lambda f=ours, m=n: _run(f, m, 1))
        t_ref = best_time(lambda f=reference, m=n: _run(f, m, 1), repeats=1)
        report(name, t_ours, t_ref)


if __name__ == "__main__":
    main()
