"""Run a step once a window's first frame is on screen.

Starting a conversation's loads while the window is still being built and shown puts
their workers beside the first frame: on two cores their Python takes turns with the
main thread, and the first paint waits (V2: the window comes first, data after). The
app therefore opens the remembered conversation one event-loop turn after the first
paint, and the views fill in as their pieces arrive.
"""

from __future__ import annotations

from collections.abc import Callable

from PySide6.QtCore import QEvent, QObject, QTimer
from PySide6.QtWidgets import QWidget


class AfterFirstPaint(QObject):
    """Calls ``step`` once, on the event-loop turn after ``widget`` first paints.

    ``pending`` stays true until then; :meth:`run_now` runs it at once instead (a
    conversation chosen before the first frame replaces it: :meth:`cancel`)."""

    def __init__(self, widget: QWidget, step: Callable[[], object]) -> None:
        super().__init__(widget)
        self._widget = widget
        self._step: Callable[[], object] | None = step
        widget.installEventFilter(self)

    @property
    def pending(self) -> bool:
        return self._step is not None

    def cancel(self) -> None:
        self._step = None
        self._widget.removeEventFilter(self)

    def run_now(self) -> None:
        step = self._step
        self.cancel()
        if step is not None:
            step()

    def eventFilter(self, watched: QObject, event: QEvent) -> bool:
        if watched is self._widget and event.type() == QEvent.Type.Paint and self.pending:
            self._widget.removeEventFilter(self)
            QTimer.singleShot(0, self, self.run_now)  # after this frame is composed
        return False
