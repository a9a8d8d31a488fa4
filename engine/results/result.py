"""The result of any audit, and its ``result.json`` form (ARCHITECTURE §4)."""

from __future__ import annotations

import dataclasses
import datetime as _dt
import hashlib
import importlib.metadata as md
import json
import math
import platform
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np

from engine import __version__
from engine.atomic_write import write_text
from engine.data.paths import open_regular_file, resolve_path
from engine.data.text_input import read_notes
from engine.results.blocks import (
    AttackEntry,
    BlockError,
    BttaBound,
    GeneralizationGap,
    Verdict,
)
from engine.wording import attack_words

RESULT_SCHEMA_VERSION = 1
# What result.json holds in place of anything that describes a person the user did not ask to
# list (issue 11): an exposed record's id, values or label, the audited target's id.
REDACTED = "(redacted)"
# Configuration keys whose value names a person (typed by the user, so kept in result.json and
# config.toml, which reproduce the run; a report written without records withholds them).
PERSONAL_CONFIG_KEYS = ("target_id",)


def config_sha256(config_dict: dict) -> str:
    """SHA-256 of the canonical JSON of a config: equal configs give equal hashes."""
    text = json.dumps(to_plain(config_dict), sort_keys=True, separators=(",", ":"))
    return hashlib.sha256(text.encode("utf-8")).hexdigest()


def file_sha256(path) -> str:
    """SHA-256 of a file, streamed in 1 MiB blocks (never read whole into memory); only a
    regular file, and no further than its size when opened (engine.data.paths: a stream put
    under the name after the loader read it neither hangs nor runs forever)."""
    h = hashlib.sha256()
    fh, left = open_regular_file(resolve_path(path))
    with fh:
        while left > 0:
            block = fh.read(min(1 << 20, left))
            if not block:
                break
            h.update(block)
            left -= len(block)
    return h.hexdigest()


def software_versions(device: str) -> dict:
    """What produced the numbers: app, Python, the numeric libraries, the device."""
    out = {"app": __version__, "python": platform.python_version(), "numpy": np.__version__,
           "device": device}
    try:
        import scipy
        out["scipy"] = scipy.__version__
    except ImportError:  # pragma: no cover
        pass
    for dist in ("torch", "dp-accounting"):
        try:
            out[dist.replace("-", "_")] = md.version(dist)
        except md.PackageNotFoundError:  # pragma: no cover
            out[dist.replace("-", "_")] = "not installed"
    return out


def input_entry(path, *, rows: int | None = None, role: str | None = None) -> dict:
    """One ``inputs`` record of result.json: the file, its SHA-256, its rows and role, and —
    when reading it needed an assumption (a ';' separator, a byte-order mark, CR line ends) —
    what was assumed (``read_as``, from engine.data.text_input.read_notes)."""
    entry = {"path": str(path), "sha256": file_sha256(path)}
    if rows is not None:
        entry["rows"] = int(rows)
    if role is not None:
        entry["role"] = role
    notes = read_notes(path)
    if notes:
        entry["read_as"] = notes
    return entry


def input_warnings(inputs: list[dict]) -> list[str]:
    """A sentence per input file read with an assumption, for the result's warnings (shown on
    the results page and in the report)."""
    out = []
    for i in inputs:
        read_as = list(i.get("read_as") or [])
        # What was done with the file's gaps (engine.data.gaps: blanks and marks such as 'NA'),
        # in the warnings of every audit — the model audit's said it in its summary alone
        # (issue 31 item 10: one rule, said the same way everywhere).
        gaps = i.get("missing_values")
        sentence = gaps.get("sentence") if isinstance(gaps, dict) else None
        if sentence and not any(sentence.rstrip(".") in r for r in read_as):
            read_as.append(sentence.rstrip("."))
        if read_as:
            out.append(f"{Path(i['path']).name}: {'; '.join(read_as)}.")
    return out


def to_plain(obj: Any):
    """Recursively turn numpy values, tuples and dataclasses into JSON-ready Python values.

    Non-finite floats become None: JSON has no NaN/Infinity, and a report must not print 'nan'.
    """
    if isinstance(obj, dict):
        return {str(k): to_plain(v) for k, v in obj.items()}
    if isinstance(obj, (list, tuple)):
        return [to_plain(v) for v in obj]
    if isinstance(obj, np.ndarray):
        return [to_plain(v) for v in obj.tolist()]
    if isinstance(obj, (bool, np.bool_)):
        return bool(obj)
    if isinstance(obj, (int, np.integer)):
        return int(obj)
    if isinstance(obj, (float, np.floating)):
        f = float(obj)
        return f if np.isfinite(f) else None
    if dataclasses.is_dataclass(obj):
        return to_plain(obj.to_dict() if hasattr(obj, "to_dict") else dataclasses.asdict(obj))
    return obj


