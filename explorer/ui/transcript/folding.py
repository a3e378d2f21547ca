"""Long parts: a first screenful in the card, the whole text on request (V2).

A part longer than the store's fold limit arrives cut there; laying out even that
much rich text costs a frame or three on the main thread, and a 10 MB paste would
cost seconds. So a folded part's card shows only its first screenful, cut at a
line boundary, and a note with the real size. "Show all" reads the whole text off
the main thread and shows it in place in a :class:`WholeText`: a read-only plain
text view (its layout is per block and lazy) of bounded height that scrolls on
its own, filled a slice per event-loop turn, so no turn lays out megabytes.
"""

from __future__ import annotations

import math

from PySide6.QtCore import QObject, QSize, Qt, QTimer, Signal
from PySide6.QtGui import (
    QColor,
    QContextMenuEvent,
    QFontDatabase,
    QMouseEvent,
    QPalette,
    QTextCursor,
    QTextOption,
    QWheelEvent,
)
from PySide6.QtWidgets import (
    QDialog,
    QFrame,
    QHBoxLayout,
    QLabel,
    QPlainTextEdit,
    QSizePolicy,
    QToolButton,
    QVBoxLayout,
    QWidget,
)

SCREEN_CHARS = 3_000
"""What a folded part shows before "Show all": about a screenful of text."""
SLICE_CHARS = 32_000
"""Characters put into a :class:`WholeText` per event-loop turn (a few ms of work)."""
WHOLE_MAX_HEIGHT = 560
"""Tallest a part shown whole gets in the transcript; beyond it the part scrolls itself."""
MEASURED_CHARS = 200_000
"""Texts longer than this are not measured line by line: they take the full height."""


