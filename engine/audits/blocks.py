"""Typed blocks of a result (issue 19 item 5): the parts the report and the GUI read most, with
``from_dict`` / ``to_dict`` instead of a ``.get`` per field in every reader.

An *attack entry* is one element of ``attacks`` or ``baselines`` of result.json (ARCHITECTURE §4;
written by :func:`engine.auditing.evaluate_attack` and the audits): its name and label, AUC,
balanced accuracy and advantage with their intervals, the TPR at each FPR target
(:class:`TprRow`, ARCHITECTURE §5 "measurable"), the empirical ε lower bound, the ROC and the
audit's own details. :meth:`AttackEntry.from_dict` is also the check a saved result's attacks
must pass (:func:`engine.audits.result.result_problem`): a field not of the form the app writes
is refused with a sentence naming it, never read as a wrong number. ``to_dict`` gives back
exactly the dict that was read (keys the block does not type are kept as they were).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from engine.headline import same_rate


class BlockError(ValueError):
    """A block not of the form the app writes; ``str()`` is the sentence saying which field."""


def _is_number(v) -> bool:
    return isinstance(v, (int, float)) and not isinstance(v, bool)


def _number_or_none(v) -> bool:
    return v is None or _is_number(v)


def _pair_or_none(v) -> bool:
    return v is None or (isinstance(v, list) and len(v) == 2
                         and all(_number_or_none(x) for x in v))


def _need(ok: bool, sentence: str) -> None:
    if not ok:
        raise BlockError(sentence)


def _pair(v) -> tuple | None:
    return None if v is None else (v[0], v[1])


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
        _need(isinstance(d, dict) and all(_number_or_none(d.get(k))
                                          for k in ("fpr_target", "fpr_achieved", "tpr", "fpr"))
              and _pair_or_none(d.get("tpr_ci")),
              f"a true-positive rate of {where} is not a number")
        key = "fpr_target" if "fpr_target" in d or "fpr" not in d else "fpr"
        typed = (key, "fpr_achieved", "tpr", "tpr_ci", "measurable")
        return cls(fpr=d.get(key), tpr=d.get("tpr"), tpr_ci=_pair(d.get("tpr_ci")),
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
        return float(self.tpr) if self.measurable and _is_number(self.tpr) else None


def tpr_row_at(rows, fpr) -> TprRow | None:
    """The row of ``rows`` for false-alarm rate ``fpr`` (engine.headline.same_rate), or None."""
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

    @classmethod
    def from_dict(cls, a, where: str = "the attack") -> AttackEntry:
        """The entry ``a``, or :class:`BlockError` naming the first field not of the form the
        app writes (``where``: how the sentence names the entry, e.g. "attack 2")."""
        _need(isinstance(a, dict), f"{where} is not a table of measurements")
        _need(isinstance(a.get("name"), str) and isinstance(a.get("label", ""), str),
              f"{where} has no name")
        for key in _NUMBERS:
            _need(_number_or_none(a.get(key)), f"the {key.replace('_', ' ')} of {where} is not "
                                               "a number")
        for key in _INTERVALS:
            _need(_pair_or_none(a.get(key)), f"the interval of {where} is not a pair of numbers")
        rows = a.get("tpr_at_fpr", [])
        _need(isinstance(rows, list), f"the true-positive rates of {where} are not a list")
        tpr_rows = tuple(TprRow.from_dict(r, where) for r in rows)
        bound = a.get("epsilon_lower_bound")
        _need(bound is None or (isinstance(bound, dict) and _number_or_none(bound.get("value"))),
              f"the ε lower bound of {where} is not a number")
        roc = a.get("roc")
        if roc is not None:
            _need(isinstance(roc, dict) and isinstance(roc.get("fpr"), list)
                  and isinstance(roc.get("tpr"), list) and len(roc["fpr"]) == len(roc["tpr"])
                  and all(_is_number(x) for x in roc["fpr"] + roc["tpr"]),
                  f"the ROC curve of {where} is not two equally long lists of numbers")
        _need(isinstance(a.get("details", {}), dict), f"the details of {where} are not a table")
        per_class = a.get("per_class", [])
        _need(isinstance(per_class, list) and all(isinstance(c, dict) for c in per_class),
              f"the per-class results of {where} are not a list of tables")
        return cls(name=a["name"], label=a.get("label"),
                   **{k: a.get(k) for k in _NUMBERS},
                   **{k: _pair(a.get(k)) for k in _INTERVALS},
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




# ----------------------------------------------------------------------------- typed-key helper

def _written_back(values: dict, written: tuple, extra: dict) -> dict:
    """The dict a block was read from: its keys in the order it held them (``written``: all
    of them, typed or not), then any the block gained since; a block made in code (nothing
    written) gives its typed keys that have a value, then the rest."""
    keys = written or tuple(k for k, v in values.items() if v is not None)
    out = {k: values[k] if k in values else extra[k] for k in keys
           if k in values or k in extra}
    out.update({k: v for k, v in extra.items() if k not in out})
    return out


def _split(d: dict, typed: tuple) -> dict:
    """``extra`` and ``written`` of a block read from ``d``: the keys it does not type, and
    the order of all its keys (so ``to_dict`` writes them back the same way)."""
    return {"extra": {k: v for k, v in d.items() if k not in typed}, "written": tuple(d)}


def _sentences(v) -> bool:
    return isinstance(v, list) and all(isinstance(s, str) for s in v)


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
        the app writes (the sentences :func:`engine.audits.result.result_problem` gives)."""
        _need(isinstance(v, dict), "the verdict is not a table")
        _need(v.get("level") in VERDICT_LEVELS,
              "the verdict's risk level is not high, medium or low")
        _need(_sentences(v.get("reasons", [])),
              "the verdict's reasons are not a list of sentences")
        _need(isinstance(v.get("policy", ""), str), "the verdict's policy is not text")
        _need(_sentences(v.get("policy_rules", [])),
              "the verdict's rules are not a list of sentences")
        # Its fields are checked where it is read (engine.headline.headline_of_result rebuilds
        # a damaged one from the attacks); only a headline that is not a table is refused.
        _need(v.get("headline") is None or isinstance(v.get("headline"), dict),
              "the verdict's strongest attack is not a table")
        _need(v.get("evidence") is None or _evidence_ok(v.get("evidence")),
              "the verdict's evidence is not a table of tests with a sentence")
        return cls(level=v["level"], policy=v.get("policy"),
                   policy_rules=tuple(v.get("policy_rules", [])),
                   reasons=tuple(v.get("reasons", [])), headline=v.get("headline"),
                   evidence=v.get("evidence"), **_split(v, _VERDICT_TYPED))

    def to_dict(self) -> dict:
        return _written_back({"level": self.level, "policy": self.policy,
                              "policy_rules": list(self.policy_rules),
                              "reasons": list(self.reasons), "headline": self.headline,
                              "evidence": self.evidence},
                             self.written, self.extra)

    @property
    def policy_name(self) -> str:
        """The policy's name as the banner and the report print it ("default" when unnamed)."""
        return self.policy or "default"


