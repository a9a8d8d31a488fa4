"""Crash-safe writing of one file (issue 18: "write every output to a temporary name in the same
folder and rename").

Every file the app writes for the user — a project, result.json, config.toml, a PDF report, an
exported model — is first written in full under a hidden temporary name in the folder it will
live in (``.NAME.<random>.tmp``), flushed to disk (fsync), and then renamed over ``NAME`` in one
step (:func:`os.replace`, atomic within a folder on every system the app supports); the folder is
fsync'ed afterwards so the rename survives a power cut. A process killed at any moment therefore
leaves either the old ``NAME`` or the new one, never a torn or empty file; at worst a hidden
``.NAME.<random>.tmp`` is left behind, which no reader opens and :func:`is_temp_name` recognises
for clean-up. The temporary file lies in the same folder because a rename across folders (or
file systems) is not atomic.

The file is created readable by its owner alone (as :func:`tempfile.mkstemp` makes it): these
files describe personal records.
"""

from __future__ import annotations

import contextlib
import os
import shutil
import tempfile
from collections.abc import Iterator
from pathlib import Path

TEMP_SUFFIX = ".tmp"


def is_temp_name(name: str, target: str | None = None) -> bool:
    """Whether ``name`` is a temporary name this module makes (for ``target`` when given)."""
    if not (name.startswith(".") and name.endswith(TEMP_SUFFIX)):
        return False
    return target is None or name.startswith(f".{target}.")


def fsync_folder(folder: str | Path) -> None:
    """Make a rename in ``folder`` durable (POSIX; Windows has no folder handles to fsync)."""
    if os.name != "posix":
        return
    with contextlib.suppress(OSError):
        fd = os.open(folder or ".", os.O_RDONLY)
        try:
            os.fsync(fd)
        finally:
            os.close(fd)


def _fsync_file(path: Path) -> None:
    with open(path, "rb+") as fh:           # Windows needs write access to flush a file
        os.fsync(fh.fileno())


@contextlib.contextmanager
def atomic_path(path: str | Path) -> Iterator[Path]:
    """A temporary path beside ``path`` for code that writes to a path (reportlab, safetensors,
    pandas): when the ``with`` block ends normally the file there is fsync'ed and renamed over
    ``path``; when it raises, the temporary file is removed and ``path`` is untouched.

        with atomic_path(out / "report.pdf") as tmp:
            build_pdf(tmp)
    """
    target = Path(path)
    folder = target.parent
    fd, name = tempfile.mkstemp(prefix=f".{target.name}.", suffix=TEMP_SUFFIX,
                                dir=folder if str(folder) else ".")
    os.close(fd)
    tmp = Path(name)
    try:
        yield tmp
        _fsync_file(tmp)
        os.replace(tmp, target)
    except BaseException:
        with contextlib.suppress(OSError):
            tmp.unlink()
        raise
    fsync_folder(folder)


def write_bytes(path: str | Path, data: bytes) -> Path:
    """Replace ``path`` with ``data`` crash-safely (module docstring)."""
    with atomic_path(path) as tmp, open(tmp, "wb") as fh:
        fh.write(data)
    return Path(path)


def write_text(path: str | Path, text: str, encoding: str = "utf-8") -> Path:
    """Replace ``path`` with ``text`` crash-safely. Line ends are written as given (no "\\r\\n"
    on Windows), so a file's hash is the same on every system."""
    return write_bytes(path, text.encode(encoding))


def copy_file(source: str | Path, path: str | Path) -> Path:
    """Replace ``path`` with a copy of ``source`` crash-safely."""
    with atomic_path(path) as tmp, open(source, "rb") as src, open(tmp, "wb") as out:
        shutil.copyfileobj(src, out)
    return Path(path)
