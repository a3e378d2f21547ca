"""Compare from the main window on the corpus's exports: the window keeps to its conversation,
cells render as the transcript does, marks show and survive a refused compare, and the
whole thing works from the keyboard."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest
from compare_samples import Samples, import_samples
from PySide6.QtCore import QPoint, QSettings, Qt
from PySide6.QtGui import QFont
from PySide6.QtWidgets import QApplication
from pytestqt.qtbot import QtBot
from ui_compare import marked_runs

from explorer.store import Store
from explorer.tree.model import Message, Part
from explorer.ui.compare.window import CompareWindow
from explorer.ui.window.main_window import MainWindow


@pytest.fixture
def samples(corpus_dir: Path, tmp_path: Path) -> Iterator[Samples]:
    s = import_samples(corpus_dir, tmp_path / "samples.db")
    yield s
    s.store.close()


def open_main(qtbot: QtBot, samples: Samples, tmp_path: Path, name: str) -> MainWindow:
    settings = QSettings(str(tmp_path / "ui.ini"), QSettings.Format.IniFormat)
    w = MainWindow(samples.store, settings)
    qtbot.addWidget(w)
    w.resize(1300, 800)
    with qtbot.waitSignal(w.graph.loaded, timeout=10_000):
        w.show()
        w.open_conversation(samples.conv[name])
    return w


def test_fork_then_make_active_acts_on_the_compare_windows_conversation(
    qtbot: QtBot, samples: Samples, tmp_path: Path,
) -> None:
    store = samples.store
    w = open_main(qtbot, samples, tmp_path, "chatgpt")
    conv = samples.conv["chatgpt"]
    original = samples.one("chatgpt", "user", "tell me about the rain in Bergen")
    w.compares.compare(original)
    cmp = w.compares.window
    assert isinstance(cmp, CompareWindow) and cmp.conv_id == conv
    cmp.ask_fork_title = lambda suggested: "forked edit"  # type: ignore[method-assign]
    with qtbot.waitSignal(w.graph.loaded, timeout=10_000):
        qtbot.mouseClick(cmp.headers[0].fork_button, Qt.MouseButton.LeftButton)
    assert w.conversation_id != conv, "the main window shows the fork"
    with qtbot.waitSignal(w.graph.loaded, timeout=10_000):
        qtbot.mouseClick(cmp.headers[0].make_active_button, Qt.MouseButton.LeftButton)
    assert w.questions.last_error == w.compares.last_error == ""
    assert store.conversation(conv).tip_id == cmp.comparison.columns[0].leaf_id  # type: ignore[union-attr]
    assert w.conversation_id == conv, "making a branch active shows its conversation"
    assert cmp.headers[0].active and not cmp.headers[1].active


def test_cells_render_markdown_with_marks_on_the_right_words(
    qtbot: QtBot, samples: Samples,
) -> None:
    enjoy, happy = samples.find("librechat", "assistant", "Glad it worked!")
    w = CompareWindow(samples.store, samples.conv["librechat"], [enjoy, happy])
    qtbot.addWidget(w)
    w.set_base(0)
    assert w.comparison is not None and w.comparison.base == 0
    assert marked_runs(w.cell(0, 1), "changed") == ["Happy", "committing!"]
    assert marked_runs(w.cell(0, 1), "struck") == ["Enjoy", "the", "rest", "of", "your", "day!"]
    assert "worked!" not in marked_runs(w.cell(0, 1), "changed")
    long_answer = w.cell(1, 1)
    text = long_answer.plain_text()
    assert "**" not in text and "The reflog" in text, "Markdown is rendered, not shown"
    doc = long_answer.texts[-1].document()
    bold = [it.fragment().text() for b in _blocks(doc) for it in b
            if it.fragment().charFormat().fontWeight() == QFont.Weight.Bold]
    assert "The reflog" in bold
    assert any(b.textList() is not None for b in _blocks(doc)), "the numbered list is a list"
    assert "\ue000" not in text and "\ue001" not in text, "no marker is left behind"


def _blocks(doc):  # type: ignore[no-untyped-def]
    b = doc.begin()
    while b.isValid():
        yield b
        b = b.next()


def test_thinking_in_its_own_box_and_tool_calls_as_rows(
    qtbot: QtBot, samples: Samples, tmp_path: Path,
) -> None:
    store = samples.store
    answers = store.children(samples.one("openwebui", "user", "what is in notes.txt"))
    w = CompareWindow(store, samples.conv["openwebui"], answers)
    qtbot.addWidget(w)
    rows = [r for j in (0, 1) for r in w.cell(0, j).tool_rows]
    assert {r.objectName() for r in rows} == {"tool_use", "tool_result"}
    assert any("read_file" in r.text() for r in rows)
    assert any("run_bash" in r.text() for r in rows)
    with Store(tmp_path / "t.db") as s:
        conv = s.create_conversation("thinking")
        [q, a] = s.append_turn(conv, [
            Message(None, None, "user", [Part("text", "why?")]),
            Message(None, None, "assistant", [Part("thinking", "weigh the *options*"),
                                              Part("text", "because")])])
        [b] = s.append_turn(conv, [Message(None, None, "assistant", [
            Part("thinking", "weigh other options"), Part("text", "because so")])],
            parent_id=q)
        t = CompareWindow(s, conv, [a, b])
        qtbot.addWidget(t)
        t.set_base(0)
        cell = t.cell(0, 0)
        assert len(cell.thinking) == 1
        box_text = cell.thinking[0].findChildren(type(cell.texts[0]))[0].toPlainText()
        assert box_text == "weigh the options", "Markdown, in the muted box"
        assert cell.texts[-1].toPlainText().strip() == "because"
        other = t.cell(0, 1)
        assert marked_runs(other, "changed") == ["other", "options", "so"]
        assert marked_runs(other, "struck") == ["the", "options"]
        t.close()


def test_diff_toggle_and_changes_only_in_the_window(qtbot: QtBot, samples: Samples) -> None:
    enjoy, happy = samples.find("librechat", "assistant", "Glad it worked!")
    w = CompareWindow(samples.store, samples.conv["librechat"], [enjoy, happy])
    qtbot.addWidget(w)
    w.show()
    qtbot.mouseClick(w.bar.buttons["off"], Qt.MouseButton.LeftButton)
    assert w.comparison is not None and w.comparison.mode == "off"
    assert all(marked_runs(c, k) == [] for row in w.cells for c in row
               for k in ("changed", "struck"))
    assert not w.bar.changes_only.isEnabled() and w.legend.isHidden()
    qtbot.mouseClick(w.bar.buttons["lines"], Qt.MouseButton.LeftButton)
    assert w.comparison.mode == "lines"
    qtbot.mouseClick(w.bar.buttons["words"], Qt.MouseButton.LeftButton)
    w.bar.changes_only.setChecked(True)
    assert w.comparison.changes_only
    other = 1 - w.comparison.base
    assert "… 4 words …" in w.cell(0, other).plain_text()
    a, b = samples.find("chatgpt", "assistant", "Bien sûr, en voici une")
    same = CompareWindow(samples.store, samples.conv["chatgpt"], [a, b])
    qtbot.addWidget(same)
    assert "identical" in same.status.text()
    assert "the same in every column" in same.row_labels[0].text()
    same.bar.changes_only.setChecked(True)
    assert same.cells[0] == [], "an unchanged turn folds into its row label"


def test_marks_show_in_graph_and_transcript_and_survive_a_refused_compare(
    qtbot: QtBot, samples: Samples, tmp_path: Path,
) -> None:
    w = open_main(qtbot, samples, tmp_path, "chatgpt")
    store = samples.store
    w.graph.set_mode("messages")
    qtbot.waitUntil(lambda: not w.graph.is_loading, timeout=10_000)
    joke = samples.one("chatgpt", "user", "raconte-moi une blague")
    tip = store.conversation(samples.conv["chatgpt"]).tip_id or 0
    w.compares.toggle_mark(joke)
    w.compares.toggle_mark(tip)
    assert w.compares.marked == [joke, tip]
    nodes = w.graph.compare_marked_nodes()
    model = w.graph.view.model
    assert model is not None and [(int(model.ids[i]), n) for i, n in nodes] == [(joke, 1),
                                                                                 (tip, 2)]
    w.transcript.scroll_to(joke)
    card = w.transcript.card_for(joke)
    assert card is not None and card.compare_mark == 1
    w.compares.compare_marked()
    assert w.compares.window is None, "no empty window"
    assert "on the path to" in w.compares.last_error
    assert w.compares.notice is not None and w.compares.notice.isVisible()
    assert w.compares.marked == [joke, tip], "a refused compare keeps the marks"
    other = samples.find("chatgpt", "assistant", "Bien sûr, en voici une")
    w.compares.toggle_mark(joke)
    w.compares.toggle_mark(tip)
    for mid in other:
        w.compares.toggle_mark(mid)
    w.compares.compare_marked()
    assert isinstance(w.compares.window, CompareWindow)
    assert w.compares.marked == [] and w.graph.compare_marked_nodes() == []
    w.compares.toggle_mark(joke)
    w.menu_action("clear_compare_marks").trigger()
    assert w.compares.marked == [] and card.compare_mark is None


def test_compare_with_siblings_on_a_lone_message_says_why(
    qtbot: QtBot, samples: Samples, tmp_path: Path,
) -> None:
    w = open_main(qtbot, samples, tmp_path, "chatgpt")
    joke = samples.one("chatgpt", "user", "raconte-moi une blague")
    w.graph.select_node(joke)
    w.menu_action("compare_with_siblings").trigger()
    assert w.compares.window is None
    assert f"message {joke} has no siblings" in w.compares.last_error


def test_keyboard_path_select_mark_compare(
    qtbot: QtBot, samples: Samples, tmp_path: Path,
) -> None:
    w = open_main(qtbot, samples, tmp_path, "librechat")
    w.graph.set_mode("messages")
    qtbot.waitUntil(lambda: not w.graph.is_loading, timeout=10_000)
    enjoy, happy = samples.find("librechat", "assistant", "Glad it worked!")
    w.activateWindow()
    w.graph.view.setFocus()
    for mid in (enjoy, happy):
        assert w.graph.select_node(mid)
        qtbot.keyClick(w.graph.view, Qt.Key.Key_M)
    assert w.compares.marked == [enjoy, happy]
    qtbot.keyClick(w.graph.view, Qt.Key.Key_D, Qt.KeyboardModifier.ControlModifier)
    QApplication.processEvents()
    cmp = w.compares.window
    assert isinstance(cmp, CompareWindow)
    assert [c.chosen_id for c in cmp.comparison.columns] == [enjoy, happy]  # type: ignore[union-attr]
    qtbot.keyClick(cmp, Qt.Key.Key_Escape)
    assert not cmp.isVisible()
    w.activateWindow()
    qtbot.waitUntil(w.isActiveWindow, timeout=5_000)
    w.graph.view.setFocus()
    w.graph.select_node(happy)
    qtbot.keyClick(w.graph.view, Qt.Key.Key_D,
                   Qt.KeyboardModifier.ControlModifier | Qt.KeyboardModifier.ShiftModifier)
    siblings = w.compares.window
    assert isinstance(siblings, CompareWindow) and siblings is not cmp
    assert {c.chosen_id for c in siblings.comparison.columns} == {enjoy, happy}  # type: ignore[union-attr]


def test_compare_on_a_turn_node_of_the_turn_view(
    qtbot: QtBot, samples: Samples, tmp_path: Path,
) -> None:
    w = open_main(qtbot, samples, tmp_path, "chatgpt")
    if w.graph.mode != "turns":
        with qtbot.waitSignal(w.graph.loaded, timeout=10_000):
            w.graph.set_mode("turns")
    cool = samples.one("chatgpt", "user", "tell me about the rain in Bergen")
    again = samples.one("chatgpt", "user", "parlons français")
    model = w.graph.view.model
    assert model is not None and model.turns is not None
    node_id = int(model.ids[model.index[cool]])  # a turn node is named by its last message
    assert node_id != cool
    w.show_message_menu(node_id, QPoint(10, 10))
    menu = w.last_menu
    assert menu is not None
    menu.hide()
    action = menu.action("compare")  # type: ignore[attr-defined]
    assert action.isEnabled()
    action.trigger()
    cmp = w.compares.window
    assert isinstance(cmp, CompareWindow)
    assert [c.message_ids[0] for c in cmp.comparison.columns] == [cool, again]  # type: ignore[union-attr]
