"""A huge session's content read again by other processes, ahead of the writer.

A session too big to hold is read light, then its content is read again a chunk at a time
while it is written (:mod:`explorer.formats.claude_code.content`). On one thread that
second read, the secret scan, the sizes and the rows took most of a 100,000-message
import, one chunk after another with the inserts. Here reading processes
(:mod:`explorer.app.importing.read_worker`) fill the chunks the writer will ask for next and
make their rows, while the writer inserts the ones before: the writer only adds the ids.
Only the rows come back (the writer of a new conversation reads nothing else of a filled
message); unpickling the parts too cost the writer more than the fill saved.

The writer says which chunks it will ask for, in order (``plan``); a chunk it asks for
that was not planned, or whose process failed, is filled here as before. What a fill
repairs (lone surrogates) is counted into the conversation's notes as on one thread.

The answers are taken from the pipes by a thread of their own as they come, and the
process that sent one is asked for its next chunk at once. Taken by the writer only when
it needed them, a process's answer (a megabyte, more than its pipe holds) waited in the
pipe while the writer inserted the chunk before, and the process with it: on two cores the
writer waited a third of its time for chunks a process could have made meanwhile.
"""

from __future__ import annotations

import pickle
import threading
from collections import deque
from collections.abc import Hashable, Sequence
from typing import Any

from explorer.app.child_pipe import PipeClosed
from explorer.app.importing import readers
from explorer.app.importing.read_pool import worker_count
from explorer.app.importing.readers import Reader, Readers
from explorer.tree.imported import ContentUnavailable, ImportedConversation
from explorer.tree.model import Message

AHEAD = 1
"""Chunks asked of each process at a time (500 messages each). One: a process then reads
its next request only after its answer was taken, so neither side ever waits on a full
pipe while the other writes into its own (a request is larger than a pipe's buffer)."""
WINDOW = 4
"""Chunks answered ahead of the writer at most: each holds about a megabyte of rows until
the writer takes it."""
LOOK_S = 0.05
"""How long the answers' thread waits for one before it looks whether it should end."""
MIN_MESSAGES = 5000
"""Fewer light messages than this are filled here: the processes' start costs more."""


def warm() -> None:
    """Start the reading processes while a huge session's light read runs: each needs a
    third of a second to start, which the fill's first chunk waited for with the writer."""
    if (workers := worker_count()) > 0:
        readers.warm(workers)


def cool() -> None:
    """End warm processes no fill took (the session was not that big after all)."""
    readers.cool()


def when_huge(ic: ImportedConversation) -> None:
    """Have a huge light conversation's content filled by reading processes ahead of the
    writer, when this machine has them (an import's or a sync's, before it is stored)."""
    if (ic.content is not None and hasattr(ic.content, "holds")
            and len(ic.messages) >= MIN_MESSAGES and (workers := worker_count()) > 0):
        ic.content = FillAhead(ic.content, workers)


def done(conversations: Sequence[ImportedConversation]) -> None:
    """End the reading processes of ``conversations`` once they are stored (or not)."""
    for ic in conversations:
        if isinstance(ic.content, FillAhead):
            ic.content.close()


