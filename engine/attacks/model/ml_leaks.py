"""ML-Leaks adversary 1 (Salem et al. 2019; paper 004 §4.4.1, "NN-based attack").

One attack classifier for all classes (Shokri et al. train one per class: :mod:`shadow`),
whose input is the model's top posteriors sorted in decreasing order — the top 3 by default,
Salem et al.'s choice: the rest adds little and the sorted vector makes the classifier
label-agnostic. It is trained on shadow outputs with known membership (members and
non-members weighted equally) and applied to the audited outputs; its threshold is ½ on the
predicted P(member), the balanced-accuracy rule of a classifier trained at prior ½, so nothing
is fitted on the audited records.

Classifiers: ``"mlp"`` — one hidden layer of 64 ReLU units (Salem et al.'s attack model size),
trained with full-batch Adam in torch (engine.attacks.model.base.fit_group_mlps);
``"logistic"`` — scikit-learn logistic regression on standardised features.
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

LABEL = "ML-Leaks adversary 1: one attack model on the sorted top posteriors (Salem et al.)"
CLASSIFIERS = ("mlp", "logistic")


def top_posteriors(probs: np.ndarray, top: int = 3) -> np.ndarray:
    """(n, top) largest probabilities in decreasing order (zero-padded when k < top)."""
    p = np.sort(np.asarray(probs, dtype=np.float64), axis=1)[:, ::-1][:, :top]
    if p.shape[1] < top:
        p = np.pad(p, ((0, 0), (0, top - p.shape[1])))
    return p


def fit(shadow: ModelOutputs, *, top: int = 3, classifier: str = "mlp", seed: int = 0,
        device: str = "cpu", epochs: int = 300, cancel=None):
    """The attack classifier, trained on shadow outputs only."""
    member = shadow.require_membership("shadow outputs for ML-Leaks")
    x = top_posteriors(shadow.probs, top)
    w = balanced_weights(member)
    if classifier == "logistic":
        from sklearn.linear_model import LogisticRegression
        from sklearn.pipeline import make_pipeline
        from sklearn.preprocessing import StandardScaler

        model = make_pipeline(StandardScaler(), LogisticRegression(max_iter=1000))
        model.fit(x, member, logisticregression__sample_weight=w)
        return ("logistic", model, top)
    if classifier != "mlp":
        raise ValueError(f"unknown classifier {classifier!r}; choose from {CLASSIFIERS}")
    model = fit_group_mlps(x[None], member[None].astype(np.float64), w[None], hidden=(64,),
                           epochs=epochs, seed=seed, device=device, cancel=cancel)
    return ("mlp", model, top)


def predict(fitted, probs: np.ndarray) -> np.ndarray:
    kind, model, top = fitted
    x = top_posteriors(probs, top)
    if kind == "logistic":
        return model.predict_proba(x)[:, 1]
    return predict_group_mlps(model, x[None])[0]


def attack(target: ModelOutputs, shadow: ModelOutputs, *, top: int = 3,
           classifier: str = "mlp", seed: int = 0, device: str = "cpu", epochs: int = 300,
           cancel=None) -> AttackOutcome:
    fitted = fit(shadow, top=top, classifier=classifier, seed=seed, device=device,
                 epochs=epochs, cancel=cancel)
    scores = predict(fitted, target.probs)
    name = "ml_leaks" if classifier == "mlp" else f"ml_leaks_{classifier}"
    return AttackOutcome(name, LABEL, scores, 0.5, {
        "paper": "004 §4.4.1 (Salem et al. 2019, adversary 1)",
        "features": f"top {top} posteriors, sorted",
        "classifier": classifier,
        "threshold_source": "½ on P(member) of a classifier trained on shadow outputs with "
                            "members and non-members weighted equally",
        "shadow_records": shadow.n,
    })
