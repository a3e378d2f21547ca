"""One place every failure goes (E1): a rotating log file a person can find, and listeners.

``install()`` routes whatever would otherwise vanish into ``convo.log`` in the user data
folder (or ``$CONVO_LOG_DIR``): uncaught exceptions on any thread (``sys.excepthook``,
``threading.excepthook``), an asyncio loop's unhandled errors, and a hard crash's stack
(``faulthandler``, into ``crash.log`` beside it).

Every ERROR record of the ``explorer`` loggers is a failure a person must hear of: besides
the log file it goes, as one line and its details, to every listener (the window's error
bar). So a layer that knows nothing of windows (the store's writer, a kept view) only
logs, and :func:`report` is the same thing for code that caught an exception. Secrets the
redaction rules know are masked in every log line and every detail shown.
"""

from __future__ import annotations

import contextlib
import faulthandler
import logging
import logging.handlers
import os
import sys
import threading
import traceback
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from types import TracebackType
from typing import Any

import platformdirs

from explorer.app.after_import import after_import, forget
from explorer.app.locations import APP_NAME
from explorer.tree.secrets import redact_text

LOG_NAME = "convo.log"
CRASH_NAME = "crash.log"
MAX_BYTES = 2_000_000
BACKUPS = 4
log = logging.getLogger("explorer")


@dataclass(frozen=True)
class Failure:
    """What a person is shown: one line, and the details to copy into a report."""

    summary: str
    details: str


Listener = Callable[[Failure], None]
_listeners: list[Listener] = []
_state: dict[str, Any] = {}
_lock = threading.Lock()


def log_dir() -> Path:
    """``$CONVO_LOG_DIR``, else ``logs`` in the user data folder (beside the database)."""
    env = os.environ.get("CONVO_LOG_DIR")
    if env:
        return Path(env)
    return Path(platformdirs.user_data_dir(APP_NAME, appauthor=False)) / "logs"


def log_path() -> Path:
    return log_dir() / LOG_NAME


class _Redacting(logging.Formatter):
    """Formats as usual, then masks what the secret rules find (keys, tokens, passwords)."""

    def format(self, record: logging.LogRecord) -> str:
        return redact_text(super().format(record))[0]


class _LazyFile(logging.handlers.RotatingFileHandler):
    """Makes its folder and file only when there is a first line to write (a command line
    that goes well leaves nothing behind)."""

    def _open(self):  # type: ignore[no-untyped-def]  # the base's return type is private
        Path(self.baseFilename).parent.mkdir(parents=True, exist_ok=True)
        return super()._open()

    def handleError(self, record: logging.LogRecord) -> None:
        """An unwritable log folder must not turn one failure into two: say it on stderr."""
        with contextlib.suppress(Exception):
            sys.stderr.write(f"convo: note: could not write the log {self.baseFilename}\n")


def install(program: str, *, window: bool = False) -> Path:
    """Route every failure of this process to the log (once; later calls change nothing).

    ``window``: a long-lived process; it notes its start, and a hard crash's stack goes to
    ``crash.log`` (a command line keeps both quiet and leaves no file unless it fails)."""
    with _lock:
        if "installed" in _state:
            return log_path()
        _state["installed"] = program
        handler = _LazyFile(log_path(), maxBytes=MAX_BYTES, backupCount=BACKUPS,
                            encoding="utf-8", delay=True)
        handler.setFormatter(_Redacting("%(asctime)s %(process)d %(threadName)s "
                                        "%(levelname)s %(name)s: %(message)s"))
        log.addHandler(handler)
        log.setLevel(logging.INFO)
        if window:
            _crash_file()
    _state["before"] = (sys.excepthook, threading.excepthook)
    sys.excepthook = _excepthook
    threading.excepthook = _thread_excepthook
    # asyncio only once something imports it (``convo mcp``): 25 ms of every command
    _state["asyncio"] = after_import("asyncio", _report_asyncio)
    if window:
        log.info("%s started (pid %d, Python %s)", program, os.getpid(),
                 sys.version.split()[0])
    return log_path()


