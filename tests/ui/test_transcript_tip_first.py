"""A long path opens at its tip before the rest of it is read (V2): the tip's rows are
read by a short walk up the parents and shown, and the rest of the skeleton grows in
above them without moving what is on screen."""

from __future__ import annotations

import threading
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest
from helpers import tool_turn
from pytestqt.qtbot import QtBot
from transcript_helpers import TIMEOUT_MS, settle

from explorer.store import Store
from explorer.ui.transcript import TranscriptView, loading
from explorer.ui.transcript.cards import MessageCard

TURNS = 150  # four messages each: 600, far more than the tip's rows


@pytest.fixture(scope="module")
def long_path(tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[Store, int]]:
    store = Store(tmp_path_factory.mktemp("tipfirst") / "t.db")
    conv = store.create_conversation("long session")
    store.append_turn(conv, [m for n in range(TURNS) for m in tool_turn(n)])
    yield store, conv
    store.close()


class Gate:
    """Holds the whole path's read at its start until the test opens it."""

    def __init__(self, monkeypatch: pytest.MonkeyPatch) -> None:
        self.started = threading.Event()
        self.open = threading.Event()
        real = loading.read_skeleton

        def held(*args: Any, **kwargs: Any) -> loading.PathSkeleton:
            self.started.set()
            # bounded: a failing test's teardown closes the view (waiting for this worker)
            # before the fixture opens the gate
            self.open.wait(timeout=TIMEOUT_MS / 1000)
            return real(*args, **kwargs)

        monkeypatch.setattr(loading, "read_skeleton", held)


@pytest.fixture
def gate(monkeypatch: pytest.MonkeyPatch) -> Iterator[Gate]:
    held = Gate(monkeypatch)
    yield held
    held.open.set()  # never leave a worker waiting


def make_view(qtbot: QtBot, store: Store) -> TranscriptView:
    view = TranscriptView(store)
    qtbot.addWidget(view)
    view.resize(900, 700)
    view.show()
    return view


def tip_card(view: TranscriptView, tip: int) -> MessageCard | None:
    card = view.card_for(tip) if view.has_message(tip) else None
    return card if isinstance(card, MessageCard) else None


def wait_for(qtbot: QtBot, ready: Callable[[], object]) -> None:
    qtbot.waitUntil(lambda: bool(ready()), timeout=TIMEOUT_MS)


def test_V2_the_tip_rows_are_built_before_the_rest_of_the_skeleton_is_read(
    qtbot: QtBot, long_path: tuple[Store, int], gate: Gate
) -> None:
    store, conv = long_path
    tip = store.conversation(conv, boundary=False).tip_id
    assert tip is not None
    view = make_view(qtbot, store)
    with qtbot.waitSignal(view.tipShown, timeout=TIMEOUT_MS) as shown:
        view.load_path(conv)
        view.scroll_to(tip)
    assert shown.args == [conv]
    wait_for(qtbot, lambda: tip_card(view, tip))
    wait_for(qtbot, gate.started.is_set)  # the rest is asked for once the tip's cards are built
    assert not gate.open.is_set(), "the whole path is still unread"
    assert len(view.message_ids()) == loading.TIP_ROWS and view.is_loading
    card = tip_card(view, tip)
    assert card is not None and card.message.text == f"answer {TURNS - 1}"
    bottom = card.geometry().bottom()
    assert 0 < bottom <= view.viewport().height(), "the tip is on screen"

    with qtbot.waitSignal(view.loaded, timeout=TIMEOUT_MS):
        gate.open.set()
    assert len(view.message_ids()) == 4 * TURNS
    assert view.card_for(tip) is card, "the tip's card is kept, not built again"
    assert card.geometry().bottom() == bottom, "the rows above grew in without moving it"
    bar = view.verticalScrollBar()
    assert bar.value() == bar.maximum() and bar.maximum() > 10 * bar.pageStep()
    settle(qtbot, view)
    assert tip_card(view, tip) is card


