"""Reading processes for a big sync, their answers taken in the order the sync asks.

The sync walks its units in order and stores them in that order (a fork stored after the
session it continues, batches in a predictable order); the pool reads ahead of it, a few
units per process, so the writer never waits for a read it could have had. A process that
fails or stops answering is left; its units are read by the sync itself. Closing the pool
ends every process (they also end on their own when the sync's end of the pipe closes).
"""

from __future__ import annotations

import os
from collections import deque
from collections.abc import Sequence

from explorer.app.importing import readers
from explorer.app.importing.readers import Reader, Readers
from explorer.app.importing.units import Unit
from explorer.app.importing.whole_read import Signature, WholeRead

AHEAD_PER_WORKER = 48
"""Units asked of each process ahead of the sync: more than a batch the writer stores
while the next one is read (see ``sync.Batch``), so no side waits for the other."""
AHEAD_BYTES = 48 << 20
"""Bytes of files asked and not yet taken, at most (what the answers hold in memory)."""
WORKERS_ENV = "CONVO_SYNC_WORKERS"
"""Overrides how many reading processes a sync starts (0: read everything in-process)."""


def worker_count() -> int:
    wanted = os.environ.get(WORKERS_ENV)
    if wanted is not None and wanted.strip().isdigit():
        return int(wanted)
    return max(1, min(4, os.cpu_count() or 1))


class ReadPool(Readers):
    """Reads the given units in worker processes; :meth:`take` returns one unit's read."""

    def __init__(self, jobs: Sequence[tuple[Unit, Signature]], workers: int) -> None:
        super().__init__()
        self.jobs = list(jobs)
        self.ticket_of = {u.where: n for n, (u, _) in enumerate(self.jobs)}
        self.queue: deque[int] = deque(range(len(self.jobs)))
        self.ahead = 0  # bytes asked and not yet taken
        self.readers = [r for r in (readers.start() for _ in range(workers)) if r is not None]
        for _ in range(AHEAD_PER_WORKER):
            for r in self.readers:
                self._ask(r)

    def has(self, unit: Unit) -> bool:
        return unit.where in self.ticket_of

    def take(self, unit: Unit) -> WholeRead | Exception | None:
        """The unit's read (or the error reading it raised); None when no process read it
        (the caller reads it itself)."""
        ticket = self.ticket_of.pop(unit.where)
        while ticket not in self.answers:
            if not self._owner_alive(ticket):
                return None
            self.pump()
        self.ahead -= self.jobs[ticket][1].size
        for r in self.readers:  # room again for what was held back
            while self._ask(r):
                pass
        answer: WholeRead | Exception | None = self.answers.pop(ticket)
        return answer

    def _ask(self, r: Reader, *, anyway: bool = False) -> bool:
        """Ask ``r`` for the next unit, if it may read further ahead (or ``anyway``)."""
        if not self.queue or not r.alive:
            return False
        if not anyway and (len(r.waiting) >= AHEAD_PER_WORKER or self.ahead >= AHEAD_BYTES):
            return False
        ticket = self.queue.popleft()
        unit, sig = self.jobs[ticket]
        if not self.send(r, "read", ticket, unit, sig):
            self.answers.setdefault(ticket, None)
            return False
        r.waiting.add(ticket)
        self.ahead += sig.size
        return True

    def _owner_alive(self, ticket: int) -> bool:
        if any(ticket in r.waiting for r in self.readers if r.alive):
            return True
        if ticket in self.queue:  # not asked yet: ask the freest process
            live = [r for r in self.readers if r.alive]
            if not live:
                return False
            self.queue.remove(ticket)
            self.queue.appendleft(ticket)
            self._ask(min(live, key=lambda r: len(r.waiting)), anyway=True)
            return ticket in self.answers or any(ticket in r.waiting for r in live)
        return ticket in self.answers

    def _handed_back(self, tickets: list[int]) -> None:
        """What a process that ended was reading goes back to the others (or the sync)."""
        for ticket in reversed(tickets):
            self.queue.appendleft(ticket)
            self.ahead -= self.jobs[ticket][1].size