def _evidence_ok(e) -> bool:
    """The form engine.evidence writes: a table with a list of test tables (each with its
    p-values as numbers and ``counted`` true or false), the count m and a sentence."""
    if not (isinstance(e, dict) and isinstance(e.get("tests"), list)
            and isinstance(e.get("sentence", ""), str) and _number_or_none(e.get("m"))
            and _number_or_none(e.get("alpha"))):
        return False
    return all(isinstance(t, dict) and _is_number(t.get("p_value"))
               and _number_or_none(t.get("adjusted_p")) and _number_or_none(t.get("value"))
               and isinstance(t.get("counted", False), bool) for t in e["tests"])


# ----------------------------------------------------------------------------- model theory

def _numbers_in(d: dict, keys, sentence: str) -> None:
    _need(all(_number_or_none(d.get(k)) for k in keys), sentence)


def _table_or_absent(d: dict, key: str, sentence: str) -> dict:
    v = d.get(key, {})
    _need(isinstance(v, dict), sentence)
    return v


_BOUND_TYPED = ("params", "expected", "accuracy_bound", "balanced_accuracy_bound", "roc")


@dataclass(frozen=True)
class BttaBound:
    """``theory.btta_bound`` of a model audit (engine.audits.model; paper 001 Alg. 1 and
    Thm 2): the accuracies p0, p1 and the share of members q it was computed from, what BTTA
    is expected to achieve, the accuracy bounds, and the Thm 2 ROC (its statement in words and
    the polyline (0, 0) – (p1, p0) – (1, 1)). The nested tables are kept as read, so
    ``to_dict`` gives them back unchanged; the properties are what the report and the GUI
    read."""

    params: dict = field(default_factory=dict)
    expected: dict = field(default_factory=dict)
    accuracy_bound: float | None = None
    balanced_accuracy_bound: float | None = None
    roc: dict = field(default_factory=dict)
    extra: dict = field(default_factory=dict)
    written: tuple = ()

    @classmethod
    def from_dict(cls, d) -> BttaBound:
        where = "the generalization-gap bound of the model"
        _need(isinstance(d, dict), f"{where} is not a table")
        params = _table_or_absent(d, "params", f"the accuracies behind {where} are not a table")
        _numbers_in(params, ("p0_train_accuracy", "p1_test_accuracy", "q_prior"),
                    f"an accuracy behind {where} is not a number")
        gap_attack = "the attack that uses only the gap"
        expected = _table_or_absent(d, "expected",
                                    f"the expected success of {gap_attack} is not a table")
        _numbers_in(expected, ("precision", "recall"),
                    f"an expected precision or recall of {gap_attack} is not a number")
        _numbers_in(d, ("accuracy_bound", "balanced_accuracy_bound"),
                    f"an accuracy in {where} is not a number")
        roc = _table_or_absent(d, "roc", f"the ROC of {where} is not a table")
        _need(isinstance(roc.get("statement", ""), str),
              f"the statement of {where} is not text")
        curve = roc.get("curve")
        if curve is not None:
            _need(isinstance(curve, dict) and isinstance(curve.get("fpr"), list)
                  and isinstance(curve.get("tpr"), list)
                  and len(curve["fpr"]) == len(curve["tpr"])
                  and all(_is_number(x) for x in curve["fpr"] + curve["tpr"]),
                  f"the ROC of {where} is not two equally long lists of numbers")
        return cls(params=params, expected=expected, accuracy_bound=d.get("accuracy_bound"),
                   balanced_accuracy_bound=d.get("balanced_accuracy_bound"), roc=roc,
                   **_split(d, _BOUND_TYPED))

    def to_dict(self) -> dict:
        return _written_back({"params": self.params, "expected": self.expected,
                              "accuracy_bound": self.accuracy_bound,
                              "balanced_accuracy_bound": self.balanced_accuracy_bound,
                              "roc": self.roc}, self.written, self.extra)

    @property
    def p0(self) -> float | None:
        """The train accuracy p0 the bound was computed from."""
        return self.params.get("p0_train_accuracy")

    @property
    def p1(self) -> float | None:
        """The test accuracy p1."""
        return self.params.get("p1_test_accuracy")

    @property
    def q(self) -> float | None:
        """The share of members q."""
        return self.params.get("q_prior")

    @property
    def precision(self) -> float | None:
        """BTTA's expected precision."""
        return self.expected.get("precision")

    @property
    def recall(self) -> float | None:
        """BTTA's expected recall (its TPR, p0 in Case 3)."""
        return self.expected.get("recall")

    @property
    def statement(self) -> str:
        """Thm 2 in words for this model ("" when the result has none)."""
        return self.roc.get("statement") or ""

    @property
    def curve(self) -> tuple[list, list]:
        """The Thm 2 ROC polyline as (FPRs, TPRs); two empty lists when the result has none."""
        c = self.roc.get("curve")
        return (c["fpr"], c["tpr"]) if isinstance(c, dict) else ([], [])


