"""Small coloured badges naming where a conversation came from (Claude Code, ChatGPT, …).

Drawn with QPainter at run time, so no image files are needed, and cached.
"""

from __future__ import annotations

from PySide6.QtCore import Qt
from PySide6.QtGui import QColor, QFont, QIcon, QPainter, QPixmap

# source format -> (name, badge letters, badge colour)
FORMATS: dict[str, tuple[str, str, str]] = {
    "claude_code": ("Claude Code", "CC", "#d97757"),
    "claude_ai": ("Claude.ai", "C", "#b8643f"),
    "chatgpt": ("ChatGPT", "GPT", "#10a37f"),
    "pi": ("pi", "pi", "#6f42c1"),
    "codex": ("Codex CLI", "CX", "#1f2328"),
    "gemini_cli": ("Gemini CLI", "G", "#4285f4"),
    "opencode": ("OpenCode", "OC", "#5c6370"),
    "openwebui": ("Open WebUI", "OW", "#3b3f46"),
    "librechat": ("LibreChat", "LC", "#2f6fdf"),
    "sillytavern": ("SillyTavern", "ST", "#c0392b"),
    "llm": ("llm", "ll", "#7a8a18"),
    "native": ("Conversation Explorer", "✦", "#e8590c"),
    "demo": ("Demo", "✦", "#e8590c"),
}
UNKNOWN_FORMAT = ("Created here", "✦", "#868e96")
ICON_SIZE = 32
_icons: dict[str, QIcon] = {}


def format_name(fmt: str | None) -> str:
    return FORMATS.get(fmt or "", UNKNOWN_FORMAT)[0] if fmt else UNKNOWN_FORMAT[0]


def format_icon(fmt: str | None) -> QIcon:
    """A rounded square in the format's colour with its letters, drawn once and cached."""
    key = fmt or ""
    if key not in _icons:
        _name, letters, colour = FORMATS.get(key, UNKNOWN_FORMAT)
        _icons[key] = QIcon(_badge(letters, QColor(colour)))
    return _icons[key]


def _badge(letters: str, colour: QColor) -> QPixmap:
    scale = 2  # drawn at twice the size so it stays sharp on high-density screens
    side = ICON_SIZE * scale
    pixmap = QPixmap(side, side)
    pixmap.fill(Qt.GlobalColor.transparent)
    painter = QPainter(pixmap)
    painter.setRenderHint(QPainter.RenderHint.Antialiasing)
    painter.setPen(Qt.PenStyle.NoPen)
    painter.setBrush(colour)
    painter.drawRoundedRect(2, 2, side - 4, side - 4, side * 0.22, side * 0.22)
    font = QFont()
    font.setBold(True)
    font.setPixelSize(int(side * (0.5 if len(letters) < 3 else 0.36)))
    painter.setFont(font)
    painter.setPen(QColor("white"))
    painter.drawText(pixmap.rect(), Qt.AlignmentFlag.AlignCenter, letters)
    painter.end()
    return pixmap
