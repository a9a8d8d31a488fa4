"""Coverage of every interval the app reports, by simulation where the truth is known.

ARCHITECTURE §5: "every interval is checked by simulation where the truth is known: over many
seeds it covers the true value at least as often as its nominal level". We play the membership
game of the mechanism audit (the engine's own ``play`` and optimal statistic) over many seeds,
evaluate each seed with the metric layer every audit shares (``evaluate_attack``), and compare
with exact theory:

* AUC and TPR at 0.1 %, 1 %, 10 % FPR against the exact trade-off curve of the mechanism
  (``mechanism_tradeoff``; the Neyman–Pearson statistic's ROC *is* that curve);
* the pointwise ROC band against the same curve at several FPRs;
* balanced accuracy and advantage against their true values *at the threshold the attack
  chose* (that is what they estimate), from the exact score distributions below;
* the empirical ε lower bound (paper 002 Cor. 1) against the ε its threshold really certifies,
  ln((TPR(τ) − δ)/FPR(τ)) (or the TNR/FNR form), which is ≤ the mechanism's ε by Thm 1; and the
  Gaussian-DP heuristic bound's μ against the true μ.

Coverage is judged with a one-sided exact binomial test against the nominal 95 %: the test
fails when the observed coverage is implausibly low for a 95 % interval (p < 0.001). The seeds
are fixed, so the verdict is reproducible; with the old TP-only TPR interval (12-seed coverage
2/12 to 8/12) every TPR test here fails.

The exact score distributions ("survival" P[score ≥ τ]) are derived, not copied:
* Gaussian noise σ, k releases, Δ = 1: the statistic Σxᵢ is N(0, kσ²) or N(k, kσ²);
* Laplace noise b, one release: clip(x, 0, 1) has P[≥ τ] = ½e^{−τ/b} (non-member) and
  1 − ½e^{(τ−1)/b} (member) for 0 < τ ≤ 1;
* discrete Laplace t, Δ = 1: clip(x, 0, 1) is Bernoulli(q₀ = e^{−1/t}/(1 + e^{−1/t})) for a
  non-member and Bernoulli(1 − q₀) for a member, so the statistic is Binomial(k, ·) — integer
  scores with heavy ties, the hard case for threshold-based intervals.
"""

from __future__ import annotations

import math
from functools import cache

import numpy as np
import pytest
from scipy import stats

from engine.attacks.dp_mechanism import optimal_statistic
from engine.auditing import evaluate_attack, gdp_heuristic_epsilon_lower_bound
from engine.audits.mechanism import MechanismConfig, resolve_noise
from engine.games.membership import MechanismGame, play
from engine.mechanisms.tradeoff import mechanism_tradeoff
from engine.runtime import rng

NOMINAL = 0.95
DELTA = 1e-5
P_VALUE_FLOOR = 1e-3
FPR_TARGETS = (0.001, 0.01, 0.1)
BAND_CHECK_FPRS = (0.001, 0.01, 0.1, 0.5)

# (mechanism, ε per observation, k, trials per hypothesis, positives kept, seeds)
# The first three are the settings the issue measured at the default 20,000 trials; the others
# add ties (clipped Laplace, discrete Laplace), small samples and unequal class sizes.
SETTINGS = {
    "laplace-eps1-k10": ("laplace", 1.0, 10, 20000, None, 120),
    "gaussian-eps1-k10": ("gaussian", 1.0, 10, 20000, None, 120),
    "laplace-eps0.5-k60": ("laplace", 0.5, 60, 20000, None, 100),
    "laplace-eps1-k1": ("laplace", 1.0, 1, 3000, None, 250),
    "gaussian-eps2-k3-small": ("gaussian", 2.0, 3, 300, None, 400),
    "discrete-laplace-eps1-k6": ("discrete_laplace", 1.0, 6, 2000, None, 300),
    "gaussian-eps1-k2-unequal": ("gaussian", 1.0, 2, 2000, 500, 300),
}
EXACT_SCORE_LAWS = {"gaussian", "laplace-k1", "discrete_laplace"}


def _score_survival(mech: str, scale: float, k: int):
    """(P[score ≥ τ | non-member], P[score ≥ τ | member]) as functions of τ, or None."""
    if mech == "gaussian":
        sd = scale * math.sqrt(k)
        return (lambda t: stats.norm.sf(t / sd)), (lambda t: stats.norm.sf((t - k) / sd))
    if mech == "laplace" and k == 1:
        def neg(t):
            return 1.0 if t <= 0 else (0.0 if t > 1 else 0.5 * math.exp(-t / scale))

        def pos(t):
            return 1.0 if t <= 0 else (0.0 if t > 1 else 1 - 0.5 * math.exp((t - 1) / scale))
        return neg, pos
    if mech == "discrete_laplace":
        q0 = math.exp(-1 / scale) / (1 + math.exp(-1 / scale))
        return ((lambda t: stats.binom.sf(math.ceil(t) - 1, k, q0)),
                (lambda t: stats.binom.sf(math.ceil(t) - 1, k, 1 - q0)))
    return None


