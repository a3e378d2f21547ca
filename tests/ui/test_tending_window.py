"""Tending the tree in the window: right-click, menus, the command bar and Edit → Undo (T6–T8).

The graph, the transcript's ◀ ▶ and ``convo show`` read the same tended view; these tests
catch any of them telling a different story about what is folded, deleted or preferred.
"""

from __future__ import annotations

import pytest
from PySide6.QtCore import QPoint, Qt
from PySide6.QtGui import QAction
from PySide6.QtTest import QTest
from pytestqt.qtbot import QtBot
from transcript_helpers import settle

from explorer.app.ops.slash import parse
from explorer.app.tending.menu import TEXTS as TEND_TEXTS
from explorer.app.views import read as views
from explorer.ui.tending.actions import WITH_CHECKPOINTS
from explorer.ui.transcript.cards import MessageCard
from explorer.ui.window.main_window import MainWindow


@pytest.fixture
def window(qtbot: QtBot, window: MainWindow) -> MainWindow:
    """The demo in the message view: 8 (chardet) and 12 (utf-8 fallback) are siblings."""
    with qtbot.waitSignal(window.graph.loaded, timeout=10_000):
        window.graph.set_mode("messages")
    return window


def _reloaded(window: MainWindow, qtbot: QtBot, action: object) -> None:
    with qtbot.waitSignal(window.graph.loaded, timeout=10_000):
        action()  # type: ignore[operator]


def _card(window: MainWindow, qtbot: QtBot, mid: int) -> MessageCard:
    settle(qtbot, window.transcript)
    window.transcript.scroll_to(mid)
    settle(qtbot, window.transcript)
    card = window.transcript.card_for(mid)
    assert isinstance(card, MessageCard)
    return card


def _notes(window: MainWindow, qtbot: QtBot, mid: int) -> list[str]:
    return _card(window, qtbot, mid).header.texts("note")


def _switcher_text(window: MainWindow, qtbot: QtBot, mid: int) -> str:
    card = _card(window, qtbot, mid)
    return card.switcher.text() if card.switcher.visible else ""


def _click(card: MessageCard, name: str) -> None:
    """A click where the card's header paints item ``name`` (a link, a switcher button)."""
    QTest.mouseClick(card, Qt.MouseButton.LeftButton, pos=card.item_rect(name).center())


def _graph_place(window: MainWindow, mid: int) -> tuple[bool, int]:
    """(is the node drawn, how many siblings the graph counts for it)."""
    model = window.graph.view.model
    assert model is not None
    i = model.index.get(mid, -1)
    return i >= 0, len(model.siblings(i)) if i >= 0 else 0


def _menu_action(window: MainWindow, mid: int, key: str) -> None:
    window.show_message_menu(mid, QPoint(0, 0))
    assert window.last_menu is not None
    act = window.last_menu.action(key)  # type: ignore[attr-defined]
    assert act.isEnabled(), act.text()
    window.last_menu.close()
    act.trigger()


def test_T6_archive_from_the_right_click_folds_it_in_every_view_and_undo_unfolds(
    window: MainWindow, qtbot: QtBot
) -> None:
    assert _graph_place(window, 12) == (True, 2) and _switcher_text(window, qtbot, 12) == "2/2"
    _reloaded(window, qtbot, lambda: _menu_action(window, 8, "archive"))
    # graph, transcript and the command line agree: one visible alternative, one archived
    assert _graph_place(window, 9) == (False, 0)
    assert _graph_place(window, 12) == (True, 1)
    assert _switcher_text(window, qtbot, 12) == "1/1 · 1 archived"
    assert "alternative 1/1 · 1 archived" in views.path_notes(window.store, 1)[12]
    model = window.graph.view.model
    assert model is not None
    assert "1 archived branch (4 messages)" in model.tooltip(model.index[7])
    assert "1 archived branch (4 messages)" in _notes(window, qtbot, 7)
    window.menuBar().actions()[1].menu().aboutToShow.emit()
    assert window.undo_action.text() == "Undo archive"
    _reloaded(window, qtbot, window.undo_action.trigger)
    assert _graph_place(window, 9) == (True, 1) and _graph_place(window, 12) == (True, 2)
    assert _switcher_text(window, qtbot, 12) == "2/2"


def test_T6_the_active_path_offers_no_archive_or_delete_and_says_why(
    window: MainWindow,
) -> None:
    window.show_message_menu(12, QPoint(0, 0))
    menu = window.last_menu
    assert menu is not None
    for key in ("archive", "delete"):
        act = menu.action(key)  # type: ignore[attr-defined]
        assert not act.isEnabled() and act.text().endswith("— on the active path")
    menu.close()


