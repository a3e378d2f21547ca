"""Ctrl+F search: debounced queries over every conversation, bold matches, choosing a hit."""

from __future__ import annotations

import sqlite3
import threading
from collections.abc import Iterator
from pathlib import Path

import pytest
from helpers import assistant, user
from PySide6.QtCore import QModelIndex, Qt, QTimer
from pytestqt.modeltest import ModelTester
from pytestqt.qtbot import QtBot

from explorer.app.importing.demo import load_demo
from explorer.store import Store
from explorer.store.search_plan import SearchPage
from explorer.ui import search_worker
from explorer.ui.search_dialog import (
    CONVERSATION_ROLE,
    MESSAGE_ROLE,
    SNIPPET_HTML_ROLE,
    SearchDialog,
    snippet_html,
    snippet_spans,
)

WAIT_MS = 10_000


@pytest.fixture
def store(tmp_path: Path) -> Iterator[Store]:
    s = Store(tmp_path / "x.db")
    load_demo(s)
    yield s
    s.close()


@pytest.fixture
def dialog(qtbot: QtBot, store: Store) -> Iterator[SearchDialog]:
    d = SearchDialog(store)
    qtbot.addWidget(d)
    d.show()
    yield d
    assert [t for t in d.findChildren(QTimer) if t.isActive()] == []
    d.shutdown()


def search(qtbot: QtBot, dialog: SearchDialog, text: str) -> int:
    with qtbot.waitSignal(dialog.resultsReady, timeout=WAIT_MS) as blocker:
        qtbot.keyClicks(dialog.query_edit, text)
    return int(blocker.args[0])


def test_brackets_are_matches_only_around_query_words() -> None:
    assert snippet_spans('x = a[0] + [Chardet] and [[chardet]]', "chardet") == [
        ("x = a[0] + ", False), ("Chardet", True), (" and [", False), ("chardet", True),
        ("]", False)]
    assert snippet_html("<b> [café] & [tea]", "CAFE") == "&lt;b&gt; <b>café</b> &amp; [tea]"
    assert snippet_html("one\n  [two]", "two") == "one <b>two</b>"


def test_typing_finds_a_demo_word_with_snippets_and_titles(
    qtbot: QtBot, dialog: SearchDialog, store: Store
) -> None:
    count = search(qtbot, dialog, "chardet")
    expected = store.search("chardet", 200)
    assert count == dialog.model.rowCount() == len(expected) >= 2
    for row in range(count):
        index = dialog.model.index(row, 0)
        conv_id, msg_id = index.data(CONVERSATION_ROLE), index.data(MESSAGE_ROLE)
        assert store.message_conversation(msg_id) == conv_id
        assert index.data() == store.conversation(conv_id).title
        assert "<b>chardet</b>" in index.data(SNIPPET_HTML_ROLE).lower()
    assert "match" in dialog.status.text()
    assert not dialog.grab().isNull()  # paints the rich-text rows


def test_typing_runs_one_query_after_the_pause(qtbot: QtBot, dialog: SearchDialog) -> None:
    runs: list[int] = []
    dialog.resultsReady.connect(runs.append)
    qtbot.keyClicks(dialog.query_edit, "encoding")
    assert runs == [] and dialog.timer.isActive()
    qtbot.waitSignal(dialog.resultsReady, timeout=WAIT_MS).wait()
    assert len(runs) == 1 and runs[0] > 0


def test_enter_chooses_the_selected_hit(
    qtbot: QtBot, dialog: SearchDialog, store: Store
) -> None:
    assert search(qtbot, dialog, "chardet") >= 2
    qtbot.keyClick(dialog.query_edit, Qt.Key.Key_Down)
    second = dialog.model.index(1, 0)
    assert dialog.results.currentIndex() == second
    with qtbot.waitSignal(dialog.hitChosen, timeout=WAIT_MS) as blocker:
        qtbot.keyClick(dialog.query_edit, Qt.Key.Key_Return)
    conv_id, msg_id = blocker.args
    assert (conv_id, msg_id) == (second.data(CONVERSATION_ROLE), second.data(MESSAGE_ROLE))
    assert store.message_conversation(msg_id) == conv_id
    assert store.message(msg_id).id is not None
    assert not dialog.isVisible()


