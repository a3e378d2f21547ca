"""Whether a window can be shown, decided before Qt is asked (Qt aborts the process,
exit 134, when its platform plugin finds no display)."""

from __future__ import annotations

import os
import sys

NEEDED = ("the window needs a display, and none was found (DISPLAY and WAYLAND_DISPLAY "
          "are unset); use a subcommand (convo --help), or --screenshot FILE to draw it "
          "offscreen")


def available() -> bool:
    """True on Windows and macOS, when Qt's platform is chosen explicitly, or when an X11
    or Wayland display is named in the environment."""
    if sys.platform in ("win32", "darwin") or os.environ.get("QT_QPA_PLATFORM"):
        return True
    return bool(os.environ.get("DISPLAY") or os.environ.get("WAYLAND_DISPLAY"))


def use_offscreen() -> None:
    """Draw without a display (the screenshot and the smoke test need no screen)."""
    os.environ["QT_QPA_PLATFORM"] = "offscreen"
