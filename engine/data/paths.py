"""The paths a user names: one rule for where a typed path points, and one check that it is a
file that can be read to its end before anything opens it (issue 18, defects 1, 2 and 5;
issue 19, item 6).

Where a path points (:func:`resolve_path`) — the rule every loader, the command line and every
GUI field use:

* ``~`` at the start is the user's home folder (``~/records.csv``);
* a relative path is read from the working directory when something is there under that name;
  otherwise, when the app's own folder has it, from there (the bundled samples, such as
  ``resources/configs/mechanism_demo.toml``, open from any working directory).

What may be opened (:func:`require_regular_file`, :func:`open_regular_file`,
:func:`require_folder`): only a regular file (or a folder, where a folder is asked). A named
pipe (FIFO) blocks ``open()`` until another program writes to it, and a device such as
``/dev/zero`` or ``/dev/urandom`` never ends — either would hang a loader, or grow its memory
without bound, before any check of the content could run. So the type is checked with
``stat`` *before* the file is opened, the file is opened without blocking, and the opened file
is checked again (something else may have been put under the name in between). A link that
points back to itself, a link to nothing, a file the user may not read: each gets its own
sentence naming the path and what to do, never "file not found" for all of them.
"""

from __future__ import annotations

import errno
import os
import stat
from pathlib import Path
from typing import BinaryIO

from engine.data.errors import InputError

APP_FOLDER = Path(__file__).resolve().parents[2]

# Flags for opening a user's file: never wait for a writer (a FIFO), never make a terminal the
# process's controlling terminal, never leak the descriptor into a child process.
_OPEN_FLAGS = (os.O_RDONLY | getattr(os, "O_NONBLOCK", 0) | getattr(os, "O_NOCTTY", 0)
               | getattr(os, "O_CLOEXEC", 0) | getattr(os, "O_BINARY", 0))


def resolve_path(path) -> Path:
    """The file a typed ``path`` names (module docstring): ``~`` expanded; a relative path as
    written when something is there (even a broken link: the check then says what is wrong
    with it), else in the app's folder when it is there, else as written."""
    p = Path(os.path.expanduser(str(path)))
    if p.is_absolute() or os.path.lexists(p):
        return p
    bundled = APP_FOLDER / p
    return bundled if os.path.lexists(bundled) else p


def require_regular_file(path, kind: str = "file", *, missing: str | None = None
                         ) -> os.stat_result:
    """The ``stat`` of ``path`` when it is a regular file (following links), else one
    :class:`InputError` sentence naming the path and what to do.

    ``kind`` names what was asked for ("CSV file", "config file"); ``missing`` replaces the
    end of the sentence for a path where nothing is ("file not found; check the path.").
    """
    p = str(path)
    try:
        st = os.stat(p)
    except OSError as exc:
        raise InputError(_unreachable(p, exc, kind, missing), source=p) from None
    _check_type(p, st.st_mode, kind, folder_wanted=False)
    return st


def require_folder(path, kind: str = "folder") -> os.stat_result:
    """The ``stat`` of ``path`` when it is a folder (following links), else one sentence."""
    p = str(path)
    try:
        st = os.stat(p)
    except OSError as exc:
        raise InputError(_unreachable(p, exc, kind, f"{kind} not found; check the path."),
                         source=p) from None
    _check_type(p, st.st_mode, kind, folder_wanted=True)
    return st


def open_regular_file(path, kind: str = "file", *, missing: str | None = None
                      ) -> tuple[BinaryIO, int]:
    """``(binary file, size in bytes)`` of a regular file, opened for reading, or one
    :class:`InputError` sentence. The caller must never read more than ``size`` bytes (+1 to
    notice a file that grows while it is read): the size is the opened file's own, so what is
    read is bounded even when the name was swapped for a stream after the check."""
    p = str(path)
    require_regular_file(p, kind, missing=missing)
    try:
        fd = os.open(p, _OPEN_FLAGS)
    except OSError as exc:
        raise InputError(_unreachable(p, exc, kind, missing), source=p) from None
    try:
        st = os.fstat(fd)
        _check_type(p, st.st_mode, kind, folder_wanted=False)
        if hasattr(os, "set_blocking"):
            os.set_blocking(fd, True)          # a regular file: reads are ordinary again
        fh = os.fdopen(fd, "rb")
    except BaseException:
        os.close(fd)
        raise
    return fh, st.st_size


