"""What to train: :class:`TrainingSpec`, one frozen value per model (issue 8, "Model intake").

A spec names the family and every hyper-parameter, so a project file, a report and a cluster
task can all say exactly which model was trained. Fields left at ``None`` take the family's
default (:meth:`TrainingSpec.resolved`), so ``TrainingSpec(family="gradient_boosting")`` gets a
boosting learning rate, not an MLP's.

Defences (the next issue) plug in here rather than through new keyword arguments:

* ``soft_label_weight`` / ``temperature`` — distillation (DMP, KCD): :func:`engine.models.train_model`
  takes ``soft_targets`` (n, k) and trains on ``(1 − α)·CE(hard) + α·CE(soft)`` with
  α = ``soft_label_weight``, the soft term at ``temperature``.
* ``label_smoothing`` and ``weight_decay`` — the plain regularisers.
* ``loss`` — a custom per-sample loss ``loss(logits, y, soft, T) -> per-sample tensor`` (leading
  axes are sample axes: ``(B,)`` for one model, ``(R, B)`` for stacked models), e.g. a confidence
  penalty. It is a runtime hook: it is not written by :meth:`to_dict`.
* ``clip_norm`` / ``noise_multiplier`` — DP-SGD (per-sample clipping and Gaussian noise). Only
  :func:`engine.defences.dp_sgd` trains with them (it owns the privacy accountant);
  ``train_model`` and ``train_many_mlps`` refuse a spec that sets them rather than silently
  training without privacy. A DP-SGD model's spec records both, so its card says how it was
  trained.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import asdict, dataclass, fields, replace
from typing import Any

FAMILIES = ("mlp", "logistic", "random_forest", "gradient_boosting")
FAMILY_LABELS = {
    "mlp": "Neural network (MLP, torch)",
    "logistic": "Logistic regression (scikit-learn)",
    "random_forest": "Random forest (scikit-learn)",
    "gradient_boosting": "Gradient boosting (scikit-learn, histogram-based)",
}
OPTIMIZERS = ("adam", "adamw", "sgd")
ACTIVATIONS = ("relu", "tanh")


@dataclass(frozen=True)
class Architecture:
    """Hidden layer widths and activation of an MLP (the output layer has n_classes units)."""

    hidden: tuple[int, ...]
    activation: str
    label: str


ARCHITECTURES: dict[str, Architecture] = {
    "small": Architecture((128,), "relu", "one hidden layer of 128 ReLU units"),
    # Paper 004 §4.2 (after Nasr et al. 2018): fully connected, tanh, layers 1024-512-256-128.
    "purchase": Architecture((1024, 512, 256, 128), "tanh",
                             "1024-512-256-128 tanh (paper 004 §4.2, Purchase100/Texas100)"),
}

# Family defaults for fields left at None.
_DEFAULTS: dict[str, dict[str, Any]] = {
    "mlp": {"epochs": 30, "batch_size": 128, "lr": None, "n_estimators": None},
    "logistic": {"epochs": None, "batch_size": None, "lr": None, "n_estimators": None},
    "random_forest": {"epochs": None, "batch_size": None, "lr": None, "n_estimators": 100},
    "gradient_boosting": {"epochs": None, "batch_size": None, "lr": 0.1, "n_estimators": 100},
}
_MLP_LR = {"adam": 1e-3, "adamw": 1e-3, "sgd": 1e-2}

LossHook = Callable[..., Any]


@dataclass(frozen=True)
class TrainingSpec:
    """Everything that decides a trained model, given the data and the device.

    MLP: ``architecture`` (a key of :data:`ARCHITECTURES`) or an explicit ``hidden`` /
    ``activation`` override; ``epochs``, ``batch_size``, ``lr``, ``weight_decay`` (L2 added to
    the gradient for adam/sgd, decoupled for adamw), ``optimizer``, ``momentum`` (sgd).
    scikit-learn: ``n_estimators`` (trees, or boosting iterations), ``max_depth``, ``lr`` (the
    boosting learning rate), ``C`` and ``max_iter`` (logistic regression).
    ``seed`` decides every random stream (initial weights, batch order, bootstrap samples).
    """

    family: str = "mlp"
    architecture: str = "small"
    hidden: tuple[int, ...] | None = None
    activation: str | None = None
    epochs: int | None = None
    batch_size: int | None = None
    lr: float | None = None
    weight_decay: float = 0.0
    optimizer: str = "adam"
    momentum: float = 0.9
    seed: int = 0
    # scikit-learn families
    n_estimators: int | None = None
    max_depth: int | None = None
    C: float = 1.0
    max_iter: int = 200
    # defences (next issue) and regularisers
    label_smoothing: float = 0.0
    soft_label_weight: float = 1.0
    temperature: float = 1.0
    loss: LossHook | None = None
    clip_norm: float | None = None
    noise_multiplier: float | None = None

    # ----------------------------------------------------------------- derived values

    def resolved(self) -> TrainingSpec:
        """A copy with the family defaults filled in and every field checked."""
        self.validate()
        fill = {}
        for key, value in _DEFAULTS[self.family].items():
            if getattr(self, key) is None and value is not None:
                fill[key] = value
        if self.family == "mlp":
            arch = ARCHITECTURES[self.architecture]
            if self.hidden is None:
                fill["hidden"] = arch.hidden
            if self.activation is None:
                fill["activation"] = arch.activation
            if self.lr is None:
                fill["lr"] = _MLP_LR[self.optimizer]
        return replace(self, **fill) if fill else self

    def layer_sizes(self, n_features: int, n_classes: int) -> tuple[int, ...]:
        """(d, h_1, …, h_L, k) of the MLP this spec trains."""
        hidden = self.hidden if self.hidden is not None else ARCHITECTURES[self.architecture].hidden
        return (int(n_features), *(int(h) for h in hidden), int(n_classes))

    def describe(self) -> str:
        """One line for a report: the family, the architecture and the main settings."""
        s = self.resolved()
        if s.family == "mlp":
            layers = "-".join(str(h) for h in s.hidden)
            return (f"MLP {layers} {s.activation}, {s.optimizer} lr {s.lr:g}, "
                    f"{s.epochs} epochs, batch {s.batch_size}, weight decay {s.weight_decay:g}, "
                    f"seed {s.seed}")
        if s.family == "logistic":
            return f"logistic regression, C {s.C:g}, at most {s.max_iter} iterations, seed {s.seed}"
        depth = "unlimited depth" if s.max_depth is None else f"max depth {s.max_depth}"
        if s.family == "random_forest":
            return f"random forest, {s.n_estimators} trees, {depth}, seed {s.seed}"
        return (f"gradient boosting, {s.n_estimators} iterations, learning rate {s.lr:g}, "
                f"{depth}, seed {s.seed}")

    # ----------------------------------------------------------------- checks

    def validate(self) -> None:
        """Raise ``ValueError`` with a sentence naming the field when a value cannot work."""
        if self.family not in FAMILIES:
            raise ValueError(f"Unknown model family {self.family!r}; choose one of "
                             f"{', '.join(FAMILIES)}.")
        if self.family == "mlp":
            if self.hidden is None and self.architecture not in ARCHITECTURES:
                raise ValueError(f"Unknown MLP architecture {self.architecture!r}; choose one of "
                                 f"{', '.join(ARCHITECTURES)} or give hidden layer sizes.")
            if self.hidden is not None and (len(self.hidden) == 0
                                            or any(int(h) < 1 for h in self.hidden)):
                raise ValueError("Hidden layer sizes must be at least one positive width.")
            if self.activation is not None and self.activation not in ACTIVATIONS:
                raise ValueError(f"Unknown activation {self.activation!r}; choose one of "
                                 f"{', '.join(ACTIVATIONS)}.")
            if self.optimizer not in OPTIMIZERS:
                raise ValueError(f"Unknown optimizer {self.optimizer!r}; choose one of "
                                 f"{', '.join(OPTIMIZERS)}.")
        _positive_int(self, "epochs", allow_zero=True)
        _positive_int(self, "batch_size")
        _positive_int(self, "n_estimators")
        _positive_int(self, "max_depth")
        _positive_int(self, "max_iter")
        if self.lr is not None and not self.lr > 0:
            raise ValueError(f"The learning rate must be positive, got {self.lr}.")
        if not self.weight_decay >= 0:
            raise ValueError(f"Weight decay must be non-negative, got {self.weight_decay}.")
        if not 0 <= self.momentum < 1:
            raise ValueError(f"Momentum must be in [0, 1), got {self.momentum}.")
        if not self.C > 0:
            raise ValueError(f"C (inverse regularisation) must be positive, got {self.C}.")
        if not 0 <= self.label_smoothing < 1:
            raise ValueError(f"Label smoothing must be in [0, 1), got {self.label_smoothing}.")
        if not 0 <= self.soft_label_weight <= 1:
            raise ValueError("The soft-label weight must be in [0, 1], got "
                             f"{self.soft_label_weight}.")
        if not self.temperature > 0:
            raise ValueError(f"The temperature must be positive, got {self.temperature}.")
        if self.clip_norm is not None and not self.clip_norm > 0:
            raise ValueError(f"The clipping norm must be positive, got {self.clip_norm}.")
        if self.noise_multiplier is not None and not self.noise_multiplier >= 0:
            raise ValueError("The noise multiplier must be non-negative, got "
                             f"{self.noise_multiplier}.")

    # ----------------------------------------------------------------- (de)serialisation

    def to_dict(self) -> dict:
        """Plain JSON-able values (the runtime ``loss`` hook is left out)."""
        out = asdict(self)
        out.pop("loss")
        if out["hidden"] is not None:
            out["hidden"] = list(out["hidden"])
        return out

    @classmethod
    def from_dict(cls, data: dict) -> TrainingSpec:
        """Inverse of :meth:`to_dict`; unknown keys are an error (a typo must not pass)."""
        known = {f.name for f in fields(cls)} - {"loss"}
        unknown = sorted(set(data) - known)
        if unknown:
            raise ValueError(f"Unknown training settings: {', '.join(unknown)}.")
        values = dict(data)
        if values.get("hidden") is not None:
            values["hidden"] = tuple(int(h) for h in values["hidden"])
        spec = cls(**values)
        spec.validate()
        return spec


def _positive_int(spec: TrainingSpec, name: str, *, allow_zero: bool = False) -> None:
    value = getattr(spec, name)
    if value is None:
        return
    if int(value) != value or value < (0 if allow_zero else 1):
        need = "a non-negative" if allow_zero else "a positive"
        raise ValueError(f"{name.replace('_', ' ').capitalize()} must be {need} whole number, "
                         f"got {value}.")
