"""A reading process of a big sync (or of a huge session's import): reads and makes rows.

A first sync of thousands of sessions spent most of its time in Python: parsing lines,
shaping trees, scanning for secrets, sizing and formatting rows. Those run here, one process
per core, while the process that started this one only adds ids and inserts (SQLite keeps
one writer). Each request names a unit and its signature; the answer is the unit's
:class:`~explorer.app.importing.whole_read.WholeRead` with its rows made, or the reason it
could not be read. A huge session's import sends its content source once (its files) and then
asks for chunks of its messages to be filled, each with where its lines are
(:mod:`explorer.app.importing.fill_ahead`). When the
parent goes away the pipe closes and this process ends with it:
a sync killed at any moment leaves no reader behind.

    python -m explorer.app.importing.read_worker   (a sync starts it; it speaks on stdin/stdout)
"""

from __future__ import annotations

import contextlib
import os
import pickle
import sys
from typing import Any

from explorer.app.child_pipe import PipeClosed, window_pipe
from explorer.app.importing.fill_ahead import unbare
from explorer.app.importing.made_rows import made_rows
from explorer.app.importing.units import Unit
from explorer.app.importing.whole_read import Signature, read_whole, with_rows
from explorer.tree.imported import ContentUnavailable
from explorer.tree.model import Message

NICE = 5
"""The writer, which every read waits for in the end, gets the cores first."""


def main() -> int:
    with contextlib.suppress(AttributeError, OSError):
        os.nice(NICE)
    pipe = window_pipe()
    content: Any = None
    try:
        while True:
            message = pipe.receive()
            kind = message[0]
            if kind == "read":
                pipe.send("read", message[1], _read(message[2], message[3]))
            elif kind == "content":  # a huge session's content, filled chunk by chunk
                content = message[1]
            elif kind == "fill" and content is not None:
                light = [unbare(fields) for fields in message[2]]
                keys = [m.id for m in light]
                content.located(keys, message[3])  # where this chunk's lines are
                try:
                    pipe.send("filled", message[1], _filled(content, light))
                finally:
                    content.forget(keys)
            else:
                return 1
    except PipeClosed:  # the sync ended (or was ended): nothing is left to do
        return 0
    finally:
        pipe.close()


def _read(unit: Unit, sig: Signature) -> object:
    try:
        return with_rows(read_whole(unit, sig))
    except OSError as exc:
        return OSError(exc.errno, exc.strerror or str(exc))
    except Exception as exc:  # a reader's bug: the parent reads this unit itself
        return RuntimeError(f"{type(exc).__name__}: {exc}")


def _filled(content: Any, messages: list[Message]) -> object:
    """Each message's rows, made from its full content (``fill_ahead``), pickled on their
    own, and the surrogates repaired; a file that changed since it was read first answers
    why (nothing is stored). Pickled apart, the rows cross a window's import child as the
    bytes they are, unpickled only by the writer that stores them."""
    before = content.repaired
    try:
        content.fill(messages)
    except ContentUnavailable as exc:
        return exc
    try:
        made = pickle.dumps(made_rows(messages), pickle.HIGHEST_PROTOCOL)
    finally:
        content.release(messages)
    return made, content.repaired - before


if __name__ == "__main__":
    code = main()
    sys.stdout.flush()
    os._exit(code)
