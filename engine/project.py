"""Project files (versioned JSON): reading, validating, writing; and a config file read into
its audit's Config (:func:`load_config`).

Above the audit registry (it checks a project's settings with the audit's own reader) and
below the GUI; reading and writing the TOML itself is :mod:`engine.config_file`, which the
audits use too. Never pickle: a project file from a colleague must not be able to run code on this workstation.
"""

from __future__ import annotations

import contextlib
import datetime as _dt
import json
import os
import stat
from dataclasses import asdict, dataclass, field
from pathlib import Path

from engine.atomic_write import atomic_path, copy_file
from engine.audits.registry import AUDIT_TYPES, config_from_dict

# Re-exported: callers that handle projects and config files together import both from here.
from engine.config_file import config_to_toml as config_to_toml
from engine.config_file import read_config_file
from engine.data.errors import InputError, given_value
from engine.data.paths import require_regular_file, resolve_path
from engine.data.text_input import read_text
from engine.private_tmp import process_alive
from engine.results.result import result_problem
from engine.signoff import SignOff, check, history_entry

PROJECT_SCHEMA_VERSION = 1
PROJECT_SUFFIX = ".praudit.json"


def load_config(path):
    """Read and validate a config file into the right Config dataclass."""
    return config_from_dict(read_config_file(path), source=str(path))


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
    # The officer's signed decision on the result (engine.signoff.SignOff.to_dict, issue 34
    # item 3; None: not signed) and the signed versions replaced since, oldest first: each
    # {"result_sha256", "config", "signoff", "superseded_at"}. Last, so that a project made
    # by position (audit type, config, result, …) keeps its meaning.
    signoff: dict | None = None
    history: list[dict] = field(default_factory=list)
    # Set by load_project, never saved (class attributes, not fields): the words for why the
    # saved result cannot be shown (engine.results.result.result_problem), and the first
    # setting the audit would refuse — an InputError naming its key — when the project was
    # saved from a half-typed form. Both None for a sound project.
    result_problem = None
    config_problem = None
    # Also set by load_project, never saved: the sentence for a saved result that no longer
    # matches the SHA-256 its sign-off recorded (engine.signoff.check), or None.
    signoff_problem = None

    def log_decision(self, text: str) -> None:
        self.decision_log.append({"time": _now(), "text": text})

    def supersede_signoff(self, config: dict | None = None) -> None:
        """Keep the signed version in :attr:`history` and leave the project unsigned: the
        settings or the result changed after the sign-off (issue 34 item 3). ``config``: the
        settings that were signed (default: the result's own)."""
        if self.signoff is None:
            return
        signed = config if config is not None else (self.result or {}).get("config", {})
        self.history.append(history_entry(self.signoff, signed))
        self.signoff = None


def _now() -> str:
    return _dt.datetime.now(_dt.UTC).replace(microsecond=0).isoformat()


BACKUP_SUFFIX = ".last-good"


def backup_path(path) -> Path:
    """Where the previous good version of a project is kept: ``name.praudit.json.last-good``
    beside it (issue 11: "the app offers the last good autosave")."""
    p = Path(path)
    return p.with_name(p.name + BACKUP_SUFFIX)


def save_project(path, project: Project) -> Path:
    """Write crash-safely: the new version goes to a private temp file in the same folder,
    is flushed and fsync'ed, and replaces the project in one atomic rename (then the folder is
    fsync'ed so the rename survives a power cut). A process killed at any point leaves either
    the old project or the new one, never half of one. Before the rename, the version being
    replaced is kept as :func:`backup_path` when it still opens — so a project file damaged
    later (a bad copy, a full disk elsewhere) has a last good version to fall back on."""
    p = Path(path)
    project.saved = _now()
    text = json.dumps(asdict(project), indent=1, ensure_ascii=False) + "\n"
    with atomic_path(p) as tmp:
        tmp.write_bytes(text.encode("utf-8"))
        if p.exists():
            _keep_last_good(p)
    return p


