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


def resolve_parents(session: Session) -> dict[str, str | None]:
    """Each node's parent key; compact boundaries hang from their logical parent."""
    parents: dict[str, str | None] = {}
    for node in session.nodes:
        parents[node.key] = session.resolve(node.parent_uuid)
        if node.compact_boundary:
            parents[node.key] = _boundary_parent(session, node, parents[node.key])
        if parents[node.key] == node.key:
            parents[node.key] = node.parent_uuid  # a self-loop; left for the repair to cut
    return parents


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
