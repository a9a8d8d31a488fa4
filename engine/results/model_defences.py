"""``theory.defences`` of a model result, typed (issue 33 item 1; issue 9; paper 004 §4.3, §5).

engine.defences.audit.run_defences writes one row per defence setting (the model retrained
with it and attacked under the supervised threat model): its accuracies, the strongest
attack's risk on every measure, the DP-SGD promise against the evidence; then the user's
limit, the recommendation, the sentences and the facts of the sweep. The report
(engine/report/defences.py), the chart series (engine/plots/tradeoff.py) and the screen
(gui/widgets/defences_*.py) read this block by attribute.

Old saved results: a key the block lacks reads as None, an empty tuple or an empty table;
a block without rows reads as no block (nothing is shown, as before). ``table`` keeps the
block as read for the engine's own sentences (engine.defences.audit.attacks_sentence) and
``extra`` the keys not typed here.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from types import MappingProxyType

from engine.headline import same_rate
from engine.numbers import is_finite
from engine.results.blocks import finite_pair, table_or_empty, tpr_row_at, unknown_keys

# ----------------------------------------------------------------------------- one row's risk

@dataclass(frozen=True)
class RiskValue:
    """The strongest attack's value on one measure for one setting: the value (None when not
    a finite number), its interval (None unless two finite numbers), which attack, whether it
    is measurable (a TPR at too low an FPR is not), the FPR of a TPR, and for the ε bound the
    most the records could certify."""

    value: float | None = None
    ci: tuple | None = None
    attack: str | None = None
    attack_label: str | None = None
    measurable: bool = True
    fpr: float | None = None
    max_certifiable: float | None = None

    @classmethod
    def from_dict(cls, d) -> RiskValue | None:
        if not isinstance(d, Mapping):
            return None
        value = d.get("value", d.get("tpr"))
        return cls(value=float(value) if is_finite(value) else None, ci=finite_pair(d.get("ci")),
                   attack=d.get("attack"), attack_label=d.get("attack_label"),
                   measurable=d.get("measurable", True) is not False,
                   fpr=d.get("fpr", d.get("fpr_target")),
                   max_certifiable=d.get("max_certifiable"))


_MEASURES = ("auc", "accuracy", "advantage", "epsilon")


@dataclass(frozen=True)
class DefenceRisk:
    """A row's ``risk``: the strongest attack per measure (AUC, balanced accuracy, advantage,
    empirical ε lower bound), its TPR at each FPR target, and ``tpr`` (the TPR at the limit's
    FPR, as older results store it)."""

    auc: RiskValue | None = None
    accuracy: RiskValue | None = None
    advantage: RiskValue | None = None
    epsilon: RiskValue | None = None
    tpr_at_fpr: tuple[RiskValue, ...] = ()
    tpr: RiskValue | None = None

    @classmethod
    def from_dict(cls, d) -> DefenceRisk:
        d = table_or_empty(d)
        return cls(**{k: RiskValue.from_dict(d.get(k)) for k in _MEASURES},
                   tpr_at_fpr=tuple(r for r in (RiskValue.from_dict(x)
                                                for x in d.get("tpr_at_fpr") or ())
                                    if r is not None),
                   tpr=RiskValue.from_dict(d.get("tpr")))

    def tpr_at(self, fpr) -> RiskValue | None:
        """The TPR row for false-alarm rate ``fpr`` (the one rate lookup,
        engine.results.blocks.tpr_row_at), or None."""
        return None if fpr is None else tpr_row_at(self.tpr_at_fpr, fpr)

    def tpr_at_limit(self, fpr) -> RiskValue | None:
        """:meth:`tpr_at`, else the stored ``tpr`` when it is for ``fpr`` (a result whose rows
        list no TPR at that rate)."""
        row = self.tpr_at(fpr)
        if row is None and self.tpr is not None and is_finite(self.tpr.fpr) \
                and is_finite(fpr) and same_rate(self.tpr.fpr, fpr):
            row = self.tpr
        return row

    def measure(self, metric: str) -> RiskValue | None:
        """The entry of ``metric`` (auc, accuracy, advantage, epsilon), or None."""
        return getattr(self, metric) if metric in _MEASURES else None


# ----------------------------------------------------------------------------- one row

@dataclass(frozen=True)
class DpPromise:
    """A DP-SGD row's ``dp``: the accountant's ε against the ε the attacks certify."""

    accountant_epsilon: float | None = None
    delta: float | None = None
    accountant: str | None = None
    empirical_epsilon_lower_bound: float | None = None
    attack: str | None = None
    confidence: float | None = None
    attacks_together: int | None = None
    within_claim: bool | None = None
    max_certifiable: float | None = None
    testable: bool | None = None
    verdict: str | None = None
    extra: Mapping = field(default_factory=dict)

    _KEYS = ("accountant_epsilon", "delta", "accountant", "empirical_epsilon_lower_bound",
             "attack", "confidence", "attacks_together", "within_claim", "max_certifiable",
             "testable", "verdict")

    @classmethod
    def from_dict(cls, d) -> DpPromise | None:
        if not isinstance(d, Mapping):
            return None
        return cls(**{k: d.get(k) for k in cls._KEYS}, extra=unknown_keys(d, cls._KEYS))


@dataclass(frozen=True)
class RowStrongest:
    """A row's ``strongest``: the attack that decided its risk level."""

    name: str | None = None
    label: str | None = None
    level: str | None = None
    auc: float | None = None
    accuracy: float | None = None
    tpr: float | None = None
    tpr_measurable: bool = True

    @classmethod
    def from_dict(cls, d) -> RowStrongest:
        d = table_or_empty(d)
        return cls(name=d.get("name"), label=d.get("label"), level=d.get("level"),
                   auc=d.get("auc"), accuracy=d.get("accuracy"), tpr=d.get("tpr"),
                   tpr_measurable=d.get("tpr_measurable", True) is not False)


