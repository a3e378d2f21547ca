"""The exact strings of a stretch of conversation, by kind, for the loss report (L8).

What a compaction can lose unseen is an exact string: a command that was run, a path, an id or
hash, a URL, a number with its name, an error, a decision the person stated. Paths, ids, URLs and
numbers are found by the fact sheet's own patterns (``facts``), so the report and the sheet agree
on what a string is; commands come from shell tools' inputs, errors from the first line of a
failed tool result, decisions from the person's sentences that steer (``let's``, ``don't``,
``use``, ...). Items are yielded message by message so a long conversation streams.
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterable, Iterator
from dataclasses import dataclass
from typing import Any

from explorer.compaction.facts import MARKER_KEYS, NUMERIC_KINDS, Fact, sourced_facts
from explorer.tree.model import Message, Part

KINDS = ("command", "path", "id", "url", "number", "error", "decision")
FACT_KIND = {**dict.fromkeys(NUMERIC_KINDS, "number"), "url": "url", "uuid": "id",
             "hash": "id", "id": "id", "version": "id", "path": "path", "location": "path"}
SHELL_TOOLS = frozenset({"bash", "shell", "exec_command", "run_shell_command", "local_shell",
                         "execute_command", "terminal", "run_terminal_cmd", "powershell"})
COMMAND_KEYS = ("command", "cmd", "script")
LONGEST = 400  # an error line or a decision past this is cut (the item names where it is)
_DECISION = re.compile(
    r"^(?:ok(?:ay)?,?\s+|so,?\s+|then,?\s+|and\s+|please,?\s+)?"
    r"(?:let'?s|let us|don'?t|do not|never|always|use|we should|we'll|we will|must|"
    r"stop|instead|keep|avoid|prefer|make sure|switch to|go with|stick with)\b",
    re.I,
)
_ERROR_WORD = re.compile(r"error|exception|failed|fatal|denied|not found|no such|refused", re.I)
_SENTENCE = re.compile(r"[^.!?\n]+[.!?]?")


@dataclass(frozen=True)
class Item:
    """One exact string and the message it first appears in."""

    kind: str
    text: str
    message_id: Any
    name: str = ""  # a number's name (``duration_ms``), written beside it on the sheet


def _command_of(part: Part) -> str | None:
    """The command a shell tool call ran, as one string (an argv list joined by spaces)."""
    if (part.tool_name or "").lower() not in SHELL_TOOLS:
        return None
    try:
        data = json.loads(part.text)
    except ValueError:
        return part.text.strip() or None
    if not isinstance(data, dict):
        return None
    for key in COMMAND_KEYS:
        value = data.get(key)
        if isinstance(value, list) and all(isinstance(v, str) for v in value):
            value = " ".join(value)
        if isinstance(value, str) and value.strip():
            return value.strip()
    return None


def _error_of(part: Part) -> str | None:
    """The line of a failed tool result that says what failed: the first naming an error,
    else a traceback's last line, else the first line."""
    if part.kind != "tool_result" or not part.is_error:
        return None
    lines = [line.strip() for line in part.text.splitlines() if line.strip()]
    if not lines:
        return None
    named = next((line for line in lines if _ERROR_WORD.search(line)), None)
    if named is None:
        named = lines[-1] if lines[0].startswith("Traceback") else lines[0]
    return named[:LONGEST]


def decisions(text: str) -> list[str]:
    """The sentences of a person's message that steer the work (``let's keep the cache``)."""
    out = []
    for m in _SENTENCE.finditer(text):
        sentence = m.group().strip()
        if len(sentence) > 8 and _DECISION.match(sentence):
            out.append(sentence[:LONGEST])
    return out


def _name(fact: Fact) -> str:
    return fact.context.strip(" =:\"'") if fact.kind == "number" else ""


def message_items(message: Message, files: dict[str, str] | None = None) -> Iterator[Item]:
    """Every item of one message, in order (repeats included; ``items`` drops them).

    ``files`` (kept across the messages of a path) ties a read's ``Line N`` to its file.
    """
    mid = message.id
    for part in message.parts:
        if part.kind == "image" or MARKER_KEYS.intersection(part.meta):
            continue
        if part.kind == "tool_use":
            command = _command_of(part)
            if command is not None:
                yield Item("command", command, mid)
        error = _error_of(part)
        if error is not None:
            yield Item("error", error, mid)
        if message.role == "user" and part.kind == "text":
            yield from (Item("decision", d, mid) for d in decisions(part.text))
    for narrative, fact in sourced_facts([message], files):
        if fact.kind == "number" and not narrative:
            continue  # as the sheet: a tool's output holds thousands of bare numbers
        yield Item(FACT_KIND.get(fact.kind, "number"), fact.value, mid, _name(fact))


def items(messages: Iterable[Message]) -> Iterator[Item]:
    """Each exact string of ``messages`` once, where it first appears."""
    seen: set[tuple[str, str]] = set()
    files: dict[str, str] = {}
    for message in messages:
        for item in message_items(message, files):
            key = (item.kind, item.text)
            if key not in seen:
                seen.add(key)
                yield item
