"""The migrations themselves, in order: what each did to the file, and why.

Never edit or reorder an entry once released: add a new one. :mod:`.migrations` runs
them, each in its own transaction, so a crash mid-upgrade leaves the previous version.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from contextlib import contextmanager
from typing import TYPE_CHECKING

if TYPE_CHECKING:  # imported when a migration runs: opening an up-to-date file needs none
    import sqlite_utils

Migration = tuple[str, Callable[["sqlite_utils.Database"], None]]



def _0001_tree(db: sqlite_utils.Database) -> None:
    db.table("conversations").create(
        {
            "id": int, "title": str, "tip_id": int, "context_start_id": int,
            "forked_from_conversation_id": int, "forked_from_message_id": int,
            "source_format": str, "source_id": str, "source_path": str,
            "created_at": float, "updated_at": float, "meta": str,
        },
        pk="id",
        not_null={"title"},
        defaults={"meta": "{}"},
    )
    db.table("messages").create(
        {
            "id": int, "conversation_id": int, "parent_id": int, "role": str,
            "created_at": float, "model": str, "usage": str, "source_id": str,
            "source_meta": str, "preview": str,
        },
        pk="id",
        not_null={"conversation_id", "role"},
        foreign_keys=[("conversation_id", "conversations", "id"), ("parent_id", "messages", "id")],
    )
    db.table("blobs").create(
        {"hash": str, "data": bytes, "size": int, "media_type": str}, pk="hash"
    )
    db.table("parts").create(
        {
            "id": int, "message_id": int, "idx": int, "kind": str, "text": str,
            "tool_name": str, "tool_use_id": str, "is_error": int, "blob_hash": str,
            "media_type": str, "meta": str,
        },
        pk="id",
        not_null={"message_id", "idx", "kind"},
        foreign_keys=[("message_id", "messages", "id"), ("blob_hash", "blobs", "hash")],
    )
    db.table("messages").create_index(["parent_id"])
    db.table("messages").create_index(["conversation_id"])
    db.table("parts").create_index(["message_id", "idx"], unique=True)


def _0002_checkpoints_rewinds(db: sqlite_utils.Database) -> None:
    db.table("checkpoints").create(
        {"id": int, "conversation_id": int, "label": str, "message_id": int, "created_at": float},
        pk="id",
        not_null={"conversation_id", "label", "message_id"},
        foreign_keys=[("conversation_id", "conversations", "id"), ("message_id", "messages", "id")],
    )
    db.table("checkpoints").create_index(["conversation_id", "label"], unique=True)
    db.table("rewinds").create(
        {
            "id": int, "conversation_id": int, "from_tip_id": int, "to_message_id": int,
            "label": str, "digest": str, "created_at": float,
        },
        pk="id",
        not_null={"conversation_id", "from_tip_id", "to_message_id"},
        foreign_keys=[
            ("conversation_id", "conversations", "id"),
            ("from_tip_id", "messages", "id"),
            ("to_message_id", "messages", "id"),
        ],
    )
    db.table("rewinds").create_index(["conversation_id"])


def _0003_search(db: sqlite_utils.Database) -> None:
    # Written out rather than Table.enable_fts: that uses executescript, which
    # commits and would break this migration's single transaction.
    db.execute(
        "CREATE VIRTUAL TABLE parts_fts USING fts5(text, content='parts', content_rowid='id')"
    )
    db.execute(
        "CREATE TRIGGER parts_ai AFTER INSERT ON parts BEGIN "
        "INSERT INTO parts_fts(rowid, text) VALUES (new.id, new.text); END"
    )
    db.execute(
        "CREATE TRIGGER parts_ad AFTER DELETE ON parts BEGIN "
        "INSERT INTO parts_fts(parts_fts, rowid, text) VALUES ('delete', old.id, old.text); END"
    )
    db.execute(
        "CREATE TRIGGER parts_au AFTER UPDATE ON parts BEGIN "
        "INSERT INTO parts_fts(parts_fts, rowid, text) VALUES ('delete', old.id, old.text); "
        "INSERT INTO parts_fts(rowid, text) VALUES (new.id, new.text); END"
    )
    db.execute("INSERT INTO parts_fts(parts_fts) VALUES ('rebuild')")


def _0004_compactions_and_clean_boundary(db: sqlite_utils.Database) -> None:
    db.table("compactions").create(
        {
            "id": int, "conversation_id": int, "message_id": int, "kind": str,
            "origin": str, "params": str, "outputs": str, "summary": str, "created_at": float,
        },
        pk="id",
        not_null={"conversation_id", "message_id", "kind"},
        foreign_keys=[("conversation_id", "conversations", "id"), ("message_id", "messages", "id")],
    )
    db.table("compactions").create_index(["conversation_id"])
    db.table("conversations").add_column("clean_tip_id", int)


def _0005_layouts(db: sqlite_utils.Database) -> None:
    # One packed blob per conversation: reopening a 100,000-node tree is one read.
    db.table("layouts").create(
        {"conversation_id": int, "version": int, "message_count": int, "max_message_id": int,
         "data": bytes, "computed_at": float},
        pk="conversation_id",
        foreign_keys=[("conversation_id", "conversations", "id")],
    )


def _0006_search_sync_in_writer(db: sqlite_utils.Database) -> None:
    # A per-row trigger made bulk imports three times slower; every insert goes through
    # rows.insert_rows, which indexes the new parts in one set-based statement instead.
    db.execute("DROP TRIGGER IF EXISTS parts_ai")


def _0007_search_merges_lazily(db: sqlite_utils.Database) -> None:
    # Fewer, larger index merges while importing (FTS5 default is 4); searches are unaffected
    # in practice and the segments merge as the index grows.
    db.execute("INSERT INTO parts_fts(parts_fts, rank) VALUES ('automerge', 16)")


def _0008_tending(db: sqlite_utils.Database) -> None:
    # Marks a person puts on the tree (archived subtree roots, the preferred child at a branch
    # point, a branch name, a note); a row with every mark empty is deleted, not kept.
    db.table("message_marks").create(
        {"message_id": int, "conversation_id": int, "archived_at": float, "preferred": int,
         "label": str, "note": str},
        pk="message_id",
        not_null={"conversation_id"},
        foreign_keys=[("conversation_id", "conversations", "id"), ("message_id", "messages", "id")],
    )
    db.table("message_marks").create_index(["conversation_id"])
    # A deleted subtree leaves the live tables whole (every read stays as it was) and waits
    # here, rows and all, until undo puts it back with the same ids or a purge drops it.
    db.table("tombstones").create(
        {"id": int, "conversation_id": int, "root_id": int, "parent_id": int,
         "message_count": int, "preview": str, "rows": str, "created_at": float},
        pk="id",
        not_null={"conversation_id", "root_id", "rows"},
        foreign_keys=[("conversation_id", "conversations", "id")],
    )
    db.table("tombstones").create_index(["conversation_id"])
    # Every tree action and how to undo it; undone ones stay as history (state 'undone',
    # or 'purged' when a purge took what the undo needed).
    db.table("operations").create(
        {"id": int, "conversation_id": int, "kind": str, "summary": str, "undo": str,
         "state": str, "created_at": float, "undone_at": float},
        pk="id",
        not_null={"kind", "undo", "state"},
        defaults={"state": "done"},
    )
    db.table("operations").create_index(["conversation_id"])
    # High-water marks that outlive the rows they count (a deleted message's id is never
    # handed out again, so undo can always restore it under its own id).
    db.table("counters").create({"name": str, "value": int}, pk="name", not_null={"value"})


def _0009_sync_files(db: sqlite_utils.Database) -> None:
    # What a sync read of each source file: size and mtime to skip an unchanged file
    # without writing, the byte offset and importer cursor to read only what was appended.
    db.table("sync_files").create(
        {"path": str, "fmt": str, "size": int, "mtime_ns": int, "byte_offset": int,
         "cursor": str, "tail_hash": str, "synced_at": float},
        pk="path",
        not_null={"fmt", "size", "mtime_ns", "byte_offset"},
    )


def _0010_part_sizes(db: sqlite_utils.Database) -> None:
    # Each part's sizes (characters, the estimator's character counts before and after the
    # secret redactor, an image's width and height), so a context figure sums integers
    # instead of reading every text. Old rows are sized afterwards, in the background
    # (store.part_sizing); the partial index finds the ones left.
    for column in ("size_chars", "size_words", "size_punct", "size_wide", "sent_words",
                   "sent_punct", "sent_wide", "image_width", "image_height"):
        db.execute(f"ALTER TABLE parts ADD COLUMN {column} INTEGER")
    db.execute("CREATE INDEX parts_unsized ON parts(id) WHERE size_chars IS NULL")
    # Sizing a part updates it: only a change of its text touches the search index.
    db.execute("DROP TRIGGER IF EXISTS parts_au")
    db.execute(
        "CREATE TRIGGER parts_au AFTER UPDATE OF text ON parts BEGIN "
        "INSERT INTO parts_fts(parts_fts, rowid, text) VALUES ('delete', old.id, old.text); "
        "INSERT INTO parts_fts(rowid, text) VALUES (new.id, new.text); END"
    )


def _0011_message_counts(db: sqlite_utils.Database) -> None:
    # Each conversation's message count, kept by triggers, so the conversation list (shown
    # before the window's first frame) reads one row a conversation instead of counting
    # every message in the file: 70–130 ms on a file of a million messages.
    db.execute("ALTER TABLE conversations ADD COLUMN message_count INTEGER NOT NULL DEFAULT 0")
    db.execute("UPDATE conversations SET message_count = (SELECT count(*) FROM messages m "
               "WHERE m.conversation_id = conversations.id)")
    db.execute(
        "CREATE TRIGGER messages_count_ai AFTER INSERT ON messages BEGIN "
        "UPDATE conversations SET message_count = message_count + 1 "
        "WHERE id = new.conversation_id; END")
    db.execute(
        "CREATE TRIGGER messages_count_ad AFTER DELETE ON messages BEGIN "
        "UPDATE conversations SET message_count = message_count - 1 "
        "WHERE id = old.conversation_id; END")
    db.execute(
        "CREATE TRIGGER messages_count_au AFTER UPDATE OF conversation_id ON messages "
        "WHEN old.conversation_id IS NOT new.conversation_id BEGIN "
        "UPDATE conversations SET message_count = message_count - 1 "
        "WHERE id = old.conversation_id; "
        "UPDATE conversations SET message_count = message_count + 1 "
        "WHERE id = new.conversation_id; END")


def _0012_open_indexes(db: sqlite_utils.Database) -> None:
    # What opening a conversation reads, kept out of the big columns: the messages whose
    # metadata matters, and each part's shape without its text (store.meta_keys).
    from explorer.store.meta_keys import INDEX_BY_TEXT, PARTS_SHAPE

    db.execute(INDEX_BY_TEXT)
    db.execute(PARTS_SHAPE)


def _0013_clean_boundaries(db: sqlite_utils.Database) -> None:
    # Each tip's clean boundary once derived (store.boundary), so a start reads one row
    # instead of walking the active path. A deleted tip takes its row along; a message
    # whose parts are rewritten (a sync of a response that grew) takes its conversation's.
    db.execute("CREATE TABLE clean_boundaries (tip_id INTEGER PRIMARY KEY, "
               "conversation_id INTEGER NOT NULL, boundary INTEGER)")
    db.execute("CREATE INDEX clean_boundaries_conversation ON clean_boundaries(conversation_id)")
    db.execute("CREATE TRIGGER clean_boundaries_tip_gone AFTER DELETE ON messages BEGIN "
               "DELETE FROM clean_boundaries WHERE tip_id = old.id; END")
    db.execute("CREATE TRIGGER clean_boundaries_parts_gone AFTER DELETE ON parts BEGIN "
               "DELETE FROM clean_boundaries WHERE conversation_id = "
               "(SELECT conversation_id FROM messages WHERE id = old.message_id); END")


def _0014_view_cache(db: sqlite_utils.Database) -> None:
    # Each conversation's revision, moved on by every write a view could show, and the
    # answers views derived from a whole conversation, kept under it (store.view_cache).
    from explorer.store import view_cache

    db.execute("ALTER TABLE conversations ADD COLUMN revision INTEGER NOT NULL DEFAULT 0")
    db.execute(view_cache.TABLE)
    for statement in view_cache.triggers():
        db.execute(statement)


def _0015_masked_previews(db: sqlite_utils.Database) -> None:
    # Previews are derived for display and now show no secret (R1): the previews an older
    # version wrote are derived again from their messages wherever one could hold a secret
    # (a cheap LIKE over every literal and keyword the rules start from finds those few).
    from explorer.store.rows import load_messages, preview
    from explorer.tree.secrets import SCREEN_WORDS

    where = " OR ".join("preview LIKE ?" for _ in SCREEN_WORDS)
    ids = [r[0] for r in db.execute(f"SELECT id FROM messages WHERE {where}",
                                    [f"%{w}%" for w in SCREEN_WORDS])]
    for start in range(0, len(ids), 500):
        for mid, m in load_messages(db.conn, ids[start:start + 500]).items():
            text = preview(m)
            db.execute("UPDATE messages SET preview = ? WHERE id = ? AND preview IS NOT ?",
                       [text, mid, text])


def _0016_compaction_pins(db: sqlite_utils.Database) -> None:
    # Strings a person pinned to keep as text through compaction (L8, store.pins).
    from explorer.store import pins

    db.execute(pins.TABLE)


def _0017_handoff_keys(db: sqlite_utils.Database) -> None:
    # Which message each record of a hand-back session file is (H1, store.handoff_keys);
    # a file that had a hand-back before this migration already holds the table.
    from explorer.store import handoff_keys

    db.execute(handoff_keys.TABLE)
    db.execute("CREATE INDEX IF NOT EXISTS handoff_keys_message ON handoff_keys(message_id)")


def _0018_root_keys(db: sqlite_utils.Database) -> None:
    # A session that copies another (Claude Code's --fork-session) starts with the same
    # message: its import finds that conversation by the root's key (import_writes._copy_of).
    db.execute("CREATE INDEX IF NOT EXISTS messages_root_keys ON messages(source_id) "
               "WHERE parent_id IS NULL")


def _0019_search_sessions(db: sqlite_utils.Database) -> None:
    # A search too big to rank walks sessions newest first (store.search_plan): by when each
    # started, and a date filter asks each for its first or last message in one index step.
    # About a second and 24 MB on a file of 1.2 M messages.
    db.execute("CREATE INDEX IF NOT EXISTS conversations_started ON conversations(created_at)")
    db.execute("CREATE INDEX IF NOT EXISTS messages_conversation_time "
               "ON messages(conversation_id, created_at)")


def _0020_source_ids(db: sqlite_utils.Database) -> None:
    # Every conversation an import or sync stores is first looked up by its source id
    # (import_match.continued): without an index a first sync of 25,000 sessions scanned
    # the table once each, 40 % of its writer's time by the end.
    db.execute("CREATE INDEX IF NOT EXISTS conversations_source "
               "ON conversations(source_format, source_id)")


def _0021_dated_by_messages(db: sqlite_utils.Database) -> None:
    # An import used to date a conversation by when it was imported, so a whole archive
    # synced at once listed in import order. Imported conversations are dated by their
    # newest message now (never later than they were); their revision stays, so what was
    # kept for them (graphs, figures) stays valid. About a second at 25,000.
    with _trigger_aside(db, "revision_conversations_au"):
        db.execute(
            "UPDATE conversations SET updated_at = (SELECT max(m.created_at) FROM messages m "
            "WHERE m.conversation_id = conversations.id) WHERE source_format IS NOT NULL AND "
            "(SELECT max(m.created_at) FROM messages m WHERE m.conversation_id = "
            "conversations.id) < coalesce(updated_at, 0)")


@contextmanager
def _trigger_aside(db: sqlite_utils.Database, name: str) -> Iterator[None]:
    """Within the block the trigger ``name`` does not fire (a step's own update must not
    bump revisions); created again after, as it was (in the step's transaction)."""
    kept = [r[0] for r in db.execute(
        "SELECT sql FROM sqlite_master WHERE type = 'trigger' AND name = ?", [name])]
    db.execute(f"DROP TRIGGER IF EXISTS {name}")
    yield
    for statement in kept:
        db.execute(statement)


def _0022_sync_compare(db: sqlite_utils.Database) -> None:
    # A sync compares every file's size and time with its record; the table's rows carry
    # the tail cursors (87 MB at 25,000 sessions), so reading four columns of each read
    # 25 MB of its pages. This index holds just those four: a tenth of the pages.
    db.execute("CREATE INDEX IF NOT EXISTS sync_files_compare "
               "ON sync_files(path, size, mtime_ns, byte_offset)")


def _0023_meta_marked(db: sqlite_utils.Database) -> None:
    # The messages whose metadata the views look into are marked in a column of their own
    # (store.meta_keys.COLUMN), which the writer sets: the index's own condition searched
    # every inserted message's metadata five times, half the time of inserting it. The
    # marked ones are found through the old index; their revision stays, so what was kept
    # for them stays valid.
    from explorer.store import meta_keys

    if meta_keys.COLUMN not in {r[1] for r in db.execute("PRAGMA table_info(messages)")}:
        _mark_messages(db)
    db.execute(meta_keys.INDEX)
    for statement in meta_keys.TRIGGERS:
        db.execute(statement)


def _mark_messages(db: sqlite_utils.Database) -> None:
    """The column added and set where the old index (partial on the text) holds a message."""
    from explorer.store import meta_keys

    db.execute(f"ALTER TABLE messages ADD COLUMN {meta_keys.COLUMN} INTEGER")
    with _trigger_aside(db, "revision_messages_au"):
        db.execute(f"UPDATE messages INDEXED BY messages_meta_keys SET {meta_keys.COLUMN} = 1 "
                   f"WHERE {meta_keys.named_in('source_meta')}")
    db.execute("DROP INDEX messages_meta_keys")


def _0024_search_pending_larger(db: sqlite_utils.Database) -> None:
    # The index holds up to 2 MiB of new entries before it writes a segment (FTS5 default:
    # 1 MiB): indexing a 100,000-message session's text took 0.54-0.63 s, not 0.72-0.73 s,
    # with half the segments to merge. 4 or 8 MiB were no faster, and the import's peak
    # memory grew by as much.
    db.execute("INSERT INTO parts_fts(parts_fts, rank) VALUES ('hashsize', 2097152)")


MIGRATIONS: list[Migration] = [
    ("0001_tree", _0001_tree),
    ("0002_checkpoints_rewinds", _0002_checkpoints_rewinds),
    ("0003_search", _0003_search),
    ("0004_compactions_and_clean_boundary", _0004_compactions_and_clean_boundary),
    ("0005_layouts", _0005_layouts),
    ("0006_search_sync_in_writer", _0006_search_sync_in_writer),
    ("0007_search_merges_lazily", _0007_search_merges_lazily),
    ("0008_tending", _0008_tending),
    ("0009_sync_files", _0009_sync_files),
    ("0010_part_sizes", _0010_part_sizes),
    ("0011_message_counts", _0011_message_counts),
    ("0012_open_indexes", _0012_open_indexes),
    ("0013_clean_boundaries", _0013_clean_boundaries),
    ("0014_view_cache", _0014_view_cache),
    ("0015_masked_previews", _0015_masked_previews),
    ("0016_compaction_pins", _0016_compaction_pins),
    ("0017_handoff_keys", _0017_handoff_keys),
    ("0018_root_keys", _0018_root_keys),
    ("0019_search_sessions", _0019_search_sessions),
    ("0020_source_ids", _0020_source_ids),
    ("0021_dated_by_messages", _0021_dated_by_messages),
    ("0022_sync_compare", _0022_sync_compare),
    ("0023_meta_marked", _0023_meta_marked),
    ("0024_search_pending_larger", _0024_search_pending_larger),
]
