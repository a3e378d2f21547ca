"""Branch state a person can trust, on real exports: a preview says it is one and shows the
branch to its leaf, one selection is shared by graph, transcript and ◀ ▶, and siblings are
told apart by the words that differ."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest
from compare_samples import Samples, import_samples
from PySide6.QtCore import QSettings, Qt
from PySide6.QtGui import QHelpEvent
from PySide6.QtWidgets import QApplication, QToolTip
from pytestqt.qtbot import QtBot

from explorer.app.tending.message_actions import branch_target
from explorer.ui.transcript.cards import MessageCard
from explorer.ui.window.branch_state import BANNER_TEXT
from explorer.ui.window.main_window import MainWindow


@pytest.fixture
def samples(samples_dir: Path, tmp_path: Path) -> Iterator[Samples]:
    s = import_samples(samples_dir, tmp_path / "samples.db")
    yield s
    s.store.close()


def open_main(qtbot: QtBot, samples: Samples, tmp_path: Path, name: str,
              mode: str = "messages") -> MainWindow:
    settings = QSettings(str(tmp_path / "ui.ini"), QSettings.Format.IniFormat)
    w = MainWindow(samples.store, settings)
    qtbot.addWidget(w)
    w.resize(1300, 800)
    with qtbot.waitSignal(w.graph.loaded, timeout=10_000):
        w.show()
        w.open_conversation(samples.conv[name])
    if mode != w.graph.mode:
        with qtbot.waitSignal(w.graph.loaded, timeout=10_000):
            w.graph.set_mode(mode)  # type: ignore[arg-type]
    return w


def loaded(qtbot: QtBot, w: MainWindow) -> None:
    w.ops.settle()  # an operation (a branch switch) is written off the main thread first
    qtbot.waitUntil(lambda: not w.graph.is_loading and not w.transcript.is_loading,
                    timeout=10_000)


def test_an_off_path_node_is_a_visible_preview_down_to_its_leaf_and_esc_goes_back(
    qtbot: QtBot, samples: Samples, tmp_path: Path,
) -> None:
    w = open_main(qtbot, samples, tmp_path, "librechat")
    store, conv = samples.store, samples.conv["librechat"]
    tip = store.conversation(conv).tip_id
    thanks = samples.one("librechat", "user", "thanks")
    leaf = branch_target(store, thanks)
    assert leaf != thanks and thanks not in store.path_ids(tip or 0)
    w.graph.select_node(thanks)
    w.graph.nodeSelected.emit(thanks)
    loaded(qtbot, w)
    banner = w.branch_state.banner
    assert banner.isVisible() and banner.title.full == BANNER_TEXT
    assert f"message {leaf}" in banner.detail.full and "1 of 2" in banner.detail.full
    assert w.transcript.message_ids()[-1] == leaf, "the branch is shown down to its leaf"
    assert w.transcript.selected() == thanks
    assert store.conversation(conv).tip_id == tip, "previewing moves nothing"
    w.graph.view.setFocus()
    qtbot.keyClick(w.graph.view, Qt.Key.Key_Escape)
    loaded(qtbot, w)
    assert not banner.isVisible()
    assert w.transcript.message_ids()[-1] == tip
    assert w.graph.selected_node() == tip and w.transcript.selected() == tip


def test_enter_while_previewing_switches_to_the_previewed_branch(
    qtbot: QtBot, samples: Samples, tmp_path: Path,
) -> None:
    w = open_main(qtbot, samples, tmp_path, "librechat")
    store, conv = samples.store, samples.conv["librechat"]
    thanks = samples.one("librechat", "user", "thanks")
    w.graph.select_node(thanks)
    w.graph.nodeSelected.emit(thanks)
    loaded(qtbot, w)
    w.graph.view.setFocus()
    qtbot.keyClick(w.graph.view, Qt.Key.Key_Return)
    loaded(qtbot, w)
    assert store.conversation(conv).tip_id == branch_target(store, thanks)
    assert not w.branch_state.banner.isVisible()
    assert w.graph.selected_node() == thanks, "the selection stays where the person was"


def test_the_switcher_moves_the_one_selection_so_enter_does_not_switch_back(
    qtbot: QtBot, samples: Samples, tmp_path: Path,
) -> None:
    w = open_main(qtbot, samples, tmp_path, "chatgpt")
    store, conv = samples.store, samples.conv["chatgpt"]
    original = samples.one("chatgpt", "user", "so cool bro")
    edited = samples.one("chatgpt", "user", "hi again")
    assert edited in store.path_ids(store.conversation(conv).tip_id or 0)
    w.transcript.siblingChosen.emit(original)
    loaded(qtbot, w)
    tip = store.conversation(conv).tip_id
    assert tip == branch_target(store, original)
    assert w.graph.selected_node() == original and w.transcript.selected() == original
    w.graph.view.setFocus()
    qtbot.keyClick(w.graph.view, Qt.Key.Key_Return)
    loaded(qtbot, w)
    path = store.path_ids(store.conversation(conv).tip_id or 0)
    assert original in path and edited not in path, "Enter did not switch back"


def box_texts(qtbot: QtBot, w: MainWindow, mids: list[int]) -> list[tuple[str, str, str, float]]:
    """The boxes' texts once their branch points' words are read (on the task runner: the
    first frame of a box shows its stored preview)."""
    item = w.graph.view.item
    assert item is not None
    for mid in mids:
        item._text(item.model.index[mid])
    qtbot.waitUntil(lambda: not w.graph.reading_words, timeout=10_000)
    return [item._text(item.model.index[mid]) for mid in mids]


def test_graph_boxes_at_a_branch_point_show_what_differs(
    qtbot: QtBot, samples: Samples, tmp_path: Path,
) -> None:
    w = open_main(qtbot, samples, tmp_path, "librechat")
    luck, happy = samples.find("librechat", "assistant", "You're welcome!")
    lines = [t[1] for t in box_texts(qtbot, w, [luck, happy])]
    assert lines[0].startswith("…") and "Good luck" in lines[0]
    assert lines[1].startswith("…") and "Happy coding" in lines[1]
    lol = samples.one("librechat", "user", "lol")
    assert box_texts(qtbot, w, [lol])[0][1].startswith("lol"), "no shared start, no …"


def test_turn_view_boxes_at_a_branch_point_show_what_differs(
    qtbot: QtBot, samples: Samples, tmp_path: Path,
) -> None:
    w = open_main(qtbot, samples, tmp_path, "chatgpt", mode="turns")
    original = samples.one("chatgpt", "user", "so cool bro")
    edited = samples.one("chatgpt", "user", "hi again")
    item = w.graph.view.item
    assert item is not None and item.model.turns is not None
    texts = box_texts(qtbot, w, [original, edited])
    assert "so cool bro" in texts[0][0] and "hi again" in texts[1][0]
    luck, happy = box_texts(qtbot, w, list(samples.find(
        "chatgpt", "assistant", "Sure, here's one for you")))
    assert luck[1] == happy[1], "identical answers read the same (compare says so)"


def test_switcher_tooltip_lists_the_siblings_by_what_differs(
    qtbot: QtBot, samples: Samples, tmp_path: Path,
) -> None:
    w = open_main(qtbot, samples, tmp_path, "librechat")
    luck, happy = samples.find("librechat", "assistant", "You're welcome!")
    w.transcript.siblingChosen.emit(happy)
    loaded(qtbot, w)
    w.transcript.scroll_to(happy)
    qtbot.waitUntil(lambda: w.transcript.card_for(happy) is not None
                    and hasattr(w.transcript.card_for(happy), "switcher"), timeout=10_000)
    card = w.transcript.card_for(happy)
    assert isinstance(card, MessageCard)
    at = card.item_rect("place").center()
    QApplication.sendEvent(card, QHelpEvent(QHelpEvent.Type.ToolTip, at, card.mapToGlobal(at)))
    tip = QToolTip.text()
    assert "alternative 2 of 2" in tip
    assert f"1. assistant · gpt-4-turbo #{luck}: “…Good luck" in tip
    assert f"2. assistant · gpt-4-turbo #{happy} (shown): “…Happy coding!”" in tip
