"""The fitted-model interface every attack reads, and the MLP that implements it.

Every fitted model answers ``predict_proba(X) -> (n, k) float64`` (rows sum to 1, one column
per class even if the training rows missed a class), ``predict``, ``accuracy`` and
``confidence_logit`` (LiRA's log(p_y / (1 − p_y))); ``logits(X)`` where the family has them
(MLP, logistic regression, gradient boosting; ``None`` for a random forest). Nothing is
pickled: an MLP's weights come out as plain arrays (:meth:`MLPModel.state_arrays`).

Its own module so that the trainers (engine.models.train, engine.models.sklearn_models,
engine.models.batched) all import it from below, with no circle between them.
"""

from __future__ import annotations

import numpy as np

from engine.models.mlp import predict_logits
from engine.models.spec import TrainingSpec
from engine.runtime import device as default_device

# torch is imported inside the functions that use it: heavy, and needed only when a model
# trains or is read (docs/dev/layers.md).


class FittedModel:
    """A trained classifier over ``n_classes`` classes (labels 0 … k−1)."""

    family: str = ""
    has_logits: bool = False

    def __init__(self, spec: TrainingSpec, n_classes: int, n_features: int,
                 details: dict | None = None) -> None:
        self.spec = spec
        self.n_classes = int(n_classes)
        self.n_features = int(n_features)
        self.details: dict = dict(details or {})

    # subclasses implement _proba and, when has_logits, _logits
    def _proba(self, X: np.ndarray) -> np.ndarray:  # pragma: no cover - abstract
        raise NotImplementedError

    def _logits(self, X: np.ndarray) -> np.ndarray:  # pragma: no cover - abstract
        raise NotImplementedError

    def predict_proba(self, X) -> np.ndarray:
        """Class probabilities ``(n, k)``, float64, each row summing to 1."""
        return self._proba(self._check_x(X))

    def logits(self, X) -> np.ndarray | None:
        """Scores ``(n, k)`` whose softmax is :meth:`predict_proba`, or ``None``."""
        if not self.has_logits:
            return None
        return self._logits(self._check_x(X))

    def predict(self, X) -> np.ndarray:
        return np.argmax(self.predict_proba(X), axis=1).astype(np.int64)

    def accuracy(self, X, y) -> float:
        y = np.asarray(y)
        return float(np.mean(self.predict(X) == y)) if y.size else float("nan")

    def confidence_logit(self, X, y) -> np.ndarray:
        """log(p_y / (1 − p_y)) per row (LiRA's statistic), from the logits where there are
        some (exact in the tails), else from probabilities clipped to [1e-15, 1 − 1e-15]."""
        y = np.asarray(y, dtype=np.int64)
        if self.has_logits:
            return confidence_logit_from_logits(self.logits(X), y)
        return confidence_logit_from_proba(self.predict_proba(X), y)

    def _check_x(self, X) -> np.ndarray:
        return feature_matrix(X, self.n_features)

    def describe(self) -> str:
        return self.spec.describe()


def feature_matrix(X, n_features: int) -> np.ndarray:
    """``X`` as an array, checked to be records × ``n_features`` encoded features: the one
    check (and sentence) for every fitted model, single or batched, before it predicts."""
    X = np.asarray(X)
    if X.ndim != 2 or X.shape[1] != n_features:
        raise ValueError(f"The model expects {n_features} feature columns (one row per record); "
                         f"got an array of shape {X.shape}.")
    return X


def confidence_logit_from_logits(z: np.ndarray, y: np.ndarray) -> np.ndarray:
    """z_y − log Σ_{j≠y} e^{z_j} over the last axis; ``y`` broadcasts against ``z[..., 0]``."""
    z = np.asarray(z, dtype=np.float64)
    y = np.broadcast_to(np.asarray(y, dtype=np.int64), z.shape[:-1])
    zy = np.take_along_axis(z, y[..., None], axis=-1)[..., 0]
    others = z.copy()
    np.put_along_axis(others, y[..., None], -np.inf, axis=-1)
    top = others.max(axis=-1)
    lse = top + np.log(np.exp(others - top[..., None]).sum(axis=-1))
    return zy - lse


def confidence_logit_from_proba(p: np.ndarray, y: np.ndarray, eps: float = 1e-15) -> np.ndarray:
    p = np.asarray(p, dtype=np.float64)
    y = np.broadcast_to(np.asarray(y, dtype=np.int64), p.shape[:-1])
    py = np.clip(np.take_along_axis(p, y[..., None], axis=-1)[..., 0], eps, 1.0 - eps)
    return np.log(py) - np.log1p(-py)


