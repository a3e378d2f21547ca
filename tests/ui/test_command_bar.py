"""The command bar: offers as the person types, Tab and Enter, inline errors, history, Esc."""

from __future__ import annotations

from collections.abc import Iterator

import pytest
from PySide6.QtCore import Qt
from PySide6.QtGui import QFont
from PySide6.QtWidgets import QWidget
from pytestqt.qtbot import QtBot

from explorer.app.context.compacting import RUNGS
from explorer.app.ops.slash import NAMES, SlashCommand
from explorer.ui.window.command_bar import CommandBar

LABELS = ["before refactor", "green", "golden"]


@pytest.fixture
def bar(qtbot: QtBot) -> Iterator[CommandBar]:
    host = QWidget()
    qtbot.addWidget(host)
    b = CommandBar(host)
    host.resize(700, 400)
    host.show()
    b.open("")
    yield b


def typed(qtbot: QtBot, bar: CommandBar, text: str) -> None:
    qtbot.keyClicks(bar.edit, text)


def entered(qtbot: QtBot, bar: CommandBar, text: str) -> SlashCommand:
    typed(qtbot, bar, text)
    with qtbot.waitSignal(bar.commandEntered, timeout=1000) as blocker:
        qtbot.keyClick(bar.edit, Qt.Key.Key_Return)
    command = blocker.args[0]
    assert isinstance(command, SlashCommand)
    return command


def test_typing_comp_offers_compact_in_the_popup(qtbot: QtBot, bar: CommandBar) -> None:
    typed(qtbot, bar, "/comp")
    assert bar.completions() == ["/compact"]
    assert bar.popup.isVisible()
    assert bar.hint_label.text().startswith("/compact [rung]")


def test_slash_alone_offers_every_command(qtbot: QtBot, bar: CommandBar) -> None:
    bar.open()
    assert bar.edit.text() == "" and "Type /" in bar.edit.placeholderText()
    typed(qtbot, bar, "/")
    assert bar.edit.text() == "/"  # not "//"
    assert bar.completions() == [f"/{n}" for n in NAMES] and "/rewind" in bar.completions()


def test_a_command_typed_without_its_slash_gets_one(qtbot: QtBot, bar: CommandBar) -> None:
    bar.open()
    typed(qtbot, bar, "co")
    assert bar.edit.text() == "/co"
    assert "/compact" in bar.completions() and "/context" in bar.completions()


def test_tab_takes_the_command_then_the_rung(qtbot: QtBot, bar: CommandBar) -> None:
    typed(qtbot, bar, "/comp")
    qtbot.keyClick(bar.edit, Qt.Key.Key_Tab)
    assert bar.edit.text() == "/compact "
    assert bar.completions() == [f"/compact {r}" for r in RUNGS]
    typed(qtbot, bar, "sn")
    assert bar.completions() == ["/compact snapshot"]
    qtbot.keyClick(bar.edit, Qt.Key.Key_Tab)
    assert bar.edit.text() == "/compact snapshot"


def test_rewind_offers_the_labels_given_by_set_context(qtbot: QtBot, bar: CommandBar) -> None:
    bar.set_context(LABELS)
    typed(qtbot, bar, "/rewind ")
    assert bar.completions() == ["/rewind 'before refactor'", "/rewind green", "/rewind golden"]
    typed(qtbot, bar, "g")
    assert bar.completions() == ["/rewind green", "/rewind golden"]
    bar.set_context(["other"])
    assert bar.completions() == []


def test_export_offers_formats(qtbot: QtBot, bar: CommandBar) -> None:
    typed(qtbot, bar, "/export mark")
    assert bar.completions() == ["/export markdown"]


def test_enter_on_a_valid_command_emits_it_and_clears_the_line(
    qtbot: QtBot, bar: CommandBar
) -> None:
    command = entered(qtbot, bar, "/compact snapshot")
    assert command == SlashCommand("compact", ("snapshot",))
    assert bar.edit.text() == ""
    assert bar.error_text() == ""
    bar.set_context(LABELS)
    assert entered(qtbot, bar, "/rewind 'before refactor'").arg == "before refactor"
    assert entered(qtbot, bar, "/send it's fine").arg == "it's fine"


def test_enter_with_offers_open_runs_the_line_as_typed(qtbot: QtBot, bar: CommandBar) -> None:
    typed(qtbot, bar, "/compact ")
    assert bar.completions()  # the rungs are on offer, none highlighted
    with qtbot.waitSignal(bar.commandEntered, timeout=1000) as blocker:
        qtbot.keyClick(bar.edit, Qt.Key.Key_Return)
    assert blocker.args[0] == SlashCommand("compact")


def test_an_invalid_command_shows_the_error_inline_and_emits_nothing(
    qtbot: QtBot, bar: CommandBar
) -> None:
    got: list[object] = []
    bar.commandEntered.connect(got.append)
    typed(qtbot, bar, "/compact fast")
    qtbot.keyClick(bar.edit, Qt.Key.Key_Return)
    assert got == []
    assert "unknown rung 'fast'" in bar.error_text()
    assert bar.error_label.isVisible()
    assert bar.edit.text() == "/compact fast"  # kept so it can be fixed
    qtbot.keyClick(bar.edit, Qt.Key.Key_Backspace)
    assert bar.error_text() == ""  # editing clears the complaint


