"""Typed blocks of a result (issue 19 item 5): the parts the report and the GUI read most, with
``from_dict`` / ``to_dict`` instead of a ``.get`` per field in every reader.

An *attack entry* is one element of ``attacks`` or ``baselines`` of result.json (ARCHITECTURE §4;
written by :func:`engine.auditing.evaluate_attack` and the audits): its name and label, AUC,
balanced accuracy and advantage with their intervals, the TPR at each FPR target
(:class:`TprRow`, ARCHITECTURE §5 "measurable"), the empirical ε lower bound, the ROC and the
audit's own details. :meth:`AttackEntry.from_dict` is also the check a saved result's attacks
must pass (:func:`engine.results.result.result_problem`): a field not of the form the app writes
is refused with a sentence naming it, never read as a wrong number. ``to_dict`` gives back
exactly the dict that was read (keys the block does not type are kept as they were).
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from types import MappingProxyType
from typing import Any

from engine.numbers import is_finite, same_rate
from engine.results.block_checks import (
    BlockError,
    are_sentences,
    as_pair,
    is_number,
    is_number_or_none,
    is_pair_or_none,
    need,
    split_keys,
    written_back,
)
from engine.results.model_blocks import BttaBound, GeneralizationGap, theory_block

# ----------------------------------------------------------------------------- readers
# What every audit's typed module (engine/results/<audit>.py) reads a result.json part with:
# one copy each, not one per audit (issue 33 item 1).

EMPTY: Mapping = MappingProxyType({})


def table_or_empty(v) -> Mapping:
    """``v`` when it is a table, else an empty one (an old or damaged part reads as absent)."""
    return v if isinstance(v, Mapping) else EMPTY


def finite_pair(v) -> tuple | None:
    """An interval of two finite numbers as a tuple, else None."""
    if isinstance(v, (list, tuple)) and len(v) == 2 and all(is_finite(x) for x in v):
        return (v[0], v[1])
    return None


def unknown_keys(d: Mapping, known) -> Mapping:
    """The keys of ``d`` a typed block does not read, kept (read-only) in its ``extra``."""
    return MappingProxyType({k: v for k, v in d.items() if k not in known})

# ----------------------------------------------------------------------------- TPR at FPR

@dataclass(frozen=True)
class TprRow:
    """One ``tpr_at_fpr`` row: the TPR at a false-alarm rate. ``fpr`` is the rate the row is
    for — an attack writes it as ``fpr_target`` (the rate its threshold was set for), theory's
    curves and a defence's risk as ``fpr`` (``key`` says which, so ``to_dict`` writes it back
    the same way). ``measurable`` is False when too few negatives certify the rate
    (ARCHITECTURE §5): then ``tpr`` is never quoted."""

    fpr: float | None
    tpr: float | None = None
    tpr_ci: tuple | None = None
    fpr_achieved: float | None = None
    measurable: bool = True
    key: str = "fpr_target"
    extra: dict = field(default_factory=dict)
    written: tuple = ()               # the typed keys the dict held, to write back the same

    @classmethod
    def from_dict(cls, d, where: str = "the attack") -> TprRow:
        need(isinstance(d, dict) and all(is_number_or_none(d.get(k))
                                          for k in ("fpr_target", "fpr_achieved", "tpr", "fpr"))
              and is_pair_or_none(d.get("tpr_ci")),
              f"a true-positive rate of {where} is not a number")
        key = "fpr_target" if "fpr_target" in d or "fpr" not in d else "fpr"
        typed = (key, "fpr_achieved", "tpr", "tpr_ci", "measurable")
        return cls(fpr=d.get(key), tpr=d.get("tpr"), tpr_ci=as_pair(d.get("tpr_ci")),
                   fpr_achieved=d.get("fpr_achieved"),
                   measurable=d.get("measurable", True) is not False, key=key,
                   extra={k: v for k, v in d.items() if k not in typed},
                   written=tuple(k for k in d if k in typed))

    def to_dict(self) -> dict:
        values = {self.key: self.fpr, "fpr_achieved": self.fpr_achieved, "tpr": self.tpr,
                  "tpr_ci": None if self.tpr_ci is None else list(self.tpr_ci),
                  "measurable": self.measurable}
        keys = self.written or tuple(k for k, v in values.items() if v is not None)
        out = {k: values[k] for k in keys}
        out.update(self.extra)
        return out

    @property
    def measured_tpr(self) -> float | None:
        """The TPR when it is measurable (and a number), else None."""
        return float(self.tpr) if self.measurable and is_finite(self.tpr) else None


def tpr_row_at(rows, fpr) -> TprRow | None:
    """The row of ``rows`` for false-alarm rate ``fpr`` (engine.numbers.same_rate), or None:
    THE lookup of a rate (issue 33 item 1)."""
    return next((r for r in rows if same_rate(r.fpr, fpr)), None)


# ----------------------------------------------------------------------------- attack entry

_NUMBERS = ("auc", "accuracy", "advantage", "n_positive", "n_negative")
_INTERVALS = ("auc_ci", "accuracy_ci", "advantage_ci")
_TYPED = ("name", "label", *_NUMBERS, *_INTERVALS, "tpr_at_fpr", "epsilon_lower_bound", "roc",
          "details", "per_class")


@dataclass(frozen=True)
class AttackEntry:
    """One attack's (or baseline's) measurements (module docstring)."""

    name: str
    label: str | None = None
    auc: float | None = None
    auc_ci: tuple | None = None
    accuracy: float | None = None
    accuracy_ci: tuple | None = None
    advantage: float | None = None
    advantage_ci: tuple | None = None
    n_positive: int | None = None
    n_negative: int | None = None
    tpr_at_fpr: tuple[TprRow, ...] = ()
    epsilon_lower_bound: dict | None = None
    roc: dict | None = None
    details: dict = field(default_factory=dict)
    per_class: tuple[dict, ...] = ()
    extra: dict = field(default_factory=dict)
    written: tuple = ()
    # Why the entry could not be read (engine.results.loaded keeps a damaged entry by its
    # name, so a table shows a row of dashes, never a wrong number); None when it was read.
    problem: str | None = None

    @classmethod
    def damaged(cls, a, problem: str) -> AttackEntry:
        """The entry ``a`` that :meth:`from_dict` refused, as its name and label alone."""
        name = a.get("name") if isinstance(a, dict) else None
        label = a.get("label") if isinstance(a, dict) else None
        return cls(name=name if isinstance(name, str) else "attack",
                   label=label if isinstance(label, str) else None, problem=problem)

    @classmethod
    def from_dict(cls, a, where: str = "the attack") -> AttackEntry:
        """The entry ``a``, or :class:`BlockError` naming the first field not of the form the
        app writes (``where``: how the sentence names the entry, e.g. "attack 2")."""
        need(isinstance(a, dict), f"{where} is not a table of measurements")
        need(isinstance(a.get("name"), str) and isinstance(a.get("label", ""), str),
              f"{where} has no name")
        for key in _NUMBERS:
            need(is_number_or_none(a.get(key)), f"the {key.replace('_', ' ')} of {where} is not "
                                               "a number")
        for key in _INTERVALS:
            need(is_pair_or_none(a.get(key)), f"the interval of {where} is not a pair of numbers")
        rows = a.get("tpr_at_fpr", [])
        need(isinstance(rows, list), f"the true-positive rates of {where} are not a list")
        tpr_rows = tuple(TprRow.from_dict(r, where) for r in rows)
        bound = a.get("epsilon_lower_bound")
        need(bound is None or (isinstance(bound, dict) and is_number_or_none(bound.get("value"))),
              f"the ε lower bound of {where} is not a number")
        roc = a.get("roc")
        if roc is not None:
            need(isinstance(roc, dict) and isinstance(roc.get("fpr"), list)
                  and isinstance(roc.get("tpr"), list) and len(roc["fpr"]) == len(roc["tpr"])
                  and all(is_number(x) for x in roc["fpr"] + roc["tpr"]),
                  f"the ROC curve of {where} is not two equally long lists of numbers")
        need(isinstance(a.get("details", {}), dict), f"the details of {where} are not a table")
        per_class = a.get("per_class", [])
        need(isinstance(per_class, list) and all(isinstance(c, dict) for c in per_class),
              f"the per-class results of {where} are not a list of tables")
        return cls(name=a["name"], label=a.get("label"),
                   **{k: a.get(k) for k in _NUMBERS},
                   **{k: as_pair(a.get(k)) for k in _INTERVALS},
                   tpr_at_fpr=tpr_rows, epsilon_lower_bound=bound, roc=roc,
                   details=a.get("details", {}), per_class=tuple(per_class),
                   extra={k: v for k, v in a.items() if k not in _TYPED},
                   written=tuple(k for k in a if k in _TYPED))

    def to_dict(self) -> dict:
        values: dict[str, Any] = {
            "name": self.name, "label": self.label,
            **{k: getattr(self, k) for k in _NUMBERS},
            **{k: None if getattr(self, k) is None else list(getattr(self, k))
               for k in _INTERVALS},
            "tpr_at_fpr": [r.to_dict() for r in self.tpr_at_fpr],
            "epsilon_lower_bound": self.epsilon_lower_bound, "roc": self.roc,
            "details": self.details, "per_class": list(self.per_class)}
        keys = self.written or tuple(k for k, v in values.items() if v is not None)
        out = {k: values[k] for k in keys}
        out.update(self.extra)
        return out

    @property
    def display_label(self) -> str:
        """The label a table shows (the name when the entry has none)."""
        return self.label or self.name or "attack"

    def tpr_at(self, fpr) -> TprRow | None:
        """The row for false-alarm rate ``fpr`` (engine.headline.tpr_at's rule), or None."""
        return tpr_row_at(self.tpr_at_fpr, fpr)

    @property
    def epsilon_bound(self) -> EpsilonBound | None:
        """The empirical ε lower bound typed (None when the entry has none)."""
        return EpsilonBound.from_dict(self.epsilon_lower_bound) \
            if isinstance(self.epsilon_lower_bound, dict) else None

    @property
    def gdp_bound(self) -> EpsilonBound | None:
        """The Gaussian-DP heuristic ε bound of ``details`` (Gaussian noise only), or None."""
        d = self.details.get("epsilon_lower_bound_gdp") if isinstance(self.details, dict) \
            else None
        return EpsilonBound.from_dict(d) if isinstance(d, dict) and d else None

    @property
    def method(self) -> AttackMethod:
        """How the attack works, as every audit's ``details`` say it (engine.auditing): its
        statistic, the paper it follows, a note, who set its threshold, its repetitions."""
        return AttackMethod.from_dict(self.details)

    @property
    def roc_band(self) -> dict | None:
        """The ROC's confidence band of ``details`` (engine.auditing), or None."""
        band = self.details.get("roc_band") if isinstance(self.details, dict) else None
        return band if isinstance(band, dict) else None


# ----------------------------------------------------------------------------- tolerant reads
# The blocks below are read from result.json by engine.results.loaded (issue 33 item 1): a key
# an older result lacks, or a value not of its type, reads as None / () — never an error
# (result_problem has already refused a damaged result before anything is shown).

def number_or_none(v) -> float | None:
    """``v`` when it is a number (not a bool), else None."""
    return v if is_number(v) else None


def numbers(v) -> tuple:
    """``v`` as a tuple when it is a list of numbers (None kept), else ()."""
    if not isinstance(v, (list, tuple)):
        return ()
    return tuple(x if is_number(x) else None for x in v)


def text_or_none(v) -> str | None:
    """``v`` when it is text, else None."""
    return v if isinstance(v, str) else None


def tolerant_rows(rows) -> tuple[TprRow, ...]:
    """TPR rows read one by one, a damaged row left out."""
    out = []
    for r in rows if isinstance(rows, list) else ():
        try:
            out.append(TprRow.from_dict(r))
        except BlockError:
            continue
    return tuple(out)


@dataclass(frozen=True)
class EpsilonBound:
    """An empirical ε lower bound (``epsilon_lower_bound`` of an attack entry; engine.auditing,
    paper 002 Cor. 1): the value certified, the most the trials could certify, and how."""

    value: float | None = None
    max_certifiable: float | None = None
    delta: float | None = None
    confidence: float | None = None
    method: str | None = None
    extra: dict = field(default_factory=dict)

    @classmethod
    def from_dict(cls, d) -> EpsilonBound:
        d = table_or_empty(d)
        typed = ("value", "max_certifiable", "delta", "confidence", "method")
        return cls(value=number_or_none(d.get("value")),
                   max_certifiable=number_or_none(d.get("max_certifiable")),
                   delta=number_or_none(d.get("delta")),
                   confidence=number_or_none(d.get("confidence")),
                   method=text_or_none(d.get("method")),
                   extra={k: v for k, v in d.items() if k not in typed})


@dataclass(frozen=True)
class AttackMethod:
    """The parts of an attack's ``details`` every audit writes (engine.auditing) and the
    methods section reads; the audit's own parts stay in the entry's ``details`` and are typed
    by the audit's module of this package."""

    statistic: str | None = None
    paper: str | None = None
    note: str | None = None
    accuracy_threshold_source: str | None = None
    repetitions: Any = None

    @classmethod
    def from_dict(cls, d) -> AttackMethod:
        d = table_or_empty(d)
        return cls(statistic=d.get("statistic") or None, paper=d.get("paper") or None,
                   note=d.get("note") or None,
                   accuracy_threshold_source=d.get("accuracy_threshold_source"),
                   repetitions=d.get("repetitions"))


_COMPOSED = ("delta", "epsilon", "epsilon_pld_pessimistic", "epsilon_pld_optimistic",
             "epsilon_gdp", "gdp_mu", "epsilon_kov_worst_case", "epsilon_basic")


@dataclass(frozen=True)
class ComposedPrivacy:
    """``theory.composed`` of the DP audits (mechanism, location): the privacy accountant's
    composed ε — the PLD bracket, the Gaussian-DP closed form, the KOV worst case of k-fold
    ε0-DP and the basic sum (paper 000 Thm 1; ARCHITECTURE §6)."""

    delta: float | None = None
    epsilon: float | None = None
    epsilon_pld_pessimistic: float | None = None
    epsilon_pld_optimistic: float | None = None
    epsilon_gdp: float | None = None
    gdp_mu: float | None = None
    epsilon_kov_worst_case: float | None = None
    epsilon_basic: float | None = None
    extra: dict = field(default_factory=dict)

    @classmethod
    def from_dict(cls, d) -> ComposedPrivacy:
        d = table_or_empty(d)
        return cls(**{k: number_or_none(d.get(k)) for k in _COMPOSED},
                   extra={k: v for k, v in d.items() if k not in _COMPOSED})


@dataclass(frozen=True)
class ExactAttacker:
    """A trade-off summary of exact theory (``theory.optimal_attacker``: the Neyman–Pearson
    optimal attacker; ``theory.worst_case_dp``: the worst case for ε0-DP; ARCHITECTURE §6):
    its statistic and method, accuracy, AUC, advantage, TPR at each FPR (rows keyed ``fpr``)
    and its ROC."""

    statistic: str | None = None
    method: str | None = None
    numerical_error: float | None = None
    accuracy: float | None = None
    auc: float | None = None
    advantage: float | None = None
    tpr_at_fpr: tuple[TprRow, ...] = ()
    roc: dict | None = None
    extra: dict = field(default_factory=dict)

    @classmethod
    def from_dict(cls, d) -> ExactAttacker | None:
        """The block, or None when the result has none (an empty table counts as none)."""
        if not isinstance(d, dict) or not d:
            return None
        typed = ("statistic", "method", "numerical_error", "accuracy", "auc", "advantage",
                 "tpr_at_fpr", "roc")
        roc = d.get("roc")
        return cls(statistic=text_or_none(d.get("statistic")),
                   method=text_or_none(d.get("method")),
                   numerical_error=number_or_none(d.get("numerical_error")),
                   accuracy=number_or_none(d.get("accuracy")), auc=number_or_none(d.get("auc")),
                   advantage=number_or_none(d.get("advantage")),
                   tpr_at_fpr=tolerant_rows(d.get("tpr_at_fpr")),
                   roc=roc if isinstance(roc, dict) else None,
                   extra={k: v for k, v in d.items() if k not in typed})

    @property
    def targets(self) -> list:
        """The false-alarm rates it has a TPR for, in the order written."""
        return [r.fpr for r in self.tpr_at_fpr]

    def tpr_at(self, fpr) -> float | None:
        """Its TPR at ``fpr`` (exact theory: always measurable), or None."""
        row = tpr_row_at(self.tpr_at_fpr, fpr)
        return None if row is None else row.tpr


@dataclass(frozen=True)
class DpRegion:
    """``theory.dp_region``: the upper edge of the (ε, δ)-DP region of the ROC (paper 002
    Thm 1), as the FPRs and the highest TPR allowed at each."""

    epsilon: float | None = None
    delta: float | None = None
    fpr: tuple = ()
    tpr_upper: tuple = ()

    @classmethod
    def from_dict(cls, d) -> DpRegion | None:
        if not isinstance(d, dict) or not d:
            return None
        return cls(epsilon=number_or_none(d.get("epsilon")),
                   delta=number_or_none(d.get("delta")), fpr=numbers(d.get("fpr")),
                   tpr_upper=numbers(d.get("tpr_upper")))


@dataclass(frozen=True)
class DpTheory:
    """The parts of a theory block the DP audits (mechanism, location) share, under the same
    names their typed theories use: the accountant's composed ε over ``observations``
    compositions at ``delta``, and the exact attackers. The report's shared theory tables read
    these attributes; :meth:`of` gives them for a typed theory or a theory dict alike."""

    delta: float | None = None
    observations: int | None = None
    epsilon_total: float | None = None
    composed: ComposedPrivacy = field(default_factory=ComposedPrivacy)
    optimal_attacker: ExactAttacker | None = None
    worst_case_dp: ExactAttacker | None = None

    @classmethod
    def from_dict(cls, d) -> DpTheory:
        d = table_or_empty(d)
        return cls(delta=number_or_none(d.get("delta")),
                   observations=number_or_none(d.get("observations")),
                   epsilon_total=number_or_none(d.get("epsilon_total")),
                   composed=ComposedPrivacy.from_dict(d.get("composed")),
                   optimal_attacker=ExactAttacker.from_dict(d.get("optimal_attacker")),
                   worst_case_dp=ExactAttacker.from_dict(d.get("worst_case_dp")))

    @classmethod
    def of(cls, theory):
        """``theory`` itself when it is typed (it has ``composed``), else read from its dict
        (a theory dict, or a placeholder's ``raw``) — for callers not yet typed (issue 33)."""
        if hasattr(theory, "composed"):
            return theory
        return cls.from_dict(getattr(theory, "raw", theory))


# ----------------------------------------------------------------------------- verdict

#: The risk levels a verdict can have, highest first (engine.policy).
VERDICT_LEVELS = ("high", "medium", "low")
_VERDICT_TYPED = ("level", "policy", "policy_rules", "reasons", "headline", "evidence")


@dataclass(frozen=True)
class Verdict:
    """The ``verdict`` block of result.json (ARCHITECTURE §4; written by each audit from its
    :class:`engine.policy.VerdictPolicy`): the risk level, the policy's name and rules in
    words, the reasons that decided it, and the stored headline (engine.headline) when the
    result has one. The verdict banner and the report's cover and section 7 read it."""

    level: str
    policy: str | None = None
    policy_rules: tuple[str, ...] = ()
    reasons: tuple[str, ...] = ()
    headline: dict | None = None
    # How much evidence decided it (engine.evidence, issue 32 item 2): the tests, Holm's
    # adjusted p-values, what was counted, the sentence. None for a result saved before.
    evidence: dict | None = None
    extra: dict = field(default_factory=dict)
    written: tuple = ()

    @classmethod
    def from_dict(cls, v) -> Verdict:
        """The verdict ``v``, or :class:`BlockError` naming the first field not of the form
        the app writes (the sentences :func:`engine.results.result.result_problem` gives)."""
        need(isinstance(v, dict), "the verdict is not a table")
        need(v.get("level") in VERDICT_LEVELS,
              "the verdict's risk level is not high, medium or low")
        need(are_sentences(v.get("reasons", [])),
              "the verdict's reasons are not a list of sentences")
        need(isinstance(v.get("policy", ""), str), "the verdict's policy is not text")
        need(are_sentences(v.get("policy_rules", [])),
              "the verdict's rules are not a list of sentences")
        # Its fields are checked where it is read (engine.headline.headline_of_result rebuilds
        # a damaged one from the attacks); only a headline that is not a table is refused.
        need(v.get("headline") is None or isinstance(v.get("headline"), dict),
              "the verdict's strongest attack is not a table")
        need(v.get("evidence") is None or _evidence_ok(v.get("evidence")),
              "the verdict's evidence is not a table of tests with a sentence")
        return cls(level=v["level"], policy=v.get("policy"),
                   policy_rules=tuple(v.get("policy_rules", [])),
                   reasons=tuple(v.get("reasons", [])), headline=v.get("headline"),
                   evidence=v.get("evidence"), **split_keys(v, _VERDICT_TYPED))

    def to_dict(self) -> dict:
        return written_back({"level": self.level, "policy": self.policy,
                              "policy_rules": list(self.policy_rules),
                              "reasons": list(self.reasons), "headline": self.headline,
                              "evidence": self.evidence},
                             self.written, self.extra)

    @property
    def evidence_block(self) -> Evidence | None:
        """The evidence typed (:class:`Evidence`), or None for a result saved before it."""
        return Evidence.from_dict(self.evidence) if self.evidence else None

    @property
    def policy_name(self) -> str:
        """The policy's name as the banner and the report print it ("default" when unnamed)."""
        return self.policy or "default"


@dataclass(frozen=True)
class EvidenceTest:
    """One test of ``verdict.evidence.tests`` (engine.evidence, issue 32 item 2): the attack
    and figure tested, its value against the baseline, the one-sided p-value, Holm's adjusted
    p-value and whether it counted."""

    attack: str | None = None
    label: str | None = None
    figure: str | None = None
    value: float | None = None
    baseline: float | None = None
    baseline_words: str = "guessing"
    p_value: float | None = None
    adjusted_p: float | None = None
    counted: bool = False
    extra: dict = field(default_factory=dict)

    @classmethod
    def from_dict(cls, t: dict) -> EvidenceTest:
        typed = ("attack", "label", "figure", "value", "baseline", "baseline_words",
                 "p_value", "adjusted_p", "counted")
        return cls(attack=t.get("attack"), label=t.get("label"), figure=t.get("figure"),
                   value=t.get("value"), baseline=t.get("baseline"),
                   baseline_words=str(t.get("baseline_words", "guessing")),
                   p_value=t.get("p_value"), adjusted_p=t.get("adjusted_p"),
                   counted=bool(t.get("counted")),
                   extra={k: v for k, v in t.items() if k not in typed})


@dataclass(frozen=True)
class Evidence:
    """``verdict.evidence`` typed (engine.evidence): the sentence, the number of tests m, the
    family-wise error level and the tests."""

    sentence: str = ""
    m: int = 0
    alpha: float | None = None
    tests: tuple[EvidenceTest, ...] = ()
    cannot_tell: tuple[str, ...] = ()         # attacks that cannot be told from guessing
    extra: dict = field(default_factory=dict)

    @classmethod
    def from_dict(cls, e: dict) -> Evidence:
        return cls(sentence=str(e.get("sentence") or ""), m=e.get("m") or 0,
                   alpha=e.get("alpha") if is_number(e.get("alpha")) else None,
                   tests=tuple(EvidenceTest.from_dict(t) for t in e.get("tests") or []
                               if isinstance(t, dict)),
                   cannot_tell=tuple(str(c) for c in e.get("cannot_tell") or []),
                   extra={k: v for k, v in e.items()
                          if k not in ("sentence", "m", "alpha", "tests", "cannot_tell")})


def _evidence_ok(e) -> bool:
    """The form engine.evidence writes: a table with a list of test tables (each with its
    p-values as numbers and ``counted`` true or false), the count m and a sentence."""
    if not (isinstance(e, dict) and isinstance(e.get("tests"), list)
            and isinstance(e.get("sentence", ""), str) and is_number_or_none(e.get("m"))
            and is_number_or_none(e.get("alpha"))):
        return False
    return all(isinstance(t, dict) and is_number(t.get("p_value"))
               and is_number_or_none(t.get("adjusted_p")) and is_number_or_none(t.get("value"))
               and isinstance(t.get("counted", False), bool) for t in e["tests"])


# BttaBound, GeneralizationGap and theory_block live in engine.results.model_blocks and are
# named here too, where their readers import them from.
__all__ = ["AttackEntry", "AttackMethod", "BlockError", "BttaBound", "ComposedPrivacy",
           "DpRegion", "DpTheory", "EpsilonBound", "Evidence", "EvidenceTest", "ExactAttacker",
           "GeneralizationGap", "TprRow", "VERDICT_LEVELS", "Verdict", "number_or_none",
           "numbers", "text_or_none", "theory_block", "tolerant_rows", "tpr_row_at"]
