"""Reading the lines of one Claude Code session file into a :class:`Session`.

Claude Code writes one API response as several ``assistant`` lines that share
``message.id`` (one content block a line), and tool results can sit between
those lines. A line joins the node of an earlier line with the same
``message.id`` only when it descends from it through tool results and
non-message records, so a replayed id on another branch is never merged. The lines
that are not messages are read by :mod:`record_lines`.
"""

from __future__ import annotations

from typing import Any

from explorer.formats.claude_code.blocks import (
    as_dict,
    as_str,
    content_parts,
    parse_timestamp,
    usage_from,
)
from explorer.formats.claude_code.light import (
    RecentIds,
    interned,
    light_meta,
    light_parts,
    own_meta,
)
from explorer.formats.claude_code.record_lines import (
    add_boundary,
    add_notice,
    add_record,
    add_snapshot,
    line_meta,
)
from explorer.formats.claude_code.session import WALK_LIMIT, Node, Session
from explorer.tree.model import Part, Role


class SessionReader:
    """Feed entries in file order with :meth:`add`; the result is in :attr:`session`.

    ``light`` keeps of each message only what shaping the tree needs (see
    :mod:`explorer.formats.claude_code.content`) and the byte offsets of its lines, so
    that its full parts and metadata are read again when it is written.
    """

    def __init__(self, label: str = "line", *, light: bool = False) -> None:
        self.session = Session()
        self._label = label
        self._light = light
        self._ids = RecentIds()

    def _line_key(self, number: int) -> str:
        """A key for a line without a uuid, unique across the files of one session."""
        self.session.without_uuid += 1
        return f"{self._label}:{number}"

    def add(self, number: int, entry: dict[str, Any], offset: int = 0) -> None:
        """Take the entry of line ``number``, which starts at byte ``offset``."""
        s = self.session
        uuid = self._ids.same(as_str(entry.get("uuid")))
        kind = entry.get("type")
        message = entry.get("message")
        complete = _complete(kind, message)
        if uuid is not None and uuid in s.raw_parent:
            if not (complete and uuid in s.incomplete):
                s.duplicates += 1
                return
            # Only a complete record may claim a uuid: this one replaces the broken line.
            s.incomplete.discard(uuid)
            s.notes.append(f"line {number}: replaces an earlier incomplete line with uuid {uuid}")
        stamp = parse_timestamp(entry.get("timestamp"))
        if s.first_timestamp is None and stamp is not None:
            s.first_timestamp = stamp
        sid = as_str(entry.get("sessionId"))
        if sid and sid not in s.session_ids:
            s.session_ids.append(sid)
        if complete and isinstance(message, dict):
            self._add_message(number, entry, message, uuid, stamp, offset)
        elif kind == "system" and entry.get("subtype") == "compact_boundary":
            key = uuid if uuid is not None else self._line_key(number)
            add_boundary(s, number, entry, key, synthetic=uuid is None,
                         parent=self._parent(entry), stamp=stamp, offset=offset)
        elif kind == "system" and uuid is not None:
            add_notice(s, number, entry, uuid, parent=self._parent(entry), stamp=stamp,
                       offset=offset, light=self._light and s.spoke)
        elif kind == "file-history-snapshot" and as_str(entry.get("messageId")):
            add_snapshot(s, number, entry, stamp=stamp, offset=offset,
                         light=self._light and s.spoke)
        else:
            if kind in ("user", "assistant"):
                what = "a message object" if not isinstance(message, dict) else "content"
                s.notes.append(f"line {number}: {kind} entry without {what}; skipped")
                if uuid is not None:
                    s.incomplete.add(uuid)
            add_record(s, entry, uuid, self._parent(entry) if uuid is not None else None)

    def _parent(self, entry: dict[str, Any]) -> str | None:
        """The line's ``parentUuid``, the same string object as the uuid it names."""
        return self._ids.same(as_str(entry.get("parentUuid")))

    def _add_message(
        self,
        number: int,
        entry: dict[str, Any],
        message: dict[str, Any],
        uuid: str | None,
        stamp: float | None,
        offset: int,
    ) -> None:
        s = self.session
        role: Role = "assistant" if entry.get("type") == "assistant" else "user"
        synthetic = uuid is None
        if uuid is None:
            uuid = self._line_key(number)
        parent = self._parent(entry)
        s.raw_parent[uuid] = parent
        api_id = as_str(message.get("id")) if role == "assistant" else None
        group = self._joinable(parent, api_id) if api_id else None
        light = self._light and (group.light if group is not None else (
            s.spoke and entry.get("isCompactSummary") is not True))
        # A light response keeps no text of its calls: their inputs are not written out.
        parts, problems = content_parts(message.get("content"),
                                        calls_text=not (light and role == "assistant"))
        s.notes.extend(f"line {number}: {p}" for p in problems)
        self._note_agent_link(entry, parts)
        usage = None if light else usage_from(message.get("usage"))  # light: with content
        if group is not None:
            if group.light:
                parts = light_parts(parts, group.parts, ids=self._ids)
            group.add_line(uuid, offset)
            group.parts.extend(parts)
            if not group.light:
                group.usage = usage or group.usage
            if (reason := message.get("stop_reason")) is not None:  # a few words, 20,000 times
                own_meta(group)["stop_reason"] = interned(reason) if type(reason) is str else reason
            s.line_node[uuid] = group
        else:
            s.spoke = True
            if light:  # the first node keeps its metadata: the conversation's comes from it
                prompt = role == "user" and not all(p.kind == "tool_result" for p in parts)
                parts = light_parts(parts, keep_text=prompt, ids=self._ids)
                meta = light_meta(entry)
            else:
                meta = line_meta(number, entry, message)
            node = Node(
                key=uuid,
                role=role,
                line=number,
                parent_uuid=parent,
                parts=parts,
                api_id=api_id,
                created_at=stamp,
                model=interned(as_str(message.get("model"))),
                usage=None if light else usage,  # a light message's comes with its content
                meta=meta,
                light=light,
                start=offset,
                sidechain=entry.get("isSidechain") is True,
                synthetic_key=synthetic,
            )
            s.nodes.append(node)
            s.line_node[uuid] = node
        s.last_any = uuid
        if entry.get("isSidechain") is not True:
            s.last_main = uuid

    def _joinable(self, parent: str | None, api_id: str | None) -> Node | None:
        """The node of the same API response this line continues, if it descends from it."""
        s = self.session
        seen: set[str] = set()
        current = parent
        while current is not None and current not in seen and len(seen) < WALK_LIMIT:
            seen.add(current)
            node = s.line_node.get(current)
            if node is None or node.passed_over:
                current = s.raw_parent.get(current)
                continue
            if node.role == "assistant" and node.api_id == api_id:
                return node
            return None
        return None

    def _note_agent_link(self, entry: dict[str, Any], parts: list[Part]) -> None:
        agent_id = as_str(as_dict(entry.get("toolUseResult")).get("agentId"))
        use_ids = [p.tool_use_id for p in parts if p.kind == "tool_result" and p.tool_use_id]
        if agent_id and use_ids:
            self.session.agent_links.setdefault(agent_id, use_ids[0])


def _complete(kind: object, message: object) -> bool:
    """A user or assistant line with a message object that has content."""
    return (kind in ("user", "assistant") and isinstance(message, dict)
            and message.get("content") is not None)
