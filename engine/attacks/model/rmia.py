"""Robust membership inference attack, RMIA (Zarifzadeh, Liu, Chang & Shokri 2024, "Low-cost
high-power membership inference attacks"; issue 8: the strongest attack beside LiRA).

For a record x with true label y, Pr(x | θ) = p_θ(y | x), the probability the model gives the
true label. RMIA compares the audited model θ with reference models θ' through the likelihood
ratio

    LR(x) = Pr(x | θ) / Pr(x),   Pr(x) = E_θ'[Pr(x | θ')],

and tests it against population records z (records the audited model did not see):

    score(x) = #{z : LR(x) / LR(z) > γ} / #z,

the share of population records that x "dominates" by a factor γ. A member is fitted better by θ
than by the average reference model, so it dominates more z's.

* online: Pr(x) is the average over all reference models (each trained on a random half of a
  pool containing the records, so about half are "in" for x);
* offline: only models that did not train on x are used, and the missing "in" half is
  approximated linearly: Pr(x) = ½((1 + a)·Pr_OUT(x) + (1 − a)), with a ∈ [0, 1] tuned by
  letting one reference model play the target (the value giving the best AUC against its own
  in/out records) when ``a`` is not given. A record that every reference model trained on has
  no OUT estimate and uses the online average (the details count such records).

The z's are scored with the same formula as x (offline: from the models that did not train on
z), so a non-member x and the z's are exchangeable and a non-member's score is uniform on [0, 1]
whatever its difficulty. Memory: the counts come from one sort of the z's and a binary search per
x — O((n + n_z) log n_z) time, no (n, n_z) matrix.
"""

from __future__ import annotations

import numpy as np

from engine.attacks.model.base import (
    PROB_FLOOR,
    ModelOutputs,
    ReferenceOutputs,
    best_threshold,
    true_class_prob,
)
from engine.attacks.outcome import AttackOutcome
from engine.metrics import auc_score

DEFAULT_GAMMA = 2.0
DEFAULT_A = 0.3          # used only when a cannot be tuned (fewer than 2 reference models)
A_GRID = np.round(np.linspace(0.0, 1.0, 11), 2)


def reference_likelihood(ref_p: np.ndarray, ref_in: np.ndarray | None, *, online: bool,
                         a: float) -> np.ndarray:
    """Pr(x) per record from the references' true-class probabilities ``ref_p`` (R, n)."""
    if online or ref_in is None:
        mean = ref_p.mean(axis=0)
        if online:
            return mean
        out_mean = mean
    else:
        out = ~np.asarray(ref_in, dtype=bool)
        cnt = out.sum(axis=0)
        out_mean = np.divide(np.where(out, ref_p, 0.0).sum(axis=0), cnt,
                             out=np.zeros(cnt.shape), where=cnt > 0)
        pr = 0.5 * ((1.0 + a) * out_mean + (1.0 - a))
        # A record every reference model trained on (probability 2^−R with random halves) has
        # no OUT estimate: use the average over all models, as online.
        return np.where(cnt > 0, pr, ref_p.mean(axis=0))
    return 0.5 * ((1.0 + a) * out_mean + (1.0 - a))


def log_ratio(p_target: np.ndarray, ref_p: np.ndarray, ref_in, *, online: bool,
              a: float) -> np.ndarray:
    """log LR = log Pr(x | θ) − log Pr(x), both floored at PROB_FLOOR (finite for p = 0, 1)."""
    pr = reference_likelihood(ref_p, ref_in, online=online, a=a)
    return np.log(np.maximum(p_target, PROB_FLOOR)) - np.log(np.maximum(pr, PROB_FLOOR))


def dominated_fraction(log_lr_x: np.ndarray, log_lr_z: np.ndarray, gamma: float,
                       chunk: int = 1 << 20) -> np.ndarray:
    """#{z : LR(x)/LR(z) > γ} / #z for every x, without an (n, n_z) matrix: sort the z's once,
    then LR(x)/LR(z) > γ ⇔ log LR(z) < log LR(x) − log γ is a binary search per x (in chunks
    of x so even the index array stays bounded)."""
    lz = np.sort(np.asarray(log_lr_z, dtype=np.float64))
    lx = np.asarray(log_lr_x, dtype=np.float64)
    out = np.empty(lx.size)
    lg = np.log(gamma)
    for s in range(0, lx.size, chunk):
        out[s: s + chunk] = np.searchsorted(lz, lx[s: s + chunk] - lg, side="left")
    return out / lz.size