def softmax(z: np.ndarray) -> np.ndarray:
    """Row softmax over the last axis, float64, rows summing to 1."""
    z = np.asarray(z, dtype=np.float64)
    e = np.exp(z - z.max(axis=-1, keepdims=True))
    return e / e.sum(axis=-1, keepdims=True)


class MLPModel(FittedModel):
    """A torch MLP: ``params`` is ``[(W (in, out), b (out,)), …]`` on ``device``."""

    family = "mlp"
    has_logits = True

    def __init__(self, spec: TrainingSpec, n_classes: int, params: list, device: str,
                 details: dict | None = None) -> None:
        super().__init__(spec, n_classes, int(params[0][0].shape[0]), details)
        self.params = params
        self.device = str(device)
        self.activation = spec.resolved().activation

    def _logits(self, X):
        stacked = [(w.unsqueeze(0), b.unsqueeze(0)) for w, b in self.params]
        return predict_logits(stacked, self.activation, X)[0]

    def _proba(self, X):
        return softmax(self._logits(X))

    def state_arrays(self) -> dict[str, np.ndarray]:
        """Weights as float32 arrays ``W0, b0, W1, …`` (W of shape (in, out)): save them with
        ``np.savez`` and load with ``allow_pickle=False``."""
        out = {}
        for i, (w, b) in enumerate(self.params):
            out[f"W{i}"] = w.detach().cpu().numpy().astype(np.float32)
            out[f"b{i}"] = b.detach().cpu().numpy().astype(np.float32)
        return out

    @classmethod
    def from_state_arrays(cls, spec: TrainingSpec, arrays: dict, *, device: str | None = None,
                          details: dict | None = None) -> MLPModel:
        import torch  # heavy: only when an exported model is read back

        dev = torch.device(device or default_device())
        layers = len([k for k in arrays if k.startswith("W")])
        params = [(torch.as_tensor(np.asarray(arrays[f"W{i}"], dtype=np.float32)).to(dev),
                   torch.as_tensor(np.asarray(arrays[f"b{i}"], dtype=np.float32)).to(dev))
                  for i in range(layers)]
        return cls(spec, int(params[-1][0].shape[1]), params, str(dev), details)


def check_training_data(X, y, n_classes: int, soft_targets=None):
    """(X float32 (n, d), y int64 (n,), soft float32 (n, k) or None), or ValueError."""
    X = np.asarray(X)
    y = np.asarray(y)
    if X.ndim != 2:
        raise ValueError(f"Features must be a table (rows × columns); got shape {X.shape}.")
    if y.ndim != 1 or y.shape[0] != X.shape[0]:
        raise ValueError(f"There must be one label per row: {X.shape[0]} rows, labels of shape "
                         f"{y.shape}.")
    if X.shape[0] == 0:
        raise ValueError("There are no training rows.")
    if int(n_classes) < 2:
        raise ValueError(f"A classifier needs at least 2 classes; got {n_classes}.")
    if not np.issubdtype(y.dtype, np.integer):
        if not np.all(np.equal(np.mod(y, 1), 0)):
            raise ValueError("Labels must be class numbers 0 … k−1.")
    y = y.astype(np.int64)
    if y.min() < 0 or y.max() >= n_classes:
        raise ValueError(f"Labels must lie in 0 … {n_classes - 1}; found {y.min()} … {y.max()}.")
    X = np.ascontiguousarray(X, dtype=np.float32)
    if not np.isfinite(X).all():
        raise ValueError("The features contain missing or infinite values; impute or drop them "
                         "before training.")
    soft = None
    if soft_targets is not None:
        soft = np.ascontiguousarray(soft_targets, dtype=np.float32)
        if soft.shape != (X.shape[0], int(n_classes)):
            raise ValueError(f"Soft targets must have shape ({X.shape[0]}, {n_classes}); got "
                             f"{soft.shape}.")
        if not np.isfinite(soft).all() or (soft < 0).any() or \
                not np.allclose(soft.sum(axis=1), 1.0, atol=1e-3):
            raise ValueError("Soft targets must be probabilities: non-negative rows summing to 1.")
    return X, y, soft


def check_spec_supported(spec: TrainingSpec) -> None:
    if spec.clip_norm is not None or spec.noise_multiplier is not None:
        raise NotImplementedError("DP-SGD (clip_norm / noise_multiplier) trains with its privacy "
                                  "accountant: use engine.defences.dp_sgd.")
