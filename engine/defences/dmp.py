"""Distillation for membership privacy (DMP; Shejwalkar & Houmansadr 2021; paper 004 §2.3,
Alg. 1): the student never sees a private record — it learns the teacher's soft labels on a
reference set of other records, with the three knobs of §2.3 (temperature, dropping
high-entropy records, reference size), until it converges. Method and measurements:
docs/methods/defences.md (DMP) and docs/methods/defence_notes.md (DMP).
"""

from __future__ import annotations

import io
from collections.abc import Sequence
from dataclasses import dataclass, replace
from pathlib import Path

import numpy as np
import pandas as pd

from engine.data.errors import InputError, given_value
from engine.data.paths import resolve_path
from engine.data.tabular import TabularSchema, tabular_from_frame
from engine.data.text_input import read_text
from engine.defences.common import (
    STUDENT_MAX_EPOCHS,
    STUDENT_TOLERANCE,
    check_inputs,
    check_positive,
    check_unit_interval,
    helper_seed,
    mixture_entropy,
    model_from_stack,
    soft_labels,
    student_convergence,
)
from engine.models import (
    MLPModel,
    ReferenceTask,
    TrainingSpec,
    softmax,
    train_many_mlps,
    train_model,
)
from engine.runtime import NEVER, NO_PROGRESS, CancelToken, Progress, Stopwatch, rng
from engine.runtime import device as default_device

MIN_REFERENCE = 10


@dataclass(frozen=True)
class DMPSetting:
    """One point of DMP's three knobs (paper 004 §2.3)."""

    temperature: float = 1.0
    drop_high_entropy: float = 0.0     # share of the reference set removed, highest entropy first
    reference_size: int | None = None  # records of the reference set used; None = all

    def check(self, available: int) -> DMPSetting:
        t = check_positive(self.temperature, "temperature", "DMP's softmax temperature")
        drop = check_unit_interval(self.drop_high_entropy, "drop_high_entropy",
                                   "The share of high-entropy reference records DMP removes")
        size = self.reference_size
        if size is not None:
            if isinstance(size, bool) or not isinstance(size, int | np.integer) or size < 1:
                raise InputError(f"DMP's reference size must be a whole number of records; got "
                                 f"{given_value(size)}.", key="reference_size")
            if size > available:
                raise InputError(f"DMP's reference size {size} is more than the {available} "
                                 f"reference records there are; use at most {available}, or "
                                 "supply a larger reference set.", key="reference_size")
            size = int(size)
        kept = int(round((1.0 - drop) * (available if size is None else size)))
        if kept < MIN_REFERENCE:
            raise InputError(f"DMP would distil from only {kept} reference records; keep at least "
                             f"{MIN_REFERENCE} (drop fewer high-entropy records, or use a larger "
                             "reference set).", key="drop_high_entropy")
        return DMPSetting(t, drop, size)

    def to_dict(self) -> dict:
        return {"temperature": float(self.temperature),
                "drop_high_entropy": float(self.drop_high_entropy),
                "reference_size": self.reference_size}


def check_reference(reference, n_features: int) -> np.ndarray:
    """The reference features as float32 (m, d), or an InputError."""
    R = np.asarray(reference)
    if R.ndim != 2 or R.shape[1] != int(n_features):
        raise InputError(f"DMP's reference records must have the training data's {n_features} "
                         f"encoded feature columns; got {R.shape[-1] if R.ndim else 0} columns in "
                         f"{R.ndim} dimensions. Describe the reference file with the training "
                         "data's columns so that it is encoded the same way.",
                         key="reference")
    if R.shape[0] < MIN_REFERENCE:
        raise InputError(f"DMP needs at least {MIN_REFERENCE} reference records to distil from; "
                         f"got {R.shape[0]}. Hold out more of the data or supply a larger "
                         "reference file.", key="reference")
    R = np.ascontiguousarray(R, dtype=np.float32)
    if not np.isfinite(R).all():
        raise InputError("DMP's reference records contain missing or infinite values; fill or "
                         "drop them.", key="reference")
    return R


def select_reference(teacher_logits: np.ndarray, setting: DMPSetting, seed: int,
                     index: int = 0) -> np.ndarray:
    """Rows of the reference set one DMP setting distils from (paper 004 §2.3, knobs 2 and 3):
    a seeded random subset of ``reference_size`` rows, then without the ``drop_high_entropy``
    share whose teacher prediction (at temperature 1) has the highest entropy."""
    m = teacher_logits.shape[0]
    rows = np.arange(m)
    if setting.reference_size is not None and setting.reference_size < m:
        rows = np.sort(rng(seed, "defence", "dmp", "reference", index)
                       .choice(m, size=setting.reference_size, replace=False))
    if setting.drop_high_entropy > 0:
        p = softmax(teacher_logits[rows])
        entropy = -(p * np.log(np.clip(p, 1e-300, 1.0))).sum(axis=1)
        keep = int(round((1.0 - setting.drop_high_entropy) * rows.size))
        rows = np.sort(rows[np.argsort(entropy, kind="stable")[:keep]])
    return rows


