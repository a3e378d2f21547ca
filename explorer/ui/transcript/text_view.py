"""Message text without a text browser: a document painted by a plain widget.

Most parts are a few lines of prose. As a :class:`~.markdown.DocumentView` each
costs a QTextBrowser (a scroll area with two scroll bars, a viewport, a text
control and a document of its own), the larger part of a card's cost on the
main thread while a reader scrolls. :class:`TextView` renders the same
:class:`~.markdown.SafeDocument` (so the same Markdown, the same fonts and
colours, and the same refusal of every remote resource) and paints it itself,
with what a reader does with text: select it by dragging, a double click
selects a word, copy with the keyboard, click a link (which, as in the
browser view, follows nothing: ``anchorClicked`` only says which). Text with
fenced code keeps the full view, which adds per-block copy buttons.
"""

from __future__ import annotations

import math
from typing import cast

from PySide6.QtCore import QEvent, QPointF, QRect, QRectF, QSize, Qt, QUrl, Signal
from PySide6.QtGui import (
    QAbstractTextDocumentLayout,
    QContextMenuEvent,
    QFocusEvent,
    QFontDatabase,
    QGuiApplication,
    QKeyEvent,
    QKeySequence,
    QMouseEvent,
    QPainter,
    QPaintEvent,
    QPalette,
    QTextCharFormat,
    QTextCursor,
    QTextOption,
)
from PySide6.QtWidgets import QSizePolicy, QWidget

from explorer.ui.transcript.highlight import CodeHighlighter
from explorer.ui.transcript.markdown import SafeDocument


def plain_enough(text: str) -> bool:
    """True when ``text`` needs nothing only the full view has (fenced code blocks)."""
    return "```" not in text and "~~~" not in text


