"""File → Share branch… in the window: the path reviewed off the main thread, a box per
category set to the defaults, then the page written where the person chose (R1, C5)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from pytestqt.qtbot import QtBot

from explorer.ui.sharing.share_dialog import ShareReview

KEY = "sk-ant-api03-" + "Q" * 93 + "AA"


def test_R1_share_branch_reviews_redacts_the_defaults_and_writes_the_page(
        qtbot: QtBot, window: Any, tmp_path: Path) -> None:
    store = window.store
    tip = store.conversation(1).tip_id
    conv = store.create_conversation("with a key")
    from explorer.tree.model import Message, Part

    store.append_turn(conv, [
        Message(None, None, "user", [Part("text", f"use {KEY} from /home/ada/keys.txt")]),
        Message(None, None, "assistant", [Part("text", "mail ops@example.com when done")])])
    window.open_conversation(conv)
    qtbot.waitUntil(lambda: not window.graph.is_loading, timeout=10_000)
    seen: list[ShareReview] = []

    def answer(dialog: ShareReview) -> bool:
        seen.append(dialog)
        return True

    dest = tmp_path / "shared.html"
    window.actions_.share.decide = answer
    window.questions.ask_save_path = lambda *_a: dest  # type: ignore[method-assign]
    window.actions_.share.share(store.conversation(conv).tip_id)
    window.ops.settle()
    qtbot.waitUntil(lambda: dest.exists() and not window.ops.busy, timeout=10_000)
    [dialog] = seen
    choices = dialog.choices()
    assert choices["secrets"] and choices["home-paths"] and not choices["emails"]
    assert "1 found" in dialog.boxes["secrets"].text()
    page = dest.read_text(encoding="utf-8")
    assert KEY not in page and "/home/ada" not in page
    assert "ops@example.com" in page  # kept: e-mail addresses are not redacted by default
    assert "redacted" in page.lower()
    assert f"wrote 2 messages to {dest}" in window.statusBar().currentMessage()
    assert tip is not None


def test_R1_share_is_offered_in_the_file_menu_and_the_right_click_menu(window: Any) -> None:
    from PySide6.QtCore import QPoint

    assert window.menus.declared["share"].text() == "Share branch…"
    window.show_message_menu(window.store.conversation(1).tip_id, QPoint(5, 5))
    menu = window.last_menu
    assert menu is not None and menu.action("share").isEnabled()
    menu.close()


def test_C5_the_status_bar_says_what_the_open_conversation_cost(
        qtbot: QtBot, window: Any) -> None:
    """Filled in off the main thread once the window is quiet; the same total as convo cost."""
    from explorer.app.costs.report import cost_report
    from explorer.app.costs.words import cost_words

    line = window.cost_line
    qtbot.waitUntil(lambda: line.text() != "", timeout=10_000)
    total = cost_report(window.store, 1).total()
    assert line.text() == cost_words(total)
    assert line.text().startswith("$") and "tokens" in line.text()


def test_C5_the_graph_shows_each_branchs_cost_and_the_paths_at_the_tip(
        qtbot: QtBot, window: Any) -> None:
    from explorer.app.costs.chips import cost_chips
    from explorer.app.costs.report import cost_report

    qtbot.waitUntil(lambda: window.cost_line.text() != "", timeout=10_000)
    item = window.graph.view.item
    expected = cost_chips(cost_report(window.store, 1))
    tip = window.store.conversation(1).tip_id
    assert expected[tip].startswith("path $")
    assert sum(1 for m in expected if m != tip) >= 2  # the demo branches more than once
    index = item.model.index
    assert item.cost_chips == {index[m]: t for m, t in expected.items()}
    window.graph.view.viewport().repaint()
    drawn = {text for _box, text in item.labels.costs}
    assert expected[tip] in drawn


def test_C5_a_refresh_that_changed_nothing_does_not_add_the_cost_up_again(
        qtbot: QtBot, window: Any) -> None:
    line = window.cost_line
    qtbot.waitUntil(lambda: line.text() != "", timeout=10_000)
    asked = line.runner.serial
    window.update_status()  # a refresh with the same messages and tip
    assert line.runner.serial == asked and line.text() != ""
    store = window.store
    active = set(store.path_ids(store.conversation(1).tip_id))
    leaf = next(n.id for n in store.skeleton(1)
                if n.id not in active and not store.children(n.id))
    window.actions_.branches.branch(leaf)  # the tip moves: the path's cost is another
    window.ops.settle()
    qtbot.waitUntil(lambda: line.runner.serial > asked and line.text() != "", timeout=10_000)
