"""A sync of OpenCode's store reads only the sessions that changed (S1): in ``opencode.db``
by ``time_updated``, in the storage folders by file time; what it stores equals a whole
import, and a session can be followed."""

from __future__ import annotations

import shutil
import sqlite3
from pathlib import Path
from typing import Any

from helpers import new_store
from opencode_db import CHILD, SESSION, T0, add_message, make_db

from explorer.app.importing.agent_homes import Environment
from explorer.app.importing.follow import followable, poll
from explorer.app.importing.run import import_paths
from explorer.app.importing.sync import sync_sources
from explorer.formats.opencode import read_changed
from explorer.store import Store
from tests.corpus import CORPUS


def rows(store: Store) -> list[tuple[Any, ...]]:
    return store.reader.execute(
        "SELECT c.source_id, m.source_id, p.source_id, m.role, (SELECT group_concat(x.text, '|') "
        "FROM parts x WHERE x.message_id = m.id) FROM messages m JOIN conversations c ON "
        "c.id = m.conversation_id LEFT JOIN messages p ON p.id = m.parent_id "
        "ORDER BY 1, 2").fetchall()


def data_home(tmp_path: Path) -> Path:
    folder = tmp_path / "home" / ".local" / "share" / "opencode"
    folder.mkdir(parents=True)
    return folder


def test_S1_a_database_sync_reads_only_the_sessions_that_changed(tmp_path: Path) -> None:
    db = data_home(tmp_path) / "opencode.db"
    writer = make_db(db)
    env = Environment(tmp_path / "home")
    with writer, new_store(tmp_path) as store:
        first = sync_sources(store, env, {"opencode"})
        assert first.reread == 1 and first.added_messages == 10
        cursor = store.sync_records()[str(db)].cursor
        assert cursor is not None
        convs, _ = read_changed(db, cursor["changed"]) or ([], {})
        assert SESSION not in {c.source_id for c in convs}  # only the newest rows read again
        add_message(writer, SESSION, "msg_a010", {"role": "user", "time": {"created": T0 + 59}},
                    [{"type": "text", "text": "One more thing."}])
        writer.commit()
        convs, cursor_now = read_changed(db, cursor["changed"]) or ([], {})
        assert SESSION in {c.source_id for c in convs}
        sync_sources(store, env, {"opencode"})
        cursor = store.sync_records()[str(db)].cursor
        assert cursor is not None and cursor["changed"] == cursor_now
        add_message(writer, CHILD, "msg_b003", {"role": "user", "time": {"created": T0 + 60}},
                    [{"type": "text", "text": "And the other flaky one?"}])
        writer.execute("UPDATE session SET time_updated = ? WHERE id = ?", (T0 + 60, CHILD))
        writer.commit()  # into the WAL, as OpenCode writes
        convs, _ = read_changed(db, cursor["changed"]) or ([], {})
        assert [c.source_id for c in convs] == [CHILD]  # the other session is not read
        again = sync_sources(store, env, {"opencode"})
        assert again.appended == 1 and again.reread == 0 and again.added_messages == 1
        assert str(db) in store.sync_records()
        child = next(c for c in store.conversations() if c.source_id == CHILD)
        assert store.path(child.id)[-1].text == "And the other flaky one?"
        assert sync_sources(store, env, {"opencode"}).unchanged == 1
        with new_store(tmp_path, "whole.db") as whole:
            import_paths(whole, [db])
            assert rows(store) == rows(whole)


def test_S1_a_storage_folder_sync_reads_only_the_session_whose_files_changed(
        tmp_path: Path) -> None:
    folder = data_home(tmp_path)
    shutil.copytree(CORPUS / "authored" / "opencode" / "project", folder / "project")
    root = folder / "project" / "global" / "storage"
    env = Environment(tmp_path / "home")
    with new_store(tmp_path) as store:
        assert sync_sources(store, env, {"opencode"}).reread == 1
        (record,) = store.sync_records().values()
        assert record.cursor is not None
        assert read_changed(root, record.cursor["changed"]) == ([], record.cursor["changed"])
        (info,) = (root / "session" / "info").glob("ses_*.json")
        sid = info.stem
        message = next((root / "session" / "message" / sid).glob("*.json"))
        new = message.with_name("msg_zzzz_new.json")
        new.write_text(message.read_text().replace(message.stem, "msg_zzzz_new"))
        changed, _ = read_changed(root, record.cursor["changed"]) or ([], {})
        assert [c.source_id for c in changed] == [sid]
        report = sync_sources(store, env, {"opencode"})
        assert report.appended == 1 and report.added_messages == 1


def test_an_opencode_session_in_the_database_can_be_followed(tmp_path: Path) -> None:
    db = tmp_path / "opencode.db"
    writer = make_db(db)
    with writer, new_store(tmp_path) as store:
        import_paths(store, [db])
        conv = next(c for c in store.conversations() if c.source_id == SESSION)
        followed = followable(store, conv.id)
        assert followed.agent == "OpenCode" and followed.path == db
        poll(store, followed)
        add_message(writer, SESSION, "msg_a009", {"role": "user", "time": {"created": T0 + 99}},
                    [{"type": "text", "text": "Try once more."}])
        writer.commit()
        done = poll(store, followed)
        assert done.added == 1 and len(done.new_ids) == 1
        assert store.conversation(conv.id).tip_id == done.new_ids[0] == done.tip


def test_an_opencode_export_file_cannot_be_followed(tmp_path: Path) -> None:
    import pytest

    from explorer.app.importing.follow import NotFollowable

    export = next((CORPUS / "opencode" / "home" / "exports").glob("ses_*.json"))
    with new_store(tmp_path) as store:
        import_paths(store, [export])
        (conv,) = store.conversations()
        with pytest.raises(NotFollowable, match="export"):
            followable(store, conv.id)


def test_a_damaged_database_is_named_and_skipped(tmp_path: Path) -> None:
    db = data_home(tmp_path) / "opencode.db"
    make_db(db).close()
    with new_store(tmp_path) as store:
        env = Environment(tmp_path / "home")
        sync_sources(store, env, {"opencode"})
        with sqlite3.connect(db) as conn:
            conn.execute("DROP TABLE part")
        report = sync_sources(store, env, {"opencode"})
        assert report.errors and report.added_messages == 0
