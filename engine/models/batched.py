"""Many small MLPs at once: shadow and reference models for the membership attacks.

A campaign of R reference models is a list of independent, seeded :class:`ReferenceTask`
(index, seed, training rows) — :func:`reference_tasks` draws one, :func:`tasks_from_masks`
wraps given (R, n) membership masks — so any subset can be trained here, elsewhere, or on a
cluster later, and model r is the same wherever it is trained: :func:`train_many_mlps` on
tasks ``T`` gives, for each t in T, the model ``train_model(replace(spec, seed=t.seed),
X[t.rows], y[t.rows])`` would give (to float rounding).

All R models train as one stack of weights (``engine.models.mlp``): each step is one batched
matrix product per layer over R different mini-batches, so the per-step overhead of Python,
autograd and the optimiser is paid once, not R times, and a GPU runs one big kernel instead of
R small ones. Predictions are streamed over row chunks (``BatchedMLP.predict_proba``,
``confidence_logit``), never holding (R, n, hidden) activations.
"""

from __future__ import annotations

import time
from collections.abc import Sequence
from dataclasses import dataclass, field, replace

import numpy as np

from engine.models.fitted import (
    MLPModel,
    check_spec_supported,
    check_training_data,
    confidence_logit_from_logits,
    feature_matrix,
    softmax,
)
from engine.models.mlp import iter_logits, predict_logits, train_stacked
from engine.models.spec import TrainingSpec
from engine.runtime import NEVER, NO_PROGRESS, CancelToken, Progress, rng
from engine.runtime import device as default_device

# torch is imported inside the functions that use it: heavy, and needed only when a model
# trains or is read (docs/dev/layers.md).

DESIGNS = ("balanced", "fixed_size", "independent")
# On a CPU a stack is trained in groups whose optimiser step stays under this many
# multiply-adds (about 0.15 s on the 2-core reference machine, 0.5 s with other programs
# competing): a step cannot be interrupted, and Cancel must stop a job within 2 s (issue 11).
# Groups are no slower than one stack at this size: the matrices are already large. A GPU
# trains the whole stack at once.
CPU_STEP_MACS = 1e9


@dataclass(frozen=True, eq=False)
class ReferenceTask:
    """One reference model: its ``index`` in the campaign, its own ``seed`` (initial weights
    and batch order) and the sorted training ``rows`` of the shared dataset."""

    index: int
    seed: int
    rows: np.ndarray = field(repr=False)

    def mask(self, n_rows: int) -> np.ndarray:
        out = np.zeros(int(n_rows), dtype=bool)
        out[self.rows] = True
        return out

    def to_dict(self) -> dict:
        return {"index": int(self.index), "seed": int(self.seed),
                "rows": [int(r) for r in self.rows]}

    @classmethod
    def from_dict(cls, data: dict) -> ReferenceTask:
        return cls(int(data["index"]), int(data["seed"]),
                   np.asarray(data["rows"], dtype=np.int64))


def task_seed(seed: int, index: int) -> int:
    """The seed of reference model ``index`` of a campaign seeded ``seed``."""
    return int(rng(seed, "reference", int(index)).integers(0, 2**63 - 1))


def reference_tasks(n_models: int, seed: int, n_rows: int, *, fraction: float = 0.5,
                    design: str = "balanced") -> list[ReferenceTask]:
    """R seeded reference-model tasks over a dataset of ``n_rows`` records.

    ``design``:
    * ``"balanced"`` (LiRA's): every record is in exactly round(fraction·R) models, chosen at
      random per record, so each record has as many IN as OUT models (model sizes vary a
      little around fraction·n);
    * ``"fixed_size"``: each model a uniform random subset of exactly round(fraction·n) rows;
    * ``"independent"``: each (model, record) pair in with probability ``fraction``.
    """
    r, n = int(n_models), int(n_rows)
    if r < 1 or n < 1:
        raise ValueError("A campaign needs at least one model and one record.")
    if not 0 < fraction < 1:
        raise ValueError(f"The training fraction must be in (0, 1), got {fraction}.")
    if design not in DESIGNS:
        raise ValueError(f"Unknown design {design!r}; choose one of {', '.join(DESIGNS)}.")
    if design == "balanced":
        m = int(round(fraction * r))
        if not 0 < m < r:
            raise ValueError(f"With {r} models a balanced design needs a fraction that leaves "
                             "every record in at least one and out of at least one model.")
        ranks = rng(seed, "reference", "design").random((r, n)).argsort(axis=0).argsort(axis=0)
        masks = ranks < m
    elif design == "fixed_size":
        size = max(1, int(round(fraction * n)))
        masks = np.zeros((r, n), dtype=bool)
        for i in range(r):
            masks[i, rng(seed, "reference", "rows", i).choice(n, size=size, replace=False)] = True
    else:
        masks = rng(seed, "reference", "design").random((r, n)) < fraction
    return tasks_from_masks(masks, seed)


