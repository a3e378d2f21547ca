"""A one-line label that never widens what holds it: cut with an ellipsis, whole in its tooltip.

A plain ``QLabel`` asks for the width of its whole text; in a strip over the transcript that
request pushes the window's splitter until the graph pane is a sliver. This label asks for
nothing and fits its text to the width it is given.
"""

from __future__ import annotations

from PySide6.QtCore import Qt
from PySide6.QtGui import QResizeEvent
from PySide6.QtWidgets import QLabel, QSizePolicy


class ElidedLabel(QLabel):
    """One line cut with an ellipsis to the width it is given (never widening its bar)."""

    def __init__(self) -> None:
        super().__init__()
        self.full = ""
        self.setTextFormat(Qt.TextFormat.PlainText)
        self.setMinimumWidth(80)
        self.setSizePolicy(QSizePolicy.Policy.Ignored, QSizePolicy.Policy.Preferred)

    def set_full(self, text: str) -> None:
        self.full = text
        self.setToolTip(text)
        self._fit()

    def resizeEvent(self, event: QResizeEvent) -> None:
        super().resizeEvent(event)
        self._fit()

    def _fit(self) -> None:
        self.setText(self.fontMetrics().elidedText(
            self.full, Qt.TextElideMode.ElideRight, max(40, self.width())))
