"""One-threshold attack (paper 000 §3.2, Alg. 2, 3 and 6).

Score1 sums the released values (minus what the attacker knows) over the target's positive
observations: each such cell leaks a little about the target, the sum collects it all. For
Gaussian noise this sum is the likelihood-ratio statistic of the informed attacker (so the
attack is optimal there); for Laplace noise single large noise draws dominate it, which the
two-threshold attack avoids. The threshold is the midpoint of the shadow means (Alg. 3); for a
fixed FPR α, Alg. 6 fits a Gaussian to the non-member shadow scores: T = μ̂₀ + σ̂₀ Φ⁻¹(1 − α).
"""

from __future__ import annotations

import numpy as np
from scipy.stats import norm

from engine.attacks.location.base import AttackData, midpoint_threshold
from engine.attacks.outcome import AttackOutcome

LABEL = "One-threshold attack (paper 000, Alg. 2 + 3)"


def score1(x: np.ndarray, k: int) -> np.ndarray:
    """Alg. 2: Σ of the read values over the target's k positive observations."""
    return x[:, :k].sum(axis=1, dtype=np.float64)


def threshold_at_fpr(shadow_scores: np.ndarray, shadow_labels: np.ndarray, alpha: float) -> float:
    """Alg. 6: threshold giving FPR α under a Gaussian fit to the non-member shadow scores."""
    neg = shadow_scores[~shadow_labels]
    return float(neg.mean() + neg.std(ddof=1) * norm.ppf(1.0 - alpha))


def attack(data: AttackData, fpr_targets=(0.001, 0.01, 0.1)) -> AttackOutcome:
    shadow = score1(data.shadow.x, data.k)
    threshold = midpoint_threshold(shadow, data.shadow.labels)
    test = score1(data.test.x, data.k)
    neg = test[~data.test.labels]
    fixed = [{"fpr_target": a,
              "threshold": threshold_at_fpr(shadow, data.shadow.labels, a),
              "fpr_on_test": float(np.mean(neg >= threshold_at_fpr(shadow, data.shadow.labels,
                                                                   a)))}
             for a in fpr_targets]
    return AttackOutcome("one_threshold", LABEL, test, threshold, {
        "statistic": "sum of the released values (minus known people) over the target's "
                     "positive observations",
        "paper": "000 §3.2, Alg. 2, 3, 6",
        "fixed_fpr_thresholds": fixed,
        "shadow_means": [float(shadow[~data.shadow.labels].mean()),
                         float(shadow[data.shadow.labels].mean())],
        "score_distribution": normal_fit(test, data.test.labels, shadow, data.shadow.labels),
    })


def normal_fit(scores, labels, shadow, shadow_labels, bins: int = 40) -> dict:
    """Thm 2: by the CLT the summed score is about Normal for both hypotheses; test-score
    histograms beside the normal laws fitted on the shadow scores."""
    edges = np.histogram_bin_edges(scores, bins=bins)
    width = edges[1] - edges[0]
    mid = 0.5 * (edges[1:] + edges[:-1])
    out = {"score": mid.tolist(), "model": "Normal fitted on the shadow aggregates "
                                           "(paper 000 Thm 2, CLT)"}
    for name, mask, sh in (("absent", ~labels, shadow[~shadow_labels]),
                           ("present", labels, shadow[shadow_labels])):
        out[name] = np.histogram(scores[mask], bins=edges)[0].tolist()
        sd = sh.std(ddof=1)
        # A constant score (no noise, no unknown people) has no normal law to draw.
        out["model_" + name] = ((norm.pdf(mid, sh.mean(), sd) * width * mask.sum()).tolist()
                                if sd > 0 else None)
    return out
