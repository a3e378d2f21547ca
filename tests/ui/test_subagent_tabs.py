"""V1 in the transcript: a subagent opens in a tab of its own, read beside the conversation;
clicking it (its node or its name) or pressing Enter on it never makes it the tip."""

from __future__ import annotations

from pathlib import Path

from PySide6.QtCore import QSettings, Qt
from pytestqt.qtbot import QtBot

from explorer.app.importing.demo import load_demo
from explorer.store import Store
from explorer.store.turn_reads import read_subagents
from explorer.ui.graph.model import F_SIDE
from explorer.ui.transcript import TranscriptView
from explorer.ui.transcript.cards import MessageCard
from explorer.ui.window.main_window import MainWindow


def _views(tabs: object) -> int:
    """Transcripts open in the pane (the Files tab, where there is one, is not one)."""
    return sum(isinstance(tabs.widget(i), TranscriptView)  # type: ignore[attr-defined]
               for i in range(tabs.count()))  # type: ignore[attr-defined]

def _window(qtbot: QtBot, store: Store, conv: int, tmp_path: Path) -> MainWindow:
    settings = QSettings(str(tmp_path / "ui.ini"), QSettings.Format.IniFormat)
    w = MainWindow(store, settings)
    qtbot.addWidget(w)
    w.resize(1400, 900)
    with qtbot.waitSignal(w.graph.loaded, timeout=30_000):
        w.show()
        w.open_conversation(conv)
    qtbot.waitUntil(lambda: not w.transcript.is_loading, timeout=30_000)
    return w


def _subagent_message(store: Store, conv: int) -> tuple[int, int, str]:
    """(root, a later message, name) of the sample's first subagent with several messages."""
    for root, info in read_subagents(store.reader, conv).items():
        below = [n.id for n in store.skeleton(conv) if n.parent_id == root]
        if below:
            return int(str(root)), below[0], info.name
    raise AssertionError("the sample has subagents")


def _shown(view: TranscriptView) -> list[int]:
    return view.message_ids()


def test_V1_selecting_a_subagent_opens_its_transcript_in_a_tab_and_keeps_the_tip(
    qtbot: QtBot, worktrees_session: tuple[Store, int], tmp_path: Path
) -> None:
    store, conv = worktrees_session
    tip = store.conversation(conv).tip_id
    root, later, name = _subagent_message(store, conv)
    w = _window(qtbot, store, conv, tmp_path)
    tabs = w.transcript_tabs
    assert _views(tabs) == 1, "only the conversation's transcript"
    w.graph.nodeSelected.emit(later)
    assert _views(tabs) == 2 and not tabs.tabBar().isHidden()
    view = tabs.currentWidget()
    assert isinstance(view, TranscriptView) and view is not w.transcript
    assert tabs.tabText(tabs.indexOf(view)) == f"⤷ {name}"
    qtbot.waitUntil(lambda: not view.is_loading and bool(_shown(view)), timeout=30_000)
    shown = _shown(view)
    assert shown[0] == root and later in shown, "the subagent from its root down"
    assert root not in _shown(w.transcript), "the conversation's tab is unchanged"
    assert store.conversation(conv).tip_id == tip
    assert not w.branch_state.previewing, "not a branch preview: nothing to switch to"
    w.graph.nodeSelected.emit(root)  # the same subagent again: the same tab
    assert _views(tabs) == 2
    w.branch_state.activated(later)  # Enter / double click on a subagent
    assert store.conversation(conv).tip_id == tip, "a subagent is never made the tip"
    assert _views(tabs) == 2
    tabs.close_tab(tabs.indexOf(view))
    assert _views(tabs) == 1 and tabs.currentWidget() is w.transcript
    w.close()


