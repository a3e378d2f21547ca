"""The main window: demo on first start, views in step, and every right-click action
changing the store exactly as SPEC.md says (the tests check the store, not only widgets)."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest
from PySide6.QtCore import QPoint, QSettings, Qt
from PySide6.QtTest import QTest
from PySide6.QtWidgets import QApplication
from pytestqt.qtbot import QtBot
from transcript_helpers import settle

from explorer.app.importing.run import import_paths
from explorer.store import Store
from explorer.ui.app import open_store, run_app
from explorer.ui.transcript.cards import MessageCard
from explorer.ui.window.main_window import MainWindow


@pytest.fixture
def window(qtbot: QtBot, tmp_path: Path) -> Iterator[MainWindow]:
    store = open_store(tmp_path / "ui.db")
    settings = QSettings(str(tmp_path / "ui.ini"), QSettings.Format.IniFormat)
    w = MainWindow(store, settings)
    qtbot.addWidget(w)
    w.resize(1300, 800)
    with qtbot.waitSignal(w.graph.loaded, timeout=10_000):
        w.show()
        w.open_conversation(1)
    settle(qtbot, w.transcript)
    yield w
    w.close()
    store.close()


def _node(w: MainWindow, text: str) -> int:
    [mid] = [n.id for n in w.store.skeleton(w.conversation_id or 0) if text in n.preview]
    return mid


def _menu(w: MainWindow, mid: int):  # type: ignore[no-untyped-def]
    w.show_message_menu(mid, QPoint(10, 10))
    menu = w.last_menu
    menu.hide()
    return menu


def test_first_start_shows_the_demo_in_every_view(window: MainWindow) -> None:
    store = window.store
    tip = store.conversation(1).tip_id
    assert window.conversations.current() == 1
    assert window.graph.conversation_id == 1 and window.graph.selected_node() == tip
    assert window.transcript.message_ids() == [m.id for m in store.path(1)]
    assert "Nightly orders import" in window.status_label.text()


def test_selection_follows_between_graph_and_transcript(window: MainWindow, qtbot: QtBot) -> None:
    first = window.store.path(1)[1].id
    window.transcript.select(first)
    assert window.graph.selected_node() == first
    off_path = _node(window, "Try detecting the encoding with chardet")
    window.graph.nodeSelected.emit(off_path)
    settle(qtbot, window.transcript)
    assert off_path in window.transcript.message_ids()
    assert window.transcript.selected() == off_path
    assert window.store.conversation(1).tip_id != off_path, "looking is not branching"


def test_branch_here_moves_the_tip_and_nothing_else(window: MainWindow, qtbot: QtBot) -> None:
    target = _node(window, "chardet reads every file")
    count = window.store.conversation(1).message_count
    _menu(window, target).action("branch").trigger()
    window.ops.settle()  # the operation runs off the main thread
    assert window.store.conversation(1).tip_id == target
    assert window.store.conversation(1).message_count == count
    settle(qtbot, window.transcript)
    assert window.transcript.message_ids()[-1] == target


def test_edit_prompt_adds_a_sibling_and_keeps_the_old_answer(window: MainWindow) -> None:
    prompt = _node(window, "Write a short commit message")
    window.questions.ask_multiline = lambda *a: "Write a one-line commit message."  # type: ignore[method-assign]
    _menu(window, prompt).action("edit").trigger()
    window.ops.settle()  # the operation runs off the main thread
    store = window.store
    tip = store.conversation(1).tip_id or 0
    assert store.message(tip).text == "Write a one-line commit message."
    assert store.siblings(prompt) == [prompt, tip]
    assert len(store.children(prompt)) == 2


def test_edit_is_disabled_on_an_answer_with_the_reason(window: MainWindow) -> None:
    answer = _node(window, "Done. `sniff_encoding()`")
    action = _menu(window, answer).action("edit")
    assert not action.isEnabled() and "not a prompt" in action.text()


def test_checkpoint_is_refused_inside_a_turn_and_set_on_a_boundary(window: MainWindow) -> None:
    store = window.store
    mid_turn = next(m.id for m in store.path(1) if m.tool_uses())
    action = _menu(window, mid_turn).action("checkpoint")
    assert not action.isEnabled() and "inside a turn" in action.text()
    window.questions.ask_text = lambda *a, **k: "before-commit"  # type: ignore[method-assign]
    target = _node(window, "Write a short commit message")
    _menu(window, target).action("checkpoint").trigger()
    window.ops.settle()  # the operation runs off the main thread
    assert store.checkpoints(1)["before-commit"] == target


def test_rewind_from_the_menu_moves_back_and_keeps_a_digest(window: MainWindow) -> None:
    menu = _menu(window, window.store.conversation(1).tip_id or 0)
    rewind = next(a for a in menu.actions() if a.text().startswith("Rewind"))
    fixed = next(a for a in rewind.menu().actions() if a.text() == "fixed")
    fixed.trigger()
    window.ops.settle()  # the operation runs off the main thread
    store = window.store
    assert store.conversation(1).tip_id == store.checkpoints(1)["fixed"]
    assert len(store.rewinds(1)) == 2


def test_fork_opens_a_new_conversation_with_a_copy(window: MainWindow, qtbot: QtBot) -> None:
    target = _node(window, "Done. `sniff_encoding()`")
    window.questions.ask_text = lambda *a, **k: "Forked in a test"  # type: ignore[method-assign]
    before = {c.id for c in window.store.conversations()}
    with qtbot.waitSignal(window.graph.loaded, timeout=10_000):
        _menu(window, target).action("fork").trigger()
    [new] = {c.id for c in window.store.conversations()} - before
    assert window.conversation_id == new
    assert [m.text for m in window.store.path(new)] == [m.text for m in
                                                         window.store.path(1, target)]
    assert window.store.conversation(new).title == "Forked in a test"


def test_export_branch_writes_a_file_that_imports_again(
    window: MainWindow, tmp_path: Path
) -> None:
    dest = tmp_path / "branch.jsonl"
    window.questions.ask_save_path = lambda *a: dest  # type: ignore[method-assign]
    tip = window.store.conversation(1).tip_id or 0
    menu = _menu(window, tip)
    export = next(a for a in menu.actions() if a.text() == "Export branch")
    next(a for a in export.menu().actions() if a.text() == "native").trigger()
    window.ops.settle()  # the export is written off the main thread
    with Store(tmp_path / "other.db") as other:
        [outcome] = import_paths(other, [dest]).conversations
        assert outcome.added == len(window.store.path(1))


def test_copy_text_puts_the_message_on_the_clipboard(window: MainWindow) -> None:
    mid = _node(window, "Write a short commit message")
    _menu(window, mid).action("copy").trigger()
    assert QApplication.clipboard().text() == "Write a short commit message for this change."


def test_the_sibling_switcher_shows_that_siblings_newest_branch(window: MainWindow) -> None:
    original = _node(window, "The dashboard shows this now")
    window.transcript.siblingChosen.emit(original)
    window.ops.settle()  # the operation runs off the main thread
    tip = window.store.conversation(1).tip_id or 0
    assert tip in window.store.children(original)
    assert window.store.message(tip).role == "assistant"


def test_layout_and_last_conversation_survive_a_restart(
    qtbot: QtBot, tmp_path: Path
) -> None:
    store = open_store(tmp_path / "r.db")
    settings = QSettings(str(tmp_path / "r.ini"), QSettings.Format.IniFormat)
    w = MainWindow(store, settings)
    qtbot.addWidget(w)
    w.show()
    w.open_conversation(2)
    w.splitter.setSizes([200, 700, 400])
    sizes = w.splitter.sizes()
    w.close()
    again = MainWindow(store, QSettings(str(tmp_path / "r.ini"), QSettings.Format.IniFormat))
    qtbot.addWidget(again)
    again.show()
    assert again.conversation_id == 2
    assert again.splitter.sizes() == sizes
    again.close()
    store.close()


def test_an_existing_database_is_not_given_the_demo(tmp_path: Path) -> None:
    with Store(tmp_path / "mine.db") as s:
        s.create_conversation("my own")
    store = open_store(tmp_path / "mine.db")
    try:
        assert [c.title for c in store.conversations()] == ["my own"]
    finally:
        store.close()


def test_screenshot_option_writes_a_png_of_the_loaded_window(
    tmp_path: Path, screenshot_dir: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from explorer.app.importing import collector as import_collector

    monkeypatch.setattr(import_collector, "collect_at_end", True)
    shot = screenshot_dir / "main-window.png"
    assert run_app(tmp_path / "s.db", screenshot=str(shot)) == 0
    assert shot.read_bytes().startswith(b"\x89PNG")
    assert not shot.with_suffix(".ini").exists()
    # An import's end leaves the window's heap to the window's own collector policy.
    assert import_collector.collect_at_end is False


def test_compare_with_siblings_opens_columns_and_make_active_moves_the_tip(
    window: MainWindow,
) -> None:
    answer = _node(window, "Fix orders import crash")
    action = _menu(window, answer).action("compare")
    assert action.isEnabled()
    action.trigger()
    compare = window.compares.window
    assert compare is not None and len(compare.comparison.columns) == 2
    compare.branchChosen.emit(1, answer)
    window.ops.settle()  # the operation runs off the main thread
    assert window.store.conversation(1).tip_id == answer


def test_compare_is_disabled_without_siblings(window: MainWindow) -> None:
    lone = window.store.path(1)[0].id
    action = _menu(window, lone).action("compare")
    assert not action.isEnabled() and "no siblings" in action.text()


def test_the_context_bar_follows_the_open_conversation(window: MainWindow, qtbot: QtBot) -> None:
    panel = window.context_panel
    qtbot.waitUntil(lambda: not panel.busy, timeout=10_000)
    assert "200,000" in panel.bar.summary.text() or panel.bar.legend


def test_compaction_preview_applies_a_record_on_the_tip(window: MainWindow, qtbot: QtBot) -> None:
    window.menu_action("compaction_preview").trigger()
    preview = window.actions_.dialogs.preview
    assert preview is not None
    preview.set_options(rung="snapshot")
    preview.replan()
    qtbot.waitUntil(lambda: preview.result is not None and not preview.busy, timeout=20_000)
    record = preview.apply()
    assert record is not None
    tip = window.store.conversation(1).tip_id
    assert [c["message_id"] for c in window.store.compactions(1)] == [tip]


def test_the_sibling_switcher_opens_compare(window: MainWindow) -> None:
    answer = window.store.conversation(1).tip_id or 0
    window.transcript.scroll_to(answer)
    card = window.transcript.card_for(answer)
    assert isinstance(card, MessageCard) and card.switcher.visible
    QTest.mouseClick(card, Qt.MouseButton.LeftButton, pos=card.item_rect("compare").center())
    compare = window.compares.window
    assert compare is not None
    assert {c.leaf_id for c in compare.comparison.columns} == set(window.store.siblings(answer))


def test_any_nodes_can_be_marked_and_compared(window: MainWindow) -> None:
    chardet = _node(window, "chardet reads every file")
    commit = _node(window, "Fix orders import crash")
    action = _menu(window, chardet).action("compare_marked")
    assert not action.isEnabled() and "mark 2 to 4" in action.text()
    _menu(window, chardet).action("mark").trigger()
    _menu(window, commit).action("mark").trigger()
    menu = _menu(window, commit)
    assert menu.action("mark").text() == "Unmark for comparison"
    menu.action("compare_marked").trigger()
    compare = window.compares.window
    assert compare is not None
    assert {c.chosen_id for c in compare.comparison.columns} == {chardet, commit}
    assert window.compares.marked == [], "marks are used up by the compare that opened"
