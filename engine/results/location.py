"""The location audit's typed result parts (issue 33 item 1), read once from result.json by
:func:`load_theory` (called by engine.results.loaded.load_result): the theory block (paper 000:
the release, the target, the exact optimum and the ε-DP worst case, the privacy accounting,
the accuracy-against-observations sweep, the published release, the repetitions), the
location-specific ``details`` of each attack entry, the exposed-people summary and a typed view
of the settings the readers quote (:class:`LocationSettings`).

Old saved results: a key missing, or not of the form the app writes, reads as None / () / the
default, never as an exception; keys no reader uses are kept in each block's ``extra``
(``to_dict`` writes a block back). The parts the DP audits share (the composed privacy, the
exact attackers, the DP region) are the blocks of engine.results.blocks, as in the mechanism's
theory, so the shared report tables and charts read both alike. The readers (engine/report/location.py,
gui/widgets/location_results.py, engine/plots/observations.py) read these by attribute only.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field, fields, is_dataclass
from types import MappingProxyType
from typing import Any

from engine.results.blocks import (
    EMPTY,
    ComposedPrivacy,
    DpRegion,
    ExactAttacker,
    number_or_none,
    numbers,
    table_or_empty,
    text_or_none,
)

# ----------------------------------------------------------------------------- reading helpers



def _int(v) -> int | None:
    return v if isinstance(v, int) and not isinstance(v, bool) else None






def _pair(v) -> tuple | None:
    """An interval (low, high); anything else reads as None."""
    if isinstance(v, (list, tuple)) and len(v) == 2:
        return (number_or_none(v[0]), number_or_none(v[1]))
    return None




def _plain(v):
    """A typed value back as JSON would hold it (for ``to_dict``)."""
    if hasattr(v, "to_dict"):
        return v.to_dict()
    if is_dataclass(v):               # a shared block of engine.results.blocks
        out = {f.name: _plain(getattr(v, f.name)) for f in fields(v) if f.name != "extra"}
        return {**out, **getattr(v, "extra", {})}
    if isinstance(v, tuple):
        return [_plain(x) for x in v]
    if isinstance(v, Mapping):
        return {k: _plain(x) for k, x in v.items()}
    return v


class _Block:
    """``to_dict`` for the blocks below: the keys in the order the dict held them, typed ones
    written back from their fields (``KEYS``: field name → key), the others from ``extra``."""

    KEYS: Mapping[str, str] = EMPTY

    def to_dict(self) -> dict:
        values = {key: _plain(getattr(self, name)) for name, key in self.KEYS.items()}
        order = self.written or tuple(k for k, v in values.items() if v not in (None, (), []))
        out = {k: values[k] if k in values else self.extra[k] for k in order
               if k in values or k in self.extra}
        out.update({k: v for k, v in self.extra.items() if k not in out})
        return out


def _split(d: Mapping, keys) -> dict:
    return {"extra": MappingProxyType({k: v for k, v in d.items() if k not in keys}),
            "written": tuple(d)}


def _same_keys(cls) -> Mapping[str, str]:
    """Field name → key, where every typed field is named after its key."""
    return MappingProxyType({f.name: f.name for f in fields(cls)
                             if f.name not in ("extra", "written")})


# ----------------------------------------------------------------------------- theory blocks


@dataclass(frozen=True)
class Target(_Block):
    """``target``: how the audited person was chosen, their id ("(redacted)" unless listed),
    their positive observations k and distinct hours E after clipping."""

    rule: str | None = None
    id: str | None = None
    observations: int | None = None
    epochs: int | None = None
    extra: Mapping = field(default_factory=dict)
    written: tuple = ()

    @classmethod
    def from_dict(cls, d) -> Target:
        d = table_or_empty(d)
        tid = d.get("id")
        return cls(rule=text_or_none(d.get("rule")), id=None if tid is None else str(tid),
                   observations=number_or_none(d.get("observations")), epochs=number_or_none(d.get("epochs")),
                   **_split(d, cls.KEYS))


@dataclass(frozen=True)
class SweepPoint(_Block):
    """One attack's measurement on one sweep target: balanced accuracy, its interval and the
    counts (TP, FN, FP, TN) behind it (None for a result saved before they were kept)."""

    accuracy: float | None = None
    accuracy_ci: tuple | None = None
    accuracy_counts: tuple[int, int, int, int] | None = None
    extra: Mapping = field(default_factory=dict)
    written: tuple = ()

    @classmethod
    def from_dict(cls, d) -> SweepPoint:
        d = table_or_empty(d)
        c = d.get("accuracy_counts")
        counts = (tuple(int(v) for v in c) if isinstance(c, (list, tuple)) and len(c) == 4
                  and all(_int(v) is not None and v >= 0 for v in c)
                  and c[0] + c[1] > 0 and c[2] + c[3] > 0 else None)
        return cls(accuracy=number_or_none(d.get("accuracy")), accuracy_ci=_pair(d.get("accuracy_ci")),
                   accuracy_counts=counts, **_split(d, cls.KEYS))


@dataclass(frozen=True)
class Sweep(_Block):
    """``sweep`` (paper 000 Fig. 13/14): per further target its k, hours, the exact optimum's
    and the ε-DP bound's accuracy (lists in step), and per sweep attack one point each."""

    observations: tuple = ()
    epochs: tuple = ()
    optimal_accuracy: tuple = ()
    dp_bound_accuracy: tuple = ()
    test_aggregates: int | None = None
    attacks: Mapping[str, tuple[SweepPoint, ...]] = field(default_factory=dict)
    computed_on: str | None = None
    extra: Mapping = field(default_factory=dict)
    written: tuple = ()

    @classmethod
    def from_dict(cls, d) -> Sweep:
        d = table_or_empty(d)
        # An attack whose rows are not a list keeps its place (it takes a style slot) with none.
        attacks = {str(name): tuple(SweepPoint.from_dict(r) for r in rows)
                   if isinstance(rows, list) else ()
                   for name, rows in table_or_empty(d.get("attacks")).items()}
        return cls(observations=numbers(d.get("observations")),
                   epochs=numbers(d.get("epochs")),
                   optimal_accuracy=numbers(d.get("optimal_accuracy")),
                   dp_bound_accuracy=numbers(d.get("dp_bound_accuracy")),
                   test_aggregates=number_or_none(d.get("test_aggregates")),
                   attacks=MappingProxyType(attacks), computed_on=text_or_none(d.get("computed_on")),
                   **_split(d, cls.KEYS))


