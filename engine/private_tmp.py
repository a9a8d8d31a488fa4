"""A private folder for every temporary file of a session (issue 11: "temp files live in a
private directory (0700) removed at exit, also after a crash on next start").

:func:`use_private_tmp` makes ``<system temp>/privacy-risk-auditor-<user>/session-<pid>``,
readable by the user alone, and points Python's :mod:`tempfile` (and, through ``TMPDIR``/
``TEMP``/``TMP``, any child process a library starts) at it, so nothing the app or its libraries
spill to disk while auditing personal records lands in a shared folder. It is removed at a
normal exit; a session that crashed leaves its folder behind, and the next start removes every
folder whose process is gone. Project saves do not use it: they write their temporary file
beside the project, which an atomic rename needs (engine.project).
"""

from __future__ import annotations

import atexit
import getpass
import os
import re
import shutil
import stat
import tempfile
from pathlib import Path

PREFIX = "session-"
_active: Path | None = None


def _user() -> str:
    try:
        name = getpass.getuser()
    except Exception:  # noqa: BLE001 - no login name (a service account): use the uid
        name = str(getattr(os, "getuid", lambda: "user")())
    return "".join(c if c.isalnum() or c in "-_" else "_" for c in name) or "user"


def process_alive(pid: int) -> bool:
    """Whether process ``pid`` still runs (a folder of a live session is never removed)."""
    if pid == os.getpid():
        return True
    if os.name == "nt":
        import ctypes

        handle = ctypes.windll.kernel32.OpenProcess(0x1000, False, pid)  # LIMITED_QUERY
        if not handle:
            return False
        ctypes.windll.kernel32.CloseHandle(handle)
        return True
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True
    return True


def _private_dir(path: Path) -> Path:
    path.mkdir(mode=0o700, exist_ok=True)
    if os.name != "nt":
        info = path.lstat()
        if stat.S_ISLNK(info.st_mode) or info.st_uid != os.getuid():
            raise PermissionError(f"{path} is not a folder owned by this user; remove it or "
                                  "set TMPDIR to a private folder.")
        os.chmod(path, 0o700)
    return path


# A session folder's name: PREFIX and the process id (group 1).
SESSION_NAME = re.compile(re.escape(PREFIX) + r"(\d+)")


def remove_stale(root: Path, name: re.Pattern = SESSION_NAME) -> list[Path]:
    """Remove the folders under ``root`` whose whole name matches ``name`` (group 1: the id of
    the process that made it) and whose process is gone; returns them. Only this user's
    folders, never a link: ``root`` may be a shared folder such as /tmp (the private Ray
    instance's folders, engine.compute)."""
    removed = []
    for folder in root.glob("*"):
        match = name.fullmatch(folder.name)
        if match is None:
            continue
        try:
            info = folder.lstat()
        except OSError:
            continue
        if not stat.S_ISDIR(info.st_mode) or (os.name != "nt" and info.st_uid != os.getuid()):
            continue
        if not process_alive(int(match.group(1))):
            shutil.rmtree(folder, ignore_errors=True)
            removed.append(folder)
    return removed


def use_private_tmp(base: str | Path | None = None) -> Path:
    """Create this session's private temp folder and make it the default (module docstring).
    Idempotent within a process."""
    global _active
    if _active is not None and _active.exists():
        return _active
    root = _private_dir(Path(base or tempfile.gettempdir()) / f"privacy-risk-auditor-{_user()}")
    remove_stale(root)
    session = _private_dir(root / f"{PREFIX}{os.getpid()}")
    tempfile.tempdir = str(session)
    for name in ("TMPDIR", "TEMP", "TMP"):
        os.environ[name] = str(session)
    atexit.register(shutil.rmtree, session, True)
    _active = session
    return session


def remove_private_tmp() -> None:
    """Remove this session's private temp folder now (a headless run stopped by SIGTERM, issue
    31 item 9: the folder must be gone when the process has gone; atexit does it too, but only
    after every other exit handler)."""
    if _active is not None:
        shutil.rmtree(_active, ignore_errors=True)
