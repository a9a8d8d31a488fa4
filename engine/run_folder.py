"""The output folder of a headless run (``main.py run|demo --out DIR``): how it is written so that
a crash at any moment never leaves a torn file or the files of two runs side by side, how a
reader tells a finished run from an interrupted one (issue 18), and how the user's own files and
a second run into the same folder are kept out of it (issue 31).

A run's files (:data:`OUTPUT_NAMES`): ``result.json``, ``config.toml``, ``report.pdf`` (unless
``--no-report``) and ``recommended_model/`` (when a model audit exports one). Files with other
names in DIR are never touched.

**The user's files are never replaced (issue 31 item 8).** The app replaces or moves a file
named like an output only when it wrote that file itself, which it can tell: a finished run's
``result.json`` lists its files with their SHA-256, and a run being written lists each file in
the hidden journal ``DIR/.run-writing.json`` before the file appears under its name. A file
named like an output that no ``result.json`` (in DIR or in ``DIR/.previous-run/``) nor the
journal lists with a matching SHA-256 — a config the user wrote or edited, a hand-made
``report.pdf``, a ``result.json`` of another program — is the user's: the run **refuses**, with
a sentence naming the file and what to do (move or rename it, or choose another ``--out``),
before the audit starts (:func:`check_writable`) and again before the first file is written.
So ``main.py run config.toml --out .`` with the user's own ``config.toml`` there stops before
running, and the config is never lost. (Refusing was chosen over moving the file aside: a
renamed file breaks whatever refers to it, and nothing is done to the user's files behind
their back.)

**One run at a time (issue 31 item 7).** :func:`locked` holds an operating-system lock on the
hidden file ``DIR/.run-lock`` from before the audit starts until the write ends; a second run
into DIR meanwhile gets a sentence and exits before running anything. The lock is released by
the system when the process ends, however it ends (kill -9 included), so it is never stale.

The protocol (:func:`write_run`):

1. Nothing is written in DIR while the audit runs, so stopping it there changes nothing.
2. When the audit is done, DIR is cleared of earlier outputs before the first new one lands:
   hidden temporary files left by an interrupted write are removed; a finished earlier run (one
   with a ``result.json``) is moved, whole, into the hidden folder ``DIR/.previous-run/``
   (replacing an older one there); pieces of a run that never finished (no ``result.json``;
   the journal lists them) are deleted, except pieces of the run in ``.previous-run/`` (its
   ``result.json`` lists them with the same SHA-256), which a move stopped half-way left
   behind: they rejoin it.
3. ``config.toml``, ``recommended_model/`` and ``report.pdf`` are written, each under a hidden
   temporary name, hashed there and listed in the journal, and renamed into place when
   complete (engine.atomic_write; the model folder is filled under a hidden name and renamed as
   a whole). The SHA-256 recorded is that of the bytes this run wrote, never re-read from DIR.
4. ``result.json`` is written last, the same way, with an ``outputs`` list: the path, SHA-256
   and size of every other file of the run.
5. ``.previous-run/`` and the journal are removed.

A write stopped by an error (a full disk) or by Ctrl-C / SIGTERM (issue 31 item 9) is undone
before the error goes on: the new run's pieces are deleted and the earlier run is moved back
from ``.previous-run/`` (:func:`restore_earlier_run`); where that cannot be done, the sentence
says the earlier run is in ``.previous-run/`` (:func:`where_the_last_run_is`).

So "``result.json`` is present and every file it lists matches its SHA-256" means a finished
run (:func:`read_finished_run` checks it); files without a ``result.json`` are an unfinished run,
and until a new run into DIR finishes, the last finished run is in DIR or in
``DIR/.previous-run/``.
"""

from __future__ import annotations

import contextlib
import errno
import hashlib
import json
import os
import secrets
import shutil
import tempfile
import time
from collections.abc import Callable, Iterator
from pathlib import Path, PurePosixPath

if os.name == "nt":                   # the folder's run lock (locked): one module per system
    import msvcrt
else:
    import fcntl

from engine.atomic_write import TEMP_SUFFIX, fsync_folder, is_temp_name, write_bytes, write_text
from engine.data.errors import InputError
from engine.defences.audit import export_recommended
from engine.results.result import file_sha256