def _keep_last_good(p: Path) -> None:
    """Copy the current project to its backup (atomically too) if it still opens."""
    try:
        load_project(p)
    except InputError:
        return                                 # never replace a good backup with a bad file
    with contextlib.suppress(OSError):         # a backup that cannot be written stops no save
        copy_file(p, backup_path(p))


def last_good_project(path) -> tuple[Project, Path] | None:
    """The last good version of a project that no longer opens, or None."""
    b = backup_path(path)
    if not b.exists():
        return None
    try:
        return load_project(b), b
    except InputError:
        return None


# ----------------------------------------------------------------------- recovery copies

RECOVERY_SUFFIX = ".recovery.json"


def recovery_path(folder, audit_type: str, pid: int | None = None) -> Path:
    """The recovery copy of one audit page of the session ``pid`` (default: this process):
    ``<pid>-<audit type>.recovery.json`` in ``folder`` — one per page, so two pages never
    share a copy, and the session's process id tells a crashed session's copy (its process is
    gone) from that of an app still open."""
    return Path(folder) / f"{os.getpid() if pid is None else pid}-{audit_type}{RECOVERY_SUFFIX}"


def save_recovery(folder, project: Project, project_path: str | None = None) -> Path:
    """Keep what a page holds, unsaved, in its recovery copy (issue 31, item 1).

    Autosave writes here and never into a project file: a project file is written only when
    the officer saves it. ``project_path`` is the project file the page's work belongs to
    (None: not saved yet), so a restored copy is saved back there — when the officer saves.
    The folder is made readable by the user alone (0700) and the copy is written atomically,
    readable by the user alone (0600, engine.atomic_write), as a project file is."""
    where = Path(folder)
    where.mkdir(mode=0o700, parents=True, exist_ok=True)
    if stat.S_IMODE(where.stat().st_mode) != 0o700:
        os.chmod(where, 0o700)
    project.saved = _now()
    data = {**asdict(project), "recovers": str(project_path) if project_path else None}
    target = recovery_path(where, project.audit_type)
    with atomic_path(target) as tmp:
        tmp.write_bytes((json.dumps(data, ensure_ascii=False) + "\n").encode("utf-8"))
    return target


def remove_recovery(folder, audit_type: str | None = None, pid: int | None = None) -> None:
    """Remove the recovery copy of ``audit_type`` (None: every page) of session ``pid``
    (default: this process) — after a clean save of that page, or a clean quit."""
    folder = Path(folder)
    if audit_type is not None:
        targets = [recovery_path(folder, audit_type, pid)]
    else:
        prefix = f"{os.getpid() if pid is None else pid}-"
        targets = [p for p in _recovery_files(folder) if p.name.startswith(prefix)]
    for target in targets:
        with contextlib.suppress(FileNotFoundError):
            target.unlink()


@dataclass(frozen=True)
class Recovery:
    """A recovery copy left by a session that did not quit cleanly."""

    file: Path                       # the recovery copy
    project: Project                 # what the page held
    project_path: str | None         # the project file that work belongs to (None: not saved)


def orphaned_recoveries(folder) -> list[Recovery]:
    """The recovery copies of sessions whose process is gone (the app closed unexpectedly),
    newest first. A copy of a session still running (another window of the app) is never
    offered; a copy that no longer reads as a project is left out (and left as it is)."""
    found = []
    for file in _recovery_files(Path(folder)):
        pid = file.name.split("-", 1)[0]
        if not pid.isdigit() or process_alive(int(pid)) or file.is_symlink():
            continue
        try:
            project = load_project(file)
            recovers = json.loads(file.read_text(encoding="utf-8")).get("recovers")
        except (InputError, OSError, ValueError, RecursionError):
            continue
        found.append(Recovery(file, project, recovers if isinstance(recovers, str) else None))
    return sorted(found, key=lambda r: r.project.saved, reverse=True)


def _recovery_files(folder: Path) -> list[Path]:
    try:
        return sorted(p for p in folder.iterdir() if p.name.endswith(RECOVERY_SUFFIX))
    except OSError:                       # no folder yet: nothing kept
        return []


