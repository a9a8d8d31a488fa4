"""Noise mechanisms for the DP-mechanism audit: calibration, exact sampling, the optimal
attacker's ROC (f-DP trade-off) and composition accounting. Pure math, Qt-free; dp_accounting is
imported lazily inside :mod:`engine.mechanisms.accounting`.

Interfaces: docs/dev/mechanism_audit_contract.md, section "engine/mechanisms".
"""

from engine.mechanisms.arguments import MECHANISM_NAMES
from engine.mechanisms.calibration import (
    analytic_gaussian_sigma,
    discrete_gaussian_sigma,
    discrete_laplace_scale,
    gaussian_delta,
    gaussian_epsilon,
    laplace_scale,
    noise_scale,
)
from engine.mechanisms.postprocessing import clip_contribution, postprocess
from engine.mechanisms.sampling import sample_noise
from engine.mechanisms.tradeoff import (
    TradeOff,
    discrete_gaussian_tradeoff,
    discrete_laplace_tradeoff,
    dp_region_tpr_upper,
    gaussian_tradeoff,
    laplace_tradeoff,
    mechanism_tradeoff,
    pure_dp_worst_case_tradeoff,
)

MECHANISMS = MECHANISM_NAMES  # the one list of mechanism names (engine/mechanisms/arguments.py)

MECHANISM_LABELS = {
    "laplace": "Laplace",
    "gaussian": "Gaussian",
    "discrete_laplace": "Discrete Laplace",
    "discrete_gaussian": "Discrete Gaussian",
}

SCALE_NAMES = {
    "laplace": "scale b",
    "gaussian": "σ",
    "discrete_laplace": "scale t",
    "discrete_gaussian": "σ",
}

__all__ = [
    "MECHANISMS", "MECHANISM_LABELS", "SCALE_NAMES",
    "TradeOff", "analytic_gaussian_sigma", "clip_contribution", "discrete_gaussian_sigma",
    "discrete_gaussian_tradeoff", "discrete_laplace_scale", "discrete_laplace_tradeoff",
    "dp_region_tpr_upper", "gaussian_delta", "gaussian_epsilon", "gaussian_tradeoff",
    "laplace_scale", "laplace_tradeoff", "mechanism_tradeoff", "noise_scale", "postprocess",
    "pure_dp_worst_case_tradeoff", "sample_noise",
]
