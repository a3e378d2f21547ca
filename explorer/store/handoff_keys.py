"""Which stored message each record of a hand-back session file came from (H1).

A branch handed to an agent is written as a new session with the agent's own record ids,
so the agent's file, synced back, would read as a new conversation repeating the branch.
When the file is written its records are remembered here, by the session and the record
key the importer gives them; an import of that session then finds the conversation it
came from, takes those records as the messages they are (no duplicate rows) and hangs
what the agent added under them (``explorer.app.importing.handed_back``). The table is made
by migration ``0017_handoff_keys``; its rows have no foreign keys on purpose (see
``_of_session``).
"""

from __future__ import annotations

import sqlite3
from collections.abc import Mapping, Sequence
from dataclasses import dataclass

TABLE = (
    "CREATE TABLE IF NOT EXISTS handoff_keys (source_format TEXT NOT NULL, "
    "session TEXT NOT NULL, record_key TEXT NOT NULL, "
    "conversation_id INTEGER NOT NULL, message_id INTEGER NOT NULL, "
    "PRIMARY KEY (source_format, session, record_key))"
)


def remember(conn: sqlite3.Connection, source_format: str, session: str, conv_id: int,
             keys: Mapping[str, int]) -> None:
    """Record that ``session``'s records ``keys`` are these messages of ``conv_id``."""
    conn.executemany(
        "INSERT OR REPLACE INTO handoff_keys VALUES (?, ?, ?, ?, ?)",
        [(source_format, session, key, conv_id, mid) for key, mid in keys.items()])


@dataclass(frozen=True)
class Link:
    """A hand-back session's conversation (``uid``: its meta uid) and, by record key, the key
    the message it came from is stored under (its source id, else ``ce:<uid>:<id>``)."""

    conversation_id: int
    uid: str
    keys: dict[str, str]


def any_handoffs(conn: sqlite3.Connection) -> bool:
    """Whether any hand-back's records are remembered (most files have none: an import
    then asks nothing more)."""
    return conn.execute("SELECT 1 FROM handoff_keys LIMIT 1").fetchone() is not None


def linked(conn: sqlite3.Connection, source_format: str, session: str,
           first_keys: Sequence[str] = ()) -> Link | None:
    """The conversation a hand-back session came from and its records' messages, or None.

    A session under another id whose first records are a hand-back's (the agent resumed it
    into a new file, or forked it, copying the records) is that hand-back's too."""
    if not any_handoffs(conn):
        return None
    found = _of_session(conn, source_format, session)
    for record in first_keys if found is None else ():
        row = conn.execute("SELECT session FROM handoff_keys WHERE source_format = ? "
                           "AND record_key = ? LIMIT 1", (source_format, record)).fetchone()
        if row is not None:
            return _of_session(conn, source_format, str(row[0]))
    return found


def _of_session(conn: sqlite3.Connection, source_format: str, session: str) -> Link | None:
    # No foreign keys: a deleted (and undone) branch keeps its records; only rows still
    # stored in that conversation count.
    rows = conn.execute(
        "SELECT k.conversation_id, json_extract(c.meta, '$.uid'), k.record_key, "
        "coalesce(m.source_id, 'ce:' || json_extract(c.meta, '$.uid') || ':' || m.id) "
        "FROM handoff_keys k JOIN messages m ON m.id = k.message_id "
        "AND m.conversation_id = k.conversation_id "
        "JOIN conversations c ON c.id = k.conversation_id "
        "WHERE k.source_format = ? AND k.session = ?", (source_format, session)).fetchall()
    if not rows or not rows[0][1]:
        return None
    return Link(int(rows[0][0]), str(rows[0][1]), {str(r[2]): str(r[3]) for r in rows})