RESULT = "result.json"
CONFIG = "config.toml"
REPORT = "report.pdf"
MODEL = "recommended_model"
# result.json first: an earlier run is moved aside result.json first, so a move stopped
# half-way never leaves a result.json beside files it no longer describes.
OUTPUT_NAMES = (RESULT, CONFIG, REPORT, MODEL)
PREVIOUS = ".previous-run"
LOCK = ".run-lock"
JOURNAL = ".run-writing.json"
_PROBE = "write-check"
# Where the lock of a Windows process lies in the lock file: far beyond the text that says who
# holds it, because a locked byte range cannot be read by another process there.
_WINDOWS_LOCK_AT = 1 << 30


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
    # The journal's temporary name is "..run-writing.json.<random>.tmp" (engine.atomic_write).
    return any(is_temp_name(name, n)
               for n in (*OUTPUT_NAMES, PREVIOUS.lstrip("."), _PROBE, JOURNAL))


def _files_under(folder: Path, path: Path) -> dict[str, Path]:
    """Every file at or under ``path``, by its path relative to ``folder`` ('/'-separated)."""
    if path.is_file():
        return {path.relative_to(folder).as_posix(): path}
    return {p.relative_to(folder).as_posix(): p for p in sorted(path.rglob("*")) if p.is_file()}


def output_entries(folder: Path, names, *, under: str = "") -> list[dict]:
    """The ``outputs`` list of result.json: path (relative, '/'), SHA-256 and size of every
    file of ``names`` (files or folders) in ``folder``; ``under`` is put before each path (the
    files of a folder still filled under a temporary name)."""
    entries = []
    for name in names:
        for rel, path in _files_under(folder, folder / name).items():
            entries.append({"path": under + rel, "sha256": file_sha256(path),
                            "bytes": path.stat().st_size})
    return entries


def _listing(path: Path) -> dict[str, str] | None:
    """``{path: sha256}`` of the outputs a result.json (or the journal) lists; None when the
    file is not in the form this app writes (not JSON, or no ``outputs`` list) or unreadable."""
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
        outputs = data["outputs"]
        if not isinstance(outputs, list):
            return None
        return {str(e["path"]): str(e["sha256"]) for e in outputs}
    except (OSError, ValueError, TypeError, KeyError, AttributeError):
        return None


def _listed(folder: Path) -> dict[str, str]:
    """``{path: sha256}`` of the outputs a (moved-aside) result.json lists; {} if none."""
    return _listing(folder / RESULT) or {}


# --------------------------------------------------------------------------- sentences

def os_error_sentence(folder: Path, exc: OSError, *, writing: bool = False) -> str:
    """One sentence for an OS error met while making or writing the output folder ``folder``:
    which folder or file, what is wrong, and what to do (issue 31 item 9: never a bare OS
    error)."""
    folder = Path(folder)
    code = exc.errno
    if code in (errno.ENOSPC, getattr(errno, "EDQUOT", -1)):
        what = ("the disk filled up while the run's files were written" if writing
                else "the disk is full")
        return (f"{folder}: {what} ({exc.strerror}); free some space on that disk, or choose "
                "a folder on another disk with --out.")
    if code == errno.EROFS:
        return (f"{folder}: is on a read-only disk; choose a folder on a disk that can be "
                "written with --out.")
    if os.path.lexists(folder) and not folder.is_dir():
        return (f"{folder}: is a file, not a folder; choose a folder with --out (one that does "
                "not exist yet is created).")
    if code == errno.ENOTDIR or isinstance(exc, NotADirectoryError):
        blocker = next((p for p in folder.parents if os.path.lexists(p) and not p.is_dir()),
                       None)
        if blocker is not None:
            return (f"{folder}: cannot be made, since {blocker} is a file, not a folder; "
                    "choose another output folder with --out.")
    if code in (errno.EACCES, errno.EPERM):
        return (f"{folder}: you have no permission to write there; choose another output "
                "folder with --out.")
    name = exc.filename if exc.filename and Path(exc.filename) != folder else None
    inside = f" (writing {Path(name).name})" if name else ""
    return (f"{folder}: cannot be written to{inside}: {exc.strerror or exc}; choose another "
            "output folder with --out.")


def _user_file_sentence(folder: Path, path: Path) -> str:
    if path.name == RESULT and path.parent == folder:
        what = "is not a result this app wrote"
    elif path.parent == folder / PREVIOUS:
        return (f"{path}: is not a file this app wrote, in the folder where the app keeps the "
                "earlier run while it writes a new one (the folder is deleted when the run "
                "ends); move it out of there, or choose another output folder with --out.")
    else:
        what = (f"is not a file this app wrote (no {RESULT} in the folder lists it with this "
                "content)")
    return (f"{path}: {what}, and the run would replace it; move or rename it, or choose "
            "another output folder with --out.")


