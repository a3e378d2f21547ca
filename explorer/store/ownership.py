"""Whether a file is this program's database before anything writes to it (W1).

``--db`` can name any file. Opening it the usual way would switch it to WAL and add this
program's tables, so another program's SQLite file (llm's ``logs.db``, a browser's history)
would be changed by a mere ``convo list``. The file is looked at read-only first: an empty
or absent one may become a new database; one with this program's migrations is ours; any
other is refused untouched, with a hint.
"""

from __future__ import annotations

import sqlite3
import stat
from pathlib import Path

from explorer.store.errors import StoreError
from explorer.store.guard import database_of
from explorer.store.read_only import read_only_uri, stuck_journal

SQLITE_MAGIC = b"SQLite format 3\x00"


class NotOurDatabase(StoreError):
    """The file is not this program's database; nothing in it was changed."""


def check_own_file(path: Path) -> None:
    """Refuse ``path`` unless it is absent, empty, or this program's database."""
    if database_of(path) is not None:
        return  # open in this process already (and a plain open would drop its locks)
    try:
        st = path.stat()
    except FileNotFoundError:
        return
    if not stat.S_ISREG(st.st_mode):
        raise NotOurDatabase(f"{path} is not a regular file: nothing was changed")
    if st.st_size == 0:
        return
    with path.open("rb") as f:
        head = f.read(len(SQLITE_MAGIC))
    if head != SQLITE_MAGIC:
        raise NotOurDatabase(f"{path} is not a SQLite database, nor this program's: nothing "
                             "was changed (to bring in a transcript: convo import FILE)")
    tables = _tables(path)
    if tables and "_migrations" not in tables:
        shown = ", ".join(sorted(tables)[:4]) + (" …" if len(tables) > 4 else "")
        hint = ("it looks like llm's logs.db: import it with convo import FILE"
                if "responses" in tables or ("conversations" in tables and "messages" in tables)
                else "choose another --db")
        raise NotOurDatabase(f"{path} is another program's SQLite database (tables {shown}), "
                             f"not this program's: nothing was changed; {hint}")


def _tables(path: Path) -> set[str]:
    uri = read_only_uri(path)  # immutable where the folder cannot take a -shm
    try:
        conn = sqlite3.connect(uri, uri=True)
        try:
            return {r[0] for r in conn.execute(
                "SELECT name FROM sqlite_master WHERE type = 'table'")}
        finally:
            conn.close()
    except sqlite3.DatabaseError as e:
        raise stuck_journal(path) or NotOurDatabase(
            f"{path} cannot be read as a database ({e}): nothing was changed") from e
