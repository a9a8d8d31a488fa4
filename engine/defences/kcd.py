"""Knowledge cross-distillation (KCD; paper 004 §3, Alg. 2, Eq. 1): a membership-inference
defence that needs no public reference data. Teachers trained on all parts but one give each
part's soft labels; the student trains on every record with Eq. 1's α-weighted loss, until it
converges. How each step of Alg. 2 is read, and what was measured: docs/methods/defences.md
(KCD) and docs/methods/defence_notes.md (KCD).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import replace

import numpy as np

from engine.data.errors import InputError, given_value
from engine.defences.common import (
    STUDENT_MAX_EPOCHS,
    STUDENT_TOLERANCE,
    check_inputs,
    check_positive,
    check_unit_interval,
    helper_seed,
    mixture_entropy,
    model_from_stack,
    per_model_alpha_loss,
    soft_labels,
    student_convergence,
)
from engine.models import MLPModel, ReferenceTask, TrainingSpec, train_many_mlps
from engine.runtime import NEVER, NO_PROGRESS, CancelToken, Progress, Stopwatch, rng
from engine.runtime import device as default_device

DEFAULT_TEACHERS = 5
MAX_TEACHERS = 100


def check_teachers(n_teachers, y: np.ndarray, n_classes: int) -> tuple[int, list[str]]:
    """The number of teachers and any warnings, or an InputError with a way forward (paper 004
    Alg. 2 step 1: n parts of almost the same size, each left out of one teacher).

    Every part needs at least one record of the classes it is dealt, so n may not exceed the
    records of the largest class: beyond that, extra teachers would have parts without a
    single record. A class with one record is learnt only from the hard labels: the teacher
    that labels its record never saw the class (a warning, not an error — with α = 1 the
    student will not predict that class).
    """
    if isinstance(n_teachers, bool) or not isinstance(n_teachers, int | np.integer) \
            or not 2 <= int(n_teachers) <= MAX_TEACHERS:
        raise InputError(f"KCD needs a whole number of teachers between 2 and {MAX_TEACHERS} "
                         f"(paper 004 uses 5 by default); got {given_value(n_teachers)}.", key="n_teachers")
    n = int(n_teachers)
    counts = np.bincount(np.asarray(y, dtype=np.int64), minlength=int(n_classes))
    largest = int(counts.max(initial=0))
    if n > largest:
        raise InputError(f"KCD with {n} teachers deals each class's records to {n} parts, but no "
                         f"class has more than {largest} training records, so some parts would "
                         f"hold no record at all; use at most {max(2, largest)} teachers (5 is "
                         "the usual choice) or more training records.", key="n_teachers")
    warnings = []
    single = np.flatnonzero(counts == 1)
    if single.size:
        warnings.append(f"{single.size} class(es) have a single training record (e.g. class "
                        f"{int(single[0])}): the teacher that labels it never saw the class, "
                        "so with α near 1 the student hardly learns it.")
    return n, warnings


def kcd_parts(y: np.ndarray, n_teachers: int, seed: int) -> np.ndarray:
    """Part index 0 … n−1 of every record (paper 004 Alg. 2 step 1): classes in a seeded
    random order, each class's records shuffled, then dealt to the parts in turn — so part
    sizes differ by at most one overall and within every class."""
    y = np.asarray(y, dtype=np.int64)
    g = rng(seed, "defence", "kcd", "parts")
    order = []
    for c in g.permutation(np.unique(y)):
        idx = np.flatnonzero(y == c)
        order.append(g.permutation(idx))
    order = np.concatenate(order) if order else np.zeros(0, dtype=np.int64)
    parts = np.empty(y.size, dtype=np.int64)
    parts[order] = np.arange(order.size) % int(n_teachers)
    return parts


def kcd_many(X, y, n_classes: int, spec: TrainingSpec, *, alphas: Sequence[float],
             n_teachers: int = DEFAULT_TEACHERS, temperature: float = 1.0, seed: int = 0,
             student_epochs: str = "converge", tolerance: float = STUDENT_TOLERANCE,
             max_epochs: int = STUDENT_MAX_EPOCHS,
             device: str | None = None, progress: Progress = NO_PROGRESS,
             cancel: CancelToken = NEVER) -> list[MLPModel]:
    """KCD students for several α (paper 004 Alg. 2, Eq. 1) from one set of n teachers.

    ``temperature``: the teachers' softmax temperature for the soft labels (1 in paper 004;
    the student is always queried at temperature 1). ``student_epochs``: ``"converge"`` (step
    6, "until the training converges": ``tolerance`` nats of mean KL to the targets for the
    soft share of the loss, at most ``max_epochs``; engine.models.mlp.Convergence) or
    ``"recipe"`` (the audited model's epochs only — the behaviour before the fix, kept for
    measuring what convergence changes). Returns one :class:`MLPModel` per α, in order;
    ``details["defence"]`` holds the setting, the teachers' accuracy on the parts they did not
    see, and the epochs each student trained and why it stopped.
    """
    X, y, spec = check_inputs(X, y, n_classes, spec, "kcd")
    alphas = [check_unit_interval(a, "alpha", "KCD's α (the weight of the teachers' soft "
                                              "labels, Eq. 1)") for a in alphas]
    if not alphas:
        raise InputError("Give at least one α for KCD (e.g. 1.0).", key="alpha")
    temperature = check_positive(temperature, "temperature", "The teachers' temperature")
    n, warnings = check_teachers(n_teachers, y, n_classes)
    if student_epochs not in ("converge", "recipe"):
        raise InputError(f"The cross-distillation student's training length must be "
                         f"“converge” (train until it stops improving) or “recipe” (the "
                         f"audited model's epochs); got {given_value(student_epochs)}.",
                         key="student_epochs")
    clock = Stopwatch()
    dev = device or default_device()
    parts = kcd_parts(y, n, seed)

    # Steps 2–4: n teachers, teacher i on D \ D_i, as one stack.
    teacher_tasks = [ReferenceTask(i, helper_seed(seed, "kcd-teacher", i),
                                   np.flatnonzero(parts != i).astype(np.int64))
                     for i in range(n)]
    teachers = train_many_mlps(spec, X, y, n_classes, tasks=teacher_tasks, device=dev,
                               progress=progress.span(0.0, 0.5), cancel=cancel)
    # Step 5: soft labels of part i from teacher i, the only teacher that never saw it.
    soft = np.empty((y.size, int(n_classes)), dtype=np.float64)
    held_out_accuracy = []
    for i in range(n):
        cancel.check()
        rows = np.flatnonzero(parts == i)
        z = teachers.logits(X[rows], models=[i], cancel=cancel)[0]
        soft[rows] = soft_labels(z, temperature)
        held_out_accuracy.append(float(np.mean(np.argmax(z, axis=1) == y[rows])))

    # Step 6: the students, one per α, on every record with Eq. 1 — one stack, one seed.
    # The soft term at temperature 1 (step 6 learns F_i(x) itself); the hard term ignores it, so
    # α = 0 stays the undefended model (up to the stacked training's rounding, ~1e-5).
    # "Until the training converges" (step 6): past the recipe's epochs until each student's
    # loss is within STUDENT_TOLERANCE nats of its floor, the entropy of its Eq. 1 targets —
    # for the soft share α of the loss; the hard share need only get as far as the recipe
    # takes it, so α = 0 stops where the undefended model does (common.student_convergence).
    student_spec = replace(spec, temperature=1.0,
                           loss=per_model_alpha_loss(alphas, spec.label_smoothing))
    tasks = [ReferenceTask(j, int(seed), np.arange(y.size, dtype=np.int64))
             for j in range(len(alphas))]
    floors = [mixture_entropy(soft, y, a, spec.label_smoothing) for a in alphas]
    # How far the audited recipe fits hard labels: the teachers' final training loss above its
    # floor (they train exactly as the audited model does, on (n − 1)/n of the records).
    hard_floor = mixture_entropy(soft, y, 0.0, spec.label_smoothing)
    recipe_excess = float(np.mean([h[-1] for h in teachers.details["history"]["loss"]])
                          - hard_floor) if spec.epochs else 0.0
    converge = (None if student_epochs == "recipe" else
                student_convergence(floors, alphas, spec, recipe_excess=recipe_excess,
                                    tolerance=tolerance, max_epochs=max_epochs))
    students = train_many_mlps(student_spec, X, y, n_classes, tasks=tasks, device=dev,
                               soft_targets=soft, converge=converge,
                               progress=progress.span(0.5, 1.0), cancel=cancel)
    history = students.details["history"]
    runtime = clock.elapsed()
    out = []
    for j, alpha in enumerate(alphas):
        trained = int(history.get("epochs", [spec.epochs] * len(alphas))[j])
        final = replace(spec, seed=int(seed), soft_label_weight=float(alpha), temperature=1.0,
                        epochs=trained)
        details = {"runtime_s": runtime, "defence": {
            "name": "kcd", "alpha": float(alpha), "n_teachers": n,
            "teacher_temperature": float(temperature),
            "part_sizes": np.bincount(parts, minlength=n).tolist(),
            "teacher_held_out_accuracy": held_out_accuracy,
            "models_trained": n + len(alphas), "warnings": warnings,
            "student_epochs": trained,
            "student_converged": history.get("converged", ["recipe"] * len(alphas))[j],
            "student_excess_loss": float(history["loss"][j][-1] - floors[j])
            if history["loss"][j] else None,
            "paper": "004 §3.2, Alg. 2, Eq. 1"}}
        out.append(model_from_stack(students, j, final, details))
    return out


def kcd(X, y, n_classes: int, spec: TrainingSpec, *, alpha: float = 1.0,
        n_teachers: int = DEFAULT_TEACHERS, temperature: float = 1.0, seed: int = 0,
        student_epochs: str = "converge", tolerance: float = STUDENT_TOLERANCE,
        max_epochs: int = STUDENT_MAX_EPOCHS,
        device: str | None = None, progress: Progress = NO_PROGRESS,
        cancel: CancelToken = NEVER) -> MLPModel:
    """One KCD student (paper 004 Alg. 2) at weight ``alpha`` ∈ [0, 1] of Eq. 1; see
    :func:`kcd_many`."""
    return kcd_many(X, y, n_classes, spec, alphas=[alpha], n_teachers=n_teachers,
                    temperature=temperature, seed=seed, student_epochs=student_epochs,
                    tolerance=tolerance, max_epochs=max_epochs, device=device,
                    progress=progress, cancel=cancel)[0]