def test_enter_before_the_pause_searches_and_chooses_the_best_hit(
    qtbot: QtBot, dialog: SearchDialog, store: Store
) -> None:
    qtbot.keyClicks(dialog.query_edit, "chardet")
    with qtbot.waitSignal(dialog.hitChosen, timeout=WAIT_MS) as blocker:
        qtbot.keyClick(dialog.query_edit, Qt.Key.Key_Enter)
    best = store.search("chardet", 1)[0]
    assert blocker.args == [best.conversation_id, best.message_id]


def test_double_click_chooses_that_hit(qtbot: QtBot, dialog: SearchDialog, store: Store) -> None:
    assert search(qtbot, dialog, "chardet") >= 2
    index = dialog.model.index(1, 0)
    centre = dialog.results.visualRect(index).center()
    with qtbot.waitSignal(dialog.hitChosen, timeout=WAIT_MS) as blocker:
        qtbot.mouseClick(dialog.results.viewport(), Qt.MouseButton.LeftButton, pos=centre)
        qtbot.mouseDClick(dialog.results.viewport(), Qt.MouseButton.LeftButton, pos=centre)
    assert blocker.args == [index.data(CONVERSATION_ROLE), index.data(MESSAGE_ROLE)]
    assert store.message_conversation(blocker.args[1]) == blocker.args[0]


def test_no_match_and_empty_query(qtbot: QtBot, dialog: SearchDialog) -> None:
    assert search(qtbot, dialog, "zzqxnotaword") == 0
    assert dialog.status.text() == "No matches."
    with qtbot.assertNotEmitted(dialog.hitChosen):
        assert not dialog.choose_current()
    dialog.query_edit.clear()
    dialog.run_query()
    assert dialog.model.rowCount() == 0 and dialog.status.text() == "Type to search."


def test_hit_model_passes_the_model_tester(
    qtbot: QtBot, dialog: SearchDialog, qtmodeltester: ModelTester
) -> None:
    assert search(qtbot, dialog, "orders") > 0
    qtmodeltester.check(dialog.model)


def test_a_stale_search_is_interrupted_and_its_answer_dropped(
    qtbot: QtBot, dialog: SearchDialog, store: Store, monkeypatch: pytest.MonkeyPatch
) -> None:
    real = search_worker.search_page
    entered, ended = threading.Event(), []

    def endless_for_encoding(conn: sqlite3.Connection, text: str, *args: object,
                             **kw: object) -> SearchPage:
        if text == "encoding":  # a search that only an interrupt ends
            entered.set()
            try:
                conn.execute("WITH RECURSIVE r(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM r) "
                             "SELECT count(*) FROM r").fetchone()
            except sqlite3.OperationalError as e:
                ended.append(str(e))
                raise
        return real(conn, text, *args, **kw)  # type: ignore[arg-type]

    monkeypatch.setattr(search_worker, "search_page", endless_for_encoding)
    reported: list[int] = []
    dialog.resultsReady.connect(reported.append)
    dialog.query_edit.setText("encoding")
    dialog.run_query()
    assert entered.wait(10) and dialog.searching
    with qtbot.waitSignal(dialog.resultsReady, timeout=WAIT_MS):
        dialog.query_edit.setText("chardet")
        dialog.run_query()
    assert ended == ["interrupted"]
    expected = [h.message_id for h in store.search("chardet", 50)]
    assert reported == [len(expected)] and len(expected) >= 2
    assert [dialog.model.index(r, 0).data(MESSAGE_ROLE) for r in range(len(expected))] == expected
    assert dialog.worker.started == ["encoding", "chardet"]


def test_scrolling_to_the_end_fetches_the_next_page(qtbot: QtBot, tmp_path: Path) -> None:
    with Store(tmp_path / "many.db") as s:
        conv = s.create_conversation("many")
        s.append_turn(conv, [m for n in range(40) for m in (
            user(f"kestrel question {n}"), assistant(f"kestrel answer {n}"))])
        d = SearchDialog(s)
        qtbot.addWidget(d)
        d.show()
        assert search(qtbot, d, "kestrel") == search_worker.PAGE
        assert d.model.canFetchMore(QModelIndex()) and "50+ matches" in d.status.text()
        with qtbot.waitSignal(d.resultsReady, timeout=WAIT_MS) as blocker:
            d.results.scrollToBottom()
            d.model.fetchMore(QModelIndex())
        assert blocker.args == [80] and d.model.rowCount() == 80
        assert not d.model.canFetchMore(QModelIndex())
        ids = [d.model.index(r, 0).data(MESSAGE_ROLE) for r in range(80)]
        assert len(set(ids)) == 80
        d.shutdown()
