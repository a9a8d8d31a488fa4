"""Samplers: exact discrete samplers (CKS 2020 Alg. 1–3) against their exact pmfs, the
pure-Python references, reproducibility, and post-processing."""

from __future__ import annotations

import math
from fractions import Fraction

import numpy as np
import pytest
from scipy.stats import chisquare

from engine.data.errors import InputError
from engine.mechanisms import sampling
from engine.mechanisms.postprocessing import clip_contribution, postprocess
from engine.mechanisms.sampling import (
    _reference_discrete_gaussian,
    _reference_discrete_laplace,
    sample_noise,
)
from engine.runtime import rng as make_rng


def _dlap_pmf(x: np.ndarray, t: float) -> np.ndarray:
    a = 1.0 / t
    return (1 - math.exp(-a)) / (1 + math.exp(-a)) * np.exp(-a * np.abs(x))


def _dgauss_pmf(x: np.ndarray, sigma2: float) -> np.ndarray:
    half = int(40 * math.sqrt(sigma2) + 40)
    support = np.arange(-half, half + 1)
    z = np.exp(-(support.astype(float) ** 2) / (2 * sigma2)).sum()
    return np.exp(-(x.astype(float) ** 2) / (2 * sigma2)) / z


def _gof_pvalue(samples: np.ndarray, pmf, min_expected: float = 20.0) -> float:
    """Chi-square goodness of fit against a symmetric integer pmf.

    Every integer with expected count ≥ ``min_expected`` is its own cell; the rest of each tail
    (including mass beyond the largest sample) is pooled into one cell per side, merged into its
    neighbour if still too small.
    """
    n = samples.size
    span = int(np.abs(samples).max()) + 1
    support = np.arange(-span, span + 1)
    p = pmf(support)
    outside = max(0.0, 1.0 - p.sum()) / 2.0        # symmetric pmf: half beyond each end
    core = np.flatnonzero(p * n >= min_expected)
    a, b = core[0], core[-1]
    exp_cells = n * np.concatenate(([p[:a].sum() + outside], p[a: b + 1],
                                    [p[b + 1:].sum() + outside]))
    counts = np.bincount(samples + span, minlength=support.size).astype(float)
    obs_cells = np.concatenate(([counts[:a].sum()], counts[a: b + 1], [counts[b + 1:].sum()]))
    if exp_cells[0] < min_expected:
        exp_cells[1] += exp_cells[0]
        obs_cells[1] += obs_cells[0]
        exp_cells, obs_cells = exp_cells[1:], obs_cells[1:]
    if exp_cells[-1] < min_expected:
        exp_cells[-2] += exp_cells[-1]
        obs_cells[-2] += obs_cells[-1]
        exp_cells, obs_cells = exp_cells[:-1], obs_cells[:-1]
    return float(chisquare(obs_cells, exp_cells * n / exp_cells.sum()).pvalue)


@pytest.mark.parametrize("t", [0.4, 1.5, 1 / 0.7, 6.0])
def test_vectorised_discrete_laplace_fits_exact_pmf(t):
    x = sample_noise("discrete_laplace", t, 200_000, make_rng(11, "dlap", str(t)))
    assert x.dtype == np.int64
    assert _gof_pvalue(x, lambda s: _dlap_pmf(s, t)) > 1e-4


@pytest.mark.parametrize("sigma", [0.5, 1.0, 3.7, 100.123456789])
def test_vectorised_discrete_gaussian_fits_exact_pmf(sigma):
    s2 = float(Fraction(sigma**2).limit_denominator(10**6))
    x = sample_noise("discrete_gaussian", sigma, 200_000, make_rng(12, "dg", str(sigma)))
    assert x.dtype == np.int64
    assert _gof_pvalue(x, lambda s: _dgauss_pmf(s, s2)) > 1e-4


def test_goodness_of_fit_test_can_fail():
    """The same test rejects samples drawn with a 10 % different scale."""
    x = sample_noise("discrete_laplace", 1.5, 200_000, make_rng(13))
    assert _gof_pvalue(x, lambda s: _dlap_pmf(s, 1.65)) < 1e-6
    y = sample_noise("discrete_gaussian", 3.7, 200_000, make_rng(14))
    assert _gof_pvalue(y, lambda s: _dgauss_pmf(s, (3.7 * 1.1) ** 2)) < 1e-6


def test_reference_samplers_fit_exact_pmf():
    x = _reference_discrete_laplace(1.5, 6000, make_rng(15, "ref-dlap"))
    assert _gof_pvalue(x, lambda s: _dlap_pmf(s, 1.5)) > 1e-4
    y = _reference_discrete_gaussian(2.25, 6000, make_rng(16, "ref-dg"))
    assert _gof_pvalue(y, lambda s: _dgauss_pmf(s, 2.25)) > 1e-4
    # Large σ² with a large denominator: the reference uses multi-word uniform integers.
    s2 = float(Fraction(123.456789**2).limit_denominator(10**6))
    z = _reference_discrete_gaussian(s2, 3000, make_rng(17, "ref-dg-big"))
    assert _gof_pvalue(z, lambda s: _dgauss_pmf(s, s2), min_expected=5.0) > 1e-4


