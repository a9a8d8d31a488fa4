"""Noise samplers. Every random draw comes from the numpy ``Generator`` the caller passes.

Continuous noise uses ``rng.laplace`` / ``rng.normal``. Discrete noise is sampled *exactly*
(no floating point in the randomness) with the algorithms of Canonne, Kamath & Steinke 2020,
"The discrete Gaussian for differential privacy" (CKS 2020):

* Alg. 1 — Bernoulli(exp(−γ)) for rational γ ≥ 0,
* Alg. 2 — discrete Laplace with rational scale,
* Alg. 3 — discrete Gaussian with rational σ², by rejection from a discrete Laplace.

The parameters (t for the discrete Laplace, σ² for the discrete Gaussian) are rationalised with
``Fraction(x).limit_denominator(10**6)``; the samplers are exact for those rationals. Only
``rng.integers`` (uniform integers) is used, so the output law is exactly the target pmf.

The vectorised samplers keep an array of pending draws and resolve them with masks until every
one is accepted. Arithmetic is int64 where the numbers provably fit; where a shared denominator
exceeds 2**62 (common for the discrete Gaussian, whose exponent has denominator 2·p·q·t²),
numerators are Python integers in object arrays and Bernoulli(r/d) is decided digit by digit in
base 2**62 — still exact, still vectorised over the pending draws.

``_reference_discrete_laplace`` / ``_reference_discrete_gaussian`` are per-sample pure-Python
transcriptions of the same algorithms with ``fractions.Fraction``; tests and the benchmark use
them as the plain, obviously-correct baseline.
"""

from __future__ import annotations

import math
from fractions import Fraction

import numpy as np

from engine.data.errors import InputError, given_value
from engine.mechanisms.arguments import unknown_mechanism

_WORD_BITS = 62
_WORD = 1 << _WORD_BITS          # digits of the base-2**62 expansion fit an int64
_DENOMINATOR_LIMIT = 10**6      # contract: Fraction(x).limit_denominator(10**6)


def _size_tuple(size) -> tuple[int, ...]:
    if size is None:
        return ()
    if isinstance(size, (int, np.integer)):
        return (int(size),)
    return tuple(int(s) for s in size)


def _rational(x: float, what: str) -> Fraction:
    value = float(x)
    if not math.isfinite(value) or value <= 0:
        raise InputError(f"The {what} must be a positive finite number, got {given_value(x)}.", key="scale")
    frac = Fraction(value).limit_denominator(_DENOMINATOR_LIMIT)
    if frac <= 0:  # a scale below 1e-6 would round to 0
        raise InputError(f"The {what} {given_value(x)} is too small to sample (below 1e-6).", key="scale")
    return frac


# =========================================================================== vectorised, exact