@cache
def _simulate(key: str) -> dict:
    """Per-seed coverage indicators and widths for one setting (computed once per session)."""
    mech, eps, k, trials, keep_pos, seeds = SETTINGS[key]
    scale, _ = resolve_noise(MechanismConfig(mechanism=mech, epsilon=eps, observations=k))
    theory = mechanism_tradeoff(mech, scale, 1.0, k)
    err = theory.numerical_error
    survival = _score_survival(mech, scale, k)
    statistic, _ = optimal_statistic(mech, 1.0)
    game = MechanismGame(mech, scale, 1.0, k, trials, baseline=50.0)
    out: dict[str, list] = {}

    def record(name, covered, width=None):
        out.setdefault(name, []).append(bool(covered))
        if width is not None:
            out.setdefault(name + ":width", []).append(float(width))

    exact_tpr = {t: float(theory.tpr_at(t)) for t in FPR_TARGETS + BAND_CHECK_FPRS}
    for seed in range(seeds):
        scores, labels = play(game, {"opt": statistic}, rng(seed, "coverage", key))
        s = scores["opt"]
        if keep_pos is not None:  # drop members to get unequal classes (non-members first)
            s, labels = s[: trials + keep_pos], labels[: trials + keep_pos]
        r = evaluate_attack("opt", "opt", s, labels, delta=DELTA, confidence=NOMINAL)

        lo, hi = r["auc_ci"]
        record("auc", lo - err <= theory.auc() <= hi + err, hi - lo)
        for row in r["tpr_at_fpr"]:
            t = row["fpr_target"]
            lo, hi = row["tpr_ci"]
            record(f"tpr@{t:g}", lo - err <= exact_tpr[t] <= hi + err, hi - lo)
        band = r["details"]["roc_band"]
        grid = np.asarray(band["fpr"])
        for g in BAND_CHECK_FPRS:
            i = int(np.argmin(np.abs(grid - g)))
            truth = float(theory.tpr_at(grid[i]))
            record(f"band@{g:g}", band["tpr_lower"][i] - err <= truth <= band["tpr_upper"][i] + err)

        if survival is None:
            continue
        neg_sf, pos_sf = survival
        tau = r["details"]["accuracy_threshold"]
        fpr_true, tpr_true = neg_sf(tau), pos_sf(tau)
        acc_true = 0.5 * (tpr_true + 1 - fpr_true)
        lo, hi = r["accuracy_ci"]
        record("accuracy", lo <= acc_true <= hi, hi - lo)
        lo, hi = r["advantage_ci"]
        record("advantage", lo <= tpr_true - fpr_true <= hi)

        eb = r["epsilon_lower_bound"]
        if eb["value"] <= 0 or eb["threshold"] is None:
            record("epsilon_bound", True)   # no claim made
        else:
            f, g_ = neg_sf(eb["threshold"]), pos_sf(eb["threshold"])
            num, den = (g_ - DELTA, f) if eb["direction"] == "tpr/fpr" else (1 - f - DELTA, 1 - g_)
            certified = math.log(num / den) if num > 0 and den > 0 else (
                math.inf if num > 0 else -math.inf)
            record("epsilon_bound", eb["value"] <= certified + 1e-12)
        if mech == "gaussian":
            gdp = gdp_heuristic_epsilon_lower_bound(s, labels, delta=DELTA, confidence=NOMINAL)
            mu_true = math.sqrt(k) / scale
            record("gdp_mu_bound", gdp["mu_lower"] <= mu_true)
    return {name: np.asarray(v) for name, v in out.items()}


def _cases():
    for key, (mech, _eps, k, *_rest) in SETTINGS.items():
        names = ["auc"] + [f"tpr@{t:g}" for t in FPR_TARGETS] + [f"band@{g:g}"
                                                                 for g in BAND_CHECK_FPRS]
        if mech == "gaussian" or mech == "discrete_laplace" or (mech == "laplace" and k == 1):
            names += ["accuracy", "advantage", "epsilon_bound"]
        if mech == "gaussian":
            names.append("gdp_mu_bound")
        for name in names:
            yield pytest.param(key, name, id=f"{key}-{name}")


