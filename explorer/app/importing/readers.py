"""Reading processes and their answers by ticket: what a big sync's pool and a huge
session's fill share (:mod:`read_pool`, :mod:`fill_ahead`).

Each process is ``python -m explorer.app.importing.read_worker`` on a pipe; a request
carries a ticket and the answer comes back with it. A process that ends or breaks its pipe
is left (``alive`` false) and what it was asked is handed back through :meth:`_lost`, so
the owner reads it itself or asks another. Closing ends every process; they also end on
their own when this side of the pipe closes (a killed parent leaves none behind).

A sync asks each process dozens of units ahead. Where a pipe holds less than those
requests (Windows gives one 4 KiB), a request that does not fit waits until the process
reads it, while the process waits to send an answer this side is not reading: neither
moves again. There the requests go out on a thread of their own (:meth:`Reader.post`), so
this side is always free to read. Windows' ``select`` takes no pipes either: the answers
are looked for there in turns (:data:`POLLED`).
"""

from __future__ import annotations

import logging
import queue
import select
import subprocess
import sys
import threading
import time
from dataclasses import dataclass, field
from typing import IO, Any

from explorer.app.child_pipe import (
    Pipe,
    PipeClosed,
    child_command,
    child_env,
    encode,
    yielding,
)

STOP_S = 2.0
POLLED = sys.platform == "win32"
"""Whether the answers are looked for in turns (Windows' ``select`` takes only sockets)."""
POLL_S = 0.002
"""The pause between two looks at every process's pipe, when polled."""
ROOMY = 256 << 10
"""A pipe this large holds every request a sync asks ahead (48 of a few hundred bytes):
they are written at once, without a thread."""
log = logging.getLogger(__name__)


@dataclass
class Reader:
    proc: subprocess.Popen[bytes]
    pipe: Pipe
    out: IO[bytes]
    waiting: set[int] = field(default_factory=set)
    alive: bool = True
    outbox: queue.SimpleQueue[bytes | None] | None = None  # a small pipe's sender thread's

    def post(self, *message: Any) -> None:
        """Send ``message``: at once through a roomy pipe, else by this process's sender
        thread, in order. Raises :class:`PipeClosed` when the pipe is closed (sent at once;
        the thread just stops, and the answers' end tells)."""
        if self.outbox is None and self.pipe.room >= ROOMY:
            self.pipe.send(*message)
            return
        if self.outbox is None:
            self.outbox = queue.SimpleQueue()
            threading.Thread(target=_send_all, args=(self.pipe, self.outbox), daemon=True,
                             name="explorer-reader-requests").start()
        self.outbox.put(encode(*message))

    def stop_posting(self) -> None:
        if self.outbox is not None:
            self.outbox.put(None)


_warm: list[Reader] = []
_warm_lock = threading.Lock()


def warm(count: int) -> None:
    """Start up to ``count`` reading processes now, for the next :func:`start` calls to
    take. A process needs a third of a second to start Python and its imports, and a huge
    session's content fill waited for that with the writer; started while its light read
    keeps one core busy, they are ready when the fill begins."""
    with _warm_lock:
        while len(_warm) < count:
            r = _spawn()
            if r is None:
                return
            _warm.append(r)


def cool() -> None:
    """End the warm processes no :func:`start` took."""
    with _warm_lock:
        left = list(_warm)
        _warm.clear()
    _stop(left)


def start() -> Reader | None:
    """One reading process (a warm one first), or None when none can be started (the
    caller reads itself)."""
    with _warm_lock:
        while _warm:
            r = _warm.pop(0)
            if r.proc.poll() is None:
                return r
            _stop([r])  # ended meanwhile
    return _spawn()


def _spawn() -> Reader | None:
    try:
        proc = subprocess.Popen(
            child_command("explorer.app.importing.read_worker"),
            stdin=subprocess.PIPE, stdout=subprocess.PIPE, bufsize=0, env=child_env(),
            **yielding())
    except OSError as exc:
        log.warning("no reading process could be started (%s); this one reads", exc)
        return None
    assert proc.stdin is not None and proc.stdout is not None
    return Reader(proc, Pipe(proc.stdout, proc.stdin), proc.stdout)  # type: ignore[arg-type]


class Readers:
    """The processes of one owner; subclasses say what to ask next and what a loss means."""

    def __init__(self) -> None:
        self.readers: list[Reader] = []
        self.answers: dict[int, Any] = {}

    def _ask(self, r: Reader) -> bool:
        """Give ``r`` its next request, if there is one it should have; whether it got one."""
        return False

    def _handed_back(self, tickets: list[int]) -> None:
        """What a lost process was asked, in ticket order."""

    def send(self, r: Reader, *message: Any) -> bool:
        """Send to ``r``; False (and ``r`` lost) when its pipe is closed."""
        try:
            r.post(*message)
        except PipeClosed:
            self._lost(r)
            return False
        return True

    def pump(self) -> None:
        """Wait for any process's next answer, file it, and ask that process again."""
        live = [r for r in self.readers if r.alive]
        if not live:
            return
        for r in answering(live):
            try:
                _kind, ticket, answer = r.pipe.receive()
            except (PipeClosed, EOFError, OSError, ValueError):
                self._lost(r)
                continue
            r.waiting.discard(ticket)
            self.answers[ticket] = answer
            self._ask(r)

    def close(self) -> None:
        _stop(self.readers)
        self.readers = []

    def _lost(self, r: Reader) -> None:
        r.alive = False
        r.stop_posting()
        r.pipe.close()
        log.warning("a reading process (pid %d, exit code %s) ended before answering; "
                    "what it was asked is read by the others or here", r.proc.pid,
                    r.proc.poll())
        tickets, r.waiting = sorted(r.waiting), set()
        self._handed_back(tickets)


def _send_all(pipe: Pipe, outbox: queue.SimpleQueue[bytes | None]) -> None:
    """Write what is posted, in order, until told to stop or the pipe closes."""
    while (data := outbox.get()) is not None:
        try:
            pipe.send_encoded(data)
        except (PipeClosed, OSError):  # (closed meanwhile by this side: the end)
            return


def answering(readers: list[Reader], timeout: float | None = None) -> list[Reader]:
    """The processes with an answer (or an end) to read, waited for up to ``timeout``
    (None: until one has); looked for in turns where ``select`` takes no pipes."""
    deadline = None if timeout is None else time.monotonic() + timeout
    if POLLED:
        while not (polled := [r for r in readers if r.pipe.ready(0)]):
            if deadline is not None and time.monotonic() > deadline:
                return []
            time.sleep(POLL_S)
        return polled
    by_file = {r.out: r for r in readers}
    ready, _, _ = select.select(list(by_file), [], [], timeout)
    return [by_file[f] for f in ready]


def _stop(readers: list[Reader]) -> None:
    """Close each process's pipe (it ends on its own then), and wait for it."""
    for r in readers:
        r.stop_posting()
        r.pipe.close()
    for r in readers:
        try:
            r.proc.wait(timeout=STOP_S)
        except subprocess.TimeoutExpired:
            r.proc.kill()
            r.proc.wait()
