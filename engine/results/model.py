"""The model audit's typed theory block, settings, attack details and exposed members (issue 33
item 1), read from result.json by :func:`load_theory` (called by
engine.results.loaded.load_result).

What engine.audits.model writes under ``theory``: the audited ``model`` (family, records,
accuracies, training), the ``threat_model``, paper 001's ``btta_bound`` (Thm 2) and the
``generalization_gap`` (typed in engine.results.blocks, where result_problem checks them), the
optional ``attribute_inference`` game and the optional ``defences`` trade-off
(engine.results.model_defences). Every reader of a model result (engine/report/model*.py,
gui/widgets/model_results.py) reads these by attribute.

Old saved results: a key a result lacks reads as None, an empty tuple or the default the app
used when it was written; a block of the wrong form reads as absent (result_problem names the
damage); nothing here raises. Keys this module does not type are kept in ``extra``.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from types import MappingProxyType

from engine.numbers import is_finite
from engine.results.blocks import (
    BlockError,
    BttaBound,
    GeneralizationGap,
    finite_pair,
    table_or_empty,
    unknown_keys,
)
from engine.results.model_defences import DefencesBlock


def _number(v):
    """``v`` when it is a finite number, else None."""
    return v if is_finite(v) else None


def _text(v) -> str | None:
    return None if v is None else str(v)


# ----------------------------------------------------------------------------- settings

@dataclass(frozen=True)
class ModelSettings:
    """The parts of a model result's ``config`` its readers use (engine.audits.model's
    ModelAuditConfig as saved), with the defaults the app had when a key is missing."""

    source: str = "train"
    prediction_kind: str | None = None
    predictions: str = ""
    data: str = ""
    synthetic: str = ""
    family: str = ""
    member_column: str = ""
    attacker_fraction: float | None = None
    train_fraction: float | None = None
    shadow_models: int | None = None
    reference_models: int | None = None
    confidence: float | None = None
    seed: int | None = None

    @classmethod
    def from_config(cls, config) -> ModelSettings:
        c = table_or_empty(config)
        return cls(source=str(c.get("source") or "train"),
                   prediction_kind=_text(c.get("prediction_kind")),
                   predictions=str(c.get("predictions") or ""), data=str(c.get("data") or ""),
                   synthetic=str(c.get("synthetic") or ""), family=str(c.get("family") or ""),
                   member_column=str(c.get("member_column") or ""),
                   attacker_fraction=c.get("attacker_fraction"),
                   train_fraction=c.get("train_fraction"),
                   shadow_models=c.get("shadow_models"),
                   reference_models=c.get("reference_models"),
                   confidence=c.get("confidence"), seed=c.get("seed"))

    @property
    def loss_only(self) -> bool:
        """The predictions file held one loss per record (no accuracies, no Thm 2 bound)."""
        return self.source == "predictions" and self.prediction_kind == "loss"

    @property
    def split_by_audit(self) -> bool:
        """Membership was decided by the audit's own random split (trained here, no members
        column): the empirical ε bounds' assumption holds."""
        return self.source == "train" and not self.member_column

    @property
    def synthetic_records(self) -> bool:
        """The records were generated from the seed (no data file, no predictions file)."""
        return self.source == "train" and not self.data


# ----------------------------------------------------------------------------- the model

_MODEL_KEYS = ("family", "description", "train_records", "test_records", "population_records",
               "classes", "features", "feature_columns", "train_accuracy", "test_accuracy",
               "mean_loss_members", "mean_loss_non_members", "device", "training_device",
               "training_runtime_s", "shadow_models", "reference_models", "computed_on")


@dataclass(frozen=True)
class ModelInfo:
    """``theory.model``: what was audited (engine.audits.model): the family and its
    description, the records, the accuracies p0 and p1 (or the mean losses of a predictions
    file of losses), the shadow and reference models and where it trained."""

    family: str | None = None
    description: str | None = None
    train_records: int | None = None
    test_records: int | None = None
    population_records: int | None = None
    classes: int | None = None
    features: int | None = None
    feature_columns: int | None = None
    train_accuracy: float | None = None
    test_accuracy: float | None = None
    mean_loss_members: float | None = None
    mean_loss_non_members: float | None = None
    device: str | None = None
    training_device: str | None = None
    training_runtime_s: float | None = None
    shadow_models: int | None = None
    reference_models: int | None = None
    computed_on: str | None = None
    extra: Mapping = field(default_factory=dict)

    @classmethod
    def from_dict(cls, d) -> ModelInfo:
        d = table_or_empty(d)
        return cls(**{k: d.get(k) for k in _MODEL_KEYS}, extra=unknown_keys(d, _MODEL_KEYS))

    def features_counts(self) -> Mapping:
        """The two counts engine.data.tabular.model_features_text reads."""
        return {"features": self.features, "feature_columns": self.feature_columns}


# ----------------------------------------------------------------------------- per class

