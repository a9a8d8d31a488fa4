"""Empirical ε lower bounds from a membership attack (paper 002, Thm 1 and Cor. 1).

If a mechanism is (ε, δ)-DP then *every* attacker satisfies

    TPR ≤ e^ε · FPR + δ     and     TNR ≤ e^ε · FNR + δ,

so an attack observed to beat these lines certifies

    ε ≥ max{ ln((TPR − δ)/FPR), ln((TNR − δ)/FNR) }.

Rates measured from finitely many trials are uncertain, so we plug in one-sided confidence
bounds — the lower bound for the numerator's rate and the upper bound for the denominator's —
each at level α/2 so that the whole statement holds with probability ≥ 1 − α (union bound).
The threshold (and which of the two inequalities to use) is chosen on a *separate* split of the
trials: choosing it on the same trials that give the bound would make the bound optimistic
(Jagielski et al. 2020 and Nasr et al. 2021 audit DP-SGD this way).
"""

from __future__ import annotations

import numpy as np
from scipy.stats import norm

from engine.mechanisms.calibration import gaussian_epsilon
from engine.metrics import (
    DEFAULT_FPR_TARGETS,
    accuracy_p_value,
    advantage_ci,
    as_scores_labels,
    balanced_accuracy_with_ci,
    best_balanced_accuracy_threshold,
    delong_auc_ci,
    downsample_roc,
    one_sided_lower,
    one_sided_upper,
    rates_at_threshold,
    roc_band,
    roc_curve,
    split_for_selection,
    tpr_at_fpr,
)
from engine.runtime import NEVER, CancelToken

MAX_CANDIDATE_THRESHOLDS = 4000


def epsilon_from_counts(tp, fn, fp, tn, *, delta: float, alpha: float,
                        method: str = "clopper-pearson") -> tuple[np.ndarray, np.ndarray]:
    """Vectorised bounds for both inequalities of Thm 1 at given confusion counts.

    Returns ``(eps_positive, eps_negative)``: ln((TPR_L − δ)/FPR_U) and ln((TNR_L − δ)/FNR_U),
    with −inf where the numerator is not positive.
    """
    tp, fn, fp, tn = (np.asarray(a, dtype=float) for a in (tp, fn, fp, tn))
    n_pos = tp + fn
    n_neg = fp + tn
    tpr_l = one_sided_lower(tp, n_pos, alpha / 2, method)
    fpr_u = one_sided_upper(fp, n_neg, alpha / 2, method)
    tnr_l = one_sided_lower(tn, n_neg, alpha / 2, method)
    fnr_u = one_sided_upper(fn, n_pos, alpha / 2, method)
    with np.errstate(divide="ignore", invalid="ignore"):
        eps_pos = np.where(tpr_l - delta > 0, np.log((tpr_l - delta) / fpr_u), -np.inf)
        eps_neg = np.where(tnr_l - delta > 0, np.log((tnr_l - delta) / fnr_u), -np.inf)
    return eps_pos, eps_neg


def _counts_at_thresholds(scores: np.ndarray, labels: np.ndarray, thresholds: np.ndarray):
    """(TP, FN, FP, TN) for ``score >= t`` at every t, in O((n + T) log n)."""
    pos = np.sort(scores[labels])
    neg = np.sort(scores[~labels])
    tp = pos.size - np.searchsorted(pos, thresholds, side="left")
    fp = neg.size - np.searchsorted(neg, thresholds, side="left")
    return tp, pos.size - tp, fp, neg.size - fp


def _candidate_thresholds(selection_scores: np.ndarray) -> np.ndarray:
    """Thresholds to try on the selection split: every distinct score, or evenly spaced
    quantiles when there are more than MAX_CANDIDATE_THRESHOLDS (keeps selection O(n log n))."""
    candidates = np.unique(selection_scores)
    if candidates.size > MAX_CANDIDATE_THRESHOLDS:
        candidates = np.unique(np.quantile(selection_scores,
                                           np.linspace(0, 1, MAX_CANDIDATE_THRESHOLDS)))
    return candidates


