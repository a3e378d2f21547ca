"""A first sync stores small sessions together, a batch to a transaction, and keeps each
file whole (S1, P2): the same rows as one sync a file at a time, far fewer commits, and a
batch the writer refuses is stored file by file."""

from __future__ import annotations

import re
import shutil
import sqlite3
from pathlib import Path

import pytest
from agent_home import claude_sessions
from helpers import new_store

from explorer.app.importing import sync
from explorer.app.importing.agent_homes import Environment
from explorer.app.importing.sync import sync_sources
from explorer.store import Store
from explorer.tree.model import Message, Part

UUID = re.compile(r"\b[0-9a-f]{8}(-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12})\b")


def many_sessions(home: Path, count: int) -> None:
    """``count`` sessions made from the recorded Claude Code one, every id (the session's and
    its records') made its own, so none is a copy of another (that would be a fork)."""
    src = claude_sessions()[-1]
    folder = home / ".claude" / "projects" / "-work"
    folder.mkdir(parents=True)
    text = src.read_text()
    for i in range(count):
        mine = UUID.sub(lambda m, i=i: f"{i:08x}{m.group(1)}", text)
        sid = UUID.sub(lambda m, i=i: f"{i:08x}{m.group(1)}", src.stem)
        (folder / f"{sid}.jsonl").write_text(mine)


def rows(store: Store) -> list[tuple[object, ...]]:
    return store.reader.execute(
        "SELECT c.source_id, m.source_id, m.role FROM messages m JOIN conversations c "
        "ON c.id = m.conversation_id ORDER BY c.source_id, m.source_id").fetchall()


def commits(db: Path) -> int:
    conn = sqlite3.connect(db)
    try:
        return int(conn.execute("SELECT count(*) FROM sync_files").fetchone()[0])
    finally:
        conn.close()


def test_S1_small_sessions_share_transactions_and_end_as_a_file_at_a_time(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    home = tmp_path / "home"
    many_sessions(home, 12)
    env = Environment(home, {})
    with new_store(tmp_path, "batched.db") as store:
        seen = []
        real = Store.sync_import_many_later
        monkeypatch.setattr(Store, "sync_import_many_later",
                            lambda self, files: seen.append(len(files)) or real(self, files))
        batched = sync_sources(store, env, {"claude-code"})
        together = rows(store)
        assert len(store.conversations()) == 12
    monkeypatch.setattr(sync.Batch, "FILES", 1)  # every file alone, as before batches
    with new_store(tmp_path, "alone.db") as store:
        alone = sync_sources(store, env, {"claude-code"})
        one_by_one = rows(store)
    assert seen and sum(seen) == 12 and max(seen) > 1  # files shared transactions
    assert batched.errors == alone.errors == [] and batched.reread == alone.reread == 12
    assert batched.added_messages == alone.added_messages > 0
    assert together == one_by_one
    assert commits(tmp_path / "batched.db") == 12  # each file's record, as each whole


def test_S1_a_batch_the_writer_refuses_is_stored_file_by_file(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    home = tmp_path / "home"
    many_sessions(home, 5)

    def refuse(self: Store, files: object) -> object:
        raise RuntimeError("the batch failed")
    monkeypatch.setattr(Store, "sync_import_many_later", refuse)
    with new_store(tmp_path) as store:
        report = sync_sources(store, Environment(home, {}), {"claude-code"})
        assert report.errors == [] and len(store.conversations()) == 5
        assert sync_sources(store, Environment(home, {}), {"claude-code"}).unchanged == 5


def test_P2_a_cancelled_sync_stores_every_session_it_read_whole(tmp_path: Path) -> None:
    home = tmp_path / "home"
    many_sessions(home, 6)
    asked = [0]

    def cancel() -> bool:
        asked[0] += 1
        return asked[0] > 3  # three files read, then stop
    from explorer.app.importing.sources import find_sources
    with new_store(tmp_path) as store:
        units = [u for f in find_sources(Environment(home, {}), {"claude-code"}) for u in f.units]
        report = sync.sync_units(store, units, cancel=cancel)
        assert report.reread == 3 and len(store.conversations()) == 3
        shutil.rmtree(home / ".claude" / "projects" / "-work")  # nothing left to read
        assert len(store.conversations()) == 3
    assert report.cancelled


def test_S1_a_batch_counts_each_conversation_once_and_keeps_the_counting_triggers(
        tmp_path: Path) -> None:
    from explorer.store.rows import BULK_TRIGGERS

    home = tmp_path / "home"
    many_sessions(home, 12)
    with new_store(tmp_path) as store:
        before = store.reader.execute("SELECT revision FROM conversations").fetchall()
        sync_sources(store, Environment(home, {}), {"claude-code"})
        counted = store.reader.execute(
            "SELECT c.message_count, (SELECT count(*) FROM messages m "
            "WHERE m.conversation_id = c.id), c.revision FROM conversations c").fetchall()
        triggers = {r[0] for r in store.reader.execute(
            "SELECT name FROM sqlite_master WHERE type = 'trigger'")}
        conv = store.conversations()[0]
        store.append_turn(conv.id, [Message("x", None, "user", [Part("text", "more")])],
                          parent_id=conv.tip_id)
        after = store.conversation(conv.id)
    assert before == [] and len(counted) == 12
    assert all(kept == real > 0 and revision > 0 for kept, real, revision in counted)
    assert set(BULK_TRIGGERS) <= triggers
    assert after.message_count == conv.message_count + 1  # the triggers count again
