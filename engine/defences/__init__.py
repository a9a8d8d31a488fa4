"""Defences of machine-learning models against membership inference (issue 9; paper 004).

Each defence takes the audited model's training data ``(X, y, n_classes)``, its
:class:`~engine.models.TrainingSpec`, the defence's knob values, a ``seed``, ``progress`` and
``cancel``, and returns the fitted-model object :func:`engine.models.train_model` returns
(an :class:`~engine.models.MLPModel` with ``predict_proba``), ``details["defence"]`` naming the
defence and its setting:

* :func:`kcd` / :func:`kcd_many` — knowledge cross-distillation (paper 004 §3, Alg. 2, Eq. 1);
* :func:`dmp` / :func:`dmp_many` — distillation for membership privacy (paper 004 §2.3, Alg. 1)
  with its three knobs; :func:`load_reference_csv` reads an unlabelled reference set;
* :func:`dp_sgd` — DP-SGD through Opacus with the accountant's ε at δ;
* :func:`undefended`, :func:`l2` / :func:`l2_many`, :func:`early_stopping` /
  :func:`early_stopping_many` — the baselines that need no special data.

:func:`tradeoff` trains and attacks a list of settings (the supervised threat model of paper
004 §4.3) and :func:`recommend` picks the setting that keeps the strongest attack under a limit
at the least accuracy cost; :func:`export_model` / :func:`load_model` /
:func:`export_predictions` write a model as safetensors, a JSON model card and a predictions
CSV. torch and Opacus are imported only when a model is trained.
"""

from engine.defences.baselines import (
    early_stopping,
    early_stopping_many,
    l2,
    l2_many,
    undefended,
)
from engine.defences.common import DEFENCE_LABELS, DEFENCES
from engine.defences.dmp import DMPSetting, dmp, dmp_many, load_reference_csv
from engine.defences.dpsgd import accountant_epsilon, dp_sgd, noise_for_epsilon
from engine.defences.export import (
    export_model,
    export_predictions,
    load_model,
    training_data_sha256,
)
from engine.defences.kcd import kcd, kcd_many, kcd_parts
from engine.defences.tradeoff import (
    SUPERVISED_ATTACKS,
    DefenceSetting,
    RiskLimit,
    TradeOff,
    as_settings,
    default_sweep,
    recommend,
    tradeoff,
)

__all__ = [
    "DEFENCES", "DEFENCE_LABELS", "DMPSetting", "DefenceSetting", "RiskLimit",
    "SUPERVISED_ATTACKS", "TradeOff", "accountant_epsilon", "as_settings", "default_sweep",
    "dmp", "dmp_many", "dp_sgd", "early_stopping", "early_stopping_many", "export_model",
    "export_predictions", "kcd", "kcd_many", "kcd_parts", "l2", "l2_many", "load_model",
    "load_reference_csv", "noise_for_epsilon", "recommend", "tradeoff", "training_data_sha256",
    "undefended",
]
