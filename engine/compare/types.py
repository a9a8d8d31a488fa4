"""The typed objects of a comparison of candidate releases (issue 34 item 1; the contract in
engine/compare/__init__.py): what was compared, each candidate's risk and cost, which pairs
cannot be told apart, and the best candidate that meets the policy.

``Comparison.to_dict()`` is exactly ``comparison.json`` (schema_version 1); ``from_dict`` reads
it back, so the GUI and the report read a saved comparison through these objects, never raw.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import asdict, dataclass, field

from engine.data.errors import InputError

SCHEMA_VERSION = 1
STATUSES = ("finished", "pending", "running", "cancelled", "failed")


@dataclass(frozen=True)
class Candidate:
    """One candidate release: its label and the config keys it changes from the base."""

    label: str
    overrides: Mapping = field(default_factory=dict)
    source: str = "config"          # "config", or "project:<path>" for a saved project


@dataclass(frozen=True)
class RiskFigure:
    """The headline risk of one candidate (engine.headline): ``metric`` "tpr" (the share of
    targets spotted at the policy's false-alarm rate) or "accuracy" (balanced accuracy),
    ``ci`` its interval, ``baseline`` what guessing gets, ``bound`` what DP theory allows for
    this figure (None where the audit has no such bound)."""

    metric: str
    label: str
    value: float | None
    ci: tuple[float, float] | None
    baseline: float
    sentence: str
    bound: float | None = None


@dataclass(frozen=True)
class CostFigure:
    """What the candidate costs the data's users, measured from its result (engine.compare.
    utility); lower is better for every metric, ``details`` the other measured figures."""

    metric: str
    label: str
    value: float | None
    unit: str
    sentence: str
    details: Mapping = field(default_factory=dict)


@dataclass(frozen=True)
class CandidateRow:
    index: int                      # 1-based, as the folders candidate-<i>
    label: str
    overrides: Mapping
    status: str                     # one of STATUSES
    error: str | None
    risk: RiskFigure | None
    cost: CostFigure | None
    verdict_level: str | None
    verdict_sentence: str
    meets_policy: bool | None
    result_sha256: str | None
    folder: str | None
    runtime_s: float | None = None


@dataclass(frozen=True)
class PairTest:
    """Whether candidates ``a`` and ``b`` (1-based indices) can be told apart at this size."""

    a: int
    b: int
    distinguishable: bool
    sentence: str


@dataclass(frozen=True)
class Comparison:
    audit_type: str
    name: str
    seed: int
    rows: tuple[CandidateRow, ...]
    pairs: tuple[PairTest, ...]
    best: int | None                # the best row's index (1-based), None when none qualifies
    best_sentence: str
    sentence: str
    policy: Mapping                 # {"verdict_policy": {...}, "highest_level": "low"}
    schema_version: int = SCHEMA_VERSION

    @property
    def highest_level(self) -> str:
        """The highest verdict level the policy accepts ("low" unless the spec says)."""
        return str(self.policy.get("highest_level", "low"))

    @property
    def finished(self) -> tuple[CandidateRow, ...]:
        return tuple(r for r in self.rows if r.status == "finished")

    def row(self, index: int) -> CandidateRow:
        return next(r for r in self.rows if r.index == index)

    def to_dict(self) -> dict:
        d = asdict(self)
        d["rows"] = [_plain(asdict(r)) for r in self.rows]
        d["pairs"] = [asdict(p) for p in self.pairs]
        d["policy"] = _plain(dict(self.policy))
        return {"schema_version": SCHEMA_VERSION, **{k: v for k, v in d.items()
                                                     if k != "schema_version"}}

    @classmethod
    def from_dict(cls, d, source: str = "comparison.json") -> Comparison:
        """Read a comparison.json dict; one InputError sentence when it is not one."""
        try:
            if not isinstance(d, Mapping) or d.get("schema_version") != SCHEMA_VERSION:
                raise ValueError
            rows = tuple(_row(r) for r in d["rows"])
            pairs = tuple(PairTest(int(p["a"]), int(p["b"]), bool(p["distinguishable"]),
                                   str(p["sentence"])) for p in d["pairs"])
            best = d.get("best")
            return cls(audit_type=str(d["audit_type"]), name=str(d["name"]), seed=int(d["seed"]),
                       rows=rows, pairs=pairs, best=None if best is None else int(best),
                       best_sentence=str(d["best_sentence"]), sentence=str(d["sentence"]),
                       policy=dict(d.get("policy") or {}))
        except (KeyError, TypeError, ValueError, AttributeError, StopIteration):
            raise InputError(f"{source}: is not a comparison this app wrote (or it was "
                             "damaged); run the comparison again.", source=source) from None


def _interval(v) -> tuple[float, float] | None:
    if v is None:
        return None
    lo, hi = v
    return float(lo), float(hi)


def _num(v) -> float | None:
    return None if v is None else float(v)


def _row(r: Mapping) -> CandidateRow:
    risk = r.get("risk")
    cost = r.get("cost")
    if r["status"] not in STATUSES:
        raise ValueError
    return CandidateRow(
        index=int(r["index"]), label=str(r["label"]), overrides=dict(r.get("overrides") or {}),
        status=str(r["status"]), error=r.get("error"),
        risk=None if risk is None else RiskFigure(
            metric=str(risk["metric"]), label=str(risk["label"]), value=_num(risk["value"]),
            ci=_interval(risk.get("ci")), baseline=float(risk["baseline"]),
            sentence=str(risk["sentence"]), bound=_num(risk.get("bound"))),
        cost=None if cost is None else CostFigure(
            metric=str(cost["metric"]), label=str(cost["label"]), value=_num(cost["value"]),
            unit=str(cost["unit"]), sentence=str(cost["sentence"]),
            details=dict(cost.get("details") or {})),
        verdict_level=r.get("verdict_level"), verdict_sentence=str(r.get("verdict_sentence", "")),
        meets_policy=r.get("meets_policy"), result_sha256=r.get("result_sha256"),
        folder=r.get("folder"), runtime_s=_num(r.get("runtime_s")))


def _plain(v):
    """Tuples as lists and mappings as dicts, so the dict is what json writes and reads."""
    if isinstance(v, Mapping):
        return {str(k): _plain(x) for k, x in v.items()}
    if isinstance(v, (list, tuple)):
        return [_plain(x) for x in v]
    return v
