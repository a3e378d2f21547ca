"""The paths to the last few tips, kept: opening a conversation asks for the same path
three or four times at once (the graph's marks, its tending view, the context figure,
the branch state), and each walk of a 100,000-message path costs a recursive query.

The path to a message never changes while the message exists (messages are only added; a
parent is never rewritten; an undone deletion puts rows back under their own ids), so a
kept path is good for as long as its tip is there, which each answer checks by key.
Threads that ask for the same tip at once share one walk.
"""

from __future__ import annotations

import sqlite3
from array import array
from collections.abc import Callable

from explorer.store.reads import NotFound
from explorer.store.shared_answers import SharedAnswers

KEPT = 4
"""Paths kept (8 bytes an id: 4 paths of 100,000 messages are 3 MB)."""


class PathMemo:
    def __init__(self) -> None:
        self._paths: SharedAnswers[int, array[int]] = SharedAnswers(KEPT)

    def keep(self, ids: array[int], also_to: int | None = None) -> None:
        """Keep the path root to ``ids[-1]`` that a write knew already (an import sets a
        new conversation's tip from its path, which a walk found again right after), and
        the part of it up to ``ids[also_to]`` (its clean boundary, another tip asked for)."""
        if also_to is not None and 0 <= also_to < len(ids) - 1:
            self._paths.put(ids[also_to], ids[:also_to + 1])
        if ids:
            self._paths.put(ids[-1], ids)

    def known(self, tip: int) -> array[int] | None:
        """The kept path to ``tip``, if one is kept (not checked against the file)."""
        return self._paths.peek(tip)

    def path_ids(self, conn: sqlite3.Connection, tip: int,
                 walk: Callable[[sqlite3.Connection, int], list[int]]) -> list[int]:
        """``walk(conn, tip)``, or the kept answer when ``tip`` still exists."""
        ids = self._paths.get(tip, lambda: array("q", walk(conn, tip)))
        if conn.execute("SELECT 1 FROM messages WHERE id = ?", (tip,)).fetchone() is None:
            raise NotFound(f"no message {tip}")  # deleted since it was kept
        return ids.tolist()