def load_project(path) -> Project:
    p = resolve_path(path)
    # Whether the path is a file that can be read at all is said as it is (a named pipe, a
    # device, a link loop): "not a project file" would send the user looking at the content.
    require_regular_file(p, "project file", missing="project file not found.")
    try:
        text = read_text(p, kind="project file", save_as="a project from this app").text
    except InputError as exc:
        raise InputError(f"{p}: is not a Privacy Risk Auditor project file "
                         f"({str(exc).removeprefix(f'{p}: ').rstrip('.')}).",
                         source=str(p)) from None
    try:
        data = json.loads(text)
    except (json.JSONDecodeError, RecursionError) as exc:
        raise InputError(f"{p}: is not a Privacy Risk Auditor project file (not valid JSON: "
                         f"{exc}).", source=str(p)) from None
    except ValueError:          # a number of more than 4,300 digits (int_max_str_digits)
        raise InputError(f"{p}: is damaged — it holds a number too long to be a setting or a "
                         "result; open the last good version of the project, or start a new "
                         "one.", source=str(p)) from None
    if not isinstance(data, dict) or "audit_type" not in data or "config" not in data:
        raise InputError(f"{p}: is not a Privacy Risk Auditor project file (it does not say "
                         "which audit it holds, or has no settings).", source=str(p))
    version = data.get("schema_version", 1)
    if isinstance(version, bool) or not isinstance(version, int) or version < 1:
        raise InputError(f"{p}: is damaged — its format version must be a whole number of at "
                         f"least 1, got {given_value(version)}; open the last good version of the "
                         f"project, or start a new one.", source=str(p), key="schema_version")
    if version > PROJECT_SCHEMA_VERSION:
        raise InputError(f"{p}: was written by a newer version of the app (project schema "
                         f"{version}); this version reads schema {PROJECT_SCHEMA_VERSION}.",
                         source=str(p))
    _check_project_fields(p, data)
    config_problem = _check_config_block(p, data["audit_type"], data["config"])
    known = {"audit_type", "config", "result", "decision_log", "schema_version", "name", "saved",
             "signoff", "history"}
    project = Project(**{k: v for k, v in data.items() if k in known})
    project.config_problem = config_problem
    if project.result is not None:
        project.result_problem = result_problem(project.result, project.audit_type)
    if project.signoff is not None:
        # The signature holds only for the result it was made on (issue 34 item 3): a result
        # edited since opens with that said plainly.
        problem = check(SignOff.from_dict(project.signoff, str(p)), project.result)
        project.signoff_problem = f"{p}: {problem}" if problem else None
    return project


def _check_project_fields(p: Path, data: dict) -> None:
    """Each field of a project file has the type the app saves, or one sentence naming it."""
    def bad(key: str, want: str) -> InputError:
        return InputError(f"{p}: is damaged — '{key}' must be {want}, got "
                          f"{given_value(data[key])[:60]}; open the last "
                          f"good version of the project, or start a new one.", source=str(p),
                          key=key)
    if not isinstance(data["audit_type"], str):
        raise bad("audit_type", "the name of an audit type")
    if not isinstance(data["config"], dict):
        raise bad("config", "a table of settings")
    if data.get("result") is not None and not isinstance(data["result"], dict):
        raise bad("result", "a table (the last result) or null")
    for key in ("name", "saved"):
        if key in data and not isinstance(data[key], str):
            raise bad(key, "text")
    log = data.get("decision_log", [])
    if not isinstance(log, list) or not all(
            isinstance(e, dict) and isinstance(e.get("text"), str)
            and isinstance(e.get("time", ""), str) for e in log):
        raise bad("decision_log", "a list of entries with a 'time' and a 'text'")
    _check_signoffs(p, data)


