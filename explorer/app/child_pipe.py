"""Framed messages between a window's import and the process that reads for it.

Each message is a tuple pickled with a length in front, written to a raw (unbuffered)
pipe, so ``ready`` can ask the operating system whether the next one has begun to
arrive without a buffer hiding bytes from it. Both ends are trusted: the reading
process is this program, started by the window with its own interpreter.
"""

from __future__ import annotations

import contextlib
import logging
import os
import pickle
import select
import struct
import sys
import time
from pathlib import Path
from typing import Any, BinaryIO

import explorer

try:
    import fcntl
except ImportError:  # Windows
    fcntl = None  # type: ignore[assignment]

_HEAD = struct.Struct("<Q")
log = logging.getLogger(__name__)
PIPE_BYTES_ENV = "CONVO_PIPE_BYTES"
PIPE_BYTES = int(os.environ.get(PIPE_BYTES_ENV) or 1 << 20)
"""How much a pipe holds (Linux: the most a user may ask for by default). At the system's
64 KiB, a reading process's 1-2 MB answer waited on its reader sixteen to thirty times:
170 MB of rows through 64 KiB took 0.34-0.40 s and 0.2-0.3 s of the sender's CPU, through
1 MiB 0.20 s and 0.17 s. ``CONVO_PIPE_BYTES`` sets it (and every child it starts): a test
gives the pipes the 4 KiB Windows gives them."""


class PipeClosed(EOFError):
    """The other end went away (it ended, or was ended) before a whole message arrived."""


SMALL_PIPE = 4096
"""What a pipe whose size is not known holds at least (Windows gives an anonymous pipe 4 KiB;
Linux and macOS 16-64 KiB)."""


class Pipe:
    """Send and receive whole messages over two raw file objects."""

    def __init__(self, incoming: BinaryIO, outgoing: BinaryIO) -> None:
        self._in = incoming
        self._out = outgoing
        widen(incoming)
        self.room = widen(outgoing) or SMALL_PIPE
        """Bytes the outgoing pipe holds: what may be sent that the other end has not read
        yet without the send waiting for it."""

    def send(self, *message: Any) -> None:
        self.send_encoded(encode(*message))

    def send_encoded(self, data: bytes) -> None:
        """Send what :func:`encode` made (a message pickled where it was posted, sent by a
        thread that only writes)."""
        try:
            self._write(_HEAD.pack(len(data)))
            self._write(data)
        except (BrokenPipeError, ValueError) as exc:  # ValueError: closed by us
            raise PipeClosed(str(exc)) from exc

    def receive(self) -> tuple[Any, ...]:
        (size,) = _HEAD.unpack(self._exactly(_HEAD.size))
        message = pickle.loads(self._exactly(size))
        if not isinstance(message, tuple) or not message:
            raise PipeClosed(f"not a message: {type(message).__name__}")
        return message

    def ready(self, timeout: float) -> bool:
        """True when a message (or the end of the pipe) can be read without waiting."""
        if sys.platform == "win32":  # select takes only sockets there
            return _peek_ready(self._in, timeout)
        readable, _, _ = select.select([self._in], [], [], timeout)
        return bool(readable)

    def close(self) -> None:
        for f in (self._out, self._in):
            with contextlib.suppress(OSError):
                f.close()

    def _write(self, data: bytes) -> None:
        view = memoryview(data)
        while view:
            written = self._out.write(view)
            if written is None:  # a raw pipe that would block: wait until it drains
                select.select([], [self._out], [])
                continue
            view = view[written:]

    def _exactly(self, size: int) -> bytearray:
        buffer = bytearray(size)
        view = memoryview(buffer)
        got = 0
        while got < size:
            try:
                n = self._in.readinto(view[got:])  # type: ignore[attr-defined]
            except (OSError, ValueError) as exc:
                raise PipeClosed(str(exc)) from exc
            if not n:
                raise PipeClosed("the other end of the import's pipe closed")
            got += n
        return buffer


WINDOWS_POLL_S = 0.005


