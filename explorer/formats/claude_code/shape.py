"""A read Claude Code session (and its subagents) assembled into one ImportedConversation.

Subagent transcripts go into the same conversation as separate roots, not into
conversations of their own: the tool call that spawned a subagent is a message
of this conversation, and keys are only comparable within one conversation, so
the link (``spawned_by_tool_use_id`` on the subagent's root) stays resolvable
without knowing ids the store has not assigned yet. The active path starts at
the main root, so a subagent's messages never mix into it.
"""

from __future__ import annotations

from collections.abc import Callable, Hashable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from explorer.formats.base import ImportedCompaction, ImportedConversation
from explorer.formats.claude_code.light import own_meta
from explorer.formats.claude_code.session import Node, Session
from explorer.formats.claude_code.tree import (
    chain_parallel_results,
    file_ordered,
    path_to,
    resolve_parents,
)
from explorer.tree.model import Message
from explorer.tree.repair import repair_tree
from explorer.tree.turns import open_calls

FORMAT = "claude_code"
TITLE_LIMIT = 80
_NOT_PROMPTS = ("<command-", "<local-command", "Caveat:", "[Request interrupted")


@dataclass
class Subagent:
    """One subagent transcript and what its ``.meta.json`` said about it."""

    agent_id: str
    path: Path
    session: Session
    meta: dict[str, Any] = field(default_factory=dict)


def assemble(path: Path, main: Session, subagents: Sequence[Subagent] = (), *,
             keep: Callable[[], None] | None = None) -> ImportedConversation:
    """The conversation of one session file; ``main.notes`` should already hold line notes.

    With ``keep`` the sessions are let go as the conversation is made: ``keep`` is called
    once the tree is shaped (what a content source needs of the nodes is taken then),
    the link tables are cleared, and each node is dropped as its message is made, so a
    huge session's nodes and messages are never all held at once. Without it the
    sessions stay whole (a sync reads them again).
    """
    notes: list[str] = []
    links = dict(main.agent_links)
    for sub in subagents:
        for agent_id, use_id in sub.session.agent_links.items():
            links.setdefault(agent_id, use_id)
    shaped: list[tuple[Session, str | None, dict[str, str | None]]] = [
        (main, None, _shape(main, None, notes, None))]
    shaped += [(sub.session, sub.agent_id, _shape(sub.session, sub.agent_id, notes, main))
               for sub in subagents]
    held = _Held.of(main)
    escapes = main.surrogate_escapes or any(sub.session.surrogate_escapes for sub in subagents)
    sub_meta = [_subagent_meta(sub, links) for sub in subagents]
    if keep is not None:  # the link tables go first: the content's locators are built next
        for session, _, _ in shaped:
            _let_go(session)
        keep()
    messages: list[Message] = []
    while shaped:
        session, owner, parents = shaped.pop(0)
        messages.extend(_made(session, parents, owner, release=keep is not None))
        del parents
    repair = repair_tree(messages)
    del messages
    notes.extend(repair.notes)
    _link_subagent_roots(repair.messages, links, has_main=held.has_main)
    ordered = file_ordered(repair.messages)
    del repair
    conv = ImportedConversation(
        title="",
        source_format=FORMAT,
        messages=ordered,
        tip=held.tip,
        source_id=main.session_ids[0] if main.session_ids else path.stem,
        source_path=str(path),
        created_at=main.first_timestamp,
        notes=notes,
        no_lone_surrogates=not escapes,
    )
    for sub in subagents:
        conv.ignored_records.update(sub.session.ignored)
    conv.ignored_records.update(main.ignored)
    _finish(conv, main, held, sub_meta)
    return conv


@dataclass
class _Held:
    """What finishing the conversation reads of the main session, taken before it goes."""

    tip: str | None
    has_main: bool
    boundaries: list[tuple[str, int, dict[str, Any]]]  # each compact boundary: key, line, meta
    leaves: list[str | None]  # each summary's leaf, resolved to a message key
    first_meta: dict[str, Any]  # the first said message's (the conversation's come from it)

    @classmethod
    def of(cls, session: Session) -> _Held:
        return cls(
            tip=_tip(session),
            has_main=any(not n.sidechain for n in session.nodes),
            boundaries=_boundaries(session),
            leaves=[session.resolve(leaf) for _, leaf in session.summaries],
            first_meta=next((n.meta for n in session.nodes if n.snapshot_of is None), {}),
        )


def _let_go(session: Session) -> None:
    """Clear the tables that find a line's node: only shaping the tree asks them."""
    for table in (session.line_node, session.raw_parent, session.snapshot_nodes,
                  session.outside):
        table.clear()
    session.incomplete.clear()


