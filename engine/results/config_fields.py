"""Turning a user's config dict (from TOML, JSON or the GUI form) into a frozen dataclass.

Every problem becomes one :class:`InputError` sentence that names the source, the key, what is
allowed, and what was given — the CLI prints it as one line and exits 2; the GUI shows it
beside the form.
"""

from __future__ import annotations

import dataclasses
import math
from typing import Any

from engine.data.errors import InputError, given_value
from engine.policy import VerdictPolicy


def reject_unknown_keys(cls, d: dict, source: str, extra_allowed: tuple[str, ...] = ()) -> None:
    known = {f.name for f in dataclasses.fields(cls)} | set(extra_allowed)
    unknown = sorted(set(d) - known)
    if unknown:
        raise InputError(f"{source}: unknown key '{unknown[0]}'. Allowed keys: "
                         f"{', '.join(sorted(known))}.", source=source, key=unknown[0])


def as_number(source: str, key: str, value: Any, *, integer: bool = False,
              minimum: float | None = None, maximum: float | None = None,
              exclusive_minimum: bool = False, exclusive_maximum: bool = False) -> float | int:
    """Validate one numeric field and return it as float (or int)."""
    kind = "a whole number" if integer else "a number"
    if isinstance(value, bool) or value is None:
        raise InputError(f"{source}: '{key}' must be {kind} (got {given_value(value)}).",
                         source=source, key=key)
    try:
        number = float(value)
    except (TypeError, ValueError):
        raise InputError(f"{source}: '{key}' must be {kind} (got {given_value(value)}).",
                         source=source, key=key) from None
    if not math.isfinite(number):
        raise InputError(f"{source}: '{key}' must be a finite number (got "
                         f"{given_value(value)}).",
                         source=source, key=key)
    if integer:
        if number != int(number):
            raise InputError(f"{source}: '{key}' must be a whole number (got "
                             f"{given_value(value)}).",
                             source=source, key=key)
        number = int(number)
    low_bad = minimum is not None and (number <= minimum if exclusive_minimum else number < minimum)
    high_bad = maximum is not None and (number >= maximum if exclusive_maximum else number > maximum)
    if low_bad or high_bad:
        raise InputError(f"{source}: '{key}' must be {_range_text(minimum, maximum, exclusive_minimum, exclusive_maximum)} "
                         f"(got {given_value(value)}).", source=source, key=key)
    return number


def _range_text(lo, hi, ex_lo, ex_hi) -> str:
    parts = []
    if lo is not None:
        parts.append(("greater than " if ex_lo else "at least ") + f"{lo:g}")
    if hi is not None:
        parts.append(("less than " if ex_hi else "at most ") + f"{hi:g}")
    return " and ".join(parts)


def as_choice(source: str, key: str, value: Any, allowed: tuple[str, ...]) -> str:
    if not isinstance(value, str) or value not in allowed:
        raise InputError(f"{source}: '{key}' must be one of {', '.join(allowed)} (got "
                         f"{given_value(value)}).",
                         source=source, key=key)
    return value


def as_choice_list(source: str, key: str, items: Any, allowed: tuple[str, ...],
                   example: tuple[str, ...]) -> tuple[str, ...]:
    """A non-empty list of names from ``allowed``, duplicates dropped, order kept."""
    if isinstance(items, (list, tuple)) and not items:
        # "must be a list … (got [])" contradicted itself (hostile pass, issue 31 item 12).
        raise InputError(f"{source}: '{key}' is an empty list; name at least one, such as "
                         f"{list(example)}.", source=source, key=key)
    if not isinstance(items, (list, tuple)):
        raise InputError(f"{source}: '{key}' must be a list such as {list(example)} (got "
                         f"{given_value(items)}).", source=source, key=key)
    return tuple(dict.fromkeys(as_choice(source, key, a, allowed) for a in items))


def as_bool(source: str, key: str, value: Any) -> bool:
    if not isinstance(value, bool):
        raise InputError(f"{source}: '{key}' must be true or false.", source=source, key=key)
    return value


