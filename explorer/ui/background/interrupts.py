"""Ctrl+C in the terminal that started the window, or a TERM from the session, closes
the window the way its close button does.

Qt's event loop runs in C++, where Python's signal handlers never get a turn: without
this, Ctrl+C did nothing and a TERM killed the process between two writes of the store's
writer (each whole, but the window's place and the work in flight were lost). The signal
wakes a socket the event loop watches (``signal.set_wakeup_fd``), so the close happens
at once, without a timer polling.
"""

from __future__ import annotations

import contextlib
import signal
import socket
from collections.abc import Callable
from types import FrameType

from PySide6.QtCore import QSocketNotifier
from PySide6.QtWidgets import QWidget

SIGNALS = tuple(s for s in (signal.SIGINT, getattr(signal, "SIGTERM", None)) if s is not None)


def close_on_signals(window: QWidget) -> Callable[[], None]:
    """Close ``window`` on SIGINT or SIGTERM; returns what puts the handlers back."""
    ours, wakes = socket.socketpair()
    for end in (ours, wakes):
        end.setblocking(False)
    asked: list[int] = []

    def handler(signum: int, _frame: FrameType | None) -> None:
        asked.append(signum)  # only noted: the close runs when the loop wakes

    def woken() -> None:
        with contextlib.suppress(OSError):
            ours.recv(64)
        if asked:
            asked.clear()
            window.close()

    try:
        before_fd = signal.set_wakeup_fd(wakes.fileno())
    except ValueError:  # not the main thread: leave the signals alone
        ours.close()
        wakes.close()
        return lambda: None
    notifier = QSocketNotifier(ours.fileno(), QSocketNotifier.Type.Read, window)
    notifier.activated.connect(woken)
    before = {s: signal.signal(s, handler) for s in SIGNALS}

    def restore() -> None:
        notifier.setEnabled(False)
        for s, h in before.items():
            signal.signal(s, h)
        signal.set_wakeup_fd(before_fd)
        ours.close()
        wakes.close()

    return restore
