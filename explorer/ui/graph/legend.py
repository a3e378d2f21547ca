"""Small overlays on the graph: a legend of colours and marks, and the turns/messages switch."""

from __future__ import annotations

from PySide6.QtCore import QPointF, QRectF, QSize, Qt, Signal
from PySide6.QtGui import (
    QColor,
    QFont,
    QFontMetricsF,
    QMouseEvent,
    QPainter,
    QPaintEvent,
    QPen,
    QPixmap,
)
from PySide6.QtWidgets import QButtonGroup, QHBoxLayout, QToolButton, QWidget

from explorer.ui.graph.palette import (
    STYLE_AGENT,
    STYLE_ASSISTANT,
    STYLE_ERROR,
    STYLE_RUN,
    STYLE_TOOL_CALL,
    STYLE_TOOL_RESULT,
    STYLE_TURN,
    STYLE_USER,
    GraphPalette,
    palette_for_application,
)

ROW_PX = 16
FONT_PX = 11
PAD = 6

# (kind, style or mark name, text)
_TURN_ROWS = (("box", STYLE_TURN, "turn"), ("box", STYLE_AGENT, "subagent"),
              ("run", STYLE_RUN, "folded turns"), ("line", "active", "active path"),
              ("dash", "agent", "subagent link"), ("badge", "tip", "tip"),
              ("dot", "checkpoint", "checkpoint"), ("dot", "fork", "fork"),
              ("dot", "rewind", "rewind"), ("dot", "compaction", "compaction"))
# Tending (T6, T7): what is folded or deleted at a branch point, stale answers, merge links,
# and the name a person gave a branch.
_TEND_ROWS = (("chip", "archived", "archived branches"), ("chip", "deleted", "deleted branch"),
              ("stale", "stale", "stale answer"), ("dash", "merge", "merge link"),
              ("name", "branch_name", "branch name"), ("memo", "note", "note"))
_MESSAGE_ROWS = (("box", STYLE_USER, "user"), ("box", STYLE_ASSISTANT, "assistant"),
                 ("box", STYLE_TOOL_CALL, "tool call"), ("box", STYLE_TOOL_RESULT, "result"),
                 ("box", STYLE_ERROR, "error"), ("line", "active", "active path"),
                 ("dash", "agent", "subagent link"), ("badge", "tip", "tip"),
                 ("dot", "checkpoint", "checkpoint"), ("dot", "rewind", "rewind"))