def empirical_epsilon_lower_bound(scores, labels, *, delta: float, confidence: float = 0.95,
                                  selection: np.ndarray | None = None,
                                  selection_fraction: float = 0.5,
                                  method: str = "clopper-pearson") -> dict:
    """ε lower bound certified by one attack (paper 002 Cor. 1), two-sided, split selection.

    Parameters
    ----------
    scores, labels: (n,) attack scores (higher = member) and membership (True = member).
    delta: the δ of the claim being audited; stated in the result.
    confidence: 1 − α, the probability that the bound is valid.
    selection: (n,) bool mask of trials used only to choose the threshold; by default the first
        ``selection_fraction`` of each class.
    method: "clopper-pearson" (exact coverage) or "jeffreys" (shorter, approximate coverage).
    """
    s = np.asarray(scores, dtype=float).ravel()
    y = np.asarray(labels).ravel().astype(bool)
    if selection is None:
        selection = split_for_selection(y, selection_fraction)
    alpha = 1.0 - confidence

    # 1. Choose threshold and direction on the selection split (same estimator, its own counts).
    s_sel, y_sel = s[selection], y[selection]
    candidates = _candidate_thresholds(s_sel)
    # Also try "above everything" so a useless attack yields the empty rule, not noise.
    candidates = np.r_[candidates, np.inf]
    eps_pos, eps_neg = epsilon_from_counts(*_counts_at_thresholds(s_sel, y_sel, candidates),
                                           delta=delta, alpha=alpha, method=method)
    best_pos, best_neg = int(np.argmax(eps_pos)), int(np.argmax(eps_neg))
    if eps_pos[best_pos] >= eps_neg[best_neg]:
        threshold, direction = float(candidates[best_pos]), "tpr/fpr"
    else:
        threshold, direction = float(candidates[best_neg]), "tnr/fnr"

    # 2. Certify on the evaluation split only.
    s_ev, y_ev = s[~selection], y[~selection]
    tp, fn, fp, tn = (int(v[0]) for v in _counts_at_thresholds(s_ev, y_ev, np.array([threshold])))
    e_pos, e_neg = epsilon_from_counts(tp, fn, fp, tn, delta=delta, alpha=alpha, method=method)
    value = float(e_pos if direction == "tpr/fpr" else e_neg)
    value = max(0.0, value) if np.isfinite(value) else 0.0
    return {
        "value": value,
        "delta": float(delta),
        "confidence": float(confidence),
        "method": method,
        "threshold_selection": "split",
        "threshold": threshold if np.isfinite(threshold) else None,
        "direction": direction,
        "counts": {"tp": tp, "fn": fn, "fp": fp, "tn": tn},
        "n_selection": int(selection.sum()),
        "n_evaluation": int((~selection).sum()),
        # The largest ε this many trials could ever certify (TPR_L = 1, FP = 0): tells the user
        # whether a low bound means "little leakage" or "too few trials to say more".
        "max_certifiable": float(np.max(epsilon_from_counts(
            int(y_ev.sum()), 0, 0, int((~y_ev).sum()), delta=delta, alpha=alpha,
            method=method)[0])),
    }


def gdp_heuristic_epsilon_lower_bound(scores, labels, *, delta: float,
                                      confidence: float = 0.95,
                                      selection: np.ndarray | None = None,
                                      selection_fraction: float = 0.5) -> dict:
    """Tighter ε lower bound *assuming* the mechanism is μ-Gaussian-DP (heuristic elsewhere).

    A μ-GDP mechanism forces every test to satisfy TPR ≤ Φ(Φ⁻¹(FPR) + μ) (Dong, Roth & Su 2019,
    Def. 2.7), so one threshold certifies μ ≥ Φ⁻¹(TPR_L) − Φ⁻¹(FPR_U) with the same one-sided
    Clopper–Pearson bounds as :func:`empirical_epsilon_lower_bound`; the ε of that μ at δ follows
    from the GDP curve. One threshold then speaks for the whole trade-off curve, which is why the
    bound is much tighter than paper 002 Cor. 1 (Nasr et al. 2023, "Tight auditing of
    differentially private machine learning", §4). It is valid only when the mechanism's
    trade-off curve really is Gaussian — true for the Gaussian mechanism, not in general — so
    results carry ``"heuristic": True`` and ARCHITECTURE §5 requires the label.
    """
    s = np.asarray(scores, dtype=float).ravel()
    y = np.asarray(labels).ravel().astype(bool)
    if selection is None:
        selection = split_for_selection(y, selection_fraction)
    alpha = 1.0 - confidence

    def mu_lower(tp, fn, fp, tn):
        tp, fn, fp, tn = (np.asarray(a, dtype=float) for a in (tp, fn, fp, tn))
        tpr_l = one_sided_lower(tp, tp + fn, alpha / 2)
        fpr_u = one_sided_upper(fp, fp + tn, alpha / 2)
        with np.errstate(divide="ignore", invalid="ignore"):
            mu = norm.ppf(tpr_l) - norm.ppf(fpr_u)
        return np.where(np.isfinite(mu), mu, -np.inf)

    s_sel, y_sel = s[selection], y[selection]
    candidates = _candidate_thresholds(s_sel)
    best = int(np.argmax(mu_lower(*_counts_at_thresholds(s_sel, y_sel, candidates))))
    threshold = float(candidates[best])
    counts = _counts_at_thresholds(s[~selection], y[~selection], np.array([threshold]))
    mu = float(mu_lower(*counts)[0])
    value = 0.0
    if mu > 0 and delta > 0:
        value = float(gaussian_epsilon(delta, mu))
    return {"value": value, "mu_lower": max(mu, 0.0), "delta": float(delta),
            "confidence": float(confidence), "method": "gaussian-dp (heuristic)",
            "heuristic": True, "threshold_selection": "split", "threshold": threshold,
            "counts": {k: int(v[0]) for k, v in zip(("tp", "fn", "fp", "tn"), counts,
                                                     strict=True)}}


