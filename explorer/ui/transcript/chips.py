"""Agent command tags (``/exit``, its output, the local-command caveat) as small chips.

Claude Code records a local command as a user message made of tags; shown raw they read as
markup a person never typed. A chip row says what happened in a line: the command, what it
printed, muted, and the caveat as a faint "local command" chip with its text as a tooltip.
"""

from __future__ import annotations

from PySide6.QtCore import Qt
from PySide6.QtGui import QPalette
from PySide6.QtWidgets import QHBoxLayout, QLabel, QWidget

from explorer.app.agent_display import CommandChip, chip_label

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
