"""Messages that came in while a session is followed, marked "live" in the graph and transcript.

Each message a poll stored is marked when it arrives, one by one, with a green
"live" pill on its card and a green halo on its node. The mark fades over
:data:`FADE_S` seconds, or goes at once when the person selects the message (it
has been seen). Marking never selects or scrolls anything: the person's place
stays theirs. One timer ticks only while marks are showing.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Iterable, Sequence

from PySide6.QtCore import QObject, QPointF, QRectF, Qt, QTimer, Signal
from PySide6.QtGui import QColor, QFont, QPainter, QPen

LIVE_COLOR = QColor("#2f9e44")
FADE_S = 30.0
"""Seconds a live mark takes to fade away when nobody looks at the message."""
TICK_MS = 1000
MIN_STRENGTH = 0.35
"""How faint a mark gets before it goes: it stays visible until it is gone."""


class LiveMarks(QObject):
    """Marked messages and when each arrived; ``changed`` carries {message id: strength}."""

    changed = Signal(object)  # dict[int, float]; a dict signal would need string keys

    def __init__(self, parent: QObject | None = None,
                 clock: Callable[[], float] = time.monotonic) -> None:
        super().__init__(parent)
        self.clock = clock
        self.arrived: dict[int, float] = {}
        self.timer = QTimer(self)
        self.timer.setInterval(TICK_MS)
        self.timer.timeout.connect(self.tick)

    def add(self, mids: Iterable[int]) -> None:
        now = self.clock()
        for mid in mids:
            self.arrived[mid] = now
        self._publish()

    def seen(self, mid: int) -> None:
        """The person selected ``mid``: its mark has done its job."""
        if self.arrived.pop(mid, None) is not None:
            self._publish()

    def clear(self) -> None:
        if self.arrived:
            self.arrived.clear()
            self._publish()
        self.timer.stop()

    def strengths(self) -> dict[int, float]:
        now = self.clock()
        return {mid: max(MIN_STRENGTH, 1.0 - (now - at) / FADE_S)
                for mid, at in self.arrived.items() if now - at < FADE_S}

    def tick(self) -> None:
        now = self.clock()
        self.arrived = {m: at for m, at in self.arrived.items() if now - at < FADE_S}
        self._publish()

    def _publish(self) -> None:
        marks = self.strengths()
        if marks and not self.timer.isActive():
            self.timer.start()
        elif not marks:
            self.timer.stop()
        self.changed.emit(marks)


def _faded(strength: float, alpha: int = 255) -> QColor:
    color = QColor(LIVE_COLOR)
    color.setAlpha(round(alpha * strength))
    return color


def paint_live_badge(painter: QPainter, rect: QRectF, strength: float, offset: float = 0.0) -> None:
    """A "live" pill in a card's bottom right corner (the top right holds the date), left of
    ``offset`` pixels already used, and a green outline."""
    font = QFont()
    font.setPixelSize(11)
    font.setBold(True)
    painter.setFont(font)
    width = painter.fontMetrics().horizontalAdvance("live") + 16
    pill = QRectF(rect.right() - width - 8 - offset, rect.bottom() - 24, width, 18)
    painter.setPen(Qt.PenStyle.NoPen)
    painter.setBrush(_faded(strength))
    painter.drawRoundedRect(pill, 9, 9)
    painter.setPen(QColor(255, 255, 255, round(255 * strength)))
    painter.drawText(pill, Qt.AlignmentFlag.AlignCenter, "live")
    pen = QPen(_faded(strength, 200), 2.0)
    painter.setPen(pen)
    painter.setBrush(Qt.BrushStyle.NoBrush)
    painter.drawRoundedRect(rect.adjusted(1, 1, -1, -1), 6, 6)


def paint_live_nodes(painter: QPainter, points: Sequence[tuple[float, float, float]],
                     scale: float, box: tuple[float, float] | None) -> None:
    """A green halo around each live node at (x, y, strength): a box outline up close,
    a ring when the tree is drawn as dots."""
    for x, y, strength in points:
        pen = QPen(_faded(strength), 3.0)
        pen.setCosmetic(True)
        painter.setPen(pen)
        painter.setBrush(_faded(strength, 40))
        if box is None:
            r = 9.0 / max(scale, 1e-9)
            painter.drawEllipse(QPointF(x, y), r, r)
        else:
            w, h = box
            painter.drawRoundedRect(QRectF(x - w / 2 - 5, y - h / 2 - 5, w + 10, h + 10), 6, 6)
