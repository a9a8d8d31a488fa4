"""The mechanism audit's typed theory block and settings (issue 33 item 1), read from
result.json by :func:`load_theory` (called by engine.results.loaded.load_result).

What the theory block holds is docs/dev/mechanism_audit_contract.md ("theory"): the mechanism
and its noise, the composed privacy over k observations, the exact attackers (Neyman–Pearson
optimal and the worst case for ε0-DP), the (ε, δ)-DP region, the what-if sweep and the answer
to the inverse question. Old results: a key missing, or not of its type, reads as None / () —
never an error.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field

from engine.results.blocks import (
    ComposedPrivacy,
    DpRegion,
    ExactAttacker,
    number_or_none,
    numbers,
    table_or_empty,
    text_or_none,
)


@dataclass(frozen=True)
class MechanismSweep:
    """``theory.sweep``: the best possible attacker computed exactly for other values of one
    setting (the what-if plot): the values, and the accuracy, AUC and TPR at ``fpr`` at each."""

    parameter: str | None = None         # "epsilon" or "observations"
    values: tuple = ()
    accuracy: tuple = ()
    auc: tuple = ()
    tpr_at_fpr: tuple = ()
    fpr: float | None = None
    current: float | None = None

    @classmethod
    def from_dict(cls, d) -> MechanismSweep | None:
        d = table_or_empty(d)
        if not d:
            return None
        return cls(parameter=text_or_none(d.get("parameter")),
                   values=numbers(d.get("values")), accuracy=numbers(d.get("accuracy")),
                   auc=numbers(d.get("auc")), tpr_at_fpr=numbers(d.get("tpr_at_fpr")),
                   fpr=number_or_none(d.get("fpr")), current=number_or_none(d.get("current")))


@dataclass(frozen=True)
class InverseAnswer:
    """``theory.inverse``: the largest ε per observation (and smallest noise) that keeps the
    best possible attacker under ``max_tpr`` at ``fpr`` — or why no setting does."""

    fpr: float | None = None
    max_tpr: float | None = None
    observations: int | None = None
    noise_scale_name: str | None = None
    method: str | None = None
    feasible: bool = False
    max_epsilon_per_observation: float | None = None
    min_noise_scale: float | None = None
    achieved_tpr: float | None = None
    note: str = ""

    @classmethod
    def from_dict(cls, d) -> InverseAnswer | None:
        d = table_or_empty(d)
        if not d:
            return None
        return cls(fpr=number_or_none(d.get("fpr")), max_tpr=number_or_none(d.get("max_tpr")),
                   observations=number_or_none(d.get("observations")),
                   noise_scale_name=text_or_none(d.get("noise_scale_name")),
                   method=text_or_none(d.get("method")), feasible=bool(d.get("feasible")),
                   max_epsilon_per_observation=number_or_none(
                       d.get("max_epsilon_per_observation")),
                   min_noise_scale=number_or_none(d.get("min_noise_scale")),
                   achieved_tpr=number_or_none(d.get("achieved_tpr")),
                   note=text_or_none(d.get("note")) or "")


_TYPED = ("mechanism", "mechanism_label", "noise_scale", "noise_scale_name",
          "epsilon_per_observation", "delta", "sensitivity", "observations", "composed",
          "epsilon_total", "optimal_attacker", "worst_case_dp", "dp_region", "sweep", "inverse")


@dataclass(frozen=True)
class MechanismTheory:
    """The theory block of a mechanism result (module docstring)."""

    mechanism: str | None = None
    mechanism_label: str | None = None
    noise_scale: float | None = None
    noise_scale_name: str | None = None
    epsilon_per_observation: float | None = None
    delta: float | None = None
    sensitivity: float | None = None
    observations: int | None = None
    composed: ComposedPrivacy = field(default_factory=ComposedPrivacy)
    epsilon_total: float | None = None
    optimal_attacker: ExactAttacker | None = None
    worst_case_dp: ExactAttacker | None = None
    dp_region: DpRegion | None = None
    sweep: MechanismSweep | None = None
    inverse: InverseAnswer | None = None
    extra: Mapping = field(default_factory=dict)

    @classmethod
    def from_dict(cls, d) -> MechanismTheory:
        d = table_or_empty(d)
        return cls(mechanism=text_or_none(d.get("mechanism")),
                   mechanism_label=text_or_none(d.get("mechanism_label")),
                   noise_scale=number_or_none(d.get("noise_scale")),
                   noise_scale_name=text_or_none(d.get("noise_scale_name")),
                   epsilon_per_observation=number_or_none(d.get("epsilon_per_observation")),
                   delta=number_or_none(d.get("delta")),
                   sensitivity=number_or_none(d.get("sensitivity")),
                   observations=number_or_none(d.get("observations")),
                   composed=ComposedPrivacy.from_dict(d.get("composed")),
                   epsilon_total=number_or_none(d.get("epsilon_total")),
                   optimal_attacker=ExactAttacker.from_dict(d.get("optimal_attacker")),
                   worst_case_dp=ExactAttacker.from_dict(d.get("worst_case_dp")),
                   dp_region=DpRegion.from_dict(d.get("dp_region")),
                   sweep=MechanismSweep.from_dict(d.get("sweep")),
                   inverse=InverseAnswer.from_dict(d.get("inverse")),
                   extra={k: v for k, v in d.items() if k not in _TYPED})

    @property
    def computed_on(self) -> Mapping:
        """Where each part of the run ran (engine.compute): the mechanism audit computes all
        of its theory in the app's own process, so nothing to name."""
        return {}

    @property
    def composed_delta(self) -> float | None:
        """The δ the composed ε is for (the composed block's, else the theory's)."""
        return self.composed.delta if self.composed.delta is not None else self.delta


@dataclass(frozen=True)
class MechanismSettings:
    """The config of a mechanism result as its readers use it (engine.audits.mechanism's
    config; a key an older result lacks reads as None)."""

    mechanism: str | None = None
    noise_from: str | None = None
    epsilon: float | None = None
    delta: float | None = None
    sensitivity: float | None = None
    observations: int | None = None
    trials: int | None = None
    postprocess: str | None = None
    seed: int | None = None

    @classmethod
    def from_config(cls, config) -> MechanismSettings:
        c = table_or_empty(config)
        return cls(mechanism=text_or_none(c.get("mechanism")),
                   noise_from=text_or_none(c.get("noise_from")),
                   epsilon=number_or_none(c.get("epsilon")), delta=number_or_none(c.get("delta")),
                   sensitivity=number_or_none(c.get("sensitivity")),
                   observations=number_or_none(c.get("observations")),
                   trials=number_or_none(c.get("trials")),
                   postprocess=c.get("postprocess"), seed=c.get("seed"))


def load_theory(theory: Mapping, result: Mapping) -> MechanismTheory:
    """The theory block of a mechanism result (``result``: the whole dict; unused, the block
    is read on its own)."""
    return MechanismTheory.from_dict(theory)