def with_plain_words(entry):
    """An attack entry with the catalogue's ``plain_name`` and ``description`` beside its
    technical ``name`` and ``label`` (issue 20: plain words first, the science in result.json;
    engine.wording). Entries that already carry them keep theirs."""
    if not isinstance(entry, dict) or not isinstance(entry.get("name"), str):
        return entry
    words = attack_words(entry["name"], entry.get("label"))
    return {**entry, "plain_name": entry.get("plain_name") or words.plain_name,
            "description": entry.get("description") or words.description}


@dataclass(frozen=True)
class AuditResult:
    """Everything one audit produced; ``to_dict()`` is exactly result.json."""

    audit_type: str
    name: str
    seed: int
    config: dict
    software: dict
    runtime_s: float
    attacks: list[dict]
    theory: dict
    verdict: dict
    summary: str
    baselines: list[dict] = field(default_factory=list)
    inputs: list[dict] = field(default_factory=list)
    exposed_records: list[dict] = field(default_factory=list)
    warnings: list[str] = field(default_factory=list)
    created: str = field(default_factory=lambda: _dt.datetime.now(_dt.UTC)
                         .replace(microsecond=0).isoformat())
    schema_version: int = RESULT_SCHEMA_VERSION
    # What a session can still use but result.json does not hold (e.g. the trade-off's fitted
    # models, to export the recommended one): never written, never compared.
    attachments: dict = field(default_factory=dict, repr=False, compare=False)

    def to_dict(self) -> dict:
        return to_plain({
            "schema_version": self.schema_version,
            "audit_type": self.audit_type,
            "name": self.name,
            "seed": self.seed,
            "created": self.created,
            "config": self.config,
            "config_sha256": config_sha256(self.config),
            "inputs": self.inputs,
            "software": self.software,
            "runtime_s": self.runtime_s,
            "summary": self.summary,
            "attacks": [with_plain_words(a) for a in self.attacks],
            "baselines": [with_plain_words(b) for b in self.baselines],
            "theory": self.theory,
            "exposed_records": self.exposed_records,
            "verdict": self.verdict,
            "warnings": self.warnings,
        })

    @classmethod
    def from_dict(cls, d: dict) -> AuditResult:
        names = {f.name for f in dataclasses.fields(cls)} - {"attachments"}
        return cls(**{k: v for k, v in d.items() if k in names})

    def write_json(self, path, *, outputs: list[dict] | None = None) -> None:
        """Write result.json crash-safely (engine.atomic_write). ``outputs``: the other files
        of the run, each ``{"path", "sha256", "bytes"}`` (engine.run_folder), added as
        the last key so that result.json, written last, says which files make up the run."""
        data = self.to_dict()
        if outputs is not None:
            data["outputs"] = to_plain(outputs)
        write_text(path, json.dumps(data, indent=2, ensure_ascii=False) + "\n")


# ----------------------------------------------------------------------- a saved result's form
# What :func:`result_problem` holds a saved result to: the form ``AuditResult.to_dict`` writes
# (ARCHITECTURE §4). A result read back from a project file was written by this app, so any
# other form means the file was damaged or edited; the results views and the report read these
# fields directly, and a wrong type there is an exception while drawing, not a sentence.
# The model audit's theory parts the report and the results page read (engine.results.blocks).
MODEL_THEORY_BLOCKS = {"btta_bound": BttaBound, "generalization_gap": GeneralizationGap}
_RESULT_TEXTS = ("name", "created", "summary", "config_sha256")
# The keys every saved result has, with the words a sentence names each by.
_RESULT_KEYS = {"audit_type": "the kind of audit", "attacks": "the list of attacks",
                "verdict": "the verdict", "summary": "the summary",
                "theory": "the theory section"}
_RESULT_TABLES = ("config", "software", "theory")
_RESULT_LISTS = ("inputs", "exposed_records")
# Numbers a result can hold: |x| beyond this is not a measurement, and squaring or summing it
# overflows where a view draws it.
_LARGEST = 1e15


class _Damaged(Exception):
    """A part of a saved result that is not in the form the app writes (its sentence)."""


def _is_number(v) -> bool:
    return isinstance(v, (int, float)) and not isinstance(v, bool)


