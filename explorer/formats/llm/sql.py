"""Reading an llm ``logs.db`` read-only, tolerating missing tables and columns."""

from __future__ import annotations

import sqlite3
from pathlib import Path
from typing import Any

from explorer.tree.model import Usage

FORMAT = "llm"
Row = dict[str, Any]


def connect(path: Path) -> sqlite3.Connection:
    conn = sqlite3.connect(path.resolve().as_uri() + "?mode=ro", uri=True)
    conn.row_factory = sqlite3.Row
    return conn


def tables_of(conn: sqlite3.Connection) -> set[str]:
    return {r[0] for r in conn.execute("SELECT name FROM sqlite_master WHERE type='table'")}


def has_store(conn: sqlite3.Connection) -> bool:
    """llm's message store: messages keyed by content hash with parent hashes."""
    return {"hash", "parent_hash"} <= columns(conn, "messages")


def columns(conn: sqlite3.Connection, table: str) -> set[str]:
    return {r[1] for r in conn.execute(f'PRAGMA table_info("{table}")')}


def select(
    conn: sqlite3.Connection, table: str, wanted: tuple[str, ...], tail: str = "",
    args: tuple[Any, ...] = (),
) -> list[Row]:
    """Rows with every wanted column; ones the table lacks read as None."""
    have = columns(conn, table)
    cols = ", ".join(f'"{c}"' if c in have or c == "rowid" else f'NULL AS "{c}"' for c in wanted)
    return [dict(r) for r in conn.execute(f'SELECT {cols} FROM "{table}" {tail}', args)]


def usage(input_tokens: object, output_tokens: object) -> Usage | None:
    """Token counts, ignoring anything that is not a whole number."""
    counts = {"input_tokens": input_tokens, "output_tokens": output_tokens}
    known = {k: v for k, v in counts.items() if isinstance(v, int) and not isinstance(v, bool)}
    return Usage(**known) if known else None
