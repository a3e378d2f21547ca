"""The few messages whose metadata the tree's views look into, found by one partial index.

Opening a conversation asks several questions of ``source_meta`` (records a tool kept for
itself, compaction summaries, merges, edited prompts, subagent roots). Asked of every
message, each was a scan of the whole column: 72 MB of metadata on a real 127,000-message
Claude Code session, 0.2–0.7 s per question. The index ``messages_meta_keys`` holds only
the messages whose metadata names one of :data:`KEYS`; a query that carries the term
:data:`MARKED` (the index's own expression, spelled the same) reads just those.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

KEYS = ("meta_record", "isCompactSummary", "merged_from", "edited_from",
        "spawned_by_tool_use_id")


def named_in(column: str) -> str:
    """Whether the JSON text ``column`` names one of :data:`KEYS`: instr() of each quoted
    key, a plain byte search. It may also match the key inside a value; the queries check
    the parsed JSON afterwards."""
    return "(" + " OR ".join(f"instr({column}, '\"{k}\"') > 0" for k in KEYS) + ")"


COLUMN = "meta_marked"
"""1 on a message whose metadata may name one of :data:`KEYS` at its top level; 0 or NULL
on the others. Kept by the writer, which has the metadata as a dict (:func:`marks`), or,
when a write leaves it NULL or changes the metadata, by the triggers (:data:`TRIGGERS`).

The index used to be partial on :func:`named_in` itself: SQLite evaluated its five byte
searches over every inserted message's metadata (600 bytes on average, 4,000 with a tool's
result), half of the time of inserting a message."""

MARKED = f"{COLUMN} = 1"
"""The term a query carries to read through the index (its own condition, spelled the same)."""

MARKED_ROWS = "messages INDEXED BY messages_meta_keys"
"""Where a query carrying :data:`MARKED` reads: named, because another index that also
starts with the conversation (``messages_conversation_time``, for search's date filters)
looks as good to the planner without statistics, and reads every message of it."""

INDEX = ("CREATE INDEX IF NOT EXISTS messages_meta_keys ON messages(conversation_id, id) "
         f"WHERE {MARKED}")

INDEX_BY_TEXT = ("CREATE INDEX IF NOT EXISTS messages_meta_keys ON messages(conversation_id, "
                 f"id) WHERE {named_in('source_meta')}")
"""The index as migration 0012 made it, before :data:`COLUMN` (migration 0023 replaced it)."""

TRIGGERS = (
    # A writer that says nothing (NULL) has it decided from the text, only when it is marked.
    f"CREATE TRIGGER IF NOT EXISTS messages_meta_marked_ai AFTER INSERT ON messages "
    f"WHEN new.{COLUMN} IS NULL AND {named_in('new.source_meta')} BEGIN "
    f"UPDATE messages SET {COLUMN} = 1 WHERE id = new.id; END",
    f"CREATE TRIGGER IF NOT EXISTS messages_meta_marked_au AFTER UPDATE OF source_meta "
    f"ON messages BEGIN "
    f"UPDATE messages SET {COLUMN} = {named_in('new.source_meta')} WHERE id = new.id; END",
)


def marks(meta: Mapping[str, Any]) -> int:
    """:data:`COLUMN` for a message with metadata ``meta``: 1 when it names a key."""
    return 1 if any(k in meta for k in KEYS) else 0


# Every part's shape without its text: reads that ask which messages call or answer tools,
# or err, or with which tool, stay in this index instead of paging through the texts
# (``text`` comes before these columns in a row, so a long one spills onto pages of its own).
PARTS_SHAPE = ("CREATE INDEX IF NOT EXISTS parts_shape "
               "ON parts(message_id, idx, kind, is_error, tool_name, tool_use_id)")
