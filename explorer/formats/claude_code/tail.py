"""Reading a growing Claude Code session from where the last sync stopped.

A whole read of a 100 MB session costs seconds; an agent appends a few lines a
second. So a sync reads only the appended lines, and the cursor carries the little
a whole read would have known about the lines before:

* where the last assistant response began (``replay``): Claude Code writes one API
  response over several lines, one content block each, with tool results between
  them, so a line appended later may still belong to it. The tail is read from
  that line on; the messages it rebuilds are the stored ones (the store refreshes
  their parts when they grew), so the response merges exactly as a whole read
  merges it, and its parallel tool results are chained the same way;
* the newest prompts still without their file-history snapshot, and snapshots still
  without their prompt (``again``, by byte offset): Claude Code writes a prompt's
  snapshot before it or several lines after it, and a whole read puts the snapshot just
  above its prompt. Those lines are read again with the next lines, so the pair is placed
  whichever read brings its second half (the store then hangs a stored prompt from its new
  snapshot);
* the last :data:`KEPT_LINKS` lines whose uuid is not a stored message key
  (progress and attachment records, later lines of a response), each with the
  message key it resolves to, so a new line hanging from such a record finds its
  message. A parent outside these is looked up among the stored source ids; one
  that is not stored makes the store ask for a whole read (``NeedsWholeRead``).

Anything this cannot place the way a whole read would (a session with subagent
files, a file whose lines name no parents, a self-loop) raises
:class:`~explorer.formats.tailing.TailUnplaceable`, and the file is read whole.
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

from explorer.formats import fast_json
from explorer.formats.base import ImportedConversation
from explorer.formats.claude_code import reader as whole_read
from explorer.formats.claude_code.content import SessionContent
from explorer.formats.claude_code.session import Node, Session
from explorer.formats.claude_code.session_reader import SessionReader
from explorer.formats.claude_code.shape import (
    FORMAT,
    _compactions,
    _message,
    _tip,
    _trim,
    assemble,
)
from explorer.formats.claude_code.tree import (
    chain_parallel_results,
    file_ordered,
    path_to,
    place_snapshots,
)
from explorer.formats.jsonl import skipped_notes
from explorer.formats.tailing import Cursor, Line, LineTail, Tail, TailUnplaceable

KEPT_LINKS = 400
"""Links from record uuids to message keys kept in the cursor (the newest ones)."""
AWAITING = 8
"""Prompts awaiting their snapshot, and snapshots awaiting their prompt, kept in the cursor
(the newest of each)."""
REPLAY_LIMIT = 16 << 20
"""A response open for more than this many bytes is merged by a whole read instead."""


def can_tail(path: Path) -> bool:
    """A session file without subagent files (those are read whole, with the session)."""
    return path.is_file() and not whole_read._companion_agents(path)


def read_tail(path: Path, cursor: Cursor | None, *, whole: bool = False) -> Tail:
    """The session's messages after ``cursor`` (the whole session for None)."""
    if cursor is None:
        return _first(path, whole)
    state = cursor.state
    if state.get("unlinked") or not isinstance(state.get("sid"), str):
        raise TailUnplaceable("the session's lines name no parents")
    start = _replay(state) or Cursor(cursor.offset, cursor.line)
    if cursor.offset - start.offset > REPLAY_LIMIT:
        raise TailUnplaceable("the open response is too long to read again")
    lines = LineTail(path, Cursor(start.offset, start.line), whole=whole)
    reader = SessionReader("line")
    session = reader.session
    links = state.get("links")
    session.outside = dict(links) if isinstance(links, dict) else {}
    for line in _lines_at(path, state.get("again"), before=start.offset):
        reader.add(line.number, line.value, line.offset)
    session.last_main = session.last_any = None  # a line read again is never the tip
    for line in lines:
        reader.add(line.number, line.value, line.offset)
    if lines.end.offset < cursor.offset:
        raise TailUnplaceable("the file ends before where the last read stopped")
    again = _awaiting(session)
    waiting = {id(n) for n in session.nodes if n.snapshot_of is not None and n.start in again}
    session.nodes[:] = [n for n in session.nodes if id(n) not in waiting]
    conv = _conversation(path, session, state["sid"], again_before=start.offset)
    again.update(_unsummed(session, conv))
    if conv.tip is None and isinstance(state.get("tip"), str):
        conv.tip = state["tip"]  # only records and snapshots came: the tip stays
    conv.title = _new_title(session, state)
    conv.notes[:0] = skipped_notes(lines.skipped)
    lines.end.state = _state(session, state["sid"], state, again, conv.tip)
    return Tail(conv, lines.end)


