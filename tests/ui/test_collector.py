"""No full garbage collection stalls the window while background work runs (V2).

Counted with ``gc.callbacks``: a full (generation-2) collection holds the GIL for as
long as it walks everything tracked, whichever thread triggers it.
"""

from __future__ import annotations

import gc
import threading
import weakref
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from helpers import chat_turn, tool_turn
from PySide6.QtCore import QSettings
from pytestqt.qtbot import QtBot
from transcript_helpers import settle

from explorer.store import Store
from explorer.ui.background import collector
from explorer.ui.background.tasks import TaskRunner, Ticket
from explorer.ui.window.main_window import MainWindow


@pytest.fixture
def full_collections() -> Iterator[list[str]]:
    """The thread of every full collection that ran (explicit ones included)."""
    seen: list[str] = []

    def note(phase: str, info: dict[str, Any]) -> None:
        if phase == "stop" and info["generation"] == 2:
            seen.append(threading.current_thread().name)

    gc.callbacks.append(note)
    yield seen
    gc.callbacks.remove(note)


def allocate(count: int) -> list[list[int]]:
    """Tracked containers that stay alive: what a load's records are to the collector."""
    return [[n] for n in range(count)]


def enough_to_trigger() -> int:
    gc.collect()  # the next automatic full collection waits for 25 % more than what lives now
    return max(300_000, len(gc.get_objects()))


def test_V2_a_job_that_builds_much_triggers_no_full_collection(
    qtbot: QtBot, full_collections: list[str]
) -> None:
    count = enough_to_trigger()
    control = allocate(count)  # the same work with nothing running: the collector does run
    assert full_collections, "the allocation is big enough to trigger a full collection"
    del control
    count = enough_to_trigger()
    full_collections.clear()
    runner = TaskRunner(threads=1)
    kept: list[list[list[int]]] = []

    def job(ticket: Ticket) -> int:
        kept.append(allocate(count))
        return len(kept[0])

    task = runner.run(job)
    qtbot.waitUntil(lambda: not task.running, timeout=60_000)
    runner.shutdown()
    assert task.result == count
    assert full_collections == []
    assert not collector.postponing()


def test_V2_the_main_thread_is_covered_while_a_job_is_in_flight(qtbot: QtBot) -> None:
    """The UI thread building cards from a load's first result postpones too."""
    release = threading.Event()
    runner = TaskRunner(threads=1)
    before = gc.get_threshold()
    task = runner.run(lambda t: release.wait(30))
    try:
        assert collector.postponing()
        assert gc.get_threshold()[2] == collector.POSTPONED_FULL
        assert gc.get_threshold()[:2] == before[:2], "the young generations still collect"
    finally:
        release.set()
        qtbot.waitUntil(lambda: not task.running, timeout=10_000)
        runner.shutdown()
    assert gc.get_threshold() == before
    assert not collector.postponing()


def test_V2_when_the_work_ends_young_cycles_go_and_survivors_are_frozen(qtbot: QtBot) -> None:
    class Node:
        other: Any = None

    runner = TaskRunner(threads=1)
    kept: list[Any] = []

    def job(ticket: Ticket) -> None:
        kept.append(allocate(10_000))  # what the load keeps
        a, b = Node(), Node()
        a.other, b.other = b, a  # young garbage only the collector can free
        kept.append(weakref.ref(a))

    gc.unfreeze()
    settled = collector.settled_count()
    task = runner.run(job)
    qtbot.waitUntil(lambda: not task.running, timeout=10_000)
    qtbot.waitUntil(lambda: collector.settled_count() > settled, timeout=10_000)
    runner.shutdown()
    assert kept[1]() is None, "the dropped cycle was collected before freezing"
    assert gc.get_freeze_count() >= 10_000, "what the load keeps is frozen"
    assert not any(obj is kept[0] for obj in gc.get_objects())


def test_a_hold_dropped_without_release_gives_the_collector_back() -> None:
    before = gc.get_threshold()
    hold = collector.Hold()
    assert collector.postponing()
    del hold
    assert not collector.postponing()
    assert gc.get_threshold() == before


def test_a_second_release_of_a_hold_counts_once() -> None:
    outer, inner = collector.Hold(), collector.Hold()
    inner.release()
    inner.release()
    assert collector.postponing(), "the other hold still counts"
    outer.release()
    assert not collector.postponing()


@pytest.fixture
def two_conversations(tmp_path: Path) -> Iterator[tuple[Store, int, int]]:
    store = Store(tmp_path / "two.db")
    ids = []
    for name in ("first", "second"):
        conv = store.create_conversation(name)
        store.append_turn(conv, [m for n in range(90) for m in
                                 (tool_turn(n) if n % 3 else chat_turn(n))])
        ids.append(conv)
    yield store, ids[0], ids[1]
    store.close()


def test_V2_opening_a_conversation_runs_no_full_collection_and_switching_frees_the_last(
    qtbot: QtBot, tmp_path: Path, two_conversations: tuple[Store, int, int],
    full_collections: list[str],
) -> None:
    store, first, second = two_conversations
    gc.collect()
    gc.unfreeze()
    full_collections.clear()
    settings = QSettings(str(tmp_path / "w.ini"), QSettings.Format.IniFormat)
    settings.setValue("window/conversation", first)
    window = MainWindow(store, settings)
    qtbot.addWidget(window)
    window.resize(1200, 800)
    window.show()

    def opened() -> None:
        qtbot.waitUntil(lambda: not window.graph.is_loading, timeout=30_000)
        settle(qtbot, window.transcript)
        qtbot.waitUntil(lambda: not collector.postponing(), timeout=30_000)

    try:
        assert collector.postponing(), "the open's loads hold the full collections back"
        opened()
        assert full_collections == []
        for conv in (second, first, second, first):
            window.open_conversation(conv)
            opened()
        assert full_collections == []
        # What each open froze is freed by reference counting when the next one replaces
        # it: thawed, the frozen set holds next to no garbage cycles.
        gc.unfreeze()
        assert gc.collect() < 500
    finally:
        window.close()