def _users_file(folder: Path) -> Path | None:
    """The first file (or link) named like an output in ``folder`` that this app did not write
    (module docstring, "The user's files"); None when every such file is the app's."""
    known: dict[str, set[str]] = {}
    result = folder / RESULT
    listings = [folder / JOURNAL, folder / PREVIOUS / RESULT]
    if os.path.lexists(result):
        if result.is_symlink() or not result.is_file() or _listing(result) is None:
            return result
        listings.append(result)
    for listing in listings:
        for rel, sha in (_listing(listing) or {}).items():
            known.setdefault(rel, set()).add(sha)
    for name in OUTPUT_NAMES[1:]:
        path = folder / name
        if not os.path.lexists(path):
            continue
        if path.is_symlink() or not (path.is_file() or path.is_dir()):
            return path                  # the app writes no links, pipes or devices
        for sub in [path, *path.rglob("*")] if path.is_dir() else [path]:
            if sub.is_symlink() or not (sub.is_file() or sub.is_dir()):
                return sub
        for rel, file in _files_under(folder, path).items():
            if file_sha256(file) not in known.get(rel, ()):
                return file
    return _foreign_in_previous(folder)


def _foreign_in_previous(folder: Path) -> Path | None:
    """The first entry of ``folder/.previous-run/`` that the app did not put there: it puts only
    its outputs (a half-done removal leaves a hidden temporary name), and it deletes the folder
    when a run ends — a user's notes.txt there went without a word (hostile pass, issue 31)."""
    previous = folder / PREVIOUS
    if previous.is_dir() and not previous.is_symlink():
        for entry in sorted(previous.iterdir()):
            if entry.name not in OUTPUT_NAMES and not is_temp_name(entry.name):
                return entry
    return None


# --------------------------------------------------------------------------- before the audit

def prepare_folder(folder: str | Path) -> Path:
    """Create ``folder`` if missing; one sentence (InputError) if it cannot be (a file there
    or above it, a read-only disk, no permission, a full disk)."""
    folder = Path(folder)
    try:
        folder.mkdir(parents=True, exist_ok=True)
    except OSError as exc:
        raise InputError(os_error_sentence(folder, exc), source=str(folder)) from None
    return folder


def _lock_fd(fd: int) -> None:
    """Take the lock of the open lock file ``fd`` without waiting; OSError when held."""
    if os.name == "nt":
        os.lseek(fd, _WINDOWS_LOCK_AT, os.SEEK_SET)
        msvcrt.locking(fd, msvcrt.LK_NBLCK, 1)
    else:
        fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)


def _holder(fd: int) -> str:
    """When the run holding the lock started, from the text it wrote in the lock file."""
    with contextlib.suppress(OSError, UnicodeDecodeError):
        os.lseek(fd, 0, os.SEEK_SET)
        text = os.read(fd, 200).decode("utf-8").strip()
        if text:
            return text
    return "a moment ago"           # it has locked the file but not yet written its start


@contextlib.contextmanager
def locked(folder: str | Path) -> Iterator[Path]:
    """Hold ``folder``'s run lock for the ``with`` block (module docstring, "One run at a
    time"): creates the folder if missing; a sentence (InputError) when another run holds it.

    The lock is ``flock`` (POSIX) or ``msvcrt.locking`` (Windows) on ``folder/.run-lock``: the
    system drops it when the process ends, so kill -9 never leaves a stale lock. The file is
    removed at the end; a run that opened it just before then finds, after locking, that the
    name no longer leads to the file it locked, and starts again on a new one. A folder made
    here that the run left empty (refused by its estimate, bad input, Cancel) is removed again:
    a run that wrote nothing leaves nothing."""
    made_here = not os.path.lexists(folder)
    folder = prepare_folder(folder)
    path = folder / LOCK
    while True:
        try:
            fd = os.open(path, os.O_RDWR | os.O_CREAT | getattr(os, "O_BINARY", 0), 0o600)
        except OSError as exc:
            raise InputError(os_error_sentence(folder, exc), source=str(folder)) from None
        try:
            _lock_fd(fd)
        except OSError:
            started = _holder(fd)
            os.close(fd)
            raise InputError(f"Another run is writing into {folder} (started {started}); "
                             "wait for it or choose another --out folder.") from None
        try:
            same = os.path.samestat(os.fstat(fd), os.stat(path))
        except OSError:
            same = False
        if same:
            break
        os.close(fd)
    try:
        with contextlib.suppress(OSError):
            os.lseek(fd, 0, os.SEEK_SET)
            os.ftruncate(fd, 0)
            os.write(fd, f"{time.strftime('%Y-%m-%d %H:%M:%S')}, process {os.getpid()}\n"
                     .encode())
        yield folder
    finally:
        # Removed while still held, so no run can lock this file after we let it go.
        with contextlib.suppress(OSError):
            os.unlink(path)
        os.close(fd)
        if made_here:
            with contextlib.suppress(OSError):      # not empty: the run's files are there
                os.rmdir(folder)