@dataclass(frozen=True)
class PublishedVerdict(_Block):
    """One attack's conclusion on the published release: its score, threshold, whether it
    says "present", and the share of simulated releases without the target scoring as high."""

    name: str | None = None
    label: str | None = None
    score: float | None = None
    threshold: float | None = None
    says_present: bool = False
    share_absent_at_least: float | None = None
    extra: Mapping = field(default_factory=dict)
    written: tuple = ()

    @classmethod
    def from_dict(cls, d) -> PublishedVerdict:
        d = table_or_empty(d)
        return cls(name=text_or_none(d.get("name")), label=text_or_none(d.get("label")),
                   score=number_or_none(d.get("score")), threshold=number_or_none(d.get("threshold")),
                   says_present=bool(d.get("says_present")),
                   share_absent_at_least=number_or_none(d.get("share_absent_at_least")),
                   **_split(d, cls.KEYS))


@dataclass(frozen=True)
class PublishedRelease(_Block):
    """``published_release`` (config ``release``): the file and each attack's conclusion."""

    path: str | None = None
    note: str | None = None
    attacks: tuple[PublishedVerdict, ...] = ()
    extra: Mapping = field(default_factory=dict)
    written: tuple = ()

    @classmethod
    def from_dict(cls, d) -> PublishedRelease | None:
        if not isinstance(d, Mapping):
            return None
        rows = d.get("attacks") if isinstance(d.get("attacks"), list) else ()
        return cls(path=text_or_none(d.get("path")), note=text_or_none(d.get("note")),
                   attacks=tuple(PublishedVerdict.from_dict(v) for v in rows
                                 if isinstance(v, Mapping)),
                   **_split(d, cls.KEYS))


@dataclass(frozen=True)
class RepetitionsOverview(_Block):
    """``repetitions`` of the theory (issue 22): whether each repetition drew a fresh split of
    the people into the attacker's own data and the people released."""

    split_redrawn: bool = False
    extra: Mapping = field(default_factory=dict)
    written: tuple = ()

    @classmethod
    def from_dict(cls, d) -> RepetitionsOverview:
        d = table_or_empty(d)
        return cls(split_redrawn=d.get("split_redrawn") is True, **_split(d, cls.KEYS))


