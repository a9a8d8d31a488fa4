"""``train_model``: one model of any family, returned as a fitted model
(engine.models.fitted: the interface every attack reads)."""

from __future__ import annotations

import time

import numpy as np

from engine.models.fitted import FittedModel, MLPModel, check_spec_supported, check_training_data
from engine.models.mlp import train_stacked
from engine.models.sklearn_models import fit_sklearn
from engine.models.spec import TrainingSpec
from engine.runtime import NEVER, NO_PROGRESS, CancelToken, Progress
from engine.runtime import device as default_device


def train_model(spec: TrainingSpec, X, y, n_classes: int, *, device: str | None = None,
                soft_targets=None, progress: Progress = NO_PROGRESS,
                cancel: CancelToken = NEVER) -> FittedModel:
    """Train one model of ``spec.family`` on (X, y) and return it fitted.

    X: (n, d) numbers (cast to float32); y: (n,) labels in 0 … n_classes−1. ``device``: the
    torch device for an MLP (default :func:`engine.runtime.device`; ignored by scikit-learn).
    ``soft_targets``: (n, k) probabilities for distillation (MLP only; see
    ``TrainingSpec.soft_label_weight``). Deterministic for a given spec, data and device.
    ``details`` of the result: ``runtime_s``, ``device``, ``n_train`` and a training
    ``history`` (MLP: mean loss per epoch).
    """
    spec = spec.resolved()
    check_spec_supported(spec)
    X, y, soft = check_training_data(X, y, n_classes, soft_targets)
    start = time.perf_counter()
    if spec.family == "mlp":
        dev = device or default_device()
        params, history = train_stacked(spec, X, y, n_classes, [np.arange(X.shape[0])],
                                        [spec.seed], device=dev, soft_targets=soft,
                                        progress=progress, cancel=cancel)
        details = {"runtime_s": time.perf_counter() - start, "device": str(dev),
                   "n_train": int(X.shape[0]), "history": {"loss": history["loss"][0]}}
        return MLPModel(spec, n_classes, [(w[0], b[0]) for w, b in params], str(dev), details)
    if soft is not None:
        raise ValueError("Soft targets (distillation) need the MLP family.")
    model = fit_sklearn(spec, X, y, n_classes, progress=progress, cancel=cancel)
    model.details.update({"runtime_s": time.perf_counter() - start, "device": "cpu",
                          "n_train": int(X.shape[0])})
    return model
