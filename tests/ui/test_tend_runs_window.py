"""Replay after an edit and ask several models, in the window, against a real loopback server
(T8): the plan with its estimates first, progress in the command bar, cancel keeps finished
turns, fan-out answers open side by side, and each run is one undoable operation."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest
from PySide6.QtCore import QPoint, Qt
from pytestqt.qtbot import QtBot

from explorer.app.calls.replay import ReplayPlan
from explorer.app.ops.slash import parse
from explorer.app.tending import tree_actions
from explorer.app.views.tree_view import tended_view
from explorer.ui.calls.run_dialogs import FanoutDialog, FanoutRequest, ReplayDialog, parse_models
from explorer.ui.window.main_window import MainWindow

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "core" / "providers"))
from provider_server import ServerState


@pytest.fixture
def window(provider: ServerState, window: MainWindow) -> MainWindow:
    """The shared demo window, with the loopback provider (and its key) set up first."""
    return window


def _edit_20(window: MainWindow, qtbot: QtBot) -> int:
    """Prompt 20 edited into a sibling (the new tip): 21–24 go stale."""
    new = tree_actions.edit(window.store, 1, 20, "Does the dashboard count match the log?")
    with qtbot.waitSignal(window.graph.loaded, timeout=10_000):
        window.refresh()
    return int(new.changed["created"][0])


def _finished(window: MainWindow, qtbot: QtBot) -> None:
    qtbot.waitUntil(lambda: window.runs.task is not None and not window.runs.task.running,
                    timeout=30_000)
    window.tasks.wait()


def test_T8_replay_from_the_right_click_shows_the_plan_then_redoes_the_branch(
    window: MainWindow, qtbot: QtBot, monkeypatch: pytest.MonkeyPatch
) -> None:
    store = window.store
    onto = _edit_20(window, qtbot)
    assert {21, 24} <= tended_view(store, 1).stale
    plans: list[ReplayPlan] = []
    monkeypatch.setattr(window.runs, "confirm_replay",
                        lambda plan, model: plans.append(plan) or True)
    window.show_message_menu(onto, QPoint(0, 0))
    assert window.last_menu is not None
    act = window.last_menu.action("replay")  # type: ignore[attr-defined]
    assert act.isEnabled()
    window.last_menu.close()
    act.trigger()
    _finished(window, qtbot)
    [plan] = plans
    assert plan.tip == 24 and plan.onto == onto and len(plan.steps) == 2
    assert all(s.input_tokens > 0 for s in plan.steps)
    assert [line.split(":")[0] for line in window.runs.progress[1:3]] == ["step 1/2",
                                                                        "step 2/2"]
    path = store.path(1)
    assert [m.text for m in path if m.role == "user"][-2:] == [
        "Does the dashboard count match the log?", store.message(22).text]
    assert path[-1].role == "assistant" and not {21, 24} & tended_view(store, 1).stale
    assert "Edit → Undo removes it" in window.command_bar.result_view.toPlainText()
    window.menuBar().actions()[1].menu().aboutToShow.emit()
    assert window.undo_action.text() == "Undo replay"
    with qtbot.waitSignal(window.graph.loaded, timeout=10_000):
        window.undo_action.trigger()
        window.ops.settle()
    assert store.conversation(1).tip_id == onto and store.children(onto) == []


def test_T8_a_stale_answer_offers_the_replay_onto_the_edit_it_waits_for(
    window: MainWindow, qtbot: QtBot, monkeypatch: pytest.MonkeyPatch
) -> None:
    store = window.store
    onto = _edit_20(window, qtbot)
    plans: list[ReplayPlan] = []
    monkeypatch.setattr(window.runs, "confirm_replay",
                        lambda plan, model: plans.append(plan) is not None)  # shown, declined
    window.show_message_menu(22, QPoint(0, 0))  # a prompt under the edit: not stale
    assert window.last_menu is not None
    act = window.last_menu.action("replay")  # type: ignore[attr-defined]
    assert not act.isEnabled() and "stale answer" in act.text()
    window.last_menu.close()
    window.show_message_menu(21, QPoint(0, 0))  # the stale answer to the edited prompt
    act = window.last_menu.action("replay")  # type: ignore[attr-defined]
    assert act.isEnabled() and act.text().startswith("Replay this stale branch")
    window.last_menu.close()
    act.trigger()
    qtbot.waitUntil(lambda: bool(plans), timeout=10_000)
    [plan] = plans
    assert (plan.onto, plan.tip, plan.replaces) == (onto, 24, 20)
    assert store.children(onto) == []  # declined: nothing sent


def test_T8_cancelling_a_replay_keeps_the_finished_turns(
    window: MainWindow, qtbot: QtBot, provider: ServerState, monkeypatch: pytest.MonkeyPatch
) -> None:
    store = window.store
    onto = _edit_20(window, qtbot)
    provider.slow_seconds = 60
    provider.faults.extend(["none", "slow"])  # step 2 waits until released
    monkeypatch.setattr(window.runs, "confirm_replay", lambda plan, model: True)

    say = window.runs._say

    def on_step(line: str) -> None:
        say(line)
        if line.startswith("step 2/2"):
            window.command_bar.edit.setFocus()
            for _ in range(2):  # the first Esc may only close the completion list
                if window.command_bar.isVisible():
                    qtbot.keyClick(window.command_bar.edit, Qt.Key.Key_Escape)
                    window.ops.settle()
            assert not window.command_bar.isVisible()  # closing the bar cancels
            provider.stop.set()  # the held response comes, and is not taken
    monkeypatch.setattr(window.runs, "_say", on_step)
    window.runs.replay(onto)
    _finished(window, qtbot)
    assert window.runs.cancel_event.is_set()
    kept = store.children(onto)
    assert len(kept) == 1  # step 1's answer stays; step 2 left nothing
    assert store.conversation(1).tip_id == kept[0]
    assert "finished turns are kept" in window.command_bar.error_text()
    assert store.operations(1)[0].kind == "replay"


@pytest.mark.parametrize("where", ["graph", "transcript", "list", "button"])
def test_T8_esc_or_cancel_anywhere_in_the_window_stops_a_replay(
    window: MainWindow, qtbot: QtBot, provider: ServerState, monkeypatch: pytest.MonkeyPatch,
    where: str,
) -> None:
    """Not only from the command bar's line: Esc with the focus in the graph, the transcript
    or the conversation list, or the status bar's Cancel, stops it; finished turns stay."""
    store = window.store
    onto = _edit_20(window, qtbot)
    provider.slow_seconds = 60
    provider.faults.extend(["none", "slow"])  # step 2 waits until released
    monkeypatch.setattr(window.runs, "confirm_replay", lambda plan, model: True)
    say = window.runs._say
    button = window.runs.cancel_button

    def on_step(line: str) -> None:
        say(line)
        if not line.startswith("step 2/2"):
            return
        assert button.isVisible() and button.isEnabled()
        if where == "button":
            qtbot.mouseClick(button, Qt.MouseButton.LeftButton)
        else:
            target = {"graph": window.graph.view, "transcript": window.transcript,
                      "list": window.conversations}[where]
            target.setFocus()
            qtbot.keyClick(target, Qt.Key.Key_Escape)
        assert window.runs.cancel_event.is_set()
        provider.stop.set()  # the held response comes, and is not taken
    monkeypatch.setattr(window.runs, "_say", on_step)
    window.runs.replay(onto)
    _finished(window, qtbot)
    kept = store.children(onto)
    assert len(kept) == 1 and store.conversation(1).tip_id == kept[0]
    assert "finished turns are kept" in window.command_bar.error_text()
    assert any(line.startswith("cancelling") for line in window.runs.progress)
    qtbot.waitUntil(lambda: not button.isVisible(), timeout=5_000)
    assert window.runs.cancel_running() is False  # nothing runs: Esc means "back" again


