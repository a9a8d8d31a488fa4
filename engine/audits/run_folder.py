"""The output folder of a headless run (``main.py run|demo --out DIR``): how it is written so that
a crash at any moment never leaves a torn file or the files of two runs side by side, and how a
reader tells a finished run from an interrupted one (issue 18).

A run's files (:data:`OUTPUT_NAMES`): ``result.json``, ``config.toml``, ``report.pdf`` (unless
``--no-report``) and ``recommended_model/`` (when a model audit exports one). Other files in DIR
are never touched.

The protocol (:func:`write_run`):

1. Nothing is written in DIR while the audit runs, so stopping it there changes nothing.
2. When the audit is done, DIR is cleared of earlier outputs before the first new one lands:
   hidden temporary files left by an interrupted write are removed; a finished earlier run (one
   with a ``result.json``) is moved, whole, into the hidden folder ``DIR/.previous-run/``
   (replacing an older one there); pieces of a run that never finished (no ``result.json``) are
   deleted, except pieces of the run in ``.previous-run/`` (its ``result.json`` lists them with
   the same SHA-256), which a move stopped half-way left behind: they rejoin it.
3. ``config.toml``, ``recommended_model/`` and ``report.pdf`` are written, each under a hidden
   temporary name and renamed into place when complete (engine.atomic_write; the model folder
   is filled under a hidden name and renamed as a whole).
4. ``result.json`` is written last, the same way, with an ``outputs`` list: the path, SHA-256
   and size of every other file of the run.
5. ``.previous-run/`` is removed.

So "``result.json`` is present and every file it lists matches its SHA-256" means a finished
run (:func:`read_finished_run` checks it); files without a ``result.json`` are an unfinished run,
and until a new run into DIR finishes, the last finished run is in DIR or in
``DIR/.previous-run/``. One run at a time may write into a folder.
"""

from __future__ import annotations

import contextlib
import json
import os
import secrets
import shutil
import tempfile
from collections.abc import Iterator
from pathlib import Path, PurePosixPath

from engine.atomic_write import TEMP_SUFFIX, fsync_folder, is_temp_name, write_text
from engine.audits.result import file_sha256
from engine.data.errors import InputError
from engine.defences.audit import export_recommended

RESULT = "result.json"
CONFIG = "config.toml"
REPORT = "report.pdf"
MODEL = "recommended_model"
# result.json first: an earlier run is moved aside result.json first, so a move stopped
# half-way never leaves a result.json beside files it no longer describes.
OUTPUT_NAMES = (RESULT, CONFIG, REPORT, MODEL)
PREVIOUS = ".previous-run"
_PROBE = "write-check"


def _remove(path: Path) -> None:
    """Delete a file or a folder; a folder is first renamed to a hidden temporary name, so a
    deletion stopped half-way leaves only a name that the next run clears."""
    if path.is_dir() and not path.is_symlink():
        doomed = path.with_name(f".{path.name.lstrip('.')}.{secrets.token_hex(4)}{TEMP_SUFFIX}")
        os.replace(path, doomed)
        shutil.rmtree(doomed)
    else:
        path.unlink()


def _is_leftover(name: str) -> bool:
    return any(is_temp_name(name, n) for n in (*OUTPUT_NAMES, PREVIOUS.lstrip("."), _PROBE))


def _files_under(folder: Path, path: Path) -> dict[str, Path]:
    """Every file at or under ``path``, by its path relative to ``folder`` ('/'-separated)."""
    if path.is_file():
        return {path.relative_to(folder).as_posix(): path}
    return {p.relative_to(folder).as_posix(): p for p in sorted(path.rglob("*")) if p.is_file()}


def output_entries(folder: Path, names) -> list[dict]:
    """The ``outputs`` list of result.json: path (relative, '/'), SHA-256 and size of every
    file of ``names`` (files or folders) in ``folder``."""
    entries = []
    for name in names:
        for rel, path in _files_under(folder, folder / name).items():
            entries.append({"path": rel, "sha256": file_sha256(path),
                            "bytes": path.stat().st_size})
    return entries


def _listed(folder: Path) -> dict[str, str]:
    """``{path: sha256}`` of the outputs a (moved-aside) result.json lists; {} if none."""
    try:
        data = json.loads((folder / RESULT).read_text(encoding="utf-8"))
        return {str(e["path"]): str(e["sha256"]) for e in data.get("outputs") or []}
    except (OSError, ValueError, TypeError, KeyError, AttributeError):
        return {}


def check_writable(folder: str | Path) -> Path:
    """Create ``folder`` if missing and make sure a run can write there and move an earlier
    run aside — before the audit starts, so a long run is not wasted. One sentence if not."""
    folder = Path(folder)
    folder.mkdir(parents=True, exist_ok=True)
    try:
        fd, probe = tempfile.mkstemp(prefix=f".{_PROBE}.", suffix=TEMP_SUFFIX, dir=folder)
        os.close(fd)
        os.unlink(probe)
    except OSError as exc:
        raise InputError(f"{folder}: this output folder cannot be written to "
                         f"({exc.strerror}); choose another folder with --out.",
                         source=str(folder)) from None
    for name in (MODEL, PREVIOUS):       # folders are moved or deleted, so need write access
        path = folder / name
        if path.is_dir() and not os.access(path, os.W_OK | os.X_OK):
            raise InputError(f"{path}: the earlier run's folder cannot be moved aside (no "
                             "permission to change it); remove it, or choose another output "
                             "folder with --out.", source=str(path))
    return folder