class Legend(QWidget):
    """Two columns of swatches; a click folds it to its title and back."""

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.mode = "turns"
        self.folded = True  # it sits over the tree: shown whole when the person opens it
        self._chosen = False
        self._font = QFont()
        self._font.setPixelSize(FONT_PX)
        self._metrics = QFontMetricsF(self._font)
        self.setCursor(Qt.CursorShape.PointingHandCursor)
        self.setToolTip("What the colours and marks mean (click to fold)")
        self.setObjectName("graph_legend")
        self._cache: tuple[tuple[object, ...], QPixmap] | None = None
        self.drawn = 0  # times the legend was drawn into its pixmap (for tests)

    def fold_to_fit(self, room: float) -> bool:
        """Folded until the person opens it (it would cover nodes at fit), and folded again
        when a pane too narrow for it beside the minimap is not their choice; True if it
        changed."""
        if self._chosen and room >= self.open_width():
            return False
        changed = not self.folded
        self.folded = True
        return changed

    def open_width(self) -> int:
        col = max(self._metrics.horizontalAdvance(t) for _, _, t in self.rows()) + 30
        return int(2 * col + 2 * PAD)

    def set_mode(self, mode: str) -> None:
        self.mode = mode
        self.adjustSize()
        self.update()

    def rows(self) -> tuple[tuple[str, object, str], ...]:
        return (_TURN_ROWS if self.mode == "turns" else _MESSAGE_ROWS) + _TEND_ROWS

    def sizeHint(self) -> QSize:
        if self.folded:
            return QSize(int(self._metrics.horizontalAdvance("Legend ▸")) + 2 * PAD, ROW_PX + 4)
        half = (len(self.rows()) + 1) // 2
        return QSize(self.open_width(), (half + 1) * ROW_PX + PAD)

    def mousePressEvent(self, event: QMouseEvent) -> None:
        self._chosen = True  # the person decided: stop folding it for them
        self.folded = not self.folded
        self.adjustSize()
        self.update()
        event.accept()

    def paintEvent(self, event: QPaintEvent) -> None:
        """Blit the legend drawn once: it sits over the graph, so every frame of a pan or
        zoom repaints it, and drawing its swatches and texts cost a millisecond a frame."""
        pal = palette_for_application()
        ratio = self.devicePixelRatioF()
        key = (self.mode, self.folded, self.width(), self.height(), ratio, pal.background.rgba(),
               pal.text.rgba(), pal.edge.rgba())
        if self._cache is None or self._cache[0] != key:
            pixmap = QPixmap(max(1, round(self.width() * ratio)),
                             max(1, round(self.height() * ratio)))
            pixmap.setDevicePixelRatio(ratio)
            pixmap.fill(Qt.GlobalColor.transparent)
            self._draw(QPainter(pixmap), pal)
            self._cache = (key, pixmap)
            self.drawn += 1
        painter = QPainter(self)
        painter.drawPixmap(0, 0, self._cache[1])
        painter.end()

    def _draw(self, painter: QPainter, pal: GraphPalette) -> None:
        painter.setRenderHint(QPainter.RenderHint.Antialiasing, True)
        back = QColor(pal.background)
        back.setAlpha(235)
        painter.setPen(QPen(pal.edge, 1))
        painter.setBrush(back)
        painter.drawRoundedRect(QRectF(self.rect()).adjusted(0.5, 0.5, -0.5, -0.5), 5, 5)
        painter.setFont(self._font)
        painter.setPen(pal.muted_text)
        painter.drawText(QPointF(PAD, ROW_PX - 3), "Legend ▸" if self.folded else "Legend")
        if not self.folded:
            rows = self.rows()
            half = (len(rows) + 1) // 2
            col_w = (self.width() - 2 * PAD) / 2
            for k, row in enumerate(rows):
                x = PAD + (k // half) * col_w
                y = (k % half + 1) * ROW_PX + 2
                _swatch(painter, pal, row, QRectF(x, y + 3, 18, ROW_PX - 6))
                painter.setPen(pal.text)
                painter.drawText(QPointF(x + 24, y + ROW_PX - 4), row[2])
        painter.end()


def _swatch(painter: QPainter, pal: GraphPalette, row: tuple[str, object, str],
            r: QRectF) -> None:
    kind, what, _ = row
    painter.setBrush(Qt.BrushStyle.NoBrush)
    if kind in ("box", "run"):
        assert isinstance(what, int)
        painter.setPen(QPen(pal.edge, 1, Qt.PenStyle.DashLine if kind == "run"
                            else Qt.PenStyle.SolidLine))
        painter.setBrush(pal.styles[what])
        painter.drawRect(r)
    elif kind in ("chip", "stale"):
        color = {"archived": pal.archived, "deleted": pal.deleted}.get(str(what), pal.stale)
        pen = QPen(color, 1.5 if kind == "chip" else 2)
        pen.setStyle(Qt.PenStyle.DashLine if what != "deleted" else Qt.PenStyle.SolidLine)
        painter.setPen(pen)
        painter.setBrush(pal.background)
        painter.drawRoundedRect(r, 3 if kind == "chip" else 0, 3 if kind == "chip" else 0)
    elif kind in ("line", "dash"):
        color = {"active": pal.active, "merge": pal.merge}.get(str(what), pal.agent)
        style = Qt.PenStyle.DashLine if kind == "dash" else Qt.PenStyle.SolidLine
        painter.setPen(QPen(color, 2, style))
        painter.drawLine(QPointF(r.left(), r.center().y()), QPointF(r.right(), r.center().y()))
    elif kind == "badge":
        painter.setPen(Qt.PenStyle.NoPen)
        painter.setBrush(pal.tip)
        painter.drawRoundedRect(r, 3, 3)
    elif kind == "memo":  # the sticky-note box a note is drawn in
        painter.setPen(QPen(pal.note_text, 1))
        painter.setBrush(pal.note)
        painter.drawRoundedRect(r, 2, 2)
        painter.setPen(pal.note_text)
        painter.drawText(r, Qt.AlignmentFlag.AlignCenter, "✎")
    elif kind == "name":  # the solid pill a branch name is drawn in, with its ⎇
        painter.setPen(Qt.PenStyle.NoPen)
        painter.setBrush(pal.branch_name)
        painter.drawRoundedRect(r, r.height() / 2, r.height() / 2)
        painter.setPen(pal.background)
        painter.drawText(r, Qt.AlignmentFlag.AlignCenter, "⎇")
    else:
        color = {"checkpoint": pal.checkpoint, "fork": pal.fork, "rewind": pal.rewind,
                 "compaction": pal.compaction}.get(str(what), pal.badge)
        painter.setPen(Qt.PenStyle.NoPen)
        painter.setBrush(color)
        painter.drawEllipse(r.center(), 5, 5)


class ModeSwitch(QWidget):
    """``Turns | Messages``: which projection the graph draws."""

    modeChosen = Signal(str)

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        layout = QHBoxLayout(self)
        layout.setContentsMargins(0, 0, 0, 0)
        layout.setSpacing(0)
        # The chosen view reads as chosen in a light and a dark scheme alike.
        self.setStyleSheet("QToolButton { padding: 2px 8px; border: 1px solid palette(mid); }"
                           " QToolButton:checked { background: palette(highlight);"
                           " color: palette(highlighted-text); }")
        self.group = QButtonGroup(self)
        self.buttons: dict[str, QToolButton] = {}
        for mode, text, tip in (("turns", "Turns", "One node per turn (Ctrl+M switches)"),
                                ("messages", "Messages", "One node per message (Ctrl+M)")):
            b = QToolButton(self)
            b.setText(text)
            b.setToolTip(tip)
            b.setCheckable(True)
            b.setObjectName(f"graph_{mode}")
            self.group.addButton(b)
            layout.addWidget(b)
            self.buttons[mode] = b
            b.clicked.connect(lambda _=False, m=mode: self.modeChosen.emit(m))

    def set_mode(self, mode: str) -> None:
        self.buttons[mode].setChecked(True)