def _shape(session: Session, agent_id: str | None, notes: list[str],
           main: Session | None) -> dict[str, str | None]:
    """Each node's parent key in one file; its notes go to ``notes``, prefixed."""
    parents = resolve_parents(session, main)
    moved = chain_parallel_results(session.nodes, parents)
    prefix = f"subagent {agent_id}: " if agent_id else ""
    own = [*session.notes, *_session_notes(session, moved)]
    notes.extend(prefix + note for note in own)
    return parents


def _made(session: Session, parents: dict[str, str | None], agent_id: str | None, *,
          release: bool) -> list[Message]:
    """The messages of one file's nodes; with ``release`` each node goes as it is made."""
    if not release:
        return [_message(node, parents[node.key], agent_id) for node in session.nodes]
    nodes, session.nodes = session.nodes, []
    nodes.reverse()
    out = []
    while nodes:
        node = nodes.pop()
        out.append(_message(node, parents[node.key], agent_id))
    return out


def _session_notes(session: Session, moved: int) -> list[str]:
    out = []
    if session.duplicates:
        out.append(
            f"{session.duplicates} repeated entries (same uuid, as a resumed session "
            "replays its history): kept the first of each"
        )
    if session.without_uuid:
        out.append(f"{session.without_uuid} message lines had no uuid; keyed by line number")
    if session.link_cycles:
        names = ", ".join(session.link_cycles[:10])
        out.append(f"parent chains through non-message records loop at {names}; made roots there")
    if moved:
        out.append(
            f"{moved} parallel tool result(s) chained one after another "
            "(written parent kept as reparented_from)"
        )
    return out


def _message(node: Node, parent: str | None, agent_id: str | None) -> Message:
    # The node's own (a copy would double a huge session's metadata); a light message
    # with nothing to add keeps the shared empty dict.
    if node.later_uuids:
        own_meta(node)["uuids"] = node.uuids
    kind = meta_record(node)
    if kind is not None:
        own_meta(node)["meta_record"] = kind
    if agent_id is not None:
        own_meta(node)["subagent"] = agent_id
    elif node.sidechain and isinstance(node.meta.get("agentId"), str):
        own_meta(node)["subagent"] = node.meta["agentId"]
    meta = node.meta
    return Message(
        id=node.key,
        parent_id=parent,
        role=node.role,
        parts=node.parts,
        created_at=node.created_at,
        model=node.model,
        usage=node.usage,
        source_id=None if node.synthetic_key else node.key,
        source_meta=meta,
    )


_META_OPENINGS = (
    ("<local-command-caveat>", "caveat"), ("Caveat:", "caveat"),
    ("<local-command-stdout>", "command_output"), ("<local-command-stderr>", "command_output"),
    ("[Request interrupted", "interrupted"),
)  # a slash command itself (``<command-name>``) is something the person did: a prompt


def meta_record(node: Node) -> str | None:
    """What a user line that is not a prompt is: Claude Code's own ``isMeta`` text,
    the caveat it writes before local commands, a local command's output (``/exit``'s
    goodbye), or an interruption marker. None for a prompt or a slash command."""
    if node.role != "user" or node.result_only:
        return None
    if node.meta.get("isMeta") is True:
        return "meta"
    text = next((p.text for p in node.parts if p.kind == "text" and p.text.strip()), "")
    opening = text.lstrip()
    return next((kind for prefix, kind in _META_OPENINGS if opening.startswith(prefix)), None)


def _link_subagent_roots(
    messages: Sequence[Message], links: dict[str, str], *, has_main: bool
) -> None:
    for m in messages:
        agent_id = m.source_meta.get("subagent")
        if m.parent_id is None and isinstance(agent_id, str) and has_main:
            m.source_meta["spawned_by_tool_use_id"] = links.get(agent_id)


def _subagent_meta(sub: Subagent, links: dict[str, str]) -> dict[str, Any]:
    return {
        "agent_id": sub.agent_id,
        "file": sub.path.name,
        "spawned_by_tool_use_id": links.get(sub.agent_id),
        "messages": len(sub.session.nodes),
        "tip": _tip(sub.session, main_first=False),
        **{k: v for k, v in sub.meta.items() if isinstance(k, str)},
    }


def _tip(session: Session, *, main_first: bool = True) -> str | None:
    # An empty uuid is still a uuid: test for None, never for truth.
    line = session.last_main if main_first and session.last_main is not None else (
        session.last_any)
    return session.line_node[line].key if line is not None else None


