"""A reading process of a big sync: reads whole sessions and makes their rows.

A first sync of thousands of sessions spent most of its time in Python: parsing lines,
shaping trees, scanning for secrets, sizing and formatting rows. Those run here, one process
per core, while the process that started this one only adds ids and inserts (SQLite keeps
one writer). Each request names a unit and its signature; the answer is the unit's
:class:`~explorer.app.importing.whole_read.WholeRead` with its rows made, or the reason it
could not be read. When the parent goes away the pipe closes and this process ends with it:
a sync killed at any moment leaves no reader behind.

    python -m explorer.app.importing.read_worker   (a sync starts it; it speaks on stdin/stdout)
"""

from __future__ import annotations

import contextlib
import os
import sys

from explorer.app.child_pipe import PipeClosed, window_pipe
from explorer.app.importing.whole_read import read_whole, with_rows

NICE = 5
"""The writer, which every read waits for in the end, gets the cores first."""


def main() -> int:
    with contextlib.suppress(AttributeError, OSError):
        os.nice(NICE)
    pipe = window_pipe()
    try:
        while True:
            kind, ticket, unit, sig = pipe.receive()
            if kind != "read":
                return 1
            try:
                answer: object = with_rows(read_whole(unit, sig))
            except OSError as exc:
                answer = OSError(exc.errno, exc.strerror or str(exc))
            except Exception as exc:  # a reader's bug: the parent reads this unit itself
                answer = RuntimeError(f"{type(exc).__name__}: {exc}")
            pipe.send("read", ticket, answer)
    except PipeClosed:  # the sync ended (or was ended): nothing is left to do
        return 0
    finally:
        pipe.close()


if __name__ == "__main__":
    code = main()
    sys.stdout.flush()
    os._exit(code)