@dataclass(frozen=True)
class ClassGap:
    """One row of ``generalization_gap.per_class``."""

    name: object = None
    n_members: int = 0
    n_non_members: int = 0
    train_accuracy: float | None = None
    train_accuracy_ci: tuple | None = None
    test_accuracy: float | None = None
    test_accuracy_ci: tuple | None = None
    gap: float | None = None
    gap_ci: tuple | None = None

    @classmethod
    def from_dict(cls, d: Mapping) -> ClassGap:
        return cls(name=d.get("class"), n_members=d.get("n_members") or 0,
                   n_non_members=d.get("n_non_members") or 0,
                   train_accuracy=d.get("train_accuracy"),
                   train_accuracy_ci=finite_pair(d.get("train_accuracy_ci")),
                   test_accuracy=d.get("test_accuracy"),
                   test_accuracy_ci=finite_pair(d.get("test_accuracy_ci")), gap=d.get("gap"),
                   gap_ci=finite_pair(d.get("gap_ci")))


@dataclass(frozen=True)
class ClassAttack:
    """One row of an attack's ``per_class``: the attack within one class."""

    name: object = None
    n_members: int = 0
    n_non_members: int = 0
    auc: float | None = None
    auc_ci: tuple | None = None
    tpr: float | None = None
    fpr: float | None = None

    @classmethod
    def from_dict(cls, d: Mapping) -> ClassAttack:
        return cls(name=d.get("class"), n_members=d.get("n_members") or 0,
                   n_non_members=d.get("n_non_members") or 0, auc=d.get("auc"),
                   auc_ci=finite_pair(d.get("auc_ci")), tpr=d.get("tpr"), fpr=d.get("fpr"))


def class_rows(rows, kind: type) -> tuple:
    """The tables of ``rows`` read as ``kind`` (:class:`ClassGap`, :class:`ClassAttack`)."""
    return tuple(kind.from_dict(c) for c in rows or () if isinstance(c, Mapping))


# ----------------------------------------------------------------------------- attribute game

@dataclass(frozen=True)
class Scores:
    """A predictor's share right (top-1) and AUC with their intervals."""

    accuracy: float | None = None
    accuracy_ci: tuple | None = None
    auc: float | None = None
    auc_ci: tuple | None = None

    @classmethod
    def from_dict(cls, d) -> Scores:
        d = table_or_empty(d)
        return cls(accuracy=d.get("accuracy"), accuracy_ci=d.get("accuracy_ci"),
                   auc=d.get("auc"), auc_ci=d.get("auc_ci"))


@dataclass(frozen=True)
class ObviousGuess:
    """Answering the most common value for everyone (issue 32 item 1)."""

    value: object = None
    accuracy: float | None = None


@dataclass(frozen=True)
class RealPeople:
    """The predictor judged against the obvious guess (issue 32 item 1): its scaled score."""

    scaled_score: float | None = None
    scaled_score_ci: tuple | None = None
    obvious_guess: ObviousGuess | None = None

    @classmethod
    def from_dict(cls, d) -> RealPeople | None:
        if not isinstance(d, Mapping):
            return None          # a result from before issue 32
        og = d.get("obvious_guess")
        return cls(scaled_score=d.get("scaled_score"), scaled_score_ci=d.get("scaled_score_ci"),
                   obvious_guess=(ObviousGuess(og.get("value"), og.get("accuracy"))
                                  if isinstance(og, Mapping) else None))


@dataclass(frozen=True)
class AttributeGroup:
    """The attribute game on one group of records (members or non-members)."""

    model: Scores = field(default_factory=Scores)
    baseline: Scores = field(default_factory=Scores)
    real_people: RealPeople | None = None

    @classmethod
    def from_dict(cls, d) -> AttributeGroup:
        d = table_or_empty(d)
        return cls(model=Scores.from_dict(d.get("model")),
                   baseline=Scores.from_dict(d.get("baseline")),
                   real_people=RealPeople.from_dict(d.get("real_people")))


@dataclass(frozen=True)
class AttributeInference:
    """``theory.attribute_inference`` (engine.attacks.model.attribute; issue 8): predicting a
    sensitive feature with and without the model's outputs, for members and non-members.
    ``table`` is the block as read, for engine.audits.model.attribute_sentence (the one
    sentence shared with the summary)."""

    feature: str | None = None
    classifier: str | None = None
    attacker_records: int | None = None
    members: AttributeGroup = field(default_factory=AttributeGroup)
    non_members: AttributeGroup = field(default_factory=AttributeGroup)
    table: Mapping = field(default_factory=dict, repr=False, compare=False)

    @classmethod
    def from_dict(cls, d) -> AttributeInference | None:
        if not isinstance(d, Mapping) or not d:
            return None
        return cls(feature=_text(d.get("feature")), classifier=_text(d.get("classifier")),
                   attacker_records=d.get("attacker_records"),
                   members=AttributeGroup.from_dict(d.get("members")),
                   non_members=AttributeGroup.from_dict(d.get("non_members")),
                   table=MappingProxyType(dict(d)))

    def groups(self) -> tuple[tuple[str, AttributeGroup], ...]:
        """(key, group) for the members then the non-members."""
        return (("members", self.members), ("non_members", self.non_members))


# ----------------------------------------------------------------------------- attack details

