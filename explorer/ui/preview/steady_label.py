"""A wrapped label whose height new text does not change, so what sits below stays put.

The context panel sits above the transcript. When a figure arrived, its wrapped lines
(the summary, the status, the cache line) took one more or one fewer line than the
last, the panel's height changed, and the whole transcript below was resized and laid
out again on the main thread. This label keeps room for a few lines from the start
and, at a given width, never asks for less height than it once needed there.
"""

from __future__ import annotations

from PySide6.QtCore import QEvent, QSize, Qt
from PySide6.QtWidgets import QLabel, QWidget

REMEMBERED_WIDTHS = 64  # widths whose tallest height is kept (a resized pane asks many)


class SteadyLabel(QLabel):
    """A word-wrapped, top-aligned label with room for ``lines`` lines."""

    def __init__(self, text: str = "", lines: int = 2, parent: QWidget | None = None) -> None:
        super().__init__(text, parent)
        self.setWordWrap(True)
        self.setAlignment(Qt.AlignmentFlag.AlignLeft | Qt.AlignmentFlag.AlignTop)
        self.lines = lines
        self._tallest: dict[int, int] = {}

    def reserved(self) -> int:
        """The height of ``lines`` lines in the label's font, with its margins."""
        m = self.contentsMargins()
        return self.lines * self.fontMetrics().lineSpacing() + m.top() + m.bottom()

    def heightForWidth(self, width: int) -> int:
        need = max(super().heightForWidth(width), self.reserved())
        kept = self._tallest.get(width, 0)
        if need > kept:
            if len(self._tallest) >= REMEMBERED_WIDTHS:
                self._tallest.clear()
            self._tallest[width] = need
        return max(need, kept)

    def minimumSizeHint(self) -> QSize:
        hint = super().minimumSizeHint()
        return QSize(hint.width(), max(hint.height(), self.reserved()))

    def sizeHint(self) -> QSize:
        hint = super().sizeHint()
        return QSize(hint.width(), max(hint.height(), self.reserved()))

    def changeEvent(self, event: QEvent) -> None:
        if event.type() in (QEvent.Type.FontChange, QEvent.Type.StyleChange):
            self._tallest.clear()  # a new font or style: heights are measured again
        super().changeEvent(event)
