"""A folder of projects as one decision log (issue 34 item 3): for every project file, what
was judged, the verdict, the decision, who signed it and when, and whether the result still
matches the SHA-256 the sign-off recorded (engine.signoff).

An officer answering "which releases did we approve, on which evidence?" reads one table
instead of opening each project. Unsigned projects are listed as "not signed"; a file that does
not open is listed with the sentence saying why — never a crash, never a project silently left
out. CSV cells go through engine.data.csv_safety, so a name typed into a project cannot become
a spreadsheet formula.
"""

from __future__ import annotations

import csv
import io
import json
from pathlib import Path

from engine.atomic_write import write_text
from engine.data.csv_safety import neutralise
from engine.data.errors import InputError
from engine.project import PROJECT_SUFFIX, load_project
from engine.results.loaded import load_result
from engine.signoff import DECISION_LABELS, SignOff, check, result_sha256

#: The columns of the log, in order (CSV header; JSON keys).
COLUMNS = ("project", "audit", "release", "verdict", "decision", "conditions", "reviewer",
           "role", "date", "result_sha256", "hash_matches", "signed_at", "problem")
NOT_SIGNED = "not signed"


def _row(**values) -> dict:
    return {c: values.get(c, "") for c in COLUMNS}


def project_files(folder) -> list[Path]:
    """The project files in ``folder`` and the folders under it, sorted by path."""
    root = Path(folder)
    return sorted(p for p in root.rglob(f"*{PROJECT_SUFFIX}") if p.is_file() or p.is_symlink())


def collect(folder, progress=None, cancel=None) -> list[dict]:
    """One row per project file under ``folder`` (:data:`COLUMNS`). A folder that does not
    exist is an InputError; a project that does not open is a row whose ``problem`` says why.
    ``progress(fraction, message)`` and ``cancel`` (engine.runtime.CancelToken) as every long
    job takes them (ARCHITECTURE §3): a folder of many large projects takes a while to hash."""
    root = Path(folder)
    if not root.is_dir():
        what = "is a file, not a folder" if root.exists() else "folder not found"
        raise InputError(f"{folder}: {what}; give the folder that holds the project files "
                         f"(*{PROJECT_SUFFIX}).", source=str(folder))
    try:
        files = project_files(root)
    except OSError as exc:
        raise InputError(f"{folder}: could not be listed ({exc.strerror or exc}); choose a "
                         "folder you can read.", source=str(folder)) from None
    rows = []
    for i, path in enumerate(files):
        if cancel is not None:
            cancel.check()                # raises JobCancelled (engine.runtime)
        if progress is not None:
            progress(i / max(1, len(files)), f"Reading {path.name}")
        rows.append(project_row(path, root))
    if progress is not None:
        progress(1.0, f"{len(rows)} projects read")
    return rows


def project_row(path: Path, root: Path | None = None) -> dict:
    """The decision log's row of one project file (module doc)."""
    name = path.relative_to(root).as_posix() if root is not None else path.name
    try:
        project = load_project(path)
    except (InputError, OSError) as exc:
        return _row(project=name, decision="unreadable", problem=_one_line(exc))
    result = project.result
    loaded = load_result(result) if isinstance(result, dict) else None
    verdict = loaded.verdict.level if loaded is not None and loaded.verdict is not None else ""
    release = (loaded.name if loaded is not None and loaded.name else project.name)
    base = {"project": name, "audit": project.audit_type, "release": release,
            "verdict": verdict}
    if project.signoff is None:
        return _row(**base, decision=NOT_SIGNED,
                    result_sha256=_digest(result), hash_matches="",
                    problem="" if result is not None else "the project holds no result")
    s = SignOff.from_dict(project.signoff, str(path))       # load_project checked its form
    problem = check(s, result) or ""
    return _row(**base, decision=DECISION_LABELS[s.decision], conditions=s.conditions,
                reviewer=s.reviewer, role=s.role, date=s.date,
                result_sha256=s.result_sha256, hash_matches="no" if problem else "yes",
                signed_at=s.signed_at, problem=problem)


def _digest(result) -> str:
    try:
        return result_sha256(result) if isinstance(result, dict) else ""
    except (TypeError, ValueError, RecursionError):
        return ""


def _one_line(exc: Exception) -> str:
    text = exc.one_line() if isinstance(exc, InputError) else f"could not be read ({exc})"
    return " ".join(text.split())


def write_csv(rows: list[dict], path) -> Path:
    """The log as CSV (UTF-8, a header of :data:`COLUMNS`), written crash-safely."""
    buffer = io.StringIO()
    writer = csv.writer(buffer, lineterminator="\n")
    writer.writerow(COLUMNS)
    for row in rows:
        writer.writerow([neutralise(str(row.get(c, ""))) for c in COLUMNS])
    return write_text(path, buffer.getvalue())


def write_json(rows: list[dict], path) -> Path:
    """The log as JSON: a list of rows, each with the keys :data:`COLUMNS`."""
    data = [{c: row.get(c, "") for c in COLUMNS} for row in rows]
    return write_text(path, json.dumps(data, indent=1, ensure_ascii=False) + "\n")


def check_log_path(path) -> str:
    """The log's format by the file's ending ("csv" or "json"); another one is an InputError."""
    suffix = Path(path).suffix.lower()
    if suffix in (".csv", ".json"):
        return suffix[1:]
    raise InputError(f"{path}: a decision log is written as .csv or .json; name the file "
                     "with one of these endings.", source=str(path), key="out")


def write_log(rows: list[dict], path) -> Path:
    """CSV or JSON by the file's ending (:func:`check_log_path`)."""
    if check_log_path(path) == "csv":
        return write_csv(rows, path)
    return write_json(rows, path)