def check_writable(folder: str | Path) -> Path:
    """Create ``folder`` if missing and make sure a run can write there, move an earlier run
    aside and replace no file of the user's — before the audit starts, so a long run is not
    wasted. One sentence if not."""
    folder = prepare_folder(folder)
    try:
        fd, probe = tempfile.mkstemp(prefix=f".{_PROBE}.", suffix=TEMP_SUFFIX, dir=folder)
        os.close(fd)
        os.unlink(probe)
    except OSError as exc:
        raise InputError(os_error_sentence(folder, exc), source=str(folder)) from None
    for name in (MODEL, PREVIOUS):       # folders are moved or deleted, so need write access
        path = folder / name
        if path.is_dir() and not os.access(path, os.W_OK | os.X_OK):
            raise InputError(f"{path}: the earlier run's folder cannot be moved aside (no "
                             "permission to change it); remove it, or choose another output "
                             "folder with --out.", source=str(path))
    users = _users_file(folder)
    if users is not None:
        raise InputError(_user_file_sentence(folder, users), source=str(users))
    return folder


# --------------------------------------------------------------------------- writing

def clear_earlier_run(folder: Path) -> None:
    """Step 2 of the protocol (module docstring); refuses (InputError) when a file named like
    an output is the user's."""
    try:
        for entry in folder.iterdir():
            if _is_leftover(entry.name):
                _remove(entry)
        users = _users_file(folder)
        if users is not None:
            raise InputError(_user_file_sentence(folder, users), source=str(users))
        present = [n for n in OUTPUT_NAMES if os.path.lexists(folder / n)]
        previous = folder / PREVIOUS
        if RESULT in present:                       # a finished run: keep it aside, whole
            if os.path.lexists(previous):
                _remove(previous)
            previous.mkdir()
            for name in present:
                os.replace(folder / name, previous / name)
        elif present:                               # pieces of a run that never finished
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
        # Last: until the pieces it lists are gone, the journal is what says they are the app's.
        if os.path.lexists(folder / JOURNAL):
            (folder / JOURNAL).unlink()
    except OSError as exc:
        raise InputError(f"{folder}: the earlier run's files in this output folder cannot be "
                         f"moved aside ({exc.strerror}); remove them, or choose another output "
                         "folder with --out.", source=str(folder)) from None
    fsync_folder(folder)


@contextlib.contextmanager
def staged_folder(folder: Path, name: str,
                  before_publish: Callable[[Path], None] | None = None) -> Iterator[Path]:
    """A hidden folder to fill; renamed to ``folder/name`` when the block ends normally (a
    folder is published whole, like a file), removed when it raises. ``before_publish(staging)``
    is called just before the rename (the journal lists the files there)."""
    staging = Path(tempfile.mkdtemp(prefix=f".{name}.", suffix=TEMP_SUFFIX, dir=folder))
    try:
        yield staging
        if any(staging.iterdir()):
            if before_publish is not None:
                before_publish(staging)
            os.replace(staging, folder / name)
            fsync_folder(folder)
        else:
            staging.rmdir()
    except BaseException:
        shutil.rmtree(staging, ignore_errors=True)
        raise


def restore_earlier_run(folder: Path) -> None:
    """Undo a write stopped before its ``result.json`` landed (module docstring): delete the
    new run's pieces (those the journal lists; a file that appeared meanwhile is left alone)
    and move the earlier run back from ``.previous-run/``, ``result.json`` last. A
    ``result.json`` in DIR means the new run had finished: it stays, and only the clean-up is
    done. Best effort: an OS error leaves the earlier run in ``.previous-run/``, which
    :func:`where_the_last_run_is` then names."""
    previous = folder / PREVIOUS
    with contextlib.suppress(OSError):
        for entry in folder.iterdir():
            if _is_leftover(entry.name):
                _remove(entry)
        if os.path.lexists(folder / RESULT):         # the new run finished: finish its clean-up
            if os.path.lexists(previous) and _foreign_in_previous(folder) is None:
                _remove(previous)
        else:
            pending = _listing(folder / JOURNAL) or {}
            for name in OUTPUT_NAMES[1:]:
                path = folder / name
                if not os.path.lexists(path):
                    continue
                files = {rel: file_sha256(p) for rel, p in _files_under(folder, path).items()}
                if all(pending.get(rel) == sha for rel, sha in files.items()):
                    _remove(path)
            if previous.is_dir():
                names = [n for n in OUTPUT_NAMES if os.path.lexists(previous / n)]
                if not any(os.path.lexists(folder / n) for n in names):
                    for name in sorted(names, key=lambda n: n == RESULT):
                        os.replace(previous / name, folder / name)
                    previous.rmdir()
        if os.path.lexists(folder / JOURNAL):
            (folder / JOURNAL).unlink()
    fsync_folder(folder)


