"""The undefended model and the defences that need no special data: L2 weight decay and early
stopping (issue 9: KCD's claim of a better trade-off than defences without reference data,
paper 004 §1.2 and §5, is tested against these, not assumed).

* :func:`undefended` — the audited model itself: ``spec`` with ``seed`` on (X, y), exactly what
  the model audit trains (engine.games.model.train_and_query).
* :func:`l2_many` — one model per weight decay λ, all in one stack (per-model decay,
  engine.models.mlp.train_stacked), applied as the spec's optimiser applies ``weight_decay``.
* :func:`early_stopping_many` — one model per epoch count, all from *one* run: the weights
  after epoch e are the model trained for e epochs (its first e epochs see the same batches).

Every model uses ``seed``, so the settings differ only by their knob.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import replace

import numpy as np

from engine.data.errors import InputError, given_value
from engine.defences.common import check_inputs, model_from_stack
from engine.models import MLPModel, ReferenceTask, TrainingSpec, train_many_mlps, train_model
from engine.runtime import NEVER, NO_PROGRESS, CancelToken, Progress, Stopwatch

MAX_WEIGHT_DECAY = 10.0


def undefended(X, y, n_classes: int, spec: TrainingSpec, *, seed: int = 0,
               device: str | None = None, progress: Progress = NO_PROGRESS,
               cancel: CancelToken = NEVER) -> MLPModel:
    """The model with no defence (the reference point of every trade-off)."""
    X, y, spec = check_inputs(X, y, n_classes, spec, "none")
    model = train_model(replace(spec, seed=int(seed)), X, y, n_classes, device=device,
                        progress=progress, cancel=cancel)
    model.details["defence"] = {"name": "none"}
    return model


def _check_decay(value) -> float:
    try:
        v = float(value)
    except (TypeError, ValueError):
        raise InputError(f"The L2 weight decay must be a number; got {given_value(value)}.",
                         key="weight_decay") from None
    if not np.isfinite(v) or not 0.0 <= v <= MAX_WEIGHT_DECAY:
        raise InputError(f"The L2 weight decay must lie between 0 and {MAX_WEIGHT_DECAY:g} "
                         f"(typical values 1e-4 … 1e-2); got {given_value(value)}.", key="weight_decay")
    return v


def l2_many(X, y, n_classes: int, spec: TrainingSpec, *, weight_decays: Sequence[float],
            seed: int = 0, device: str | None = None, progress: Progress = NO_PROGRESS,
            cancel: CancelToken = NEVER) -> list[MLPModel]:
    """One model per L2 strength λ (added to the gradient for adam/sgd, decoupled for adamw —
    as ``TrainingSpec.weight_decay`` works), trained as one stack."""
    X, y, spec = check_inputs(X, y, n_classes, spec, "l2")
    decays = [_check_decay(v) for v in weight_decays]
    if not decays:
        raise InputError("Give at least one weight decay (e.g. 1e-3).", key="weight_decay")
    clock = Stopwatch()
    tasks = [ReferenceTask(j, int(seed), np.arange(y.size, dtype=np.int64))
             for j in range(len(decays))]
    many = train_many_mlps(spec, X, y, n_classes, tasks=tasks, device=device,
                           weight_decays=decays, what="model with L2 weight decay",
                           progress=progress, cancel=cancel)
    runtime = clock.elapsed()
    return [model_from_stack(many, j, replace(spec, seed=int(seed), weight_decay=lam),
                             {"runtime_s": runtime,
                              "defence": {"name": "l2", "weight_decay": lam,
                                          "optimizer": spec.optimizer}})
            for j, lam in enumerate(decays)]


def l2(X, y, n_classes: int, spec: TrainingSpec, *, weight_decay: float, seed: int = 0,
       device: str | None = None, progress: Progress = NO_PROGRESS,
       cancel: CancelToken = NEVER) -> MLPModel:
    """One model with L2 weight decay λ = ``weight_decay``; see :func:`l2_many`."""
    return l2_many(X, y, n_classes, spec, weight_decays=[weight_decay], seed=seed,
                   device=device, progress=progress, cancel=cancel)[0]


def _check_epochs(value, most: int) -> int:
    if isinstance(value, bool) or not isinstance(value, int | np.integer) or value < 1:
        raise InputError(f"Early stopping needs a whole number of epochs of at least 1; got "
                         f"{given_value(value)}.", key="epochs")
    if value > most:
        raise InputError(f"Early stopping at {value} epochs is not early: the model trains for "
                         f"{most}. Choose fewer epochs, or raise the model's epochs.",
                         key="epochs")
    return int(value)


def early_stopping_many(X, y, n_classes: int, spec: TrainingSpec, *, epochs: Sequence[int],
                        seed: int = 0, device: str | None = None,
                        progress: Progress = NO_PROGRESS,
                        cancel: CancelToken = NEVER) -> list[MLPModel]:
    """The model stopped after each of ``epochs`` (≤ the spec's epochs), from one run."""
    X, y, spec = check_inputs(X, y, n_classes, spec, "early_stopping")
    stops = [_check_epochs(e, int(spec.epochs)) for e in epochs]
    if not stops:
        raise InputError("Give at least one epoch count for early stopping.", key="epochs")
    clock = Stopwatch()
    longest = max(stops)
    task = [ReferenceTask(0, int(seed), np.arange(y.size, dtype=np.int64))]
    many = train_many_mlps(replace(spec, epochs=longest), X, y, n_classes, tasks=task,
                           device=device, snapshot_epochs=sorted(set(stops)),
                           what="model for early stopping", progress=progress, cancel=cancel)
    runtime = clock.elapsed()
    return [model_from_stack(many.at_epoch(e), 0, replace(spec, seed=int(seed), epochs=e),
                             {"runtime_s": runtime,
                              "defence": {"name": "early_stopping", "epochs": e,
                                          "full_epochs": int(spec.epochs)}})
            for e in stops]


def early_stopping(X, y, n_classes: int, spec: TrainingSpec, *, epochs: int, seed: int = 0,
                   device: str | None = None, progress: Progress = NO_PROGRESS,
                   cancel: CancelToken = NEVER) -> MLPModel:
    """The model stopped after ``epochs`` epochs; see :func:`early_stopping_many`."""
    return early_stopping_many(X, y, n_classes, spec, epochs=[epochs], seed=seed,
                               device=device, progress=progress, cancel=cancel)[0]