def _lines_at(path: Path, spots: object, *, before: int) -> Iterator[Line]:
    """The lines that start at the ``[offset, line]`` pairs of ``spots`` before ``before``
    (a session file only grows, so they are where they were)."""
    if not isinstance(spots, list):
        return
    wanted = sorted({(s[0], s[1]) for s in spots if isinstance(s, list) and len(s) == 2
                     and all(isinstance(v, int) for v in s) and s[0] < before})
    if not wanted:
        return
    with path.open("rb") as handle:
        for offset, number in wanted:
            handle.seek(offset)
            raw = handle.readline()
            try:
                value = fast_json.loads(raw) if raw.endswith(b"\n") else None
            except (ValueError, UnicodeDecodeError, RecursionError):
                value = None
            if not isinstance(value, dict):
                raise TailUnplaceable(f"line {number} is not where the last read found it")
            yield Line(number, raw, value, offset)


def _awaiting(session: Session) -> dict[int, int]:
    """Where the lines to read again start (offset to line number): the newest prompts no
    snapshot names yet, and the newest snapshots whose prompt is not read yet."""
    prompts = [n for n in session.nodes if n.role == "user" and n.snapshot_of is None
               and not n.result_only and not n.sidechain and not n.synthetic_key
               and "meta_record" not in n.meta and n.key not in session.snapshot_nodes]
    snapshots = [n for n in session.nodes if n.snapshot_of is not None
                 and not _has_prompt(session, n.snapshot_of)]
    kept = prompts[-AWAITING:] + snapshots[-AWAITING:]
    return {n.start: n.line for n in sorted(kept, key=lambda n: n.start)}


def _unsummed(session: Session, conv: ImportedConversation) -> dict[int, int]:
    """Compact boundaries whose summary (the next prompt Claude Code writes) is not read
    yet: read again with the next lines, their record gets its summary then."""
    keys = {c.message_key for c in conv.compactions
            if c.kind == "compact_boundary" and not c.summary}
    return {n.start: n.line for n in session.nodes if n.compact_boundary and n.key in keys}


def _has_prompt(session: Session, key: str) -> bool:
    """Whether the prompt ``key`` is read (as :func:`place_snapshots` finds it)."""
    node = session.line_node.get(key)
    return node is not None and node.key == key and node.role == "user"


def _first(path: Path, whole: bool) -> Tail:
    """A whole read (as :func:`~explorer.formats.claude_code.reader.read` reads it),
    with the cursor the next read goes on from."""
    light = whole_read._size(path) >= whole_read.LAZY_BYTES
    lines = LineTail(path, Cursor(), whole=whole)
    reader = SessionReader("line", light=light)
    for line in lines:
        reader.add(line.number, line.value, line.offset)
    main = reader.session
    main.notes[:0] = skipped_notes(lines.skipped)
    if not main.has_messages:
        conv = ImportedConversation("", FORMAT, [], source_path=str(path), notes=main.notes)
        return Tail(conv, lines.end)
    chained = [n for n in main.nodes if n.snapshot_of is None]  # as resolve_parents judges
    unlinked = len(chained) > 1 and all(n.parent_uuid is None for n in chained)
    again = _awaiting(main)
    conv = assemble(path, main, [])
    again.update(_unsummed(main, conv))
    if light:
        content = SessionContent(conv.notes)
        content.add_file(path, main.nodes)
        conv.content = content if len(content) else None
    sid = conv.source_id or path.stem
    lines.end.state = _state(main, sid, {"unlinked": unlinked,
                                         "custom_title": bool(main.custom_title)},
                             again, conv.tip)
    return Tail(conv, lines.end)


def _new_title(session: Session, state: dict[str, Any]) -> str:
    """The title the appended lines give the session, as a whole read would title it
    (empty when they give none): a name the person set (``custom-title``) wins, then the
    newest summary unless a name was set earlier."""
    if session.custom_title and session.custom_title.strip():
        return _trim(session.custom_title)
    if session.summaries and not state.get("custom_title"):
        return _trim(session.summaries[-1][0])
    return ""