def test_T7_delete_shows_a_marker_and_edit_undo_restores_the_branch(
    window: MainWindow, qtbot: QtBot
) -> None:
    store = window.store
    before = [n.id for n in store.skeleton(1)]
    window.graph.select_node(18)
    _reloaded(window, qtbot, window.menu_action("delete_branch").trigger)
    assert _graph_place(window, 18) == (False, 0) and _switcher_text(window, qtbot, 20) == ""
    model = window.graph.view.model
    assert model is not None
    assert "deleted branch — undo (2 messages)" in model.tooltip(model.index[17])
    assert "deleted branch — undo (2 messages)" in _notes(window, qtbot, 17)
    _reloaded(window, qtbot, window.undo_action.trigger)
    assert [n.id for n in store.skeleton(1)] == before
    assert _switcher_text(window, qtbot, 20) == "2/2"


def test_T7_deleting_a_checkpoint_target_asks_first(
    window: MainWindow, qtbot: QtBot, monkeypatch: pytest.MonkeyPatch
) -> None:
    store = window.store
    store.checkpoint(1, "side", at=19)
    asked: list[str] = []

    def keep(title: str, label: str, items: list[str]) -> str:
        asked.append(label)
        return items[0]
    monkeypatch.setattr(window.questions, "ask_item", keep)
    window.tend.delete(18)
    window.ops.settle()
    assert "'side' (message 19)" in asked[0] and 18 in [n.id for n in store.skeleton(1)]
    monkeypatch.setattr(window.questions, "ask_item", lambda *a: WITH_CHECKPOINTS)
    _reloaded(window, qtbot, lambda: window.tend.delete(18))
    assert "side" not in store.checkpoints(1)


def test_T8_star_label_note_and_the_command_bar_are_undone_in_reverse(
    window: MainWindow, qtbot: QtBot, monkeypatch: pytest.MonkeyPatch
) -> None:
    store = window.store
    monkeypatch.setattr(window.questions, "ask_text", lambda *a: "utf-8 fallback")
    _reloaded(window, qtbot, lambda: _menu_action(window, 12, "label"))
    _reloaded(window, qtbot, lambda: _menu_action(window, 11, "star"))
    window.graph.select_node(22)
    window.open_command_bar()
    _reloaded(window, qtbot, lambda: window.slash.run(parse("/note pick the shorter one")))
    marks = store.marks(1)
    assert marks.labels == {12: "utf-8 fallback"} and 8 in marks.preferred
    assert marks.notes == {22: "pick the shorter one"}
    assert "⎇ utf-8 fallback" in _notes(window, qtbot, 12)
    # ◀ ▶ now lands on the preferred child
    from explorer.app.tending.message_actions import branch_target
    assert branch_target(store, 8) == 11
    for kind in ("note", "star", "label"):
        window.menuBar().actions()[1].menu().aboutToShow.emit()
        assert window.undo_action.text() == f"Undo {kind}"
        _reloaded(window, qtbot, window.undo_action.trigger)
    marks = store.marks(1)
    assert not (marks.labels or marks.preferred or marks.notes)


def test_T8_branch_in_the_window_is_undone_by_ctrl_z(window: MainWindow, qtbot: QtBot) -> None:
    store = window.store
    _reloaded(window, qtbot, lambda: window.actions_.branches.branch(11))
    assert store.conversation(1).tip_id == 11
    _reloaded(window, qtbot, window.undo_action.trigger)
    assert store.conversation(1).tip_id == 24


def test_merge_back_from_the_right_click_links_the_branch(
    window: MainWindow, qtbot: QtBot
) -> None:
    _reloaded(window, qtbot, lambda: _menu_action(window, 11, "merge"))
    tip = window.store.conversation(1).tip_id
    assert tip is not None and window.store.message(tip).source_meta["merged_from"]["tip"] == 11
    assert "merges the branch ending at 11" in _notes(window, qtbot, tip)
    card = _card(window, qtbot, tip)
    [link] = card.links
    assert link.name == "note_open_it" and link.text == "open it"
    _click(card, link.name)  # the transcript opens the side branch it digests
    assert window.branch_state.preview_leaf == 11
    assert window.store.conversation(1).tip_id == tip  # shown, not switched to
    assert window.graph.selected_node() == 11


def test_T8_edit_redo_makes_the_undone_delete_again_with_either_shortcut(
    window: MainWindow, qtbot: QtBot
) -> None:
    store = window.store
    assert {s.toString() for s in window.redo_action.shortcuts()} == {"Ctrl+Shift+Z", "Ctrl+Y"}
    _reloaded(window, qtbot, lambda: window.tend.delete(8))
    _reloaded(window, qtbot, window.undo_action.trigger)
    assert 8 in store.children(7)
    window.menuBar().actions()[1].menu().aboutToShow.emit()
    assert window.redo_action.text() == "Redo delete"
    _reloaded(window, qtbot, window.redo_action.trigger)
    assert store.children(7) == [12]
    assert "deleted branch — undo (4 messages)" in _notes(window, qtbot, 7)
    window.menuBar().actions()[1].menu().aboutToShow.emit()
    assert window.redo_action.text() == "Redo" and window.undo_action.text() == "Undo delete"
    window.open_command_bar()
    _reloaded(window, qtbot, lambda: window.slash.run(parse("/undo")))
    _reloaded(window, qtbot, lambda: window.slash.run(parse("/redo")))
    assert store.children(7) == [12]


