"""The one exception type for bad user input.

Its message is a sentence a privacy officer can act on: it names the file, the key, row or
column, what is wrong, and what to do. The CLI prints it as one line and exits with code 2;
the GUI shows it in a dialog, never a traceback.
"""

from __future__ import annotations


class InputError(ValueError):
    """Bad input (config file, data file, parameter) described in plain language."""

    def __init__(self, message: str, *, source: str | None = None, key: str | None = None):
        super().__init__(message)
        self.source = source
        self.key = key

    def one_line(self) -> str:
        text = " ".join(str(self).split())
        return f"{self.source}: {text}" if self.source and not text.startswith(self.source) else text
