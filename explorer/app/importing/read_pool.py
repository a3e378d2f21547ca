"""Reading processes for a big sync, their answers taken in the order the sync asks.

The sync walks its units in order and stores them in that order (a fork stored after the
session it continues, batches in a predictable order); the pool reads ahead of it, a few
units per process, so the writer never waits for a read it could have had. A process that
fails or stops answering is left; its units are read by the sync itself. Closing the pool
ends every process (they also end on their own when the sync's end of the pipe closes).
"""

from __future__ import annotations

import contextlib
import os
import select
import subprocess
import sys
from collections import deque
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import IO

from explorer.app.child_pipe import Pipe, PipeClosed, child_env
from explorer.app.importing.sources import Unit
from explorer.app.importing.whole_read import Signature, WholeRead

AHEAD_PER_WORKER = 48
"""Units asked of each process ahead of the sync: more than a batch the writer stores
while the next one is read (see ``sync.Batch``), so no side waits for the other."""
AHEAD_BYTES = 48 << 20
"""Bytes of files asked and not yet taken, at most (what the answers hold in memory)."""
STOP_S = 2.0
WORKERS_ENV = "CONVO_SYNC_WORKERS"
"""Overrides how many reading processes a sync starts (0: read everything in-process)."""


def worker_count() -> int:
    if sys.platform == "win32":  # the pool waits on pipes with select, POSIX only
        return 0
    wanted = os.environ.get(WORKERS_ENV)
    if wanted is not None and wanted.strip().isdigit():
        return int(wanted)
    return max(1, min(4, os.cpu_count() or 1))


@dataclass
class _Worker:
    proc: subprocess.Popen[bytes]
    pipe: Pipe
    out: IO[bytes]
    waiting: set[int] = field(default_factory=set)
    alive: bool = True


class ReadPool:
    """Reads the given units in worker processes; :meth:`take` returns one unit's read."""

    def __init__(self, jobs: Sequence[tuple[Unit, Signature]], workers: int) -> None:
        self.jobs = list(jobs)
        self.ticket_of = {u.where: n for n, (u, _) in enumerate(self.jobs)}
        self.answers: dict[int, WholeRead | Exception | None] = {}
        self.queue: deque[int] = deque(range(len(self.jobs)))
        self.ahead = 0  # bytes asked and not yet taken
        self.workers = [w for w in (_start() for _ in range(workers)) if w is not None]
        for _ in range(AHEAD_PER_WORKER):
            for w in self.workers:
                self._ask(w)

    def has(self, unit: Unit) -> bool:
        return unit.where in self.ticket_of

    def take(self, unit: Unit) -> WholeRead | Exception | None:
        """The unit's read (or the error reading it raised); None when no process read it
        (the caller reads it itself)."""
        ticket = self.ticket_of.pop(unit.where)
        while ticket not in self.answers:
            if not self._owner_alive(ticket):
                return None
            self._pump()
        self.ahead -= self.jobs[ticket][1].size
        for w in self.workers:  # room again for what was held back
            while self._ask(w):
                pass
        return self.answers.pop(ticket)

    def close(self) -> None:
        for w in self.workers:
            w.pipe.close()
        for w in self.workers:
            try:
                w.proc.wait(timeout=STOP_S)
            except subprocess.TimeoutExpired:
                w.proc.kill()
                w.proc.wait()
        self.workers = []

    def _ask(self, w: _Worker, *, anyway: bool = False) -> bool:
        """Ask ``w`` for the next unit, if it may read further ahead (or ``anyway``)."""
        if not self.queue or not w.alive:
            return False
        if not anyway and (len(w.waiting) >= AHEAD_PER_WORKER or self.ahead >= AHEAD_BYTES):
            return False
        ticket = self.queue.popleft()
        unit, sig = self.jobs[ticket]
        try:
            w.pipe.send("read", ticket, unit, sig)
        except PipeClosed:
            self._lost(w)
            self.answers.setdefault(ticket, None)
            return False
        w.waiting.add(ticket)
        self.ahead += sig.size
        return True

    def _owner_alive(self, ticket: int) -> bool:
        if any(ticket in w.waiting for w in self.workers if w.alive):
            return True
        if ticket in self.queue:  # not asked yet: ask the freest process
            live = [w for w in self.workers if w.alive]
            if not live:
                return False
            self.queue.remove(ticket)
            self.queue.appendleft(ticket)
            self._ask(min(live, key=lambda w: len(w.waiting)), anyway=True)
            return ticket in self.answers or any(ticket in w.waiting for w in live)
        return ticket in self.answers

    def _pump(self) -> None:
        """Wait for any process's next answer and file it."""
        live = {w.out: w for w in self.workers if w.alive}
        if not live:
            return
        ready, _, _ = select.select(list(live), [], [])
        for f in ready:
            w = live[f]
            try:
                _kind, ticket, answer = w.pipe.receive()
            except (PipeClosed, EOFError, OSError, ValueError):
                self._lost(w)
                continue
            w.waiting.discard(ticket)
            self.answers[ticket] = answer
            self._ask(w)

    def _lost(self, w: _Worker) -> None:
        """A process ended: what it was reading goes back to the others (or to the sync)."""
        w.alive = False
        w.pipe.close()
        for ticket in sorted(w.waiting, reverse=True):
            self.queue.appendleft(ticket)
            self.ahead -= self.jobs[ticket][1].size
        w.waiting.clear()


def _start() -> _Worker | None:
    try:
        proc = subprocess.Popen(
            [sys.executable, "-m", "explorer.app.importing.read_worker"],
            stdin=subprocess.PIPE, stdout=subprocess.PIPE, bufsize=0, env=child_env())
    except OSError:
        return None
    assert proc.stdin is not None and proc.stdout is not None
    return _Worker(proc, Pipe(proc.stdout, proc.stdin), proc.stdout)  # type: ignore[arg-type]


@contextlib.contextmanager
def read_pool(jobs: Sequence[tuple[Unit, Signature]], workers: int):  # type: ignore[no-untyped-def]
    pool = ReadPool(jobs, workers)
    try:
        yield pool
    finally:
        pool.close()