def _check_signoffs(p: Path, data: dict) -> None:
    """The sign-off and the signed history (issue 34 item 3) have the form the app saves, or
    one sentence naming the field: a damaged signature is never read as a decision."""
    source = str(p)
    if data.get("signoff") is not None:
        try:
            SignOff.from_dict(data["signoff"], source)
        except InputError as exc:
            raise InputError(f"{p}: is damaged — {str(exc).removeprefix(f'{p}: ')}",
                             source=source, key="signoff") from None
    history = data.get("history", [])
    if not isinstance(history, list) or not all(
            isinstance(h, dict) and isinstance(h.get("config", {}), dict)
            and isinstance(h.get("signoff"), dict) for h in history):
        raise InputError(f"{p}: is damaged — 'history' must be a list of signed versions, "
                         "each with its settings and its sign-off; open the last good version "
                         "of the project, or start a new one.", source=source, key="history")
    for h in history:
        try:
            SignOff.from_dict(h["signoff"], source)
        except InputError as exc:
            raise InputError(f"{p}: is damaged — in its signed history, "
                             f"{str(exc).removeprefix(f'{p}: ')}", source=source,
                             key="history") from None


def _check_config_block(p: Path, audit_type: str, config: dict) -> InputError | None:
    """Read a project's settings through the audit's own reader (``config_from_dict``).

    A setting whose *form* is wrong — a table where a number goes, a number where the verdict
    policy's table goes, another audit's settings — cannot come from this app's form: the
    project is refused with a sentence naming the key. A setting whose *value* the audit would
    refuse (a half-typed number, an ε out of range, an unknown key) is what Save keeps of a
    form that was not finished (``AuditPage.config_for_saving``): it is returned, so the
    project opens with the form as typed and that sentence beside the field.
    """
    def damaged(key: str, what: str) -> InputError:
        return InputError(f"{p}: is damaged — its setting '{key}' {what}; open the last good "
                          "version of the project, or start a new one.", source=str(p), key=key)

    if audit_type not in AUDIT_TYPES:
        raise InputError(f"{p}: is a '{audit_type[:40]}' audit, which this version of the app "
                         "cannot open; open it with the version of the app that saved it.",
                         source=str(p), key="audit_type")
    own = config.get("audit_type", audit_type)
    if own != audit_type:
        raise damaged("audit_type", f"names another kind of audit than the project "
                                    f"({str(own)[:40]!r}, not '{audit_type}')")
    defaults = config_from_dict({"audit_type": audit_type}, source=str(p)).to_dict()
    problem = _config_shape_problem(config, defaults)
    if problem is not None:
        raise damaged(*problem)
    try:
        config_from_dict({**config, "audit_type": audit_type}, source=str(p))
    except InputError as exc:
        return exc
    except (RecursionError, ValueError, TypeError, AttributeError, KeyError,
            IndexError, OverflowError):
        # The reader met a value it does not describe in words: refuse rather than open a
        # project whose settings the audit cannot read.
        raise InputError(f"{p}: is damaged — the audit cannot read its settings; open the "
                         "last good version of the project, or start a new one.",
                         source=str(p)) from None
    return None


_SCALARS = (str, int, float, bool, type(None))


def _config_shape_problem(config: dict, defaults: dict, prefix: str = "",
                          ) -> tuple[str, str] | None:
    """The first setting of ``config`` whose form (table, list or single value) differs from
    the audit's default settings: ``(key, what is wrong)``, nested keys as "policy.fpr"."""
    for key, value in config.items():
        if key not in defaults:
            continue                     # an unknown key: the reader names it (a value problem)
        want, name = defaults[key], f"{prefix}{key}"
        if isinstance(want, dict):
            if not isinstance(value, dict):
                return name, f"must be a table of settings, not {_kind(value)}"
            inner = _config_shape_problem(value, want, f"{name}.")
            if inner is not None:
                return inner
        elif isinstance(want, list):
            if not isinstance(value, list):
                return name, f"must be a list, not {_kind(value)}"
            if want and all(isinstance(w, _SCALARS) for w in want) and not all(
                    isinstance(v, _SCALARS) for v in value):
                return name, "must be a list of single values, not of lists or tables"
        elif want is not None and not isinstance(value, _SCALARS):
            return name, f"must be a single value, not {_kind(value)}"
    return None


def _kind(value) -> str:
    if isinstance(value, dict):
        return "a table"
    if isinstance(value, list):
        return "a list"
    return f"{type(value).__name__} {str(value)[:40]!r}"