def test_V2_a_jump_above_the_tip_rows_waits_for_the_whole_path(
    qtbot: QtBot, long_path: tuple[Store, int], gate: Gate
) -> None:
    store, conv = long_path
    tip = store.conversation(conv, boundary=False).tip_id
    assert tip is not None
    view = make_view(qtbot, store)
    view.load_path(conv)
    view.scroll_to(tip)
    wait_for(qtbot, lambda: tip_card(view, tip))
    first = store.path_ids(tip)[0]
    view.scroll_to(first)  # not among the tip's rows yet
    view.select(first)
    assert not view.has_message(first)
    gate.open.set()
    settle(qtbot, view)
    card = view.card_for(first)
    assert card is not None and card.geometry().top() == 10, "the jump happened when it could"
    assert view.selected() == first


def test_V2_a_reload_of_the_shown_path_keeps_its_rows_until_the_whole_path_is_in(
    qtbot: QtBot, long_path: tuple[Store, int], gate: Gate
) -> None:
    store, conv = long_path
    tip = store.conversation(conv, boundary=False).tip_id
    assert tip is not None
    view = make_view(qtbot, store)
    gate.open.set()
    view.load_path(conv)
    view.scroll_to(tip)
    settle(qtbot, view)
    gate.open.clear()
    tips: list[int] = []
    view.tipShown.connect(tips.append)
    with qtbot.waitSignal(view.skeletons.progress, timeout=TIMEOUT_MS):
        view.load_path(conv)  # the tip's rows are read, and not shown over the path
        view.scroll_to(tip)
    assert gate.started.is_set() and not gate.open.is_set()
    assert tips == [] and len(view.message_ids()) == 4 * TURNS
    gate.open.set()
    settle(qtbot, view)
    assert len(view.message_ids()) == 4 * TURNS and tip_card(view, tip) is not None


def test_V2_a_short_path_is_read_whole_at_once(qtbot: QtBot, tmp_path: Path) -> None:
    with Store(tmp_path / "s.db") as store:
        conv = store.create_conversation("short")
        store.append_turn(conv, [m for n in range(5) for m in tool_turn(n)])
        view = make_view(qtbot, store)
        tips: list[int] = []
        view.tipShown.connect(tips.append)
        with qtbot.waitSignal(view.loaded, timeout=TIMEOUT_MS):
            view.load_path(conv)
        assert tips == [] and len(view.message_ids()) == 20
        settle(qtbot, view)


def test_V2_the_rest_of_the_path_is_read_once_the_tip_cards_are_built(
    qtbot: QtBot, long_path: tuple[Store, int], monkeypatch: pytest.MonkeyPatch
) -> None:
    """The whole path's read does not share the interpreter with building the first screen."""
    store, conv = long_path
    tip = store.conversation(conv, boundary=False).tip_id
    view = make_view(qtbot, store)
    at_start: list[bool] = []
    real = loading.read_skeleton

    def noted(*args: Any, **kwargs: Any) -> loading.PathSkeleton:
        at_start.append(view._tip_built.is_set())
        return real(*args, **kwargs)

    monkeypatch.setattr(loading, "read_skeleton", noted)
    built: list[bool] = []
    view.tipShown.connect(lambda _c: built.append(tip_card(view, tip) is not None))
    with qtbot.waitSignal(view.loaded, timeout=TIMEOUT_MS):
        view.load_path(conv)
        view.scroll_to(tip)
    assert built == [True] and at_start == [True]
    settle(qtbot, view)


def test_V2_heights_are_guessed_for_the_width_the_view_has_when_the_rows_are_built(
    qtbot: QtBot, long_path: tuple[Store, int], gate: Gate
) -> None:
    """A window resized while its path is read (as it is when it first shows) does not
    guess every row's height twice."""
    store, conv = long_path
    view = make_view(qtbot, store)
    view.resize(500, 700)
    view.load_path(conv)
    wait_for(qtbot, gate.started.is_set)
    view.resize(1300, 700)
    wait_for(qtbot, lambda: view.width_box[0] > 1000)
    with qtbot.waitSignal(view.loaded, timeout=TIMEOUT_MS):
        gate.open.set()
    assert view.estimates.serial == 0, "no second guess of the heights was needed"
    assert view._estimated_at == view.card_width_now == view.width_box[0]
    settle(qtbot, view)
