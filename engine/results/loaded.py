"""The one loader of result.json (issue 33 item 1): a saved or fresh result dict, old saved
projects included, read once into typed, frozen objects that the results pages, the report,
the plots and the headline read by attribute.

Why: results were dictionaries read key by key in every widget and report module (about
1,400 ``.get`` calls); a key renamed in the engine left a widget silently empty. Here a key
is read in one place; everywhere else a renamed field is an ``AttributeError`` the tests see.

The per-audit parts (the ``theory`` block and whatever each audit's attack entries carry in
``details``) are typed by the audit's own module in this package (``mechanism``,
``location``, ``aggregates``, ``model``); this module types what every audit shares and
dispatches on ``audit_type``. Old results: a key a result saved by an earlier version lacks
reads as ``None`` / empty, never as an error (``result_problem`` has already refused a
damaged result before anything is shown).
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from types import MappingProxyType
from typing import Any

from engine.numbers import is_finite
from engine.results import aggregates as aggregates_theory
from engine.results import location as location_theory
from engine.results import mechanism as mechanism_theory
from engine.results import model as model_theory
from engine.results.blocks import AttackEntry, BlockError, Verdict
from engine.signoff import SignOff, signoff_or_none

# audit_type -> the function that types its theory block: load_theory(theory, result) -> object
THEORY_LOADERS = {
    "mechanism": mechanism_theory.load_theory,
    "location": location_theory.load_theory,
    "aggregates": aggregates_theory.load_theory,
    "model": model_theory.load_theory,
}


@dataclass(frozen=True)
class GapColumn:
    """One column with empty cells of an input file (``missing_values.per_column``, written by
    engine.data.tabular, .microdata and .predictions): how many, and what was done."""

    column: str | None = None
    empty_cells: int | None = None
    action: str | None = None
    indicator: bool = False

    @classmethod
    def from_dict(cls, d: Mapping) -> GapColumn:
        return cls(column=None if d.get("column") is None else str(d.get("column")),
                   empty_cells=d.get("empty_cells"),
                   action=None if d.get("action") is None else str(d.get("action")),
                   indicator=bool(d.get("indicator")))


@dataclass(frozen=True)
class MissingValues:
    """``missing_values`` of an input file: the one sentence on its empty cells (issue 21)
    and the columns that had them."""

    sentence: str = ""
    per_column: tuple[GapColumn, ...] = ()

    @classmethod
    def from_dict(cls, d) -> MissingValues | None:
        if not isinstance(d, Mapping):
            return None
        cols = d.get("per_column")
        return cls(sentence=str(d.get("sentence", "")),
                   per_column=tuple(GapColumn.from_dict(c) for c in cols or ()
                                    if isinstance(c, Mapping)) if isinstance(cols, list) else ())


@dataclass(frozen=True)
class InputFile:
    """One entry of ``inputs``: a file the run read (engine.results.result.input_entry)."""

    path: str = ""
    role: str | None = None
    rows: int | None = None
    sha256: str | None = None
    bytes: int | None = None
    read_as: tuple[str, ...] = ()
    missing_values: MissingValues | None = None
    extra: Mapping = field(default_factory=dict)

    @classmethod
    def from_dict(cls, d: Mapping) -> InputFile:
        known = ("path", "role", "rows", "sha256", "bytes", "read_as", "missing_values")
        read_as = d.get("read_as") or ()
        return cls(path=str(d.get("path", "")), role=d.get("role"), rows=d.get("rows"),
                   sha256=d.get("sha256"), bytes=d.get("bytes"),
                   read_as=(read_as,) if isinstance(read_as, str) else tuple(read_as),
                   missing_values=MissingValues.from_dict(d.get("missing_values")),
                   extra={k: v for k, v in d.items() if k not in known})


@dataclass(frozen=True)
class DecisionNote:
    """One note of the officer's decision log (``decision_log``: the notes written on the
    results page, which the app adds to the result it exports; issue 32 item 6)."""

    time: str = ""
    text: str = ""


def _notes(items) -> tuple[DecisionNote, ...]:
    """The notes with text (a blank note, or one not of the form, is left out)."""
    return tuple(DecisionNote(time=str(e.get("time") or ""), text=str(e["text"]).strip())
                 for e in items or () if isinstance(e, Mapping)
                 and str(e.get("text") or "").strip())


def _entries(items, what: str) -> tuple[AttackEntry, ...]:
    out = []
    for i, a in enumerate(items or ()):
        try:
            out.append(AttackEntry.from_dict(a, f"{what} {i + 1}"))
        except BlockError as exc:
            # Kept by its name (``problem`` says why), so a table shows a row of dashes where
            # it stands; the headline and the charts leave it out (result_problem named it).
            out.append(AttackEntry.damaged(a, str(exc)))
    return tuple(out)


@dataclass(frozen=True)
class LoadedResult:
    """A result.json read once (module docstring). ``raw`` is the dict as read: only for
    writing it back (save, export, hashes), never for reading a figure."""

    audit_type: str
    name: str = ""
    created: str | None = None
    summary: str = ""
    seed: int | None = None
    runtime_s: float | None = None
    schema_version: int | None = None
    config_sha256: str | None = None
    config: Mapping = field(default_factory=dict)
    software: Mapping = field(default_factory=dict)
    verdict: Verdict | None = None
    # Why a verdict the result holds cannot be read (a damaged or hand-edited result.json:
    # the report says so instead of a traceback), or None.
    verdict_problem: str | None = None
    # The stored headline (``verdict.headline``) as written, kept even where the rest of the
    # verdict cannot be read: engine.headline checks it on its own and rebuilds a damaged one.
    headline_block: Mapping | None = None
    attacks: tuple[AttackEntry, ...] = ()
    baselines: tuple[AttackEntry, ...] = ()
    theory: Any = None
    inputs: tuple[InputFile, ...] = ()
    exposed_records: tuple[Mapping, ...] = ()
    warnings: tuple[str, ...] = ()
    decision_log: tuple[DecisionNote, ...] = ()
    # The officer's signed decision on this result and the earlier ones it replaced
    # (engine.signoff, issue 34 item 3); None / empty when none was recorded or readable.
    signoff: SignOff | None = None
    signoff_history: tuple[SignOff, ...] = ()
    # Top-level keys this loader does not type: what an audit type added without a typed
    # part here writes (docs/dev/adding_an_audit_type.md), read as ``extra["key"]``.
    extra: Mapping = field(default_factory=dict)
    raw: Mapping = field(default_factory=dict, repr=False, compare=False)

    @property
    def policy_fpr(self) -> float:
        """The false-alarm rate of the verdict policy the result was judged by (1 % when the
        config names none)."""
        pol = self.config.get("policy")
        fpr = pol.get("fpr") if isinstance(pol, Mapping) else None
        return float(fpr) if is_finite(fpr) else 0.01

    def attack(self, name: str) -> AttackEntry | None:
        """The attack (or baseline) called ``name``, or None."""
        return next((a for a in (*self.attacks, *self.baselines) if a.name == name), None)


def _headline_block(verdict) -> Mapping | None:
    block = verdict.get("headline") if isinstance(verdict, Mapping) else None
    return block if isinstance(block, Mapping) else None


# The top-level keys of result.json that :class:`LoadedResult` types (ARCHITECTURE §4).
_TYPED_KEYS = frozenset({
    "audit_type", "name", "created", "summary", "seed", "runtime_s", "schema_version",
    "config_sha256", "config", "software", "verdict", "attacks", "baselines", "theory",
    "inputs", "exposed_records", "warnings", "decision_log", "outputs", "signoff",
    "signoff_history"})


def load_result(d: Mapping) -> LoadedResult:
    """``d`` (result.json as a dict, or an ``AuditResult.to_dict()``) as a :class:`LoadedResult`."""
    if isinstance(d, LoadedResult):
        return d
    verdict_problem = None
    try:
        verdict = Verdict.from_dict(d["verdict"]) if d.get("verdict") else None
    except BlockError as exc:
        verdict, verdict_problem = None, str(exc)
    audit_type = str(d.get("audit_type", ""))
    theory = d.get("theory") or {}
    loader = THEORY_LOADERS.get(audit_type)
    return LoadedResult(
        audit_type=audit_type, name=str(d.get("name") or ""), created=d.get("created"),
        summary=str(d.get("summary") or ""), seed=d.get("seed"), runtime_s=d.get("runtime_s"),
        schema_version=d.get("schema_version"), config_sha256=d.get("config_sha256"),
        config=MappingProxyType(dict(d.get("config") or {})),
        software=MappingProxyType(dict(d.get("software") or {})),
        verdict=verdict, verdict_problem=verdict_problem,
        headline_block=_headline_block(d.get("verdict")), attacks=_entries(d.get("attacks"), "attack"),
        baselines=_entries(d.get("baselines"), "baseline"),
        theory=loader(theory, d) if loader else theory,
        inputs=tuple(InputFile.from_dict(i) for i in (d.get("inputs") or ()) if isinstance(i, Mapping)),
        exposed_records=tuple(d.get("exposed_records") or ()),
        warnings=tuple(str(w) for w in (d.get("warnings") or ())),
        decision_log=_notes(d.get("decision_log")),
        signoff=signoff_or_none(d.get("signoff")),
        signoff_history=_signoffs(d.get("signoff_history")),
        extra=MappingProxyType({k: v for k, v in d.items() if k not in _TYPED_KEYS}),
        raw=MappingProxyType(dict(d)))


def _signoffs(items) -> tuple[SignOff, ...]:
    """The earlier sign-offs of a result (``signoff_history``), oldest first; an entry that
    does not read as a sign-off is left out."""
    if not isinstance(items, list | tuple):
        return ()
    found = (signoff_or_none(i) for i in items)
    return tuple(s for s in found if s is not None)
