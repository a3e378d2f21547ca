"""Following one agent session as it grows: which conversations can be followed, one poll.

A conversation read from an agent's session file (Claude Code, pi, Codex, Gemini CLI,
Qwen Code, Kimi CLI, Copilot CLI, aider…), a session's folder (Mistral Vibe, Cline's
tasks) or a store of sessions (the databases of OpenCode, Crush, Cursor, Goose and llm)
can be followed: every poll is a sync of that one file or store (see
:mod:`explorer.app.importing.sync`), so an unchanged one costs a ``stat`` and writes nothing,
appended lines are read from where the last poll stopped, only the sessions of a
store that changed are read, and a rewritten file is re-read and merged by ids (S1).
The writes go through the store's one writer like every other sync. Where the tip goes
is the store's rule: it follows the agent only from where the agent left off.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path

from explorer.app.importing.sync import SyncReport, sync_units
from explorer.app.importing.units import Unit
from explorer.formats.opencode.database import is_database
from explorer.formats.opencode.storage import layout_at
from explorer.formats.titles import TITLES
from explorer.store import Store

FOLLOWABLE = frozenset({
    "claude_code", "pi", "codex", "gemini_cli", "opencode", "llm", "crush", "continue_cli",
    "cline", "aider", "qwen_code", "kimi_cli", "copilot_cli", "cursor", "goose",
    "mistral_vibe", "cline_tasks"})
"""Formats an agent keeps writing while it runs (its name is the registry's title)."""


class NotFollowable(Exception):
    """Why a conversation cannot be followed, in a sentence for the person."""


@dataclass(frozen=True)
class Followed:
    conversation_id: int
    agent: str
    unit: Unit

    @property
    def path(self) -> Path:
        return self.unit.path


@dataclass
class Poll:
    """What one poll found for the followed conversation."""

    added: int = 0  # new messages stored in the followed conversation
    reread: bool = False  # the file was rewritten and read whole
    tip: int | None = None  # the conversation's tip after the poll
    errors: list[str] = field(default_factory=list)
    new_ids: list[int] = field(default_factory=list)  # the messages it stored, oldest first


def followable(store: Store, conv_id: int) -> Followed:
    """The session file behind ``conv_id``; raises :class:`NotFollowable` with the reason."""
    conv = store.conversation(conv_id)
    fmt = conv.source_format or ""
    if fmt not in FOLLOWABLE or not conv.source_path:
        came = f" (it came from {conv.source_format})" if conv.source_format else ""
        raise NotFollowable(f"“{conv.display_title}” was not read from an agent's session file, "
                            f"folder or database{came}, so there is nothing to follow")
    path = Path(conv.source_path)
    if not path.exists():  # a file, a database, or a session's folder (Mistral Vibe, Cline)
        raise NotFollowable(f"{path} is no longer there; the session cannot be followed")
    assert conv.source_format is not None
    return Followed(conv_id, TITLES[fmt], Unit(_store_of(path, conv.source_format),
                                         conv.source_format))


def _store_of(path: Path, fmt: str) -> Path:
    """What a sync reads for a session at ``path``: the file, or OpenCode's storage root
    for a session's info file there (``<root>/session/…/<ses>.json``)."""
    if fmt != "opencode" or is_database(path):
        return path
    root = path.parents[2] if len(path.parents) > 2 else path
    if path.parent.parent.name == "session" and layout_at(root) is not None:
        return root
    raise NotFollowable(f"{path.name} is an OpenCode export: a file OpenCode does not write "
                        "again, so there is nothing to follow")


def poll(store: Store, followed: Followed, cancel: Callable[[], bool] | None = None) -> Poll:
    """Sync the followed file once (no write when it did not change)."""
    unit = followed.unit
    try:
        seen = _seen(unit)
    except OSError as exc:
        return Poll(errors=[f"{unit.path}: cannot be read ({exc.strerror or exc})"])
    before = _newest_id(store, followed.conversation_id)
    report: SyncReport = sync_units(store, [seen], cancel=cancel)
    conv = store.conversation(followed.conversation_id)
    added = report.added_messages if followed.conversation_id in report.conversations else 0
    fresh = _ids_after(store, followed.conversation_id, before) if added else []
    return Poll(added, report.reread > 0, conv.tip_id, list(report.errors), fresh)


def _seen(unit: Unit) -> Unit:
    """The unit with its size and time now: a folder is walked by the sync; a database
    counts its write-ahead log, where SQLite writes first."""
    if unit.path.is_dir():
        return Unit(unit.path, unit.fmt)
    stats = [unit.path.stat()]
    wal = unit.path.with_name(unit.path.name + "-wal")
    if wal.is_file():
        stats.append(wal.stat())
    return Unit(unit.path, unit.fmt, sum(s.st_size for s in stats),
                max(s.st_mtime_ns for s in stats))


def _newest_id(store: Store, conv_id: int) -> int:
    """Message ids only grow: what a poll stored is what lies above this."""
    row = store.reader.execute("SELECT max(id) FROM messages WHERE conversation_id = ?",
                               (conv_id,)).fetchone()
    return int(row[0]) if row is not None and row[0] is not None else 0


def _ids_after(store: Store, conv_id: int, newest: int) -> list[int]:
    return [int(r[0]) for r in store.reader.execute(
        "SELECT id FROM messages WHERE conversation_id = ? AND id > ? ORDER BY id",
        (conv_id, newest))]