def test_T8_fanout_answers_open_side_by_side_and_undo_as_one(
    window: MainWindow, qtbot: QtBot, provider: ServerState, monkeypatch: pytest.MonkeyPatch
) -> None:
    store = window.store
    before = store.conversation(1)
    asked: list[tuple[str, str]] = []

    def ask(models: str, text: str = "") -> FanoutRequest:
        asked.append((models, text))
        return FanoutRequest("Which fix is safer?", ("anthropic:claude-a", "anthropic:claude-b"),
                             2)
    monkeypatch.setattr(window.runs, "ask_fanout", ask)
    window.open_command_bar()
    window.slash.run(parse("/fanout Which fix?"))
    window.ops.settle()
    _finished(window, qtbot)
    assert asked == [("anthropic:claude-test", "Which fix?")]
    tip = store.conversation(1).tip_id or 0
    prompt = store.message(tip).parent_id
    answers = store.children(int(prompt or 0))
    assert len(answers) == 4
    models = {h.body["model"] for h in provider.hits if h.body}
    assert {"claude-a", "claude-b"} <= models
    assert window.compares.window is not None
    assert sorted(window.compares.window.ids) == sorted(answers)
    assert sum(line.startswith("anthropic:claude-") for line in window.runs.progress) == 4
    window.compares.window.close()
    with qtbot.waitSignal(window.graph.loaded, timeout=10_000):
        window.undo_action.trigger()
        window.ops.settle()
    after = store.conversation(1)
    assert (after.tip_id, after.message_count) == (before.tip_id, before.message_count)


