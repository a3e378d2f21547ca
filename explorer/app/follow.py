"""Following one agent session as it grows: which conversations can be followed, one poll.

A conversation read from an agent's session file (Claude Code, pi, Codex, Gemini CLI)
can be followed: every poll is a sync of that one file (see :mod:`explorer.app.sync`),
so an unchanged file costs a ``stat`` and writes nothing, appended lines are read from
where the last poll stopped, and a rewritten file is re-read and merged by ids (S1).
The writes go through the store's one writer like every other sync. Where the tip goes
is the store's rule: it follows the agent only from where the agent left off.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path

from explorer.app.sources import Unit
from explorer.app.sync import SyncReport, sync_units
from explorer.store import Store

FOLLOWABLE = {"claude_code": "Claude Code", "pi": "pi", "codex": "Codex CLI",
              "gemini_cli": "Gemini CLI"}
"""Formats whose session is one file an agent appends to, by the agent's name."""


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
    agent = FOLLOWABLE.get(conv.source_format or "")
    if agent is None or not conv.source_path:
        raise NotFollowable(f"“{conv.title}” was not read from an agent's session file "
                            "(Claude Code, pi, Codex CLI or Gemini CLI), so there is "
                            "nothing to follow")
    path = Path(conv.source_path)
    if not path.is_file():
        raise NotFollowable(f"{path} is no longer there; the session cannot be followed")
    assert conv.source_format is not None
    return Followed(conv_id, agent, Unit(path, conv.source_format))


def poll(store: Store, followed: Followed, cancel: Callable[[], bool] | None = None) -> Poll:
    """Sync the followed file once (no write when it did not change)."""
    unit = followed.unit
    try:
        st = unit.path.stat()
    except OSError as exc:
        return Poll(errors=[f"{unit.path}: cannot be read ({exc.strerror or exc})"])
    seen = Unit(unit.path, unit.fmt, st.st_size, st.st_mtime_ns)
    before = _newest_id(store, followed.conversation_id)
    report: SyncReport = sync_units(store, [seen], cancel=cancel)
    conv = store.conversation(followed.conversation_id)
    added = report.added_messages if followed.conversation_id in report.conversations else 0
    fresh = _ids_after(store, followed.conversation_id, before) if added else []
    return Poll(added, report.reread > 0, conv.tip_id, list(report.errors), fresh)


def _newest_id(store: Store, conv_id: int) -> int:
    """Message ids only grow: what a poll stored is what lies above this."""
    row = store.reader.execute("SELECT max(id) FROM messages WHERE conversation_id = ?",
                               (conv_id,)).fetchone()
    return int(row[0]) if row is not None and row[0] is not None else 0


def _ids_after(store: Store, conv_id: int, newest: int) -> list[int]:
    return [int(r[0]) for r in store.reader.execute(
        "SELECT id FROM messages WHERE conversation_id = ? AND id > ? ORDER BY id",
        (conv_id, newest))]
