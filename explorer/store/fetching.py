"""Rows a bounded chunk at a time, for the reads a conversation's open makes off the main thread.

A worker that turns 100,000 rows into Python objects at once keeps them all alive
together (the peak of the open) and builds them in one long stretch; a chunk at a
time keeps the peak to one chunk and gives the window's thread its turns between them.
"""

from __future__ import annotations

import sqlite3
from collections.abc import Iterator
from typing import Any

FETCH_ROWS = 512


def in_chunks(cursor: sqlite3.Cursor, size: int = FETCH_ROWS) -> Iterator[list[Any]]:
    """The cursor's rows, at most ``size`` at a time."""
    while rows := cursor.fetchmany(size):
        yield rows
