"""Hold back a background job until the window's first frame and its loads are done.

Python threads share one interpreter lock: every worker that runs Python beside the
transcript's and the graph's loads takes turns from the main thread too, so its
frames wait (V2: no stall over 50 ms). Work nobody is waiting for (the context
figure) therefore starts once the window is painted and its views have loaded.
The newest offer replaces one still held; a load that never settles holds it at most
``MAX_HOLD_MS``.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from typing import Generic, TypeVar

from PySide6.QtCore import QObject, QTimer

T = TypeVar("T")
POLL_MS = 100
MAX_HOLD_MS = 15_000


class QuietGate(QObject, Generic[T]):
    """Hands the newest offered job to ``run`` once ``painted()`` was called and nothing
    is busy."""

    def __init__(self, run: Callable[[T], object], *,
                 painted: bool = True, parent: QObject | None = None) -> None:
        super().__init__(parent)
        self._run = run
        self._painted = painted
        self._busy: Callable[[], bool] = lambda: False
        self._held: T | None = None
        self._since = 0.0
        self._timer = QTimer(self, singleShot=True, interval=POLL_MS)
        self._timer.timeout.connect(self._try)

    def wait_for(self, busy: Callable[[], bool]) -> None:
        """Hold offers while ``busy()`` is true (polled, so a missed signal cannot strand one)."""
        self._busy = busy

    @property
    def holding(self) -> bool:
        return self._held is not None

    def offer(self, job: T) -> None:
        if self._held is None:
            self._since = time.monotonic()
        self._held = job
        self._try()

    def painted(self) -> None:
        """The first frame is on screen: held work may go once the event loop turns."""
        if not self._painted:
            self._painted = True
            QTimer.singleShot(0, self._try)

    def drop(self) -> None:
        self._held = None
        self._timer.stop()

    def _try(self) -> None:
        if self._held is None or not self._painted:
            return
        waited_ms = (time.monotonic() - self._since) * 1000
        if self._busy() and waited_ms < MAX_HOLD_MS:
            if not self._timer.isActive():
                self._timer.start()
            return
        job, self._held = self._held, None
        self._run(job)
