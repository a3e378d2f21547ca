"""The views' child processes (:mod:`explorer.app.graph.turn_child`): started, kept
ready as a spare, ended, and reaped.

A child that answered keeps its build in the file and exits on its own, so it is waited
for in the background; one nobody waits for is ended at once. A spare is started before
anyone asks (a big import starts it while it reads, when a core is idle), so the views
prepared after the write start without the quarter of a second a process takes to start.
"""

from __future__ import annotations

import logging
import subprocess
import threading

from explorer.app.child_pipe import Pipe, PipeClosed, child_command, child_env, yielding

MODULE = "explorer.app.graph.turn_child"
END_WAIT_S = 60.0
"""How long a child that has sent everything may take to keep it and exit before it is
ended (two seconds was too short for a child at low priority on a loaded machine)."""

Running = tuple[subprocess.Popen[bytes], Pipe]

log = logging.getLogger(__name__)


def started() -> Running | None:
    """A new child, waiting for its request; None when no process could start."""
    try:
        proc = subprocess.Popen(
            child_command(MODULE), stdin=subprocess.PIPE, stdout=subprocess.PIPE,
            bufsize=0, env=child_env(), **yielding())
    except OSError as exc:  # only slower: the caller builds on its thread
        log.warning("the turn graph is built on the thread: no process started (%s)", exc)
        return None
    assert proc.stdin is not None and proc.stdout is not None
    return proc, Pipe(proc.stdout, proc.stdin)  # type: ignore[arg-type]


_spare: list[Running] = []  # at most one
_spare_lock = threading.Lock()  # an import's thread starts it, a window's graph may take it


def start_spare(*, ready_turns: bool = False) -> None:
    """Start a child that waits, its modules imported, for the next request: a big
    import starts one while it reads (a core is idle then), and the views prepared after
    the write begin at once instead of a quarter of a second later. ``ready_turns``: the
    child starts a spare of its own, for the turn graph it builds beside what it prepares
    (a window's import, whose views a child prepares). :func:`drop_spare` ends it when
    nothing asked."""
    running = started()
    if running is None:
        return
    if ready_turns:
        try:
            running[1].send("ready-turns")
        except PipeClosed:  # it ended at once: no spare, the views start their own child
            log.warning("a spare view process ended as it started")
            running[1].close()
            end(running[0], wait=False)
            return
    drop_spare()
    with _spare_lock:
        _spare.append(running)


def drop_spare() -> None:
    """End the spare child nobody asked anything of."""
    with _spare_lock:
        left = list(_spare)
        _spare.clear()
    for proc, pipe in left:
        pipe.close()
        end(proc, wait=False)


def take_spare() -> Running | None:
    """The spare child, if one waits (it is nobody's spare from now on)."""
    with _spare_lock:
        left = list(_spare)
        _spare.clear()
    for proc, pipe in left:
        if proc.poll() is None:
            return proc, pipe
        pipe.close()  # it ended meanwhile: another is started
    return None


def end(proc: subprocess.Popen[bytes], wait: bool) -> None:
    """A child that answered exits by itself once it has kept what it built (one
    transaction, whole or not at all): it is given ``END_WAIT_S`` in the background, so a
    starved child on a loaded machine still keeps its build and nobody waits for it. Any
    other is ended now: nothing is lost."""
    if wait:
        reaper = threading.Thread(target=_reap, args=(proc,), name="explorer-child-reaper",
                                  daemon=True)
        with _reapers_lock:
            _reapers[:] = [t for t in _reapers if t.is_alive()] + [reaper]
        reaper.start()
        return
    proc.kill()
    proc.wait()


_reapers: list[threading.Thread] = []
_reapers_lock = threading.Lock()


def settle_children(timeout: float = END_WAIT_S) -> None:
    """Wait until every child that answered has kept its build and exited (tests, and a
    process about to end that wants what they keep)."""
    with _reapers_lock:
        waiting = list(_reapers)
    for reaper in waiting:
        reaper.join(timeout)


def _reap(proc: subprocess.Popen[bytes]) -> None:
    try:
        proc.wait(timeout=END_WAIT_S)
    except subprocess.TimeoutExpired:  # logged: its build is not kept, the next open builds
        log.warning("a view's child took over %.0f s to keep its build; ended", END_WAIT_S)
        proc.kill()
        proc.wait()