_GAP_NUMBERS = ("n_members", "n_non_members", "train_accuracy", "test_accuracy", "gap")
_GAP_INTERVALS = ("train_accuracy_ci", "test_accuracy_ci", "gap_ci")
_GAP_TYPED = (*_GAP_NUMBERS, *_GAP_INTERVALS, "per_class")


@dataclass(frozen=True)
class GeneralizationGap:
    """``theory.generalization_gap`` of a model audit (engine.audits.model): the train and
    test accuracies with their Clopper–Pearson intervals, their difference (the gap, with its
    interval) and the same per class."""

    n_members: int | None = None
    n_non_members: int | None = None
    train_accuracy: float | None = None
    train_accuracy_ci: tuple | None = None
    test_accuracy: float | None = None
    test_accuracy_ci: tuple | None = None
    gap: float | None = None
    gap_ci: tuple | None = None
    per_class: tuple[dict, ...] = ()
    extra: dict = field(default_factory=dict)
    written: tuple = ()

    @classmethod
    def from_dict(cls, d) -> GeneralizationGap:
        where = "the model's generalization gap"
        _need(isinstance(d, dict), f"{where} is not a table")
        _numbers_in(d, _GAP_NUMBERS, f"a count or accuracy of {where} is not a number")
        _need(all(_pair_or_none(d.get(k)) for k in _GAP_INTERVALS),
              f"an interval of {where} is not a pair of numbers")
        per_class = d.get("per_class", [])
        _need(isinstance(per_class, list) and all(isinstance(c, dict) for c in per_class),
              f"the per-class accuracies of {where} are not a list of tables")
        return cls(**{k: d.get(k) for k in _GAP_NUMBERS},
                   **{k: _pair(d.get(k)) for k in _GAP_INTERVALS},
                   per_class=tuple(per_class), **_split(d, _GAP_TYPED))

    def to_dict(self) -> dict:
        return _written_back({**{k: getattr(self, k) for k in _GAP_NUMBERS},
                              **{k: None if getattr(self, k) is None else list(getattr(self, k))
                                 for k in _GAP_INTERVALS},
                              "per_class": list(self.per_class)}, self.written, self.extra)


def theory_block(theory, key: str, block: type):
    """``theory[key]`` read as ``block`` (:class:`BttaBound`, :class:`GeneralizationGap`), or
    None where the result has none or it is damaged (the report and the GUI then leave its
    part out; :func:`engine.audits.result.result_problem` names the damage)."""
    d = theory.get(key) if isinstance(theory, dict) else None
    if not d:               # none, or an empty table: nothing to show
        return None
    try:
        return block.from_dict(d)
    except BlockError:
        return None


__all__ = ["AttackEntry", "BlockError", "BttaBound", "GeneralizationGap", "TprRow",
           "VERDICT_LEVELS", "Verdict", "theory_block", "tpr_row_at"]
