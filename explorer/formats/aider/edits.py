"""The edits in an aider answer: SEARCH/REPLACE blocks become tool calls.

aider asks the model for edits as text (``path``, a fence, ``<<<<<<< SEARCH``, the old
lines, ``=======``, the new lines, ``>>>>>>> REPLACE``) and applies them itself, then says
``Applied edit to <path>``. Shown as a call with its result, an edit reads like every
other agent's; the block as the model wrote it stays in the call's ``meta["block"]``, so
nothing of the answer is lost. Other edit formats (whole files, unified diffs) stay text,
and get a call per ``Applied edit to`` line instead.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass

from explorer.tree.model import Part

HEAD = re.compile(r"^<{5,9} SEARCH>?\s*$")
DIVIDER = re.compile(r"^={5,9}\s*$")
UPDATED = re.compile(r"^>{5,9} REPLACE\s*$")
APPLIED = re.compile(r"^(?:Applied edit to|Did not apply edit to) (.+?)(?: \(--dry-run\))?$")
TOOL = "edit"


@dataclass(frozen=True)
class Block:
    start: int  # first line of the block (its file name, when given above it)
    end: int  # the line after it
    path: str
    search: str
    replace: str


def _fence(line: str) -> bool:
    return line.strip().startswith("```")


def _file_name(lines: list[str], head: int, floor: int) -> tuple[str | None, int]:
    """The file named in the (up to three) lines above a block, and where it starts."""
    for k in range(head - 1, max(floor, head - 4) - 1, -1):
        text = lines[k].strip()
        if not text or _fence(text):
            continue
        return text.strip("`*:# ").strip() or None, k
    return None, head


def blocks(text: str) -> list[Block]:
    """Every complete SEARCH/REPLACE block, in order; a broken one stays text."""
    lines = text.split("\n")
    found: list[Block] = []
    i, floor, current = 0, 0, ""
    while i < len(lines):
        if not HEAD.match(lines[i].strip()):
            i += 1
            continue
        name, start = _file_name(lines, i, floor)
        divider = next((j for j in range(i + 1, len(lines)) if DIVIDER.match(lines[j].strip())),
                       None)
        updated = None if divider is None else next(
            (j for j in range(divider + 1, len(lines)) if UPDATED.match(lines[j].strip())), None)
        if divider is None or updated is None or not (name or current):
            i += 1
            continue
        current = name or current
        if name is None:
            start = i - 1 if i > floor and _fence(lines[i - 1]) else i
        end = updated + 1
        if end < len(lines) and _fence(lines[end]):
            end += 1
        found.append(Block(start, end, current, "\n".join(lines[i + 1:divider]),
                           "\n".join(lines[divider + 1:updated])))
        i = floor = end
    return found


def answer_parts(text: str, key: str) -> list[Part]:
    """The answer as text and edit calls, in the order the model wrote them."""
    lines = text.split("\n")
    parts: list[Part] = []
    at = 0
    for n, block in enumerate(blocks(text)):
        before = "\n".join(lines[at:block.start]).strip("\n")
        if before.strip():
            parts.append(Part("text", before))
        args = {"path": block.path, "search": block.search, "replace": block.replace}
        parts.append(Part("tool_use", json.dumps(args, ensure_ascii=False), tool_name=TOOL,
                          tool_use_id=f"{key}-edit{n + 1}",
                          meta={"block": "\n".join(lines[block.start:block.end])}))
        at = block.end
    rest = "\n".join(lines[at:]).strip("\n")
    if rest.strip() or not parts:
        parts.append(Part("text", rest))
    return parts


def applied_paths(outcome: list[str]) -> list[str]:
    """The files aider says it edited (or would have, in a dry run), in order."""
    out: list[str] = []
    for line in outcome:
        m = APPLIED.match(line.strip())
        if m and m.group(1) not in out:
            out.append(m.group(1))
    return out


def late_calls(outcome: list[str], key: str) -> list[Part]:
    """A call per edited file, for an answer whose edits are not SEARCH/REPLACE blocks."""
    return [Part("tool_use", json.dumps({"path": p}, ensure_ascii=False), tool_name=TOOL,
                 tool_use_id=f"{key}-edit{n + 1}") for n, p in enumerate(applied_paths(outcome))]


def results(calls: list[Part], outcome: list[str]) -> list[Part]:
    """What aider said about each call: its own lines when it names the file, else all."""
    out: list[Part] = []
    for call in calls:
        path = str(json.loads(call.text).get("path", ""))
        own = [line for line in outcome if path and (line.strip().endswith(path)
               or f" {path} " in line)]
        ok = path in applied_paths(own)
        out.append(Part("tool_result", "\n".join(own or outcome), tool_use_id=call.tool_use_id,
                        is_error=not ok))
    return out
