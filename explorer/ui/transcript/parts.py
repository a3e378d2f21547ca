"""Widgets for the parts of a message: thinking, tool calls and results, images, markers.

Every block that can change its own height (a toggle, "show all") emits
``resized`` so the virtual transcript can re-measure its card: the view does
not watch layouts, it is told.
"""

from __future__ import annotations

import json

from PySide6.QtCore import Qt, Signal
from PySide6.QtGui import QColor, QMouseEvent, QPalette, QPixmap
from PySide6.QtWidgets import (
    QDialog,
    QHBoxLayout,
    QLabel,
    QScrollArea,
    QToolButton,
    QVBoxLayout,
    QWidget,
)

from explorer.app.views.agent_display import (
    argument_fields,
    call_summary,
    has_multiline_string,
    looks_like_markdown,
    result_summary,
    thinking_title,
)
from explorer.tree.model import Part
from explorer.ui.transcript.copying import CopyButton
from explorer.ui.transcript.markdown import DocumentView
from explorer.ui.transcript.rows import COLLAPSED_LINES
from explorer.ui.transcript.text_view import TextView, plain_enough

ERROR_ACCENT = "#d93025"
THUMBNAIL_SIZE = 128
COLLAPSED_CHARS = 3000


def pretty_arguments(text: str) -> str:
    """Tool arguments as indented JSON; text that is not JSON is shown as it is."""
    try:
        return json.dumps(json.loads(text), indent=2, ensure_ascii=False)
    except (ValueError, TypeError):
        return text


def _column(widget: QWidget) -> QVBoxLayout:
    layout = QVBoxLayout(widget)
    layout.setContentsMargins(0, 0, 0, 0)
    layout.setSpacing(2)
    return layout


def _row(first: QWidget, copy: QWidget) -> QHBoxLayout:
    """A row's title, then its copy button at the far right."""
    row = QHBoxLayout()
    row.setContentsMargins(0, 0, 0, 0)
    row.addWidget(first)
    row.addStretch(1)
    row.addWidget(copy)
    return row


def _caption(text: str, parent: QWidget, color: str | None = None) -> QLabel:
    label = QLabel(text, parent)
    label.setTextFormat(Qt.TextFormat.PlainText)
    font = label.font()
    font.setPointSizeF(font.pointSizeF() * 0.9)
    font.setBold(True)
    label.setFont(font)
    if color:
        pal = label.palette()
        pal.setColor(QPalette.ColorRole.WindowText, QColor(color))
        label.setPalette(pal)
    else:
        label.setForegroundRole(QPalette.ColorRole.PlaceholderText)
    return label


