"""The optimal (Neyman–Pearson) membership attacker against a noise mechanism, as an ROC.

Game: a person contributes Δ to each of k releases (H1, "present") or nothing (H0, "absent");
the attacker sees the k noisy releases and knows everything else. By the Neyman–Pearson lemma
the best test at every false-positive rate thresholds the likelihood ratio; its ROC is the
trade-off function of f-DP (Dong, Roth & Su 2019, "Gaussian differential privacy", Def. 2.1)
read as TPR = 1 − f(FPR).

* Gaussian: a sufficient statistic is Σ x_i; N(0, kσ²) vs N(kΔ, kσ²) ⇒ μ = √k Δ/σ and
  TPR(α) = Φ(Φ⁻¹(α) + μ), AUC = Φ(μ/√2), accuracy = Φ(μ/2) (Dong, Roth & Su 2019, §2.3).
* Laplace, k = 1: closed-form trade-off of Lap(0, b) vs Lap(Δ, b) (Dong, Roth & Su 2019, Ex. in
  §2.2 / Prop. A.6 style piecewise form), ε0 = Δ/b.
* Laplace, k > 1: the log likelihood ratio is Σ (|x_i| − |x_i − Δ|)/b = (2S − kΔ)/b with
  S = Σ clip(x_i, 0, Δ) — so S (not Σ x_i) is the NP statistic. Its law (atoms at 0 and Δ plus a
  density per term) is computed by discretising each term's density into bins whose masses come
  exactly from the Laplace CDF and convolving k times with an FFT (see :func:`laplace_tradeoff`).
* Discrete Laplace / discrete Gaussian: integer pmfs convolved k times, exactly.
* Worst case of k-fold ε0-DP: Kairouz, Oh & Viswanath 2015, "The composition theorem for
  differential privacy", Thm 3.4 (and 3.3): k-fold randomised response, Binomial(k, p) vs
  Binomial(k, 1 − p), p = e^{ε0}/(1 + e^{ε0}), dominates every ε0-DP mechanism composed k times.
* The (ε, δ)-DP region: paper 002, Thm 1 (from KOV 2015): TPR ≤ e^ε·FPR + δ and
  TNR ≤ e^ε·FNR + δ.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field

import numpy as np
from scipy.special import ndtr, ndtri
from scipy.stats import binom

from engine.data.errors import InputError, given_value
from engine.mechanisms.arguments import observations, positive, unknown_mechanism
from engine.mechanisms.arguments import sensitivity as check_sensitivity
from engine.runtime import NEVER, CancelToken

_ROUNDOFF = 2.3e-16
_DIRECT_CONVOLUTION_BUDGET = 4e7   # multiply-adds below which k-fold convolution is done directly


# =========================================================================== the ROC object

@dataclass(frozen=True, eq=False)
class TradeOff:
    """ROC of the Neyman–Pearson optimal attacker (f-DP trade-off read as TPR = 1 − f(FPR)).

    ``fpr`` ascends from 0 to 1; ``tpr`` are the concave ROC vertices (a randomised test
    achieves every point on the segments between them, so :meth:`tpr_at` interpolates
    linearly). ``numerical_error`` bounds |error| of AUC / accuracy / TPR values (0 if exact).
    For closed forms, ``closed_form`` = (family, parameter) and every summary is evaluated from
    the formula, not from the stored grid.
    """

    fpr: np.ndarray
    tpr: np.ndarray
    method: str
    statistic: str
    numerical_error: float = 0.0
    closed_form: tuple[str, float] | None = field(default=None, repr=False)

    # ------------------------------------------------------------------ evaluation
    def tpr_at(self, alpha):
        """Largest TPR the optimal (randomised) attacker reaches at FPR ``alpha``."""
        a = np.clip(np.asarray(alpha, dtype=np.float64), 0.0, 1.0)
        if self.closed_form is not None:
            out = _closed_tpr(self.closed_form, a)
        else:
            out = np.interp(a, self.fpr, self.tpr)
        out = np.clip(out, 0.0, 1.0)
        return float(out) if np.ndim(out) == 0 else out

    def auc(self) -> float:
        """Area under the ROC (ties counted ½ — the randomised test's curve)."""
        if self.closed_form is not None:
            family, p = self.closed_form
            if family == "gaussian":
                return float(ndtr(p / math.sqrt(2.0)))
            if family == "laplace":
                return float(1.0 - 0.5 * (1.0 + p / 2.0) * math.exp(-p))
        return float(np.trapezoid(self.tpr, self.fpr))

    def accuracy(self) -> float:
        """Optimal balanced accuracy, max over the curve of (TPR + 1 − FPR)/2 = (1 + TV)/2."""
        if self.closed_form is not None:
            family, p = self.closed_form
            if family == "gaussian":
                return float(ndtr(p / 2.0))
            if family == "laplace":
                return float(1.0 - 0.5 * math.exp(-p / 2.0))
        return float(np.max((self.tpr + 1.0 - self.fpr) / 2.0))

    def advantage(self) -> float:
        """Largest TPR − FPR (the total-variation distance between the two hypotheses)."""
        return 2.0 * self.accuracy() - 1.0

    def roc_points(self, n: int = 512) -> tuple[np.ndarray, np.ndarray]:
        """At most ``n`` ROC points for plotting: FPR ascending from 0 to 1, log-spaced down to
        1e-6 (for log-log axes) plus as many curve vertices as fit."""
        n = int(n)
        if n < 8:
            raise ValueError("roc_points needs n >= 8")
        n_grid = n // 2
        grid = np.concatenate(([0.0], np.logspace(-6.0, 0.0, n_grid - 1)))
        budget = n - grid.size
        if self.closed_form is None:
            inner = self.fpr[(self.fpr > 0.0) & (self.fpr < 1.0)]
        else:
            inner = np.linspace(0.0, 1.0, budget + 2)[1:-1]
        if inner.size > budget:
            inner = inner[np.linspace(0, inner.size - 1, budget).round().astype(int)]
        f = np.unique(np.concatenate((grid, inner, [0.0, 1.0])))
        if f.size > n:  # duplicates removed already; thin evenly but keep both ends
            keep = np.unique(np.linspace(0, f.size - 1, n).round().astype(int))
            f = f[keep]
        return f, np.asarray(self.tpr_at(f), dtype=np.float64)


def _closed_tpr(closed: tuple[str, float], a: np.ndarray) -> np.ndarray:
    family, p = closed
    if family == "gaussian":
        with np.errstate(divide="ignore", invalid="ignore"):
            return ndtr(ndtri(a) + p)
    if family == "laplace":
        e = math.exp(-p)
        with np.errstate(divide="ignore", invalid="ignore"):
            mid = 1.0 - e / (4.0 * np.where(a > 0, a, 1.0))
        return np.where(a < e / 2.0, a / e, np.where(a <= 0.5, mid, 1.0 - e * (1.0 - a)))
    raise ValueError(f"unknown closed form {family!r}")


def _closed_tradeoff(family: str, parameter: float, statistic: str) -> TradeOff:
    """Store a dense exact grid (for plotting / export) next to the formula itself."""
    f = np.unique(np.concatenate(([0.0], np.logspace(-12.0, 0.0, 400),
                                  np.linspace(0.0, 1.0, 401))))
    if family == "laplace":  # the kinks of the piecewise curve are vertices
        f = np.unique(np.concatenate((f, [math.exp(-parameter) / 2.0, 0.5])))
    closed = (family, float(parameter))
    t = np.clip(_closed_tpr(closed, f), 0.0, 1.0)
    return TradeOff(fpr=f, tpr=t, method="closed form", statistic=statistic,
                    numerical_error=0.0, closed_form=closed)


# =========================================================================== helpers

def _kfold(p: np.ndarray, k: int) -> tuple[np.ndarray, float]:
    """k-fold self-convolution of a pmf; returns (pmf, e) where e bounds the absolute error of
    each entry of the result (0 for the direct path, whose error is relative and negligible).

    Direct convolution (binary powering) keeps the *relative* precision of every entry — the
    tails matter at FPR 1e-6 — and is used while it is cheap; larger problems use one FFT
    (pmf^k in the frequency domain), whose error is absolute, of order N·1e-16.
    """
    n_out = (p.size - 1) * k + 1
    if p.size * n_out * max(1, int(math.log2(k)) + 1) <= _DIRECT_CONVOLUTION_BUDGET:
        result = np.ones(1)
        base = p.copy()
        kk = k
        while kk:
            if kk & 1:
                result = np.convolve(result, base)
            kk >>= 1
            if kk:
                base = np.convolve(base, base)
        return result, 0.0
    nfft = 1 << int(math.ceil(math.log2(n_out)))
    spec = np.fft.rfft(p, nfft) ** k
    out = np.fft.irfft(spec, nfft)[:n_out]
    # Per entry the error is a few ulps × (log2 nfft for the transforms + k for the power);
    # a tail sum adds at most n_out of them. Conservative, and still far below 1e-4.
    per_entry = 4.0 * _ROUNDOFF * (math.log2(nfft) + k)
    # Entries below the noise level carry no information (their sign and ratios are roundoff);
    # zero them, so the tails cannot fake likelihood ratios. The change per entry stays below
    # 2 × per_entry, counted in the returned bound.
    out[out < per_entry] = 0.0
    return out / out.sum(), 2.0 * per_entry


def _roc_from_ordered(p0: np.ndarray, p1: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """ROC of the tests "reject H0 when the statistic ≥ s", for a statistic whose likelihood
    ratio p1/p0 increases with s (pmfs indexed by ascending s). Monotone likelihood ratio makes
    these the Neyman–Pearson tests and the vertices concave; roundoff dents are removed by the
    least concave majorant (randomising between achievable points stays achievable)."""
    keep = (p0 > 0) | (p1 > 0)
    q0 = p0[keep][::-1]
    q1 = p1[keep][::-1]
    fpr = np.concatenate(([0.0], np.cumsum(q0)))
    tpr = np.concatenate(([0.0], np.cumsum(q1)))
    fpr = np.minimum(fpr / fpr[-1], 1.0)
    tpr = np.minimum(tpr / tpr[-1], 1.0)
    fpr[-1] = tpr[-1] = 1.0
    return _concave_majorant(fpr, tpr)


def _concave_majorant(x: np.ndarray, y: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Least concave majorant of the piecewise-linear curve through points sorted by x.

    Points sharing an x keep only the highest one (a vertical run can only matter at x = 0);
    x values closer than the smallest normal double count as shared (a near-perfect attack's
    ROC has FPR steps of 1e-323, whose slopes would overflow to inf and then give NaN).
    The majorant's slopes are the antitonic regression of the segment slopes weighted by the
    segment widths (Barlow, Bartholomew, Bremner & Brunk 1972, Thm 1.1; the Grenander
    construction) — computed by scipy's pool-adjacent-violators in O(n). Only the corners
    (where the pooled slope changes) are returned.
    """
    apart = np.diff(x) > np.finfo(float).tiny
    first, last = np.concatenate(([True], apart)), np.concatenate((apart, [True]))
    x, y = x[first], np.maximum.accumulate(y)[last]     # each run: its x, its top point
    if x.size <= 2:
        return x, y
    dx, dy = np.diff(x), np.diff(y)
    slopes = dy / dx
    if np.all(np.diff(slopes) <= 0):
        return x, y
    from scipy.optimize import isotonic_regression

    pooled = isotonic_regression(slopes, weights=dx, increasing=False).x
    y_new = np.concatenate(([y[0]], y[0] + np.cumsum(pooled * dx)))
    corner = np.concatenate(([True], pooled[1:] != pooled[:-1], [True]))
    y_new = np.minimum(y_new, 1.0)
    y_new[-1] = y[-1]
    return x[corner], y_new[corner]


def _refined_roc(p0: np.ndarray, p1: np.ndarray, log_lr: np.ndarray,
                 per_entry: float) -> tuple[np.ndarray, np.ndarray, float]:
    """ROC from pmfs with absolute per-entry error ``per_entry``, tails repaired, and its error.

    On the grid the log likelihood ratio ln(p1/p0) is known exactly (``log_lr``, increasing),
    so of each pair (p0[j], p1[j]) only the larger needs to come from the convolution: the
    smaller one is recomputed as larger · e^{−|log_lr|}. Its absolute error shrinks by the same
    factor, so FPR tail sums — the low-FPR corner that privacy audits read — become accurate
    to a relative precision instead of an absolute N·1e-16. The returned bound on
    |TPR error| at any FPR ≥ 1e-6 (and on AUC and accuracy) adds up:

    * e_t: TPR coordinates (sum of per-entry errors of p1, both regions), twice for the
      renormalisation;
    * e_all: FPR coordinates anywhere, where the curve's slope is ≤ 1 beyond the LR = 1 point,
      and any relative FPR error moves TPR by at most that much (slope·α ≤ 1 on a concave ROC);
    * the rise of the curve over ±e_small at FPR 1e-6, the steepest point considered, where
      e_small bounds FPR errors of thresholds with LR ≥ 1.
    """
    upper = log_lr >= 0.0
    ratio = np.exp(-np.abs(log_lr))
    q0 = np.where(upper, p1 * ratio, p0)
    q1 = np.where(upper, p1, p0 * ratio)
    fpr, tpr = _roc_from_ordered(q0, q1)
    if per_entry <= 0.0:
        return fpr, tpr, 0.0
    e_small = per_entry * float(np.sum(ratio[upper]))
    e_all = e_small + per_entry * float(np.count_nonzero(~upper))
    e_t = per_entry * (float(np.count_nonzero(upper)) + float(np.sum(ratio[~upper])))
    a = 1e-6
    rise = float(np.interp(a + e_small, fpr, tpr) - np.interp(max(0.0, a - e_small), fpr, tpr))
    return fpr, tpr, 2.0 * e_t + 2.0 * e_all + rise


# =========================================================================== constructors

def gaussian_tradeoff(mu: float) -> TradeOff:
    """μ-GDP trade-off, TPR(α) = Φ(Φ⁻¹(α) + μ) (Dong, Roth & Su 2019, Def. 2.7); μ = √k Δ/σ."""
    m = positive(mu, "Gaussian-DP parameter mu", "mu")
    return _closed_tradeoff("gaussian", m, "sum of the k released values (Σ x_i)")


def laplace_tradeoff(scale: float, sensitivity: float, k: int, *,
                     cancel: CancelToken = NEVER) -> TradeOff:
    """Optimal attacker against Laplace(b) noise on k releases, each shifted by Δ if present.

    k = 1: closed form with ε0 = Δ/b (see the module docstring / ARCHITECTURE §6).
    k > 1: numerical convolution of the law of S = Σ clip(x_i, 0, Δ). Each term has atoms at 0
    and Δ and a density on (0, Δ); the density is split into m bins whose masses come exactly
    from the CDF, each placed at its bin's midpoint. For this discretisation the per-term
    likelihood ratio at a grid value v is still exactly exp((2v − Δ)/b), so thresholding the
    discretised sum is the Neyman–Pearson test *of the quantised data*: its ROC is an achievable
    lower bound on the optimal ROC. ``numerical_error`` is 2 × the largest change in AUC,
    accuracy and TPR (on a log FPR grid) between m and m/2 bins, plus the effect of FFT
    roundoff on the curve at FPR ≥ 1e-6 (see :func:`_refined_roc`). ``cancel`` is checked
    between the two resolutions (each is up to a second of FFTs for large k).
    """
    b = positive(scale, "Laplace scale b", "noise_scale")
    d = positive(sensitivity, "sensitivity", "sensitivity")
    kk = observations(k)
    if kk == 1:
        return _closed_tradeoff("laplace", d / b, "clip(x, 0, Δ) (equivalently x itself)")
    bins = _laplace_bins(kk)
    return _laplace_numerical(b, d, kk, bins, cancel)


def _laplace_bins(k: int) -> int:
    """2048 bins per Δ, fewer for very large k so the convolution stays ≤ 2**22 points."""
    bins = min(2048, (1 << 21) // k)
    return max(64, bins - bins % 2)


def _laplace_sum_pmf(b: float, d: float, k: int, bins: int) -> tuple[np.ndarray, float]:
    """pmf of Σ clip(x_i, 0, Δ), x_i ~ Lap(0, b), on the half-bin grid v_j = j·Δ/(2·bins)."""
    h = d / bins
    term = np.zeros(2 * bins + 1)
    term[0] = 0.5                                   # P(x ≤ 0)
    term[-1] = 0.5 * math.exp(-d / b)               # P(x ≥ Δ)
    lo = np.arange(bins) * h
    term[1::2] = 0.5 * np.exp(-lo / b) * -math.expm1(-h / b)   # P(lo < x < lo + h), exact
    return _kfold(term, k)


def _laplace_numerical(b: float, d: float, k: int, bins: int,
                       cancel: CancelToken = NEVER) -> TradeOff:
    """Numerical-convolution trade-off at two resolutions; the finer one is returned."""
    curves = []
    roundoff = 0.0
    for m in (bins // 2, bins):
        cancel.check()
        p0, per_entry = _laplace_sum_pmf(b, d, k, m)
        # H1: x_i ~ Lap(Δ, b) ⇒ clip(x_i, 0, Δ) is Δ − (a term under H0): the sum is reflected.
        # Grid value of index j: S_j = j·Δ/(2m); log LR = (2S − kΔ)/b, exact for the bins.
        log_lr = (np.arange(p0.size) * (d / m) - k * d) / b
        fpr, tpr, roundoff = _refined_roc(p0, p0[::-1].copy(), log_lr, per_entry)
        curves.append(TradeOff(fpr, tpr, "numerical convolution",
                               "sum of clip(x_i, 0, Δ)", 0.0))
    coarse, fine = curves
    grid = np.concatenate((np.logspace(-6.0, 0.0, 200), np.linspace(0.0, 1.0, 201)))
    diff = max(abs(fine.auc() - coarse.auc()), abs(fine.accuracy() - coarse.accuracy()),
               float(np.max(np.abs(fine.tpr_at(grid) - coarse.tpr_at(grid)))))
    error = 2.0 * diff + roundoff + 1e-12
    return TradeOff(fine.fpr, fine.tpr, "numerical convolution", "sum of clip(x_i, 0, Δ)",
                    float(error))


def discrete_laplace_tradeoff(t: float, sensitivity: int, k: int) -> TradeOff:
    """Exact convolution for discrete Laplace noise (pmf ∝ exp(−|x|/t)) on k releases.

    Per term, clip(x, 0, Δ) lives on {0, …, Δ}: P(0) = 1/(1 + e^{−1/t}),
    P(j) = Z e^{−j/t} (0 < j < Δ, Z = (1 − e^{−1/t})/(1 + e^{−1/t})), P(Δ) = e^{−Δ/t}/(1 + e^{−1/t}).
    The per-term likelihood ratio is exp((2j − Δ)/t), so the sum S is the NP statistic and its
    H1 law is the H0 law reflected (S ↦ kΔ − S).
    """
    tt = positive(t, "discrete Laplace scale t", "noise_scale")
    d = int(round(check_sensitivity(sensitivity, integer=True)))
    kk = observations(k)
    a = 1.0 / tt
    j = np.arange(d + 1, dtype=np.float64)
    term = (-math.expm1(-a)) / (1.0 + math.exp(-a)) * np.exp(-a * j)
    term[0] = 1.0 / (1.0 + math.exp(-a))
    term[-1] = math.exp(-a * d) / (1.0 + math.exp(-a))
    p0, per_entry = _kfold(term / term.sum(), kk)
    log_lr = (2.0 * np.arange(p0.size) - kk * d) * a
    fpr, tpr, error = _refined_roc(p0, p0[::-1].copy(), log_lr, per_entry)
    return TradeOff(fpr, tpr, "exact convolution", "sum of clip(x_i, 0, Δ)", error)


def discrete_gaussian_tradeoff(sigma: float, sensitivity: int, k: int) -> TradeOff:
    """Exact convolution for discrete Gaussian noise N_Z(0, σ²) on k releases.

    The log likelihood ratio of k releases is (2Δ·Σx_i − kΔ²)/(2σ²): increasing in Σ x_i, the
    NP statistic. Each term's pmf is truncated to |x| ≤ L = ⌈12σ + Δ + 10⌉ and renormalised;
    ``numerical_error``: effect on the curve (FPR ≥ 1e-6) of moving ROC coordinates by
    k × (truncated mass, bounded by a Gaussian-type tail sum) + convolution roundoff.
    """
    sig = positive(sigma, "discrete Gaussian sigma", "noise_scale")
    d = int(round(check_sensitivity(sensitivity, integer=True)))
    kk = observations(k)
    half = int(math.ceil(12.0 * sig + d + 10))
    x = np.arange(-half, half + 1, dtype=np.float64)
    w = np.exp(-(x * x) / (2.0 * sig * sig))
    # Mass beyond L: Σ_{x>L} e^{−x²/2σ²} ≤ e^{−L²/2σ²}/(1 − e^{−L/σ²}), twice, over the total.
    tail = 2.0 * math.exp(-(half + 1) ** 2 / (2 * sig * sig)) / -math.expm1(-(half + 1) / sig**2)
    trunc = tail / w.sum()
    p_sum, per_entry = _kfold(w / w.sum(), kk)
    shift = kk * d
    p0 = np.concatenate((p_sum, np.zeros(shift)))
    p1 = np.concatenate((np.zeros(shift), p_sum))
    total = np.arange(p0.size, dtype=np.float64) - kk * half     # Σ x_i at each index
    log_lr = (2.0 * d * total - kk * d * d) / (2.0 * sig * sig)
    fpr, tpr, error = _refined_roc(p0, p1, log_lr, per_entry)
    # Truncation moves each ROC coordinate by at most k × (truncated mass).
    return TradeOff(fpr, tpr, "exact convolution", "sum of the k released values (Σ x_i)",
                    error + 2.0 * kk * trunc)


def pure_dp_worst_case_tradeoff(epsilon0: float, k: int) -> TradeOff:
    """Worst case of k-fold ε0-DP: Binomial(k, p) vs Binomial(k, 1 − p), p = e^{ε0}/(1 + e^{ε0}).

    Kairouz, Oh & Viswanath 2015, Thm 3.4 (k-fold randomised response dominates every k-fold
    composition of ε0-DP mechanisms); the log likelihood ratio ε0·(2j − k) increases with the
    number j of "1" answers, so thresholding j is the NP test.
    """
    e0 = positive(epsilon0, "epsilon per observation", "epsilon")
    kk = observations(k)
    j = np.arange(kk + 1)
    q = 1.0 / (1.0 + math.exp(e0))           # 1 − p, computed without overflow
    p1 = binom.pmf(j, kk, 1.0 - q)
    p0 = binom.pmf(j, kk, q)
    fpr, tpr = _roc_from_ordered(p0, p1)
    return TradeOff(fpr, tpr, "closed form",
                    "number of randomised-response answers that point to 'present'", 0.0)


def mechanism_tradeoff(mechanism: str, scale: float, sensitivity: float, k: int, *,
                       cancel: CancelToken = NEVER) -> TradeOff:
    """Dispatch by mechanism name; ``scale`` is b, σ, t or σ. ``cancel`` is checked inside
    the numerical (Laplace) convolution."""
    if mechanism == "gaussian":
        sig = positive(scale, "Gaussian sigma", "noise_scale")
        d = positive(sensitivity, "sensitivity", "sensitivity")
        return gaussian_tradeoff(math.sqrt(observations(k)) * d / sig)
    if mechanism == "laplace":
        return laplace_tradeoff(scale, sensitivity, k, cancel=cancel)
    if mechanism == "discrete_laplace":
        return discrete_laplace_tradeoff(scale, sensitivity, k)
    if mechanism == "discrete_gaussian":
        return discrete_gaussian_tradeoff(scale, sensitivity, k)
    raise unknown_mechanism(mechanism)


def dp_region_tpr_upper(fpr, epsilon: float, delta: float) -> np.ndarray:
    """Largest TPR any (ε, δ)-DP mechanism permits at each FPR (paper 002, Thm 1, both parts):
    min(1, e^ε·FPR + δ, 1 − e^{−ε}(1 − δ − FPR))."""
    f = np.clip(np.asarray(fpr, dtype=np.float64), 0.0, 1.0)
    eps = float(epsilon)
    dlt = float(delta)
    if not math.isfinite(eps) or eps < 0:
        raise InputError(f"Epsilon must be a non-negative finite number, got {given_value(epsilon)}.",
                         key="epsilon")
    if not 0.0 <= dlt <= 1.0:
        raise InputError(f"Delta must lie between 0 and 1, got {given_value(delta)}.", key="delta")
    with np.errstate(over="ignore", invalid="ignore"):
        # e^ε overflows to inf past ε ≈ 709 (DP-SGD with little noise gets there); inf·0 would
        # be NaN at FPR 0, where the bound is δ.
        first = np.where(f > 0, np.exp(eps) * f, 0.0) + dlt
    second = 1.0 - math.exp(-eps) * (1.0 - dlt - f)
    return np.minimum(1.0, np.minimum(first, second))
