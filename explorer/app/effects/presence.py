"""Whether a conversation changed any file at all: one indexed question before any reading.

The window offers its Files tab only where there is something to show; asking means one
look for a file-writing call, not rebuilding every file (shell calls that patch, as Codex's
do, count too, since they may).
"""

from __future__ import annotations

from explorer.app.effects.readers import EDIT_TOOLS, PATCH_TOOLS, SHELL_TOOLS, WRITE_TOOLS
from explorer.store import Store

CHANGING = sorted(WRITE_TOOLS | EDIT_TOOLS | PATCH_TOOLS | SHELL_TOOLS)


def changes_files(store: Store, conv_id: int) -> bool:
    marks = ",".join("?" * len(CHANGING))
    row = store.reader.execute(
        "SELECT 1 FROM parts p JOIN messages m ON m.id = p.message_id "
        f"WHERE m.conversation_id = ? AND p.kind = 'tool_use' AND lower(p.tool_name) IN ({marks}) "
        "LIMIT 1", (conv_id, *CHANGING)).fetchone()
    return row is not None
