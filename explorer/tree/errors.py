"""The program's own errors: one base class, so each boundary catches one thing.

The command line, the window and the workers catch :class:`ExplorerError` (with ``OSError``
for files) and show :func:`error_line`: the first line of the message a person can act on.
Anything else that escapes is a bug and keeps its traceback.
"""

from __future__ import annotations


class ExplorerError(Exception):
    """An error the program expects and explains: its message says what went wrong."""

    def __str__(self) -> str:
        if len(self.args) == 1:
            return str(self.args[0])  # never the quoted tuple or repr a LookupError shows
        return super().__str__()


def error_line(error: BaseException) -> str:
    """The first line of an error's message (its type's name when it says nothing)."""
    text = str(error).strip()
    return text.splitlines()[0] if text else type(error).__name__
