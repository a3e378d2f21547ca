"""Small coloured badges naming where a conversation came from (Claude Code, ChatGPT, …).

Drawn with QPainter at run time, so no image files are needed, and cached.
"""

from __future__ import annotations

from PySide6.QtCore import Qt
from PySide6.QtGui import QColor, QFont, QIcon, QPainter, QPixmap

from explorer.formats.titles import TITLES

# source format -> (badge letters, badge colour); its name is the registry's title
BADGES: dict[str, tuple[str, str]] = {
    "claude_code": ("CC", "#d97757"),
    "claude_ai": ("C", "#b8643f"),
    "chatgpt": ("GPT", "#10a37f"),
    "pi": ("pi", "#6f42c1"),
    "codex": ("CX", "#1f2328"),
    "gemini_cli": ("G", "#4285f4"),
    "qwen_code": ("QW", "#615ced"),
    "kimi_cli": ("K", "#0f1115"),
    "opencode": ("OC", "#5c6370"),
    "crush": ("CR", "#6b50ff"),
    "continue_cli": ("CN", "#1f6feb"),
    "cline": ("CL", "#3a3a3a"),
    "cline_tasks": ("CL", "#3a3a3a"),
    "copilot_cli": ("GH", "#24292f"),
    "cursor": ("CU", "#111111"),
    "goose": ("GO", "#2d2d2d"),
    "aider": ("AI", "#14b014"),
    "mistral_vibe": ("MV", "#fa500f"),
    "openwebui": ("OW", "#3b3f46"),
    "librechat": ("LC", "#2f6fdf"),
    "sillytavern": ("ST", "#c0392b"),
    "llm": ("ll", "#7a8a18"),
    "native": ("✦", "#e8590c"),
    "demo": ("✦", "#e8590c"),
}
UNKNOWN_FORMAT = ("Created here", "✦", "#868e96")
ICON_SIZE = 32
_icons: dict[str, QIcon] = {}


def format_name(fmt: str | None) -> str:
    if fmt == "demo":
        return "Demo"
    return TITLES.get(fmt or "", UNKNOWN_FORMAT[0])


def format_icon(fmt: str | None) -> QIcon:
    """A rounded square in the format's colour with its letters, drawn once and cached."""
    key = fmt or ""
    if key not in _icons:
        letters, colour = BADGES.get(key, UNKNOWN_FORMAT[1:])
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
