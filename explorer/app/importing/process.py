"""A window's import, read in a child process and written by the window's one writer.

The child (:mod:`explorer.app.importing.child`, whose docstring says why a process) runs
the same import as ``convo import`` and sends each batch of conversations here in small
slices with their rows ready; this side hands the batch to the store's writer, which
adds ids and inserts, and sends back the outcomes. Progress arrives by bytes as the child
reads. Cancel asks the child to stop at its next progress step (every 256 KB), and ends
it if it does not answer: what the writer committed stays, each conversation whole,
and nothing half-written is left, as with an import on a thread.
"""

from __future__ import annotations

import contextlib
import pickle
import subprocess
import time
from collections.abc import Iterable, Sequence
from pathlib import Path
from typing import Any

from explorer.app.child_pipe import Pipe, PipeClosed, child_command, child_env, yielding
from explorer.app.importing.handed_back import relinked
from explorer.app.importing.made_rows import MadeRows, SentLight
from explorer.app.importing.run import CancelCheck, ImportReport, ProgressHook, import_paths
from explorer.formats.text_repair import RepairTally
from explorer.store import Store, StoreError
from explorer.store.import_writes import ImportOutcome
from explorer.tree.imported import ContentUnavailable, ImportedConversation
from explorer.tree.model import Message

POLL_S = 0.02
"""How often a wait for the child looks at the cancel flag."""
STOP_GRACE_S = 3.0
"""How long a child asked to stop may take before it is ended."""
FILL_TIMEOUT_S = 120.0
"""How long the writer waits for the content of one chunk before it gives up on it."""


class ChildFailed(RuntimeError):
    """The reading process ended, or stopped answering, in the middle of an import."""


class _Remote(SentLight):
    """A conversation read light: each chunk's rows are asked of the child.

    Only the rows come back: the parts pickled beside them cost this side as much again to
    unpickle. The writer asks for the rows only (:meth:`fill_rows`); a reader that needs the
    content (an import compared with the conversation it may continue) gets the messages'
    parts and metadata made from the rows (:meth:`fill`). The chunks the writer will ask
    for are told to the child first (:meth:`plan`), so its reading processes fill them
    ahead of the writer, as in ``convo import``; asked one by one, the child read a chunk
    while the writer waited, and the writer wrote while the child waited (a
    100,000-message session: 15 s here, 8 s on the command line)."""

    rows_complete = False  # asked of the child a chunk at a time

    def __init__(self, link: _Link, index: int, notes: list[str]) -> None:
        super().__init__({})
        self.link, self.index = link, index
        self.repairs = RepairTally(notes)  # what the child's reads of the content repaired

    def plan(self, chunks: Sequence[Sequence[Message]]) -> None:
        with contextlib.suppress(PipeClosed):  # the next fill says the child is gone
            self.link.pipe.send("plan", self.index, [[m.id for m in c] for c in chunks])

    def fill_rows(self, messages: Sequence[Message]) -> None:
        """The rows of ``messages``, asked of the child; the messages stay light."""
        todo = [m for m in messages if m.id not in self.made]
        if not todo:
            return
        rows, repaired = self.link.ask("fill", self.index, [m.id for m in todo])
        if isinstance(rows, bytes):  # a reading process's rows, passed on as it pickled them
            rows = pickle.loads(rows)
        missing = [m.id for m in todo if m.id not in rows]
        if missing:  # never expected: a light message written without its content
            raise ContentUnavailable(f"the reading process sent no rows for message "
                                     f"{missing[0]!r}; the conversation was not stored")
        for m in todo:
            self.made[m.id] = rows[m.id]
        self.repairs.add(repaired)

    def fill(self, messages: Sequence[Message]) -> None:
        self.fill_rows(messages)
        super().fill(messages)

    def release(self, messages: Sequence[Message]) -> None:
        super().release(messages)
        for m in messages:
            self.made.pop(m.id, None)


class _Link:
    """The pipe to the child, as both the import's thread and the writer use it (never at
    the same time: the import's thread waits while the writer writes)."""

    def __init__(self, pipe: Pipe, progress: ProgressHook | None) -> None:
        self.pipe, self.progress = pipe, progress

    def receive(self, timeout: float | None = None) -> tuple[Any, ...]:
        """The next message that is not progress (progress goes to the hook on the way)."""
        while True:
            if timeout is not None and not self.pipe.ready(timeout):
                raise ContentUnavailable("the reading process stopped answering; "
                                         "the conversation was not stored")
            message = self.pipe.receive()
            if message[0] != "progress":
                return message
            if self.progress is not None:
                self.progress(message[1])

    def ask(self, *question: Any) -> Any:
        try:
            self.pipe.send(*question)
            kind, answer = self.receive(FILL_TIMEOUT_S)
        except PipeClosed as exc:
            raise ContentUnavailable("the reading process ended; the conversation was not "
                                     f"stored ({exc})") from exc
        if kind == "unavailable":
            raise ContentUnavailable(answer)
        if kind != "filled":
            raise ContentUnavailable(f"the reading process answered {kind!r} to a fill")
        return answer


