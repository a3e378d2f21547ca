"""Every export format besides the lossless ``native`` one and the provider request bodies
(``anthropic``, ``openai``: their one encoder lives in ``explorer.providers``; the app's
registry, ``explorer.app.sharing.exporting.EXPORTERS``, holds all of them).

An exporter turns a conversation into text lines (no line endings): pass the
conversation's fields as ``header``, its messages in tree order (parents before
children) and the tip. Every exporter writes the path from the root to ``tip``
(to the last message when ``tip`` is None); a caller exporting one branch may
pass only that path. Exporters never fail on odd content: what a format cannot
hold is changed or left out, and each such change is appended to ``notes``.

Header fields read (all optional): ``title``, ``source_id``, ``created_at``
(epoch seconds), ``cwd``, and ``meta`` (``cwd``, ``version``, ``git_branch``).
"""

from __future__ import annotations

from collections.abc import Hashable, Iterator, Mapping, Sequence
from dataclasses import dataclass
from typing import Any, Protocol

from explorer.formats.exporters import claude_code, codex, gemini_cli, html, markdown, opencode, pi
from explorer.tree.model import Message


class LinesFunction(Protocol):
    def __call__(self, header: Mapping[str, Any], messages: Sequence[Message],
                 tip: Hashable | None, notes: list[str] | None = None) -> Iterator[str]: ...


@dataclass(frozen=True)
class Exporter:
    """A format: its name on the command line, file suffix, and how to write it."""

    name: str
    suffix: str
    description: str
    lines: LinesFunction


EXPORTERS: dict[str, Exporter] = {e.name: e for e in (
    Exporter("markdown", ".md", "Markdown transcript of the path", markdown.lines),
    Exporter("html", ".html", "self-contained HTML page of the path, all content escaped",
             html.lines),
    Exporter("claude-code", ".jsonl", "Claude Code session file that claude --resume continues",
             claude_code.lines),
    Exporter("pi", ".jsonl", "pi coding-agent session file (version 3)", pi.lines),
    Exporter("codex", ".jsonl", "Codex CLI rollout that codex resume continues", codex.lines),
    Exporter("gemini-cli", ".jsonl", "Gemini CLI chat file that gemini --resume continues",
             gemini_cli.lines),
    Exporter("opencode", ".json", "OpenCode session export that opencode import takes",
             opencode.lines),
)}
