"""The reading side of a window's import, run in a process of its own.

Why a process and not shorter steps on a thread (measured on the 100 MB, 61,670-message
session, 2 cores): with the collector paused and the GIL's turn at 1 ms, the window still
waited 150–850 ms at a time, and in those waits its own thread had run 0.2–20 ms; the rest
it spent waiting for the GIL. Nothing held it long: the reader and the writer ran short
Python steps (JSON, secret scans, sizing, row building), but the window's thread gives the
GIL back at every Qt call it makes and queues again behind them each time, so a repaint
or a progress update that makes a few hundred Qt calls waited a few hundred turns. Shorter
steps cannot fix that while the work shares the interpreter; moving it out does. Here the
files are read, repaired, sized, scanned for secrets and turned into rows; the window's
writer receives the rows a chunk at a time and only adds the ids and inserts them
(:mod:`explorer.app.importing.process`).

The same :func:`~explorer.app.importing.run.import_paths` runs here as in ``convo import``,
so what is skipped, repaired and reported is the same; only its store is the window's,
seen through the pipe. A huge session read light stays here while the window writes it:
its content is read again, chunk by chunk, when the writer asks.

    python -m explorer.app.importing.child   (the window starts it; it speaks on stdin/stdout)
"""

from __future__ import annotations

import contextlib
import dataclasses
import os
import sys
from collections.abc import Hashable
from pathlib import Path
from typing import Any

from explorer.app.child_pipe import Pipe, PipeClosed, window_pipe
from explorer.app.importing import fill_ahead
from explorer.app.importing.made_rows import made_rows
from explorer.app.importing.run import CancelCheck, ImportProgress, ImportReport, import_paths
from explorer.store import StoreError
from explorer.store import guard as db_guard
from explorer.store.import_writes import ImportOutcome
from explorer.store.rows import prepared_rows
from explorer.tree.imported import ContentUnavailable, ImportedConversation, ReadyRows
from explorer.tree.model import Message

NICE = 10
"""The child yields the cores to the window (and to the writer) when they want them:
on two cores its reading otherwise kept the window's thread waiting in the run queue."""

SLICE_MESSAGES = 1000
SLICE_CHARS = 2_000_000
"""A conversation's messages travel in slices this small, so the window unpickles a little
at a time (one pickle of a whole huge session held its GIL for a long stretch)."""


class RemoteWrites:
    """The window's store as the import here sees it: a batch is sent, the window writes it
    (asking back for the content of lazily read messages) and answers with the outcomes."""

    def __init__(self, pipe: Pipe) -> None:
        self.pipe = pipe
        self.stop = False

    def stopped(self) -> bool:
        """Whether the window asked to stop (read without waiting, at each progress step)."""
        while not self.stop and self.pipe.ready(0):
            self._command(self.pipe.receive())
        return self.stop

    def import_conversations(
        self, conversations: list[ImportedConversation], cancel: CancelCheck | None = None,
    ) -> list[ImportOutcome | StoreError]:
        for ic in conversations:
            self._send(ic)
        self.pipe.send("write", len(conversations))
        keyed: dict[int, dict[Hashable, Message]] = {}
        while True:
            message = self.pipe.receive()
            kind = message[0]
            if kind == "stored":
                results: list[ImportOutcome | StoreError] = message[1]
                return results
            if kind == "plan":  # the chunks the writer will ask for: filled ahead
                n, chunks = message[1], message[2]
                by_key = _keyed(keyed, n, conversations[n])
                _plan(conversations[n], [[by_key[k] for k in chunk] for chunk in chunks])
            elif kind == "fill":
                n, keys = message[1], message[2]
                ic = conversations[n]
                by_key = _keyed(keyed, n, ic)
                try:
                    answer = _filled(ic, [by_key[k] for k in keys])
                except ContentUnavailable as e:  # that conversation is not stored; the rest are
                    self.pipe.send("unavailable", str(e))
                except Exception as e:  # a reader's bug: said, and that conversation not stored
                    self.pipe.send("unavailable", f"could not be read again "
                                                  f"({type(e).__name__}: {e})")
                else:
                    self.pipe.send("filled", answer)
            elif kind == "written":
                written = conversations[message[1]].written
                if written is not None:
                    written(message[2])
            else:
                self._command(message)

    def _command(self, message: tuple[Any, ...]) -> None:
        if message[0] == "stop":
            self.stop = True

    def _send(self, ic: ImportedConversation) -> None:
        light = ic.content is not None
        head = dataclasses.replace(ic, messages=[], content=None, written=None)
        self.pipe.send("conversation", head, light)
        for part in _slices(ic.messages, light):
            rows = None if light else made_rows(part)
            self.pipe.send("messages", part, rows)


