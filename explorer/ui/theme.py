"""The light, dark or system colour scheme, applied to the running app.

Apart from the settings dialog so that starting the app does not import the dialog
(and the keyring and provider modules behind it).
"""

from __future__ import annotations

from PySide6.QtCore import Qt
from PySide6.QtGui import QColor, QPalette
from PySide6.QtWidgets import QApplication, QStyleFactory


def apply_theme(theme: str) -> bool:
    """Ask Qt for the light or dark scheme (or the system's); False if there is no app.

    Where the platform ignores the request (older Qt, some desktops, offscreen)
    the Fusion palette is set by hand so the choice still shows.
    """
    app = QApplication.instance()
    if not isinstance(app, QApplication):
        return False
    hints = app.styleHints()
    wanted = {"light": Qt.ColorScheme.Light, "dark": Qt.ColorScheme.Dark}.get(theme)
    if hasattr(hints, "setColorScheme"):
        if wanted is None:
            hints.unsetColorScheme()
        else:
            hints.setColorScheme(wanted)
    honoured = hasattr(hints, "colorScheme") and hints.colorScheme() == wanted
    if wanted is None or honoured:
        if app.property(_OWN_PALETTE):
            app.setPalette(QPalette())  # back to the platform's palette
            app.setProperty(_OWN_PALETTE, False)
    else:
        app.setPalette(_fusion_palette(app, wanted == Qt.ColorScheme.Dark))
        app.setProperty(_OWN_PALETTE, True)
    return True


_OWN_PALETTE = "explorerThemePalette"


def _fusion_palette(app: QApplication, dark: bool) -> QPalette:
    """Fusion's light palette, or a dark one built from the same roles."""
    fusion = QStyleFactory.create("Fusion") or app.style()
    palette = fusion.standardPalette()
    if not dark:
        return palette
    role = QPalette.ColorRole
    colours = {
        role.Window: "#2b2b2b", role.WindowText: "#e6e6e6", role.Base: "#1e1e1e",
        role.AlternateBase: "#2f2f2f", role.ToolTipBase: "#3a3a3a", role.ToolTipText: "#e6e6e6",
        role.Text: "#e6e6e6", role.Button: "#353535", role.ButtonText: "#e6e6e6",
        role.BrightText: "#ff6b6b", role.Highlight: "#3d7bd9", role.HighlightedText: "#ffffff",
        role.Link: "#6ea8ff", role.PlaceholderText: "#8c8c8c", role.Mid: "#3f3f3f",
        role.Light: "#4a4a4a", role.Midlight: "#404040", role.Dark: "#1a1a1a",
        role.Shadow: "#0d0d0d",
    }
    for r, colour in colours.items():
        palette.setColor(r, QColor(colour))
    disabled = QColor("#7a7a7a")
    for r in (role.Text, role.WindowText, role.ButtonText):
        palette.setColor(QPalette.ColorGroup.Disabled, r, disabled)
    return palette
