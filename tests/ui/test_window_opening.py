"""Opening a long conversation: the window comes first, the conversation's data after (V2).

The main thread's own read connection is traced, so these tests see every statement
the window runs on the main thread while it opens a conversation and settles.
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest
from helpers import chat_turn, tool_turn
from PySide6.QtCore import QSettings
from pytestqt.qtbot import QtBot
from transcript_helpers import settle

from explorer.store import Store
from explorer.ui.window.main_window import MainWindow

TURNS = 600


@pytest.fixture
def long_store(tmp_path: Path) -> Iterator[tuple[Store, int]]:
    store = Store(tmp_path / "long.db")
    conv = store.create_conversation("long session")
    store.append_turn(conv, [m for n in range(TURNS) for m in
                             (tool_turn(n) if n % 3 else chat_turn(n))])
    yield store, conv
    store.close()


def open_traced(qtbot: QtBot, store: Store, conv: int, tmp_path: Path
                ) -> tuple[MainWindow, list[str]]:
    statements: list[str] = []
    # A loaded window hands its readers' page caches back from a worker thread, this
    # thread's connection too: SQLite would call the trace from there holding the
    # connection's lock, while this thread, holding the interpreter, waits for that lock.
    store.shrink_readers = lambda: None  # type: ignore[method-assign]
    store.reader.set_trace_callback(statements.append)  # this (the main) thread's reader
    settings = QSettings(str(tmp_path / "w.ini"), QSettings.Format.IniFormat)
    settings.setValue("window/conversation", conv)
    window = MainWindow(store, settings)
    qtbot.addWidget(window)
    window.resize(1200, 800)
    window.show()
    return window, statements


def walks_the_path(sql: str) -> bool:
    return "WITH RECURSIVE" in sql.upper()


def reads_parts(sql: str) -> bool:
    return " parts" in sql.lower()


def test_V2_the_window_shows_before_the_conversation_is_read(
    qtbot: QtBot, long_store: tuple[Store, int], tmp_path: Path
) -> None:
    store, conv = long_store
    window, statements = open_traced(qtbot, store, conv, tmp_path)
    try:
        assert window.conversation_id == conv
        assert window.transcript.rows == [] and window.transcript.is_loading
        assert window.graph.is_loading and window.graph.view.model is None
        assert "long session" in window.status_label.text(), "the status line is there at once"
        opening = list(statements)
        assert opening, "the trace sees the main thread's reads"
        assert not [s for s in opening if walks_the_path(s) or reads_parts(s)]
        qtbot.waitUntil(lambda: not window.graph.is_loading, timeout=20_000)
        settle(qtbot, window.transcript)
        assert len(window.transcript.message_ids()) == len(store.path_ids(
            store.conversation(conv).tip_id or 0))
    finally:
        store.reader.set_trace_callback(None)
        window.close()


def test_V2_the_main_thread_never_walks_the_path_or_reads_message_text(
    qtbot: QtBot, long_store: tuple[Store, int], tmp_path: Path
) -> None:
    store, conv = long_store
    window, statements = open_traced(qtbot, store, conv, tmp_path)
    try:
        qtbot.waitUntil(lambda: not window.graph.is_loading, timeout=20_000)
        settle(qtbot, window.transcript)
        window.transcript.scroll_to(window.transcript.message_ids()[0])
        settle(qtbot, window.transcript)
        window.go_to_tip()
        settle(qtbot, window.transcript)
        assert window.transcript.live_cards(), "the transcript shows cards"
        heavy = [s for s in statements if walks_the_path(s) or reads_parts(s)]
        assert heavy == []
    finally:
        store.reader.set_trace_callback(None)
        window.close()


def test_memory_freed_by_a_load_can_be_handed_back() -> None:
    import platform

    from explorer.ui.background.memory import release_freed_memory

    assert release_freed_memory() is (platform.libc_ver()[0] == "glibc")


def test_the_allocator_keeps_one_arena_unless_the_environment_chose() -> None:
    import platform

    from explorer.app.heap import share_one_heap

    assert share_one_heap({}) is (platform.libc_ver()[0] == "glibc")
    assert share_one_heap({"MALLOC_ARENA_MAX": "4"}) is False


def test_settling_memory_forgets_the_source_lines_read_at_start() -> None:
    import gc
    import linecache

    from explorer.ui.app import settle_memory

    assert linecache.getline(__file__, 1)
    assert linecache.cache
    try:
        settle_memory(collect=False)
        assert not linecache.cache
        assert gc.get_freeze_count() > 0
    finally:
        gc.unfreeze()