@pytest.mark.slow
@pytest.mark.parametrize("key, interval", list(_cases()))
def test_interval_covers_truth_at_nominal_rate(key, interval):
    covered = _simulate(key)[interval]
    hits, n = int(covered.sum()), covered.size
    p = stats.binomtest(hits, n, NOMINAL, alternative="less").pvalue
    assert p >= P_VALUE_FLOOR, (
        f"{interval} in {key}: covered the truth in {hits}/{n} seeds "
        f"({hits / n:.1%}), implausible for a {NOMINAL:.0%} interval (p = {p:.2g})")


@pytest.mark.slow
@pytest.mark.parametrize("key", ["laplace-eps1-k10", "gaussian-eps1-k10", "laplace-eps0.5-k60"])
def test_tpr_intervals_are_not_wider_than_needed(key):
    """At 20,000 trials per hypothesis: median width ≤ 0.08 at 1 % FPR and ≤ 0.2 at 0.1 %."""
    sim = _simulate(key)
    assert np.median(sim["tpr@0.01:width"]) <= 0.08
    assert np.median(sim["tpr@0.001:width"]) <= 0.2


def test_tp_only_interval_would_fail_this_suite():
    """The suite can fail: a Clopper–Pearson interval on the true positives alone (the old
    method) covers the exact TPR at 0.1 % FPR far less often than 95 % on the same seeds."""
    from engine.metrics import clopper_pearson, roc_curve

    mech, eps, k, trials = "laplace", 1.0, 10, 20000
    scale, _ = resolve_noise(MechanismConfig(mechanism=mech, epsilon=eps, observations=k))
    exact = float(mechanism_tradeoff(mech, scale, 1.0, k).tpr_at(0.001))
    statistic, _ = optimal_statistic(mech, 1.0)
    game = MechanismGame(mech, scale, 1.0, k, trials)
    hits = 0
    seeds = 40
    for seed in range(seeds):
        scores, labels = play(game, {"opt": statistic}, rng(seed, "coverage", "tp-only"))
        fpr, tpr, _ = roc_curve(scores["opt"], labels)
        i = np.nonzero(fpr <= 0.001 + 1e-12)[0][-1]
        lo, hi = clopper_pearson(round(tpr[i] * trials), trials)
        hits += lo <= exact <= hi
    p = stats.binomtest(hits, seeds, NOMINAL, alternative="less").pvalue
    assert p < P_VALUE_FLOOR, (hits, seeds)


# --------------------------------------------------------------------------- clustered trials
# Attribute inference (paper 003) pools every target's |V| (score, is-its-value) pairs: one
# positive and |V| − 1 negatives that share the target's release, so they are correlated. The
# AUC interval is clustered by target (Obuchowski 1997); the TPR-at-FPR interval keeps the
# binomial threshold bounds. Truth: the same score law on 2.8 million pairs.

def _aia_scores(g: np.random.Generator, targets: int, values: int = 7):
    truth = g.integers(0, values, targets)
    logits = g.normal(0.0, 1.0, (targets, values))
    logits[np.arange(targets), truth] += 1.0
    logits += g.normal(0.0, 1.0, (targets, 1))         # a shared per-target shift
    scores = np.exp(logits)
    scores /= scores.sum(axis=1, keepdims=True)
    member = np.zeros((targets, values), dtype=bool)
    member[np.arange(targets), truth] = True
    return scores, member


@cache
def _aia_truth() -> dict:
    from engine.metrics import auc_score

    scores, member = _aia_scores(rng(0, "coverage", "aia-truth"), 400_000)
    s, y = scores.ravel(), member.ravel()
    neg = s[~y]
    out = {"auc": auc_score(s, y)}
    for f in (0.01, 0.1):
        out[f] = float(np.mean(s[y] > np.quantile(neg, 1.0 - f)))
    return out


@pytest.mark.slow
def test_clustered_auc_and_tpr_intervals_cover_correlated_attribute_trials():
    from engine.metrics import clustered_auc_ci

    truth = _aia_truth()
    seeds, targets = 300, 60
    hits = {"auc": 0, 0.01: 0, 0.1: 0}
    for seed in range(seeds):
        scores, member = _aia_scores(rng(seed, "coverage", "aia"), targets)
        s, y = scores.ravel(), member.ravel()
        _, (lo, hi) = clustered_auc_ci(s, y, np.repeat(np.arange(targets), 7))
        hits["auc"] += lo <= truth["auc"] <= hi
        for row in evaluate_attack("a", "a", s, y, delta=0.0,
                                   fpr_targets=(0.01, 0.1))["tpr_at_fpr"]:
            lo, hi = row["tpr_ci"]
            hits[row["fpr_target"]] += lo <= truth[row["fpr_target"]] <= hi
    for key, h in hits.items():
        p = stats.binomtest(h, seeds, NOMINAL, alternative="less").pvalue
        assert p >= P_VALUE_FLOOR, f"{key}: covered {h}/{seeds}"