# ----------------------------------------------------------------------------- attack details

@dataclass(frozen=True)
class ScoreDistribution:
    """``details.score_distribution`` of the one- and two-threshold attacks (paper 000 Thm 2/3,
    Fig. 8/10): the score values, how many test releases without and with the target gave
    each, and the theory's predicted counts (None where the attack has no law, e.g. no noise)."""

    score: tuple = ()
    absent: tuple = ()
    present: tuple = ()
    model_absent: tuple | None = None
    model_present: tuple | None = None
    model: str | None = None

    @classmethod
    def from_dict(cls, d) -> ScoreDistribution | None:
        """None when the attack recorded none, or one without scores (nothing to draw)."""
        if not isinstance(d, Mapping) or not d.get("score"):
            return None

        def law(key):
            return None if d.get(key) is None else numbers(d.get(key))
        return cls(score=numbers(d.get("score")), absent=numbers(d.get("absent")),
                   present=numbers(d.get("present")), model_absent=law("model_absent"),
                   model_present=law("model_present"), model=text_or_none(d.get("model")))


@dataclass(frozen=True)
class RepetitionSpread:
    """``details.repetitions`` (issue 22): the accuracy of every repetition and its spread, the
    AUC's range, and the sentence the audit writes when the spread is wider than the interval."""

    accuracy: tuple = ()
    accuracy_mean: float | None = None
    accuracy_sd: float | None = None
    accuracy_min: float | None = None
    accuracy_max: float | None = None
    auc_min: float | None = None
    auc_max: float | None = None
    sentence: str | None = None

    @classmethod
    def from_dict(cls, d) -> RepetitionSpread | None:
        """None unless the game was played at least twice (there is no spread to show)."""
        if not isinstance(d, Mapping) or len(numbers(d.get("accuracy"))) < 2:
            return None
        return cls(accuracy=numbers(d.get("accuracy")),
                   **{k: number_or_none(d.get(k)) for k in ("accuracy_mean", "accuracy_sd",
                                                      "accuracy_min", "accuracy_max",
                                                      "auc_min", "auc_max")},
                   sentence=text_or_none(d.get("sentence")) or None)


@dataclass(frozen=True)
class FirstLayer:
    """``details.first_layer`` of a neural meta-classifier (paper 000 §4.2, Fig. 12/15): the
    shape of its first layer, its diagonal dominance and its share of opposite-sign biases."""

    shape: tuple = ()
    diagonal_dominance: float | None = None
    opposite_sign_bias: float | None = None

    @classmethod
    def from_dict(cls, d) -> FirstLayer | None:
        if not isinstance(d, Mapping):
            return None
        shape = d.get("shape")
        return cls(shape=tuple(shape) if isinstance(shape, (list, tuple)) else (),
                   diagonal_dominance=number_or_none(d.get("diagonal_dominance")),
                   opposite_sign_bias=number_or_none(d.get("opposite_sign_bias")))


@dataclass(frozen=True)
class LocationDetails:
    """The ``details`` of a location attack entry that the results view and the report read."""

    per_cell_rule: str | None = None
    score_distribution: ScoreDistribution | None = None
    repetitions: RepetitionSpread | None = None
    first_layer: FirstLayer | None = None
    # The weight picture: None when the result kept no key for it; () when kept empty.
    first_layer_weights: tuple[tuple, ...] | None = None
    shadow_aggregates: int | None = None
    held_out_loss: float | None = None

    @classmethod
    def from_dict(cls, d) -> LocationDetails:
        d = table_or_empty(d)
        weights = None
        if "first_layer_weights" in d:
            rows = d["first_layer_weights"]
            weights = tuple(numbers(r) for r in rows) if isinstance(rows, list) else ()
        return cls(per_cell_rule=text_or_none(d.get("per_cell_rule")),
                   score_distribution=ScoreDistribution.from_dict(d.get("score_distribution")),
                   repetitions=RepetitionSpread.from_dict(d.get("repetitions")),
                   first_layer=FirstLayer.from_dict(d.get("first_layer")),
                   first_layer_weights=weights,
                   shadow_aggregates=number_or_none(d.get("shadow_aggregates")),
                   held_out_loss=number_or_none(d.get("held_out_loss")))

    @property
    def is_neural(self) -> bool:
        """A neural meta-classifier that ran (it left a first-layer summary or weights)."""
        return self.first_layer is not None or self.first_layer_weights is not None


