"""The transcript opens a big conversation on the path skeleton ``convo import`` kept (V2):
no message or part of the path is read for it, and the rows are the ones a read makes.
A path it had to read, it keeps itself once the window has settled."""

from __future__ import annotations

from pathlib import Path

import pytest
from pytestqt.qtbot import QtBot

from explorer.app.kept import paths as kept_paths
from explorer.store import Store
from explorer.ui.transcript import path_keeper
from explorer.ui.transcript.loading import read_skeleton
from tests.helpers import settled_conversation, statements_run
from tests.ui.transcript_helpers import load, shown_view


def test_V2_the_skeleton_read_reads_a_kept_path_and_keeps_none_itself(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(kept_paths, "KEPT_FROM", 10)
    with Store(tmp_path / "t.db") as store:
        conv = settled_conversation(store, 6, "kept path")
        read = read_skeleton(store, conv)
        store.writes_done()
        assert not store.reader.execute("SELECT 1 FROM view_cache").fetchall()  # not kept
        tip = store.conversation(conv).tip_id
        assert tip is not None
        kept_paths.path_columns(store, conv, tip, keep=True)  # as convo import does
        store.writes_done()
        with statements_run(store.reader) as seen:
            kept = read_skeleton(store, conv)
        assert not [s for s in seen if "JOIN parts p" in s or "JOIN messages m" in s]
        assert list(kept.entries) == list(read.entries)
        assert read.unkept is not None and kept.unkept is None


def test_V2_the_view_keeps_a_path_it_read_once_nothing_is_reading(
        qtbot: QtBot, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(kept_paths, "KEPT_FROM", 10)
    monkeypatch.setattr(path_keeper, "KEEP_AFTER_MS", 60_000)
    with Store(tmp_path / "t.db") as store:
        conv = settled_conversation(store, 6, "kept later")
        view = shown_view(qtbot, store, conv)
        assert view.keeper.pending and view.keeper.timer.isActive()
        busy = [True]
        view.keeper.busy = lambda: busy[0]  # the window reading: the keep waits
        view.keeper.timer.start(20)
        qtbot.wait(200)
        assert view.keeper.pending and not _kept(store)
        busy[0] = False
        qtbot.waitUntil(lambda: not view.keeper.pending, timeout=5000)
        store.writes_done()
        assert _kept(store)
        with statements_run(store.reader) as seen:
            load(qtbot, view, conv)
        assert not [s for s in seen if "JOIN parts p" in s or "JOIN messages m" in s]
        assert not view.keeper.pending  # read kept: nothing to keep
        view.shutdown()


def test_V2_a_short_path_or_a_closing_view_keeps_nothing(
        qtbot: QtBot, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    with Store(tmp_path / "t.db") as store:
        conv = settled_conversation(store, 6, "short")
        view = shown_view(qtbot, store, conv)
        assert not view.keeper.pending  # under KEPT_FROM messages
        monkeypatch.setattr(kept_paths, "KEPT_FROM", 10)
        load(qtbot, view, conv)
        assert view.keeper.pending and view.keeper.timer.isActive()
        view.shutdown()
        assert not view.keeper.pending and not view.keeper.timer.isActive()
        store.writes_done()
        assert not _kept(store)


def _kept(store: Store) -> bool:
    return bool(store.reader.execute(
        "SELECT 1 FROM view_cache WHERE kind = ?", (kept_paths.KIND,)).fetchall())
