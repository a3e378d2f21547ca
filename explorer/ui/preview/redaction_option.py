"""The preview's "Redact secrets" box: the window's one redaction switch, seen from here.

Ticking it here moves the window's switch, and the switch moving elsewhere ticks it here,
so the preview never plans with another redaction than the one send would use (R1). A
warning stays in view while redaction is off.
"""

from __future__ import annotations

from PySide6.QtCore import QObject, Signal
from PySide6.QtWidgets import QCheckBox, QWidget

from explorer.ui.sharing.redaction_switch import RedactionSwitch, warning_label, window_redacts

TOOLTIP = ("Replace API keys, tokens and passwords by [redacted: kind] before pages, the fact "
           "sheet and the body are made, as send does")


class RedactionOption(QObject):
    """The box and its warning; ``changed`` says the plan must be made again."""

    changed = Signal(bool)

    def __init__(self, parent: QWidget) -> None:
        super().__init__(parent)
        self.box = QCheckBox("Redact secrets")
        self.box.setChecked(window_redacts(parent.parent()))
        self.box.setToolTip(TOOLTIP)
        self.warning = warning_label()
        self.warning.setVisible(not self.box.isChecked())
        self.switch: RedactionSwitch | None = None
        self.box.toggled.connect(self._toggled)

    @property
    def on(self) -> bool:
        return self.box.isChecked()

    def bind(self, switch: RedactionSwitch) -> None:
        """Follow the window's switch, and move it when the box is ticked here: one state."""
        self.switch = switch
        self.box.setChecked(switch.on)
        switch.toggled.connect(self.box.setChecked)

    def _toggled(self, on: bool) -> None:
        self.warning.setVisible(not on)
        if self.switch is not None and self.switch.on != on:
            self.switch.set_on(on)
        self.changed.emit(on)
