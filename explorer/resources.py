"""Find the files shipped in the top-level ``resources/`` folder.

A source checkout keeps them beside the ``explorer`` package; a PyInstaller bundle unpacks them
under ``sys._MEIPASS``. Callers name a file by its parts and never care which of the two it is.
"""

from __future__ import annotations

import sys
from pathlib import Path

_CHECKOUT_ROOT = Path(__file__).resolve().parent.parent


def resources_root() -> Path:
    """The ``resources`` folder of this installation (bundle first, then the checkout)."""
    bundle = getattr(sys, "_MEIPASS", None)
    if isinstance(bundle, str):
        return Path(bundle) / "resources"
    return _CHECKOUT_ROOT / "resources"


def resource_path(*parts: str) -> Path:
    """The path of ``resources/<parts...>``; raises FileNotFoundError if it is missing."""
    path = resources_root().joinpath(*parts)
    if not path.exists():
        raise FileNotFoundError(f"bundled resource not found: {path}")
    return path
