"""View → Follow live session: a Codex rollout grows while the window shows it; new turns
appear without a reload by hand, the person at the end is taken along, a person reading
further up is not moved, and Stop stops (S1 for the writes, V2 for the reads)."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest
from agent_home import CODEX_LONG, codex_rollout
from PySide6.QtCore import QSettings
from pytestqt.qtbot import QtBot
from transcript_helpers import settle

from explorer.app.importing.follow import Poll
from explorer.app.importing.run import import_paths
from explorer.ui.app import open_store
from explorer.ui.window.main_window import MainWindow

TIMEOUT_MS = 10_000


@pytest.fixture
def session(tmp_path: Path) -> tuple[Path, list[bytes]]:
    lines = codex_rollout().read_bytes().splitlines(keepends=True)
    target = tmp_path / "sessions" / CODEX_LONG
    target.parent.mkdir(parents=True)
    target.write_bytes(b"".join(lines[:20]))  # up to the second prompt
    return target, lines


@pytest.fixture
def window(qtbot: QtBot, tmp_path: Path, session: tuple[Path, list[bytes]]
           ) -> Iterator[MainWindow]:
    store = open_store(tmp_path / "ui.db")
    import_paths(store, [session[0]])
    conv = next(c.id for c in store.conversations() if c.source_format == "codex")
    w = MainWindow(store, QSettings(str(tmp_path / "ui.ini"), QSettings.Format.IniFormat))
    qtbot.addWidget(w)
    w.resize(1300, 800)
    with qtbot.waitSignal(w.graph.loaded, timeout=TIMEOUT_MS):
        w.show()
        w.open_conversation(conv)
    settle(qtbot, w.transcript)
    yield w
    w.close()
    store.close()


def _grow_and_wait(qtbot: QtBot, w: MainWindow, target: Path, data: bytes) -> Poll:
    """Write more of the session and wait for the poll that stores it and the reloads."""
    polls: list[Poll] = []
    w.follow.polled.connect(polls.append)
    target.write_bytes(data)
    qtbot.waitUntil(lambda: any(p.added for p in polls), timeout=TIMEOUT_MS)
    w.follow.polled.disconnect(polls.append)
    qtbot.waitUntil(lambda: not w.graph.is_loading, timeout=TIMEOUT_MS)
    settle(qtbot, w.transcript)
    return next(p for p in polls if p.added)


def _start(qtbot: QtBot, w: MainWindow) -> None:
    with qtbot.waitSignal(w.follow.polled, timeout=TIMEOUT_MS):
        w.menu_action("follow_live_session").trigger()
    assert w.follow.following and w.follow.bar.isVisible()
    assert w.follow.action.isChecked() and w.follow.timer.isActive()
    assert "Following Codex CLI session" in w.follow.bar.title.full


def test_S1_a_followed_session_shows_new_turns_and_takes_the_person_at_the_end_along(
        qtbot: QtBot, window: MainWindow, session: tuple[Path, list[bytes]]) -> None:
    target, lines = session
    w = window
    conv = w.conversation_id
    assert conv is not None
    _start(qtbot, w)
    old_tip = w.store.conversation(conv).tip_id
    w.transcript.select(old_tip)  # the person is at the end, on the tip
    w.transcript.scroll_to_end()
    count = len(w.transcript.message_ids())
    done = _grow_and_wait(qtbot, w, target, b"".join(lines[:28]))
    new_tip = w.store.conversation(conv).tip_id
    assert done.added == 4  # the words before a shell call, the call, its output, more words
    assert new_tip != old_tip and done.tip == new_tip
    assert len(w.transcript.message_ids()) == count + done.added
    assert w.transcript.message_ids()[-1] == new_tip
    qtbot.waitUntil(lambda: w.transcript.selected() == new_tip, timeout=TIMEOUT_MS)
    assert w.graph.selected_node() == new_tip
    assert w.follow.at_end()
    assert f"{done.added} new message(s)" in w.follow.bar.detail.full
    assert w.conversations.current() == conv  # the list shows the new count, same choice
    row = w.conversations.model.row_of(conv)
    assert row is not None
    assert w.conversations.model.conversation(row).message_count == count + done.added


def test_a_person_reading_further_up_is_not_moved(
        qtbot: QtBot, window: MainWindow, session: tuple[Path, list[bytes]]) -> None:
    target, lines = session
    w = window
    conv = w.conversation_id
    assert conv is not None
    _start(qtbot, w)
    w.resize(1300, 360)  # the recorded session is short: a low window so it scrolls
    settle(qtbot, w.transcript)
    reading = w.transcript.message_ids()[1]
    w.transcript.select(reading)
    w.transcript.scroll_to(reading)
    settle(qtbot, w.transcript)
    assert not w.transcript.at_end()  # the person reads further up, not at the end
    card = w.transcript.card_for(reading)
    assert card is not None
    top = card.geometry().top()  # where the text being read is on screen
    done = _grow_and_wait(qtbot, w, target, b"".join(lines[:28]))
    assert done.added > 0
    assert w.transcript.message_ids()[-1] == w.store.conversation(conv).tip_id
    assert w.transcript.selected() == reading and w.graph.selected_node() == reading
    card = w.transcript.card_for(reading)
    assert card is not None and card.geometry().top() == top
    assert not w.follow.at_end()


def test_stop_and_another_conversation_end_following(
        qtbot: QtBot, window: MainWindow, session: tuple[Path, list[bytes]]) -> None:
    w = window
    _start(qtbot, w)
    w.follow.bar.stop_button.click()
    assert not w.follow.following and not w.follow.timer.isActive()
    assert w.follow.bar.isHidden() and not w.follow.action.isChecked()
    _start(qtbot, w)
    other = next(c.id for c in w.store.conversations() if c.id != w.conversation_id)
    with qtbot.waitSignal(w.transcript.loaded, timeout=TIMEOUT_MS):
        w.open_conversation(other)
    assert not w.follow.following and not w.follow.timer.isActive()
    settle(qtbot, w.transcript)


def test_a_conversation_without_a_session_file_says_why_it_cannot_be_followed(
        qtbot: QtBot, window: MainWindow) -> None:
    w = window
    demo = next(c.id for c in w.store.conversations() if c.source_format != "codex")
    with qtbot.waitSignal(w.transcript.loaded, timeout=TIMEOUT_MS):
        w.open_conversation(demo)
    settle(qtbot, w.transcript)
    w.menu_action("follow_live_session").trigger()
    assert not w.follow.following and not w.follow.action.isChecked()
    assert "nothing to follow" in w.statusBar().currentMessage()


def test_new_messages_are_marked_live_one_by_one_without_moving_the_selection(
        qtbot: QtBot, window: MainWindow, session: tuple[Path, list[bytes]]) -> None:
    target, lines = session
    w = window
    _start(qtbot, w)
    now = [1000.0]
    w.follow.marks.clock = lambda: now[0]
    reading = w.transcript.message_ids()[3]
    w.transcript.select(reading)
    w.transcript.scroll_to(reading)
    settle(qtbot, w.transcript)
    first = _grow_and_wait(qtbot, w, target, b"".join(lines[:24]))
    now[0] += 5
    second = _grow_and_wait(qtbot, w, target, b"".join(lines[:28]))
    assert first.new_ids and second.new_ids and max(first.new_ids) < min(second.new_ids)
    arrived = [*first.new_ids, *second.new_ids]
    assert w.transcript.live_marks.keys() == set(arrived)
    assert w.transcript.live_marks[second.new_ids[0]] > w.transcript.live_marks[arrived[0]]
    marked = {mid for mid in arrived if w.graph.view.model is not None
              and mid in w.graph.view.model.index}
    assert {i for i, _ in w.graph.live_marked_nodes()} == {
        w.graph.view.model.index[m] for m in marked} != set()
    assert w.transcript.selected() == reading and w.graph.selected_node() == reading
    w.transcript.scroll_to(second.new_ids[-1])
    settle(qtbot, w.transcript)
    card = w.transcript.card_for(second.new_ids[-1])
    assert card is not None and card.live > 0  # the card carries the "live" pill
    w.transcript.select(second.new_ids[-1])  # seen: its mark goes
    assert second.new_ids[-1] not in w.transcript.live_marks and card.live == 0
    now[0] += 60  # nobody looked: the marks fade away
    w.follow.marks.tick()
    assert w.transcript.live_marks == {} and w.graph.live_marked_nodes() == []
    assert not w.follow.marks.timer.isActive()