def begin_from_dict(cls, d: dict, source: str) -> dict:
    """The first checks of every Config.from_dict: a copy of ``d`` without ``audit_type``,
    which must name ``cls``'s audit, and no key ``cls`` does not have."""
    d = dict(d)
    audit_type = d.pop("audit_type", cls.audit_type)
    if audit_type != cls.audit_type:
        raise InputError(f"{source}: the audit to run must be “{cls.audit_type}” here (got "
                         f"{given_value(audit_type)}).", source=source, key="audit_type",
                         setting="audit_type")
    reject_unknown_keys(cls, d, source)
    return d


MAX_NAME_CHARS = 200     # an audit's name, as the title of its report and of its window


def short_name(name) -> str:
    """An audit's name of at most :data:`MAX_NAME_CHARS` characters; a longer one is cut and
    says so, "… (name cut, 3,145,728 characters)" (issue 31 item 12: a 3 MB name was cut to
    200 characters without a word). A name already cut is kept as it is."""
    text = str(name)
    if len(text) <= MAX_NAME_CHARS:
        return text
    tail = f"… (name cut, {len(text):,} characters)"
    return text[:MAX_NAME_CHARS - len(tail)].rstrip() + tail


def common_fields(d: dict, source: str) -> dict:
    """The keys every audit config has: schema_version, name, confidence, fpr_targets, seed
    and the verdict policy, validated the same way everywhere."""
    v: dict = {}
    if "schema_version" in d:
        sv = as_number(source, "schema_version", d["schema_version"], integer=True)
        if sv != 1:
            raise InputError(f"{source}: the config's format version {sv} is not "
                             "supported; this version of the app reads version 1.",
                             source=source, key="schema_version", setting="schema_version")
        v["schema_version"] = sv
    if "name" in d:
        v["name"] = short_name(d["name"])
    if "confidence" in d:
        v["confidence"] = as_number(source, "confidence", d["confidence"], minimum=0.5,
                                    maximum=0.999)
    if "fpr_targets" in d:
        targets = d["fpr_targets"]
        if not isinstance(targets, (list, tuple)) or not targets:
            raise InputError(f"{source}: the false-positive rates measured must be a list "
                             f"of rates such as 0.001, 0.01, 0.1 (got "
                             f"{given_value(targets)}).",
                             source=source, key="fpr_targets", setting="fpr_targets")
        v["fpr_targets"] = tuple(sorted(as_number(source, "fpr_targets", t, minimum=0,
                                                  maximum=1, exclusive_minimum=True,
                                                  exclusive_maximum=True) for t in targets))
    if "seed" in d:
        v["seed"] = as_number(source, "seed", d["seed"], integer=True, minimum=0,
                              maximum=2**63 - 1)
    if "policy" in d:
        if not isinstance(d["policy"], dict):
            raise InputError(f"{source}: the verdict's thresholds must be a table of "
                             "thresholds.", source=source, key="policy", setting="policy")
        v["policy"] = VerdictPolicy.from_dict(d["policy"], source)
    return v


def every_error(from_dict, d: dict, source: str = "settings", limit: int = 50
                ) -> list[InputError]:
    """Every problem of a config dict at once, each with the key it names (issue 21: a form
    that shows its errors one at a time makes the officer fix and retry field by field).

    ``from_dict(d, source)`` raises at the first problem; each time it does, the key it named
    is taken out (so its default applies) and the rest is checked again. Stops at a problem
    without a key, at a key already taken out (taking it out caused the problem: e.g. a key
    that has no default) or after ``limit`` problems. Empty when the config is valid."""
    work = _copy_nested(d)
    errors: list[InputError] = []
    removed: set[str] = set()
    while len(errors) < limit:
        try:
            from_dict(work, source)
            break
        except InputError as exc:
            key = exc.key
            if not key or key in removed or not _remove_nested(work, key):
                if not key or key not in removed:
                    errors.append(exc)
                break
            errors.append(exc)
            removed.add(key)
    return errors


def _copy_nested(d):
    return {k: _copy_nested(v) if isinstance(v, dict) else v for k, v in d.items()}


def _remove_nested(d: dict, key: str) -> bool:
    """Remove ``d["a"]["b"]`` for key "a.b" (or the top-level key of that name); True if
    something was removed."""
    if key in d:
        del d[key]
        return True
    head, _, rest = key.partition(".")
    inner = d.get(head)
    return bool(rest) and isinstance(inner, dict) and _remove_nested(inner, rest)