# --------------------------------------------------------------------------- generalization gap
# A model's gap is training accuracy minus test accuracy (paper 001 §3), two independent
# binomial proportions. Cases include the overfit corner (training accuracy 1) where the Wald
# interval has zero width on one side.

@pytest.mark.parametrize("p1, n1, p2, n2", [(1.0, 200, 0.25, 200), (0.98, 60, 0.4, 40),
                                            (0.77, 500, 0.78, 500), (0.6, 15, 0.55, 12),
                                            (0.99, 40, 0.95, 40)])
def test_generalization_gap_interval_covers_truth(p1, n1, p2, n2):
    from engine.metrics import difference_ci

    g = rng(0, "coverage", "gap", f"{p1}-{n1}-{p2}-{n2}")
    seeds = 1000
    k1, k2 = g.binomial(n1, p1, seeds), g.binomial(n2, p2, seeds)
    hits = 0
    for a, b in zip(k1, k2, strict=True):
        _, (lo, hi) = difference_ci(int(a), n1, int(b), n2)
        hits += lo <= p1 - p2 <= hi
    p = stats.binomtest(hits, seeds, NOMINAL, alternative="less").pvalue
    assert p >= P_VALUE_FLOOR, f"covered {hits}/{seeds}"


def test_wald_gap_interval_would_fail_this_check():
    """The check can fail: the Wald interval for a small gap between two accuracies near 1
    (0.99 and 0.95 on 40 records each) covers far less often than 95 %."""
    g = rng(0, "coverage", "gap-wald")
    seeds, n1, n2, p1, p2 = 1000, 40, 40, 0.99, 0.95
    k1, k2 = g.binomial(n1, p1, seeds), g.binomial(n2, p2, seeds)
    a, b = k1 / n1, k2 / n2
    half = 1.96 * np.sqrt(a * (1 - a) / n1 + b * (1 - b) / n2)
    hits = int(np.sum((a - b - half <= p1 - p2) & (p1 - p2 <= a - b + half)))
    p = stats.binomtest(hits, seeds, NOMINAL, alternative="less").pvalue
    assert p < P_VALUE_FLOOR, hits


@pytest.mark.slow
@pytest.mark.claims     # 200 seeds of the defences' trade-off: the longest test here (issue 18)
def test_familywise_epsilon_bound_of_the_defences_tradeoff_holds_at_nominal_rate():
    """The defences' trade-off quotes the largest of 8 attacks' ε lower bounds, each at the
    Bonferroni level (engine.defences.tradeoff.family_epsilon_bounds). Truth known: one
    Laplace release of a 0/1 membership bit at ε = 1 (pure ε-DP, so (ε, δ)-DP for every δ);
    the 8 attacks are post-processings of the release (independent Gaussian blur of growing
    size), so every one is bounded by the same ε. Over 200 seeds the largest bound must exceed
    ε in no more than 5 % of them (exact binomial test, as above); measured: 0 of 200, the
    bounds' mean 0.74 — near enough to ε for the check to bite. (The largest of eight plain
    95 % bounds also held here, in 197 of 200 seeds with numpy's default streams: Clopper–
    Pearson is conservative and the attacks are correlated. The Bonferroni level is what makes
    the 95 % a guarantee rather than a finding of this setting.)"""
    from engine.attacks.outcome import AttackOutcome
    from engine.defences.tradeoff import family_epsilon_bounds

    eps, n, seeds = 1.0, 2000, 200
    member = np.r_[np.ones(n, bool), np.zeros(n, bool)]
    covered, values = [], []
    for seed in range(seeds):
        g = rng(seed, "familywise-epsilon")
        release = member + g.laplace(0.0, 1.0 / eps, member.size)
        attacks = [AttackOutcome(f"blur{i}", "blur", release + g.normal(0.0, 0.1 * i, n * 2),
                                 0.5, {}) for i in range(8)]
        largest = max(b["value"] for b in family_epsilon_bounds(attacks, member, DELTA,
                                                                 NOMINAL))
        covered.append(largest <= eps + 1e-12)
        values.append(largest)
    hits = int(np.sum(covered))
    p = stats.binomtest(hits, seeds, NOMINAL, alternative="less").pvalue
    assert p >= P_VALUE_FLOOR, f"the largest bound held in {hits}/{seeds} seeds (p = {p:.2g})"
    assert np.mean(values) > 0.5 * eps          # the bounds are informative, not all zero