class FillAhead(Readers):
    """The light conversation's content source, filled by ``workers`` processes."""

    def __init__(self, inner: Any, workers: int) -> None:
        super().__init__()
        self.inner, self.count = inner, workers
        self.queue: deque[int] = deque()
        self.chunks: list[list[Message]] = []
        self.ticket_of: dict[Hashable, int] = {}  # a planned chunk's first message
        self.made: dict[Hashable, Any] = {}
        self.here: set[Hashable] = set()  # filled by ``inner``, released by it
        self.lock = threading.Condition()  # the queue, the answers, what each was asked
        self.low = 0  # the first chunk the writer has not taken yet
        self.taking: threading.Thread | None = None  # takes the answers as they come
        self.closing = False

    @property
    def repaired(self) -> int:
        """Lone surrogates its source counted so far, here or from the processes' answers."""
        return int(self.inner.repaired)

    def plan(self, chunks: Sequence[Sequence[Message]]) -> None:
        """The chunks the writer will fill, in its order: asked of the processes now (a write
        tried again, after one that failed, plans afresh with new processes)."""
        self.close()
        self.closing, self.low = False, 0
        self.answers.clear()
        self.made.clear()
        self.chunks = [list(chunk) for chunk in chunks if chunk]
        self.ticket_of = {chunk[0].id: n for n, chunk in enumerate(self.chunks)}
        self.queue = deque(range(len(self.chunks)))
        bare = self.inner.for_reader()  # its locators go with each chunk
        for _ in range(self.count if self.chunks else 0):
            r = readers.start()
            if r is not None and self.send(r, "content", bare):
                self.readers.append(r)
        with self.lock:
            for r in self.readers:
                self._ask(r)
        if self.readers:
            self.taking = threading.Thread(target=self._take_answers, daemon=True,
                                           name="explorer-fill-answers")
            self.taking.start()

    def close(self) -> None:
        self.closing = True
        with self.lock:
            self.lock.notify_all()
        if self.taking is not None:  # it ends within a look, before the pipes close
            self.taking.join()
            self.taking = None
        super().close()

    def fill(self, messages: Sequence[Message]) -> None:
        """The messages' full content, read here (a reader that compares or rewrites them:
        the processes send rows only)."""
        self.inner.fill(messages)
        self.here.update(m.id for m in messages)

    def fill_rows(self, messages: Sequence[Message]) -> None:
        """The rows of ``messages`` for the writer: a planned chunk's from its process (the
        messages stay light), any other filled here."""
        got = self.rows_pickled(messages)
        rows = pickle.loads(got[0]) if got is not None else None
        if got is None or rows is None or any(m.id not in rows for m in messages):
            self.fill(messages)  # not planned, its process failed, or (never) rows missing
            return
        for m in messages:  # the writer needs only the rows: the texts stay over there
            self.made[m.id] = rows[m.id]
        if got[1]:
            self.inner.add_repairs(got[1])

    def rows_pickled(self, messages: Sequence[Message]) -> tuple[bytes, int] | None:
        """The rows of exactly the planned chunk ``messages`` as its process pickled them,
        and the surrogates it repaired (not yet counted); None when they are not a planned
        chunk or its process failed. A window's import child passes them on as they are:
        unpickled and pickled again there, every row cost the two busy cores a second hop."""
        ticket = self.ticket_of.get(messages[0].id) if messages else None
        if ticket is None or [m.id for m in self.chunks[ticket]] != [m.id for m in messages]:
            return None
        del self.ticket_of[messages[0].id]
        answer: tuple[bytes, int] | None = self._answer(ticket)
        return answer

    def release(self, messages: Sequence[Message]) -> None:
        here = [m for m in messages if m.id in self.here]
        if here:
            self.inner.release(here)
            self.here.difference_update(m.id for m in here)
        for m in messages:
            self.made.pop(m.id, None)

    def rows(self, message: Message) -> tuple[Any, ...] | None:
        made: tuple[Any, ...] | None = self.made.get(message.id)
        return made

    # -- the processes --------------------------------------------------------------
    def _ask(self, r: Reader) -> bool:
        """Under the lock: ``r``'s next chunk, if it has room and the chunk is in the window."""
        if (not self.queue or not r.alive or len(r.waiting) >= AHEAD
                or self.queue[0] >= self.low + WINDOW):
            return False
        ticket = self.queue.popleft()
        chunk = self.chunks[ticket]
        found = self.inner.locators([m.id for m in chunk])  # None: a message read whole
        light = [_bare(m, where is not None) for m, where in zip(chunk, found, strict=True)]
        if not self.send(r, "fill", ticket, light, found):
            return False
        r.waiting.add(ticket)
        return True

    def _answer(self, ticket: int) -> Any:
        """The chunk's (filled, repaired) from its process; None: fill it here."""
        with self.lock:
            while ticket not in self.answers:
                live = [r for r in self.readers if r.alive]
                asked = any(ticket in r.waiting for r in live)
                if not asked and (ticket not in self.queue or not live):
                    if ticket in self.queue:
                        self.queue.remove(ticket)  # nobody left to ask
                    self._taken(ticket)
                    return None  # (a process that ended took its chunk with it)
                self._taken(ticket - 1)  # queued: the chunks are asked in this order
                if self.taking is None or not self.taking.is_alive():
                    self.pump()  # (no thread takes them: taken here, as they come)
                else:
                    self.lock.wait(LOOK_S)
            answer = self.answers.pop(ticket)
            self._taken(ticket)
        if isinstance(answer, ContentUnavailable):
            raise answer
        return answer

    def _taken(self, ticket: int) -> None:
        """The writer is past ``ticket``: the window moves, the idle processes are asked."""
        self.low = max(self.low, ticket + 1)
        for r in self.readers:
            self._ask(r)

    def _take_answers(self) -> None:
        """The answers' thread: each answer filed as it comes, its process asked again."""
        while not self.closing:
            with self.lock:
                asked = [r for r in self.readers if r.alive and r.waiting]
                if not asked:
                    self.lock.wait(LOOK_S)
                    continue
            try:
                ready = readers.answering(asked, LOOK_S)
            except (OSError, ValueError):  # a pipe a send found closed: that process is lost
                continue
            for r in ready:
                try:
                    _kind, ticket, answer = r.pipe.receive()
                except (PipeClosed, EOFError, OSError, ValueError):
                    if self.closing:
                        return
                    with self.lock:
                        if r.alive:  # (a send that found its pipe closed lost it already)
                            self._lost(r)
                        self.lock.notify_all()
                    continue
                with self.lock:
                    r.waiting.discard(ticket)
                    self.answers[ticket] = answer
                    self._ask(r)
                    self.lock.notify_all()


def _bare(m: Message, light: bool) -> tuple[Any, ...]:
    """What a process needs of a message to make its rows, as a plain tuple (a message
    pickled whole, light parts and all, doubled what crossed the pipe): a light one without
    its parts (the fill replaces them), one read whole with them."""
    return (m.id, m.parent_id, m.role, None if light else m.parts, m.created_at, m.model,
            None if light else m.usage, m.source_id, m.source_meta)


def unbare(fields: tuple[Any, ...]) -> Message:
    """The message :func:`_bare` sent, as the reading process fills it."""
    key, parent, role, parts, created, model, usage, source_id, meta = fields
    return Message(key, parent, role, parts if parts is not None else [], created, model,
                   usage, source_id, dict(meta))
