"""What every model defence shares: input checks, seeds, soft labels and the stacked students.

The defences (paper 004 §2.3 DMP, §3 KCD; DP-SGD; the L2 and early-stopping baselines) all
train MLPs of the audited model's architecture, so they take the audited model's training
data ``(X, y, n_classes)`` and its :class:`~engine.models.TrainingSpec`, and return the same
fitted-model object :func:`engine.models.train_model` returns (an
:class:`~engine.models.MLPModel`: ``predict_proba``, ``logits``, …), with
``details["defence"]`` saying which defence and which setting made it.

Seeds: every model's seed comes from the one ``seed`` argument. The model a defence finally
returns (KCD's student, each L2, early-stopping and DP-SGD setting) uses ``seed`` itself — the
seed of the undefended model :func:`engine.defences.baselines.undefended` trains — so two
settings differ only by their knob (common random numbers: the trade-off curve is not blurred
by initialisation noise), and KCD with α = 0 *is* the undefended model, as paper 004 §3.2
says it should be. Helper models (KCD's teachers) and DMP's student (whose teacher *is* the
undefended model, engine.defences.dmp says why it must not share its initial weights) get seeds
drawn from ``engine.runtime.rng(seed, "defence", name, i)``.
"""

from __future__ import annotations

from dataclasses import replace

import numpy as np

from engine.data.errors import InputError, given_value
from engine.models import MLPModel, TrainingSpec, softmax
from engine.models.fitted import check_training_data
from engine.models.mlp import Convergence
from engine.runtime import rng

# torch is imported inside the functions that use it: heavy, and needed only when a model
# trains or is read (docs/dev/layers.md).

DEFENCES = ("none", "kcd", "dmp", "dp_sgd", "l2", "early_stopping")
DEFENCE_LABELS = {
    "none": "No defence",
    "kcd": "Knowledge cross-distillation (KCD, paper 004 Alg. 2)",
    "dmp": "Distillation for membership privacy (DMP, paper 004 Alg. 1)",
    "dp_sgd": "DP-SGD (per-sample clipping and Gaussian noise, Opacus)",
    "l2": "L2 weight decay",
    "early_stopping": "Early stopping (fewer epochs)",
}


def helper_seed(seed: int, defence: str, index: int) -> int:
    """Seed of helper model ``index`` of a defence (e.g. KCD's teacher i)."""
    return int(rng(seed, "defence", defence, int(index)).integers(0, 2**63 - 1))


def check_inputs(X, y, n_classes: int, spec: TrainingSpec, defence: str):
    """``(X float32, y int64, resolved spec)`` or an :class:`InputError` sentence.

    Defences train neural networks: distillation needs a model trained on soft labels and
    DP-SGD per-sample gradients, which only the MLP family has.
    """
    if not isinstance(spec, TrainingSpec):
        raise TypeError("spec must be a TrainingSpec")
    try:
        spec = spec.resolved()
    except ValueError as exc:
        raise InputError(str(exc), key="spec") from None
    if spec.family != "mlp":
        raise InputError(f"The {DEFENCE_LABELS.get(defence, defence)} defence trains a neural "
                         f"network (MLP); the audited model is a {spec.family.replace('_', ' ')}. "
                         "Audit an MLP of the same data, or use that family's own regularisation.",
                         key="family")
    if spec.loss is not None:
        raise InputError("The defences set the training loss themselves; remove the custom loss "
                         "from the training settings.", key="loss")
    if spec.clip_norm is not None or spec.noise_multiplier is not None:
        raise InputError("Clipping and noise belong to the private-training defence; give "
                         "them as its clipping norm and noise multipliers, not in the "
                         "training settings.", key="noise_multiplier")
    try:
        X, y, _ = check_training_data(X, y, n_classes)
    except ValueError as exc:
        raise InputError(str(exc), key="data") from None
    return X, y, spec


def check_unit_interval(value, name: str, what: str) -> float:
    """A number in [0, 1] (α, a fraction to drop), or an InputError naming the knob."""
    try:
        v = float(value)
    except (TypeError, ValueError):
        raise InputError(f"{what} must be a number between 0 and 1; got {given_value(value)}.",
                         key=name) from None
    if not np.isfinite(v) or not 0.0 <= v <= 1.0:
        raise InputError(f"{what} must lie between 0 and 1 (0 = no protection, 1 = the "
                         f"strongest setting); got {given_value(value)}.", key=name)
    return v


def check_positive(value, name: str, what: str) -> float:
    try:
        v = float(value)
    except (TypeError, ValueError):
        raise InputError(f"{what} must be a positive number; got {given_value(value)}.", key=name) from None
    if not np.isfinite(v) or v <= 0:
        raise InputError(f"{what} must be a positive number; got {given_value(value)}.", key=name)
    return v


def soft_labels(logits: np.ndarray, temperature: float) -> np.ndarray:
    """softmax(z / T) per row, float64 (Hinton et al. 2015; paper 004 §2.3, the first DMP knob:
    a higher teacher temperature flattens the soft labels, so they carry less of what the
    teacher memorised about each record)."""
    return softmax(np.asarray(logits, dtype=np.float64) / float(temperature))