def clear_earlier_run(folder: Path) -> None:
    """Step 2 of the protocol (module docstring)."""
    try:
        for entry in folder.iterdir():
            if _is_leftover(entry.name):
                _remove(entry)
        present = [n for n in OUTPUT_NAMES if os.path.lexists(folder / n)]
        if not present:
            return
        previous = folder / PREVIOUS
        if RESULT in present:                       # a finished run: keep it aside, whole
            if os.path.lexists(previous):
                _remove(previous)
            previous.mkdir()
            for name in present:
                os.replace(folder / name, previous / name)
        else:                                       # pieces of a run that never finished
            listed = _listed(previous)
            for name in present:
                files = _files_under(folder, folder / name)
                own = {rel: sha for rel, sha in listed.items()
                       if rel == name or rel.startswith(name + "/")}
                if (own and not os.path.lexists(previous / name)
                        and own == {rel: file_sha256(p) for rel, p in files.items()}):
                    os.replace(folder / name, previous / name)
                else:
                    _remove(folder / name)
    except OSError as exc:
        raise InputError(f"{folder}: the earlier run's files in this output folder cannot be "
                         f"moved aside ({exc.strerror}); remove them, or choose another output "
                         "folder with --out.", source=str(folder)) from None
    fsync_folder(folder)


@contextlib.contextmanager
def staged_folder(folder: Path, name: str) -> Iterator[Path]:
    """A hidden folder to fill; renamed to ``folder/name`` when the block ends normally (a
    folder is published whole, like a file), removed when it raises."""
    staging = Path(tempfile.mkdtemp(prefix=f".{name}.", suffix=TEMP_SUFFIX, dir=folder))
    try:
        yield staging
        if any(staging.iterdir()):
            os.replace(staging, folder / name)
            fsync_folder(folder)
        else:
            staging.rmdir()
    except BaseException:
        shutil.rmtree(staging, ignore_errors=True)
        raise


def write_run(folder: str | Path, result, *, config_toml: str, report: bool = True,
              include_records: bool = False, export_model: bool = False) -> list[dict]:
    """Write a finished audit's files into ``folder`` by the protocol of the module docstring;
    returns result.json's ``outputs`` list. ``result``: the AuditResult; ``config_toml``: the
    config as TOML; ``export_model``: export the defences' recommended model, if one met the
    limit."""
    folder = Path(folder)
    folder.mkdir(parents=True, exist_ok=True)
    clear_earlier_run(folder)
    names = [CONFIG]
    write_text(folder / CONFIG, config_toml)
    if export_model:
        with staged_folder(folder, MODEL) as staging:
            export_recommended(result, staging)
        if (folder / MODEL).exists():
            names.append(MODEL)
    if report:
        # reportlab (the report's library) is loaded only when a report is written, so a run
        # with --no-report and the app's start do not pay for it.
        from engine.report import write_report

        write_report(result.to_dict(), folder / REPORT, include_records=include_records)
        names.append(REPORT)
    outputs = output_entries(folder, names)
    result.write_json(folder / RESULT, outputs=outputs)
    # The run has finished: a folder that cannot be removed now does not undo that, and the
    # next run into the folder removes it.
    with contextlib.suppress(OSError):
        if os.path.lexists(folder / PREVIOUS):
            _remove(folder / PREVIOUS)
            fsync_folder(folder)
    return outputs


def read_finished_run(folder: str | Path) -> dict:
    """The result.json dict of the finished run in ``folder``: result.json is complete JSON,
    every file its ``outputs`` lists is there with its SHA-256, and no other file of a run lies
    beside it. Otherwise one sentence (InputError) saying what is wrong."""
    folder = Path(folder)
    path = folder / RESULT
    if not path.is_file():
        raise InputError(f"{folder}: holds no finished run (no {RESULT}); run the audit "
                         "again.", source=str(folder))
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except (UnicodeDecodeError, ValueError):
        raise InputError(f"{path}: is damaged (not complete JSON); run the audit again.",
                         source=str(path)) from None
    outputs = data.get("outputs") if isinstance(data, dict) else None
    if not isinstance(outputs, list):
        raise InputError(f"{path}: does not list the run's files (an older version of the app "
                         "wrote it), so whether the run finished cannot be checked; run the "
                         "audit again.", source=str(path))
    listed = set()
    for entry in outputs:
        rel = PurePosixPath(str(entry.get("path", ""))) if isinstance(entry, dict) else None
        if rel is None or rel.is_absolute() or ".." in rel.parts or not rel.parts:
            raise InputError(f"{path}: lists a file outside its folder; run the audit "
                             "again.", source=str(path), key="outputs")
        file = folder.joinpath(*rel.parts)
        if not file.is_file() or file_sha256(file) != entry.get("sha256"):
            raise InputError(f"{file}: is missing or is not the file this run wrote (its "
                             "SHA-256 differs from result.json's); run the audit again.",
                             source=str(file))
        listed.add(rel.as_posix())
    for name in OUTPUT_NAMES[1:]:
        for rel in _files_under(folder, folder / name) if os.path.lexists(folder / name) else {}:
            if rel not in listed:
                raise InputError(f"{folder / rel}: is not from the run that {RESULT} "
                                 "describes; run the audit again.", source=str(folder / rel))
    return data
