"""The typed reader of the count-table result's ``theory["rules"]`` (issue 34 item 2): the
disclosure rules officers apply (engine.rules), per table and per cell, and where they
disagree with the attacks per target. Reached as ``AggregatesTheory.rules``
(engine.results.aggregates; contract: docs/dev/aggregates_result_contract.md, "The rules
beside the attacks").

A result written before the rules existed, or with them off, has no block: ``rules`` is None.
A key an older block lacks reads as None / () / an empty mapping; keys a part does not type
stay in its ``extra``. Values are kept as read.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field, fields
from types import MappingProxyType

from engine.results.blocks import table_or_empty


def _seq(v) -> tuple:
    return tuple(v) if isinstance(v, (list, tuple)) else ()


def _rest(cls, d: Mapping, also: tuple = ()) -> Mapping:
    names = {f.name for f in fields(cls)} | set(also)
    return MappingProxyType({k: v for k, v in d.items() if k not in names})


def _mapping(v) -> Mapping:
    return MappingProxyType(dict(v)) if isinstance(v, Mapping) else MappingProxyType({})


@dataclass(frozen=True)
class RuleParameters:
    """The ``[rules]`` settings the block was made with (engine.rules.RuleSettings)."""

    enabled: bool = True
    threshold: int | None = None
    zeros_disclosive: bool | None = None
    group_disclosure: bool | None = None
    differencing: bool | None = None
    value_column: str = ""
    dominance_n: int | None = None
    dominance_k: float | None = None
    p_ratio: float | None = None
    policy_follows: str | None = None
    extra: Mapping = field(default_factory=dict)

    @classmethod
    def from_dict(cls, d) -> RuleParameters:
        d = table_or_empty(d)
        kw = {f.name: d[f.name] for f in fields(cls) if f.name != "extra" and f.name in d}
        return cls(extra=_rest(cls, d), **kw)

    def to_dict(self) -> dict:
        return {f.name: getattr(self, f.name) for f in fields(self) if f.name != "extra"}


@dataclass(frozen=True)
class RuleTable:
    """One published table: its cells, how many fail a rule, how many fail each rule."""

    table: str = ""
    cells: int = 0
    failed: int = 0
    by_rule: Mapping = field(default_factory=dict)
    passes: bool = True
    extra: Mapping = field(default_factory=dict)

    @classmethod
    def from_dict(cls, d: Mapping) -> RuleTable:
        return cls(table=str(d.get("table", "")), cells=d.get("cells", 0),
                   failed=d.get("failed", 0), by_rule=_mapping(d.get("by_rule")),
                   passes=bool(d.get("passes", True)), extra=_rest(cls, d))

    def count(self, rule: str) -> int:
        """Cells of this table failing ``rule`` (0 when none or not run)."""
        return self.by_rule[rule] if rule in self.by_rule else 0

    def to_dict(self) -> dict:
        return {"table": self.table, "cells": self.cells, "failed": self.failed,
                "by_rule": dict(self.by_rule), "passes": self.passes}


@dataclass(frozen=True)
class RuleCell:
    """One failing cell: its table, label, the people behind it, the rules it fails, why."""

    table: str = ""
    label: str = ""
    count: float | None = None
    failed: tuple[str, ...] = ()
    reason: str = ""
    extra: Mapping = field(default_factory=dict)

    @classmethod
    def from_dict(cls, d: Mapping) -> RuleCell:
        return cls(table=str(d.get("table", "")), label=str(d.get("label", "")),
                   count=d.get("count"), failed=tuple(str(r) for r in _seq(d.get("failed"))),
                   reason=str(d.get("reason", "")), extra=_rest(cls, d))

    def to_dict(self) -> dict:
        return {"table": self.table, "label": self.label, "count": self.count,
                "failed": list(self.failed), "reason": self.reason}


@dataclass(frozen=True)
class RuleSummary:
    """The whole release: does every cell pass, cells, failing cells, per rule (None: the
    rule was not run), and the sentence."""

    passes: bool = True
    cells: int = 0
    failed_cells: int = 0
    by_rule: Mapping = field(default_factory=dict)
    sentence: str = ""
    extra: Mapping = field(default_factory=dict)

    @classmethod
    def from_dict(cls, d) -> RuleSummary:
        d = table_or_empty(d)
        return cls(passes=bool(d.get("passes", True)), cells=d.get("cells", 0),
                   failed_cells=d.get("failed_cells", 0), by_rule=_mapping(d.get("by_rule")),
                   sentence=str(d.get("sentence", "")), extra=_rest(cls, d))

    def ran(self, rule: str) -> bool:
        """Whether ``rule`` was run (False for a rule off, or needing a value column)."""
        return rule in self.by_rule and self.by_rule[rule] is not None

    def to_dict(self) -> dict:
        return {"passes": self.passes, "cells": self.cells, "failed_cells": self.failed_cells,
                "by_rule": dict(self.by_rule), "sentence": self.sentence}


@dataclass(frozen=True)
class RuleTarget:
    """One target: the rules' verdict on the cells that hold the person, what the attacks
    did, and which of the four outcomes that is (engine.rules.compare)."""

    target: str = ""
    rules_fail: bool = False
    failed: tuple[str, ...] = ()
    cells: tuple[str, ...] = ()
    attack_proves: bool = False
    attack_found: bool = False
    attack: str | None = None
    agreement: str = ""
    extra: Mapping = field(default_factory=dict)

    @classmethod
    def from_dict(cls, d: Mapping) -> RuleTarget:
        return cls(target=str(d.get("target", "")), rules_fail=bool(d.get("rules_fail")),
                   failed=tuple(str(r) for r in _seq(d.get("failed"))),
                   cells=tuple(str(c) for c in _seq(d.get("cells"))),
                   attack_proves=bool(d.get("attack_proves")),
                   attack_found=bool(d.get("attack_found")), attack=d.get("attack"),
                   agreement=str(d.get("agreement", "")), extra=_rest(cls, d))

    def to_dict(self) -> dict:
        return {"target": self.target, "rules_fail": self.rules_fail,
                "failed": list(self.failed), "cells": list(self.cells),
                "attack_proves": self.attack_proves, "attack_found": self.attack_found,
                "attack": self.attack, "agreement": self.agreement}


@dataclass(frozen=True)
class RuleDisagreement:
    """The four counts over the targets and the sentence."""

    rules_pass_attack_proves: int = 0
    rules_fail_no_attack: int = 0
    both_flag: int = 0
    both_pass: int = 0
    sentence: str = ""
    extra: Mapping = field(default_factory=dict)

    @classmethod
    def from_dict(cls, d) -> RuleDisagreement:
        d = table_or_empty(d)
        kw = {k: d.get(k, 0) for k in ("rules_pass_attack_proves", "rules_fail_no_attack",
                                        "both_flag", "both_pass")}
        return cls(sentence=str(d.get("sentence", "")), extra=_rest(cls, d), **kw)

    def to_dict(self) -> dict:
        return {"rules_pass_attack_proves": self.rules_pass_attack_proves,
                "rules_fail_no_attack": self.rules_fail_no_attack,
                "both_flag": self.both_flag, "both_pass": self.both_pass,
                "sentence": self.sentence}


@dataclass(frozen=True)
class RulesBlock:
    """``theory["rules"]`` (module docstring)."""

    parameters: RuleParameters = field(default_factory=RuleParameters)
    tables: tuple[RuleTable, ...] = ()
    cells: tuple[RuleCell, ...] = ()
    cells_truncated: int = 0
    summary: RuleSummary = field(default_factory=RuleSummary)
    targets: tuple[RuleTarget, ...] = ()
    disagreement: RuleDisagreement = field(default_factory=RuleDisagreement)
    policy_follows: str = "attacks"
    followed_sentence: str = ""
    seconds: float | None = None
    extra: Mapping = field(default_factory=dict)

    @classmethod
    def from_dict(cls, d) -> RulesBlock | None:
        """The block, or None when ``d`` is not one (absent, null, or not a table). The time
        it took is written ``runtime_s`` (result.json's convention for seconds measured; a block
        written with ``seconds`` reads the same)."""
        if not isinstance(d, Mapping) or not d:
            return None
        rows = [r for r in _seq(d.get("tables")) if isinstance(r, Mapping)]
        cells = [c for c in _seq(d.get("cells")) if isinstance(c, Mapping)]
        targets = [t for t in _seq(d.get("targets")) if isinstance(t, Mapping)]
        return cls(parameters=RuleParameters.from_dict(d.get("parameters")),
                   tables=tuple(RuleTable.from_dict(r) for r in rows),
                   cells=tuple(RuleCell.from_dict(c) for c in cells),
                   cells_truncated=d.get("cells_truncated", 0) or 0,
                   summary=RuleSummary.from_dict(d.get("summary")),
                   targets=tuple(RuleTarget.from_dict(t) for t in targets),
                   disagreement=RuleDisagreement.from_dict(d.get("disagreement")),
                   policy_follows=str(d.get("policy_follows") or "attacks"),
                   followed_sentence=str(d.get("followed_sentence") or ""),
                   seconds=d["runtime_s"] if "runtime_s" in d else d.get("seconds"),
                   extra=_rest(cls, d, ("runtime_s",)))

    def to_dict(self) -> dict:
        """The block as result.json holds it (keys of ``extra`` included)."""
        return {**dict(self.extra), "parameters": self.parameters.to_dict(),
                "tables": [t.to_dict() for t in self.tables],
                "cells": [c.to_dict() for c in self.cells],
                "cells_truncated": self.cells_truncated, "summary": self.summary.to_dict(),
                "targets": [t.to_dict() for t in self.targets],
                "disagreement": self.disagreement.to_dict(),
                "policy_follows": self.policy_follows,
                "followed_sentence": self.followed_sentence, "runtime_s": self.seconds}

    def disagreeing(self, kind: str) -> tuple[RuleTarget, ...]:
        """The targets of one outcome ("rules_pass_attack_proves", …)."""
        return tuple(t for t in self.targets if t.agreement == kind)

    @property
    def from_microdata(self) -> bool:
        """Whether the cells were judged on the people behind them (False: as published)."""
        return bool(self.extra.get("microdata", True))

    @property
    def cells_listed(self) -> bool:
        """Whether the targets' cells are named by label (the audit listed exposed records);
        otherwise they are given as tables and counts."""
        return bool(self.extra.get("cells_listed", False))


def load_rules(theory: Mapping) -> RulesBlock | None:
    """``theory["rules"]`` typed, or None when the result has none."""
    return RulesBlock.from_dict(table_or_empty(theory).get("rules"))


__all__ = ["RuleCell", "RuleDisagreement", "RuleParameters", "RuleSummary", "RuleTable",
           "RuleTarget", "RulesBlock", "load_rules"]

