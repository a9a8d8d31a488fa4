"""The stochastic module's classifier (paper 003 §4.3 and §7.1; moved out of
engine/attacks/aggregates/desia_stochastic.py, issue 33 item 2): a fresh scikit-learn model per
target, trained on 2/3 of the shadow datasets, validated on the rest, then asked about the
release. scikit-learn is imported inside the functions, when a model trains.
"""

from __future__ import annotations

import numpy as np

from engine.data.errors import InputError, given_value
from engine.metrics import auc_score
from engine.runtime import NEVER, CancelToken, rng

MODELS = ("logistic", "mlp", "random_forest", "svm")
LOGISTIC_CS = (0.01, 0.1, 1.0, 10.0)   # grid of inverse L2 penalties
TRAIN_FRACTION = 2.0 / 3.0                                      # §4.3: 2/3 train, 1/3 validate


def check_model(model: str) -> str:
    if model not in MODELS:
        raise InputError(f"Unknown stochastic-module model {given_value(model)}; choose one of "
                         f"{', '.join(MODELS)} (paper 003 §4.3 and §7.1).", key="model")
    return model


def make_model(model: str, seed: int):
    """A fresh scikit-learn classifier for ``model`` (§4.3 and §7.1), standardised inputs."""
    from sklearn.pipeline import make_pipeline
    from sklearn.preprocessing import StandardScaler

    check_model(model)
    state = int(rng(seed, "desia-model", model).integers(0, 2**31 - 1))
    if model == "logistic":
        from sklearn.linear_model import LogisticRegressionCV
        from sklearn.model_selection import StratifiedKFold
        clf = LogisticRegressionCV(Cs=list(LOGISTIC_CS),
                                   cv=StratifiedKFold(3, shuffle=True, random_state=state),
                                   scoring="neg_log_loss", max_iter=1000, tol=1e-3,
                                   l1_ratios=(0.0,), use_legacy_attributes=False)
    elif model == "mlp":
        from sklearn.neural_network import MLPClassifier
        clf = MLPClassifier(hidden_layer_sizes=(50, 20), max_iter=300, early_stopping=True,
                            random_state=state)
    elif model == "random_forest":
        from sklearn.ensemble import RandomForestClassifier
        clf = RandomForestClassifier(n_estimators=100, criterion="gini", max_features="sqrt",
                                     random_state=state)
    else:
        from sklearn.svm import SVC
        clf = SVC(kernel="rbf", probability=True, random_state=state)
    return make_pipeline(StandardScaler(), clf)


def _pooled_auc(proba: np.ndarray, y: np.ndarray, k: int) -> float:
    """One-vs-rest AUC pooled over classes: score = P(value), positive = has the value
    (ARCHITECTURE §5); for two classes this is the usual AUC of P(class 1)."""
    if k == 2:
        if y.min() == y.max():
            return float("nan")
        return auc_score(proba[:, 1], y == 1)
    onehot = np.zeros_like(proba, dtype=bool)
    onehot[np.arange(y.size), y] = True
    return auc_score(proba.ravel(), onehot.ravel())


def _full_proba(clf, x: np.ndarray, k: int) -> np.ndarray:
    """predict_proba with one column per label 0..k−1 (labels unseen in training get 0)."""
    p = clf.predict_proba(x)
    out = np.zeros((x.shape[0], k))
    out[:, np.asarray(clf.classes_, dtype=np.int64)] = p
    return out


def train_and_predict(x: np.ndarray, y: np.ndarray, released: np.ndarray, k: int, *,
                      model: str, seed: int, cancel: CancelToken = NEVER,
                      also: np.ndarray | None = None) -> dict:
    """Train on the first 2/3 of the shadows, validate on the last 1/3 (§4.3), predict the
    release. Returns probabilities (k,), validation accuracy and pooled AUC. ``also``: a
    second release to score with the same classifier (``also_probabilities``) — the release
    as actually published, for the real-people figure of issue 32 item 1: the shadows and
    the classifier depend only on the target's quasi-identifiers, not on the release read."""
    n_train = int(round(TRAIN_FRACTION * x.shape[0]))
    xt, yt, xv, yv = x[:n_train], y[:n_train], x[n_train:], y[n_train:]
    if x.shape[1] == 0 or np.unique(yt).size < 2:
        # Nothing to learn from: no released query can count the target (or one label only).
        prior = np.bincount(yt, minlength=k).astype(float)
        prior = prior / prior.sum() if prior.sum() else np.full(k, 1.0 / k)
        pv = np.repeat(prior[None, :], len(yv), axis=0)
        out = {"probabilities": prior,
               "validation_accuracy": float(np.mean(yv == prior.argmax()))
               if len(yv) else float("nan"), "validation_auc": 0.5, "n_train": n_train,
               "n_validation": int(len(yv)), "fitted": False, "_val_proba": pv}
        if also is not None:
            out["also_probabilities"] = prior.copy()
        return out
    cancel.check()
    clf = make_model(model, seed)
    import warnings

    from sklearn.exceptions import ConvergenceWarning
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", ConvergenceWarning)
        clf.fit(xt.astype(np.float64), yt)
    cancel.check()
    pv = _full_proba(clf, xv.astype(np.float64), k)
    p = _full_proba(clf, np.asarray(released, dtype=np.float64).reshape(1, -1), k)[0]
    out = {"probabilities": p, "validation_accuracy": float(np.mean(pv.argmax(axis=1) == yv)),
           "validation_auc": _pooled_auc(pv, yv, k), "n_train": n_train,
           "n_validation": int(len(yv)), "fitted": True, "_val_proba": pv}
    if also is not None:
        out["also_probabilities"] = _full_proba(
            clf, np.asarray(also, dtype=np.float64).reshape(1, -1), k)[0]
    if model == "logistic":
        out["l2_C"] = float(np.ravel(clf[-1].C_)[0])  # chosen by cross-validation
    return out

