"""Ctrl+F search: debounced queries over every conversation, bold matches, choosing a hit."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest
from PySide6.QtCore import Qt, QTimer
from pytestqt.modeltest import ModelTester
from pytestqt.qtbot import QtBot

from explorer.app.importing.demo import load_demo
from explorer.store import Store
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
