"""The window's side of the turn graph's child process (:mod:`explorer.app.graph.turn_child`).

The graph's worker thread starts the child, sends it the request and waits, looking at its
cancel flag every ``POLL_S``: a newer request or a closing window ends the child at once
(the one write it may make, the kept graph, is one transaction after it has sent
everything). The turn view, its model and its cells come back as byte strings made into
columns in a few C copies (:mod:`explorer.app.graph.turn_wire`), so the thread holds the GIL
for milliseconds where building them itself held it for seconds.

A small conversation is built on the thread: below ``CHILD_MIN_MESSAGES`` its whole build
is shorter than a process start. When no process can start, or the child fails, the
caller builds on its thread as before (:func:`build_in_child` answers ``None``).
"""

from __future__ import annotations

import logging
import threading
from array import array
from collections.abc import Callable, Collection
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from explorer.app.child_pipe import Pipe, PipeClosed
from explorer.app.graph.cells import Collected
from explorer.app.graph.model import GraphModel
from explorer.app.graph.turn_text import TurnView
from explorer.app.graph.turn_wire import unpack_cells, unpack_model, unpack_view
from explorer.app.graph.view_children import Running, end, started, take_spare

CHILD_MIN_MESSAGES = 5000
"""From this many messages on, the turn view is built in a child process."""
POLL_S = 0.02
"""How often the wait for the child looks at the cancel flag."""
YIELD_CORES = True
"""Whether the builder runs below the window's priority (turn_child.NICE), so a person's
frames win the cores; a screenshot, which only waits for the views, sets it False."""
PARTS = ("tree", "projection", "rest", "model", "cells")

log = logging.getLogger(__name__)


@dataclass(frozen=True, eq=False)
class Built:
    """What the child built: the turn view, its model and its dots and edges by cell."""

    view: TurnView
    model: GraphModel
    collected: Collected


class _Abandoned(Exception):
    """The request was cancelled while the child worked."""


def build_in_child(
    db_path: str | Path, conv_id: int, expanded: Collection[int] = (),
    cancelled: Callable[[], bool] = lambda: False,
) -> Built | None:
    """The turn graph's Qt-free part built by a child process; ``None`` when it was
    cancelled, no process could start, or the child failed (the caller then builds it
    itself, or stops)."""
    got = packed_in_child(db_path, conv_id, expanded, cancelled)
    return None if got is None else unpack_built(got)


def unpack_built(got: dict[str, Any]) -> Built:
    """The objects again from the packed parts (:data:`PARTS`) a child sent or a file kept."""
    view = unpack_view(got["tree"], got["projection"], got["rest"])
    model = unpack_model(got["model"], view)
    return Built(view, model, unpack_cells(got["cells"], model))


def packed_in_child(
    db_path: str | Path, conv_id: int, expanded: Collection[int] = (),
    cancelled: Callable[[], bool] = lambda: False, keep_at: int | None = None,
) -> dict[str, Any] | None:
    """The packed parts the child sent, or None (as :func:`build_in_child`). With
    ``keep_at`` (the conversation's revision, read before), the child also keeps them in
    the file once sent (:func:`explorer.app.kept.turns.keep_in_file`). A child started
    early for this very build (:func:`start_early`) is taken over instead of a new one."""
    running = _claim(db_path, conv_id, expanded, keep_at)
    if running is None:
        running = _spawn(db_path, conv_id, expanded, keep_at, YIELD_CORES)
    if running is None:
        return None
    proc, pipe = running
    got: dict[str, Any] | None = None
    try:
        got = _receive(pipe, cancelled)
    except _Abandoned:
        pass
    except (PipeClosed, ValueError) as exc:
        log.warning("the turn graph's process failed (%s); built on the thread", exc)
    finally:
        pipe.close()
        end(proc, wait=got is not None)
    return got


def kept_in_child(db_path: str | Path, conv_id: int, keep_at: int) -> bool:
    """Build the turn graph of ``conv_id`` in a child process that keeps it in the file
    at revision ``keep_at``, and wait until it is there; whether it was kept.

    Nothing comes back through the pipe but the answer: an import's prepared views want
    the graph in the file, and a graph sent here (as :func:`packed_in_child` does) was
    only kept once its child got to it after sending: the caller, looking meanwhile,
    found it missing and built it a second time on its own core."""
    running = _start(("keep", str(db_path), conv_id, YIELD_CORES, keep_at))
    if running is None:
        return False
    proc, pipe = running
    kept = False
    try:
        kind, said = _next(pipe, lambda: False)
        if kind == "kept":
            kept = bool(said)
        else:
            log.warning("the turn graph was not kept: %s", said)
    except (PipeClosed, ValueError) as exc:
        log.warning("the turn graph was not kept: the process failed (%s)", exc)
    finally:
        pipe.close()
        end(proc, wait=kept)
    return kept


