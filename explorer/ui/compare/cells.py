"""One cell of the compare window: a turn of one branch, drawn as the transcript draws it.

Text is Markdown, read by the transcript's safe document (no network, no raw
HTML). Differences travel through the Markdown as private-use marker
characters around each marked run; once Qt has laid the document out, the
markers are found, their runs get the highlight (a column's own changed words)
or the strike (base words the column lacks), and the markers are removed. So
bold, lists and code render as in the transcript and the marks sit on the
right words. Thinking gets its own muted box; tool calls and results are one
compact row each.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass
from html import escape

from PySide6.QtCore import Qt
from PySide6.QtGui import (
    QColor,
    QImage,
    QPalette,
    QPixmap,
    QTextCharFormat,
    QTextCursor,
    QTextDocument,
)
from PySide6.QtWidgets import QFrame, QLabel, QSizePolicy, QVBoxLayout, QWidget

from explorer.app.comparing.columns import Cell, CellMessage, CellPart, Span
from explorer.app.comparing.text import part_line
from explorer.ui.plain_text import tooltip
from explorer.ui.transcript.markdown import DocumentView

ROLE_ACCENTS = {"user": "#3b82f6", "assistant": "#10a37f", "system": "#8b8f98", "tool": "#e0912b"}
OPEN = {"insert": "\ue000", "replace": "\ue000", "delete": "\ue002", "skip": "\ue004"}
CLOSE = {"\ue000": "\ue001", "\ue002": "\ue003", "\ue004": "\ue005"}
MARKERS = re.compile("[\ue000-\ue005]")
# Block syntax that must stay at the start of its line for Markdown to see it.
_BLOCK_START = re.compile(r"^(\s*(?:[-*+]|\d+[.)]|#{1,6}|>)\s+|\s*(?:```|~~~).*$)")
TOOL_ROW_CHARS = 240


@dataclass(frozen=True)
class DiffColors:
    changed: str
    deleted: str
    muted: str
    thinking: str

    @classmethod
    def from_palette(cls, pal: QPalette) -> DiffColors:
        """A light tint of the selection colour: visible in both themes, text stays legible."""
        base = pal.color(QPalette.ColorRole.Base)
        mark = pal.color(QPalette.ColorRole.Highlight)
        text = pal.color(QPalette.ColorRole.Text)
        return cls(changed=mix(mark, base, 0.35).name(), deleted=mix(text, base, 0.55).name(),
                   muted=mix(text, base, 0.6).name(), thinking=mix(text, base, 0.06).name())


def contrast(a: QColor, b: QColor) -> float:
    """WCAG contrast ratio of two colours (1 to 21; body text wants at least 4.5)."""
    def lum(c: QColor) -> float:
        def lin(v: float) -> float:
            return v / 12.92 if v <= 0.03928 else ((v + 0.055) / 1.055) ** 2.4
        return 0.2126 * lin(c.redF()) + 0.7152 * lin(c.greenF()) + 0.0722 * lin(c.blueF())
    hi, lo = sorted((lum(a), lum(b)), reverse=True)
    return (hi + 0.05) / (lo + 0.05)


def mix(a: QColor, b: QColor, share: float) -> QColor:
    """``share`` of ``a`` over ``b``."""
    def chan(x: int, y: int) -> int:
        return round(x * share + y * (1 - share))
    return QColor(chan(a.red(), b.red()), chan(a.green(), b.green()), chan(a.blue(), b.blue()))


def marked_markdown(spans: Sequence[Span]) -> str:
    """The part's Markdown with each marked run wrapped in marker characters, line by line,
    leaving list bullets, headings and fences outside so they keep their meaning."""
    out: list[str] = []
    at_line_start = True
    for span in spans:
        if span.kind == "equal":
            out.append(span.text)
            at_line_start = span.text.endswith("\n") if span.text else at_line_start
            continue
        opening = OPEN[span.kind]
        for line in span.text.splitlines(keepends=True):
            body = line.rstrip()
            tail = line[len(body):]
            prefix = ""
            if at_line_start:
                found = _BLOCK_START.match(body)
                if found:
                    prefix, body = body[: found.end()], body[found.end():]
            out.append(prefix + (f"{opening}{body}{CLOSE[opening]}" if body else "") + tail)
            at_line_start = tail.endswith("\n")
    return "".join(out)


def apply_marks(doc: QTextDocument, colors: DiffColors) -> int:
    """Format the runs between markers and remove the markers; returns how many runs."""
    formats = {"\ue000": _fmt(background=colors.changed),
               "\ue002": _fmt(color=colors.deleted, strike=True),
               "\ue004": _fmt(color=colors.muted, italic=True)}
    text = doc.toPlainText()
    runs: list[tuple[int, int, str]] = []
    stack: list[tuple[int, str]] = []
    for found in MARKERS.finditer(text):
        ch = found.group()
        if ch in formats:
            stack.append((found.start(), ch))
        elif stack:
            start, opening = stack.pop()
            runs.append((start, found.start(), opening))
    cursor = QTextCursor(doc)
    cursor.beginEditBlock()
    for start, end, opening in sorted(runs, reverse=True):
        cursor.setPosition(start + 1)
        cursor.setPosition(end, QTextCursor.MoveMode.KeepAnchor)
        cursor.mergeCharFormat(formats[opening])
    for found in reversed(list(MARKERS.finditer(text))):
        cursor.setPosition(found.start())
        cursor.setPosition(found.end(), QTextCursor.MoveMode.KeepAnchor)
        cursor.removeSelectedText()
    cursor.endEditBlock()
    return len(runs)


def _fmt(background: str | None = None, color: str | None = None, strike: bool = False,
         italic: bool = False) -> QTextCharFormat:
    f = QTextCharFormat()
    if background:
        f.setBackground(QColor(background))
    if color:
        f.setForeground(QColor(color))
    f.setFontStrikeOut(strike)
    f.setFontItalic(italic)
    return f


class MarkedText(DocumentView):
    """A Markdown part with its difference marks."""

    def __init__(self, spans: Sequence[Span], colors: DiffColors,
                 parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.set_markdown(marked_markdown(spans))
        self.runs = apply_marks(self.document(), colors)
        self.updateGeometry()

    def heightForWidth(self, width: int) -> int:
        """Measure at ``width``, then lay the text out again at the width it really has
        (a layout asks about many widths; the last one asked is not always the one given)."""
        height = super().heightForWidth(width)
        if self.width() > 0 and width != self.width():
            self.document().setTextWidth(max(1, self.viewport().width()))
        return height


class CellWidget(QFrame):
    """One turn of one branch: each message's heading, then its parts."""

    def __init__(self, cell: Cell, colors: DiffColors, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.cell = cell
        self.colors = colors
        self.setFrameShape(QFrame.Shape.StyledPanel)
        self.setAutoFillBackground(True)
        self.setBackgroundRole(QPalette.ColorRole.Base)
        policy = QSizePolicy(QSizePolicy.Policy.Ignored, QSizePolicy.Policy.Preferred)
        policy.setHeightForWidth(True)
        self.setSizePolicy(policy)
        layout = QVBoxLayout(self)
        layout.setContentsMargins(8, 6, 8, 8)
        layout.setSpacing(2)
        self.texts: list[MarkedText] = []
        self.thinking: list[QFrame] = []
        self.tool_rows: list[QLabel] = []
        self.images: list[QLabel] = []
        if cell.empty:
            layout.addWidget(_muted("no turn here on this branch", colors, italic=True))
        for m in cell.messages:
            layout.addWidget(self._heading(m))
            for p in m.parts:
                layout.addWidget(self._part(p, colors))
        layout.addStretch(1)

    def plain_text(self) -> str:
        """What the cell shows, as text (markers removed)."""
        return "\n".join(t.toPlainText() for t in self.texts)

    def _heading(self, m: CellMessage) -> QLabel:
        accent = ROLE_ACCENTS["tool" if m.heading.startswith("tool") else m.role]
        label = QLabel(m.heading)
        label.setTextFormat(Qt.TextFormat.PlainText)
        label.setStyleSheet(f"color:{accent}; font-weight:bold; margin-top:4px")
        return label

    def _part(self, p: CellPart, colors: DiffColors) -> QWidget:
        if p.kind == "text":
            view = MarkedText(p.spans, colors, self)
            self.texts.append(view)
            return view
        if p.kind == "thinking":
            box = QFrame(self)
            box.setObjectName("thinking")
            box.setStyleSheet(f"QFrame#thinking {{ background:{colors.thinking}; "
                              f"border-left:3px solid {colors.muted}; }}")
            inner = QVBoxLayout(box)
            inner.setContentsMargins(6, 2, 4, 2)
            inner.addWidget(_muted("Thinking", colors, italic=True))
            view = MarkedText(p.spans, colors, box)
            view.setStyleSheet(f"color:{colors.muted}")
            self.texts.append(view)
            inner.addWidget(view)
            self.thinking.append(box)
            return box
        if p.kind == "image" and p.image:
            thumb = image_thumbnail(p.image, self)
            if thumb is not None:
                self.images.append(thumb)
                return thumb
        row = QLabel(self)
        row.setTextFormat(Qt.TextFormat.RichText)
        row.setWordWrap(True)
        row.setText(_tool_row_html(p, colors))
        row.setToolTip(tooltip(part_line(p, marked=False)[:2000]))
        row.setObjectName(p.kind)
        self.tool_rows.append(row)
        return row


THUMB = (320, 200)
"""The largest an image is shown in a cell; its tooltip says its real size."""


def image_thumbnail(data: bytes, parent: QWidget) -> QLabel | None:
    """An image part as a thumbnail (None when the bytes are not an image Qt reads)."""
    image = QImage.fromData(data)
    if image.isNull():
        return None
    shown = image.scaled(min(THUMB[0], image.width()), min(THUMB[1], image.height()),
                         Qt.AspectRatioMode.KeepAspectRatio,
                         Qt.TransformationMode.SmoothTransformation)
    label = QLabel(parent)
    label.setObjectName("image")
    label.setPixmap(QPixmap.fromImage(shown))
    label.setToolTip(f"image, {image.width()}×{image.height()} px")
    return label


def _tool_row_html(p: CellPart, colors: DiffColors) -> str:
    """A compact row: ⚙ name, then the arguments or result cut to a few lines, marks kept."""
    budget = TOOL_ROW_CHARS
    body: list[str] = []
    for s in p.spans:
        text = " ".join(s.text.split())
        if budget <= 0:
            body.append("…")
            break
        text, budget = text[:budget], budget - len(text)
        if s.kind in ("insert", "replace"):
            body.append(f'<span style="background-color:{colors.changed}">{escape(text)}</span> ')
        elif s.kind == "delete":
            body.append(f'<s style="color:{colors.deleted}">{escape(text)}</s> ')
        elif s.kind == "skip":
            body.append(f'<i style="color:{colors.muted}">{escape(text)}</i> ')
        else:
            body.append(escape(text) + " ")
    if p.kind == "tool_use":
        head = f"⚙ <b>{escape(p.tool_name or 'tool')}</b>"
    elif p.kind == "tool_result":
        head = "✗ <b>error</b>" if p.is_error else "← result"
    else:
        head = f"▣ {escape(p.kind)}"
    return (f'<span style="font-family:monospace; color:{colors.muted}">{head}</span> '
            f'<span style="font-family:monospace">{"".join(body).strip()}</span>')


def _muted(text: str, colors: DiffColors, italic: bool = False) -> QLabel:
    label = QLabel(text)
    label.setTextFormat(Qt.TextFormat.PlainText)
    label.setStyleSheet(f"color:{colors.muted}" + ("; font-style:italic" if italic else ""))
    return label