def _crash_file() -> None:
    """faulthandler writes a crash's stacks through a descriptor kept open from now on."""
    try:
        log_dir().mkdir(parents=True, exist_ok=True)
        crash = (log_dir() / CRASH_NAME).open("a", encoding="utf-8")
    except OSError as e:  # said: a hard crash would leave no stack behind
        log.warning("no crash log in %s (%s): a hard crash leaves no stack", log_dir(), e)
        return
    _state["crash_file"] = crash
    _state["fault_before"] = faulthandler.is_enabled()
    faulthandler.enable(file=crash, all_threads=True)


def uninstall() -> None:
    """Undo :func:`install` (tests; a process normally keeps it to the end)."""
    with _lock:
        if "installed" not in _state:
            return
        sys.excepthook, threading.excepthook = _state.get(
            "before", (sys.__excepthook__, threading.__excepthook__))
        if not forget(_state.pop("asyncio", None)) and "asyncio" in sys.modules:
            sys.modules["asyncio"].set_event_loop_policy(None)
        for handler in list(log.handlers):
            if isinstance(handler, _LazyFile):
                log.removeHandler(handler)
                handler.close()
        crash = _state.get("crash_file")
        if crash is not None:
            faulthandler.disable()
            if _state.get("fault_before"):
                faulthandler.enable()
            crash.close()
        _state.clear()


def add_listener(listener: Listener) -> Callable[[], None]:
    """Be told of every reported failure (on the thread that reports it); returns the
    function that stops it."""
    _listeners.append(listener)
    return lambda: _listeners.remove(listener) if listener in _listeners else None


def report(summary: str, error: BaseException | None = None, *, show: bool = True) -> Failure:
    """Log ``summary`` with ``error``'s whole traceback; the listeners hear of it (``show``)."""
    log.error("%s", summary, exc_info=error, extra={"quiet": not show})
    return _failure(summary, error)


def _failure(summary: str, error: BaseException | None) -> Failure:
    details = summary if error is None else f"{summary}\n\n{formatted(error)}"
    return Failure(redact_text(summary)[0], redact_text(details)[0])


class _ToListeners(logging.Handler):
    """Every ERROR record (but those marked quiet) reaches the listeners."""

    def __init__(self) -> None:
        super().__init__(logging.ERROR)

    def emit(self, record: logging.LogRecord) -> None:
        if getattr(record, "quiet", False) or not _listeners:
            return
        info = record.exc_info
        error = info[1] if info and isinstance(info[1], BaseException) else None
        failure = _failure(record.getMessage(), error)
        for listener in list(_listeners):
            with contextlib.suppress(Exception):  # a broken listener must not hide the rest
                listener(failure)


log.addHandler(_ToListeners())


def formatted(error: BaseException) -> str:
    return "".join(traceback.format_exception(type(error), error, error.__traceback__))


def one_line(error: BaseException) -> str:
    """The exception in one line a person can act on (its type only when it adds)."""
    text = " ".join(str(error).split())
    return text or type(error).__name__


def _excepthook(kind: type[BaseException], error: BaseException,
                tb: TracebackType | None) -> None:
    if issubclass(kind, KeyboardInterrupt):
        sys.__excepthook__(kind, error, tb)
        return
    error.__traceback__ = tb
    report(f"Unexpected error: {type(error).__name__}: {one_line(error)}", error)


def _thread_excepthook(args: threading.ExceptHookArgs) -> None:
    if args.exc_type is SystemExit or args.exc_value is None:
        return
    name = args.thread.name if args.thread is not None else "a background thread"
    report(f"{name} failed: {type(args.exc_value).__name__}: {one_line(args.exc_value)}",
           args.exc_value)


def _report_asyncio() -> None:
    """Every event loop made from now on reports what its tasks leave unhandled."""
    import asyncio

    def handler(loop: asyncio.AbstractEventLoop, context: dict[str, Any]) -> None:
        error = context.get("exception")
        message = str(context.get("message") or "an asyncio task failed")
        report(f"{message}: {one_line(error)}" if isinstance(error, BaseException)
               else message, error if isinstance(error, BaseException) else None)

    class ReportingPolicy(asyncio.DefaultEventLoopPolicy):
        def new_event_loop(self) -> asyncio.AbstractEventLoop:
            loop = super().new_event_loop()
            loop.set_exception_handler(handler)
            return loop

    asyncio.set_event_loop_policy(ReportingPolicy())
