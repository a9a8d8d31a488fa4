"""The sign-off: a decision on one result, recorded beside the SHA-256 of the result it judges
(issue 34 item 3).

An officer decides on a release — approve, approve with conditions, or reject — and must be
able to defend that choice later. SACRO-Viewer (the SACRO project's output checker) records
approve/reject decisions on outputs; here the decision is tied to the exact result it was made
on: :func:`result_sha256` fingerprints the result (FIPS 180-4 SHA-256 over its canonical JSON,
the same canonical form ``engine.results.result.config_sha256`` uses for a config), so a result
edited or re-run after the signature no longer matches it, and :func:`check` says so in a
sentence.

Qt-free and below ``engine.results.loaded`` (which types ``result["signoff"]`` with
:class:`SignOff`): it imports nothing of the results package; its canonical form turns numpy
values and non-finite floats into what result.json holds, so a result dict fresh from a run and
the result.json it was written to give one digest.
"""

from __future__ import annotations

import datetime as _dt
import hashlib
import json
import math
import re
from collections.abc import Mapping
from dataclasses import asdict, dataclass

from engine.data.errors import InputError, given_value

DECISIONS = ("approve", "approve_with_conditions", "reject")
DECISION_LABELS = {"approve": "Approve", "approve_with_conditions": "Approve with conditions",
                   "reject": "Reject"}
#: What the officer adds to a result after the run: never part of what is signed (a note or a
#: sign-off added later must not break the signature it sits beside).
UNSIGNED_KEYS = frozenset({"decision_log", "signoff", "signoff_history"})
#: How long a typed field may be: a name or a role is one line; the texts a few pages at most.
_LINE_MAX, _TEXT_MAX = 200, 20_000
_DATE = re.compile(r"^\d{4}-\d{2}-\d{2}$")
_HEX64 = re.compile(r"^[0-9a-f]{64}$")
#: A saved sign-off's fields, in the words a sentence names them by.
_FIELD_WORDS = {"decision": "decision", "conditions": "conditions", "reviewer": "reviewer's name",
                "role": "role", "date": "date", "rationale": "rationale",
                "result_sha256": "result fingerprint", "signed_at": "time of signing",
                "audit_type": "audit type", "release": "release", "verdict": "verdict"}


@dataclass(frozen=True)
class SignOff:
    """One decision on one result (module doc). ``result_sha256``: :func:`result_sha256` of
    the result signed; ``release``: the audit's name (what was judged); ``verdict``: the
    verdict level the officer saw when signing."""

    decision: str
    conditions: str
    reviewer: str
    role: str
    date: str
    rationale: str
    result_sha256: str
    signed_at: str
    audit_type: str = ""
    release: str = ""
    verdict: str = ""

    @property
    def label(self) -> str:
        """"Approve with conditions" — the decision in words."""
        return DECISION_LABELS.get(self.decision, self.decision)

    @property
    def past_label(self) -> str:
        """"Approved with conditions" — the decision as a status reads it."""
        return {"approve": "Approved", "approve_with_conditions": "Approved with conditions",
                "reject": "Rejected"}.get(self.decision, self.decision)

    @property
    def who(self) -> str:
        """"Jane Roe (DPO)" — the reviewer, with the role when one was given."""
        return f"{self.reviewer} ({self.role})" if self.role else self.reviewer

    def to_dict(self) -> dict:
        return asdict(self)

    @classmethod
    def from_dict(cls, d, source: str = "sign-off") -> SignOff:
        """Read a saved sign-off; a missing or wrong field is an InputError naming it."""
        if not isinstance(d, Mapping):
            raise InputError(f"{source}: the sign-off must be a table of fields, got "
                             f"{given_value(d)[:60]}; sign the result again.", source=source,
                             key="signoff")
        values = {}
        for name, words in _FIELD_WORDS.items():
            v = d.get(name, "" if name in ("audit_type", "release", "verdict") else None)
            if not isinstance(v, str):
                raise InputError(f"{source}: the sign-off's {words} must be text; open the "
                                 "last good version of the project, or sign the result again.",
                                 source=source, key=f"signoff.{name}")
            values[name] = v
        if values["decision"] not in DECISIONS:
            raise InputError(f"{source}: the sign-off's decision “{values['decision'][:40]}” is "
                             "not approve, approve with conditions or reject; sign the result "
                             "again.",
                             source=source, key="signoff.decision")
        if not _HEX64.match(values["result_sha256"]):
            raise InputError(f"{source}: the sign-off's result fingerprint is not a SHA-256 "
                             "(64 hexadecimal characters); sign the result again.",
                             source=source, key="signoff.result_sha256")
        return cls(**values)


# --------------------------------------------------------------------------- the fingerprint

def _canonical(obj):
    """``obj`` as result.json holds it: tuples as lists, numpy values as Python numbers,
    NaN and infinities as null (engine.results.result.to_plain, re-done here below the
    results package), keys as text."""
    if isinstance(obj, Mapping):
        return {str(k): _canonical(v) for k, v in obj.items()}
    if isinstance(obj, (list, tuple)):
        return [_canonical(v) for v in obj]
    if hasattr(obj, "tolist") and not isinstance(obj, (str, bytes)):   # numpy arrays, scalars
        return _canonical(obj.tolist())
    if isinstance(obj, float):
        return obj if math.isfinite(obj) else None
    return obj