def _bernoulli_fraction(r: np.ndarray, d: int, rng: np.random.Generator) -> np.ndarray:
    """Exact Bernoulli(r/d) for each entry of ``r`` (integers with 0 ≤ r ≤ d), shared ``d``.

    d < 2**62: one uniform integer in [0, d) per entry (numpy's bounded integers are exact).
    Otherwise: compare a uniform base-2**62 expansion with the expansion of r/d, one digit at a
    time; a tie (probability 2**−62 per digit) moves to the next digit, so the law is exact.
    """
    n = r.shape[0]
    if d < _WORD:
        rr = r.astype(np.int64)
        return rng.integers(0, d, size=n, dtype=np.int64) < rr
    out = np.zeros(n, dtype=bool)
    rem = r.astype(object)
    pending = np.arange(n)
    while pending.size:
        scaled = rem[pending] * _WORD
        digit = (scaled // d).astype(np.int64)          # < 2**62 since rem < d (or == d)
        full = rem[pending] >= d                          # r/d == 1: always success
        u = rng.integers(0, _WORD, size=pending.size, dtype=np.int64)
        win = (u < digit) | full
        tie = (u == digit) & ~full
        out[pending[win]] = True
        rem[pending[tie]] = scaled[tie] - digit[tie].astype(object) * d
        pending = pending[tie]
    return out


def _bernoulli_exp_neg_frac(r: np.ndarray, d: int, rng: np.random.Generator) -> np.ndarray:
    """Exact Bernoulli(exp(−r/d)) for 0 ≤ r/d ≤ 1 (CKS 2020, Alg. 1, case γ ∈ [0, 1]).

    K = 1; repeat: A ~ Bernoulli(γ/K); stop if A = 0, else K += 1. Return 1 iff K is odd.
    Bernoulli(γ/K) is drawn as Bernoulli(γ) AND Bernoulli(1/K), which keeps the denominator
    fixed at d (so the int64 path stays available) and is the same law.
    """
    n = r.shape[0]
    k = np.ones(n, dtype=np.int64)
    pending = np.arange(n)
    while pending.size:
        a = _bernoulli_fraction(r[pending], d, rng)
        # Bernoulli(1/K): a uniform integer in [0, K) equals 0.
        b = rng.integers(0, k[pending], dtype=np.int64) == 0
        cont = a & b
        k[pending[cont]] += 1
        pending = pending[cont]
    return (k % 2) == 1


def _bernoulli_exp_neg(num: np.ndarray, d: int, rng: np.random.Generator) -> np.ndarray:
    """Exact Bernoulli(exp(−γ)) with γ = num/d ≥ 0 per entry, shared d (CKS 2020, Alg. 1).

    For γ > 1: ⌊γ⌋ independent Bernoulli(e^−1) must all succeed, then Bernoulli(exp(−(γ−⌊γ⌋))).
    The ⌊γ⌋ trials are resolved in rounds; a draw leaves the loop at its first failure.
    """
    n = num.shape[0]
    whole = num // d
    frac = num - whole * d
    whole = np.asarray(whole, dtype=object if num.dtype == object else np.int64)
    alive = np.ones(n, dtype=bool)
    todo = np.flatnonzero(whole > 0)
    left = np.zeros(n, dtype=np.int64)
    if todo.size:
        left[todo] = np.minimum(whole[todo], np.iinfo(np.int64).max).astype(np.int64)
    one = np.ones(1, dtype=np.int64)
    while todo.size:
        ok = _bernoulli_exp_neg_frac(np.repeat(one, todo.size), 1, rng)
        alive[todo[~ok]] = False
        left[todo] -= 1
        todo = todo[ok & (left[todo] > 0)]
    out = np.zeros(n, dtype=bool)
    idx = np.flatnonzero(alive)
    if idx.size:
        out[idx] = _bernoulli_exp_neg_frac(frac[idx], d, rng)
    return out


def _geometric_exp_neg1(n: int, rng: np.random.Generator) -> np.ndarray:
    """V with P(V = v) = (1 − e^−1) e^−v: count Bernoulli(e^−1) successes before a failure."""
    v = np.zeros(n, dtype=np.int64)
    pending = np.arange(n)
    one = np.ones(1, dtype=np.int64)
    while pending.size:
        a = _bernoulli_exp_neg_frac(np.repeat(one, pending.size), 1, rng)
        v[pending[a]] += 1
        pending = pending[a]
    return v


def _discrete_laplace_st(s: int, t: int, n: int, rng: np.random.Generator) -> np.ndarray:
    """n exact draws of the discrete Laplace with scale t/s, pmf ∝ exp(−|x|·s/t) (CKS 2020, Alg. 2).

    loop: U ~ Unif{0..t−1}; D ~ Bernoulli(exp(−U/t)), restart if 0; V ~ Geometric(1 − e^−1);
    X = U + t·V (so P(X = x) ∝ e^{−x/t}); Y = ⌊X/s⌋; B ~ Bernoulli(½); restart if B = 1 and
    Y = 0 (so 0 is not counted twice); return (1 − 2B)·Y.
    """
    out = np.zeros(n, dtype=np.int64)
    pending = np.arange(n)
    while pending.size:
        m = pending.size
        u = rng.integers(0, t, size=m, dtype=np.int64)
        d = _bernoulli_exp_neg_frac(u, t, rng)
        ok = pending[d]
        u = u[d]
        v = _geometric_exp_neg1(ok.size, rng)
        x = u + t * v
        y = x // s
        b = rng.integers(0, 2, size=ok.size, dtype=np.int64)
        accept = ~((b == 1) & (y == 0))
        out[ok[accept]] = (1 - 2 * b[accept]) * y[accept]
        done = np.zeros(m, dtype=bool)
        done[np.flatnonzero(d)[accept]] = True
        pending = pending[~done]
    return out


def discrete_laplace_samples(t: float, size, rng: np.random.Generator) -> np.ndarray:
    """Exact discrete Laplace noise, pmf ∝ exp(−|x|/t), t rationalised (CKS 2020, Alg. 2)."""
    scale = _rational(t, "discrete Laplace scale t")
    shape = _size_tuple(size)
    n = int(np.prod(shape)) if shape else 1
    # CKS write the scale as t/s with integers: here t/s = numerator/denominator.
    draws = _discrete_laplace_st(scale.denominator, scale.numerator, n, rng)
    return draws.reshape(shape) if shape else draws.reshape(())


def _discrete_gaussian_pq(p: int, q: int, n: int, rng: np.random.Generator) -> np.ndarray:
    """n exact draws of N_Z(0, σ²) with σ² = p/q (CKS 2020, Alg. 3).

    t = ⌊σ⌋ + 1; loop: Y ~ Lap_Z(t); C ~ Bernoulli(exp(−(|Y| − σ²/t)²/(2σ²))); accept if C = 1.
    The exponent is (|Y|·t·q − p)² / (2·p·q·t²): a shared denominator, per-draw numerator.
    """
    t = math.isqrt(p // q) + 1          # ⌊√(p/q)⌋ = ⌊√⌊p/q⌋⌋, exact in integers
    den = 2 * p * q * t * t
    tq = t * q
    # Largest |Y| we could see is bounded by int64; the squared numerator may not be, so use
    # int64 only when (|Y|·t·q + p)² stays below 2**62 for every pending draw.
    out = np.zeros(n, dtype=np.int64)
    pending = np.arange(n)
    while pending.size:
        m = pending.size
        y = _discrete_laplace_st(1, t, m, rng)
        ay = np.abs(y)
        big = den >= _WORD or (int(ay.max()) * tq + p) ** 2 >= _WORD
        if big:
            diff = ay.astype(object) * tq - p
            num = diff * diff
        else:
            diff = ay * tq - p
            num = diff * diff
        c = _bernoulli_exp_neg(num, den, rng)
        out[pending[c]] = y[c]
        pending = pending[~c]
    return out


def discrete_gaussian_samples(sigma: float, size, rng: np.random.Generator) -> np.ndarray:
    """Exact discrete Gaussian noise, pmf ∝ exp(−x²/(2σ²)), σ² rationalised (CKS 2020, Alg. 3)."""
    sig = float(sigma)
    if not math.isfinite(sig) or sig <= 0:
        raise InputError(f"Sigma must be a positive finite number, got {given_value(sigma)}.", key="scale")
    s2 = _rational(sig * sig, "discrete Gaussian variance σ²")
    shape = _size_tuple(size)
    n = int(np.prod(shape)) if shape else 1
    draws = _discrete_gaussian_pq(s2.numerator, s2.denominator, n, rng)
    return draws.reshape(shape) if shape else draws.reshape(())


def sample_noise(mechanism: str, scale: float, size, rng: np.random.Generator) -> np.ndarray:
    """Noise for ``mechanism`` with ``scale`` (b, σ, t or σ); float64 or int64 (discrete)."""
    if not isinstance(rng, np.random.Generator):
        raise TypeError("sample_noise needs a numpy Generator (see engine.runtime.rng).")
    sc = float(scale)
    if not math.isfinite(sc) or sc <= 0:
        raise InputError(f"The noise scale must be a positive finite number, got {given_value(scale)}.",
                         key="noise_scale")
    if mechanism == "laplace":
        return np.asarray(rng.laplace(0.0, sc, size=size), dtype=np.float64)
    if mechanism == "gaussian":
        return np.asarray(rng.normal(0.0, sc, size=size), dtype=np.float64)
    if mechanism == "discrete_laplace":
        return discrete_laplace_samples(sc, size, rng)
    if mechanism == "discrete_gaussian":
        return discrete_gaussian_samples(sc, size, rng)
    raise unknown_mechanism(mechanism)


# =========================================================================== pure-Python reference

def _ref_uniform_below(n: int, rng: np.random.Generator) -> int:
    """Uniform integer in [0, n) for any Python int n, by rejection on 32-bit words."""
    if n <= (1 << 62):
        return int(rng.integers(0, n))
    bits = n.bit_length()
    words = (bits + 31) // 32
    while True:
        v = 0
        for _ in range(words):
            v = (v << 32) | int(rng.integers(0, 1 << 32))
        v >>= words * 32 - bits
        if v < n:
            return v


def _ref_bernoulli(p: Fraction, rng: np.random.Generator) -> bool:
    return _ref_uniform_below(p.denominator, rng) < p.numerator


def _ref_bernoulli_exp_neg(gamma: Fraction, rng: np.random.Generator) -> bool:
    """CKS 2020, Alg. 1, transcribed literally."""
    if gamma <= 1:
        k = 1
        while _ref_bernoulli(gamma / k, rng):
            k += 1
        return k % 2 == 1
    for _ in range(math.floor(gamma)):
        if not _ref_bernoulli_exp_neg(Fraction(1), rng):
            return False
    return _ref_bernoulli_exp_neg(gamma - math.floor(gamma), rng)


def _ref_discrete_laplace_one(s: int, t: int, rng: np.random.Generator) -> int:
    """CKS 2020, Alg. 2, transcribed literally: one draw with pmf ∝ exp(−|x|·s/t)."""
    while True:
        u = int(rng.integers(0, t))
        if not _ref_bernoulli_exp_neg(Fraction(u, t), rng):
            continue
        v = 0
        while _ref_bernoulli_exp_neg(Fraction(1), rng):
            v += 1
        x = u + t * v
        y = x // s
        b = int(rng.integers(0, 2))
        if b == 1 and y == 0:
            continue
        return (1 - 2 * b) * y


def _reference_discrete_laplace(t: float, n: int, rng: np.random.Generator) -> np.ndarray:
    """Per-sample pure-Python exact discrete Laplace (CKS 2020, Alg. 2), pmf ∝ exp(−|x|/t)."""
    scale = _rational(t, "discrete Laplace scale t")
    s_, t_ = scale.denominator, scale.numerator
    return np.array([_ref_discrete_laplace_one(s_, t_, rng) for _ in range(int(n))],
                    dtype=np.int64)


def _reference_discrete_gaussian(sigma2: float, n: int, rng: np.random.Generator) -> np.ndarray:
    """Per-sample pure-Python exact discrete Gaussian (CKS 2020, Alg. 3) with variance σ²."""
    s2 = _rational(sigma2, "discrete Gaussian variance σ²")
    t = math.isqrt(s2.numerator // s2.denominator) + 1
    out = []
    while len(out) < int(n):
        y = _ref_discrete_laplace_one(1, t, rng)
        gamma = (abs(y) - s2 / t) ** 2 / (2 * s2)
        if _ref_bernoulli_exp_neg(gamma, rng):
            out.append(y)
    return np.array(out, dtype=np.int64)
