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


__all__ = ["AttackEntry", "BlockError", "TprRow", "tpr_row_at"]
