"""Slim marker cards (compaction, elision, trims, unfinished turns), the rows behind them,
and the sibling switcher on its own."""

from __future__ import annotations

import json
from pathlib import Path

from helpers import assistant, chat_turn, tool_call, tool_result, user
from pytestqt.qtbot import QtBot
from transcript_helpers import shown_view

from explorer.formats.base import ImportedCompaction, ImportedConversation
from explorer.store import Store
from explorer.tree.model import Message, Part
from explorer.ui.transcript import TranscriptView
from explorer.ui.transcript.cards import MessageCard
from explorer.ui.transcript.parts import MarkerLabel, ToolCallBlock
from explorer.ui.transcript.rows import Metrics, build_rows, estimate_height
from explorer.ui.transcript.slim_cards import MarkerCard
from explorer.ui.transcript.switcher import SiblingSwitcher


def keyed(key: str, parent: str | None, m: Message) -> Message:
    m.id, m.parent_id = key, parent
    return m


def imported_with_compaction_and_crash() -> ImportedConversation:
    messages = [
        keyed("u1", None, user("first")), keyed("a1", "u1", assistant("one")),
        keyed("u2", "a1", user("second")), keyed("a2", "u2", assistant("two")),
        keyed("c3", "a2", tool_call("Bash", "t9", {"command": "make"})),
    ]
    return ImportedConversation(
        title="crashed", source_format="test", messages=messages, tip="c3",
        compactions=[ImportedCompaction("a1", "summary", summary="Talked about one.",
                                        meta={"keep_turns": 1})],
        incomplete=True,
    )


def show(qtbot: QtBot, store: Store, conv: int) -> TranscriptView:
    return shown_view(qtbot, store, conv, 800, 3000)


def markers(view: TranscriptView) -> dict[str, MarkerCard]:
    return {c.marker.kind: c for c in view.live_cards() if isinstance(c, MarkerCard)}


def test_compaction_record_and_unfinished_turn_are_slim_markers(
    qtbot: QtBot, tmp_path: Path
) -> None:
    with Store(tmp_path / "m.db") as store:
        conv = store.import_conversation(imported_with_compaction_and_crash()).conversation_id
        info = store.conversation(conv)
        assert info.clean_tip_id is not None and info.clean_tip_id != info.tip_id
        view = show(qtbot, store, conv)
        found = markers(view)
        compaction = found["compaction"]
        assert compaction.marker.title == "Compaction: summary"
        assert "Talked about one." in compaction.detail.text()
        assert '"keep_turns": 1' in compaction.detail.text()
        assert compaction.mid == store.compactions(conv)[0]["message_id"]
        assert found["incomplete"].mid == info.clean_tip_id
        assert compaction.dashed and not view.live_cards()[0].dashed
        assert compaction.height() < 80


def test_P4_trimmed_context_start_is_marked(qtbot: QtBot, tmp_path: Path) -> None:
    with Store(tmp_path / "t.db") as store:
        conv = store.create_conversation("trimmed")
        for n in range(4):
            store.append_turn(conv, chat_turn(n))
        store.trim(conv, keep_turns=1)
        start = store.conversation(conv).context_start_id
        assert start is not None
        view = show(qtbot, store, conv)
        rows = view.rows
        i = next(i for i, r in enumerate(rows) if r.marker and r.marker.kind == "context_start")
        assert rows[i + 1].mid == start and rows[i + 1].message is not None


def test_L1_elided_results_show_as_markers(qtbot: QtBot, tmp_path: Path) -> None:
    elided = Part("tool_result", text="[elided: Bash result, 9,000 chars]", tool_use_id="c1",
                  meta={"elided": {"tool": "Bash", "chars": 9000}})
    with Store(tmp_path / "e.db") as store:
        conv = store.create_conversation("elided")
        store.append_turn(conv, [
            user("go"), tool_call("Bash", "c1"),
            Message(None, None, "user", [elided]),
            tool_call("Read", "c2"),
            Message(None, None, "user", [
                Part("tool_result", text="kept", tool_use_id="c2"),
                Part("text", "[image dropped: image/png, 10x10 px, 99 bytes]",
                     meta={"dropped_image": {"bytes": 99}}),
            ]),
            assistant("done"),
        ])
        view = show(qtbot, store, conv)
        slim = markers(view)["elided"]
        assert "9,000 chars" in slim.detail.text()
        mixed = view.card_for(view.message_ids()[4])
        assert isinstance(mixed, MessageCard)
        labels = [w.text() for w in mixed.findChildren(MarkerLabel)]
        assert labels == ["[image dropped: image/png, 10x10 px, 99 bytes]"]
        assert [r.output.toPlainText() for r in mixed.results] == ["kept"]


