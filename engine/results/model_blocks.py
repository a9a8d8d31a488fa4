"""The model audit's typed theory blocks (issue 19 item 5; issue 33 item 2: split from
engine/results/blocks.py, which names them too): paper 001's generalization-gap bound and the
train/test accuracies with their intervals."""

from __future__ import annotations

from dataclasses import dataclass, field

from engine.results.block_checks import (
    BlockError,
    as_pair,
    is_number,
    is_pair_or_none,
    need,
    need_numbers,
    split_keys,
    table_or_absent,
    written_back,
)

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
        need(isinstance(d, dict), f"{where} is not a table")
        params = table_or_absent(d, "params", f"the accuracies behind {where} are not a table")
        need_numbers(params, ("p0_train_accuracy", "p1_test_accuracy", "q_prior"),
                    f"an accuracy behind {where} is not a number")
        gap_attack = "the attack that uses only the gap"
        expected = table_or_absent(d, "expected",
                                    f"the expected success of {gap_attack} is not a table")
        need_numbers(expected, ("precision", "recall"),
                    f"an expected precision or recall of {gap_attack} is not a number")
        need_numbers(d, ("accuracy_bound", "balanced_accuracy_bound"),
                    f"an accuracy in {where} is not a number")
        roc = table_or_absent(d, "roc", f"the ROC of {where} is not a table")
        need(isinstance(roc.get("statement", ""), str),
              f"the statement of {where} is not text")
        curve = roc.get("curve")
        if curve is not None:
            need(isinstance(curve, dict) and isinstance(curve.get("fpr"), list)
                  and isinstance(curve.get("tpr"), list)
                  and len(curve["fpr"]) == len(curve["tpr"])
                  and all(is_number(x) for x in curve["fpr"] + curve["tpr"]),
                  f"the ROC of {where} is not two equally long lists of numbers")
        return cls(params=params, expected=expected, accuracy_bound=d.get("accuracy_bound"),
                   balanced_accuracy_bound=d.get("balanced_accuracy_bound"), roc=roc,
                   **split_keys(d, _BOUND_TYPED))

    def to_dict(self) -> dict:
        return written_back({"params": self.params, "expected": self.expected,
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
        need(isinstance(d, dict), f"{where} is not a table")
        need_numbers(d, _GAP_NUMBERS, f"a count or accuracy of {where} is not a number")
        need(all(is_pair_or_none(d.get(k)) for k in _GAP_INTERVALS),
              f"an interval of {where} is not a pair of numbers")
        per_class = d.get("per_class", [])
        need(isinstance(per_class, list) and all(isinstance(c, dict) for c in per_class),
              f"the per-class accuracies of {where} are not a list of tables")
        return cls(**{k: d.get(k) for k in _GAP_NUMBERS},
                   **{k: as_pair(d.get(k)) for k in _GAP_INTERVALS},
                   per_class=tuple(per_class), **split_keys(d, _GAP_TYPED))

    def to_dict(self) -> dict:
        return written_back({**{k: getattr(self, k) for k in _GAP_NUMBERS},
                              **{k: None if getattr(self, k) is None else list(getattr(self, k))
                                 for k in _GAP_INTERVALS},
                              "per_class": list(self.per_class)}, self.written, self.extra)


def theory_block(theory, key: str, block: type):
    """``theory[key]`` read as ``block`` (:class:`BttaBound`, :class:`GeneralizationGap`), or
    None where the result has none or it is damaged (the report and the GUI then leave its
    part out; :func:`engine.results.result.result_problem` names the damage)."""
    d = theory.get(key) if isinstance(theory, dict) else None
    if not d:               # none, or an empty table: nothing to show
        return None
    try:
        return block.from_dict(d)
    except BlockError:
        return None