def test_the_dialogs_show_the_plan_and_refuse_a_bad_model(
    window: MainWindow, qtbot: QtBot
) -> None:
    from explorer.app.calls.replay import plan_replay
    onto = _edit_20(window, qtbot)
    plan = plan_replay(window.store, 24, onto)
    dialog = ReplayDialog(plan, "claude-test", window)
    qtbot.addWidget(dialog)
    assert dialog.steps.topLevelItemCount() == 2
    assert "2 step(s) with claude-test" in dialog.total.text()
    fan = FanoutDialog("anthropic:claude-test", "", window)
    qtbot.addWidget(fan)
    fan.prompt.setPlainText("hello")
    fan.models.setPlainText("nonsense")
    fan.accept()
    assert fan.isVisible() is False and "PROVIDER:MODEL" in fan.error.text()
    fan.models.setPlainText("anthropic:a, openai:b")
    assert fan.request().models == ("anthropic:a", "openai:b")
    with pytest.raises(ValueError, match="expected PROVIDER:MODEL"):
        parse_models("anthropic")


def test_T8_a_send_in_the_window_is_undone_and_redone_from_the_edit_menu(
    window: MainWindow, qtbot: QtBot
) -> None:
    store = window.store
    before = store.conversation(1)
    window.actions_.model_calls.send("Is the fallback covered by a test?")
    job = window.model_job
    assert job is not None
    with qtbot.waitSignal(job.done, timeout=20_000):
        pass
    job.wait()
    after = store.conversation(1)
    assert after.message_count == before.message_count + 2
    edit_menu = window.menuBar().actions()[1].menu()
    edit_menu.aboutToShow.emit()
    assert window.undo_action.text() == "Undo send"
    with qtbot.waitSignal(window.graph.loaded, timeout=10_000):
        window.undo_action.trigger()
        window.ops.settle()
    now = store.conversation(1)
    assert (now.tip_id, now.message_count) == (before.tip_id, before.message_count)
    edit_menu.aboutToShow.emit()
    assert window.redo_action.text() == "Redo send"
    with qtbot.waitSignal(window.graph.loaded, timeout=10_000):
        window.redo_action.trigger()
        window.ops.settle()
    now = store.conversation(1)
    assert (now.tip_id, now.message_count) == (after.tip_id, after.message_count)
