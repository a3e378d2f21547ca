"""The transcript's "ends in the middle of a turn" mark follows the tip (P3)."""

from __future__ import annotations

from pathlib import Path

from helpers import assistant, tool_call, tool_result, user
from pytestqt.qtbot import QtBot
from transcript_helpers import load

from explorer.formats.base import ImportedConversation
from explorer.store import Store
from explorer.tree.model import Message
from explorer.ui.transcript import TranscriptView
from explorer.ui.transcript.slim_cards import MarkerCard


def keyed(key: str, parent: str | None, m: Message) -> Message:
    m.id, m.parent_id = key, parent
    return m


def marker_kinds(qtbot: QtBot, store: Store, conv: int) -> set[str]:
    view = TranscriptView(store)
    qtbot.addWidget(view)
    view.resize(800, 3000)
    view.show()
    load(qtbot, view, conv)
    kinds = {c.marker.kind for c in view.live_cards() if isinstance(c, MarkerCard)}
    assert view.live_cards(), "the path was read and its cards built"
    view.shutdown()  # no read may outlive the store
    return kinds


def test_P3_the_mark_goes_once_the_turn_is_complete(qtbot: QtBot, tmp_path: Path) -> None:
    crashed = ImportedConversation(
        title="crashed", source_format="test", tip="c2", incomplete=True, messages=[
            keyed("u1", None, user("first")), keyed("a1", "u1", assistant("one")),
            keyed("c2", "a1", tool_call("Bash", "t9", {"command": "make"}))])
    with Store(tmp_path / "m.db") as store:
        conv = store.import_conversation(crashed).conversation_id
        assert "incomplete" in marker_kinds(qtbot, store, conv)
        store.append_turn(conv, [tool_result("t9", "built"), assistant("done"),
                                 user("more"), assistant("sure")])
        assert "incomplete" not in marker_kinds(qtbot, store, conv)
