"""A window's import: read in a child process, written in small slices, cancelled cleanly (V2).

The window's interpreter only unpickles small slices of what the child read and hands
them to the store's writer, so the event loop never waits behind a whole conversation;
progress moves by bytes as the child reads; a cancel leaves the database as it was.
"""

from __future__ import annotations

import sqlite3
from pathlib import Path
from typing import Any

import pytest
from pytestqt.qtbot import QtBot

from explorer.app.child_pipe import Pipe
from explorer.app.importing import child as import_child
from explorer.app.importing.run import ImportProgress, ImportReport, import_paths
from explorer.store import Store
from explorer.ui.importing.worker import ImportJob
from tests.corpus import claude_code_sessions as cc

FINISH_TIMEOUT_MS = 120_000


@pytest.fixture(scope="module")
def big_session(tmp_path_factory: pytest.TempPathFactory) -> Path:
    from benchmarks.scale_data import one_session

    return one_session(tmp_path_factory.mktemp("session"), 2500, seed=4)


@pytest.fixture
def store(tmp_path: Path) -> Any:
    s = Store(tmp_path / "w.db")
    yield s
    s.close()


def dump(store: Store) -> list[Any]:
    conn = sqlite3.connect(store.db_path)
    try:
        tables = [r[0] for r in conn.execute(
            "SELECT name FROM sqlite_master WHERE type = 'table' AND name NOT LIKE 'parts_fts%' "
            "AND name NOT LIKE 'sqlite_%' ORDER BY name")]
        return [(t, conn.execute(f"SELECT * FROM {t} ORDER BY 1").fetchall()) for t in tables]
    finally:
        conn.close()


def test_V2_a_window_import_moves_by_bytes_and_reaches_the_writer_in_small_slices(
        qtbot: QtBot, store: Store, big_session: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    received: list[tuple[Any, ...]] = []
    real_receive = Pipe.receive

    def watched(self: Pipe) -> tuple[Any, ...]:
        message = real_receive(self)
        received.append(message)
        return message

    monkeypatch.setattr(Pipe, "receive", watched)  # the window's end of the pipe
    job = ImportJob(store, [big_session])
    seen: list[ImportProgress] = []
    job.progressed.connect(seen.append)
    with qtbot.waitSignal(job.finished, timeout=FINISH_TIMEOUT_MS) as blocker:
        job.start()
    report: ImportReport = blocker.args[0]
    assert report.errors == [] and report.added_messages == 2500
    size = big_session.stat().st_size
    reading = [p.bytes_done for p in seen if p.conversations_done == 0 and 0 < p.bytes_done < size]
    assert len(reading) >= 5 and reading == sorted(reading), "the bar moves while it is read"
    assert seen[-1].bytes_done == size
    slices = [m[1] for m in received if m[0] == "messages"]
    assert len(slices) >= 3, "one conversation arrives in several slices"
    assert max(len(s) for s in slices) <= import_child.SLICE_MESSAGES
    assert sum(len(s) for s in slices) == 2500
    assert all(m[2] is not None for m in received if m[0] == "messages"), \
        "a conversation read whole comes with its rows made"


def test_V2_a_cancelled_window_import_leaves_the_database_as_before(
        qtbot: QtBot, store: Store, big_session: Path) -> None:
    import_paths(store, [cc.PROJECTS])
    before = dump(store)
    assert any(rows for t, rows in before if t == "messages")
    job = ImportJob(store, [big_session])

    def on_progress(p: ImportProgress) -> None:
        if p.bytes_done > 0:
            job.cancel()

    job.progressed.connect(on_progress)
    with qtbot.waitSignal(job.finished, timeout=FINISH_TIMEOUT_MS) as blocker:
        job.start()
    report: ImportReport = blocker.args[0]
    assert report.cancelled and report.errors == [] and report.conversations == []
    assert dump(store) == before
    assert store.reader.execute("PRAGMA integrity_check").fetchone()[0] == "ok"
