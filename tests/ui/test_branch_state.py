"""Branch state a person can trust, on the corpus's exports: a preview says it is one and shows the
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
def samples(corpus_dir: Path, tmp_path: Path) -> Iterator[Samples]:
    s = import_samples(corpus_dir, tmp_path / "samples.db")
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
    cheers = samples.one("librechat", "user", "cheers, that worked")
    leaf = branch_target(store, cheers)
    assert leaf != cheers and cheers not in store.path_ids(tip or 0)
    w.graph.select_node(cheers)
    w.graph.nodeSelected.emit(cheers)
    loaded(qtbot, w)
    banner = w.branch_state.banner
    assert banner.isVisible() and banner.title.full == BANNER_TEXT
    assert f"message {leaf}" in banner.detail.full and "1 of 2" in banner.detail.full
    assert w.transcript.message_ids()[-1] == leaf, "the branch is shown down to its leaf"
    assert w.transcript.selected() == cheers
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
    cheers = samples.one("librechat", "user", "cheers, that worked")
    w.graph.select_node(cheers)
    w.graph.nodeSelected.emit(cheers)
    loaded(qtbot, w)
    w.graph.view.setFocus()
    qtbot.keyClick(w.graph.view, Qt.Key.Key_Return)
    loaded(qtbot, w)
    assert store.conversation(conv).tip_id == branch_target(store, cheers)
    assert not w.branch_state.banner.isVisible()
    assert w.graph.selected_node() == cheers, "the selection stays where the person was"


def test_the_switcher_moves_the_one_selection_so_enter_does_not_switch_back(
    qtbot: QtBot, samples: Samples, tmp_path: Path,
) -> None:
    w = open_main(qtbot, samples, tmp_path, "chatgpt")
    store, conv = samples.store, samples.conv["chatgpt"]
    original = samples.one("chatgpt", "user", "tell me about the rain in Bergen")
    edited = samples.one("chatgpt", "user", "parlons français")
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
    enjoy, happy = samples.find("librechat", "assistant", "Glad it worked!")
    lines = [t[1] for t in box_texts(qtbot, w, [enjoy, happy])]
    assert lines[0].startswith("…") and "Enjoy the rest" in lines[0]
    assert lines[1].startswith("…") and "Happy committing" in lines[1]
    head = samples.one("librechat", "user", "why is it called HEAD?")
    assert box_texts(qtbot, w, [head])[0][1].startswith("why is it"), "no shared start, no …"


def test_turn_view_boxes_at_a_branch_point_show_what_differs(
    qtbot: QtBot, samples: Samples, tmp_path: Path,
) -> None:
    w = open_main(qtbot, samples, tmp_path, "chatgpt", mode="turns")
    original = samples.one("chatgpt", "user", "tell me about the rain in Bergen")
    edited = samples.one("chatgpt", "user", "parlons français")
    item = w.graph.view.item
    assert item is not None and item.model.turns is not None
    texts = box_texts(qtbot, w, [original, edited])
    assert "tell me about the rain" in texts[0][0] and "parlons français" in texts[1][0]
    enjoy, happy = box_texts(qtbot, w, list(samples.find(
        "chatgpt", "assistant", "Bien sûr, en voici une")))
    assert enjoy[1] == happy[1], "identical answers read the same (compare says so)"


def test_switcher_tooltip_lists_the_siblings_by_what_differs(
    qtbot: QtBot, samples: Samples, tmp_path: Path,
) -> None:
    w = open_main(qtbot, samples, tmp_path, "librechat")
    enjoy, happy = samples.find("librechat", "assistant", "Glad it worked!")
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
    assert f"1. assistant · gpt-4o #{enjoy}: “…Enjoy the rest" in tip
    assert f"2. assistant · gpt-4o #{happy} (shown): “…Happy committing!”" in tip
