"""Shadow-model attack of Shokri et al. 2017 (paper 001 "SMA"; paper 004 §4.4.1).

The attacker trains shadow models that imitate the target (same architecture and training,
data from the same population; paper 001 used 10 shadow models) and records their outputs on
their own training records ("in") and on held-out records ("out"). For each class c one attack
model learns P(member | prediction vector) from the shadow records of true class c; the audited
model's output on a record of class c is then scored by attack model c. Paper 001's settings:
attack networks with two hidden layers of 50 ReLU units.

The per-class networks are trained together as stacked weights (one batched matrix product per
layer for all classes; base.fit_group_mlps), on the GPU when one is given. A class with fewer
than ``min_class_records`` shadow members or non-members is scored by one global attack model
on the sorted prediction vector (trained on all shadow records), and the details say how many.
Threshold: ½ on P(member), the balanced-accuracy rule of classifiers trained with members and
non-members weighted equally — chosen without the audited records.
"""

from __future__ import annotations

import numpy as np

from engine.attacks.model.base import (
    ModelOutputs,
    balanced_weights,
    fit_group_mlps,
    predict_group_mlps,
)
from engine.attacks.outcome import AttackOutcome

LABEL = "Shadow-model attack, one attack model per class (Shokri et al. 2017; paper 001 SMA)"
MIN_CLASS_RECORDS = 20
HIDDEN = (50, 50)


def _pad_groups(x: np.ndarray, groups: list[np.ndarray]):
    """Stack the rows of each group into (G, N_max, d) with a (G, N_max) validity mask."""
    n_max = max((g.size for g in groups), default=0)
    out = np.zeros((len(groups), max(n_max, 1), x.shape[1]), dtype=np.float32)
    mask = np.zeros((len(groups), max(n_max, 1)), dtype=bool)
    for i, g in enumerate(groups):
        out[i, : g.size] = x[g]
        mask[i, : g.size] = True
    return out, mask


def attack(target: ModelOutputs, shadow: ModelOutputs, *, hidden=HIDDEN, epochs: int = 300,
           min_class_records: int = MIN_CLASS_RECORDS, seed: int = 0, device: str = "cpu",
           cancel=None) -> AttackOutcome:
    member = shadow.require_membership("shadow outputs for the Shokri attack")
    if target.n_classes != shadow.n_classes:
        raise ValueError("target and shadow outputs have different numbers of classes")
    k = shadow.n_classes
    counts = np.zeros((k, 2), dtype=np.int64)
    np.add.at(counts, (shadow.labels, member.astype(np.int64)), 1)
    own = np.nonzero(counts.min(axis=1) >= min_class_records)[0]

    scores = np.zeros(target.n)
    t_groups = [np.nonzero(target.labels == c)[0] for c in own]
    if own.size:
        s_groups = [np.nonzero(shadow.labels == c)[0] for c in own]
        xs, mask = _pad_groups(shadow.probs, s_groups)
        ys = np.zeros(mask.shape)
        ws = np.zeros(mask.shape)
        for i, g in enumerate(s_groups):
            ys[i, : g.size] = member[g]
            ws[i, : g.size] = balanced_weights(member[g])
        model = fit_group_mlps(xs, ys, ws, hidden=hidden, epochs=epochs, seed=seed,
                               device=device, cancel=cancel)
        xt, _ = _pad_groups(target.probs, t_groups)
        pt = predict_group_mlps(model, xt)
        for i, g in enumerate(t_groups):
            scores[g] = pt[i, : g.size]

    covered = np.isin(target.labels, own)
    n_fallback_classes = int(k - own.size)
    if not covered.all():
        # One label-agnostic model on the sorted vector for the thin classes.
        xs = np.sort(shadow.probs, axis=1)[:, ::-1]
        model = fit_group_mlps(xs[None], member[None].astype(np.float64),
                               balanced_weights(member)[None], hidden=hidden, epochs=epochs,
                               seed=seed + 1, device=device, cancel=cancel)
        rest = np.nonzero(~covered)[0]
        xt = np.sort(target.probs[rest], axis=1)[:, ::-1]
        scores[rest] = predict_group_mlps(model, xt[None])[0]

    return AttackOutcome("shokri", LABEL, scores, 0.5, {
        "paper": "001 §Experimental Setup (SMA), Shokri et al. 2017; 004 §4.4.1",
        "features": "the model's probability vector",
        "attack_model": f"MLP {list(hidden)} ReLU per class, full-batch Adam, {epochs} epochs",
        "threshold_source": "½ on P(member) of per-class classifiers trained on shadow outputs "
                            "with members and non-members weighted equally",
        "shadow_records": shadow.n,
        "shadow_models": (int(np.unique(shadow.group).size) if shadow.group is not None
                          else None),
        "classes_with_own_model": int(own.size),
        "classes_using_global_model": n_fallback_classes,
        "min_class_records": int(min_class_records),
        "target_records_scored_by_global_model": int((~covered).sum()),
    })