def dmp_many(X, y, n_classes: int, spec: TrainingSpec, reference, *,
             settings: Sequence[DMPSetting], seed: int = 0, teacher: MLPModel | None = None,
             student_epochs: str = "converge", tolerance: float = STUDENT_TOLERANCE,
             max_epochs: int = STUDENT_MAX_EPOCHS,
             device: str | None = None, progress: Progress = NO_PROGRESS,
             cancel: CancelToken = NEVER) -> list[MLPModel]:
    """DMP students (paper 004 Alg. 1) for several knob settings from one teacher.

    ``reference``: (m, d) encoded features of the reference records (no labels needed).
    ``teacher``: the undefended model if already trained (Alg. 1 step 1 trains exactly that
    model: ``spec`` with ``seed`` on (X, y)); trained here otherwise. ``student_epochs``:
    ``"converge"`` (step 3, "until the training converges": a mean KL of at most
    ``tolerance`` nats to the soft labels, or no longer falling, at most ``max_epochs``;
    engine.models.mlp.Convergence) or ``"recipe"`` (the audited model's epochs only).
    """
    X, y, spec = check_inputs(X, y, n_classes, spec, "dmp")
    if student_epochs not in ("converge", "recipe"):
        raise InputError(f"The distillation student's training length must be “converge” "
                         f"(train until it stops improving) or “recipe” (the audited model's "
                         f"epochs); got {given_value(student_epochs)}.", key="student_epochs")
    R = check_reference(reference, X.shape[1])
    settings = [s.check(R.shape[0]) for s in settings]
    if not settings:
        raise InputError("Give at least one DMP setting (e.g. temperature 1).", key="temperature")
    clock = Stopwatch()
    dev = device or default_device()
    # Step 1: the teacher on the private data.
    if teacher is None:
        teacher = train_model(replace(spec, seed=int(seed)), X, y, n_classes, device=dev,
                              progress=progress.span(0.0, 0.3), cancel=cancel)
    elif teacher.n_features != X.shape[1] or teacher.n_classes != int(n_classes):
        raise ValueError("The DMP teacher must be a model of the same data.")
    cancel.check()
    z = teacher.logits(R)
    # Step 2 for every setting: its rows of R with soft labels at its temperature, stacked so
    # that each student indexes its own block.
    m = R.shape[0]
    blocks_x, blocks_soft, tasks, kept = [], [], [], []
    student_seed = helper_seed(seed, "dmp-student", 0)
    for j, s in enumerate(settings):
        rows = select_reference(z, s, seed, j)
        blocks_x.append(R)
        blocks_soft.append(soft_labels(z, s.temperature))
        tasks.append(ReferenceTask(j, student_seed, (rows + j * m).astype(np.int64)))
        kept.append(int(rows.size))
    Xs = np.concatenate(blocks_x)
    soft = np.concatenate(blocks_soft)
    # The labels of R are never used (α = 1 gives the hard-label term weight 0); the teacher's
    # arg-max stands in where a label array is required.
    ys = np.argmax(soft, axis=1).astype(np.int64)
    # Step 3: students on the soft labels alone (Eq. 1 with α = 1, student temperature 1).
    # "Until the training converges" (step 3): past the recipe's epochs until each student is
    # within STUDENT_TOLERANCE nats (mean KL) of its soft labels, whose mean entropy is the
    # floor of its loss (common.student_convergence).
    student_spec = replace(spec, soft_label_weight=1.0, temperature=1.0)
    floors = [mixture_entropy(soft[t.rows], ys[t.rows], 1.0) for t in tasks]
    converge = (None if student_epochs == "recipe" else
                student_convergence(floors, [1.0] * len(tasks), spec, tolerance=tolerance,
                                    max_epochs=max_epochs))
    students = train_many_mlps(student_spec, Xs, ys, n_classes, tasks=tasks, device=dev,
                               soft_targets=soft, converge=converge,
                               progress=progress.span(0.3, 1.0), cancel=cancel)
    history = students.details["history"]
    runtime = clock.elapsed()
    out = []
    for j, s in enumerate(settings):
        trained = int(history.get("epochs", [spec.epochs] * len(settings))[j])
        details = {"runtime_s": runtime, "defence": {
            "name": "dmp", **s.to_dict(), "reference_records": m,
            "reference_records_used": kept[j], "models_trained": len(settings) + 1,
            "student_epochs": trained,
            "student_converged": history.get("converged", ["recipe"] * len(settings))[j],
            "student_excess_loss": float(history["loss"][j][-1] - floors[j])
            if history["loss"][j] else None,
            "paper": "004 §2.3, Alg. 1"}}
        out.append(model_from_stack(students, j, replace(student_spec, seed=student_seed,
                                                         epochs=trained), details))
    return out