def where_the_last_run_is(folder: str | Path) -> str:
    """Where the last finished run is after a write was stopped, as a sentence's end."""
    folder = Path(folder)
    if (folder / PREVIOUS / RESULT).is_file():
        return (f"the earlier run is in {folder / PREVIOUS} (move its files back into {folder} "
                "to keep it)")
    if (folder / RESULT).is_file():
        return f"{folder} holds the last finished run"
    return f"{folder} holds no finished run"


def _entry(path: str, data: bytes) -> dict:
    return {"path": path, "sha256": hashlib.sha256(data).hexdigest(), "bytes": len(data)}


def write_run(folder: str | Path, result, *, config_toml: str, report: bool = True,
              include_records: bool = False, export_model: bool = False,
              hold: Callable[[], contextlib.AbstractContextManager] = contextlib.nullcontext,
              ) -> list[dict]:
    """Write a finished audit's files into ``folder`` by the protocol of the module docstring;
    returns result.json's ``outputs`` list. ``result``: the AuditResult; ``config_toml``: the
    config as TOML; ``export_model``: export the defences' recommended model, if one met the
    limit; ``hold``: a context manager that keeps Ctrl-C and SIGTERM waiting while the earlier
    run is moved aside or back (main.py), so those steps are never stopped half-way.

    A write stopped by an exception — a full disk, Ctrl-C, SIGTERM — is undone
    (:func:`restore_earlier_run`) before it goes on; an OS error becomes one sentence saying
    what to do and where the earlier run is."""
    folder = prepare_folder(folder)
    outputs: list[dict] = []

    def publish(entries: list[dict]) -> None:
        # Listed before the file appears under its name: a file of this run in DIR is always
        # one the journal (or, at the end, result.json) says is the app's.
        outputs.extend(entries)
        write_text(folder / JOURNAL, json.dumps({"outputs": outputs}))

    try:
        with hold():        # a signal here is raised after it, inside this try: undone
            clear_earlier_run(folder)
        data = config_toml.encode("utf-8")
        publish([_entry(CONFIG, data)])
        write_bytes(folder / CONFIG, data)
        if export_model:
            with staged_folder(folder, MODEL, before_publish=lambda staging: publish(
                    output_entries(staging, [p.name for p in sorted(staging.iterdir())],
                                   under=MODEL + "/"))) as staging:
                export_recommended(result, staging)
        if report:
            # reportlab (the report's library) is loaded only when a report is written, so a
            # run with --no-report and the app's start do not pay for it.
            from engine.report import write_report

            staging = Path(tempfile.mkdtemp(prefix=f".{REPORT}.", suffix=TEMP_SUFFIX,
                                            dir=folder))
            try:
                write_report(result.to_dict(), staging / REPORT, include_records=include_records)
                publish(output_entries(staging, [REPORT]))
                os.replace(staging / REPORT, folder / REPORT)
                fsync_folder(folder)
            finally:
                shutil.rmtree(staging, ignore_errors=True)
        result.write_json(folder / RESULT, outputs=outputs)
    except BaseException as exc:
        with hold():
            restore_earlier_run(folder)
        if isinstance(exc, OSError):
            raise InputError(f"{os_error_sentence(folder, exc, writing=True)} Nothing of the "
                             f"new run was kept: {where_the_last_run_is(folder)}.",
                             source=str(folder)) from None
        raise
    # The run has finished: a folder that cannot be removed now does not undo that, and the
    # next run into the folder removes it.
    with hold(), contextlib.suppress(OSError):
        if os.path.lexists(folder / PREVIOUS):
            _remove(folder / PREVIOUS)
        if os.path.lexists(folder / JOURNAL):
            (folder / JOURNAL).unlink()
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
