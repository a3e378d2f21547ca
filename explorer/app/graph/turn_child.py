"""The turn graph's Qt-free part, built in a process of its own for a big conversation.

Why a process (measured on a bushy 100,000-message session, 2 cores): built on the graph's
worker thread, reading, grouping and projecting the turns held the GIL for ~3 s, and the
window's thread, which gives the GIL back at every Qt call it makes and queues behind the
worker each time, waited 50–90 ms in some frames of the open while its own work was
2–5 ms. Here the file is read (read-only; the one write is the kept graph, after it is sent:
:mod:`explorer.app.kept.turns`), the marks are read, the messages are grouped
into turns, the runs are folded, the nodes are laid out and their dots and edges are put
in cells: everything before Qt. The window receives all of it as a few byte strings
(:mod:`explorer.app.graph.turn_wire`) and only makes the polygons and the overview image
(:mod:`explorer.app.graph.turn_process` is its side).

    python -m explorer.app.graph.turn_child   (the window starts it; it speaks on stdin/stdout)
"""

from __future__ import annotations

import contextlib
import os
import sys
from array import array
from collections.abc import Collection, Sequence
from pathlib import Path
from typing import Any

from explorer.app.child_pipe import Pipe, PipeClosed, window_pipe
from explorer.app.error_log import formatted
from explorer.app.graph import view_children
from explorer.app.graph.turn_build import packed_parts
from explorer.app.kept.turns import keep_in_file
from explorer.store import Store, read_only
from explorer.store.path_memo import PathMemo
from explorer.store.readers import ReaderPool

NICE = 10
"""The child yields the cores to the window when it wants them (as the import's does)."""


class ReadOnlyStore(Store):
    """The store's reads on a read-only connection: no writer, no migration, no sizing
    (the window's store owns the file; this process only looks)."""

    def __init__(self, path: str | Path) -> None:  # no super(): it would open the writer
        self.db_path = Path(path)
        self._readers = ReaderPool(lambda: read_only.connect(self.db_path))
        self._paths = PathMemo()

    def close(self) -> None:
        self._readers.close_all(closing=True)

    def _keep_boundary(self, conv_id: int, tip: int, found: int | None, top: int) -> None:
        """This process only looks: the window's store keeps what it derives."""

    def keep_view(self, conv_id: int, kind: str, at: int, key: str, data: bytes) -> None:
        """Nor does it keep views."""


def serve(pipe: Pipe) -> None:
    """Answer the one request the window sends: ``("build", db, conversation, expanded,
    yield_cores, keep_at)`` (with ``keep_at``, keep what was sent in the file after),
    ``("keep", db, conversation, yield_cores, keep_at)`` (keep it, send only whether it
    was kept) or ``("prepare", db, conversations, yield_cores, paths)`` (``paths``: ids from
    a root to a tip, as the asker's store knew them). A spare child may be told
    ``("ready-turns",)`` first: it starts the turn graph's child it will prepare beside."""
    request = pipe.receive()
    if request[0] != "ready-turns":
        _answer(pipe, request)
        return
    view_children.start_spare()
    try:
        _answer(pipe, pipe.receive())
    finally:
        view_children.drop_spare()  # (a build asked of it instead needs none)


def _answer(pipe: Pipe, request: tuple[Any, ...]) -> None:
    if request[0] == "keep":
        _keep(pipe, *request[1:])
        return
    if request[0] == "prepare":
        _, db, conv_ids, yield_cores, paths = request
        _yield(yield_cores)
        try:
            done = prepare(db, conv_ids, paths)
        except Exception as e:  # said to the window, whose next open derives them instead
            pipe.send("failed", formatted(e))
            return
        pipe.send("prepared", done)
        return
    kind, db, conv_id, expanded, yield_cores, keep_at = request
    if kind != "build":
        raise PipeClosed(f"expected a build, got {kind!r}")
    packed = _built(pipe, db, conv_id, expanded, yield_cores)
    if packed is None:
        return
    for name, value in packed.items():
        pipe.send(name, value)
    if keep_at is not None:
        keep_in_file(db, conv_id, keep_at, packed)


def _keep(pipe: Pipe, db: str, conv_id: int, yield_cores: bool, keep_at: int) -> None:
    """Build the graph and keep it in the file, then say whether it was kept: the asker
    (an import's prepared views) wants it there, not sent."""
    packed = _built(pipe, db, conv_id, (), yield_cores)
    if packed is not None:
        pipe.send("kept", keep_in_file(db, conv_id, keep_at, packed))


def _built(pipe: Pipe, db: str, conv_id: int, expanded: Collection[int],
           yield_cores: bool) -> dict[str, Any] | None:
    """The graph's packed parts, read from the file; None when the build failed, which
    is said to the asker (it builds the graph itself instead)."""
    _yield(yield_cores)
    store = ReadOnlyStore(db)
    try:
        return packed_parts(store, conv_id, expanded)
    except Exception as e:  # said, traceback and all, to the asker's log; it builds instead
        pipe.send("failed", formatted(e))
        return None
    finally:
        store.close()


def prepare(db: str, conv_ids: list[int], paths: Sequence[array[int]] = ()) -> list[int]:
    """Keep the views of the big ones among ``conv_ids`` (after a window's import), as
    ``convo import`` does in its own process: the window's keeps its memory and its GIL.
    As there, the turn graph is built by a process of its own while this one costs the
    figure and the path: both yield to the window, and after an import the window waits
    on them (a 100,000-message session's views took 2 s one after the other)."""
    from explorer.app.kept.prepared import prepare_big

    with Store(db) as store:
        for ids in paths:
            store.keep_path(ids)
        return prepare_big(store, conv_ids, turns_beside=True)


def _yield(yield_cores: bool) -> None:
    if yield_cores:
        with contextlib.suppress(AttributeError, OSError):  # elsewhere: only a little slower
            os.nice(NICE)


def main() -> int:
    pipe = window_pipe()
    try:
        serve(pipe)
    except PipeClosed:  # the window went away or abandoned the build: nothing to say
        return 1
    finally:
        pipe.close()
    return 0


if __name__ == "__main__":
    code = main()
    sys.stderr.flush()
    os._exit(code)  # nothing to tidy: the interpreter's teardown would only add to the wait
