"""Model training for the machine-learning audit (issue 8): one model of any family, or many
MLPs (shadow / reference models) trained together as one stacked batch.

* :class:`TrainingSpec` — family, architecture and hyper-parameters (plus the hooks the
  defences of the next issue use: soft labels, temperature, label smoothing, custom loss).
* :func:`train_model` → :class:`FittedModel` (``predict_proba``, ``logits``, ``predict``,
  ``accuracy``, ``confidence_logit``).
* :func:`reference_tasks` / :func:`tasks_from_masks` → :class:`ReferenceTask` list;
  :func:`train_many_mlps` → :class:`BatchedMLP` (``predict_proba`` (R, n, k)).

torch and scikit-learn are imported only when a model is trained or evaluated.
"""

from engine.models.batched import (
    DESIGNS,
    BatchedMLP,
    ReferenceTask,
    reference_tasks,
    task_seed,
    tasks_from_masks,
    train_many_mlps,
)
from engine.models.fitted import (
    FittedModel,
    MLPModel,
    confidence_logit_from_logits,
    confidence_logit_from_proba,
    softmax,
)
from engine.models.spec import ARCHITECTURES, FAMILIES, FAMILY_LABELS, Architecture, TrainingSpec
from engine.models.train import train_model

__all__ = [
    "ARCHITECTURES", "DESIGNS", "FAMILIES", "FAMILY_LABELS", "Architecture", "BatchedMLP",
    "FittedModel", "MLPModel", "ReferenceTask", "TrainingSpec", "confidence_logit_from_logits",
    "confidence_logit_from_proba", "reference_tasks", "softmax", "task_seed", "tasks_from_masks",
    "train_many_mlps", "train_model",
]