def test_rewind_to_an_unknown_label_is_refused_inline(qtbot: QtBot, bar: CommandBar) -> None:
    got: list[object] = []
    bar.commandEntered.connect(got.append)
    bar.set_context(LABELS)
    typed(qtbot, bar, "/rewind nowhere")
    qtbot.keyClick(bar.edit, Qt.Key.Key_Return)
    assert got == []
    assert "no checkpoint named 'nowhere'" in bar.error_text()
    assert "green" in bar.error_text()


def test_up_and_down_recall_the_history(qtbot: QtBot, bar: CommandBar) -> None:
    entered(qtbot, bar, "/tree")
    entered(qtbot, bar, "/context")
    typed(qtbot, bar, "/sh")
    qtbot.keyClick(bar.edit, Qt.Key.Key_Up)
    assert bar.edit.text() == "/context"
    qtbot.keyClick(bar.edit, Qt.Key.Key_Up)
    assert bar.edit.text() == "/tree"
    qtbot.keyClick(bar.edit, Qt.Key.Key_Up)
    assert bar.edit.text() == "/tree"  # the oldest stays
    qtbot.keyClick(bar.edit, Qt.Key.Key_Down)
    assert bar.edit.text() == "/context"
    qtbot.keyClick(bar.edit, Qt.Key.Key_Down)
    assert bar.edit.text() == "/sh"  # back to what was being typed
    assert bar.history() == ["/tree", "/context"]


def test_a_recalled_command_runs_again(qtbot: QtBot, bar: CommandBar) -> None:
    entered(qtbot, bar, "/export html")
    qtbot.keyClick(bar.edit, Qt.Key.Key_Up)
    with qtbot.waitSignal(bar.commandEntered, timeout=1000) as blocker:
        qtbot.keyClick(bar.edit, Qt.Key.Key_Return)
    assert blocker.args[0] == SlashCommand("export", ("html",))
    assert bar.history() == ["/export html"]  # a repeat is not stored twice


def test_escape_closes_the_popup_then_the_bar(qtbot: QtBot, bar: CommandBar) -> None:
    typed(qtbot, bar, "/c")
    assert bar.popup.isVisible()
    qtbot.keyClick(bar.edit, Qt.Key.Key_Escape)
    assert not bar.popup.isVisible() and bar.isVisible()
    with qtbot.waitSignal(bar.closed, timeout=1000):
        qtbot.keyClick(bar.edit, Qt.Key.Key_Escape)
    assert not bar.isVisible()
    bar.open()
    assert bar.isVisible() and bar.edit.text() == ""


def test_results_show_multiline_monospace_text(qtbot: QtBot, bar: CommandBar) -> None:
    tree = "1 user: hello\n└─ 2 assistant: hi\n   └─ 3 user: more"
    bar.show_result(tree)
    assert bar.result_view.isVisible() and bar.result_view.isReadOnly()
    assert bar.result_view.toPlainText() == tree
    assert bar.result_view.font().styleHint() == QFont.StyleHint.TypeWriter
    bar.show_error("conversation 9 not found")
    assert bar.error_text() == "conversation 9 not found"
    assert not bar.result_view.isVisible()


def test_running_a_command_clears_the_previous_result(qtbot: QtBot, bar: CommandBar) -> None:
    bar.show_result("old output")
    entered(qtbot, bar, "/shake")
    assert not bar.result_view.isVisible()
    assert bar.result_view.toPlainText() == ""


def test_keys_reaching_the_popup_navigate_then_take_the_offer(
    qtbot: QtBot, bar: CommandBar
) -> None:
    """With the popup open, keys go to it first (as on a desktop); Down then Enter picks."""
    typed(qtbot, bar, "/compact ")
    assert bar.popup.isVisible()
    qtbot.keyClick(bar.popup, Qt.Key.Key_Down)
    qtbot.keyClick(bar.popup, Qt.Key.Key_Down)
    qtbot.keyClick(bar.popup, Qt.Key.Key_Return)
    assert bar.edit.text() == f"/compact {RUNGS[1]}"
    got: list[object] = []
    bar.commandEntered.connect(got.append)
    qtbot.keyClick(bar.edit, Qt.Key.Key_Return)
    assert got == [SlashCommand("compact", (RUNGS[1],))]


def test_tab_keeps_the_focus_in_the_line(qtbot: QtBot, bar: CommandBar) -> None:
    qtbot.waitUntil(bar.edit.hasFocus, timeout=1000)
    typed(qtbot, bar, "/tr")
    qtbot.keyClick(bar.popup if bar.popup.isVisible() else bar.edit, Qt.Key.Key_Tab)
    assert bar.edit.text() == "/tree"
    assert bar.edit.hasFocus()
