"""The one exception type for bad user input, and what an unexpected error may say.

An :class:`InputError` message is a sentence a privacy officer can act on: it names the file,
the key, row or column, what is wrong, and what to do. The CLI prints it as one line and exits
with code 2; the GUI shows it in a dialog, never a traceback.

Error messages travel further than the data (logs, screenshots, support e-mails), so a record's
content stays out of them (issue 11, "Personal data stays where it belongs"): a loader shows a
cell of the user's file only through :func:`engine.data.text_input.cell_text` (quoted when its
characters are the fix — '1,5', 'n/a', a value of three characters — otherwise described, "a
17-character text of letters"), and names a duplicated id by its rows alone. An unexpected
error (a bug) carries whatever a library put in its message, often the offending value quoted
(``could not convert string to float: 'Jane Doe'``); :func:`internal_error_text` and
:func:`internal_traceback` are what the CLI and the GUI show of it, with every quoted value
replaced by '…'.
"""

from __future__ import annotations

import re
import traceback

# A quoted value in an exception message: '…' or "…" (as repr() and most libraries write it).
_QUOTED = re.compile(r"""'(?:[^'\\\n]|\\.)*'|"(?:[^"\\\n]|\\.)*\"""")


# A module's dotted name, as Python spells it (nothing else is shown unquoted).
_MODULE_NAME = re.compile(r"[A-Za-z_][A-Za-z0-9_]*(\.[A-Za-z_][A-Za-z0-9_]*)*")


class InputError(ValueError):
    """Bad input (config file, data file, parameter) described in plain language."""

    def __init__(self, message: str, *, source: str | None = None, key: str | None = None):
        super().__init__(message)
        self.source = source
        self.key = key

    def one_line(self) -> str:
        text = " ".join(str(self).split())
        return f"{self.source}: {text}" if self.source and not text.startswith(self.source) else text


def without_quoted_values(text: str) -> str:
    """``text`` with every quoted value replaced by '…' (a cell, an id, a key of a record)."""
    return _QUOTED.sub("'…'", text)


def missing_package_text(exc: BaseException) -> str | None:
    """The sentence for a package the audit needs that is not installed, else None.

    A missing package is an installation fault, not a bug, and its name is no one's data: the
    sentence names it and says how to put it back (seen on a machine whose Python lacked
    opacus: "internal error: No module named '…'" told nobody what to install)."""
    if not (isinstance(exc, ModuleNotFoundError) and exc.name
            and _MODULE_NAME.fullmatch(exc.name)):
        return None
    package = exc.name.split(".")[0]
    return (f"The Python package '{package}' that this audit needs is not installed. Install "
            "the app's requirements again (make install, or the installer you used), then run "
            "the audit again; your settings are unchanged.")


def internal_error_text(exc: BaseException) -> str:
    """One line for an unexpected error: its type and its message without quoted values."""
    message = without_quoted_values(" ".join(str(exc).split()))
    return f"{type(exc).__name__}: {message}" if message else type(exc).__name__


def internal_traceback(exc: BaseException) -> str:
    """The traceback of an unexpected error for a "Details" box or a bug report: where it
    happened (files, lines, code), each exception's message without quoted values."""
    out = []
    for part in traceback.TracebackException.from_exception(exc).format():
        lines = part.splitlines(keepends=True)
        # Code lines of a frame are indented; an exception's own line is not.
        out += [ln if ln.startswith(" ") or ln.startswith("Traceback")
                else without_quoted_values(ln) for ln in lines]
    return "".join(out)