# --------------------------------------------------------------------------- the result entry

def evaluate_attack(name: str, label: str, scores, labels, *, delta: float,
                    confidence: float = 0.95,
                    fpr_targets: tuple[float, ...] = DEFAULT_FPR_TARGETS,
                    selection_fraction: float = 0.5, details: dict | None = None,
                    interval_method: str = "clopper-pearson",
                    accuracy_threshold: float | None = None,
                    cancel: CancelToken = NEVER) -> dict:
    """All §5 metrics of one attack as the ``attacks[i]`` entry of result.json (built here, not in
    engine.metrics, because the entry holds the ε lower bound of this module).

    ``accuracy_threshold``: the threshold the attack's own rule chose on data these scores do
    not contain (e.g. its shadow aggregates, paper 000 Alg. 3); balanced accuracy and advantage
    are then measured on all trials. Without it, the threshold is chosen on the selection
    split and measured on the rest (ARCHITECTURE §5). ``cancel`` is checked between the
    steps: each sorts the trials, about a second for millions of them.
    """
    s, y = as_scores_labels(scores, labels)
    n_pos = int(y.sum())
    n_neg = int(y.size - n_pos)
    fpr, tpr, _ = roc_curve(s, y)
    cancel.check()
    auc, auc_ci = delong_auc_ci(s, y, confidence, cancel=cancel)

    sel = split_for_selection(y, selection_fraction)
    if accuracy_threshold is None:
        threshold = best_balanced_accuracy_threshold(s[sel], y[sel])
        tp, fn, fp, tn = rates_at_threshold(s[~sel], y[~sel], threshold)
    else:
        threshold = float(accuracy_threshold)
        tp, fn, fp, tn = rates_at_threshold(s, y, threshold)
    acc, acc_ci = balanced_accuracy_with_ci(tp, fn, fp, tn, confidence)
    advantage = tp / (tp + fn) - fp / (fp + tn)
    cancel.check()

    eps = empirical_epsilon_lower_bound(s, y, delta=delta, confidence=confidence,
                                        selection=sel, method=interval_method)
    cancel.check()
    roc_f, roc_t = downsample_roc(fpr, tpr)
    out_details = dict(details or {})
    out_details["roc_band"] = roc_band(fpr, tpr, n_pos, n_neg, confidence)
    out_details["accuracy_threshold"] = threshold
    out_details["accuracy_threshold_source"] = (
        "selection split" if accuracy_threshold is None else "the attack's own rule")
    # The ε bound always chooses its threshold on the selection split; accuracy does too
    # unless the attack brought its own threshold, then it is measured on every trial.
    out_details["n_selection"] = int(sel.sum())
    out_details["n_evaluation"] = int((~sel).sum())
    out_details["accuracy_trials"] = int((~sel).sum() if accuracy_threshold is None else y.size)
    return {
        "name": name,
        "label": label,
        "n_positive": n_pos,
        "n_negative": n_neg,
        "auc": auc,
        "auc_ci": list(auc_ci),
        "accuracy": float(acc),
        "accuracy_ci": list(acc_ci),
        # The counts at the accuracy threshold and the one-sided test against a coin toss
        # that inverts the interval (engine.evidence weighs it with the other attacks').
        "accuracy_counts": {"tp": int(tp), "fn": int(fn), "fp": int(fp), "tn": int(tn)},
        "accuracy_p_value": accuracy_p_value(int(tp), int(fn), int(fp), int(tn)),
        "advantage": float(advantage),
        "advantage_ci": list(advantage_ci(acc_ci)),
        "tpr_at_fpr": [tpr_at_fpr(fpr, tpr, t, n_pos, n_neg, confidence) for t in fpr_targets],
        "epsilon_lower_bound": eps,
        "roc": {"fpr": roc_f, "tpr": roc_t},
        "details": out_details,
    }