def _replay(state: dict[str, Any]) -> Cursor | None:
    replay = state.get("replay")
    if (isinstance(replay, list) and len(replay) == 2
            and all(isinstance(v, int) for v in replay)):
        return Cursor(replay[0], replay[1])
    return None


def _conversation(path: Path, session: Session, sid: str, *,
                  again_before: int) -> ImportedConversation:
    """The tail's messages; parents outside it are stored source ids. Lines that start
    before ``again_before`` were read again: they are stored already."""
    parents = _parents(session, again_before)
    chain_parallel_results(session.nodes, parents)
    messages = file_ordered([_message(n, parents[n.key], None) for n in session.nodes])
    conv = ImportedConversation("", FORMAT, messages, source_id=sid, source_path=str(path),
                                notes=list(session.notes))
    conv.ignored_records.update(session.ignored)
    conv.tip = _tip(session) if session.nodes else None
    conv.compactions = _compactions(session, messages)
    boundaries = {c.message_key for c in conv.compactions if c.kind == "compact_boundary"}
    on_path = [m.id for m in path_to(messages, conv.tip) if m.id in boundaries]
    conv.context_start = on_path[-1] if on_path else None
    return conv


def _parents(session: Session, again_before: int) -> dict[str, str | None]:
    out: dict[str, str | None] = {}
    for node in session.nodes:
        if node.snapshot_of is not None:
            continue
        parent = session.resolve(node.parent_uuid)
        if node.compact_boundary and node.start >= again_before:  # a stored one keeps its own
            parent = _boundary_parent(session, node, parent)
        if parent == node.key:
            raise TailUnplaceable(f"line {node.line} names itself as its parent")
        out[node.key] = parent
    place_snapshots(session, out)
    return out


def _boundary_parent(session: Session, node: Node, written: str | None) -> str | None:
    logical = node.meta.get("logicalParentUuid")
    if not isinstance(logical, str):
        return written
    if logical in session.raw_parent or logical in session.outside:
        return session.resolve(logical)
    raise TailUnplaceable(f"compact boundary {node.key}: its logical parent is not at hand")


def _state(session: Session, sid: str, before: dict[str, Any], again: dict[int, int],
           tip: Any) -> dict[str, Any]:
    """What the next read needs: the session id, the open response, the newest links, the
    lines to read again and the tip."""
    links: dict[str, str | None] = dict(before.get("links") or {})
    for uuid, key in _newest_links(session):
        links.pop(uuid, None)
        links[uuid] = key
    while len(links) > KEPT_LINKS:
        links.pop(next(iter(links)))
    state: dict[str, Any] = {"sid": sid, "links": links}
    if again:
        state["again"] = [[offset, line] for offset, line in again.items()]
    if isinstance(tip, str):
        state["tip"] = tip
    if before.get("unlinked"):
        state["unlinked"] = True
    if before.get("custom_title") or session.custom_title:
        state["custom_title"] = True
    opened = _open_response(session)
    if opened is not None:
        state["replay"] = [opened.start, opened.line - 1]
    elif _replay(before) is not None:
        state["replay"] = before["replay"]
    return state


def _newest_links(session: Session) -> list[tuple[str, str | None]]:
    """The last :data:`KEPT_LINKS` lines' links to the message each stands for, in file
    order (a message's own key is found among the stored ones, and left out). Only those
    can be kept: walking all 100,000 of a huge session took a second."""
    found: list[tuple[str, str | None]] = []
    for uuid in reversed(session.raw_parent):
        node = session.line_node.get(uuid)
        key: str | None = node.key if node is not None else session.resolve(uuid)
        if key != uuid:
            found.append((uuid, key))
            if len(found) >= KEPT_LINKS:
                break
    found.reverse()
    return found


def _open_response(session: Session) -> Node | None:
    """The earliest of the newest assistant response of each chain (main and side)."""
    newest: dict[bool, Node] = {}
    for node in session.nodes:
        if node.role == "assistant":
            newest[node.sidechain] = node
    return min(newest.values(), key=lambda n: n.start) if newest else None