def result_sha256(result) -> str:
    """SHA-256 (hex) of the canonical JSON of a result: keys sorted, no spaces, UTF-8, the
    officer's additions (:data:`UNSIGNED_KEYS`) left out. Equal for a result dict, its loaded
    form (``raw``) and the result.json it was written to; a changed figure changes it."""
    raw = getattr(result, "raw", result)
    if not isinstance(raw, Mapping):
        raise InputError("There is no result to fingerprint: run the audit first.",
                         key="signoff")
    body = {k: v for k, v in raw.items() if k not in UNSIGNED_KEYS}
    text = json.dumps(_canonical(body), sort_keys=True, separators=(",", ":"),
                      ensure_ascii=False, allow_nan=False)
    return hashlib.sha256(text.encode("utf-8")).hexdigest()


# --------------------------------------------------------------------------- signing

def _line(value, what: str, key: str, required: str | None = None) -> str:
    text = " ".join(str(value or "").split())        # one line: no tabs, no line breaks
    if required and not text:
        raise InputError(required, key=key)
    if len(text) > _LINE_MAX:
        raise InputError(f"The {what} is {len(text)} characters long; shorten it to at most "
                         f"{_LINE_MAX}.", key=key)
    return text


def _text(value, what: str, key: str) -> str:
    text = str(value or "").strip()
    if len(text) > _TEXT_MAX:
        raise InputError(f"The {what} is {len(text):,} characters long; shorten it to at most "
                         f"{_TEXT_MAX:,}.", key=key)
    return text


def _date(value) -> str:
    text = str(value or "").strip()
    try:
        if not _DATE.match(text):
            raise ValueError
        day = _dt.date.fromisoformat(text)
    except ValueError:
        raise InputError(f"The date “{text[:20]}” is not a date written as year-month-day, "
                         "such as 2026-11-28; type it that way.", key="signoff.date") from None
    # A day ahead is allowed (the officer's clock may be in a time zone ahead of UTC).
    if day > _dt.datetime.now(_dt.UTC).date() + _dt.timedelta(days=1):
        raise InputError(f"The date {text} is in the future; a decision is dated the day it is "
                         "made.", key="signoff.date")
    return text


def sign(result, *, decision: str, conditions: str = "", reviewer: str, role: str = "",
         date: str, rationale: str = "") -> SignOff:
    """Sign ``result`` (a result dict or loaded result). Each field is checked in turn and a
    wrong one is an InputError whose ``key`` names it ("signoff.reviewer", …): the reviewer's
    name is required, conditions are required to approve with conditions, the date must be a
    real day written year-month-day and not in the future."""
    raw = getattr(result, "raw", result)
    if not isinstance(raw, Mapping) or not raw:
        raise InputError("There is no result to sign: run the audit first, then sign its "
                         "result.", key="signoff")
    if decision not in DECISIONS:
        raise InputError("Choose a decision — approve, approve with conditions or reject — "
                         "before signing.", key="signoff.decision")
    reviewer = _line(reviewer, "reviewer's name", "signoff.reviewer",
                     required="Type the reviewer's name before signing.")
    role = _line(role, "role", "signoff.role")
    conditions = _text(conditions, "conditions", "signoff.conditions")
    if decision == "approve_with_conditions" and not conditions:
        raise InputError("Write the conditions of the approval before signing (or choose "
                         "Approve).", key="signoff.conditions")
    if decision != "approve_with_conditions":
        conditions = ""                    # conditions belong to a conditional approval only
    date = _date(date)
    rationale = _text(rationale, "rationale", "signoff.rationale")
    verdict = raw.get("verdict")
    level = verdict.get("level") if isinstance(verdict, Mapping) else None
    return SignOff(decision=decision, conditions=conditions, reviewer=reviewer, role=role,
                   date=date, rationale=rationale, result_sha256=result_sha256(raw),
                   signed_at=_dt.datetime.now(_dt.UTC).replace(microsecond=0).isoformat(),
                   audit_type=str(raw.get("audit_type") or ""),
                   release=str(raw.get("name") or ""),
                   verdict=str(level) if isinstance(level, str) else "")


def check(signoff: SignOff | None, result) -> str | None:
    """None when ``result`` is the result ``signoff`` was made on (its SHA-256 matches), else
    a plain sentence saying what no longer holds. No sign-off: None (nothing to hold)."""
    if signoff is None:
        return None
    raw = getattr(result, "raw", result)
    if not isinstance(raw, Mapping) or not raw:
        return (f"The decision signed by {signoff.who} on {signoff.date} was made on a result "
                "that is no longer in the project; run the audit again and sign its result.")
    try:
        digest = result_sha256(raw)
    except (TypeError, ValueError, RecursionError):  # a value JSON cannot hold
        digest = ""
    if digest == signoff.result_sha256:
        return None
    return (f"The result no longer matches the one {signoff.who} signed on {signoff.date}: "
            f"its SHA-256 fingerprint is {digest[:12] or 'unreadable'}…, the signed one "
            f"{signoff.result_sha256[:12]}…. The result was changed after it was signed; "
            "review it and sign it again.")


def signoff_or_none(d) -> SignOff | None:
    """A saved sign-off read leniently (None when absent or unreadable) — for readers that
    must never fail (the typed result, engine.results.loaded); a project refuses a damaged
    one with a sentence (engine.project)."""
    if d is None:
        return None
    try:
        return SignOff.from_dict(d)
    except InputError:
        return None


def history_entry(signoff: dict, config: dict | None) -> dict:
    """One entry of a project's signed history (engine.project ``Project.history``): what was
    signed — the result's SHA-256, the settings and the sign-off — and when it stopped being
    the project's decision."""
    return {"result_sha256": str(signoff.get("result_sha256", "")),
            # As the project file holds it (lists, not tuples), so a saved history reads back equal.
            "config": json.loads(json.dumps(config or {}, ensure_ascii=False, default=str)),
            "signoff": dict(signoff),
            "superseded_at": _dt.datetime.now(_dt.UTC).replace(microsecond=0).isoformat()}