def tasks_from_masks(masks, seed: int) -> list[ReferenceTask]:
    """Tasks for given (R, n) boolean membership masks; model r gets ``task_seed(seed, r)``."""
    masks = np.asarray(masks)
    if masks.ndim != 2 or masks.dtype != bool:
        raise ValueError(f"Masks must be a (models, rows) boolean array; got {masks.dtype} of "
                         f"shape {masks.shape}.")
    return [ReferenceTask(i, task_seed(seed, i), np.flatnonzero(masks[i]).astype(np.int64))
            for i in range(masks.shape[0])]


class BatchedMLP:
    """R trained MLPs (stacked weights) and the tasks they were trained on."""

    def __init__(self, spec: TrainingSpec, n_classes: int, n_features: int, tasks, params,
                 device: str, details: dict) -> None:
        self.spec = spec
        self.n_classes = int(n_classes)
        self.n_features = int(n_features)
        self.tasks: list[ReferenceTask] = list(tasks)
        self.params = params
        self.device = str(device)
        self.details = details

    @property
    def n_models(self) -> int:
        return len(self.tasks)

    def _x(self, X) -> np.ndarray:
        return feature_matrix(X, self.n_features)

    def logits(self, X, *, models: Sequence[int] | None = None,
               cancel: CancelToken = NEVER) -> np.ndarray:
        """float64 logits ``(R', n, k)`` (``models``: positions in :attr:`tasks`; default all)."""
        return predict_logits(self.params, self.spec.activation, self._x(X), models=models,
                              cancel=cancel)

    def predict_proba(self, X, *, models: Sequence[int] | None = None,
                      cancel: CancelToken = NEVER) -> np.ndarray:
        """float64 probabilities ``(R', n, k)``, rows summing to 1. The result itself is
        R'·n·k·8 bytes; for LiRA's statistic use :meth:`confidence_logit` ((R', n))."""
        X = self._x(X)
        r = self.n_models if models is None else len(list(models))
        out = np.empty((r, X.shape[0], self.n_classes), dtype=np.float64)
        for lo, hi, z in iter_logits(self.params, self.spec.activation, X, models=models,
                                     cancel=cancel):
            out[:, lo:hi] = softmax(z)
        return out

    def confidence_logit(self, X, y, *, models: Sequence[int] | None = None,
                         cancel: CancelToken = NEVER) -> np.ndarray:
        """log(p_y / (1 − p_y)) ``(R', n)`` from the logits, streamed over row chunks."""
        X = self._x(X)
        y = np.asarray(y, dtype=np.int64)
        r = self.n_models if models is None else len(list(models))
        out = np.empty((r, X.shape[0]), dtype=np.float64)
        for lo, hi, z in iter_logits(self.params, self.spec.activation, X, models=models,
                                     cancel=cancel):
            out[:, lo:hi] = confidence_logit_from_logits(z, y[lo:hi])
        return out

    def membership(self, n_rows: int) -> np.ndarray:
        """(R, n) boolean: row i was in model r's training set."""
        return np.stack([t.mask(n_rows) for t in self.tasks]) if self.tasks else \
            np.zeros((0, int(n_rows)), dtype=bool)

    def at_epoch(self, epoch: int) -> BatchedMLP:
        """The same models as they were after ``epoch`` (one of the ``snapshot_epochs`` they
        were trained with)."""
        snaps = self.details.get("snapshots") or {}
        if int(epoch) not in snaps:
            raise ValueError(f"No snapshot after epoch {epoch}; kept: {sorted(snaps) or 'none'}.")
        details = {**{k: v for k, v in self.details.items() if k != "snapshots"},
                   "history": {"loss": [row[:int(epoch)]
                                        for row in self.details["history"]["loss"]]}}
        return BatchedMLP(replace(self.spec, epochs=int(epoch)), self.n_classes,
                          self.n_features, self.tasks, snaps[int(epoch)], self.device, details)

    def model(self, r: int):
        """Model at position ``r`` as a stand-alone :class:`~engine.models.fitted.MLPModel`."""
        task = self.tasks[r]
        details = {"device": self.device, "n_train": int(task.rows.size),
                   "history": {"loss": self.details["history"]["loss"][r]},
                   "task": task.index}
        return MLPModel(replace(self.spec, seed=task.seed), self.n_classes,
                        [(w[r], b[r]) for w, b in self.params], self.device, details)


