"""Claude Code session transcripts (``~/.claude/projects/<project>/<session>.jsonl``).

``read`` takes one session file, a project folder or the whole projects folder
and yields one conversation per session file, streaming each file line by line.
The tree comes from ``uuid``/``parentUuid``; the tip is the last message line of
the file. How lines become messages is in ``session``, how parents
are fixed up (parallel tool results, compact boundaries) in ``tree``,
and how a session and its subagents become one conversation, and why subagents
stay in it as separate roots, in ``shape``.

A single file without any message is a :class:`FormatError`. In a folder, files
without messages are passed over (Claude Code leaves such files behind, holding
only snapshots or titles); if any of them had damaged lines, a ``FormatError``
naming them is raised after every readable session has been yielded.
"""

from __future__ import annotations

import json
import os
from collections.abc import Iterator
from pathlib import Path
from typing import Any

from explorer.formats.base import FormatError, ImportedConversation
from explorer.formats.claude_code.agent_listing import agent_paths
from explorer.formats.claude_code.blocks import as_str
from explorer.formats.claude_code.content import SessionContent
from explorer.formats.claude_code.session import Session
from explorer.formats.claude_code.session_reader import SessionReader
from explorer.formats.claude_code.shape import FORMAT, Subagent, assemble
from explorer.formats.jsonl import JsonlReader, peek_objects, peek_prefix, skipped_notes

__all__ = ["FORMAT", "read", "reads_twice", "sniff"]

_TYPES = frozenset({
    "user", "assistant", "system", "summary", "custom-title", "file-history-snapshot",
    "progress", "queue-operation", "attachment", "permission-mode", "last-prompt",
})  # fmt: skip
_KEYS = ("sessionId", "uuid", "parentUuid", "leafUuid", "messageId")
_SNIFF_FILES = 20


def sniff(path: Path) -> bool:
    """True when the content looks like Claude Code JSONL (a folder: any session in it)."""
    try:
        if path.is_dir():
            return any(_sniff_file(f) for f in _limited(_session_candidates(path), _SNIFF_FILES))
        return path.is_file() and _sniff_file(path)
    except OSError:
        return False


def _sniff_file(path: Path) -> bool:
    values = peek_objects(path)
    if values:
        return any(_looks_like_entry(v) for v in values)
    head = peek_prefix(path, max_bytes=4096).lstrip(b"\xef\xbb\xbf \t\r\n")
    return head.startswith(b"{") and b'"sessionId"' in head and b'"type"' in head


def _looks_like_entry(value: Any) -> bool:
    return (
        isinstance(value, dict) and value.get("type") in _TYPES and any(k in value for k in _KEYS)
    )


def read(path: Path) -> Iterator[ImportedConversation]:
    """One conversation per session file under ``path`` (a file or a folder)."""
    if path.is_file():
        conv, problem, _ = _read_session(path, _companion_agents(path))
        if conv is None:
            raise FormatError(problem)
        yield conv
        return
    if not path.is_dir():
        raise FormatError(f"{path} is neither a file nor a folder")
    damaged: list[str] = []
    found = 0
    for folder in _project_folders(path):
        for conv, problem, is_damaged in _read_project(folder):
            if conv is not None:
                found += 1
                yield conv
            elif is_damaged:
                damaged.append(problem)
    if damaged:
        raise FormatError(f"{len(damaged)} files could not be read: " + "; ".join(damaged))
    if not found:
        raise FormatError(f"no Claude Code session with messages found under {path}")


_Outcome = tuple[ImportedConversation | None, str, bool]
"""A conversation, or None with the reason and whether the file was damaged."""

LAZY_BYTES_ENV = "CONVO_LAZY_BYTES"
LAZY_BYTES = int(os.environ.get(LAZY_BYTES_ENV) or 8 << 20)
"""A session (with its subagents) this large is read light: its content when it is stored.
``CONVO_LAZY_BYTES`` sets it (a test has a window's import child read small ones light)."""


def reads_twice(path: Path) -> bool:
    """True when a session file is large enough to be read light, its content again when
    stored (progress counts the file once for each pass)."""
    return path.is_file() and _size(path) >= LAZY_BYTES


def _read_session(path: Path, agents: list[tuple[str, Path]]) -> _Outcome:
    too_big = _over_limit(path)
    if too_big is not None:
        return None, too_big, True
    notes = {agent_id: _over_limit(p) for agent_id, p in agents}
    agents = [(agent_id, p) for agent_id, p in agents if notes[agent_id] is None]
    light = _size(path) + sum(_size(p) for _, p in agents) >= LAZY_BYTES
    main = _read_file(path, "line", light)
    if not main.has_messages:
        return None, _empty_problem(path, main), bool(main.notes)
    main.notes.extend(f"subagent {agent_id}: {note}" for agent_id, note in notes.items() if note)
    subs = []
    for agent_id, agent_path in agents:
        session = _read_file(agent_path, f"agent-{agent_id}", light)
        if session.has_messages:
            subs.append(Subagent(agent_id, agent_path, session, _agent_meta(agent_path)))
        else:
            main.notes.append(f"subagent {agent_id}: {_empty_problem(agent_path, session)}")
    content = SessionContent([]) if light else None

    def keep() -> None:  # the tree is shaped: the content's locators are taken from the nodes
        if content is not None:
            content.add_file(path, main.nodes)
            for sub in subs:
                content.add_file(sub.path, sub.session.nodes)

    conv = assemble(path, main, subs, keep=keep)
    if content is not None:
        content.notes = conv.notes
        content.shed(conv.messages)
        conv.content = content if len(content) else None
    return conv, "", False