if sys.platform == "win32":
    def _peek_ready(f: BinaryIO, timeout: float) -> bool:
        """Windows: whether the pipe holds bytes (or is broken), asked until ``timeout``."""
        import _winapi
        import msvcrt

        handle = msvcrt.get_osfhandle(f.fileno())
        end = time.monotonic() + timeout
        while True:
            try:
                available, _ = _winapi.PeekNamedPipe(handle, 0)
            except OSError:  # the other end closed: reading says so at once
                return True
            if available:
                return True
            left = end - time.monotonic()
            if left <= 0:
                return False
            time.sleep(min(WINDOWS_POLL_S, left))


def widen(end: BinaryIO) -> int | None:
    """Let the pipe behind ``end`` hold :data:`PIPE_BYTES`; its size now, or None where a
    pipe's size is fixed (not Linux, not a pipe, or a limit set lower)."""
    set_size = getattr(fcntl, "F_SETPIPE_SZ", None) if fcntl is not None else None
    if set_size is None:
        return None
    try:
        return int(fcntl.fcntl(end.fileno(), set_size, PIPE_BYTES))
    except (OSError, ValueError) as exc:  # not a pipe, or a lower limit: only slower
        log.debug("a pipe keeps its size (%s)", exc)
        return None


def encode(*message: Any) -> bytes:
    """``message`` as :meth:`Pipe.send` sends it, without its length."""
    return pickle.dumps(message, protocol=pickle.HIGHEST_PROTOCOL)


def raw(fd: int, mode: str) -> BinaryIO:
    """An unbuffered file object on ``fd`` (the pipe's end)."""
    f = os.fdopen(fd, mode, buffering=0)
    return f  # type: ignore[return-value]


def child_command(module: str) -> list[str]:
    """The command that runs ``module`` in a process of its own, on this interpreter.

    ``-P``: the current folder is not put first on the module path, so a child started from
    a folder holding another ``explorer`` (a checkout of another version) runs the same
    code as this process (:func:`child_env` puts this one first), not that one. A bundle
    has no ``python -m``: its entry point knows the modules by these words
    (``packaging/convo_main.py``)."""
    if getattr(sys, "frozen", False):
        return [sys.executable, "-m", module]
    return [sys.executable, "-P", "-m", module]


def child_env() -> dict[str, str]:
    """The environment for a process the window starts (an import's reader, the turn
    graph's builder): the window's, with this checkout first on the path (an editable or
    a source run finds the same package), and this process's bytecode cache.

    Where the app keeps compiled modules in its own folder (``bytecode.use_user_cache``:
    ``PYTHONDONTWRITEBYTECODE`` set, or a read-only installation), a child told nothing
    compiled every module it imported from source at each start: 0.1-0.3 s of CPU per
    reading process of an import, on both cores at once."""
    env = dict(os.environ)
    root = str(Path(explorer.__file__).resolve().parent.parent)
    env["PYTHONPATH"] = os.pathsep.join(p for p in (root, env.get("PYTHONPATH")) if p)
    if sys.pycache_prefix is not None:
        env.setdefault("PYTHONPYCACHEPREFIX", sys.pycache_prefix)
        if not sys.dont_write_bytecode:
            env.pop("PYTHONDONTWRITEBYTECODE", None)
    return env


BELOW_NORMAL = 0x4000
"""Windows' ``BELOW_NORMAL_PRIORITY_CLASS`` (``subprocess`` names it there only)."""


def yielding() -> dict[str, Any]:
    """What ``subprocess.Popen`` needs for a child that yields the cores to the window: on
    Windows a lower priority class from its start (``os.nice``, which the children call
    themselves elsewhere, is POSIX only); nothing elsewhere."""
    if sys.platform == "win32":
        return {"creationflags": BELOW_NORMAL}
    return {}


def window_pipe() -> Pipe:
    """A child's end of its pipe to the window: stdin in, the real stdout out. From here on
    anything the program prints goes to stderr (or nowhere), never into the pipe."""
    protocol_out = os.dup(1)
    devnull = os.open(os.devnull, os.O_WRONLY)
    try:
        os.dup2(2, 1)
    except OSError:  # a windowed program may have no stderr
        os.dup2(devnull, 1)
    os.close(devnull)
    return Pipe(raw(0, "rb"), raw(protocol_out, "wb"))
