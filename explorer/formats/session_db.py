"""What the importers of agents' session databases share (OpenCode, Crush, Kilo CLI…).

An agent that keeps its sessions in SQLite writes them through a write-ahead log while it
runs: the file is opened read-only, recognised by the tables and columns it must have, and
a sync reads only the sessions that changed since its last look. Which rows changed is
told by two marks a table: its newest rowid (a row added) and, where it has a column of
update times, the newest time with the ids of the rows at it (a row written over)."""

from __future__ import annotations

import json
import sqlite3
from collections.abc import Mapping
from contextlib import closing
from pathlib import Path
from typing import Any

SQLITE_MAGIC = b"SQLite format 3\x00"


def connect(path: Path) -> sqlite3.Connection:
    conn = sqlite3.connect(f"{path.resolve().as_uri()}?mode=ro", uri=True)
    conn.row_factory = sqlite3.Row
    return conn


def columns(conn: sqlite3.Connection, table: str) -> set[str]:
    return {str(r[1]) for r in conn.execute(f"PRAGMA table_info({table})")}


def has_tables(path: Path, tables: Mapping[str, set[str]]) -> bool:
    """An SQLite file whose ``tables`` have at least the columns named."""
    try:
        with path.open("rb") as handle:
            if handle.read(16) != SQLITE_MAGIC:
                return False
        with closing(connect(path)) as conn:
            return all(need <= columns(conn, t) for t, need in tables.items())
    except (OSError, sqlite3.Error):
        return False  # a damaged SQLite file is llm's importer's to name


def newest(conn: sqlite3.Connection, table: str, updated: str) -> dict[str, Any]:
    """The table's marks: its newest rowid and, where it has the column ``updated``, the
    newest update time with the ids of the rows at that time."""
    mark: dict[str, Any] = {"rowid": conn.execute(f"SELECT max(rowid) FROM {table}").fetchone()[0]}
    if updated in columns(conn, table):
        value = conn.execute(f"SELECT max({updated}) FROM {table}").fetchone()[0]
        mark["time"] = value
        mark["at"] = [str(r[0]) for r in conn.execute(
            f"SELECT id FROM {table} WHERE {updated} = ?", (value,))]
    return mark


def changed_sessions(conn: sqlite3.Connection, since: dict[str, Any],
                     session_column: Mapping[str, str], updated: str) -> set[str]:
    """The sessions with a row added or written over since the marks ``since["tables"]``;
    ``session_column`` names, for each table, the column that holds a row's session."""
    tables = since.get("tables")
    marks = tables if isinstance(tables, dict) else {}
    out: set[str] = set()
    for table, sid in session_column.items():
        mark = marks.get(table)
        mark = mark if isinstance(mark, dict) else {}
        rowid = mark.get("rowid")
        terms = ["rowid > ?"]
        args: list[Any] = [rowid if isinstance(rowid, int) else -1]
        if updated in columns(conn, table) and mark.get("time") is not None:
            terms.append(f"{updated} > ? OR ({updated} = ? AND id NOT IN "
                         "(SELECT value FROM json_each(?)))")
            args += [mark["time"], mark["time"], json.dumps(mark.get("at") or [])]
        where = " OR ".join(f"({t})" for t in terms)
        out |= {str(r[0]) for r in conn.execute(
            f"SELECT DISTINCT {sid} FROM {table} WHERE {where}", args)}
    return out
