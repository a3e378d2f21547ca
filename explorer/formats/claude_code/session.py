"""One Claude Code session file read into message nodes (before the tree is shaped).

Claude Code writes one API response as several ``assistant`` lines that share
``message.id`` (one content block a line), and tool results can sit between
those lines. A line joins the node of an earlier line with the same
``message.id`` only when it descends from it through tool results and
non-message records, so a replayed id on another branch is never merged.

Non-message records (progress, attachments, hook summaries...) also carry
``uuid``/``parentUuid`` and sit inside the chain; they are kept as links so that
a message whose parent is such a record can be resolved to the nearest message.
"""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass, field
from typing import Any

from explorer.formats.claude_code.blocks import (
    as_dict,
    as_str,
    content_parts,
    parse_timestamp,
    tool_use_result_meta,
    usage_from,
)
from explorer.formats.claude_code.light import (
    RecentIds,
    interned,
    light_meta,
    light_parts,
    own_meta,
)
from explorer.formats.claude_code.records import (
    RECORD_KEY,
    SNAPSHOTS_KEY,
    notice_record,
    notice_text,
    snapshot_text,
)
from explorer.tree.model import Part, Role, Usage

WALK_LIMIT = 1_000_000
"""Upper bound on parent-pointer steps, so a damaged file can never loop forever."""

_LINE_FIELDS = (
    "sessionId", "cwd", "gitBranch", "version", "requestId", "isSidechain", "isMeta",
    "timestamp", "agentId", "isCompactSummary", "isApiErrorMessage", "userType", "entrypoint",
)  # fmt: skip


@dataclass(slots=True)
class Node:
    """A message to be: one user line, or all the lines of one assistant response."""

    key: str
    role: Role
    line: int
    parent_uuid: str | None
    parts: list[Part]
    api_id: str | None = None
    created_at: float | None = None
    model: str | None = None
    usage: Usage | None = None
    meta: dict[str, Any] = field(default_factory=dict)
    sidechain: bool = False
    compact_boundary: bool = False
    synthetic_key: bool = False
    light: bool = False  # its content is read again, from its lines' offsets, when stored
    start: int = 0  # where its first line starts, in bytes
    snapshot_of: str | None = None  # a file-history snapshot: the prompt it was taken before
    # Later lines of the same response (or snapshot): most nodes have one line, and a
    # list each would cost a 100,000-message session megabytes.
    later_uuids: list[str] | None = None
    later_offsets: list[int] | None = None

    @property
    def uuids(self) -> list[str]:
        """The uuids of its lines, in file order (the first is its key; none for a snapshot)."""
        first = [] if self.snapshot_of is not None else [self.key]
        return first + (self.later_uuids or [])

    @property
    def offsets(self) -> tuple[int, ...]:
        """Where a light node's lines start, in bytes; empty for a node read whole."""
        return (self.start, *(self.later_offsets or ())) if self.light else ()

    def add_line(self, uuid: str | None, offset: int) -> None:
        """A later line of the same response (its uuid) or snapshot (None)."""
        if uuid is not None:
            self.later_uuids = [*(self.later_uuids or ()), uuid]
        if self.light:
            self.later_offsets = [*(self.later_offsets or ()), offset]

    @property
    def passed_over(self) -> bool:
        """A line a response's later lines may hang from: a tool result or a notice."""
        return self.result_only or self.meta.get("meta_record") == "notice"

    @property
    def result_only(self) -> bool:
        return (
            self.role == "user"
            and bool(self.parts)
            and all(p.kind == "tool_result" for p in self.parts)
        )