def _over_limit(path: Path) -> str | None:
    """The note naming ``path`` when it is over the size limit of Claude Code sessions: a
    folder read whole meets its files here (a file named alone was checked before)."""
    from explorer.formats.registry import formats  # the table imports this package

    return formats()[FORMAT].limit.refusal(path)


def _size(path: Path) -> int:
    try:
        return path.stat().st_size
    except OSError:
        return 0


def _read_file(path: Path, label: str, light: bool = False) -> Session:
    reader = SessionReader(label, light=light)
    lines = JsonlReader(path)
    try:
        for number, entry in lines:
            reader.add(number, entry, lines.line_offset)
    except OSError as exc:
        raise FormatError(f"{path}: cannot be read ({exc})") from exc
    reader.session.notes[:0] = skipped_notes(lines.skipped)
    reader.session.surrogate_escapes = lines.surrogate_escapes
    return reader.session


def _empty_problem(path: Path, session: Session) -> str:
    if session.notes:
        return f"{path.name}: no messages; " + "; ".join(session.notes)
    return f"{path.name}: no Claude Code messages in the file"


def _agent_meta(agent_path: Path) -> dict[str, Any]:
    meta_path = agent_path.with_name(agent_path.name.removesuffix(".jsonl") + ".meta.json")
    try:
        value = json.loads(meta_path.read_text(encoding="utf-8"))
    except (OSError, ValueError, RecursionError):
        return {}
    return value if isinstance(value, dict) else {}


def _companion_agents(session_path: Path) -> list[tuple[str, Path]]:
    """Subagent files of a session: ``<session>/subagents/agent-*.jsonl``, or older
    top-level ``agent-*.jsonl`` siblings whose lines name this session."""
    if session_path.name.startswith("agent-"):
        return []
    found = _agent_files(session_path.with_suffix("") / "subagents")
    sid = session_path.stem
    for agent_id, agent_path in _agent_files(session_path.parent):
        if _first_session_id(agent_path) == sid:
            found.append((agent_id, agent_path))
    return found


def _read_project(folder: Path) -> Iterator[_Outcome]:
    sessions = sorted(p for p in folder.glob("*.jsonl")
                      if not p.name.startswith("agent-") and p.is_file())
    by_session: dict[str, list[tuple[str, Path]]] = {}
    for agent_id, agent_path in _agent_files(folder):
        owner = _first_session_id(agent_path) or ""
        by_session.setdefault(owner, []).append((agent_id, agent_path))
    for session_path in sessions:
        agents = _agent_files(session_path.with_suffix("") / "subagents")
        agents += by_session.pop(session_path.stem, [])
        yield _read_session(session_path, agents)
    for orphans in by_session.values():
        for _, agent_path in orphans:
            yield _read_session(agent_path, [])


def _agent_files(folder: Path) -> list[tuple[str, Path]]:
    return [(_agent_id(p), p) for p in agent_paths(folder) if p.is_file()]


def _agent_id(path: Path) -> str:
    return path.name.removeprefix("agent-").removesuffix(".jsonl")


def _first_session_id(path: Path) -> str | None:
    for value in peek_objects(path, max_objects=5):
        if isinstance(value, dict) and as_str(value.get("sessionId")):
            return str(value["sessionId"])
    return None


def _project_folders(root: Path) -> Iterator[Path]:
    """``root`` and the folders below it, skipping each session's companion folder."""
    seen: set[Path] = set()
    stack = [root]
    while stack:
        folder = stack.pop()
        real = folder.resolve()
        if real in seen:
            continue
        seen.add(real)
        yield folder
        stems = {p.stem for p in folder.glob("*.jsonl")}
        subdirs = [
            d for d in sorted(folder.iterdir(), reverse=True)
            if d.is_dir() and not d.is_symlink() and d.name not in stems
            and not d.name.startswith(".") and d.name != "subagents"
        ]  # fmt: skip
        stack.extend(subdirs)


def _session_candidates(root: Path) -> Iterator[Path]:
    """Session files only: a named pipe called ``*.jsonl`` would be waited on forever, a link
    to ``/dev/zero`` read without end (the folder's import names them as skipped)."""
    for folder in _project_folders(root):
        yield from sorted(p for p in folder.glob("*.jsonl") if p.is_file())


def _limited(items: Iterator[Path], limit: int) -> Iterator[Path]:
    for i, item in enumerate(items):
        if i >= limit:
            return
        yield item
