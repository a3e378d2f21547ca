"""Short words for a turn: the prompt's first words, the answer's, and tool chips.

Claude Code writes slash commands as tags (``<command-name>/exit</command-name>``);
a label shows the command, not the markup.
"""

from __future__ import annotations

import re
from collections.abc import Mapping

LABEL_CHARS = 60
_COMMAND = re.compile(r"<command-name>\s*(.*?)\s*</command-name>", re.S)
_TAG = re.compile(r"</?[a-z][a-z0-9-]*>")
MACHINE_NAMES = {
    "system-reminder": "system reminder", "task-notification": "task notification",
    "user-prompt-submit-hook": "hook output", "local-command-stdout": "command output",
    "local-command-stderr": "command output", "bash-stdout": "shell output",
    "bash-stderr": "shell output", "local-command-caveat": "command caveat",
}
"""Blocks an agent puts in the user's place, and what a title calls a turn made of them."""
_MACHINE = re.compile(r"<(" + "|".join(MACHINE_NAMES) + r")>.*?(?:</\1>|$)", re.S)


def first_words(text: str, limit: int = LABEL_CHARS) -> str:
    """``text`` on one line, cut at a word boundary with an ellipsis when longer than ``limit``;
    Markdown's strong-emphasis markers go (a label has no bold to give them)."""
    line = " ".join(text.replace("**", "").replace("__", "").split())
    if len(line) <= limit:
        return line
    cut = line[: limit - 1]
    space = cut.rfind(" ")
    if space > limit // 2:
        cut = cut[:space]
    return cut.rstrip(" ,.;:") + "…"


def prompt_words(preview: str, limit: int = LABEL_CHARS) -> str:
    """A turn's title: the words a person wrote, past what the agent injected in their place
    (a reminder, a task notification, a hook's output); a turn with none is named by what
    opened it ("⟲ task notification"), never by a task id or a temporary file's path."""
    if "<" not in preview:  # no tags to read past (most prompts): skip the expressions
        return first_words(preview, limit)
    command = _COMMAND.search(preview)
    if command:
        return first_words(command.group(1), limit)
    human = _TAG.sub(" ", _MACHINE.sub(" ", preview))
    if human.strip():
        return first_words(human, limit)
    injected = _MACHINE.search(preview)
    kind = injected.group(1) if injected else ""
    return f"⟲ {MACHINE_NAMES.get(kind, kind.replace('-', ' ') or 'agent message')}"


def answer_words(preview: str, limit: int = LABEL_CHARS) -> str:
    return first_words(preview, limit)


def chips(tool_calls: int, tool_errors: int) -> str:
    """``⚙ 12  ✗ 2``: how many tool calls a turn made and how many came back as errors."""
    out = []
    if tool_calls:
        out.append(f"⚙ {tool_calls}")
    if tool_errors:
        out.append(f"✗ {tool_errors}")
    return "  ".join(out)


def top_tools(tools: Mapping[str, int], limit: int = 4) -> str:
    """``Bash ×5, Read ×3, +2 more``: the tools a turn used most."""
    ranked = sorted(tools.items(), key=lambda kv: (-kv[1], kv[0]))
    parts = [f"{name} ×{n}" if n > 1 else name for name, n in ranked[:limit]]
    if len(ranked) > limit:
        parts.append(f"+{len(ranked) - limit} more")
    return ", ".join(parts)