@dataclass
class Session:
    """Everything one file holds, in file order, with links still as written."""

    nodes: list[Node] = field(default_factory=list)
    line_node: dict[str, Node] = field(default_factory=dict)
    raw_parent: dict[str, str | None] = field(default_factory=dict)
    last_main: str | None = None
    last_any: str | None = None
    notes: list[str] = field(default_factory=list)
    ignored: Counter[str] = field(default_factory=Counter)
    custom_title: str | None = None
    summaries: list[tuple[str, str | None]] = field(default_factory=list)
    agent_links: dict[str, str] = field(default_factory=dict)
    session_ids: list[str] = field(default_factory=list)
    first_timestamp: float | None = None
    snapshots: int = 0
    duplicates: int = 0
    without_uuid: int = 0
    incomplete: set[str] = field(default_factory=set)  # uuids only broken lines claimed so far
    link_cycles: list[str] = field(default_factory=list)
    snapshot_nodes: dict[str, Node] = field(default_factory=dict)  # by the prompt they precede
    spoke: bool = False  # a user or assistant message was read
    outside: dict[str, str | None] = field(default_factory=dict)  # lines read by an earlier sync

    @property
    def has_messages(self) -> bool:
        """Lines someone said: a file of notices and snapshots only is left behind, not a
        session."""
        return any(n.meta.get("meta_record") not in ("notice", "file_snapshot")
                   for n in self.nodes)

    def resolve(self, uuid: str | None) -> str | None:
        """The key of the nearest message at or above ``uuid``, skipping non-message records.

        Answers None for a root, and the uuid itself when it names nothing in the file
        (a dangling parent, left for the tree repair to report).
        """
        seen: set[str] = set()
        current = uuid
        while current is not None:
            node = self.line_node.get(current)
            if node is not None:
                return node.key
            if current not in self.raw_parent:
                return self.outside.get(current, current)
            if current in seen or len(seen) > WALK_LIMIT:
                if uuid is not None and uuid not in self.link_cycles:
                    self.link_cycles.append(uuid)
                return None
            seen.add(current)
            current = self.raw_parent[current]
        return None


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
            self._add_boundary(number, entry, uuid, stamp)
        elif kind == "system" and uuid is not None:
            self._add_notice(number, entry, uuid, stamp, offset)
        elif kind == "file-history-snapshot" and as_str(entry.get("messageId")):
            self._add_snapshot(number, entry, stamp, offset)
        else:
            if kind in ("user", "assistant"):
                what = "a message object" if not isinstance(message, dict) else "content"
                s.notes.append(f"line {number}: {kind} entry without {what}; skipped")
                if uuid is not None:
                    s.incomplete.add(uuid)
            self._add_record(entry, uuid)

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
        parts, problems = content_parts(message.get("content"))
        s.notes.extend(f"line {number}: {p}" for p in problems)
        self._note_agent_link(entry, parts)
        synthetic = uuid is None
        if uuid is None:
            uuid = self._line_key(number)
        parent = self._ids.same(as_str(entry.get("parentUuid")))
        s.raw_parent[uuid] = parent
        api_id = as_str(message.get("id")) if role == "assistant" else None
        usage = usage_from(message.get("usage"))
        group = self._joinable(parent, api_id) if api_id else None
        if group is not None:
            if group.light:
                parts = light_parts(parts, group.parts, ids=self._ids)
            group.add_line(uuid, offset)
            group.parts.extend(parts)
            if not group.light:
                group.usage = usage or group.usage
            if message.get("stop_reason") is not None:
                own_meta(group)["stop_reason"] = message.get("stop_reason")
            s.line_node[uuid] = group
        else:
            meta = line_meta(number, entry, message)
            light = self._light and s.spoke and meta.get("isCompactSummary") is not True
            s.spoke = True
            if light:  # the first node keeps its metadata: the conversation's comes from it
                prompt = role == "user" and not all(p.kind == "tool_result" for p in parts)
                parts = light_parts(parts, keep_text=prompt, ids=self._ids)
                meta = light_meta(meta)
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

    def _add_boundary(
        self, number: int, entry: dict[str, Any], uuid: str | None, stamp: float | None
    ) -> None:
        s = self.session
        synthetic = uuid is None
        if uuid is None:
            uuid = self._line_key(number)
        parent = self._ids.same(as_str(entry.get("parentUuid")))
        s.raw_parent[uuid] = parent
        text = as_str(entry.get("content")) or "Conversation compacted"
        meta = line_meta(number, entry, {})
        meta["compactMetadata"] = as_dict(entry.get("compactMetadata"))
        meta["logicalParentUuid"] = as_str(entry.get("logicalParentUuid"))
        node = Node(
            key=uuid, role="system", line=number, parent_uuid=parent,
            parts=[Part("text", text)], created_at=stamp, meta=meta,
            sidechain=entry.get("isSidechain") is True, compact_boundary=True,
            synthetic_key=synthetic,
        )  # fmt: skip
        s.nodes.append(node)
        s.line_node[uuid] = node
        s.last_any = uuid
        if not node.sidechain:
            s.last_main = uuid

    def _add_notice(
        self, number: int, entry: dict[str, Any], uuid: str, stamp: float | None, offset: int
    ) -> None:
        """A ``system`` notice in the chain: a muted record, never sent to a model."""
        s = self.session
        parent = self._ids.same(as_str(entry.get("parentUuid")))
        s.raw_parent[uuid] = parent
        meta = line_meta(number, entry, {})
        meta.update({"meta_record": "notice", "notice": as_str(entry.get("subtype")) or "",
                     RECORD_KEY: notice_record(entry)})
        light = self._light and s.spoke  # its record is read again when it is stored
        if light:
            meta = {"meta_record": "notice", "notice": meta["notice"]}
        node = Node(key=uuid, role="system", line=number, parent_uuid=parent,
                    parts=[Part("text", notice_text(entry))], created_at=stamp, meta=meta,
                    sidechain=entry.get("isSidechain") is True, light=light, start=offset)
        s.nodes.append(node)
        s.line_node[uuid] = node
        s.last_any = uuid
        if not node.sidechain:
            s.last_main = uuid

    def _add_snapshot(self, number: int, entry: dict[str, Any], stamp: float | None,
                      offset: int) -> None:
        """The files a prompt may change, kept above that prompt (see ``records``)."""
        s = self.session
        s.snapshots += 1
        stamp = stamp or parse_timestamp(as_dict(entry.get("snapshot")).get("timestamp"))
        target = str(entry["messageId"])
        node = s.snapshot_nodes.get(target)
        if node is not None:  # an update of the same prompt's snapshot
            if node.light:
                node.add_line(None, offset)
            else:
                node.meta[SNAPSHOTS_KEY].append(entry)
            return
        light = self._light and s.spoke  # its records are read again when it is stored
        meta: dict[str, Any] = {"meta_record": "file_snapshot"} if light else {
            "line": number, "meta_record": "file_snapshot", SNAPSHOTS_KEY: [entry]}
        node = Node(key=f"snapshot:{target}", role="system", line=number, parent_uuid=None,
                    parts=[Part("text", snapshot_text([entry]))], created_at=stamp, meta=meta,
                    snapshot_of=target, light=light, start=offset)
        s.nodes.append(node)
        s.snapshot_nodes[target] = node

    def _add_record(self, entry: dict[str, Any], uuid: str | None) -> None:
        s = self.session
        if uuid is not None:
            s.raw_parent[uuid] = self._ids.same(as_str(entry.get("parentUuid")))
        kind = entry.get("type")
        if kind == "summary" and as_str(entry.get("summary")):
            s.summaries.append((entry["summary"], as_str(entry.get("leafUuid"))))
            return
        if kind == "custom-title" and as_str(entry.get("customTitle")):
            s.custom_title = entry["customTitle"]
            return
        if kind == "file-history-snapshot":
            s.snapshots += 1
        s.ignored[_record_name(entry)] += 1

    def _note_agent_link(self, entry: dict[str, Any], parts: list[Part]) -> None:
        agent_id = as_str(as_dict(entry.get("toolUseResult")).get("agentId"))
        use_ids = [p.tool_use_id for p in parts if p.kind == "tool_result" and p.tool_use_id]
        if agent_id and use_ids:
            self.session.agent_links.setdefault(agent_id, use_ids[0])


def _complete(kind: object, message: object) -> bool:
    """A user or assistant line with a message object that has content."""
    return (kind in ("user", "assistant") and isinstance(message, dict)
            and message.get("content") is not None)


def line_meta(number: int, entry: dict[str, Any], message: dict[str, Any]) -> dict[str, Any]:
    meta: dict[str, Any] = {"line": number}
    for name in _LINE_FIELDS:
        if entry.get(name) is not None:
            meta[name] = entry[name]
    if message.get("id") is not None:
        meta["message_id"] = message["id"]
    if message.get("stop_reason") is not None:
        meta["stop_reason"] = message["stop_reason"]
    if entry.get("toolUseResult") is not None:
        meta["toolUseResult"] = tool_use_result_meta(entry["toolUseResult"])
    return meta


def _record_name(entry: dict[str, Any]) -> str:
    kind = entry.get("type")
    name = kind if isinstance(kind, str) else "(no type)"
    if kind in ("user", "assistant"):
        found = "content" if isinstance(entry.get("message"), dict) else "message object"
        return f"{name} (no {found})"
    subtype = entry.get("subtype")
    return f"{name}:{subtype}" if kind == "system" and isinstance(subtype, str) else name