def test_same_seed_same_samples_and_streams_differ():
    for mech, scale in [("laplace", 2.0), ("gaussian", 1.5), ("discrete_laplace", 2.5),
                        ("discrete_gaussian", 4.2), ("discrete_gaussian", 100.123456789)]:
        a = sample_noise(mech, scale, 1000, make_rng(5, "noise"))
        b = sample_noise(mech, scale, 1000, make_rng(5, "noise"))
        c = sample_noise(mech, scale, 1000, make_rng(6, "noise"))
        np.testing.assert_array_equal(a, b)
        assert not np.array_equal(a, c)


def test_shapes_and_dtypes():
    g = np.random.default_rng(0)
    assert sample_noise("laplace", 1.0, (3, 4), g).shape == (3, 4)
    assert sample_noise("gaussian", 1.0, 5, g).dtype == np.float64
    assert sample_noise("discrete_laplace", 1.0, (2, 3), g).shape == (2, 3)
    assert sample_noise("discrete_gaussian", 1.0, (2, 3), g).dtype == np.int64
    assert sample_noise("discrete_gaussian", 1.0, None, g).shape == ()


def test_big_denominator_bernoulli_is_exact_on_ties():
    """Bernoulli(r/d) with d > 2**62 decides digit by digit; a tie must defer to the next digit."""
    d = 3 * 2**64
    r = 2**64  # r/d = 1/3
    w = 2**62
    digit1 = r * w // d
    rem = r * w - digit1 * d
    digit2 = rem * w // d

    class Scripted:
        def __init__(self, values):
            self.values = list(values)

        def integers(self, low, high, size=None, dtype=np.int64):
            assert high == w
            return np.array([self.values.pop(0)], dtype=np.int64)

    r_arr = np.array([r], dtype=object)
    assert sampling._bernoulli_fraction(r_arr, d, Scripted([digit1, digit2 - 1]))[0]
    assert not sampling._bernoulli_fraction(r_arr, d, Scripted([digit1, digit2 + 1]))[0]
    assert sampling._bernoulli_fraction(r_arr, d, Scripted([digit1 - 1]))[0]
    assert not sampling._bernoulli_fraction(r_arr, d, Scripted([digit1 + 1]))[0]


def test_big_denominator_bernoulli_frequency():
    d = 7 * 2**70 + 3
    r = 2 * 2**70
    hits = sampling._bernoulli_fraction(np.array([r] * 200_000, dtype=object), d,
                                        np.random.default_rng(3))
    p = r / d
    assert abs(hits.mean() - p) < 5 * math.sqrt(p * (1 - p) / hits.size)


def test_bernoulli_exp_neg_frequency_including_gamma_above_one():
    g = np.random.default_rng(4)
    for num, den in [(1, 3), (5, 2), (7, 7)]:
        out = sampling._bernoulli_exp_neg(np.full(200_000, num, dtype=np.int64), den, g)
        p = math.exp(-num / den)
        assert abs(out.mean() - p) < 5 * math.sqrt(p * (1 - p) / out.size)


def test_bad_sampler_inputs():
    g = np.random.default_rng(0)
    with pytest.raises(InputError):
        sample_noise("laplace", 0.0, 3, g)
    with pytest.raises(InputError, match="discrete_gaussian"):
        sample_noise("uniform", 1.0, 3, g)
    with pytest.raises(TypeError):
        sample_noise("laplace", 1.0, 3, 42)


# --------------------------------------------------------------------------- post-processing

def test_clip_contribution_bounds_each_person():
    out = clip_contribution([-3.0, 0.5, 2.0, 9.0], 2.0)
    np.testing.assert_array_equal(out, [0.0, 0.5, 2.0, 2.0])
    with pytest.raises(InputError):
        clip_contribution([1.0], 0.0)
    with pytest.raises(InputError):
        clip_contribution([1.0, float("nan")], 1.0)


def test_postprocess_modes():
    x = np.array([-1.6, -0.4, 0.5, 2.5, 3.7])
    np.testing.assert_array_equal(postprocess(x, "none"), x)
    np.testing.assert_array_equal(postprocess(x, "round"), [-2.0, -0.0, 0.0, 2.0, 4.0])
    np.testing.assert_array_equal(postprocess(x, "round_nonnegative"), [0, 0, 0, 2, 4])
    ints = np.array([-2, 3], dtype=np.int64)
    np.testing.assert_array_equal(postprocess(ints, "round_nonnegative"), [0, 3])
    with pytest.raises(InputError, match="round_nonnegative"):
        postprocess(x, "floor")