@dataclass(frozen=True)
class RowAttack:
    """One of a row's compact attack entries: its name and label (the rest in ``extra``)."""

    name: str | None = None
    label: str | None = None
    extra: Mapping = field(default_factory=dict)


_ROW_KEYS = ("index", "defence", "label", "plain_label", "knobs", "test_accuracy",
             "test_accuracy_ci", "train_accuracy", "train_accuracy_ci", "generalization_gap",
             "risk", "strongest", "attacks", "dp", "training_runtime_s")


@dataclass(frozen=True)
class DefenceRow:
    """One defence setting, retrained and attacked (module docstring)."""

    index: int | None = None
    defence: str | None = None
    label: str | None = None
    plain_label: str | None = None
    knobs: Mapping = field(default_factory=dict)
    test_accuracy: float | None = None
    test_accuracy_ci: tuple | None = None
    train_accuracy: float | None = None
    train_accuracy_ci: tuple | None = None
    generalization_gap: float | None = None
    risk: DefenceRisk = field(default_factory=DefenceRisk)
    has_risk: bool = False
    strongest: RowStrongest = field(default_factory=RowStrongest)
    attacks: tuple[RowAttack, ...] = ()
    dp: DpPromise | None = None
    training_runtime_s: float | None = None
    extra: Mapping = field(default_factory=dict)

    @classmethod
    def from_dict(cls, d: Mapping) -> DefenceRow:
        return cls(index=d.get("index"), defence=d.get("defence"), label=d.get("label"),
                   plain_label=d.get("plain_label"), knobs=table_or_empty(d.get("knobs")),
                   test_accuracy=d.get("test_accuracy"),
                   test_accuracy_ci=finite_pair(d.get("test_accuracy_ci")),
                   train_accuracy=d.get("train_accuracy"),
                   train_accuracy_ci=finite_pair(d.get("train_accuracy_ci")),
                   generalization_gap=d.get("generalization_gap"),
                   risk=DefenceRisk.from_dict(d.get("risk")),
                   has_risk=isinstance(d.get("risk"), Mapping),
                   strongest=RowStrongest.from_dict(d.get("strongest")),
                   attacks=tuple(RowAttack(a.get("name"), a.get("label"),
                                           unknown_keys(a, ("name", "label")))
                                 for a in d.get("attacks") or () if isinstance(a, Mapping)),
                   dp=DpPromise.from_dict(d.get("dp")),
                   training_runtime_s=d.get("training_runtime_s"),
                   extra=unknown_keys(d, _ROW_KEYS))

    def attack_named(self, name) -> RowAttack | None:
        """The row's attack entry called ``name``, or None."""
        return next((a for a in self.attacks if a.name == name), None)


# ----------------------------------------------------------------------------- the block

@dataclass(frozen=True)
class Limit:
    """The user's risk limit: on which measure, the value, the FPR of a TPR limit, whether it
    is judged on the interval's upper end, and the limit in words."""

    metric: str | None = None
    value: float | None = None
    fpr: float | None = None
    use_upper: bool = False
    text: str | None = None
    plain: str | None = None

    @classmethod
    def from_dict(cls, d) -> Limit:
        d = table_or_empty(d)
        return cls(metric=d.get("metric"), value=d.get("value"), fpr=d.get("fpr"),
                   use_upper=bool(d.get("use_upper")), text=d.get("text"),
                   plain=d.get("plain"))


@dataclass(frozen=True)
class Recommendation:
    """The recommended setting (or why there is none): whether a setting meets the limit
    (``met``), whether a defence is needed at all, the row index, the statement, the rows
    within the limit and those that could not be judged."""

    met: bool | None = None
    needed: bool | None = None
    index: int | None = None
    label: str | None = None
    statement: str | None = None
    candidates: tuple = ()
    not_measurable: tuple = ()
    extra: Mapping = field(default_factory=dict)

    _KEYS = ("met", "needed", "index", "label", "statement", "candidates", "not_measurable")

    @classmethod
    def from_dict(cls, d) -> Recommendation:
        d = table_or_empty(d)
        return cls(met=d.get("met"), needed=d.get("needed"), index=d.get("index"),
                   label=d.get("label"), statement=d.get("statement"),
                   candidates=tuple(d.get("candidates") or ()),
                   not_measurable=tuple(d.get("not_measurable") or ()),
                   extra=unknown_keys(d, cls._KEYS))

    @property
    def chosen(self) -> int | None:
        """The index of the recommended row when a setting meets the limit, else None."""
        return self.index if self.met else None