def _check_numbers(value, where: str, largest: float = _LARGEST, depth: int = 0) -> None:
    """Every number anywhere in ``value`` is finite and at most ``largest`` in size
    (``to_plain`` writes NaN and infinity as null, so a saved result never holds them)."""
    if depth > 64:
        raise _Damaged(f"{where} is nested far deeper than any result the app writes")
    if isinstance(value, dict):
        for v in value.values():
            _check_numbers(v, where, largest, depth + 1)
    elif isinstance(value, list):
        for v in value:
            _check_numbers(v, where, largest, depth + 1)
    elif _is_number(value):
        # An int is compared as it is: float() of a 400-digit int raises OverflowError.
        sane = abs(value) <= largest if isinstance(value, int) else (
            math.isfinite(value) and abs(value) <= largest)
        if not sane:
            raise _Damaged(f"{where} holds a number too large or not finite to be a "
                           "measurement")


def _need(ok: bool, sentence: str) -> None:
    if not ok:
        raise _Damaged(sentence)


def _number_or_none(v) -> bool:
    return v is None or _is_number(v)


def _check_attack(a, where: str) -> None:
    """An attack or baseline entry reads as its typed block (engine.results.blocks)."""
    _check_block(AttackEntry, a, where)


def _check_block(block, d, *where) -> None:
    """``d`` reads as the typed ``block`` (engine.results.blocks), or its sentence."""
    try:
        block.from_dict(d, *where)
    except BlockError as exc:
        raise _Damaged(str(exc)) from None


def _check_result(d, audit_type: str | None) -> None:
    _need(isinstance(d, dict), "they are not a table")
    missing = [k for k in _RESULT_KEYS if k not in d]
    # The key in words and by name (issue 31 item 12: "the attacks is missing").
    _need(not missing, f"{_RESULT_KEYS[missing[0]]} is missing (key '{missing[0]}')"
          if missing else "")
    _need(isinstance(d["audit_type"], str) and d["audit_type"] == (audit_type or d["audit_type"]),
          "they belong to a different kind of audit than the project")
    version = d.get("schema_version", RESULT_SCHEMA_VERSION)
    _need(_is_number(version) and version == RESULT_SCHEMA_VERSION,
          "they were written in a layout this version of the app does not read")
    for key in _RESULT_TEXTS:
        _need(isinstance(d.get(key, ""), str), f"the {key.replace('_', ' ')} is not text")
    seed = d.get("seed")
    _need(seed is None or isinstance(seed, int) and not isinstance(seed, bool)
          or isinstance(seed, float) and seed.is_integer(),
          "the seed is not a whole number")
    _need(_number_or_none(d.get("runtime_s")), "the running time is not a number")
    for key in _RESULT_TABLES:
        _need(isinstance(d.get(key, {}), dict), f"the {key} is not a table")
    for key in _RESULT_LISTS:
        _need(isinstance(d.get(key, []), list) and all(isinstance(e, dict) for e in d.get(key, [])),
              f"the {key.replace('_', ' ')} are not a list of tables")
    warnings = d.get("warnings", [])
    _need(isinstance(warnings, list) and all(isinstance(w, str) for w in warnings),
          "the warnings are not a list of sentences")
    _check_block(Verdict, d["verdict"])
    theory = d.get("theory", {})
    for key, block in MODEL_THEORY_BLOCKS.items():
        if theory.get(key) is not None:
            _check_block(block, theory[key])
    for key, what in (("attacks", "attack"), ("baselines", "baseline")):
        items = d.get(key, [])
        _need(isinstance(items, list), f"the {key} are not a list")
        for i, a in enumerate(items, 1):
            _check_attack(a, f"{what} {i}")
    # A seed goes up to 2**63 - 1; the rest are measurements and counts.
    _check_numbers({k: v for k, v in d.items() if k not in ("config", "seed")}, "the result")
    _check_numbers([d.get("config"), d.get("seed")], "the result's settings", math.inf)


def result_problem(d, audit_type: str | None = None) -> str | None:
    """Why a saved result (a result.json dict read back from a project file) cannot be shown
    or reported, as words for the end of a sentence — e.g. "the verdict's risk level is not
    high, medium or low" — or None when it has the form :meth:`AuditResult.to_dict` writes.

    Checks the fields every results view and the report read (ARCHITECTURE §4): the verdict,
    each attack's and baseline's numbers, intervals, true-positive rates, ε bound and ROC
    curve, the lists and tables around them, the model audit's generalization-gap bound and
    gap (``theory.btta_bound``, ``theory.generalization_gap``), and that every number is
    finite. The other audit-specific sections inside ``theory`` and ``details`` are the views'
    own to read."""
    try:
        _check_result(d, audit_type)
    except _Damaged as exc:
        return str(exc)
    except RecursionError:
        return "they are nested far deeper than any result the app writes"
    return None
