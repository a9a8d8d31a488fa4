"""The result of any audit, and its ``result.json`` form (ARCHITECTURE §4)."""

from __future__ import annotations

import dataclasses
import datetime as _dt
import hashlib
import json
import platform
from dataclasses import dataclass, field
from typing import Any

import numpy as np

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
    from engine.data.paths import open_regular_file, resolve_path

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
    from engine import __version__

    out = {"app": __version__, "python": platform.python_version(), "numpy": np.__version__,
           "device": device}
    try:
        import scipy
        out["scipy"] = scipy.__version__
    except ImportError:  # pragma: no cover
        pass
    import importlib.metadata as md
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
    from engine.data.text_input import read_notes

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
    from pathlib import Path

    return [f"{Path(i['path']).name}: {'; '.join(i['read_as'])}."
            for i in inputs if i.get("read_as")]


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
            "attacks": self.attacks,
            "baselines": self.baselines,
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
        of the run, each ``{"path", "sha256", "bytes"}`` (engine.audits.run_folder), added as
        the last key so that result.json, written last, says which files make up the run."""
        from engine.atomic_write import write_text

        data = self.to_dict()
        if outputs is not None:
            data["outputs"] = to_plain(outputs)
        write_text(path, json.dumps(data, indent=2, ensure_ascii=False) + "\n")
