"""scikit-learn families: logistic regression, random forest, histogram gradient boosting.

Each is fitted in stages so the cancel button and the progress bar work (``warm_start``):
a forest grows ``CHUNK_TREES`` trees at a time (the trees are the ones a one-shot fit with the
same ``random_state`` would grow), boosting adds ``CHUNK_ITERATIONS`` iterations at a time, and
logistic regression runs L-BFGS ``CHUNK_LBFGS`` iterations at a time from where it stopped,
until it converges or reaches ``max_iter``. ``random_state`` comes from
``engine.runtime.rng(seed, family)``, so the same spec and data give the same model.

Gradient boosting is scikit-learn's histogram-based ``HistGradientBoostingClassifier``
(LightGBM-style; the classic ``GradientBoostingClassifier`` needs minutes for 100 classes on
10,000 rows), with early stopping off so ``n_estimators`` is the number of iterations.
"""

from __future__ import annotations

import warnings
from contextlib import nullcontext

import numpy as np

from engine.models.fitted import FittedModel
from engine.models.spec import TrainingSpec
from engine.runtime import NEVER, NO_PROGRESS, CancelToken, Progress, rng

# scikit-learn and threadpoolctl are imported inside the functions that use them: heavy, and needed only when a model
# trains or is read (docs/dev/layers.md).

CHUNK_TREES = 10
CHUNK_ITERATIONS = 5
CHUNK_LBFGS = 25
_MISSING_CLASS_GAP = 100.0     # logit of a class absent from the training rows: row min − 100
# Below this many feature values, fits run on one thread: OpenMP / joblib hand-offs cost more
# than they save on small tables, and much more on a loaded machine (a 300 × 20 boosting fit:
# 0.13 s on one thread, 2–9 s on two while another process holds a core).
_SMALL_FIT = 2_000_000


class SklearnModel(FittedModel):
    """A fitted scikit-learn estimator, answered in all ``n_classes`` columns."""

    def __init__(self, spec: TrainingSpec, n_classes: int, n_features: int, estimator,
                 details: dict | None = None) -> None:
        super().__init__(spec, n_classes, n_features, details)
        self.estimator = estimator
        self.family = spec.family
        self.has_logits = spec.family in ("logistic", "gradient_boosting")
        self.classes = np.asarray(estimator.classes_, dtype=np.int64)

    def _proba(self, X):
        with _threads_for(X):
            p = np.asarray(self.estimator.predict_proba(X), dtype=np.float64)
        out = np.zeros((p.shape[0], self.n_classes), dtype=np.float64)
        out[:, self.classes] = p
        return out / out.sum(axis=1, keepdims=True)

    def _logits(self, X):
        with _threads_for(X):
            raw = np.asarray(self.estimator.decision_function(X), dtype=np.float64)
        if raw.ndim == 1:                       # two classes: the log-odds of the second
            raw = np.stack([np.zeros_like(raw), raw], axis=1)
        if self.classes.size == self.n_classes:
            return raw
        out = np.empty((raw.shape[0], self.n_classes), dtype=np.float64)
        out[:] = (raw.min(axis=1) - _MISSING_CLASS_GAP)[:, None]
        out[:, self.classes] = raw
        return out


def _threads_for(X):
    """One thread for small tables (see _SMALL_FIT), the library's default otherwise."""
    from threadpoolctl import threadpool_limits

    return threadpool_limits(limits=1) if np.asarray(X).size < _SMALL_FIT else nullcontext()


def _random_state(spec: TrainingSpec) -> int:
    return int(rng(spec.seed, "sklearn", spec.family).integers(0, 2**31 - 1))


def fit_sklearn(spec: TrainingSpec, X: np.ndarray, y: np.ndarray, n_classes: int, *,
                progress: Progress = NO_PROGRESS, cancel: CancelToken = NEVER) -> SklearnModel:
    """Fit ``spec.family`` (resolved spec) on float32 X and int64 y; see the module notes."""
    if np.unique(y).size < 2:
        raise ValueError("The training rows hold only one class; a classifier needs at least "
                         "two. Use more rows or another split.")
    fit = {"logistic": _fit_logistic, "random_forest": _fit_forest,
           "gradient_boosting": _fit_boosting}[spec.family]
    with _threads_for(X):
        estimator, details = fit(spec, X, y, progress, cancel, 1 if X.size < _SMALL_FIT else -1)
    progress(1.0, "Model trained")
    return SklearnModel(spec, n_classes, X.shape[1], estimator, details)


def _fit_logistic(spec, X, y, progress, cancel, n_jobs):
    from sklearn.exceptions import ConvergenceWarning
    from sklearn.linear_model import LogisticRegression

    est = LogisticRegression(C=spec.C, max_iter=CHUNK_LBFGS, warm_start=True)
    done, converged = 0, False
    progress(0.0, "Fitting logistic regression")
    while done < spec.max_iter and not converged:
        cancel.check()
        budget = min(CHUNK_LBFGS, spec.max_iter - done)
        est.set_params(max_iter=budget)
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", ConvergenceWarning)
            est.fit(X, y)
        used = int(np.max(est.n_iter_))
        done += used
        converged = used < budget
        progress(done / spec.max_iter,
                 f"Fitting logistic regression: {done} iterations")
    return est, {"iterations": done, "converged": converged}


def _fit_forest(spec, X, y, progress, cancel, n_jobs):
    from sklearn.ensemble import RandomForestClassifier

    est = RandomForestClassifier(n_estimators=0, max_depth=spec.max_depth, warm_start=True,
                                 random_state=_random_state(spec), n_jobs=n_jobs)
    total = int(spec.n_estimators)
    grown = 0
    progress(0.0, "Growing the random forest")
    while grown < total:
        cancel.check()
        grown = min(total, grown + CHUNK_TREES)
        est.set_params(n_estimators=grown)
        est.fit(X, y)
        progress(grown / total, f"Growing the random forest: {grown} of {total} trees")
    return est, {"trees": grown}


def _fit_boosting(spec, X, y, progress, cancel, n_jobs):
    from sklearn.ensemble import HistGradientBoostingClassifier

    est = HistGradientBoostingClassifier(learning_rate=spec.lr, max_depth=spec.max_depth,
                                         max_iter=1, early_stopping=False, warm_start=True,
                                         random_state=_random_state(spec))
    total = int(spec.n_estimators)
    done = 0
    progress(0.0, "Fitting gradient boosting")
    while done < total:
        cancel.check()
        done = min(total, done + CHUNK_ITERATIONS)
        est.set_params(max_iter=done)
        est.fit(X, y)
        progress(done / total, f"Fitting gradient boosting: {done} of {total} iterations")
    return est, {"iterations": done}
