"""How an agent's messages read to a person: call summaries, command chips, result lines.

Coding agents write things a transcript should not show raw: Claude Code wraps local commands
in ``<command-name>`` / ``<local-command-stdout>`` tags, tool arguments arrive as JSON whose
string values hold escaped newlines, and tool output is often Markdown. These functions turn
them into what the window (and any other reader) shows, with no Qt, so they are tested alone.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass
from typing import Any

SUMMARY_WIDTH = 60

# Which argument names the call after the tool, per common agent tool (first present wins).
_SUMMARY_KEYS = ("command", "file_path", "path", "pattern", "url", "query", "description",
                 "prompt", "subject", "skill", "notebook_path", "code", "content")

_TAG = re.compile(
    r"<(local-command-caveat|command-name|command-message|command-args|local-command-stdout|"
    r"local-command-stderr|bash-input|bash-stdout|bash-stderr|user-prompt-submit-hook)>"
    r"(.*?)</\1>",
    re.DOTALL,
)

# Tag -> the chip's kind; a chip's text is what a person needs of it.
_CHIP_KINDS = {
    "local-command-caveat": "caveat",
    "command-name": "command",
    "command-message": "message",
    "command-args": "args",
    "local-command-stdout": "stdout",
    "local-command-stderr": "stderr",
    "bash-input": "shell",
    "bash-stdout": "stdout",
    "bash-stderr": "stderr",
    "user-prompt-submit-hook": "hook",
}

_MARKDOWN_HINTS = (
    re.compile(r"^#{1,6} \S", re.MULTILINE),          # headings
    re.compile(r"^```", re.MULTILINE),                # fences
    re.compile(r"^\s*[-*] \S", re.MULTILINE),         # bullet lists
    re.compile(r"^\s*\d+\. \S", re.MULTILINE),        # numbered lists
    re.compile(r"\*\*[^*\n]+\*\*"),                   # bold
    re.compile(r"^\|.+\|\s*$\n^\|[-:| ]+\|\s*$", re.MULTILINE),  # tables
    re.compile(r"\[[^\]\n]+\]\([^)\s]+\)"),           # links
)


@dataclass(frozen=True)
class CommandChip:
    """One agent command tag, shown as a small chip instead of raw markup."""

    kind: str
    text: str


def command_chips(text: str) -> list[CommandChip] | None:
    """The chips of a message made only of agent command tags, or None if it is prose.

    Empty tags (``<command-args></command-args>``) give no chip; the caveat that Claude Code
    writes before every local command is kept as a chip of its own kind so it can be muted.
    """
    stripped = text.strip()
    if not stripped or not _TAG.search(stripped):
        return None
    if _TAG.sub("", stripped).strip():
        return None
    chips = [CommandChip(_CHIP_KINDS[m.group(1)], m.group(2).strip())
             for m in _TAG.finditer(stripped) if m.group(2).strip()]
    commands = {c.text.lstrip("/") for c in chips if c.kind == "command"}
    # Claude Code repeats the command's name as its "message": one chip says it.
    return [c for c in chips if not (c.kind == "message" and c.text.lstrip("/") in commands)]


def chip_label(chip: CommandChip, width: int = SUMMARY_WIDTH) -> str:
    """What a chip says: the command itself, or its kind and the first words of its text."""
    if chip.kind == "command":
        return chip.text if chip.text.startswith("/") else f"/{chip.text}"
    if chip.kind == "caveat":
        return "local command"
    if chip.kind == "message":
        return shorten(chip.text, width)
    return f"{chip.kind}: {shorten(chip.text, width)}"


def shorten(text: str, width: int = SUMMARY_WIDTH) -> str:
    """``text`` on one line, cut with an ellipsis at ``width`` characters."""
    line = " ".join(text.split())
    return line if len(line) <= width else line[: width - 1].rstrip() + "…"


def parse_arguments(arguments: str) -> dict[str, Any] | None:
    """Tool arguments as a JSON object, or None when they are not one."""
    try:
        value = json.loads(arguments)
    except (ValueError, TypeError):
        return None
    return value if isinstance(value, dict) else None


def call_summary(name: str | None, arguments: str, width: int = SUMMARY_WIDTH) -> str:
    """``Bash(git merge …)``: the tool and the argument a person recognises the call by."""
    tool = name or "tool"
    args = parse_arguments(arguments)
    if args is None:
        return f"{tool}({shorten(arguments, width)})" if arguments.strip() else f"{tool}()"
    for key in _SUMMARY_KEYS:
        value = args.get(key)
        if isinstance(value, str) and value.strip():
            return f"{tool}({shorten(value, width)})"
    for value in args.values():
        if isinstance(value, str) and value.strip():
            return f"{tool}({shorten(value, width)})"
    return f"{tool}()" if not args else f"{tool}({shorten(', '.join(args), width)})"


def argument_fields(arguments: str) -> list[tuple[str, str]] | None:
    """A JSON object's fields as (name, text): strings verbatim with their real newlines.

    None when the arguments are not an object, so the caller shows them as they are. Other
    values are shown as compact JSON, which is how they were written.
    """
    args = parse_arguments(arguments)
    if args is None:
        return None
    fields = []
    for key, value in args.items():
        text = value if isinstance(value, str) else json.dumps(value, ensure_ascii=False,
                                                                indent=2 if isinstance(
                                                                    value, dict | list) else None)
        fields.append((str(key), text))
    return fields


def has_multiline_string(arguments: str) -> bool:
    """True when a string argument spans lines: then fields read better than JSON."""
    args = parse_arguments(arguments)
    return args is not None and any(isinstance(v, str) and "\n" in v for v in args.values())


def count_lines(text: str) -> int:
    return len(text.splitlines()) if text else 0


def result_summary(text: str, is_error: bool) -> str:
    """``✓ 24 lines`` or ``✗ failed · 3 lines``: a result's outcome before its text."""
    lines = count_lines(text)
    size = "empty" if not text.strip() else f"{lines:,} line{'s' if lines != 1 else ''}"
    return f"✗ failed · {size}" if is_error else f"✓ {size}"


def looks_like_markdown(text: str) -> bool:
    """True when tool output is Markdown a person would rather read rendered.

    Two different Markdown signs are asked for, so a log line that happens to start with
    ``- `` or a shell prompt with ``#`` is still shown as plain output.
    """
    if not text.strip():
        return False
    hits = sum(1 for pattern in _MARKDOWN_HINTS if pattern.search(text))
    return hits >= 2


def thinking_title(text: str, redacted: bool) -> str:
    """A thinking block's toggle text; redacted thinking, and thinking whose text the
    session file did not keep (Claude Code stores only its signature), say so instead of
    "0 words"."""
    if redacted:
        return "Thinking (redacted by the provider)"
    if not text.strip():
        return "Thinking (text not kept in the session file)"
    words = len(text.split())
    return f"Thinking ({words:,} word{'s' if words != 1 else ''})"