def _tune_a(p_pseudo, ref_p, ref_in, member_pseudo) -> tuple[float, list]:
    """Offline a: the grid value whose log LR separates the pseudo-target's in/out best (AUC;
    the score is a monotone function of log LR for fixed z, so z is not needed here)."""
    aucs = []
    for a in A_GRID:
        lr = log_ratio(p_pseudo, ref_p, ref_in, online=False, a=float(a))
        aucs.append(auc_score(lr, member_pseudo))
    return float(A_GRID[int(np.argmax(aucs))]), [float(v) for v in aucs]


def attack(target: ModelOutputs, refs: ReferenceOutputs, *, online: bool = False,
           a: float | None = None, gamma: float = DEFAULT_GAMMA,
           population: tuple[ModelOutputs, ReferenceOutputs] | None = None,
           threshold_model: int = 0) -> AttackOutcome:
    """RMIA on the audited outputs.

    ``population``: (the audited model's outputs on the z's, the reference models' outputs on
    the z's with their membership) — records from the population that the audited model did not
    train on. Without it the audited records themselves serve as z (their membership is never
    read; as the score is a monotone function of LR(x) for a fixed set of z's, this changes the
    scale of the scores, not the ROC).
    """
    if refs.probs.shape[1] != target.n:
        raise ValueError("reference outputs must be on the same records as the target")
    ref_p = true_class_prob(refs.probs, target.labels).astype(np.float64)   # (R, n)
    p_t = true_class_prob(target.probs, target.labels).astype(np.float64)
    if population is None:
        z_p_t, z_ref_p, z_ref_in = p_t, ref_p, refs.member
        z_source = "the audited records (membership not read)"
    else:
        z_out, z_refs = population
        z_p_t = true_class_prob(z_out.probs, z_out.labels).astype(np.float64)
        z_ref_p = true_class_prob(z_refs.probs, z_out.labels).astype(np.float64)
        z_ref_in = z_refs.member
        z_source = "population records"
    details = {"paper": "Zarifzadeh et al. 2024 (RMIA); issue 8",
               "statistic": "Pr(y | x) under the model / its average under reference models, "
                            "compared with population records z",
               "mode": "online" if online else "offline", "gamma": float(gamma),
               "reference_models": refs.n_models, "population": z_source,
               "n_population": int(z_p_t.size)}

    r = refs.n_models
    can_simulate = r >= (2 if not online else 3)
    keep = np.arange(r) != threshold_model
    if not online:
        if a is None and can_simulate:
            a, aucs = _tune_a(ref_p[threshold_model], ref_p[keep], refs.member[keep],
                              refs.member[threshold_model])
            details["a_source"] = (f"tuned on reference model {threshold_model} as the target "
                                   "(AUC over a = 0, 0.1, …, 1)")
            details["a_grid_auc"] = aucs
        elif a is None:
            a = DEFAULT_A
            details["a_source"] = "default (too few reference models to tune it)"
        else:
            details["a_source"] = "given"
        details["a"] = float(a)
    a_val = float(a) if a is not None else 1.0

    if not online:
        details["records_without_out_models"] = int(np.sum(refs.member.all(axis=0)))
    lx = log_ratio(p_t, ref_p, refs.member, online=online, a=a_val)
    lz = log_ratio(z_p_t, z_ref_p, z_ref_in, online=online, a=a_val)
    scores = dominated_fraction(lx, lz, gamma)

    if can_simulate:
        # The pseudo-target's z's: its own outputs on the population, the others as references.
        if population is None:
            pz_t, pz_ref, pz_in = ref_p[threshold_model], ref_p[keep], refs.member[keep]
        else:
            pz_t, pz_ref, pz_in = (z_ref_p[threshold_model], z_ref_p[keep],
                                   None if z_ref_in is None else z_ref_in[keep])
        px = log_ratio(ref_p[threshold_model], ref_p[keep], refs.member[keep], online=online,
                       a=a_val)
        pzz = log_ratio(pz_t, pz_ref, pz_in, online=online, a=a_val)
        threshold = best_threshold(dominated_fraction(px, pzz, gamma),
                                   refs.member[threshold_model])
        details["threshold_source"] = (f"reference model {threshold_model} as the target "
                                       "(balanced accuracy on its own in/out records)")
    else:
        threshold = 0.5
        details["threshold_source"] = "½ (too few reference models to simulate a target)"
    name = "rmia_online" if online else "rmia_offline"
    label = f"RMIA {'online' if online else 'offline'} (Zarifzadeh et al. 2024)"
    return AttackOutcome(name, label, scores, float(threshold), details, raw=lx)
