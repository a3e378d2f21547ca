"""The compaction preview window and the context bar (SPEC §5, §7).

The names load on first use: the window shows the context bar at start, the
preview (pages, probes, providers) only when it is opened.
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from explorer.ui.preview.context_bar import ContextBar
    from explorer.ui.preview.context_panel import ContextPanel
    from explorer.ui.preview.window import CompactionPreview

__all__ = ["CompactionPreview", "ContextBar", "ContextPanel"]

_HOMES = {"CompactionPreview": "window", "ContextBar": "context_bar",
          "ContextPanel": "context_panel"}


def __getattr__(name: str) -> Any:
    home = _HOMES.get(name)
    if home is None:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    return getattr(importlib.import_module(f"{__name__}.{home}"), name)