def _click_chip(window: MainWindow, qtbot: QtBot, at: int, kind: str) -> None:
    """Click the tending chip drawn under node ``at`` (as painted on screen now)."""
    view = window.graph.view
    window.graph.center_on(at)
    view.viewport().repaint()
    item = view.item
    assert item is not None
    box = next(b for b, i, k in item.tending.chip_boxes
               if k == kind and item.model.ids[i] == at)
    with qtbot.waitSignal(window.graph.loaded, timeout=10_000):
        qtbot.mouseClick(view.viewport(), Qt.MouseButton.LeftButton,
                         pos=box.center().toPoint())


def test_T6_T7_a_click_on_a_chip_unfolds_the_archive_or_restores_the_deleted_branch(
    window: MainWindow, qtbot: QtBot
) -> None:
    store = window.store
    before = [n.id for n in store.skeleton(1)]
    _reloaded(window, qtbot, lambda: _menu_action(window, 8, "archive"))
    _reloaded(window, qtbot, lambda: _menu_action(window, 18, "delete"))
    assert _graph_place(window, 9) == (False, 0) and _graph_place(window, 18) == (False, 0)
    _click_chip(window, qtbot, 17, "deleted")  # restores it, though not the newest action
    assert _graph_place(window, 18) == (True, 2) and [n.id for n in store.skeleton(1)] == before
    _click_chip(window, qtbot, 7, "archived")
    assert _graph_place(window, 9) == (True, 1) and _graph_place(window, 12) == (True, 2)
    assert _switcher_text(window, qtbot, 12) == "2/2"
    kinds = [o.kind for o in store.operations(1) if o.state == "done"]
    assert kinds == ["unarchive", "archive"]  # the delete was undone; the unfold is one action
    _reloaded(window, qtbot, window.undo_action.trigger)  # Ctrl+Z folds it again
    assert _graph_place(window, 9) == (False, 0)


def test_T6_T7_the_transcript_links_unfold_and_restore_at_the_branch_point(
    window: MainWindow, qtbot: QtBot
) -> None:
    store = window.store
    before = [n.id for n in store.skeleton(1)]
    _reloaded(window, qtbot, lambda: _menu_action(window, 8, "archive"))
    _reloaded(window, qtbot, lambda: _menu_action(window, 18, "delete"))
    card = _card(window, qtbot, 17)
    [restore] = card.links
    assert restore.name == "note_restore"
    _reloaded(window, qtbot, lambda: _click(card, restore.name))
    assert [n.id for n in store.skeleton(1)] == before and _graph_place(window, 18)[0]
    card = _card(window, qtbot, 7)
    [unfold] = card.links
    assert unfold.name == "note_unfold"
    _reloaded(window, qtbot, lambda: _click(card, unfold.name))
    assert _switcher_text(window, qtbot, 12) == "2/2" and _graph_place(window, 9)[0]
    assert _card(window, qtbot, 7).links == []


def test_T7_the_bar_deletes_a_branch_with_its_checkpoints_only_when_told_in_its_own_words(
    window: MainWindow, qtbot: QtBot
) -> None:
    store = window.store
    store.checkpoint(1, "side", at=19)
    window.graph.select_node(18)
    window.open_command_bar()
    window.slash.run(parse("/delete"))
    window.ops.settle()
    error = window.command_bar.error_text()
    assert "'side' (message 19)" in error and "type /delete with-checkpoints" in error
    assert "--with-checkpoints" not in error, "a flag the bar cannot take is not offered"
    assert 18 in [n.id for n in store.skeleton(1)] and store.checkpoints(1)["side"] == 19
    _reloaded(window, qtbot, lambda: window.slash.run(parse("/delete with-checkpoints")))
    assert window.command_bar.error_text() == ""
    assert "with checkpoint(s) side" in window.command_bar.result_view.toPlainText()
    assert 18 not in [n.id for n in store.skeleton(1)] and "side" not in store.checkpoints(1)


def test_T8_the_menu_bar_and_the_right_click_menu_name_each_tending_action_alike(
    window: MainWindow,
) -> None:
    window.show_message_menu(18, QPoint(0, 0))
    menu = window.last_menu
    assert menu is not None
    menu.close()
    bar = {act.text() for act in window.findChildren(QAction)}
    for key, text in TEND_TEXTS.items():
        assert text in bar, key
        if key != "unarchive":  # 18 is not archived: its menu offers to archive it
            assert menu.action(key).text().startswith(text)  # type: ignore[attr-defined]