def prepare_in_child(db_path: str | Path, conv_ids: Collection[int],
                     cancelled: Callable[[], bool] = lambda: False,
                     paths: Collection[array[int]] = ()) -> list[int]:
    """Keep the turn graph, context figure and path skeleton of the big ones among
    ``conv_ids`` (``prepared_views.prepare_big``), derived by a child process: a window's
    import does this so that their first open finds them. The ones prepared; none when
    cancelled (the child is ended: each view it keeps is one transaction) or when no
    process could start."""
    running = _start(("prepare", str(db_path), sorted(conv_ids), YIELD_CORES, list(paths)))
    if running is None:
        return []
    proc, pipe = running
    done: list[int] = []
    try:
        kind, said = _next(pipe, cancelled)
        if kind == "prepared":
            done = [int(c) for c in said]
        else:
            log.warning("the views were not prepared: %s", said)
    except _Abandoned:
        pass
    except (PipeClosed, ValueError) as exc:
        log.warning("the views were not prepared: the process failed (%s)", exc)
    finally:
        pipe.close()
        end(proc, wait=bool(done))
    return done


def _spawn(db_path: str | Path, conv_id: int, expanded: Collection[int],
           keep_at: int | None, yield_cores: bool) -> Running | None:
    """A child started and sent its build request, or None when none could start."""
    return _start(("build", str(db_path), conv_id, sorted(expanded), yield_cores, keep_at))


def _start(request: tuple[Any, ...]) -> Running | None:
    """A child started (or the spare, :func:`start_spare`) and sent ``request``, or None
    when none could start."""
    running = take_spare() or started()
    if running is None:
        return None
    proc, pipe = running
    try:
        pipe.send(*request)
    except PipeClosed as exc:
        log.warning("the turn graph's process failed (%s); built on the thread", exc)
        pipe.close()
        end(proc, wait=False)
        return None
    return proc, pipe


@dataclass(frozen=True)
class _Early:
    db: str
    conv_id: int
    keep_at: int | None
    running: Running


_early: list[_Early] = []
_early_lock = threading.Lock()


def start_early(db_path: str | Path, conv_id: int, keep_at: int | None,
                yield_cores: bool) -> bool:
    """Start building the turn graph the window is about to ask for, before its first
    frame: the window's start-up runs on one core and leaves the other idle, and the
    graph's child is the longest part of opening a big conversation that nothing kept.
    The graph's worker takes it over (:func:`packed_in_child`); a request for anything
    else, or :func:`drop_early`, ends it. Whether one started."""
    running = _spawn(db_path, conv_id, (), keep_at, yield_cores)
    if running is None:
        return False
    drop_early()
    with _early_lock:
        _early.append(_Early(str(db_path), conv_id, keep_at, running))
    return True


def drop_early() -> None:
    """End a child started early that nobody took over (the window closes, or the graph
    was kept after all)."""
    with _early_lock:
        left = list(_early)
        _early.clear()
    for one in left:
        one.running[1].close()
        end(one.running[0], wait=False)


def _claim(db_path: str | Path, conv_id: int, expanded: Collection[int],
           keep_at: int | None) -> Running | None:
    with _early_lock:
        found = next((e for e in _early if e.db == str(db_path) and e.conv_id == conv_id
                      and not expanded and e.keep_at == keep_at), None)
        if found is not None:
            _early.remove(found)
    drop_early()  # any other guess was wrong
    return None if found is None else found.running


def _receive(pipe: Pipe, cancelled: Callable[[], bool]) -> dict[str, Any] | None:
    got: dict[str, Any] = {}
    while len(got) < len(PARTS):
        message = _next(pipe, cancelled)
        if message[0] == "failed":
            log.warning("the turn graph's process failed (%s); built on the thread", message[1])
            return None
        if message[0] not in PARTS:
            raise ValueError(f"an unknown message {message[0]!r}")
        got[message[0]] = message[1]
    return got


def _next(pipe: Pipe, cancelled: Callable[[], bool]) -> tuple[Any, ...]:
    """The child's next message, looking at ``cancelled`` every ``POLL_S`` meanwhile
    (raises :class:`_Abandoned` once it is set)."""
    while not pipe.ready(POLL_S):
        if cancelled():
            raise _Abandoned
    if cancelled():
        raise _Abandoned
    return pipe.receive()