# Distilled students train "until the training converges" (paper 004 Alg. 1 step 3, Alg. 2
# step 6): until their mean KL to the soft labels is at most STUDENT_TOLERANCE nats (or stops
# falling), at most STUDENT_MAX_EPOCHS epochs. Measured on 20-class purchase data with 1,000
# training records (docs/methods/defences.md, "the student's convergence"): after the audited
# recipe's 30 epochs a KCD student is 0.10 nats from its soft labels and agrees with their top
# class on 77 % of its records — half-way between its soft labels and its own generalisation,
# the state that exposes members most (balanced accuracy 0.707 there, 0.567 at 0.002 nats).
STUDENT_TOLERANCE = 0.002
STUDENT_MAX_EPOCHS = 2000


def mixture_entropy(soft: np.ndarray, y: np.ndarray, alpha: float,
                    label_smoothing: float = 0.0) -> float:
    """Mean entropy of the targets q = α·y′ + (1 − α)·ỹ of Eq. 1 (paper 004 §3.2; ỹ the one-hot
    true label, smoothed by ``label_smoothing``): the least value the per-record loss
    α·CE(y′, p) + (1 − α)·CE(ỹ, p) = CE(q, p) can take, reached at p = q. The loss minus it is
    the mean KL(q ‖ p) that :class:`engine.models.mlp.Convergence` drives down."""
    soft = np.asarray(soft, dtype=np.float64)
    n, k = soft.shape
    hard = np.full((n, k), float(label_smoothing) / k)
    hard[np.arange(n), np.asarray(y, dtype=np.int64)] += 1.0 - float(label_smoothing)
    q = float(alpha) * soft + (1.0 - float(alpha)) * hard
    return float(-(q * np.log(np.clip(q, 1e-300, 1.0))).sum(axis=1).mean())


def student_convergence(floors, shares, spec: TrainingSpec, *, recipe_excess: float = 0.0,
                        tolerance: float = STUDENT_TOLERANCE,
                        max_epochs: int = STUDENT_MAX_EPOCHS):
    """The :class:`engine.models.mlp.Convergence` of a stack of distilled students: model r's
    loss floor ``floors[r]``, the share ``shares[r]`` of its loss that must converge to
    ``tolerance`` (KCD: α; DMP: 1) and the excess loss the audited recipe leaves on hard labels
    (``recipe_excess``, the standard for the rest). At least the audited recipe's epochs."""
    return Convergence(tuple(float(f) for f in floors), tuple(float(a) for a in shares),
                       recipe_excess=max(0.0, float(recipe_excess)),
                       tolerance=float(tolerance),
                       max_epochs=max(int(max_epochs), int(spec.epochs)))


def per_model_alpha_loss(alphas, label_smoothing: float = 0.0):
    """Per-sample loss hook (TrainingSpec.loss) giving stacked model r its own α of Eq. 1
    (paper 004 §3.2): ``α_r·CE(y', H(x)/T) + (1 − α_r)·CE(y, H(x))``, y' the soft label.

    Written exactly as engine.models.mlp.per_sample_loss writes the α mixture, so a stack of
    students with α_1 … α_R gives each the model that ``soft_label_weight = α_r`` would.
    """
    values = np.asarray(alphas, dtype=np.float64).reshape(-1)
    cache: dict = {}

    def loss(logits, y, soft, temperature):
        import torch
        import torch.nn.functional as F

        key = (logits.device, logits.dtype)
        if key not in cache:
            cache[key] = torch.as_tensor(values, dtype=logits.dtype, device=logits.device)
        a = cache[key]
        k = logits.shape[-1]
        flat = logits.reshape(-1, k)
        hard = F.cross_entropy(flat, y.reshape(-1), reduction="none",
                               label_smoothing=float(label_smoothing)).view(logits.shape[:-1])
        soft_term = -(soft.reshape(-1, k) * torch.log_softmax(flat / float(temperature), dim=-1)
                      ).sum(dim=-1).view(logits.shape[:-1])
        a = a.view((-1,) + (1,) * (hard.dim() - 1))
        return (1.0 - a) * hard + a * soft_term

    return loss


def model_from_stack(many, r: int, spec: TrainingSpec, details: dict) -> MLPModel:
    """Stacked model ``r`` of a :class:`~engine.models.BatchedMLP` as a stand-alone
    :class:`MLPModel` whose spec says how it was trained (no runtime hooks)."""
    params = [(w[r], b[r]) for w, b in many.params]
    hist = many.details.get("history", {}).get("loss")
    out = dict(details)
    out.setdefault("device", many.device)
    out.setdefault("n_train", int(many.tasks[r].rows.size))
    if hist is not None:
        out.setdefault("history", {"loss": hist[r]})
    return MLPModel(replace(spec, loss=None), many.n_classes, params, many.device, out)
