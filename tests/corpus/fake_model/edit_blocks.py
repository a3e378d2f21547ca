"""Edits spelled in the answer's text, for clients that take no tool calls (aider).

A prompt line ``TOOL:aider-edit:<path>:<old>=><new>`` asks for one SEARCH/REPLACE block;
every such line of the prompt is answered in one reply, the way aider's ``diff`` edit
format expects them (the file name on its own line, then the fenced block).
"""

from __future__ import annotations

import re

EDIT_MARKER = re.compile(r"^\s*TOOL:aider-edit:([^:]+):(.*)=>(.*)$")


def edit_reply(prompt: str, n: int) -> str | None:
    """The answer holding a block for each edit marker of ``prompt``; None without one."""
    found = [m.groups() for m in (EDIT_MARKER.match(line) for line in prompt.splitlines()) if m]
    if not found:
        return None
    blocks = [f"{path.strip()}\n```\n<<<<<<< SEARCH\n{old}\n=======\n{new}\n>>>>>>> REPLACE\n```"
              for path, old, new in found]
    return f"Editing as asked (reply {n}).\n\n" + "\n\n".join(blocks)
