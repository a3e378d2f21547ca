"""Colours of the tree graph, in a light and a dark variant picked from the application palette."""

from __future__ import annotations

from dataclasses import dataclass, field

from PySide6.QtGui import QColor, QPalette
from PySide6.QtWidgets import QApplication

from explorer.app.graph.model import (  # node styles, in the order ``styles`` holds them
    STYLE_AGENT,
    STYLE_ASSISTANT,
    STYLE_ERROR,
    STYLE_NAMES,
    STYLE_RUN,
    STYLE_SYSTEM,
    STYLE_TOOL_CALL,
    STYLE_TOOL_RESULT,
    STYLE_TURN,
    STYLE_USER,
)

__all__ = [
    "STYLE_AGENT", "STYLE_ASSISTANT", "STYLE_ERROR", "STYLE_NAMES", "STYLE_RUN", "STYLE_SYSTEM",
    "STYLE_TOOL_CALL", "STYLE_TOOL_RESULT", "STYLE_TURN", "STYLE_USER", "GraphPalette",
    "dark_palette", "is_dark", "light_palette", "palette_for_application",
]


@dataclass(frozen=True)
class GraphPalette:
    dark: bool
    background: QColor
    edge: QColor
    active: QColor
    tip: QColor
    selection: QColor
    text: QColor
    muted_text: QColor
    badge: QColor
    checkpoint: QColor
    rewind: QColor
    fork: QColor
    compaction: QColor
    styles: tuple[QColor, ...]
    agent: QColor = field(default_factory=lambda: QColor("#9c36b5"))  # subagent links, names
    # Tending glyphs (T6, T7): folded, deleted, stale, and the merge link.
    archived: QColor = field(default_factory=lambda: QColor("#5c6b7a"))
    deleted: QColor = field(default_factory=lambda: QColor("#d6336c"))
    stale: QColor = field(default_factory=lambda: QColor("#b07b00"))
    merge: QColor = field(default_factory=lambda: QColor("#4263eb"))
    # A branch's name (``convo label``): a solid pill in the text colour, the background's
    # colour for its letters, so it reads apart from every coloured mark.
    branch_name: QColor = field(default_factory=lambda: QColor("#343a40"))
    # A person's note (``convo note``): a sticky-note yellow box beside the node.
    note: QColor = field(default_factory=lambda: QColor("#fff3bf"))
    note_text: QColor = field(default_factory=lambda: QColor("#5c4813"))

    def style(self, index: int) -> QColor:
        return self.styles[index]


def light_palette() -> GraphPalette:
    return GraphPalette(
        dark=False,
        background=QColor("#fbfbfc"), edge=QColor("#b4b9c2"), active=QColor("#e8590c"),
        tip=QColor("#c92a2a"), selection=QColor("#1971c2"), text=QColor("#1b1e23"),
        muted_text=QColor("#5c6370"), badge=QColor("#495057"),
        checkpoint=QColor("#2b8a3e"), rewind=QColor("#9c36b5"), fork=QColor("#1098ad"),
        compaction=QColor("#f08c00"),
        styles=(QColor("#adb5bd"), QColor("#74c0fc"), QColor("#b2f2bb"), QColor("#ffd43b"),
                QColor("#e5dbff"), QColor("#ff8787"), QColor("#d0ebff"), QColor("#f3d9fa"),
                QColor("#e9ecef")),
    )


def dark_palette() -> GraphPalette:
    return GraphPalette(
        dark=True,
        background=QColor("#1e2127"), edge=QColor("#5c6370"), active=QColor("#ff922b"),
        tip=QColor("#ff6b6b"), selection=QColor("#4dabf7"), text=QColor("#e6e8eb"),
        muted_text=QColor("#9aa1ac"), badge=QColor("#ced4da"),
        checkpoint=QColor("#69db7c"), rewind=QColor("#da77f2"), fork=QColor("#3bc9db"),
        compaction=QColor("#ffc078"), agent=QColor("#da77f2"),
        archived=QColor("#a5b4c4"), deleted=QColor("#f783ac"), stale=QColor("#ffd43b"),
        merge=QColor("#91a7ff"), branch_name=QColor("#dee2e6"), note=QColor("#5c4813"),
        note_text=QColor("#ffec99"),
        styles=(QColor("#6c757d"), QColor("#1c7ed6"), QColor("#2f9e44"), QColor("#e67700"),
                QColor("#6741d9"), QColor("#e03131"), QColor("#1f3a5a"), QColor("#4a2d5e"),
                QColor("#343a40")),
    )


def is_dark(palette: QPalette) -> bool:
    """Dark when the window colour is darker than its text: how the system theme shows."""
    window = palette.color(QPalette.ColorRole.Window)
    text = palette.color(QPalette.ColorRole.WindowText)
    return window.lightness() < text.lightness()


_MADE: dict[bool, GraphPalette] = {}


def palette_for_application() -> GraphPalette:
    """The light or dark graph palette, made once each: the legend and the minimap ask on
    every repaint, and building two dozen colours per frame showed up in frame times."""
    app = QApplication.instance()
    dark = is_dark(app.palette() if isinstance(app, QApplication) else QPalette())
    made = _MADE.get(dark)
    if made is None:
        made = _MADE[dark] = dark_palette() if dark else light_palette()
    return made