NO_DETAILS = LocationDetails()


# ----------------------------------------------------------------------------- exposed people

@dataclass(frozen=True)
class Person:
    """One listed exposed person: their id and positive observations."""

    id: str = ""
    observations: int | None = None


@dataclass(frozen=True)
class ExposedCount:
    """One summary row of ``exposed_records`` (engine.games.location_theory.exposed_people):
    how many of the population the best possible attacker puts at the policy's high-risk line,
    the rule on k that separates them, and their ids when the audit listed them."""

    count: int | None = None
    population: int | None = None
    share: float | None = None
    rule: str | None = None
    min_observations: int | None = None
    ids_listed: bool = False
    people: tuple[Person, ...] | None = None

    @classmethod
    def from_dict(cls, d: Mapping) -> ExposedCount:
        people = d.get("people")
        return cls(count=number_or_none(d.get("count")), population=number_or_none(d.get("population")),
                   share=number_or_none(d.get("share")), rule=text_or_none(d.get("rule")),
                   min_observations=number_or_none(d.get("min_observations")),
                   ids_listed=bool(d.get("ids_listed")),
                   people=tuple(Person("" if p.get("id") is None else str(p.get("id")),
                                       number_or_none(p.get("observations")))
                                for p in people if isinstance(p, Mapping))
                   if isinstance(people, list) else None)


# ----------------------------------------------------------------------------- the theory

@dataclass(frozen=True)
class LocationTheory(_Block):
    """The theory block of a location result, plus the location-specific parts of the rest of
    the result read with it (``details`` per attack, ``exposed`` people): module docstring."""

    mechanism: str | None = None
    mechanism_label: str | None = None
    noise_scale: float | None = None
    noise_scale_name: str | None = None
    epsilon_per_epoch: float | None = None
    delta: float | None = None
    clip_per_epoch: int | None = None
    observations: int | None = None
    epochs: int | None = None
    # The parts the DP audits share, typed by engine.results.blocks as the mechanism's are
    # (the shared report tables, the ROC chart and the metrics table read them).
    composed: ComposedPrivacy = field(default_factory=ComposedPrivacy)
    epsilon_total: float | None = None
    optimal_attacker: ExactAttacker | None = None
    worst_case_dp: ExactAttacker | None = None
    dp_region: DpRegion | None = None
    dp_bound_accuracy: float | None = None
    sweep: Sweep = field(default_factory=Sweep)
    target: Target = field(default_factory=Target)
    attacker: str | None = None
    unknown_people: int | None = None
    population: int | None = None
    sites: int | None = None
    epochs_total: int | None = None
    release_pool: int | None = None
    auxiliary_pool: int | None = None
    note: str | None = None
    published_release: PublishedRelease | None = None
    repetitions: RepetitionsOverview = field(default_factory=RepetitionsOverview)
    extra: Mapping = field(default_factory=dict)
    written: tuple = ()
    # Read with the theory from the rest of the result (not written back by to_dict).
    details: Mapping[str, LocationDetails] = field(default_factory=dict, compare=False)
    exposed: tuple[ExposedCount, ...] = ()
    exposed_other: bool = False       # exposed records that are not this audit's summary rows
    guaranteed: bool = False          # noise was added: ``composed`` holds the guarantee

    def details_of(self, attack) -> LocationDetails:
        """The typed details of ``attack`` (an entry, or its name); empty when it has none."""
        return self.details.get(getattr(attack, "name", attack), NO_DETAILS)


_NUMBER_KEYS = ("noise_scale", "epsilon_per_epoch", "delta", "clip_per_epoch", "observations",
                "epochs", "epsilon_total", "dp_bound_accuracy", "unknown_people", "population",
                "sites", "epochs_total", "release_pool", "auxiliary_pool")
_TEXT_KEYS = ("mechanism", "mechanism_label", "noise_scale_name", "attacker", "note")
_OWN = ("details", "exposed", "exposed_other", "guaranteed")
LocationTheory.KEYS = MappingProxyType({k: v for k, v in _same_keys(LocationTheory).items()
                                        if k not in _OWN})
for _cls in (Target, SweepPoint, Sweep, PublishedVerdict, PublishedRelease,
             RepetitionsOverview):
    _cls.KEYS = _same_keys(_cls)


