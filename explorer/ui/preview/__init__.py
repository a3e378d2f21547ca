"""The compaction preview window and the context bar (SPEC §5, §7)."""

from explorer.ui.preview.context_bar import ContextBar, ContextPanel
from explorer.ui.preview.window import CompactionPreview

__all__ = ["CompactionPreview", "ContextBar", "ContextPanel"]
