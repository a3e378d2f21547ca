"""The window's one switch for redacting secrets in what leaves it (SPEC R1).

On by default: sends, the compaction preview (and its probes) and every export meant for
sharing replace API keys, tokens, private keys and passwords by ``[redacted: kind]``. The
person can turn it off for this session from File ▸ "Redact secrets" or the preview's own
checkbox; while it is off a red banner in the status bar and in the preview says so. Turning
it off here is never saved: the next start is on again unless the person turned it off in
Settings (the ``redact_secrets`` preference), which is the only way it stays off.
"""

from __future__ import annotations

from PySide6.QtCore import QObject, Qt, Signal
from PySide6.QtGui import QAction
from PySide6.QtWidgets import QLabel, QWidget

from explorer.app.preferences import load_app_prefs

REDACT_OFF_WARNING = ("⚠ Secrets are NOT redacted: sends, previews and exports carry API "
                      "keys, tokens and passwords exactly as stored.")
WARNING_STYLE = "color: white; background: #c92a2a; padding: 2px 6px; font-weight: bold;"


class RedactionSwitch(QObject):
    """A checkable action, the banner that warns while it is off, and the state they share."""

    toggled = Signal(bool)  # True: secrets are redacted

    def __init__(self, parent: QWidget, on: bool | None = None) -> None:
        super().__init__(parent)
        self.action = QAction("Redact secrets in sends, previews and exports", parent)
        self.action.setObjectName("redact_secrets")
        self.action.setCheckable(True)
        self.action.setToolTip("Replace API keys, tokens and passwords by [redacted: kind] "
                               "before anything leaves this program (this session only; "
                               "Settings holds the default)")
        self.banner = warning_label(parent)
        self.action.setChecked(load_app_prefs().redact if on is None else on)
        self.banner.setVisible(not self.action.isChecked())
        self.action.toggled.connect(self._changed)

    @property
    def on(self) -> bool:
        return self.action.isChecked()

    def set_on(self, on: bool) -> None:
        self.action.setChecked(on)

    def _changed(self, on: bool) -> None:
        self.banner.setVisible(not on)
        self.toggled.emit(on)


def window_redacts(widget: QObject | None) -> bool:
    """The switch of the window ``widget`` belongs to (the saved default without one)."""
    while widget is not None:
        switch = getattr(widget, "redaction", None)
        if isinstance(switch, RedactionSwitch):
            return switch.on
        widget = widget.parent()
    return load_app_prefs().redact


def warning_label(parent: QWidget | None = None) -> QLabel:
    """The red warning shown wherever secrets would leave unredacted."""
    label = QLabel(REDACT_OFF_WARNING, parent)
    label.setTextFormat(Qt.TextFormat.PlainText)
    label.setWordWrap(True)
    label.setStyleSheet(WARNING_STYLE)
    return label
