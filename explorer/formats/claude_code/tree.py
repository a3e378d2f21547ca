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
from array import array
from collections import Counter
from collections.abc import Hashable, Sequence

from explorer.formats.claude_code.light import own_meta
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
        elif parent is not None and not _is_key(session, parent):
            parent = _outside_parent(session, node, parent, before, main)
        elif parent is None and unlinked and before is not None:
            parent = before.key
        parents[node.key] = parent
        previous[node.sidechain] = node
    if unlinked:
        session.notes.append("no line names a parent; chained the messages in file order")
    place_snapshots(session, parents)
    return parents


def _is_key(session: Session, key: str) -> bool:
    """True when ``key`` is a message's own (what ``resolve`` answers for a line it finds);
    asked of the line table, not of a set of every key."""
    node = session.line_node.get(key)
    return node is not None and node.key == key


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
        own_meta(target)["reparented_from"] = target.parent_uuid
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
            own_meta(node)["started_from"] = started
            return None
        own_meta(node)["written_parent"] = parent
        session.notes.append(f"line {node.line}: parent {parent} is in the main session; "
                             f"linked to the previous message (line {before.line})")
        return before.key
    if before is None:
        return parent  # a dangling first parent: the repair makes it a root, with a note
    own_meta(node)["written_parent"] = parent
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
    """Re-chain the sibling tool results of each response; answers how many moved.

    Only responses with two or more result-only children get a list of them: a list per
    parent would cost a 100,000-message session tens of megabytes for nothing.
    """
    groups = _result_groups(nodes, parents)
    if not groups:
        return 0
    grouped = {r.key for kids in groups.values() for r in kids}
    continued = {p for n in nodes if (p := parents.get(n.key)) is not None and p in grouped}
    moved = 0
    for node in nodes:
        kids = groups.get(node.key)
        results = _parallel_results(node, kids) if kids is not None else []
        if len(results) < 2:
            continue
        # Results with a continuation go last, so the conversation goes on from the chain's end.
        ordered = [r for r in results if r.key not in continued]
        ordered += [r for r in results if r.key in continued]
        for previous, current in itertools.pairwise(ordered):
            own_meta(current)["reparented_from"] = current.parent_uuid
            parents[current.key] = previous.key
            moved += 1
    return moved


def _result_groups(nodes: Sequence[Node], parents: dict[str, str | None]) -> dict[str, list[Node]]:
    """Result-only children, in file order, of each parent that has two or more."""
    count: Counter[str] = Counter()
    for node in nodes:
        if node.result_only and (parent := parents.get(node.key)) is not None:
            count[parent] += 1
    groups: dict[str, list[Node]] = {p: [] for p, n in count.items() if n >= 2}
    del count
    for node in nodes:
        parent = parents.get(node.key) if node.result_only else None
        kids = groups.get(parent) if parent is not None else None
        if kids is not None:
            kids.append(node)
    return groups


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
    Children are linked through two arrays of positions, not a list per parent.
    """
    index = {m.id: i for i, m in enumerate(messages)}
    first_child = array("q", [-1]) * len(messages)
    next_sibling = array("q", [-1]) * len(messages)
    ready: list[int] = []
    for i in range(len(messages) - 1, -1, -1):  # backwards: each parent's children ascend
        parent = messages[i].parent_id
        j = index.get(parent) if parent is not None else None
        if j is None:
            ready.append(i)
        else:
            next_sibling[i] = first_child[j]
            first_child[j] = i
    del index
    heapq.heapify(ready)
    out: list[Message] = []
    while ready:
        i = heapq.heappop(ready)
        out.append(messages[i])
        child = first_child[i]
        while child != -1:
            heapq.heappush(ready, child)
            child = next_sibling[child]
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