def read_bytes(path, kind: str = "file", *, missing: str | None = None) -> bytes:
    """The whole content of a regular file, never more than its size (:func:`open_regular_file`);
    a file that grows while it is read gets a sentence, not an endless read."""
    fh, size = open_regular_file(path, kind, missing=missing)
    p = str(path)
    with fh:
        try:
            data = fh.read(size + 1)
        except OSError as exc:
            raise InputError(_unreachable(p, exc, kind, missing), source=p) from None
    if len(data) > size:
        raise grew(p)
    return data


def grew(p: str) -> InputError:
    """The sentence for a file that has more in it than its size said when it was opened."""
    return InputError(f"{p}: grew while it was being read (another program is still writing "
                      f"it, or it is not a file saved on disk); wait until it is complete, or "
                      f"choose a saved copy.", source=p)


def _check_type(p: str, mode: int, kind: str, *, folder_wanted: bool) -> None:
    if folder_wanted:
        if stat.S_ISDIR(mode):
            return
        if stat.S_ISREG(mode):
            raise InputError(f"{p}: is a file, not a {kind}; choose the folder it is in.",
                             source=p)
    else:
        if stat.S_ISREG(mode):
            return
        if stat.S_ISDIR(mode):
            raise InputError(f"{p}: is a folder, not a {kind}; choose the file inside it.",
                             source=p)
    want = f"the {kind} itself" if not folder_wanted else f"a {kind}"
    if stat.S_ISFIFO(mode):
        what = ("a named pipe (a FIFO, which waits for another program to write into it), "
                "not a file saved on disk")
    elif stat.S_ISSOCK(mode):
        what = "a socket (a connection between programs), not a file saved on disk"
    elif stat.S_ISCHR(mode) or stat.S_ISBLK(mode):
        what = "a device, not a file saved on disk"
    else:
        what = "not a regular file saved on disk"
    raise InputError(f"{p}: is {what}; choose {want}.", source=p)


def _unreachable(p: str, exc: OSError, kind: str, missing: str | None) -> str:
    """The sentence for a path ``stat`` or ``open`` refused, by the reason it gave."""
    code = exc.errno
    if code == errno.ENOENT:
        if os.path.islink(p):
            try:
                target = os.readlink(p)
            except OSError:
                target = "a file"
            return (f"{p}: is a link to {target}, which does not exist (a broken link); "
                    f"choose the {kind} itself, or make the link again.")
        return f"{p}: {missing or 'file not found; check the path.'}"
    if code == errno.ELOOP:
        if os.path.islink(p):
            return (f"{p}: is a link that points back to itself (a loop), so there is no file "
                    f"to read; choose the {kind} itself, or make the link again.")
        return (f"{p}: its path goes through a link that points back to itself (a loop); "
                f"choose the file by another path, or make the link again.")
    if code == errno.ENOTDIR:
        return f"{p}: part of the path is a file, not a folder; check the path."
    if code == errno.ENAMETOOLONG:
        return f"{p}: the path is too long for this system; move the file to a shorter path."
    if code in (errno.EACCES, errno.EPERM):
        return (f"{p}: cannot be read — you do not have permission to open it; ask its owner "
                f"for access, or copy it to a folder of yours.")
    if code in (errno.EAGAIN, errno.EWOULDBLOCK, errno.ENXIO):
        return (f"{p}: is not a file saved on disk (it cannot be opened without waiting for "
                f"another program); choose the {kind} itself.")
    return f"{p}: cannot be read ({exc.strerror or exc}); check the file and try again."