def _slices(messages: list[Message], light: bool) -> list[list[Message]]:
    out: list[list[Message]] = []
    current: list[Message] = []
    chars = 0
    for m in messages:
        current.append(m)
        chars += 0 if light else sum(len(p.text) + len(p.data or b"") for p in m.parts)
        if len(current) >= SLICE_MESSAGES or chars >= SLICE_CHARS:
            out.append(current)
            current, chars = [], 0
    if current:
        out.append(current)
    return out


def _keyed(keyed: dict[int, dict[Hashable, Message]], n: int,
           ic: ImportedConversation) -> dict[Hashable, Message]:
    """Conversation ``n``'s messages by id (the first of a duplicate id, as the repair keeps)."""
    if n not in keyed:
        keyed[n] = {}
        for m in ic.messages:
            keyed[n].setdefault(m.id, m)
    return keyed[n]


def _plan(ic: ImportedConversation, chunks: list[list[Message]]) -> None:
    """A huge conversation's chunks filled ahead by reading processes (``fill_ahead``), in
    the order the window's writer will ask for them; a smaller one is filled when asked."""
    fill_ahead.when_huge(ic)
    planning = getattr(ic.content, "plan", None)
    if callable(planning):
        planning(chunks)


def _filled(ic: ImportedConversation,
            messages: list[Message]) -> tuple[dict[Hashable, Any] | bytes, int]:
    """Each message's rows, made from its content read again from its file (by a reading
    process when the chunk was planned, else here), and the lone surrogates that replaced:
    the window counts them into its conversation's notes, which the report reads. A planned
    chunk's rows are passed on pickled, as its reading process sent them."""
    content = ic.content
    assert content is not None
    if isinstance(content, fill_ahead.FillAhead):
        passed = content.rows_pickled(messages)
        if passed is not None:  # counted by the window, into the conversation's notes
            return passed
    before = getattr(content, "repaired", 0)
    content.fill(messages)
    try:
        ready = content.rows if isinstance(content, ReadyRows) else None
        out: dict[Hashable, Any] = {}
        for m in messages:
            made = ready(m) if ready is not None else None
            out[m.id] = made if made is not None else prepared_rows(m)
        return out, getattr(content, "repaired", 0) - before
    finally:
        content.release(messages)


def main() -> int:
    with contextlib.suppress(AttributeError, OSError):  # elsewhere: only a little slower
        os.nice(NICE)
    pipe = window_pipe()
    remote = RemoteWrites(pipe)
    report = ImportReport()
    try:
        kind, paths, db = pipe.receive()
        if kind != "import":
            raise PipeClosed(f"expected an import, got {kind!r}")
        db_guard.register(Path(db))  # the window's database is never read as a transcript

        def progress(p: ImportProgress) -> None:
            pipe.send("progress", p)

        try:
            import_paths(remote, [Path(p) for p in paths], progress=progress,
                         cancel=remote.stopped, report=report)
        except PipeClosed:
            raise
        except Exception as e:  # a reader's bug ends the import with what was done
            report.errors.append(f"the import stopped: {type(e).__name__}: {e}")
        pipe.send("report", report)
    except PipeClosed:  # the window ended the import (or itself): nothing is left to say
        return 1
    finally:
        pipe.close()
    return 0


if __name__ == "__main__":
    code = main()
    sys.stdout.flush()
    sys.stderr.flush()
    # Nothing is left to tidy (the import removed its unpacked zips before it reported),
    # and the window waits for this process to end before it delivers a cancel: the
    # interpreter's own teardown would only add to that wait.
    os._exit(code)
