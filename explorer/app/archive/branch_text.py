"""``get_branch``: the path from the root to a message as compact text, turn by turn.

An agent reading what happened wants the prompts and answers, not every byte a tool
printed: tool calls and their output are folded to one line each, output past a size the
caller chooses is elided with its length, thinking is a length unless asked for. Without
``start_turn`` the result ends at the message and reaches back as far as the budget goes
(what led up to it matters most); with it, it reads forward, for paging from the start.
"""

from __future__ import annotations

from collections.abc import Sequence
from datetime import UTC, datetime
from typing import Any

from explorer.app.archive.arguments import ArgumentError, Param
from explorer.app.archive.bounds import Budget, cut_text
from explorer.app.archive.session import Archive
from explorer.tree.model import Message, Part
from explorer.tree.turns import split_turns

PARAMS = [
    Param("message", "integer", "the message the path leads to (its id)", required=True,
          minimum=1),
    Param("max_tool_chars", "integer", "characters of each tool call's input and output "
          "kept; the rest is elided with its length (0: lengths only)", default=300,
          minimum=0, maximum=20_000),
    Param("start_turn", "integer", "read forward from this turn (1 is the first; 0: what "
          "comes before the first prompt); default: end at the message, reach back",
          minimum=0),
    Param("thinking", "boolean", "show the model's thinking (cut as tool output is)",
          default=False),
]


def _segments(path: Sequence[Message]) -> list[tuple[int, list[Message]]]:
    """(turn number, messages): turn 0 is what comes before the first prompt, if anything."""
    turns = split_turns(path)
    first = turns[0].start if turns else len(path)
    out = [(0, list(path[:first]))] if first else []
    return out + [(n, list(path[t.start:t.end])) for n, t in enumerate(turns, start=1)]


class _Renderer:
    def __init__(self, archive: Archive, tool_chars: int, thinking: bool) -> None:
        self.archive = archive
        self.tool_chars = tool_chars
        self.thinking = thinking
        self.tool_names: dict[str, str] = {}

    def turn(self, number: int, messages: list[Message]) -> str:
        shown = self.archive.messages(messages)
        ids = [m.id for m in shown]
        head = (f"── turn {number}" if number else "── before the first prompt") + (
            f" · messages {ids[0]}–{ids[-1]}" if len(ids) > 1 else f" · message {ids[0]}")
        lines = [head]
        for m in shown:
            lines.extend(self.message(m))
        return "\n".join(lines)

    def message(self, m: Message) -> list[str]:
        out: list[str] = []
        if not m.is_tool_result_only:
            when = (datetime.fromtimestamp(m.created_at, UTC).strftime(" · %Y-%m-%d %H:%M")
                    if m.created_at else "")
            out.append(f"[#{m.id} {m.role}" + (f" · {m.model}" if m.model else "")
                       + f"{when}]")
        for p in m.parts:
            out.extend(self.part(m, p))
        return out

    def part(self, m: Message, p: Part) -> list[str]:
        if p.kind == "text":
            return [p.text.rstrip()] if p.text.strip() else []
        if p.kind == "thinking":
            if not self.thinking:
                return [f"  (thinking, {len(p.text):,} characters)"]
            return ["  (thinking) " + cut_text(p.text.strip(), self.tool_chars)]
        if p.kind == "tool_use":
            if p.tool_use_id:
                self.tool_names[p.tool_use_id] = p.tool_name or "tool"
            args = " ".join(p.text.split())
            return [f"  → {p.tool_name or 'tool'} " + self._folded(args)]
        if p.kind == "tool_result":
            name = self.tool_names.get(p.tool_use_id or "", "tool")
            mark = "✗" if p.is_error else "←"
            lines = p.text.count("\n") + 1 if p.text else 0
            size = f"{lines:,} line{'s' if lines != 1 else ''}, {len(p.text):,} characters"
            return [f"  {mark} #{m.id} {name} ({size}): " + self._folded(p.text.strip())]
        kb = len(p.data or b"") / 1024
        return [f"  [image {p.media_type or ''}, {kb:,.1f} KB]"]

    def _folded(self, text: str) -> str:
        if self.tool_chars == 0:
            return "…" if text else ""
        return cut_text(text.replace("\n", " ⏎ "), self.tool_chars)


def get_branch(archive: Archive, args: dict[str, Any]) -> dict[str, Any]:
    store = archive.store
    mid = args["message"]
    conv_id = store.message_conversation(mid)
    conv = store.conversation(conv_id, boundary=False)
    path = store.path(conv_id, mid)
    segments = _segments(path)
    render = _Renderer(archive, args["max_tool_chars"], args["thinking"])
    for m in path:  # tool names for results whose call is in an earlier, unshown turn
        for p in m.tool_uses():
            if p.tool_use_id:
                render.tool_names[p.tool_use_id] = p.tool_name or "tool"
    budget = Budget(args["max_chars"])
    header = (f"# {conv.display_title} (conversation {conv_id}): the path to message {mid}, "
              f"{len(path):,} messages in {sum(1 for n, _ in segments if n):,} turns")
    budget.fits(header)
    start = args["start_turn"]
    order = (segments if start is None
             else [s for s in segments if s[0] >= start])
    if start is not None and not order:
        last = segments[-1][0] if segments else 0
        raise ArgumentError(f"the path to message {mid} has no turn {start} (its last is {last})")
    picked: list[tuple[int, str]] = []
    walk = order if start is not None else list(reversed(order))
    for number, messages in walk:
        text = render.turn(number, messages)
        if not budget.fits(text):
            if not picked:  # the one turn that does not fit is shown cut, not left out
                text = _shorten(text, budget.left)
                budget.fits(text)
                picked.append((number, text))
                budget.say(f"turn {number} was longer than max_chars and is shown cut")
            break
        picked.append((number, text))
    picked.sort()
    numbers = [n for n, _ in picked]
    result: dict[str, Any] = {
        "conversation": conv_id, "title": conv.display_title, "message": mid,
        "path_messages": len(path), "turns": sum(1 for n, _ in segments if n),
        "from_turn": numbers[0] if numbers else None,
        "to_turn": numbers[-1] if numbers else None, "next_start_turn": None,
    }
    first_turn = segments[0][0] if segments else 0
    if numbers and numbers[0] > first_turn:
        budget.say(f"turns {first_turn}–{numbers[0] - 1} are left out: call again with "
                   f"start_turn={first_turn} to read from the start")
    if start is not None and numbers and numbers[-1] < segments[-1][0]:
        result["next_start_turn"] = numbers[-1] + 1
        budget.say(f"turns after {numbers[-1]} are left out: call again with "
                   f"start_turn={numbers[-1] + 1}")
    result["text"] = "\n\n".join([header, *(t for _, t in picked)])
    return budget.finish(result)


def _shorten(text: str, room: int) -> str:
    """A turn too long for the room left: its start and its end, the middle elided."""
    room = max(200, room - 60)
    if len(text) <= room:
        return text
    head, tail = room // 3, room - room // 3
    return f"{text[:head]}\n… [{len(text) - head - tail:,} characters elided] …\n{text[-tail:]}"