def test_another_conversation_closes_the_subagent_tabs(
    qtbot: QtBot, worktrees_session: tuple[Store, int], tmp_path: Path
) -> None:
    store, conv = worktrees_session
    _, later, _ = _subagent_message(store, conv)
    demo = load_demo(store)
    w = _window(qtbot, store, conv, tmp_path)
    w.graph.nodeSelected.emit(later)
    assert _views(w.transcript_tabs) == 2
    with qtbot.waitSignal(w.graph.loaded, timeout=30_000):
        w.open_conversation(demo)
    assert _views(w.transcript_tabs) == 1
    assert w.transcript_tabs.currentWidget() is w.transcript
    qtbot.waitUntil(lambda: not w.transcript.is_loading, timeout=30_000)
    w.close()


def test_V1_clicking_a_subagents_name_in_the_graph_opens_it(
    qtbot: QtBot, worktrees_session: tuple[Store, int], tmp_path: Path
) -> None:
    store, conv = worktrees_session
    tip = store.conversation(conv).tip_id
    w = _window(qtbot, store, conv, tmp_path)
    view, model = w.graph.view, w.graph.view.model
    assert model is not None and view.item is not None
    side = next(i for i in range(len(model)) if model.flags[i] & F_SIDE)
    view.set_scale(1.0)
    view.center_on_node(side)
    view.viewport().repaint()
    boxes = [b for b, i in view.item.labels.agent_boxes if i == side]
    assert boxes, "the subagent's name is drawn beside its node"
    at = boxes[0].center().toPoint()
    assert view.node_at_view(at) == -1, "the name, not the node's box"
    with qtbot.waitSignal(w.graph.nodeSelected, timeout=5000) as sig:
        qtbot.mouseClick(view.viewport(), Qt.MouseButton.LeftButton, pos=at)
    assert sig.args == [int(model.ids[side])]
    assert _views(w.transcript_tabs) == 2
    assert store.conversation(conv).tip_id == tip
    w.close()


def test_V1_the_agent_calls_open_subagent_button_opens_its_tab_and_keeps_the_tip(
    qtbot: QtBot, worktrees_session: tuple[Store, int], tmp_path: Path
) -> None:
    store, conv = worktrees_session
    tip = store.conversation(conv).tip_id
    info = next(i for i in read_subagents(store.reader, conv).values()
                if i.call_message is not None and i.call_message in store.path_ids(tip or 0))
    w = _window(qtbot, store, conv, tmp_path)
    t = w.transcript
    call_mid = info.call_message
    assert call_mid is not None
    t.scroll_to(call_mid)
    qtbot.waitUntil(lambda: isinstance(t.card_for(call_mid), MessageCard), timeout=10_000)
    qtbot.waitUntil(lambda: not t.is_loading, timeout=10_000)  # cards come over a few turns
    card = t.card_for(call_mid)
    assert isinstance(card, MessageCard)
    spawning = [b for b in card.calls if b.open_button is not None]
    started_here = {i.tool_use_id for i in read_subagents(store.reader, conv).values()
                    if i.call_message == call_mid}
    assert {b.use_id for b in spawning} == started_here, "one button per subagent started"
    assert all(b.summary.startswith("Agent(") for b in spawning)
    ours = next(b for b in spawning if b.use_id == info.tool_use_id)
    others = [b for c in t.live_cards() if isinstance(c, MessageCard) for b in c.calls
              if not b.summary.startswith(("Agent(", "Task("))]
    assert others and all(b.open_button is None for b in others), "only spawning calls"
    button = ours.open_button
    assert button is not None and button.isVisibleTo(card)
    qtbot.mouseClick(button, Qt.MouseButton.LeftButton)
    tabs = w.transcript_tabs
    assert _views(tabs) == 2 and tabs.tabText(tabs.count() - 1) == f"⤷ {info.name}"
    view = tabs.currentWidget()
    assert isinstance(view, TranscriptView) and view is not t
    qtbot.waitUntil(lambda: not view.is_loading and bool(_shown(view)), timeout=30_000)
    assert _shown(view)[0] == info.root, "the subagent's transcript from its root"
    assert store.conversation(conv).tip_id == tip, "the tip never moves"
    qtbot.mouseClick(button, Qt.MouseButton.LeftButton)  # again: the same tab, brought back
    assert _views(tabs) == 2
    w.close()
