"""What theory says about the location game (paper 000 §4): the exact optimal informed
attacker for a target's k positive observations, what ε-DP per epoch allows over its epochs
(Thm 1, KOV composition), and everyone the optimum puts at high risk. Moved here from the
audit (issue 33 item 2).
"""

from __future__ import annotations

import math

import numpy as np
import scipy.sparse as sp

from engine.games.location_setup import GAUSSIAN_FAMILY, LocationGameSettings, epoch_sensitivity
from engine.games.membership import tradeoff_summary
from engine.mechanisms import MECHANISM_LABELS, SCALE_NAMES
from engine.mechanisms.accounting import compose
from engine.mechanisms.tradeoff import (
    dp_region_tpr_upper,
    mechanism_tradeoff,
    pure_dp_worst_case_tradeoff,
)


def theory_for(config: LocationGameSettings, scale: float | None, k: int, k_epochs: int,
               fpr_targets) -> dict:
    """What DP permits and the exact optimum, for a target with k positive observations."""
    if scale is None:
        return {"mechanism": "none", "observations": k, "epochs": k_epochs,
                "note": "No noise: nothing bounds the attacker; with exact knowledge of the "
                        "others it is always right."}
    mech = config.mechanism
    sens = epoch_sensitivity(mech, config.clip_per_epoch)
    if mech in ("discrete_laplace", "discrete_gaussian"):
        sens = max(1.0, float(math.ceil(sens)))
    optimal = mechanism_tradeoff(mech, scale, 1.0, k)
    composed = compose(mech, scale, sens, k_epochs, config.delta if config.delta > 0 else 1e-12,
                       epsilon0=config.epsilon)
    eps_total = float(composed.epsilon)
    worst = None
    if mech not in GAUSSIAN_FAMILY:
        worst = tradeoff_summary(pure_dp_worst_case_tradeoff(config.epsilon, k_epochs),
                                  fpr_targets)
    region_fpr = np.unique(np.r_[0.0, np.geomspace(1e-6, 1.0, 300)])
    return {
        "mechanism": mech, "mechanism_label": MECHANISM_LABELS[mech],
        "noise_scale": scale, "noise_scale_name": SCALE_NAMES[mech],
        "epsilon_per_epoch": config.epsilon, "delta": config.delta,
        "clip_per_epoch": config.clip_per_epoch, "observations": k, "epochs": k_epochs,
        "composed": composed.to_dict(), "epsilon_total": eps_total,
        "optimal_attacker": tradeoff_summary(optimal, fpr_targets),
        "worst_case_dp": worst,
        "dp_region": {"epsilon": eps_total, "delta": config.delta, "fpr": region_fpr.tolist(),
                      "tpr_upper": np.asarray(dp_region_tpr_upper(region_fpr, eps_total,
                                                                  config.delta)).tolist()},
    }


def dp_bound_accuracy(config: LocationGameSettings, scale: float, k_epochs: int) -> float:
    """Best balanced accuracy ε-DP per epoch allows over k_epochs epochs (paper 000 Thm 1)."""
    if config.mechanism in GAUSSIAN_FAMILY:
        sens = epoch_sensitivity(config.mechanism, config.clip_per_epoch)
        eps = compose(config.mechanism, scale, sens, k_epochs, config.delta).epsilon
        return float(min(1.0, (math.exp(eps) + config.delta) / (1.0 + math.exp(eps))))
    return float(pure_dp_worst_case_tradeoff(config.epsilon, k_epochs).accuracy())


def exposed_people(config: LocationGameSettings, traces, clipped: sp.csr_matrix,
                   scale: float | None) -> dict:
    """Everyone whose number of positive observations lets the optimal informed attacker reach
    the policy's high-risk line (TPR ≥ high_tpr at FPR = policy.fpr, or accuracy ≥ high_accuracy).

    The informed attacker's success depends on a person only through k (their observations
    after clipping), and grows with k, so one exact threshold k* splits everyone."""
    k_all = clipped.getnnz(axis=1)
    policy = config.policy
    if scale is None:
        k_star = 1
    else:
        def risky(k: int) -> bool:
            t = mechanism_tradeoff(config.mechanism, scale, 1.0, k)
            return t.tpr_at(policy.fpr) >= policy.high_tpr or t.accuracy() >= policy.high_accuracy
        hi = int(max(k_all.max(), 1))
        if not risky(hi):
            k_star = None
        else:
            lo = 0
            while hi - lo > 1:          # risky(lo) False (k = 0 knows nothing), risky(hi) True
                mid = (lo + hi) // 2
                if risky(mid):
                    hi = mid
                else:
                    lo = mid
            k_star = hi
    exposed = np.flatnonzero(k_all >= k_star) if k_star is not None else np.array([], int)
    line = (f"the best informed attacker reaches TPR ≥ {policy.high_tpr:.0%} at "
            f"{policy.fpr:.0%} FPR or accuracy ≥ {policy.high_accuracy:.0%} (the policy's "
            "high-risk line)")
    plural = "" if k_star == 1 else "s"
    out = {"rule": (f"at least {k_star} observation{plural} after clipping" if k_star is not None
                    else "no number of observations in the data reaches the line"),
           "policy_line": line,
           "min_observations": k_star, "count": int(exposed.size),
           "population": int(k_all.size),
           "share": float(exposed.size / max(k_all.size, 1)),
           "ids_listed": bool(config.list_exposed_ids)}
    if config.list_exposed_ids:
        order = exposed[np.argsort(-k_all[exposed], kind="stable")]
        out["people"] = [{"id": traces.user_ids[i], "observations": int(k_all[i])}
                         for i in order[:1000]]
    return out


def exposed_sentence(exposed: dict) -> str:
    """How many people the best possible attacker puts at high risk (:func:`exposed_people`),
    with the number of observations that does it, in the officer's words."""
    count, population = exposed["count"], exposed["population"]
    k_star = exposed.get("min_observations")
    if k_star is None or count == 0:
        return (f"None of the {population:,} people is seen often enough for even the best "
                "possible attacker to reach the high-risk line.")
    seen = "in any" if k_star == 1 else f"in {k_star:,} or more"
    return (f"{count:,} of {population:,} people are at high risk: the best possible attacker "
            f"reaches the verdict's high-risk line for anyone seen {seen} of the released "
            "counts.")