class TextView(QWidget):
    """Read-only Markdown, selectable and copyable, exactly as tall as its content."""

    pressed = Signal()
    anchorClicked = Signal(QUrl)

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.safe_document = SafeDocument(self)
        self.safe_document.setDocumentMargin(2)
        self.safe_document.setDefaultFont(self.font())
        self._cursor = QTextCursor(self.safe_document)
        self._press_anchor = ""
        self._dragging = False
        self.setFocusPolicy(Qt.FocusPolicy.ClickFocus)
        self.setCursor(Qt.CursorShape.IBeamCursor)
        self.setMouseTracking(True)
        policy = QSizePolicy(QSizePolicy.Policy.Expanding, QSizePolicy.Policy.Preferred)
        policy.setHeightForWidth(True)
        self.setSizePolicy(policy)

    # -- content ------------------------------------------------------------------
    def set_markdown(self, text: str) -> None:
        self.safe_document.set_markdown_text(text)
        self._cursor = QTextCursor(self.safe_document)
        self.updateGeometry()

    def set_code(self, text: str, language: str | None = None) -> None:
        """Plain monospace text (tool arguments and output), optionally highlighted."""
        self.setFont(QFontDatabase.systemFont(QFontDatabase.SystemFont.FixedFont))
        self.safe_document.setDefaultFont(self.font())
        option = self.safe_document.defaultTextOption()
        option.setWrapMode(QTextOption.WrapMode.WrapAtWordBoundaryOrAnywhere)
        self.safe_document.setDefaultTextOption(option)
        if language and self.safe_document.highlighter is None:
            self.safe_document.highlighter = CodeHighlighter(self.safe_document, language)
        self.safe_document.setPlainText(text)
        self._cursor = QTextCursor(self.safe_document)
        self.updateGeometry()

    def document(self) -> SafeDocument:
        return self.safe_document

    def toPlainText(self) -> str:
        return self.safe_document.toPlainText()

    def viewport(self) -> QWidget:
        """The widget that takes the mouse (this one: there is no scroll area)."""
        return self

    def textCursor(self) -> QTextCursor:
        return QTextCursor(self._cursor)

    def cursorRect(self, position: int) -> QRect:
        """Where the text cursor at ``position`` would be drawn (for tests and tooltips)."""
        self.safe_document.setTextWidth(max(1, self.width()))
        block = self.safe_document.findBlock(position)
        layout = block.layout()
        line = layout.lineForTextPosition(position - block.position())
        if not line.isValid():
            return QRect()
        found = line.cursorToX(position - block.position())
        x = cast(float, found[0] if isinstance(found, tuple) else found)
        top = layout.position().y() + line.y()
        return QRect(round(layout.position().x() + x), round(top), 1, round(line.height()))

    def selected_text(self) -> str:
        return self._cursor.selection().toPlainText() if self._cursor.hasSelection() else ""

    # -- size ---------------------------------------------------------------------
    def hasHeightForWidth(self) -> bool:
        return True

    def heightForWidth(self, width: int) -> int:
        self.safe_document.setTextWidth(max(1, width))
        return math.ceil(self.safe_document.size().height())

    def sizeHint(self) -> QSize:
        width = max(self.width(), 200)
        return QSize(width, self.heightForWidth(width))

    def minimumSizeHint(self) -> QSize:
        return QSize(50, 0)

    # -- painting -----------------------------------------------------------------
    def paintEvent(self, event: QPaintEvent) -> None:
        if self.safe_document.textWidth() != self.width():
            self.safe_document.setTextWidth(max(1, self.width()))
        painter = QPainter(self)  # clipped to the event's region already
        context = QAbstractTextDocumentLayout.PaintContext()
        context.palette = self.palette()
        context.clip = QRectF(event.rect())
        if self._cursor.hasSelection():
            group = (QPalette.ColorGroup.Active if self.hasFocus()
                     else QPalette.ColorGroup.Inactive)
            chosen = QTextCharFormat()
            chosen.setBackground(self.palette().color(group, QPalette.ColorRole.Highlight))
            chosen.setForeground(self.palette().color(group, QPalette.ColorRole.HighlightedText))
            selection = QAbstractTextDocumentLayout.Selection()
            selection.cursor = self._cursor
            selection.format = chosen
            context.selections = [selection]
        self.safe_document.documentLayout().draw(painter, context)

    def changeEvent(self, event: QEvent) -> None:
        if event.type() == QEvent.Type.FontChange:
            self.safe_document.setDefaultFont(self.font())
            self.updateGeometry()
        super().changeEvent(event)

    # -- selecting, copying, links --------------------------------------------------
    def _position(self, point: QPointF) -> int:
        layout = self.safe_document.documentLayout()
        return max(0, layout.hitTest(point, Qt.HitTestAccuracy.FuzzyHit))

    def _anchor(self, point: QPointF) -> str:
        return self.safe_document.documentLayout().anchorAt(point)

    def mousePressEvent(self, event: QMouseEvent) -> None:
        self.pressed.emit()
        if event.button() != Qt.MouseButton.LeftButton:
            event.ignore()
            return
        at = self._position(event.position())
        mode = (QTextCursor.MoveMode.KeepAnchor
                if event.modifiers() & Qt.KeyboardModifier.ShiftModifier
                else QTextCursor.MoveMode.MoveAnchor)
        self._cursor.setPosition(at, mode)
        self._press_anchor = self._anchor(event.position())
        self._dragging = True
        self.update()
        event.accept()

    def mouseMoveEvent(self, event: QMouseEvent) -> None:
        if self._dragging and event.buttons() & Qt.MouseButton.LeftButton:
            self._cursor.setPosition(self._position(event.position()),
                                     QTextCursor.MoveMode.KeepAnchor)
            self.update()
        else:
            link = bool(self._anchor(event.position()))
            self.setCursor(Qt.CursorShape.PointingHandCursor if link
                           else Qt.CursorShape.IBeamCursor)
        event.accept()

    def mouseReleaseEvent(self, event: QMouseEvent) -> None:
        self._dragging = False
        if self._cursor.hasSelection():
            clipboard = QGuiApplication.clipboard()
            if clipboard.supportsSelection():
                clipboard.setText(self.selected_text(), clipboard.Mode.Selection)
        elif self._press_anchor and self._press_anchor == self._anchor(event.position()):
            self.anchorClicked.emit(QUrl(self._press_anchor))
        self._press_anchor = ""
        event.accept()

    def mouseDoubleClickEvent(self, event: QMouseEvent) -> None:
        self._cursor.setPosition(self._position(event.position()))
        self._cursor.select(QTextCursor.SelectionType.WordUnderCursor)
        self.update()
        event.accept()

    def keyPressEvent(self, event: QKeyEvent) -> None:
        if event.matches(QKeySequence.StandardKey.Copy):
            self.copy()
        elif event.matches(QKeySequence.StandardKey.SelectAll):
            self.selectAll()
        else:
            event.ignore()
            return
        event.accept()

    def selectAll(self) -> None:
        self._cursor.select(QTextCursor.SelectionType.Document)
        self.update()

    def copy(self) -> None:
        """The selection to the clipboard, as plain text."""
        if not self._cursor.hasSelection():
            return
        QGuiApplication.clipboard().setText(self.selected_text())

    def focusInEvent(self, event: QFocusEvent) -> None:
        self.update()
        super().focusInEvent(event)

    def focusOutEvent(self, event: QFocusEvent) -> None:
        self.update()
        super().focusOutEvent(event)

    def contextMenuEvent(self, event: QContextMenuEvent) -> None:
        event.ignore()  # the card's menu
