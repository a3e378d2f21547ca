"""One ChatGPT conversation object (``mapping`` + ``current_node``) as a tree.

The tree is rebuilt from ``parent`` pointers only (``children`` lists go stale
in real exports). Nodes without a message, such as the usual empty root, are
left out and their children hang from the nearest real ancestor instead.
"""

from __future__ import annotations

from collections.abc import Container, Hashable
from typing import Any

from explorer.formats.base import ImportedConversation
from explorer.formats.chatgpt.assets import Images
from explorer.formats.chatgpt.content import convert_message, epoch, text_of
from explorer.formats.json_stream import duplicate_keys
from explorer.tree.model import Message
from explorer.tree.paths import newest_leaf
from explorer.tree.repair import repair_tree

FORMAT = "chatgpt"
_CONVERSATION_META = (
    "update_time",
    "default_model_slug",
    "gizmo_id",
    "is_archived",
    "is_starred",
    "conversation_origin",
)


class NotAConversation(ValueError):
    """The object lacks what every conversation has; the message says what."""


def convert_conversation(
    conv: dict[str, Any], images: Images, source_path: str
) -> ImportedConversation:
    """Build the imported record; repairs and skips are listed in its notes."""
    mapping = conv.get("mapping")
    if not isinstance(mapping, dict):
        raise NotAConversation("it has no 'mapping' object")
    notes = [
        f"node {k!r} appears twice in 'mapping': kept the first" for k in duplicate_keys(mapping)
    ]
    parents = _parents(mapping, notes)
    messages = _messages(mapping, parents, images, notes)
    repaired = repair_tree(messages)
    notes.extend(repaired.notes)
    link_tool_results(repaired.messages, notes)
    by_id = {m.id: m for m in repaired.messages}
    tip = _tip(conv.get("current_node"), parents, by_id, repaired.messages, notes)
    title = text_of(conv.get("title")) or "Untitled"
    source_id = text_of(conv.get("id")) or text_of(conv.get("conversation_id")) or None
    meta = {k: conv[k] for k in _CONVERSATION_META if conv.get(k) is not None}
    tip_msg = by_id.get(tip) if tip is not None else None
    return ImportedConversation(
        title=title,
        source_format=FORMAT,
        messages=repaired.messages,
        tip=tip,
        source_id=source_id,
        source_path=source_path,
        created_at=epoch(conv.get("create_time")),
        meta=meta,
        incomplete=bool(tip_msg and tip_msg.source_meta.get("in_progress")),
        notes=notes,
    )


def _parents(mapping: dict[str, Any], notes: list[str]) -> dict[str, str | None]:
    """Node key → parent key, for every node that is an object."""
    parents: dict[str, str | None] = {}
    for key, node in mapping.items():
        if not isinstance(node, dict):
            notes.append(f"node {key!r} is not an object ({type(node).__name__}); skipped")
            continue
        parent = node.get("parent")
        if parent is not None and not isinstance(parent, str):
            notes.append(f"node {key!r}: parent {parent!r} is not an id; made it a root")
            parent = None
        parents[key] = parent
    return parents


def _messages(
    mapping: dict[str, Any], parents: dict[str, str | None], images: Images, notes: list[str]
) -> list[Message]:
    real: dict[str, dict[str, Any]] = {}
    for key in parents:
        msg = mapping[key].get("message")
        if isinstance(msg, dict):
            real[key] = msg
        elif msg is not None:
            notes.append(f"node {key!r}: message is not an object; skipped it")
    out: list[Message] = []
    for key, msg in real.items():
        try:
            c = convert_message(key, msg, images)
        except (TypeError, ValueError, KeyError, AttributeError) as e:
            notes.append(f"node {key!r}: message could not be read ({e}); skipped it")
            continue
        notes.extend(f"node {key!r}: {n}" for n in c.notes)
        out.append(
            Message(
                id=key,
                parent_id=_nearest_real(parents.get(key), parents, real),
                role=c.role,
                parts=c.parts,
                created_at=c.created_at,
                model=c.model,
                source_id=text_of(msg.get("id")) or key,
                source_meta=c.meta,
            )
        )
    return out


def _nearest_real(
    start: str | None, parents: dict[str, str | None], real: Container[Hashable]
) -> str | None:
    """The closest ancestor carrying a message; a missing key is returned for repair to note."""
    node, seen = start, set()
    while node is not None and node not in real:
        if node not in parents:
            return node  # dangling: repair_tree roots it and says so
        if node in seen:
            return None
        seen.add(node)
        node = parents[node]
    return node


def link_tool_results(messages: list[Message], notes: list[str]) -> None:
    """Give each tool result the id of the call it answers: the nearest call above it."""
    by_id = {m.id: m for m in messages}
    orphans = 0
    for m in messages:
        for part in m.parts:
            if part.kind != "tool_result" or part.tool_use_id is not None:
                continue
            call = _call_above(m, by_id)
            if call is None:
                part.kind = "text"
                part.meta["orphan_tool_output"] = True
                orphans += 1
            else:
                part.tool_use_id = call
    if orphans:
        notes.append(f"{orphans} tool output(s) had no call before them; kept as text")


def _call_above(m: Message, by_id: dict[Hashable, Message]) -> str | None:
    seen: set[Hashable] = set()
    node = by_id.get(m.parent_id) if m.parent_id is not None else None
    while node is not None and node.id not in seen:
        seen.add(node.id)
        if node.role != "tool":
            uses = node.tool_uses()
            return uses[-1].tool_use_id if uses and node.role == "assistant" else None
        node = by_id.get(node.parent_id) if node.parent_id is not None else None
    return None


def _tip(
    current: object,
    parents: dict[str, str | None],
    by_id: dict[Hashable, Message],
    messages: list[Message],
    notes: list[str],
) -> Hashable | None:
    if isinstance(current, str) and current in by_id:
        return current
    if isinstance(current, str) and current in parents:
        found = _nearest_real(current, parents, by_id)
        if found is not None and found in by_id:
            return found
    if not messages:
        return None
    notes.append(f"current_node {current!r} is not a message; the tip is the newest leaf instead")
    return newest_leaf(messages)