@dataclass(frozen=True)
class MostVulnerable:
    """The setting the strongest attack does best against."""

    index: int | None = None
    label: str | None = None
    auc: float | None = None
    is_undefended: bool | None = None
    undefended_within_interval: bool | None = None

    @classmethod
    def from_dict(cls, d) -> MostVulnerable | None:
        if not isinstance(d, Mapping) or not d:
            return None
        return cls(index=d.get("index"), label=d.get("label"), auc=d.get("auc"),
                   is_undefended=d.get("is_undefended"),
                   undefended_within_interval=d.get("undefended_within_interval"))


@dataclass(frozen=True)
class SweepData:
    """The records every setting was trained and measured on."""

    source: str | None = None
    records: int | None = None
    members: int | None = None
    non_members: int | None = None
    features: int | None = None
    classes: int | None = None
    sha256: str | None = None

    @classmethod
    def from_dict(cls, d) -> SweepData | None:
        if not isinstance(d, Mapping) or not d:
            return None
        return cls(source=d.get("source"), records=d.get("records"), members=d.get("members"),
                   non_members=d.get("non_members"), features=d.get("features"),
                   classes=d.get("classes"), sha256=d.get("sha256"))


_BLOCK_KEYS = ("rows", "limit", "recommendation", "sentences", "most_vulnerable", "data",
               "reference", "threat_model_text", "reference_threat_model_text",
               "reference_models", "reference_attacks_asked", "cost_in_models", "runtime_s",
               "device", "delta")


@dataclass(frozen=True)
class DefencesBlock:
    """``theory.defences`` (module docstring)."""

    rows: tuple[DefenceRow, ...] = ()
    limit: Limit = field(default_factory=Limit)
    recommendation: Recommendation = field(default_factory=Recommendation)
    sentences: tuple[str, ...] = ()
    most_vulnerable: MostVulnerable | None = None
    data: SweepData | None = None
    reference: str | None = None
    threat_model_text: str | None = None
    reference_threat_model_text: str | None = None
    reference_models: int | None = None
    # None: a result saved before the question was stored (read as "asked")
    reference_attacks_asked: tuple | None = None
    cost_in_models: Mapping | None = None
    runtime_s: float | None = None
    device: str | None = None
    delta: float | None = None
    table: Mapping = field(default_factory=dict, repr=False, compare=False)
    extra: Mapping = field(default_factory=dict)

    @classmethod
    def from_dict(cls, d) -> DefencesBlock | None:
        """The block, or None when the audit ran no defences (no block, or no rows)."""
        if not isinstance(d, Mapping):
            return None
        rows = d.get("rows")
        if not isinstance(rows, list) or not any(isinstance(r, Mapping) for r in rows):
            return None
        asked = d.get("reference_attacks_asked")
        cost = d.get("cost_in_models")
        return cls(rows=tuple(DefenceRow.from_dict(r) for r in rows if isinstance(r, Mapping)),
                   limit=Limit.from_dict(d.get("limit")),
                   recommendation=Recommendation.from_dict(d.get("recommendation")),
                   sentences=tuple(s for s in d.get("sentences") or () if isinstance(s, str)),
                   most_vulnerable=MostVulnerable.from_dict(d.get("most_vulnerable")),
                   data=SweepData.from_dict(d.get("data")), reference=d.get("reference"),
                   threat_model_text=d.get("threat_model_text"),
                   reference_threat_model_text=d.get("reference_threat_model_text"),
                   reference_models=d.get("reference_models"),
                   reference_attacks_asked=(None if "reference_attacks_asked" not in d
                                            else tuple(asked or ())),
                   cost_in_models=MappingProxyType(dict(cost)) if isinstance(cost, Mapping)
                   else None,
                   runtime_s=d.get("runtime_s"), device=d.get("device"), delta=d.get("delta"),
                   table=MappingProxyType(dict(d)), extra=unknown_keys(d, _BLOCK_KEYS))

    def row(self, index) -> DefenceRow | None:
        """The row whose ``index`` is ``index``, or None."""
        return next((r for r in self.rows if r.index == index), None)

    @property
    def limit_fpr(self) -> float | None:
        """The limit's FPR when it is a finite number, else None."""
        return self.limit.fpr if is_finite(self.limit.fpr) else None


def defences_of(block) -> DefencesBlock | None:
    """``block`` as a :class:`DefencesBlock`: a typed one as it is, a dict read (None when it
    has no rows). For readers that still accept the dict during the migration."""
    return block if isinstance(block, DefencesBlock) or block is None \
        else DefencesBlock.from_dict(block)


__all__ = ["DefenceRisk", "DefenceRow", "DefencesBlock", "DpPromise", "Limit",
           "MostVulnerable", "Recommendation", "RiskValue", "RowAttack", "RowStrongest",
           "SweepData", "defences_of"]