class ChildImport:
    """One import of ``paths`` read by a child process into ``store``."""

    def __init__(self, store: Store, paths: Iterable[Path], progress: ProgressHook | None,
                 cancel: CancelCheck | None, report: ImportReport) -> None:
        self.store, self.paths, self.report = store, [Path(p) for p in paths], report
        self.cancel = cancel or (lambda: False)
        self.proc = subprocess.Popen(
            child_command("explorer.app.importing.child"), stdin=subprocess.PIPE,
            stdout=subprocess.PIPE, bufsize=0, env=child_env(), **yielding())
        assert self.proc.stdin is not None and self.proc.stdout is not None
        self.link = _Link(Pipe(self.proc.stdout, self.proc.stdin), progress)  # type: ignore[arg-type]
        self.stop_asked: float | None = None
        self.batch: list[ImportedConversation] = []
        self.stored: list[ImportOutcome] = []

    def run(self) -> ImportReport:
        try:
            self.link.pipe.send("import", [str(p) for p in self.paths],
                                str(self.store.db_path))
            while not self._handle(self._next()):
                pass
        except (PipeClosed, ChildFailed) as exc:
            self._lost(str(exc))
        except BaseException:  # the store failed: the report holds what it committed
            self.report.conversations = list(self.stored)
            raise
        finally:
            self._end()
        return self.report

    def _next(self) -> tuple[Any, ...]:
        """The child's next message; a cancel is passed on before each (a child reading
        fast always has one waiting, so the flag is not only looked at while idle)."""
        while True:
            if self.cancel() and self.stop_asked is None:
                self.stop_asked = time.monotonic()
                self.link.pipe.send("stop")
            if self.stop_asked is not None and time.monotonic() - self.stop_asked > STOP_GRACE_S:
                raise ChildFailed("it did not stop when asked; ended")
            if self.link.pipe.ready(POLL_S):
                return self.link.pipe.receive()  # progress too: handled one at a time

    def _handle(self, message: tuple[Any, ...]) -> bool:
        """Act on one message; True at the end (the child's report)."""
        kind = message[0]
        if kind == "progress":
            if self.link.progress is not None:
                self.link.progress(message[1])
        elif kind == "conversation":
            head: ImportedConversation = message[1]
            head.content = (_Remote(self.link, len(self.batch), head.notes) if message[2]
                            else MadeRows())
            self.batch.append(head)
        elif kind == "messages":
            ic = self.batch[-1]
            ic.messages.extend(message[1])
            if message[2] is not None:
                assert isinstance(ic.content, MadeRows)
                for key, rows in message[2].items():
                    ic.content.made.setdefault(key, rows)
        elif kind == "write":
            self._write()
        elif kind == "report":
            _copy(message[1], self.report)
            return True
        else:
            raise ChildFailed(f"an unknown message {kind!r}")
        return False

    def _write(self) -> None:
        batch, self.batch = self.batch, []
        batch = [relinked(self.store, ic) for ic in batch]  # a continued hand-back (H1)
        for n, ic in enumerate(batch):
            ic.written = self._written(n)
        results = self.store.import_conversations(batch, self.cancel)
        self.stored.extend(r for r in results if isinstance(r, ImportOutcome))
        self.link.pipe.send("stored", results)
        for ic in batch:
            _let_go(ic.messages)
        if self.stop_asked is not None:  # the child had no chance to stop while we wrote
            self.stop_asked = time.monotonic()

    def _written(self, n: int) -> Any:
        def written(count: int) -> None:
            self.link.pipe.send("written", n, count)
        return written

    def _lost(self, why: str) -> None:
        """The child is gone: the report holds what this side stored."""
        self.report.conversations = list(self.stored)
        if self.stop_asked is not None:
            self.report.cancelled = True
        else:
            self.report.errors.append(f"the import stopped: the reading process failed ({why})")

    def _end(self) -> None:
        self.link.pipe.close()
        try:
            self.proc.wait(timeout=STOP_GRACE_S)
        except subprocess.TimeoutExpired:
            self.proc.kill()
            self.proc.wait()


FREE_SLICE = 2000
"""Messages freed at a time once written: a huge session's 60,000 light messages freed in
one go held the GIL for about 40 ms; a slice at a time lets the window in between."""


def _let_go(messages: list[Message]) -> None:
    while messages:
        del messages[-FREE_SLICE:]


def _copy(source: ImportReport, into: ImportReport) -> None:
    into.conversations = source.conversations
    into.errors = source.errors
    into.skipped_files = source.skipped_files
    into.cancelled = source.cancelled


def import_in_child(store: Store, paths: Iterable[Path], *, progress: ProgressHook | None = None,
                    cancel: CancelCheck | None = None,
                    report: ImportReport | None = None) -> ImportReport:
    """Import ``paths`` into ``store``, read by a child process (see the module docstring)."""
    store.require_writable()  # before any file is read
    report = report if report is not None else ImportReport()
    paths = list(paths)
    try:
        child = ChildImport(store, paths, progress, cancel, report)
    except OSError:  # no process could be started: read on this thread, as before
        return import_paths(store, paths, progress, cancel, report)
    return child.run()


__all__ = ["ChildFailed", "StoreError", "import_in_child"]
