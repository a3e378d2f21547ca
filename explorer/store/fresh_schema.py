"""A new database file made in one step from a snapshot of what every migration leaves.

The migrations are written with ``sqlite_utils``, whose import (with ``click``,
``dateutil``, ``pluggy``...) added 5-6 MB to the process that makes a new file and kept it
to the end: ``convo import`` of a 100,000-message session into a new file peaked that much
higher than the same import into an existing one. Most files are made new and then only
opened; so a new, empty file gets the schema the migrations would leave, written out by
:func:`snapshot` (:mod:`.schema_snapshot`, written by ``python -m
explorer.store.write_schema``), and is recorded as having had them. Migrations newer than
the snapshot run after it as usual, and a file an older version made is upgraded step by
step. A test keeps the snapshot equal to the steps and current.
"""

from __future__ import annotations

import sqlite3
import time
from dataclasses import dataclass

from explorer import __version__
from explorer.store.connection import transaction

Statement = tuple[str, tuple[object, ...]]

_FTS5_SHADOWS = ("_data", "_idx", "_content", "_docsize", "_config")
_ORDER = {"table": 0, "index": 1, "view": 2, "trigger": 3}


@dataclass(frozen=True)
class Snapshot:
    covers: tuple[str, ...]  # the migrations it stands for, in order
    statements: tuple[Statement, ...]


def recorded() -> Snapshot:
    """The snapshot kept in the source (:mod:`.schema_snapshot`)."""
    from explorer.store import schema_snapshot

    return Snapshot(schema_snapshot.COVERS, schema_snapshot.STATEMENTS)


def is_new(conn: sqlite3.Connection) -> bool:
    """Nothing in the file yet: no table, index, view or trigger of anyone's."""
    return conn.execute("SELECT 1 FROM sqlite_master LIMIT 1").fetchone() is None


def create(conn: sqlite3.Connection, known: list[str]) -> list[str]:
    """Make a new file from the snapshot, in one transaction, when it still is new and the
    snapshot stands for the first migrations ``known``; the names it recorded (none when
    another process made the file meanwhile, or the snapshot does not fit)."""
    snap = recorded()
    if not snap.covers or list(snap.covers) != known[: len(snap.covers)]:
        return []
    with transaction(conn):
        if not is_new(conn):  # another process made it while this one waited
            return []
        for sql, params in snap.statements:
            conn.execute(sql, params)
        now = time.time()
        conn.executemany("INSERT INTO _migrations (name, applied_at, version) VALUES (?, ?, ?)",
                         [(name, now, __version__) for name in snap.covers])
    return list(snap.covers)


def snapshot(conn: sqlite3.Connection, covers: list[str]) -> Snapshot:
    """What a file migrated through ``covers`` holds, as statements that make it again:
    its schema (full-text tables' own shadow tables come with them), their settings, the
    rows its tables hold (none of ``_migrations``: :func:`create` records those)."""
    rows = conn.execute(
        "SELECT type, name, sql FROM sqlite_master WHERE sql IS NOT NULL ORDER BY rowid"
    ).fetchall()
    virtual = [name for _type, name, sql in rows if sql.upper().startswith("CREATE VIRTUAL")]
    shadows = {v + suffix for v in virtual for suffix in _FTS5_SHADOWS}
    made = [(t, n, sql) for t, n, sql in rows
            if n not in shadows and not n.startswith("sqlite_")]
    made.sort(key=lambda row: _ORDER.get(row[0], 4))  # stable: each kind in its own order
    out: list[Statement] = [(sql, ()) for _t, _n, sql in made]
    for name in virtual:  # settings such as automerge live in the index's config table
        out += [(f'INSERT INTO "{name}"("{name}", rank) VALUES (?, ?)', (key, value))
                for key, value in conn.execute(
                    f'SELECT k, v FROM "{name}_config" WHERE k != ? ORDER BY k', ("version",))]
        # Built over its (empty) content, as its migration did: the index's totals record
        # is then written out (zeros) instead of left empty.
        out.append((f'INSERT INTO "{name}"("{name}") VALUES (?)', ("rebuild",)))
    for _t, name, _sql in (r for r in made if r[0] == "table" and r[1] not in virtual):
        if name != "_migrations":
            out += _rows_of(conn, name)
    version = conn.execute("PRAGMA user_version").fetchone()[0]
    if version:
        out.append((f"PRAGMA user_version = {int(version)}", ()))
    return Snapshot(tuple(covers), tuple(out))


def _rows_of(conn: sqlite3.Connection, table: str) -> list[Statement]:
    cursor = conn.execute(f'SELECT * FROM "{table}"')
    columns = ", ".join(f'"{d[0]}"' for d in cursor.description)
    marks = ", ".join("?" for _ in cursor.description)
    return [(f'INSERT INTO "{table}" ({columns}) VALUES ({marks})', tuple(row))
            for row in cursor]


def render(snap: Snapshot) -> str:
    """The snapshot as the source of :mod:`.schema_snapshot`."""
    lines = ['"""What every migration leaves in a new file (written by ``python -m',
             'explorer.store.write_schema``; not edited by hand: a test compares it with the',
             'steps)."""', "# ruff: noqa: E501", "", "COVERS: tuple[str, ...] = ("]
    lines += [f"    {name!r}," for name in snap.covers]
    lines += [")", "", "STATEMENTS: tuple[tuple[str, tuple[object, ...]], ...] = ("]
    lines += [f"    ({sql!r}, {params!r})," for sql, params in snap.statements]
    lines += [")", ""]
    return "\n".join(lines)


def migrated_by_steps() -> Snapshot:
    """The snapshot of a new in-memory file migrated step by step."""
    from explorer.store.migrations import MIGRATIONS, migrate_by_steps

    conn = sqlite3.connect(":memory:", isolation_level=None)
    try:
        migrate_by_steps(conn)
        return snapshot(conn, [name for name, _ in MIGRATIONS])
    finally:
        conn.close()
