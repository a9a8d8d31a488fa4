"""Attribute inference from a model's outputs, always beside a data-only baseline (issue 8).

The attacker wants a sensitive feature s of a record (e.g. a diagnosis) and knows some of the
record's other features; it also sees the model's output on the record. It trains a classifier
on its own data (records where it knows s) to predict s from the model's outputs and the known
features, and compares it with the same classifier trained on the known features alone. What the
model leaks about s is the difference between the two — a high accuracy that the baseline
matches is a property of the data, not of the model (the lesson of paper 003's data-only
baselines).

Features from the model: log-probabilities (floored at PROB_FLOOR), which separate confident
outputs better than raw probabilities. Classifiers (scikit-learn): ``"logistic"`` (standardised
features, multinomial) or ``"boosting"`` (histogram gradient boosting).
"""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np

from engine.attacks.model.base import PROB_FLOOR

CLASSIFIERS = ("logistic", "boosting")
LABEL = "Attribute inference from the model's outputs (with a data-only baseline)"


@dataclass(frozen=True)
class AttributeData:
    """Records as the attacker sees them."""

    known: np.ndarray | None          # (n, d) numeric known features (already encoded) or None
    probs: np.ndarray                 # (n, k) the model's outputs on these records
    sensitive: np.ndarray | None      # (n,) the sensitive values (attacker data: known;
                                      #       audited records: evaluation truth only)


@dataclass
class AttributeOutcome:
    name: str
    label: str
    classes: np.ndarray               # (V,) the sensitive values, in column order
    proba_model: np.ndarray           # (n, V) P(s = v) using the model's outputs (+ known)
    proba_baseline: np.ndarray        # (n, V) P(s = v) from the known features alone
    details: dict = field(default_factory=dict)

    def predictions(self, which: str = "model") -> np.ndarray:
        p = self.proba_model if which == "model" else self.proba_baseline
        return self.classes[np.argmax(p, axis=1)]

    def scores(self, which: str = "model", positive=None) -> np.ndarray:
        """Binary sensitive feature: P(s = positive) (default: the second class) as the score
        for the metric layer (higher = "has the sensitive value")."""
        p = self.proba_model if which == "model" else self.proba_baseline
        col = 1 if positive is None else int(np.nonzero(self.classes == positive)[0][0])
        return p[:, col]

    def one_vs_rest(self, truth, which: str = "model"):
        """Pooled one-vs-rest trials for a many-valued feature: (scores, labels, clusters) with
        one trial per (record, value); pass ``clusters`` to engine.metrics.clustered_auc_ci —
        a record's trials share its output and are not independent."""
        p = self.proba_model if which == "model" else self.proba_baseline
        truth = np.asarray(truth)
        n, v = p.shape
        labels = (truth[:, None] == self.classes[None, :]).reshape(-1)
        return p.reshape(-1), labels, np.repeat(np.arange(n), v)


def _features(d: AttributeData, use_model: bool) -> np.ndarray:
    cols = []
    if d.known is not None:
        cols.append(np.asarray(d.known, dtype=np.float64).reshape(len(d.probs), -1))
    if use_model:
        cols.append(np.log(np.maximum(np.asarray(d.probs, dtype=np.float64), PROB_FLOOR)))
    if not cols:
        return np.zeros((len(d.probs), 1))          # no known features: the prior only
    return np.hstack(cols)


def _classifier(kind: str, seed: int):
    if kind == "logistic":
        from sklearn.linear_model import LogisticRegression
        from sklearn.pipeline import make_pipeline
        from sklearn.preprocessing import StandardScaler

        return make_pipeline(StandardScaler(), LogisticRegression(max_iter=2000))
    if kind == "boosting":
        from sklearn.ensemble import HistGradientBoostingClassifier

        return HistGradientBoostingClassifier(random_state=seed)
    raise ValueError(f"unknown classifier {kind!r}; choose from {CLASSIFIERS}")


def _fit_predict(kind, seed, x_train, s_train, x_test, classes):
    clf = _classifier(kind, seed)
    clf.fit(x_train, s_train)
    p = clf.predict_proba(x_test)
    out = np.zeros((x_test.shape[0], classes.size))
    cols = np.searchsorted(classes, clf.classes_)
    out[:, cols] = p
    return out


def attack(attacker: AttributeData, targets: AttributeData, *, classifier: str = "logistic",
           seed: int = 0) -> AttributeOutcome:
    """Train on the attacker's records, predict the audited records' sensitive values, with and
    without the model's outputs. ``targets.sensitive`` is not read."""
    if attacker.sensitive is None:
        raise ValueError("the attacker's records need their sensitive values")
    s = np.asarray(attacker.sensitive)
    classes = np.unique(s)
    if classes.size < 2:
        raise ValueError("the sensitive feature takes one value in the attacker's data")
    with_model = _fit_predict(classifier, seed, _features(attacker, True), s,
                              _features(targets, True), classes)
    baseline = _fit_predict(classifier, seed, _features(attacker, False), s,
                            _features(targets, False), classes)
    return AttributeOutcome("attribute_inference", LABEL, classes, with_model, baseline, {
        "classifier": classifier,
        "features_model": "log-probabilities of the model" + (
            " + known features" if attacker.known is not None else ""),
        "features_baseline": ("known features" if attacker.known is not None
                              else "none (the attacker's prior)"),
        "attacker_records": int(s.size),
        "values": [str(c) for c in classes],
    })