def _finish(conv: ImportedConversation, main: Session, held: _Held,
            subs: list[dict[str, Any]]) -> None:
    path = path_to(conv.messages, conv.tip)
    waiting = open_calls(path)
    if waiting:
        conv.incomplete = True
        conv.notes.append(f"session ends mid-turn: {len(waiting)} tool call(s) without result")
    conv.compactions = _compactions_of(held.boundaries, main.summaries, held.leaves,
                                       conv.messages)
    boundaries = {c.message_key for c in conv.compactions if c.kind == "compact_boundary"}
    on_path = [m.id for m in path if m.id in boundaries]
    conv.context_start = on_path[-1] if on_path else None
    conv.title = _title(main, conv, held.leaves)
    conv.meta.update(_conversation_meta(main, held.first_meta, subs))


def _compactions(session: Session, messages: Sequence[Message]) -> list[ImportedCompaction]:
    leaves = [session.resolve(leaf) if leaf else None for _, leaf in session.summaries]
    return _compactions_of(_boundaries(session), session.summaries, leaves, messages)


def _boundaries(session: Session) -> list[tuple[str, int, dict[str, Any]]]:
    return [(n.key, n.line, n.meta) for n in session.nodes if n.compact_boundary]


def _compactions_of(
    boundaries: list[tuple[str, int, dict[str, Any]]], summaries: list[tuple[str, str | None]],
    leaves: list[str | None], messages: Sequence[Message],
) -> list[ImportedCompaction]:
    out = []
    by_key: dict[Hashable, Message] = {m.id: m for m in messages}
    for key, line, meta in boundaries:
        if key not in by_key:
            continue
        summary = _compact_summary(key, line, messages)
        cmeta = meta.get("compactMetadata") or {}
        out.append(ImportedCompaction(
            message_key=key,
            kind="compact_boundary",
            summary=summary.text if summary else "",
            meta={**cmeta, "logical_parent": meta.get("logicalParentUuid"),
                  "summary_key": summary.id if summary else None},
        ))  # fmt: skip
    for (text, leaf), resolved in zip(summaries, leaves, strict=True):
        found = resolved if leaf else None
        if found is not None and found in by_key:
            out.append(ImportedCompaction(found, "summary", text, {"leafUuid": leaf}))
    return out


def _compact_summary(key: str, line: int, messages: Sequence[Message]) -> Message | None:
    candidates = [m for m in messages if m.source_meta.get("isCompactSummary") is True]
    for m in candidates:
        if m.parent_id == key:
            return m
    after = [m for m in candidates if int(m.source_meta.get("line", 0)) > line]
    return after[0] if after else None


def _title(session: Session, conv: ImportedConversation, leaves: list[str | None]) -> str:
    if session.custom_title and session.custom_title.strip():
        return _trim(session.custom_title)
    keys = {m.id for m in conv.messages} if session.summaries else set()
    summaries = [t for (t, _), key in zip(session.summaries, leaves, strict=True)
                 if key in keys]
    if summaries or session.summaries:
        return _trim((summaries or [t for t, _ in session.summaries])[-1])
    for m in conv.messages:
        if _is_real_prompt(m):
            return _trim(m.text)
    return f"Claude Code session {conv.source_id or ''}".strip()


def _is_real_prompt(m: Message) -> bool:
    meta = m.source_meta
    if not m.is_prompt or meta.get("meta_record") or meta.get("isCompactSummary") or (
            "subagent" in meta):
        return False
    text = m.text.strip()
    return bool(text) and not text.startswith(_NOT_PROMPTS)


def _trim(text: str) -> str:
    line = text.strip().splitlines()[0].strip() if text.strip() else ""
    return line if len(line) <= TITLE_LIMIT else line[: TITLE_LIMIT - 1].rstrip() + "…"


def _conversation_meta(session: Session, first: dict[str, Any],
                       subs: list[dict[str, Any]]) -> dict[str, Any]:
    meta: dict[str, Any] = {"file_history_snapshots": session.snapshots}
    for ours, theirs in (("cwd", "cwd"), ("git_branch", "gitBranch"), ("version", "version")):
        if theirs in first:
            meta[ours] = first[theirs]
    if len(session.session_ids) > 1:
        meta["session_ids"] = list(session.session_ids)
    if session.summaries:
        meta["summaries"] = [{"summary": t, "leafUuid": leaf} for t, leaf in session.summaries]
    if session.custom_title:
        meta["custom_title"] = session.custom_title
    if subs:
        meta["subagents"] = subs
    return meta