class ThinkingBlock(QWidget):
    """Collapsed by default: reasoning is long and rarely what a reader is after."""

    resized = Signal()

    def __init__(self, part: Part, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self._text = part.text
        self.redacted = bool(part.meta.get("redacted"))
        self.toggle = QToolButton(self)
        self.toggle.setAutoRaise(True)
        self.toggle.setCheckable(True)
        self.toggle.setToolButtonStyle(Qt.ToolButtonStyle.ToolButtonTextBesideIcon)
        self.toggle.setArrowType(Qt.ArrowType.RightArrow)
        self.toggle.setText(thinking_title(part.text, self.redacted))
        self.toggle.setEnabled(not self.redacted and bool(part.text.strip()))
        if self.redacted:
            self.toggle.setToolTip(
                "The provider sent this reasoning encrypted: it cannot be read.")
        elif not part.text.strip():
            self.toggle.setToolTip("The model reasoned here, but the session file keeps only "
                                   "a signature of it, not its text.")
        self.body: DocumentView | None = None
        self._layout = _column(self)
        self._layout.addWidget(self.toggle)
        self.toggle.toggled.connect(self.set_expanded)

    def is_expanded(self) -> bool:
        return self.body is not None and not self.body.isHidden()

    def set_expanded(self, expanded: bool) -> None:
        if expanded and self.body is None:
            self.body = DocumentView(self)
            mute(self.body)
            self.body.set_markdown(self._text)
            self._layout.addWidget(self.body)
        if self.body is not None:
            self.body.setVisible(expanded)
        self.toggle.setArrowType(Qt.ArrowType.DownArrow if expanded else Qt.ArrowType.RightArrow)
        self.toggle.setChecked(expanded)
        self.resized.emit()


class ToolCallBlock(QWidget):
    """One row, ``⚙ Bash(git merge …)``, that unfolds into the call's arguments.

    String arguments are shown with their real newlines (an Agent prompt or a file's new
    content reads as text, not as one escaped JSON line); anything else as indented JSON.
    A call that started a subagent (``subagent`` is its name) offers to open that
    subagent's transcript, as clicking its node in the graph does.
    """

    resized = Signal()
    subagentRequested = Signal(str)  # the call's tool_use id

    def __init__(self, part: Part, parent: QWidget | None = None,
                 subagent: str | None = None) -> None:
        super().__init__(parent)
        layout = _column(self)
        self.use_id = part.tool_use_id
        self.summary = call_summary(part.tool_name, part.text)
        self.toggle = QToolButton(self)
        self.toggle.setAutoRaise(True)
        self.toggle.setCheckable(True)
        self.toggle.setToolButtonStyle(Qt.ToolButtonStyle.ToolButtonTextBesideIcon)
        self.toggle.setText(f"⚙ {self.summary}")
        self.arguments = TextView(self)
        self.copy_button = CopyButton(self.arguments.toPlainText, "the call's arguments", self)
        row = _row(self.toggle, self.copy_button)
        self.open_button: QToolButton | None = None
        if subagent is not None and part.tool_use_id:
            self.open_button = self._open_button(subagent, part.tool_use_id)
            row.insertWidget(row.count() - 1, self.open_button)
        layout.addLayout(row)
        fields = argument_fields(part.text)
        if fields is not None and has_multiline_string(part.text):
            self.arguments.set_code("\n".join(f"{key}:\n{value}" if "\n" in value
                                               else f"{key}: {value}" for key, value in fields))
        else:
            self.arguments.set_code(pretty_arguments(part.text), "json")
        layout.addWidget(self.arguments)
        self.toggle.toggled.connect(self.set_expanded)
        self.set_expanded(True)
        if part.tool_use_id:
            self.setToolTip(f"call {part.tool_use_id}")

    def _open_button(self, name: str, use_id: str) -> QToolButton:
        button = QToolButton(self)
        button.setAutoRaise(True)
        button.setText("⤷ Open subagent")
        button.setObjectName("open_subagent")
        button.setToolTip(f"Read subagent “{name}” in a tab of its own; the tip does not move")
        button.clicked.connect(lambda _=False: self.subagentRequested.emit(use_id))
        return button

    def is_expanded(self) -> bool:
        return not self.arguments.isHidden()

    def set_expanded(self, expanded: bool) -> None:
        self.arguments.setVisible(expanded)
        self.toggle.setArrowType(Qt.ArrowType.DownArrow if expanded else Qt.ArrowType.RightArrow)
        self.toggle.setChecked(expanded)
        self.resized.emit()


class ToolResultBlock(QWidget):
    """Tool output; long output is folded to its first lines, errors are marked."""

    resized = Signal()

    def __init__(self, part: Part, tool_name: str, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.is_error = part.is_error
        self._lines = part.text.splitlines() or [""]
        layout = _column(self)
        outcome = result_summary(part.text, part.is_error)
        title = (f"✖ {tool_name} failed · {outcome.split(' · ')[-1]}" if part.is_error
                 else f"↳ {tool_name} result {outcome}")
        self.caption = _caption(title, self, ERROR_ACCENT if part.is_error else None)
        self.markdown = looks_like_markdown(part.text)
        self.copy_button = CopyButton(part.text, "the whole output", self)
        layout.addLayout(_row(self.caption, self.copy_button))
        # Output with fenced code keeps the browser view, whose code blocks have copy buttons.
        self.output: DocumentView | TextView = (
            DocumentView(self) if self.markdown and not plain_enough(part.text) else TextView(self))
        layout.addWidget(self.output)
        self.expand_button: QToolButton | None = None
        self._folded_lines = True
        if len(self._lines) > COLLAPSED_LINES or len(part.text) > COLLAPSED_CHARS:
            self.expand_button = QToolButton(self)
            self.expand_button.setAutoRaise(True)
            self.expand_button.setText(f"show all {len(self._lines)} lines")
            self.expand_button.clicked.connect(self.expand)
            layout.addWidget(self.expand_button)
        self._show(COLLAPSED_LINES, COLLAPSED_CHARS)

    def is_collapsed(self) -> bool:
        return self.expand_button is not None and not self.expand_button.isHidden()

    def hide_output(self, hidden: bool) -> None:
        """Hide the output (and its "show all lines") while the whole part is shown below."""
        self.output.setHidden(hidden)
        if self.expand_button is not None:
            self.expand_button.setHidden(hidden or not self._folded_lines)

    def expand(self) -> None:
        self._folded_lines = False
        self._show(len(self._lines), None)
        if self.expand_button is not None:
            self.expand_button.hide()
        self.resized.emit()

    def _show(self, count: int, chars: int | None) -> None:
        shown = "\n".join(self._lines[:count])
        more = len(self._lines) - min(count, len(self._lines))
        if chars is not None and len(shown) > chars:
            shown = shown[:chars] + " …"
        tail = f"\n\n… {more} more lines" if more else ""
        if self.markdown:
            self.output.set_markdown(shown + tail)
        else:
            self.output.set_code(shown + tail)


def mute(widget: QWidget) -> None:
    """Secondary text (thinking, caveats): the palette's placeholder colour, in italics."""
    pal = widget.palette()
    muted = pal.color(QPalette.ColorRole.PlaceholderText)
    pal.setColor(QPalette.ColorRole.Text, muted)
    pal.setColor(QPalette.ColorRole.WindowText, muted)
    widget.setPalette(pal)
    font = widget.font()
    font.setItalic(True)
    widget.setFont(font)



class MarkerLabel(QLabel):
    """An elided result or dropped image inside a card: a slim italic line."""

    def __init__(self, text: str, parent: QWidget | None = None) -> None:
        super().__init__(text, parent)
        self.setTextFormat(Qt.TextFormat.PlainText)
        self.setWordWrap(True)
        font = self.font()
        font.setItalic(True)
        self.setFont(font)
        self.setForegroundRole(QPalette.ColorRole.PlaceholderText)


class ImageThumbnail(QLabel):
    """A small picture that opens the full-size image in a dialog when clicked."""

    def __init__(self, part: Part, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.pixmap_full = QPixmap()
        self.media_type = part.media_type or "image"
        self.byte_count = len(part.data or b"")
        self.dialog: ImageDialog | None = None
        if part.data and self.pixmap_full.loadFromData(part.data):
            self.setPixmap(self.pixmap_full.scaled(
                THUMBNAIL_SIZE, THUMBNAIL_SIZE, Qt.AspectRatioMode.KeepAspectRatio,
                Qt.TransformationMode.SmoothTransformation))
            self.setCursor(Qt.CursorShape.PointingHandCursor)
            self.setToolTip(f"{self.media_type}, {self.pixmap_full.width()}×"
                            f"{self.pixmap_full.height()} px — click to open")
        else:
            self.setText(f"[{self.media_type}, {self.byte_count:,} bytes: cannot be shown]")
        self.setFixedHeight(max(self.sizeHint().height(), 24))

    def mousePressEvent(self, event: QMouseEvent) -> None:
        if event.button() == Qt.MouseButton.LeftButton and not self.pixmap_full.isNull():
            self.open_full_size()
            event.accept()
            return
        super().mousePressEvent(event)

    def open_full_size(self) -> ImageDialog:
        self.dialog = ImageDialog(self.pixmap_full, self.media_type, self.window())
        self.dialog.show()
        return self.dialog


class ImageDialog(QDialog):
    def __init__(self, pixmap: QPixmap, media_type: str, parent: QWidget | None) -> None:
        super().__init__(parent)
        self.setAttribute(Qt.WidgetAttribute.WA_DeleteOnClose)
        self.setWindowTitle(f"Image — {media_type}, {pixmap.width()}×{pixmap.height()} px")
        self.image = QLabel(self)
        self.image.setPixmap(pixmap)
        area = QScrollArea(self)
        area.setWidget(self.image)
        area.setAlignment(Qt.AlignmentFlag.AlignCenter)
        layout = QVBoxLayout(self)
        layout.setContentsMargins(0, 0, 0, 0)
        layout.addWidget(area)
        self.resize(min(pixmap.width() + 24, 1400), min(pixmap.height() + 24, 1000))