def _exposed(records) -> tuple[tuple[ExposedCount, ...], bool]:
    rows = [r for r in records or () if isinstance(r, Mapping)] if isinstance(
        records, (list, tuple)) else []
    if rows and not all("count" in r for r in rows):
        return (), True
    return tuple(ExposedCount.from_dict(r) for r in rows), False


def load_theory(theory: Mapping, result: Mapping) -> LocationTheory:
    """The theory block of a location result (``result``: the whole dict, for the attacks'
    details and the exposed people read with it). Never raises: a damaged part reads as
    absent."""
    th = table_or_empty(theory)
    result = table_or_empty(result)
    attacks = result.get("attacks") if isinstance(result.get("attacks"), list) else ()
    details = {a["name"]: LocationDetails.from_dict(a.get("details"))
               for a in attacks if isinstance(a, Mapping) and isinstance(a.get("name"), str)}
    exposed, other = _exposed(result.get("exposed_records"))
    return LocationTheory(
        **{k: number_or_none(th.get(k)) for k in _NUMBER_KEYS},
        **{k: text_or_none(th.get(k)) for k in _TEXT_KEYS},
        composed=ComposedPrivacy.from_dict(th.get("composed")),
        optimal_attacker=ExactAttacker.from_dict(th.get("optimal_attacker")),
        worst_case_dp=ExactAttacker.from_dict(th.get("worst_case_dp")),
        dp_region=DpRegion.from_dict(th.get("dp_region")),
        sweep=Sweep.from_dict(th.get("sweep")), target=Target.from_dict(th.get("target")),
        published_release=PublishedRelease.from_dict(th.get("published_release")),
        repetitions=RepetitionsOverview.from_dict(th.get("repetitions")),
        **_split(th, LocationTheory.KEYS),
        details=MappingProxyType(details), exposed=exposed, exposed_other=other,
        guaranteed=bool(table_or_empty(th.get("composed"))))


# ----------------------------------------------------------------------------- settings

@dataclass(frozen=True)
class LocationSettings:
    """The settings of a location result that its readers quote (``config``; the audit's
    LocationConfig holds their meaning and defaults). A setting the saved result lacks reads as
    None (``repetitions``: 1, the default before repetitions existed)."""

    traces: str = ""
    city_users: int | None = None
    city_epochs: int | None = None
    mechanism: str | None = None
    epsilon: float | None = None
    delta: float | None = None
    clip_per_epoch: int | None = None
    attacker: str | None = None
    known_fraction: float | None = None
    aggregate_size: int | None = None
    shadow_aggregates: int | None = None
    large_shadow_aggregates: int | None = None
    test_aggregates: int | None = None
    repetitions: int | None = 1
    sweep_targets: int | None = None
    sweep_test_aggregates: int | None = None
    confidence: float | None = None
    seed: Any = None
    policy_fpr: float | None = None
    policy_high_tpr: float | None = None
    policy_high_accuracy: float | None = None

    @classmethod
    def from_config(cls, config) -> LocationSettings:
        c = table_or_empty(config)
        policy = table_or_empty(c.get("policy"))
        numbers = ("city_users", "city_epochs", "epsilon", "delta", "clip_per_epoch",
                   "known_fraction", "aggregate_size", "shadow_aggregates",
                   "large_shadow_aggregates", "test_aggregates", "sweep_targets",
                   "sweep_test_aggregates", "confidence")
        return cls(traces=str(c.get("traces") or ""), mechanism=text_or_none(c.get("mechanism")),
                   attacker=text_or_none(c.get("attacker")),
                   repetitions=number_or_none(c.get("repetitions", 1)), seed=c.get("seed"),
                   **{k: number_or_none(c.get(k)) for k in numbers},
                   policy_fpr=number_or_none(policy.get("fpr")),
                   policy_high_tpr=number_or_none(policy.get("high_tpr")),
                   policy_high_accuracy=number_or_none(policy.get("high_accuracy")))

    @property
    def synthetic(self) -> bool:
        """No traces file: the audit generated a synthetic city from the seed."""
        return not self.traces


__all__ = ["ExposedCount", "FirstLayer", "LocationDetails", "LocationSettings",
           "LocationTheory", "Person", "PublishedRelease", "PublishedVerdict",
           "RepetitionSpread", "RepetitionsOverview", "ScoreDistribution", "Sweep",
           "SweepPoint", "Target", "load_theory"]