def dmp(X, y, n_classes: int, spec: TrainingSpec, reference, *, temperature: float = 1.0,
        drop_high_entropy: float = 0.0, reference_size: int | None = None, seed: int = 0,
        teacher: MLPModel | None = None, student_epochs: str = "converge",
        tolerance: float = STUDENT_TOLERANCE, max_epochs: int = STUDENT_MAX_EPOCHS,
        device: str | None = None, progress: Progress = NO_PROGRESS,
        cancel: CancelToken = NEVER) -> MLPModel:
    """One DMP student (paper 004 Alg. 1) at one setting of the §2.3 knobs; see
    :func:`dmp_many`."""
    return dmp_many(X, y, n_classes, spec, reference,
                    settings=[DMPSetting(temperature, drop_high_entropy, reference_size)],
                    seed=seed, teacher=teacher, student_epochs=student_epochs,
                    tolerance=tolerance, max_epochs=max_epochs, device=device,
                    progress=progress, cancel=cancel)[0]


# --------------------------------------------------------------------------- reference CSV

def load_reference_csv(path: str | Path, schema) -> np.ndarray:
    """Encoded features (m, d) of an unlabelled reference CSV for DMP (paper 004 §2.3: a public
    reference set with no labels), read with the *training data's* fitted schema so that
    categories and scaling match the model's inputs exactly.

    The file must have the training data's feature columns (the label and members columns may
    be absent; columns the schema ignores may be present or absent); any other difference is an
    :class:`InputError` naming the columns and what to do.
    """

    if not isinstance(schema, TabularSchema):
        raise TypeError("schema must be the training data's TabularSchema")
    p = resolve_path(path)
    try:
        # The shared reader: a regular file only, never more than its size (a named pipe or a
        # device as the reference gets a sentence, not a hang); the same encodings and
        # separators as the training table.
        inp = read_text(p, sniff=True, missing="the reference file does not exist; choose the "
                                               "CSV of reference records.")
    except InputError as exc:
        raise InputError(str(exc), source=exc.source, key="reference") from None
    try:
        frame = pd.read_csv(io.StringIO(inp.text), sep=inp.delimiter)
    except (pd.errors.ParserError, pd.errors.EmptyDataError, UnicodeDecodeError) as exc:
        raise InputError(f"{p}: cannot be read as a CSV with a header row ({exc}); save it as "
                         "comma-separated text with one record per row.", source=str(p),
                         key="reference") from None
    frame.columns = [str(c).strip() for c in frame.columns]
    features = [c.name for c in schema.columns if c.role == "feature"]
    ignored = {c.name for c in schema.columns if c.role == "ignore"}
    optional = {schema.label} | ({schema.member_column} if schema.member_column else set())
    found = list(frame.columns)
    missing = [c for c in features if c not in found]
    extra = [c for c in found if c not in features and c not in ignored and c not in optional]
    if missing or extra:
        parts = []
        if missing:
            parts.append(f"lacks the training data's column(s) {_list(missing)}")
        if extra:
            parts.append(f"has column(s) the training data does not: {_list(extra)}")
        raise InputError(f"{p}: the reference file's columns differ from the training data's — it "
                         f"{' and '.join(parts)}. Give it exactly the training data's feature "
                         "columns (same names; the label may be left out).", source=str(p),
                         key=(missing or extra)[0])
    if frame.empty:
        raise InputError(f"{p}: has no records; add one reference record per row.",
                         source=str(p), key="reference")
    # Encode with the training schema: its label column gets placeholder classes, taken in turn
    # (the labels of reference records are never used, and the loader wants two classes at
    # least), and its members column is dropped.
    cols = tuple(c for c in schema.columns if c.role != "member")
    enc_schema = TabularSchema(cols)
    data = {}
    for c in cols:
        if c.role == "label":
            cats = list(c.categories) or ["0", "1"]
            data[c.name] = [cats[i % len(cats)] for i in range(len(frame))]
        elif c.name in frame.columns:
            data[c.name] = frame[c.name].to_numpy()
        else:
            data[c.name] = [""] * len(frame)       # an ignored column the file left out
    df = pd.DataFrame(data)
    encoded = tabular_from_frame(df, enc_schema, source=str(p))
    return encoded.X


def _list(names: Sequence[str], limit: int = 6) -> str:
    shown = ", ".join(f"'{n}'" for n in names[:limit])
    return shown + (f" and {len(names) - limit} more" if len(names) > limit else "")