@dataclass(frozen=True)
class ModelAttackDetails:
    """The parts of a model attack's ``details`` that the report and the screen read."""

    paper: str | None = None
    metric: str | None = None
    extra: Mapping = field(default_factory=dict)

    @classmethod
    def from_dict(cls, d) -> ModelAttackDetails:
        d = table_or_empty(d)
        return cls(paper=_text(d.get("paper")) if d.get("paper") else None,
                   metric=_text(d.get("metric")) if d.get("metric") else None,
                   extra=unknown_keys(d, ("paper", "metric")))


def attack_details(attack) -> ModelAttackDetails:
    """The typed details of ``attack`` (an engine.results.blocks.AttackEntry)."""
    return ModelAttackDetails.from_dict(attack.details)


# ----------------------------------------------------------------------------- exposed members

@dataclass(frozen=True)
class ExposedMember:
    """One of ``exposed_records``: a member the strongest attack is surest about (its rank,
    its row in the audited data, the attack's score, and its label when the audit kept it)."""

    rank: int | None = None
    row: int | None = None
    score: float | None = None
    attack: str | None = None
    label: object = None
    has_label: bool = False

    @classmethod
    def from_dict(cls, d: Mapping) -> ExposedMember:
        return cls(rank=d.get("rank"), row=d.get("row"), score=d.get("score"),
                   attack=_text(d.get("attack")) if d.get("attack") else None,
                   label=d.get("label"), has_label="label" in d)


# ----------------------------------------------------------------------------- the theory

def _typed_block(d, block: type):
    """``d`` read as ``block`` (BttaBound, GeneralizationGap), or None when the result has
    none or it is damaged (engine.results.blocks.theory_block's rule)."""
    if not d:
        return None
    try:
        return block.from_dict(d)
    except BlockError:
        return None


_THEORY_KEYS = ("model", "threat_model", "btta_bound", "generalization_gap",
                "attribute_inference", "defences")


@dataclass(frozen=True)
class ModelTheory:
    """A model result's theory block and the settings it was run with (module docstring)."""

    model: ModelInfo = field(default_factory=ModelInfo)
    threat_model: str | None = None
    btta_bound: BttaBound | None = None
    generalization_gap: GeneralizationGap | None = None
    gap_classes: tuple[ClassGap, ...] = ()
    attribute_inference: AttributeInference | None = None
    defences: DefencesBlock | None = None
    settings: ModelSettings = field(default_factory=ModelSettings)
    attack_details: Mapping = field(default_factory=dict)     # attack name -> details
    class_attacks: Mapping = field(default_factory=dict)      # attack name -> ClassAttack rows
    exposed: tuple[ExposedMember, ...] = ()
    extra: Mapping = field(default_factory=dict)

    def details_of(self, attack) -> ModelAttackDetails:
        """The typed details of ``attack`` (an AttackEntry), empty when it has none."""
        return self.attack_details.get(attack.name) or ModelAttackDetails()

    def classes_of(self, attack) -> tuple[ClassAttack, ...]:
        """``attack`` (an AttackEntry, or None) class by class."""
        return () if attack is None else self.class_attacks.get(attack.name, ())

    @property
    def threat(self) -> str:
        """The threat model's name ("shadow" for a result that does not say)."""
        return self.threat_model or "shadow"


def load_theory(theory: Mapping, result: Mapping) -> ModelTheory:
    """The theory block of a model result (result: the whole dict, for its config, the
    details of its attacks and its exposed members)."""
    theory = table_or_empty(theory)
    result = table_or_empty(result)
    gap = _typed_block(theory.get("generalization_gap"), GeneralizationGap)
    attacks = [a for a in result.get("attacks") or () if isinstance(a, Mapping)
               and isinstance(a.get("name"), str)]
    return ModelTheory(
        model=ModelInfo.from_dict(theory.get("model")),
        threat_model=_text(theory.get("threat_model")) if theory.get("threat_model") else None,
        btta_bound=_typed_block(theory.get("btta_bound"), BttaBound),
        generalization_gap=gap,
        gap_classes=class_rows(gap.per_class, ClassGap) if gap is not None else (),
        attribute_inference=AttributeInference.from_dict(theory.get("attribute_inference")),
        defences=DefencesBlock.from_dict(theory.get("defences")),
        settings=ModelSettings.from_config(result.get("config")),
        attack_details=MappingProxyType({a["name"]: ModelAttackDetails.from_dict(a.get("details"))
                                         for a in attacks}),
        class_attacks=MappingProxyType({a["name"]: class_rows(a.get("per_class"), ClassAttack)
                                        for a in attacks}),
        exposed=tuple(ExposedMember.from_dict(r) for r in result.get("exposed_records") or ()
                      if isinstance(r, Mapping)),
        extra=unknown_keys(theory, _THEORY_KEYS))


__all__ = ["AttributeGroup", "AttributeInference", "ClassAttack", "ClassGap", "ExposedMember",
           "ModelAttackDetails", "ModelInfo", "ModelSettings", "ModelTheory", "ObviousGuess",
           "RealPeople", "Scores", "attack_details", "class_rows", "load_theory"]