def cpu_group_size(spec: TrainingSpec, n_features: int, n_classes: int) -> int:
    """How many MLPs of ``spec`` one stacked CPU step may hold (:data:`CPU_STEP_MACS`)."""
    sizes = (n_features, *spec.hidden, n_classes)
    per_row = sum(a * b for a, b in zip(sizes[:-1], sizes[1:], strict=False))
    return max(1, int(CPU_STEP_MACS // max(1, spec.batch_size * per_row)))


def train_many_mlps(spec: TrainingSpec, X, y, n_classes: int, masks=None, *,
                    tasks: Sequence[ReferenceTask] | None = None, device: str | None = None,
                    soft_targets=None, group_size: int | None = None,
                    weight_decays: Sequence[float] | None = None,
                    snapshot_epochs: Sequence[int] = (), converge=None,
                    what: str = "reference model",
                    progress: Progress = NO_PROGRESS, cancel: CancelToken = NEVER) -> BatchedMLP:
    """Train one MLP per task (or per row of ``masks``) as one stacked batch.

    ``masks``: (R, n) boolean, model r trains on the rows where ``masks[r]`` is True, with seed
    ``task_seed(spec.seed, r)``; or give ``tasks`` (any subset of a campaign, also accepted
    in place of ``masks``) instead. X, y
    and ``soft_targets`` are the shared dataset (every model indexes its own rows).
    ``group_size``: train at most this many models at a time (memory); default all on a GPU,
    on a CPU as many as one step of :data:`CPU_STEP_MACS` holds (:func:`cpu_group_size`).
    ``weight_decays``: one L2 strength per task in place of ``spec.weight_decay`` (a sweep of
    weight decays in one stack; engine.defences). ``snapshot_epochs``: keep the weights after
    these epochs as well; :meth:`BatchedMLP.at_epoch` returns them. ``what``: what the models
    are, for the progress line ("KCD teacher" → "Training 5 KCD teachers: epoch 3 of 30").
    ``converge``: an :class:`engine.models.mlp.Convergence` — every model trains past
    ``spec.epochs`` until its loss has converged (distilled students, paper 004 Alg. 1 step 3,
    Alg. 2 step 6); ``details["history"]`` then also holds each model's ``"epochs"`` and why
    it stopped (``"converged"``). Not with ``group_size``.
    ``spec.family`` must be ``"mlp"``.
    """
    spec = spec.resolved()
    if spec.family != "mlp":
        raise ValueError(f"Batched training is for MLPs; got family {spec.family!r} (train those "
                         "one at a time with train_model).")
    check_spec_supported(spec)
    if isinstance(masks, (list, tuple)) and masks and isinstance(masks[0], ReferenceTask):
        if tasks is not None:
            raise ValueError("Give exactly one of masks or tasks.")
        masks, tasks = None, masks
    if (masks is None) == (tasks is None):
        raise ValueError("Give exactly one of masks or tasks.")
    X, y, soft = check_training_data(X, y, n_classes, soft_targets)
    n = X.shape[0]
    if masks is not None:
        masks = np.asarray(masks)
        if masks.ndim != 2 or masks.shape[1] != n:
            raise ValueError(f"Masks must have shape (models, {n}); got {masks.shape}.")
        tasks = tasks_from_masks(masks.astype(bool), spec.seed)
    tasks = list(tasks)
    if not tasks:
        raise ValueError("No models to train.")
    if weight_decays is not None and len(weight_decays) != len(tasks):
        raise ValueError(f"weight_decays needs one value per model ({len(tasks)}); got "
                         f"{len(weight_decays)}.")
    for t in tasks:
        if t.rows.size == 0:
            raise ValueError(f"Reference model {t.index} has no training rows.")
        if t.rows.min() < 0 or t.rows.max() >= n:
            raise ValueError(f"Reference model {t.index} names rows outside the dataset "
                             f"(0 … {n - 1}).")
    dev = device or default_device()
    start = time.perf_counter()
    if converge is not None and group_size is not None and int(group_size) < len(tasks):
        raise ValueError("Training until convergence needs all models in one group.")
    if group_size is None and converge is None and str(dev).startswith("cpu"):
        group_size = cpu_group_size(spec, X.shape[1], n_classes)
    size = len(tasks) if group_size is None else max(1, int(group_size))
    groups = [tasks[i: i + size] for i in range(0, len(tasks), size)]
    params_parts, losses, snapshot_parts = [], [], []
    for gi, group in enumerate(groups):
        part = progress.span(gi / len(groups), (gi + 1) / len(groups))
        decays = None if weight_decays is None else \
            list(weight_decays)[gi * size: gi * size + len(group)]
        params, history = train_stacked(spec, X, y, n_classes, [t.rows for t in group],
                                        [t.seed for t in group], device=dev, soft_targets=soft,
                                        what=what, weight_decays=decays,
                                        snapshot_epochs=snapshot_epochs, converge=converge,
                                        progress=part, cancel=cancel)
        params_parts.append(params)
        losses.extend(history["loss"])
        if converge is not None:
            stopped = {"epochs": history["epochs"], "converged": history["converged"]}
        snapshot_parts.append(history.get("snapshots", {}))
    params = _concat_params(params_parts)
    details = {"runtime_s": time.perf_counter() - start, "device": str(dev),
               "n_models": len(tasks), "history": {"loss": losses}}
    if converge is not None:
        details["history"].update(stopped)
    if snapshot_epochs:
        details["snapshots"] = {e: _concat_params([p[e] for p in snapshot_parts])
                                for e in sorted(snapshot_parts[0])}
    return BatchedMLP(spec, n_classes, X.shape[1], tasks, params, str(dev), details)


def _concat_params(parts: list) -> list:
    """One stack of parameters from the stacks of several groups of models."""
    if len(parts) == 1:
        return parts[0]
    import torch

    return [(torch.cat([p[li][0] for p in parts]), torch.cat([p[li][1] for p in parts]))
            for li in range(len(parts[0]))]