def first_screenful(text: str, limit: int = SCREEN_CHARS) -> str:
    """The start of ``text`` up to ``limit`` characters, cut at the last line break (or
    else the last space) in its second half, so the shown part ends where a line does."""
    if len(text) <= limit:
        return text
    cut = text.rfind("\n", limit // 2, limit + 1)
    if cut < 0:
        cut = text.rfind(" ", limit // 2, limit + 1)
    return text[:cut if cut >= 0 else limit]


def format_size(chars: int) -> str:
    """A character count the way people read file sizes."""
    if chars >= 1_000_000:
        return f"{chars / 1_000_000:.1f} M characters"
    if chars >= 10_000:
        return f"{chars // 1000:,} k characters"
    return f"{chars:,} characters"


def _button(text: str, parent: QWidget) -> QToolButton:
    button = QToolButton(parent)
    button.setAutoRaise(True)
    button.setText(text)
    return button


class FoldedNote(QWidget):
    """Under a folded part: how much of it is shown, "Show all" and "Open in window".

    ``expand`` asks for the whole text in place (read off the main thread), ``collapse``
    for the first screenful again, ``unfold`` for the whole text in a window of its own.
    """

    unfold = Signal()
    expand = Signal()
    collapse = Signal()

    def __init__(self, total: int, shown: int, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.total = total
        self.shown = shown
        self.whole = False
        layout = QHBoxLayout(self)
        layout.setContentsMargins(0, 0, 0, 0)
        self.label = QLabel(self)
        self.label.setWordWrap(True)  # a narrow card wraps the words instead of cutting them
        self.label.setTextFormat(Qt.TextFormat.PlainText)
        font = self.label.font()
        font.setPointSizeF(font.pointSizeF() * 0.9)
        font.setBold(True)
        self.label.setFont(font)
        self.label.setForegroundRole(QPalette.ColorRole.PlaceholderText)
        self.show_all = _button("", self)
        self.show_all.setObjectName("show_all")
        self.show_all.clicked.connect(self._toggle)
        self.button = _button("Open in window", self)
        self.button.setToolTip("Read the whole text in a window of its own")
        self.button.clicked.connect(self.unfold)
        layout.addWidget(self.label, 1)  # the words take the room the buttons leave
        layout.addWidget(self.show_all)
        layout.addWidget(self.button)
        self.set_state("folded")

    def set_state(self, state: str) -> None:
        """``folded`` (first screenful), ``reading`` (the rest is on its way) or ``whole``.

        The words are short, so a narrow card shows them whole; the exact count is in the
        button's tooltip."""
        self.whole = state == "whole"
        if state == "whole":
            self.label.setText(f"⋯ all {format_size(self.total)} shown")
            self.show_all.setText("Show less")
            self.show_all.setToolTip("Fold it back to its first screenful")
        else:
            self.label.setText(f"⋯ {self.shown:,} of {format_size(self.total)} shown")
            self.show_all.setText("Reading…" if state == "reading" else "Show all")
            self.show_all.setToolTip(f"Show all {self.total:,} characters here")
        self.show_all.setEnabled(state != "reading")

    def _toggle(self) -> None:
        if self.whole:
            self.collapse.emit()
        else:
            self.set_state("reading")
            self.expand.emit()


class SlicedFill(QObject):
    """Puts a long text into a plain-text view a slice per event-loop turn, so no turn lays
    out megabytes; ``filled`` fires after the last slice (at once for a short text)."""

    filled = Signal()

    def __init__(self, view: QPlainTextEdit, text: str) -> None:
        super().__init__(view)
        self._view, self._text, self._at = view, text, 0
        self._cursor = QTextCursor(view.document())
        self._timer = QTimer(self, singleShot=False, interval=0)
        self._timer.timeout.connect(self._step)

    @property
    def done(self) -> bool:
        return self._at >= len(self._text)

    def start(self) -> None:
        """The first slice now, the rest on the following turns."""
        self._step()
        if not self.done:
            self._timer.start()

    def stop(self) -> None:
        self._timer.stop()

    def _step(self) -> None:
        piece = self._text[self._at:self._at + SLICE_CHARS]  # an offset: no copy of the rest
        self._at += len(piece)
        self._cursor.movePosition(QTextCursor.MoveOperation.End)
        self._cursor.insertText(piece)
        if self.done:
            self._timer.stop()
            self._view.moveCursor(QTextCursor.MoveOperation.Start)
            self.filled.emit()


class WholeText(QPlainTextEdit):
    """A part's whole text, selectable and copyable, at most ``WHOLE_MAX_HEIGHT`` tall.

    The text goes in a slice per event-loop turn (``filled`` fires after the last);
    the wheel scrolls it while it can scroll, then the transcript around it.
    """

    filled = Signal()
    pressed = Signal()

    def __init__(self, text: str, mono: bool, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setReadOnly(True)
        self.setFrameShape(QFrame.Shape.NoFrame)
        self.setHorizontalScrollBarPolicy(Qt.ScrollBarPolicy.ScrollBarAlwaysOff)
        self.setWordWrapMode(QTextOption.WrapMode.WrapAtWordBoundaryOrAnywhere)
        if mono:
            self.setFont(QFontDatabase.systemFont(QFontDatabase.SystemFont.FixedFont))
        pal = self.palette()
        pal.setColor(QPalette.ColorRole.Base, QColor(0, 0, 0, 0))
        self.setPalette(pal)
        self.viewport().setAutoFillBackground(False)
        policy = QSizePolicy(QSizePolicy.Policy.Expanding, QSizePolicy.Policy.Fixed)
        policy.setHeightForWidth(True)
        self.setSizePolicy(policy)
        self.total = len(text)
        self._lines = ([len(line) for line in text.split("\n")]
                       if len(text) <= MEASURED_CHARS else None)
        self._fill = SlicedFill(self, text)
        self._fill.filled.connect(self.filled)
        self._fill.start()

    @property
    def is_filled(self) -> bool:
        return self._fill.done

    def stop(self) -> None:
        """Stop filling (the card is going away)."""
        self._fill.stop()

    def hasHeightForWidth(self) -> bool:
        return True

    def heightForWidth(self, width: int) -> int:
        """Lines as they wrap at ``width`` (a close estimate), up to the maximum."""
        if self._lines is None:
            return WHOLE_MAX_HEIGHT
        fm = self.fontMetrics()
        per_line = max(1, int((width - 12) / max(fm.averageCharWidth(), 1.0)))
        lines = sum(max(1, math.ceil(n / per_line)) for n in self._lines)
        margin = 2 * round(self.document().documentMargin()) + 2 * self.frameWidth()
        return min(WHOLE_MAX_HEIGHT, lines * fm.lineSpacing() + margin + 4)

    def sizeHint(self) -> QSize:
        width = max(self.width(), 200)
        return QSize(width, self.heightForWidth(width))

    def wheelEvent(self, event: QWheelEvent) -> None:
        bar = self.verticalScrollBar()
        up = event.angleDelta().y() > 0
        if (bar.value() > bar.minimum()) if up else (bar.value() < bar.maximum()):
            super().wheelEvent(event)
        else:
            event.ignore()

    def contextMenuEvent(self, event: QContextMenuEvent) -> None:
        event.ignore()

    def mousePressEvent(self, event: QMouseEvent) -> None:
        self.pressed.emit()
        super().mousePressEvent(event)


class LongTextDialog(QDialog):
    """A whole long part in a plain-text viewer (laid out lazily, so megabytes stay usable),
    filled a slice per turn: it opens at once and the window stays live while it fills."""

    def __init__(self, title: str, text: str, parent: QWidget | None) -> None:
        super().__init__(parent)
        self.setAttribute(Qt.WidgetAttribute.WA_DeleteOnClose)
        self.setWindowTitle(title)
        self.view = QPlainTextEdit(self)
        self.view.setReadOnly(True)
        self.view.setLineWrapMode(QPlainTextEdit.LineWrapMode.NoWrap)
        self.fill = SlicedFill(self.view, text)
        self.fill.start()
        layout = QVBoxLayout(self)
        layout.setContentsMargins(0, 0, 0, 0)
        layout.addWidget(self.view)
        self.resize(1000, 760)
