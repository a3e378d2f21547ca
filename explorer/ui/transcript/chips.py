"""Agent command tags (``/exit``, its output, the local-command caveat) as small chips,
and the text of the agents' own records (see :mod:`explorer.app.views.meta_records`), muted.

Claude Code records a local command as a user message made of tags; shown raw they read as
markup a person never typed. A chip row says what happened in a line: the command, what it
printed, muted, and the caveat as a faint "local command" chip with its text as a tooltip.
"""

from __future__ import annotations

from PySide6.QtCore import Qt
from PySide6.QtGui import QPalette
from PySide6.QtWidgets import QHBoxLayout, QLabel, QPushButton, QVBoxLayout, QWidget

from explorer.app.views.agent_display import CommandChip, chip_label
from explorer.app.views.meta_records import folded_preview

CHIP_STYLE = ("QLabel {{ border: 1px solid palette(mid); border-radius: 8px; padding: 1px 7px;"
              " background: palette({background}); }}")


class ChipRow(QWidget):
    """The chips of one command message, left to right, wrapping nothing: each is one line."""

    def __init__(self, chips: list[CommandChip], parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.chips = chips
        self.labels: list[QLabel] = []
        row = QHBoxLayout(self)
        row.setContentsMargins(0, 2, 0, 2)
        row.setSpacing(6)
        for chip in chips:
            label = QLabel(chip_label(chip), self)
            label.setTextFormat(Qt.TextFormat.PlainText)
            label.setToolTip(chip.text)
            background = "alternate-base" if chip.kind == "command" else "window"
            label.setStyleSheet(CHIP_STYLE.format(background=background))
            font = label.font()
            font.setPointSizeF(font.pointSizeF() * 0.9)
            font.setBold(chip.kind == "command")
            label.setFont(font)
            if chip.kind in ("caveat", "message"):
                label.setForegroundRole(QPalette.ColorRole.PlaceholderText)
            self.labels.append(label)
            row.addWidget(label)
        row.addStretch(1)

    def texts(self) -> list[str]:
        return [label.text() for label in self.labels]


class MetaText(QWidget):
    """A tool record's text, muted and smaller, its first lines shown and the rest on request.

    Skill expansions and injected instructions run to hundreds of lines that nobody
    typed; folded, they stay findable without pushing the conversation off screen.
    """

    def __init__(self, text: str, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.full_text = text
        shown, self.hidden_lines = folded_preview(text)
        column = QVBoxLayout(self)
        column.setContentsMargins(0, 0, 0, 0)
        column.setSpacing(2)
        self.label = QLabel(shown, self)
        self.label.setTextFormat(Qt.TextFormat.PlainText)
        self.label.setWordWrap(True)
        self.label.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
        self.label.setForegroundRole(QPalette.ColorRole.PlaceholderText)
        font = self.label.font()
        font.setPointSizeF(font.pointSizeF() * 0.9)
        self.label.setFont(font)
        column.addWidget(self.label)
        self.more = QPushButton(f"show {self.hidden_lines} more line(s)", self)
        self.more.setFlat(True)
        self.more.setCursor(Qt.CursorShape.PointingHandCursor)
        self.more.setStyleSheet("QPushButton { text-align: left; color: palette(link); "
                                "padding: 0; border: none; }")
        self.more.setVisible(self.hidden_lines > 0)
        self.more.clicked.connect(self.unfold)
        column.addWidget(self.more)

    def unfold(self) -> None:
        self.label.setText(self.full_text)
        self.hidden_lines = 0
        self.more.hide()
        self.updateGeometry()