def test_rows_put_markers_after_their_message() -> None:
    path = [Message(i, i - 1 if i > 1 else None, "user" if i % 2 else "assistant",
                    [Part("text", f"m{i}")]) for i in range(1, 6)]
    rewinds = [{"from_tip_id": 9, "to_message_id": 2, "label": "x", "digest": {"turns": 1}}]
    compactions = [{"message_id": 4, "kind": "elide", "params": {}, "summary": ""}]
    rows = build_rows(path, rewinds=rewinds, compactions=compactions)
    kinds = [(r.mid, r.marker.kind if r.marker else "msg") for r in rows]
    assert kinds == [(1, "msg"), (2, "msg"), (2, "rewind"), (3, "msg"), (4, "msg"),
                     (4, "compaction"), (5, "msg")]


def test_height_estimates_grow_with_text_and_stay_bounded_for_folded_output() -> None:
    fm = Metrics()
    short = build_rows([Message(1, None, "user", [Part("text", "hi")])])[0]
    long = build_rows([Message(1, None, "user", [Part("text", "word " * 2000)])])[0]
    assert estimate_height(long, 800, fm) > 5 * estimate_height(short, 800, fm)
    huge = tool_result("c", "\n".join(map(str, range(10_000))))
    huge.id = 2
    small = tool_result("c", "one line")
    small.id = 3
    folded = estimate_height(build_rows([huge])[0], 800, fm)
    assert folded < estimate_height(build_rows([small])[0], 800, fm) + 12 * fm.mono_line + 1


def test_tool_arguments_are_pretty_printed(qtbot: QtBot, tmp_path: Path) -> None:
    with Store(tmp_path / "a.db") as store:
        conv = store.create_conversation("args")
        store.append_turn(conv, [user("go"), tool_call("Edit", "c1", {"path": "a", "n": [1, 2]}),
                                 tool_result("c1", "ok"), assistant("done")])
        view = show(qtbot, store, conv)
        card = view.card_for(view.message_ids()[1])
        assert card is not None
        shown = card.findChildren(ToolCallBlock)
        assert len(shown) == 1
        pretty = shown[0].arguments.toPlainText()
        assert pretty == json.dumps({"path": "a", "n": [1, 2]}, indent=2)


def test_switcher_steps_through_alternatives() -> None:
    switcher = SiblingSwitcher([11, 12, 13], 12)
    assert switcher.text() == "2/3"
    assert switcher.can_step(-1) and switcher.can_step(1)
    assert (switcher.target(-1), switcher.target(1)) == (11, 13)
    first = SiblingSwitcher([11, 12, 13], 11)
    assert first.text() == "1/3"
    assert not first.can_step(-1) and first.target(-1) is None
    assert SiblingSwitcher([11, 12], 12, archived=1).text() == "2/2 · 1 archived"


def test_a_message_without_siblings_hides_the_switcher() -> None:
    assert not SiblingSwitcher([5], 5).visible
    assert SiblingSwitcher([5, 6], 6).visible
    assert SiblingSwitcher([5], 5, archived=1).visible, "the archived ones are said aloud"


def test_switcher_tooltips_list_the_siblings_only_when_asked() -> None:
    asked: list[list[int]] = []

    def describe(ids: list[int], current: int) -> list[str]:
        asked.append(ids)
        return [f"{n}. #{i}" + (" (shown)" if i == current else "") for n, i in enumerate(ids, 1)]

    switcher = SiblingSwitcher([11, 12], 12, describe=describe)
    assert switcher.text() == "2/2" and asked == []
    assert switcher.tooltip("previous") == "◀ previous\n1. #11\n2. #12 (shown)"
    assert switcher.tooltip("place").startswith("alternative 2 of 2\n")
    assert switcher.tooltip("compare") == "Compare the alternatives side by side"
    assert asked == [[11, 12]], "read once, the first time a tooltip shows"
    assert SiblingSwitcher([1, 2], 1).tooltip("next") == "Next alternative"
