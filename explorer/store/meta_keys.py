"""The few messages whose metadata the tree's views look into, found by one partial index.

Opening a conversation asks several questions of ``source_meta`` (records a tool kept for
itself, compaction summaries, merges, edited prompts, subagent roots). Asked of every
message, each was a scan of the whole column: 72 MB of metadata on a real 127,000-message
Claude Code session, 0.2–0.7 s per question. The index ``messages_meta_keys`` holds only
the messages whose metadata names one of :data:`KEYS`; a query that carries the term
:data:`MARKED` (the index's own expression, spelled the same) reads just those.
"""

from __future__ import annotations

KEYS = ("meta_record", "isCompactSummary", "merged_from", "edited_from",
        "spawned_by_tool_use_id")

# instr() of the quoted key: a plain byte search, cheap to keep up on every insert. It may
# also match the key inside a value; the queries check the parsed JSON afterwards.
MARKED = "(" + " OR ".join(f"instr(source_meta, '\"{k}\"') > 0" for k in KEYS) + ")"

MARKED_ROWS = "messages INDEXED BY messages_meta_keys"
"""Where a query carrying :data:`MARKED` reads: named, because another index that also
starts with the conversation (``messages_conversation_time``, for search's date filters)
looks as good to the planner without statistics, and reads every message of it."""

INDEX = ("CREATE INDEX IF NOT EXISTS messages_meta_keys ON messages(conversation_id, id) "
         f"WHERE {MARKED}")

# Every part's shape without its text: reads that ask which messages call or answer tools,
# or err, or with which tool, stay in this index instead of paging through the texts
# (``text`` comes before these columns in a row, so a long one spills onto pages of its own).
PARTS_SHAPE = ("CREATE INDEX IF NOT EXISTS parts_shape "
               "ON parts(message_id, idx, kind, is_error, tool_name, tool_use_id)")
