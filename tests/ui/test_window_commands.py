"""The command bar and model calls in the window: same operations as ``convo``, inline output,
and a model answer stored only when it completed (against a real loopback server)."""

from __future__ import annotations

import sys
from pathlib import Path

from pytestqt.qtbot import QtBot

from explorer.app.ops.slash import parse
from explorer.ui.window.main_window import MainWindow

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "core" / "providers"))
from provider_server import ServerState


def test_ctrl_k_and_slash_in_the_transcript_open_the_bar(window: MainWindow, qtbot: QtBot) -> None:
    window.menu_action("command_bar").trigger()
    window.ops.settle()
    assert window.command_bar.isVisible()
    window.command_bar.hide()
    qtbot.keyClick(window.transcript, "/")
    window.ops.settle()
    assert window.command_bar.isVisible() and window.command_bar.edit.text() == "/"


def test_tree_and_context_show_their_text_inline(window: MainWindow) -> None:
    window.open_command_bar()
    window.slash.run(parse("/tree"))
    window.ops.settle()
    assert "[diagnosed]" in window.command_bar.result_view.toPlainText()
    window.slash.run(parse("/context"))
    window.ops.settle()
    text = window.command_bar.result_view.toPlainText()
    assert "tool_results" in text and "measured" in text


def test_checkpoint_rewind_and_fork_change_the_store(window: MainWindow) -> None:
    store = window.store
    tip = store.conversation(1).tip_id
    window.open_command_bar()
    window.slash.run(parse("/checkpoint end"))
    window.ops.settle()
    assert store.checkpoints(1)["end"] == tip
    window.slash.run(parse("/rewind diagnosed"))
    window.ops.settle()
    assert store.conversation(1).tip_id == store.checkpoints(1)["diagnosed"]
    before = {c.id for c in store.conversations()}
    window.slash.run(parse("/fork From the bar"))
    window.ops.settle()
    [new] = {c.id for c in store.conversations()} - before
    assert store.conversation(new).title == "From the bar"


def test_an_error_is_shown_inline_and_changes_nothing(window: MainWindow) -> None:
    window.open_command_bar()
    mid_turn = next(m.id for m in window.store.path(1) if m.tool_uses())
    window.graph.select_node(mid_turn)
    window.slash.run(parse("/checkpoint bad"))
    window.ops.settle()
    assert "inside a turn" in window.command_bar.error_text()
    assert "bad" not in window.store.checkpoints(1)


def test_send_streams_and_stores_the_turn_when_complete(
    window: MainWindow, qtbot: QtBot, provider: ServerState
) -> None:
    count = window.store.conversation(1).message_count
    window.open_command_bar()
    window.slash.run(parse("/send Is the fallback covered by a test?"))
    window.ops.settle()
    job = window.model_job
    assert job is not None
    with qtbot.waitSignal(job.done, timeout=20_000):
        pass
    job.wait()
    assert window.store.conversation(1).message_count == count + 2
    answer = window.store.message(window.store.conversation(1).tip_id or 0)
    assert answer.role == "assistant" and answer.text
    assert answer.text in window.command_bar.result_view.toPlainText()


def test_a_failed_call_stores_nothing_and_says_so_inline(
    window: MainWindow, qtbot: QtBot, provider: ServerState
) -> None:
    provider.faults.extend(["drop"] * 5)
    count = window.store.conversation(1).message_count
    tip = window.store.conversation(1).tip_id
    prompt = next(m.id for m in reversed(window.store.path(1)) if m.is_prompt)
    window.actions_.model_calls.regenerate(prompt)
    job = window.model_job
    assert job is not None
    with qtbot.waitSignal(job.failed, timeout=20_000):
        pass
    job.wait()
    assert window.store.conversation(1).message_count == count
    assert window.store.conversation(1).tip_id == tip
    assert "nothing was stored" in window.command_bar.error_text()


def test_every_command_of_the_bar_has_one_entry_in_the_dispatch_table(window: MainWindow) -> None:
    from explorer.app.ops.slash import NAMES

    assert set(window.slash.table) == set(NAMES), "the table is the list of what the bar does"
    assert all(callable(h) for h in window.slash.table.values())


def test_search_from_the_bar_runs_its_query_and_compact_opens_the_preview(
    window: MainWindow, qtbot: QtBot
) -> None:
    window.open_command_bar()
    window.slash.run(parse("/search retry"))
    window.ops.settle()
    dialog = window.actions_.dialogs.search_dialog
    assert dialog is not None and dialog.isVisible()
    assert dialog.query_edit.text() == "retry"
    dialog.close()
    window.slash.run(parse("/compact"))
    window.ops.settle()
    preview = window.actions_.dialogs.preview
    assert preview is not None and preview.isVisible()
    assert "compaction preview" in window.command_bar.result_view.toPlainText()
    window.actions_.dialogs.close_preview()
    assert window.actions_.dialogs.preview is None and not preview.isVisible()
