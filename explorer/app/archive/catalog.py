"""The tools ``convo mcp`` offers, declared once: name, what it is for, its arguments, and
what answers it. The server lists them from here and the README documents them from here.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any

from explorer.app.archive import branch_text, branches, context_tool, finding, listing, writes
from explorer.app.archive.arguments import ArgumentError, Param, read_arguments, schema
from explorer.app.archive.bounds import guard, max_chars_param, page_params
from explorer.app.archive.session import Archive

Handler = Callable[[Archive, dict[str, Any]], dict[str, Any]]
_CONV = Param("conversation", "integer", "the conversation's id", required=True, minimum=1)


@dataclass(frozen=True)
class Tool:
    name: str
    description: str
    params: list[Param]
    run: Handler
    writes: bool = False

    def input_schema(self) -> dict[str, Any]:
        return schema(self.params)


def _reading(name: str, description: str, params: list[Param], run: Handler) -> Tool:
    return Tool(name, description, [*params, max_chars_param()], run)


TOOLS: list[Tool] = [
    _reading("list_conversations",
             "Conversations in the archive, newest first: id, title, source tool, project "
             "folder, message count, dates. Filter by source, project folder, title or date; "
             "paged.", [*listing.LIST_PARAMS, *page_params(50, 200)],
             listing.list_conversations),
    _reading("search",
             "Full-text search over every conversation (prompts, answers, tool calls and "
             "output). Ranked hits, one per message: conversation, message id, role and a "
             "snippet; paged.", [*finding.PARAMS, *page_params(20, 100)], finding.search),
    _reading("get_branch",
             "The path from the root to a message as compact text, turn by turn: prompts "
             "and answers whole, each tool call and its output on one line, output past "
             "max_tool_chars elided with its length. Ends at the message and reaches back as "
             "far as max_chars allows; start_turn pages forward.", branch_text.PARAMS,
             branch_text.get_branch),
    _reading("list_branches",
             "A conversation's branch points (edited prompts, regenerated answers): each "
             "sibling's first words, the tip its branch leads to, whether it is on the "
             "active path or archived; paged.", [*branches.BRANCH_PARAMS, *page_params(20, 200)],
             branches.list_branches),
    _reading("compare",
             "Two messages' branches side by side from where they split, turn by turn, the "
             "differing words marked {+own+} and [-missing-] against the active branch.",
             branches.COMPARE_PARAMS, branches.compare),
    _reading("context_at",
             "What the model saw at a message: the request as it was (or would be) sent there, "
             "part by part with token counts, compaction records and totals by section.",
             context_tool.PARAMS, context_tool.context_at),
    _reading("checkpoints",
             "A conversation's checkpoints (labelled turn boundaries) with the message each "
             "labels, and its rewinds.", [_CONV], listing.checkpoints),
]
WRITE_TOOLS: list[Tool] = [
    Tool("label", "Name the branch that starts at (or runs through) a message. Refused where "
         "the message already has another name.", writes.LABEL_PARAMS, writes.label, True),
    Tool("note", "Attach a note to a message (shown in the window's tree and transcript). "
         "Refused where it already has another note.", writes.NOTE_PARAMS, writes.note, True),
    Tool("checkpoint", "Label a clean turn boundary as a checkpoint (refused inside a turn, "
         "with the reason).", writes.CHECKPOINT_PARAMS, writes.checkpoint, True),
]


def offered(archive: Archive) -> list[Tool]:
    """The tools this server lists: the write tools only when the person allowed writes."""
    return TOOLS + (WRITE_TOOLS if archive.writes else [])


def call(archive: Archive, name: str, given: Mapping[str, Any] | None) -> dict[str, Any]:
    """Run tool ``name``; its result redacted on the way out and bounded. A refusal or a
    malformed request raises an error whose text is the one line the agent is shown."""
    tool = next((t for t in offered(archive) if t.name == name), None)
    if tool is None:
        hidden = any(t.name == name for t in WRITE_TOOLS)
        raise ArgumentError(
            f"{name} changes the archive: the person must start the server with "
            "convo mcp --allow-writes" if hidden else
            f"no tool {name!r} (the tools: {', '.join(t.name for t in offered(archive))})")
    args = read_arguments(name, tool.params, given)
    result = archive.outgoing(tool.run(archive, args))
    return guard(result, args.get("max_chars") or 4_000)
