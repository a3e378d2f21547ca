"""Parent links for Claude Code nodes: resolution, compact boundaries, parallel tool results.

Claude Code runs the tool calls of one response in parallel and hangs each
result from the line that held its call, so the response gets several children
that are not forks a person made. Re-chaining those results one after another
puts every result of a turn on the active path and leaves only real forks in
the graph; each moved result keeps its written parent in ``reparented_from``.
"""

from __future__ import annotations

import heapq
import itertools
from collections import defaultdict
from collections.abc import Hashable, Sequence

from explorer.formats.claude_code.session import Node, Session
from explorer.tree.model import Message


def resolve_parents(session: Session, main: Session | None = None) -> dict[str, str | None]:
    """Each node's parent key; compact boundaries hang from their logical parent.

    A parent the file does not hold (a damaged line was skipped) is replaced by the
    previous message in file order, so one bad line never splits a session; a file
    whose lines all have no parent is chained in file order. In a subagent file
    (``main`` given), a parent in the main session is where the subagent started:
    its first message stays a root and records that message as ``started_from``.
    """
    parents: dict[str, str | None] = {}
    keys = {node.key for node in session.nodes}
    previous: dict[bool, Node] = {}
    chained = [n for n in session.nodes if n.snapshot_of is None]
    unlinked = len(chained) > 1 and all(n.parent_uuid is None for n in chained)
    for node in chained:
        parent = session.resolve(node.parent_uuid)
        if node.compact_boundary:
            parent = _boundary_parent(session, node, parent)
        before = previous.get(node.sidechain)
        if parent == node.key:
            parent = node.parent_uuid  # a self-loop; left for the repair to cut
        elif parent is not None and parent not in keys:
            parent = _outside_parent(session, node, parent, before, main)
        elif parent is None and unlinked and before is not None:
            parent = before.key
        parents[node.key] = parent
        previous[node.sidechain] = node
    if unlinked:
        session.notes.append("no line names a parent; chained the messages in file order")
    place_snapshots(session, parents)
    return parents


def place_snapshots(session: Session, parents: dict[str, str | None]) -> None:
    """Put each file-history snapshot just above the prompt it was taken before.

    The prompt keeps the parent it was written with in ``reparented_from``. A snapshot
    whose prompt is not in the file (not yet written, or lost) is left out and counted.
    """
    unplaced = []
    for node in session.nodes:
        if node.snapshot_of is None:
            continue
        target = session.line_node.get(node.snapshot_of)
        if target is None or target.key != node.snapshot_of or target.role != "user":
            unplaced.append(node)
            continue
        parents[node.key] = parents.get(target.key)
        parents[target.key] = node.key
        target.meta["reparented_from"] = target.parent_uuid
    if unplaced:
        gone = {id(n) for n in unplaced}
        session.nodes[:] = [n for n in session.nodes if id(n) not in gone]
        session.ignored["file-history-snapshot (no prompt)"] += sum(
            len(n.offsets) or len(n.meta.get("claude_snapshots", [])) for n in unplaced)


def _outside_parent(
    session: Session, node: Node, parent: str, before: Node | None, main: Session | None
) -> str | None:
    started = main.resolve(parent) if main is not None else None
    if main is not None and started in {n.key for n in main.nodes}:
        if before is None:
            node.meta["started_from"] = started
            return None
        node.meta["written_parent"] = parent
        session.notes.append(f"line {node.line}: parent {parent} is in the main session; "
                             f"linked to the previous message (line {before.line})")
        return before.key
    if before is None:
        return parent  # a dangling first parent: the repair makes it a root, with a note
    node.meta["written_parent"] = parent
    session.notes.append(f"line {node.line}: parent {parent} is not in the file (a damaged or "
                         f"missing line); linked to the previous message (line {before.line})")
    return before.key


def _boundary_parent(session: Session, node: Node, written: str | None) -> str | None:
    logical = node.meta.get("logicalParentUuid")
    if not isinstance(logical, str):
        return written
    if logical in session.raw_parent:
        session.notes.append(
            f"compact boundary {node.key}: linked to its logical parent {logical} "
            "to keep the tree connected"
        )
        return session.resolve(logical)
    session.notes.append(
        f"compact boundary {node.key}: logical parent {logical} is not in the file; it stays a root"
    )
    return written


def chain_parallel_results(nodes: Sequence[Node], parents: dict[str, str | None]) -> int:
    """Re-chain the sibling tool results of each response; answers how many moved."""
    children: dict[str, list[Node]] = defaultdict(list)
    for node in nodes:
        parent = parents.get(node.key)
        if parent is not None:
            children[parent].append(node)
    moved = 0
    for node in nodes:
        results = _parallel_results(node, children.get(node.key, []))
        if len(results) < 2:
            continue
        # Results with a continuation go last, so the conversation goes on from the chain's end.
        ordered = [r for r in results if not children.get(r.key)]
        ordered += [r for r in results if children.get(r.key)]
        for previous, current in itertools.pairwise(ordered):
            current.meta["reparented_from"] = current.parent_uuid
            parents[current.key] = previous.key
            children[previous.key].append(current)
            moved += 1
    return moved


def _parallel_results(node: Node, kids: list[Node]) -> list[Node]:
    """Children of ``node`` that only answer its own calls, each call answered once."""
    if node.role != "assistant":
        return []
    calls = {p.tool_use_id for p in node.parts if p.kind == "tool_use" and p.tool_use_id}
    if not calls:
        return []
    answered: set[str | None] = set()
    results = []
    for kid in kids:
        ids = {p.tool_use_id for p in kid.parts if p.kind == "tool_result"}
        if kid.result_only and ids <= calls and not ids & answered:
            results.append(kid)
            answered |= ids
    return results


def file_ordered(messages: Sequence[Message]) -> list[Message]:
    """Messages with every parent before its children, otherwise in their given order.

    Expects an acyclic tree without dangling parents (as ``repair_tree`` leaves it).
    """
    index = {m.id: i for i, m in enumerate(messages)}
    waiting: dict[Hashable, list[int]] = defaultdict(list)
    ready: list[int] = []
    for i, m in enumerate(messages):
        if m.parent_id is None or m.parent_id not in index:
            ready.append(i)
        else:
            waiting[m.parent_id].append(i)
    heapq.heapify(ready)
    out: list[Message] = []
    while ready:
        i = heapq.heappop(ready)
        out.append(messages[i])
        for child in waiting.pop(messages[i].id, []):
            heapq.heappush(ready, child)
    return out


def path_to(messages: Sequence[Message], tip: Hashable | None) -> list[Message]:
    """Root-to-tip path (expects an acyclic tree)."""
    by_id = {m.id: m for m in messages}
    path: list[Message] = []
    node = by_id.get(tip) if tip is not None else None
    while node is not None and len(path) <= len(by_id):
        path.append(node)
        node = by_id.get(node.parent_id) if node.parent_id is not None else None
    path.reverse()
    return path
