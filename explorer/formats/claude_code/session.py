"""What one Claude Code session file holds, as message nodes before the tree is shaped.

:class:`~explorer.formats.claude_code.session_reader.SessionReader` fills a
:class:`Session` line by line. Non-message records (progress, attachments, hook
summaries...) also carry ``uuid``/``parentUuid`` and sit inside the chain; they are kept
as links so that a message whose parent is such a record can be resolved to the nearest
message.
"""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass, field
from typing import Any

from explorer.tree.model import Part, Role, Usage

WALK_LIMIT = 1_000_000
"""Upper bound on parent-pointer steps, so a damaged file can never loop forever."""

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
    surrogate_escapes: bool = False  # a line escaped a surrogate (text_repair walks it)
    spoke: bool = False  # a user or assistant message was read
    outside: dict[str, str | None] = field(default_factory=dict)  # lines read by an earlier sync

    @property
    def has_messages(self) -> bool:
        """Lines someone said: a file of notices and snapshots only is left behind, not a
        session."""
        return any(n.meta.get("meta_record") not in ("notice", "file_snapshot")
                   for n in self.nodes)

    def place(self, uuid: str, node: Node) -> None:
        """A new node of the chain, under the key of its (first) line."""
        self.nodes.append(node)
        self.line_node[uuid] = node
        self.last_any = uuid
        if not node.sidechain:
            self.last_main = uuid

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

