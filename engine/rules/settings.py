"""The disclosure rules' parameters (issue 34 item 2): ACRO's defaults, editable.

ACRO (Automatic Checking of Research Outputs, the SACRO project; Green, Ritchie, Smith et al.
2023) and the Eurostat / ONS statistical disclosure control handbooks set the rules officers
apply to count and magnitude tables: the threshold rule (a cell of fewer than 10 people is
unsafe), zeros are disclosive, group (class) disclosure, differencing, the n,k dominance rule
(n = 2, k = 90 %) and the p % rule (p = 10 %). :class:`RuleSettings` holds them as the
count-table audit's ``[rules]`` table (``AggregatesConfig.rules``; docs/config_reference.md).

Every value out of range is an :class:`engine.data.errors.InputError` naming ``rules.<key>``
and the range, so the page can show it under the field.
"""

from __future__ import annotations

import math
from dataclasses import asdict, dataclass, fields
from typing import Any

from engine.data.errors import InputError, given_value

POLICY_FOLLOWS = ("attacks", "rules", "both")


def _key(key: str) -> str:
    return f"rules.{key}"


def _bool(source: str, key: str, value: Any) -> bool:
    if not isinstance(value, bool):
        raise InputError(f"{source}: '{_key(key)}' must be true or false (got "
                         f"{given_value(value)}).", source=source, key=_key(key),
                         setting=_key(key))
    return value


def _number(source: str, key: str, value: Any, lo: float, hi: float, *, integer: bool = False,
            open_low: bool = False) -> float | int:
    kind = "a whole number" if integer else "a number"
    span = f"in ({lo:g}, {hi:g}]" if open_low else f"from {lo:g} to {hi:g}"
    where = f"'{_key(key)}' must be {kind} {span}"
    if isinstance(value, bool) or value is None or isinstance(value, (list, dict, tuple)):
        raise InputError(f"{source}: {where} (got {given_value(value)}).", source=source,
                         key=_key(key), setting=_key(key))
    try:
        number = float(value)
    except (TypeError, ValueError):
        raise InputError(f"{source}: {where} (got {given_value(value)}).", source=source,
                         key=_key(key), setting=_key(key)) from None
    bad = (not math.isfinite(number) or number > hi or number < lo
           or (open_low and number <= lo) or (integer and not number.is_integer()))
    if bad:
        raise InputError(f"{source}: {where} (got {given_value(value)}).", source=source,
                         key=_key(key), setting=_key(key))
    return int(number) if integer else number


@dataclass(frozen=True)
class RuleSettings:
    """The ``[rules]`` table (shared contract of issue 34 item 2; ACRO's defaults)."""

    enabled: bool = True
    threshold: int = 10             # cells with fewer people than this are unsafe
    zeros_disclosive: bool = True   # a zero cell is flagged (ACRO: zeros are disclosive)
    group_disclosure: bool = True   # a group whose people all share one sensitive value
    differencing: bool = True       # a small group derivable as a difference of cells
    value_column: str = ""          # numeric column: the cells are also checked as its sums
    dominance_n: int = 2            # n,k dominance: the n largest contributors may not …
    dominance_k: float = 90.0       # … make more than k % of a cell's sum
    p_ratio: float = 10.0           # sum − the two largest under p % of the largest fails
    policy_follows: str = "attacks"  # attacks | rules | both (the stricter of the two)

    def to_dict(self) -> dict:
        return asdict(self)

    @classmethod
    def from_dict(cls, d: Any, source: str = "config") -> RuleSettings:
        """A user table checked key by key; every problem one sentence naming the key."""
        if d is None:
            return cls()
        if not isinstance(d, dict):
            raise InputError(f"{source}: the disclosure rules must be a table of settings "
                             f"([rules]; got {given_value(d)}).", source=source, key="rules",
                             setting="rules")
        known = {f.name for f in fields(cls)}
        unknown = sorted(set(map(str, d)) - known)
        if unknown:
            raise InputError(f"{source}: unknown key '{_key(unknown[0])}'; the rules' keys are "
                             f"{', '.join(sorted(known))}.", source=source,
                             key=_key(unknown[0]), setting=_key(unknown[0]))
        v: dict[str, Any] = {}
        for key in ("enabled", "zeros_disclosive", "group_disclosure", "differencing"):
            if key in d:
                v[key] = _bool(source, key, d[key])
        if "threshold" in d:
            v["threshold"] = _number(source, "threshold", d["threshold"], 1, 1000, integer=True)
        if "dominance_n" in d:
            v["dominance_n"] = _number(source, "dominance_n", d["dominance_n"], 1, 10,
                                       integer=True)
        if "dominance_k" in d:
            v["dominance_k"] = _number(source, "dominance_k", d["dominance_k"], 0, 100,
                                       open_low=True)
        if "p_ratio" in d:
            v["p_ratio"] = _number(source, "p_ratio", d["p_ratio"], 0, 100)
        if "value_column" in d:
            if not isinstance(d["value_column"], str):
                raise InputError(f"{source}: '{_key('value_column')}' must be a column name, "
                                 f"or empty for count tables only (got "
                                 f"{given_value(d['value_column'])}).", source=source,
                                 key=_key("value_column"), setting=_key("value_column"))
            v["value_column"] = d["value_column"].strip()[:200]
        if "policy_follows" in d:
            value = d["policy_follows"]
            if not isinstance(value, str) or value not in POLICY_FOLLOWS:
                raise InputError(f"{source}: '{_key('policy_follows')}' must be one of "
                                 f"{', '.join(POLICY_FOLLOWS)} (got {given_value(value)}).",
                                 source=source, key=_key("policy_follows"),
                                 setting=_key("policy_follows"))
            v["policy_follows"] = value
        return cls(**v)
