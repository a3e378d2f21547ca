"""Rendering message text without ever reaching the network.

A transcript is untrusted input: a Markdown image or an ``<img>`` tag pointing
at a server would turn opening a conversation into a request that tells that
server who read it and when. So the document that renders text refuses every
resource that is not an inline ``data:`` URL, and Markdown is read with raw
HTML disabled, which makes any tag show as the literal text it is.
"""

from __future__ import annotations

import base64
import math
from urllib.parse import unquote_to_bytes

from PySide6.QtCore import QObject, QSize, Qt, QUrl, Signal
from PySide6.QtGui import (
    QColor,
    QContextMenuEvent,
    QFontDatabase,
    QGuiApplication,
    QImage,
    QMouseEvent,
    QPalette,
    QResizeEvent,
    QTextCursor,
    QTextDocument,
    QTextFormat,
    QTextOption,
    QWheelEvent,
)
from PySide6.QtWidgets import QFrame, QSizePolicy, QTextBrowser, QWidget

from explorer.ui.transcript.copying import CodeBlock, CopyButton, code_blocks
from explorer.ui.transcript.highlight import CodeHighlighter

MARKDOWN_FEATURES = (
    QTextDocument.MarkdownFeature.MarkdownDialectGitHub
    | QTextDocument.MarkdownFeature.MarkdownNoHTML
)
MAX_DATA_URL_BYTES = 20 * 1024 * 1024


def decode_data_url(url: str) -> bytes | None:
    """The payload of a ``data:`` URL, or None if it is malformed or too large."""
    if not url.startswith("data:") or "," not in url:
        return None
    header, payload = url[5:].split(",", 1)
    if len(payload) > MAX_DATA_URL_BYTES * 4 // 3 + 4:
        return None
    try:
        if header.endswith(";base64"):
            return base64.b64decode(payload, validate=False)
        return unquote_to_bytes(payload)
    except ValueError:
        return None


class SafeDocument(QTextDocument):
    """A text document that loads only inline ``data:`` resources and records what it refused."""

    def __init__(self, parent: QObject | None = None) -> None:
        super().__init__(parent)
        self.refused: list[str] = []
        self.highlighter: CodeHighlighter | None = None

    def loadResource(self, kind: int, name: QUrl | str) -> object:
        url = QUrl(name) if isinstance(name, str) else name
        text = url.toString()
        if url.scheme().lower() != "data":
            self.refused.append(text)
            return None
        data = decode_data_url(text)
        if data is None:
            self.refused.append(text[:80])
            return None
        if kind == QTextDocument.ResourceType.ImageResource.value:
            return QImage.fromData(data)
        return data

    def set_markdown_text(self, text: str) -> None:
        """Markdown with raw HTML shown as text; code blocks are shaded and highlighted.

        The highlighter runs after the whole document is read, because a code
        block learns its language only once its fence has been parsed.
        """
        self.setMarkdown(text, MARKDOWN_FEATURES)
        if "```" in text or "~~~" in text:
            self._shade_code_blocks()
            if self.highlighter is None:
                self.highlighter = CodeHighlighter(self)
            self.highlighter.rehighlight()

    def _shade_code_blocks(self) -> None:
        shade = QGuiApplication.palette().color(QPalette.ColorRole.AlternateBase)
        block = self.begin()
        while block.isValid():
            fmt = block.blockFormat()
            if fmt.hasProperty(QTextFormat.Property.BlockCodeFence):
                fmt.setBackground(shade)
                fmt.setNonBreakableLines(False)  # a long line wraps instead of being cut off
                QTextCursor(block).setBlockFormat(fmt)
            block = block.next()


class DocumentView(QTextBrowser):
    """Read-only, selectable text that is exactly as tall as its content.

    It never scrolls itself: wheel events and context menus go to the card and
    the transcript around it, and links are never followed.
    """

    pressed = Signal()

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.safe_document = SafeDocument(self)
        self.copy_buttons: list[tuple[CopyButton, CodeBlock]] = []
        self.setDocument(self.safe_document)
        self.setOpenLinks(False)
        self.setOpenExternalLinks(False)
        self.setFrameShape(QFrame.Shape.NoFrame)
        self.setVerticalScrollBarPolicy(Qt.ScrollBarPolicy.ScrollBarAlwaysOff)
        self.setHorizontalScrollBarPolicy(Qt.ScrollBarPolicy.ScrollBarAlwaysOff)
        self.document().setDocumentMargin(2)
        pal = self.palette()
        pal.setColor(QPalette.ColorRole.Base, QColor(0, 0, 0, 0))
        self.setPalette(pal)
        self.viewport().setAutoFillBackground(False)
        policy = QSizePolicy(QSizePolicy.Policy.Expanding, QSizePolicy.Policy.Preferred)
        policy.setHeightForWidth(True)
        self.setSizePolicy(policy)

    def set_markdown(self, text: str) -> None:
        self.safe_document.set_markdown_text(text)
        self._add_copy_buttons(text)
        self.updateGeometry()

    def _add_copy_buttons(self, source: str) -> None:
        """A "Copy" at the top right of every fenced code block (its source, exactly)."""
        for button, _ in self.copy_buttons:
            button.deleteLater()
        self.copy_buttons = []
        if "```" not in source and "~~~" not in source:
            return
        for code in code_blocks(self.document(), source):
            button = CopyButton(code.text, "this code", self.viewport())
            button.adjustSize()
            button.show()
            self.copy_buttons.append((button, code))
            fmt = code.first.blockFormat()  # the first line wraps before the button
            fmt.setRightMargin(button.width() + 6)
            QTextCursor(code.first).setBlockFormat(fmt)
        self._place_copy_buttons()

    def _place_copy_buttons(self) -> None:
        layout = self.document().documentLayout()
        right = self.viewport().width() - 2
        for button, code in self.copy_buttons:
            top = layout.blockBoundingRect(code.first).top()
            button.move(max(0, right - button.width()), round(top))

    def resizeEvent(self, event: QResizeEvent) -> None:
        super().resizeEvent(event)
        if self.copy_buttons:
            self._place_copy_buttons()

    def set_code(self, text: str, language: str | None = None) -> None:
        """Plain monospace text (tool arguments and output), optionally highlighted."""
        self.setFont(QFontDatabase.systemFont(QFontDatabase.SystemFont.FixedFont))
        self.setWordWrapMode(QTextOption.WrapMode.WrapAtWordBoundaryOrAnywhere)
        if language and self.safe_document.highlighter is None:
            self.safe_document.highlighter = CodeHighlighter(self.safe_document, language)
        self.setPlainText(text)
        self.updateGeometry()

    def hasHeightForWidth(self) -> bool:
        return True

    def heightForWidth(self, width: int) -> int:
        frame = 2 * self.frameWidth()
        self.document().setTextWidth(max(1, width - frame))
        return math.ceil(self.document().size().height()) + frame

    def sizeHint(self) -> QSize:
        width = max(self.width(), 200)
        return QSize(width, self.heightForWidth(width))

    def minimumSizeHint(self) -> QSize:
        return QSize(50, 0)

    def wheelEvent(self, event: QWheelEvent) -> None:
        event.ignore()

    def contextMenuEvent(self, event: QContextMenuEvent) -> None:
        event.ignore()

    def mousePressEvent(self, event: QMouseEvent) -> None:
        self.pressed.emit()
        super().mousePressEvent(event)
