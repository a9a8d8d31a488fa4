"""Config files (TOML) and project files (versioned JSON): reading, validating, writing.

Never pickle: a project file from a colleague must not be able to run code on this workstation.
"""

from __future__ import annotations

import datetime as _dt
import json
import os
import tomllib
from dataclasses import asdict, dataclass, field
from pathlib import Path

from engine.data.errors import InputError

PROJECT_SCHEMA_VERSION = 1
PROJECT_SUFFIX = ".praudit.json"


def read_config_file(path) -> dict:
    """Read a TOML (or JSON) config file into a dict; InputError names the file and line."""
    p = Path(path)
    if not p.exists():
        raise InputError(f"{p}: file not found. Check the path, or create a config from "
                         "resources/configs/mechanism_demo.toml.", source=str(p))
    if p.is_dir():
        raise InputError(f"{p}: is a folder, not a config file.", source=str(p))
    try:
        raw = p.read_bytes()
    except OSError as exc:
        raise InputError(f"{p}: cannot be read ({exc.strerror}).", source=str(p)) from None
    try:
        text = raw.decode("utf-8")
    except UnicodeDecodeError:
        raise InputError(f"{p}: is not a UTF-8 text file; save it as UTF-8 TOML.",
                         source=str(p)) from None
    if p.suffix.lower() == ".json":
        try:
            data = json.loads(text)
        except json.JSONDecodeError as exc:
            raise InputError(f"{p}: invalid JSON at line {exc.lineno}, column {exc.colno}: "
                             f"{exc.msg}.", source=str(p)) from None
    else:
        try:
            data = tomllib.loads(text)
        except tomllib.TOMLDecodeError as exc:
            raise InputError(f"{p}: invalid TOML: {exc}. Fix that line (strings need quotes, "
                             "e.g. mechanism = \"laplace\").", source=str(p)) from None
    if not isinstance(data, dict):
        raise InputError(f"{p}: the config must be a table of keys and values.", source=str(p))
    return data


def load_config(path):
    """Read and validate a config file into the right Config dataclass."""
    from engine.audits.registry import config_from_dict

    return config_from_dict(read_config_file(path), source=str(path))


def config_to_toml(config_dict: dict) -> str:
    """Write a config dict as TOML (flat keys plus one level of tables, as our configs are)."""
    lines, tables = [], []
    for key, value in config_dict.items():
        if isinstance(value, dict):
            tables.append((key, value))
        elif value is not None:
            lines.append(f"{key} = {_toml_value(value)}")
    for name, table in tables:
        lines.append("")
        lines.append(f"[{name}]")
        lines.extend(f"{k} = {_toml_value(v)}" for k, v in table.items() if v is not None)
    return "\n".join(lines) + "\n"


def _toml_value(v) -> str:
    if isinstance(v, bool):
        return "true" if v else "false"
    if isinstance(v, (int, float)):
        return repr(v)
    if isinstance(v, (list, tuple)):
        return "[" + ", ".join(_toml_value(x) for x in v) + "]"
    return json.dumps(str(v), ensure_ascii=False)  # JSON string escaping is valid TOML


@dataclass
class Project:
    """What the GUI saves: the config, the last result and the decision log."""

    audit_type: str
    config: dict
    result: dict | None = None
    decision_log: list[dict] = field(default_factory=list)   # [{"time": iso, "text": str}]
    schema_version: int = PROJECT_SCHEMA_VERSION
    name: str = ""
    saved: str = ""

    def log_decision(self, text: str) -> None:
        self.decision_log.append({"time": _now(), "text": text})


def _now() -> str:
    return _dt.datetime.now(_dt.timezone.utc).replace(microsecond=0).isoformat()


def save_project(path, project: Project) -> Path:
    """Write atomically (temp file + rename): a crash never leaves half a project."""
    p = Path(path)
    project.saved = _now()
    data = asdict(project)
    tmp = p.with_name(p.name + ".tmp")
    with open(tmp, "w", encoding="utf-8") as fh:
        json.dump(data, fh, indent=1, ensure_ascii=False)
        fh.write("\n")
    os.replace(tmp, p)
    return p


def load_project(path) -> Project:
    p = Path(path)
    if not p.exists():
        raise InputError(f"{p}: project file not found.", source=str(p))
    try:
        data = json.loads(p.read_text(encoding="utf-8"))
    except (UnicodeDecodeError, json.JSONDecodeError) as exc:
        raise InputError(f"{p}: is not a Privacy Risk Auditor project file (not valid JSON: "
                         f"{exc}).", source=str(p)) from None
    if not isinstance(data, dict) or "audit_type" not in data or "config" not in data:
        raise InputError(f"{p}: is not a Privacy Risk Auditor project file (no 'audit_type' "
                         "or 'config').", source=str(p))
    version = data.get("schema_version", 1)
    if not isinstance(version, int) or version > PROJECT_SCHEMA_VERSION:
        raise InputError(f"{p}: was written by a newer version of the app (project schema "
                         f"{version}); this version reads schema {PROJECT_SCHEMA_VERSION}.",
                         source=str(p))
    known = {"audit_type", "config", "result", "decision_log", "schema_version", "name", "saved"}
    return Project(**{k: v for k, v in data.items() if k in known})
