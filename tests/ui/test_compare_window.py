"""The compare window on the demo: columns, marked words, scrolling in step, column actions
checked against the store, the branch picker, and a screenshot. (The real samples are in
test_compare_flow.py.)"""

from __future__ import annotations

from collections.abc import Iterator
from difflib import SequenceMatcher
from pathlib import Path

import pytest
from PySide6.QtCore import QPoint, QPointF, Qt
from PySide6.QtGui import QColor, QImage, QWheelEvent
from PySide6.QtWidgets import QApplication
from pytestqt.qtbot import QtBot
from ui_compare import marked_runs

from explorer.app.comparing.columns import words
from explorer.app.importing.demo import load_demo
from explorer.app.importing.run import import_paths
from explorer.app.tending.message_actions import branch_target
from explorer.store import Store
from explorer.store.rows import db_id
from explorer.tree.model import Message, Part, Usage
from explorer.ui.compare.cells import CellWidget
from explorer.ui.compare.window import CompareWindow


@pytest.fixture
def demo(tmp_path: Path) -> Iterator[tuple[Store, int]]:
    store = Store(tmp_path / "d.db")
    conv = load_demo(store)
    yield store, conv
    store.close()


def regenerated_answers(store: Store, conv: int) -> list[int]:
    [prompt] = [n.id for n in store.skeleton(conv) if n.role == "user"
                and len(store.children(n.id)) == 2
                and all(store.message(k).role == "assistant" for k in store.children(n.id))]
    return store.children(prompt)


def edited_prompts(store: Store, conv: int) -> list[int]:
    [edited] = [n.id for n in store.skeleton(conv)
                if store.message(n.id).source_meta.get("edited_from")]
    return [int(store.message(edited).source_meta["edited_from"]), edited]


def open_window(qtbot: QtBot, store: Store, conv: int, ids: list[int],
                size: tuple[int, int] = (1200, 700)) -> CompareWindow:
    w = CompareWindow(store, conv, ids)
    qtbot.addWidget(w)
    w.resize(*size)
    w.show()
    qtbot.waitExposed(w)
    QApplication.processEvents()
    return w


def lit(cell: CellWidget) -> list[str]:
    return marked_runs(cell, "changed")


def struck(cell: CellWidget) -> list[str]:
    return marked_runs(cell, "struck")


def test_regenerated_answers_open_in_two_columns_with_their_models(
    qtbot: QtBot, demo: tuple[Store, int],
) -> None:
    store, conv = demo
    first, second = regenerated_answers(store, conv)
    w = open_window(qtbot, store, conv, [first, second])
    assert w.isWindow() and len(w.headers) == 2 and len(w.cells[0]) == 2
    for header, mid in zip(w.headers, (first, second), strict=True):
        model = store.message(mid).model
        assert model and model in header.model_label.text()
        usage = store.message(mid).usage
        assert usage is not None and f"{usage.output_tokens} output tokens" in (
            header.facts_label.text())
        assert f"#{store.message(mid).parent_id}" in header.where_label.text()
    assert not w.cell(0, 0).cell.empty


def test_highlighted_words_are_exactly_the_differing_ones(
    qtbot: QtBot, demo: tuple[Store, int],
) -> None:
    store, conv = demo
    first, second = regenerated_answers(store, conv)
    w = open_window(qtbot, store, conv, [first, second])
    assert w.comparison is not None and w.comparison.base == 1, "the active answer is the base"
    base = [x.strip() for x in words(store.message(second).text)]
    own = [x.strip() for x in words(store.message(first).text)]
    ops = SequenceMatcher(None, base, own, autojunk=False).get_opcodes()
    changed = [x for op, _, _, j0, j1 in ops if op != "equal" for x in own[j0:j1] if x]
    lost = [x for op, i0, i1, _, _ in ops if op != "equal" for x in base[i0:i1] if x]
    assert changed and lost
    assert lit(w.cell(0, 0)) == changed
    assert struck(w.cell(0, 0)) == lost
    assert lit(w.cell(0, 1)) == [] and struck(w.cell(0, 1)) == [], "the base is never marked"


def test_cell_text_is_shown_as_text_never_as_html(qtbot: QtBot, tmp_path: Path) -> None:
    with Store(tmp_path / "x.db") as store:
        conv = store.create_conversation("html")
        [prompt, a] = store.append_turn(conv, [_user("q"), _answer("<b>bold</b> & <img src=x>")])
        [b] = store.append_turn(conv, [_answer("<script>no</script>")], parent_id=prompt)
        w = open_window(qtbot, store, conv, [a, b])
        text = w.cell(0, 0).plain_text() + w.cell(0, 1).plain_text()
        assert "<img src=x>" in text and "<script>no</script>" in text, "tags show as text"
        docs = [v.document() for j in (0, 1) for v in w.cell(0, j).texts]
        assert all(d.toHtml().count("<img") == 0 and "<script" not in d.toHtml() for d in docs)
        assert all(v.safe_document.refused == [] for j in (0, 1) for v in w.cell(0, j).texts)


def test_columns_scroll_in_step(qtbot: QtBot, demo: tuple[Store, int]) -> None:
    store, conv = demo
    chardet = [n.id for n in store.skeleton(conv) if "chardet" in n.preview
               and store.message(n.id).is_prompt]
    w = open_window(qtbot, store, conv, [*chardet, *regenerated_answers(store, conv)],
                    size=(900, 420))
    bar = w.scroll_area.verticalScrollBar()
    assert bar.maximum() > 0, "the demo branches are taller than the window"
    viewport = w.scroll_area.viewport()
    before = [w.cell(1, j).mapTo(viewport, QPoint(0, 0)).y() for j in range(3)]
    assert len(set(before)) == 1, "turn 2 starts at one height in every column"
    # the wheel over column A, as the viewport receives it once the cell passes it on
    over_a = QPointF(w.cell(0, 0).mapTo(viewport, QPoint(20, 20)))
    event = QWheelEvent(over_a, QPointF(viewport.mapToGlobal(over_a.toPoint())), QPoint(0, 0),
                        QPoint(0, -240), Qt.MouseButton.NoButton, Qt.KeyboardModifier.NoModifier,
                        Qt.ScrollPhase.NoScrollPhase, False)
    QApplication.sendEvent(viewport, event)
    QApplication.processEvents()
    assert bar.value() > 0
    after = [w.cell(1, j).mapTo(viewport, QPoint(0, 0)).y() for j in range(3)]
    assert [b - x for b, x in zip(before, after, strict=True)] == [bar.value()] * 3
    w.scroll_area.ensureWidgetVisible(w.cell(2, 0))
    QApplication.processEvents()
    lowest = [w.cell(2, j).mapTo(viewport, QPoint(0, 0)).y() for j in range(3)]
    assert len(set(lowest)) == 1
    assert -w.cell(2, 0).height() < lowest[0] < viewport.height(), "turn 3 is in view"


def test_make_active_moves_the_tip_through_the_handler(
    qtbot: QtBot, demo: tuple[Store, int],
) -> None:
    store, conv = demo
    first, second = regenerated_answers(store, conv)
    assert store.conversation(conv).tip_id != first
    w = open_window(qtbot, store, conv, [first, second])
    # whoever writes the branch tells the window once it is written (the main window does
    # so off its main thread)
    w.branchChosen.connect(lambda c, mid: (store.branch(c, mid), w.mark_active()))
    assert w.headers[1].active and not w.headers[0].active
    assert not w.headers[0].make_active_button.isHidden()
    with qtbot.waitSignal(w.branchChosen) as blocker:
        qtbot.mouseClick(w.headers[0].make_active_button, Qt.MouseButton.LeftButton)
    assert blocker.args == [conv, branch_target(store, first)]
    assert store.conversation(conv).tip_id == first
    assert w.headers[0].active and not w.headers[1].active
    assert not w.headers[0].make_active_button.isEnabled()
    assert w.headers[1].make_active_button.isEnabled()


def test_fork_copies_the_column_path_into_a_new_conversation(
    qtbot: QtBot, demo: tuple[Store, int],
) -> None:
    store, conv = demo
    columns = edited_prompts(store, conv)
    w = open_window(qtbot, store, conv, columns)
    w.ask_fork_title = lambda suggested: "the original prompt"  # type: ignore[method-assign]
    before = {c.id for c in store.conversations()}
    with qtbot.waitSignal(w.forked) as blocker:
        qtbot.mouseClick(w.headers[0].fork_button, Qt.MouseButton.LeftButton)
    [new] = {c.id for c in store.conversations()} - before
    assert blocker.args == [new]
    leaf = w.comparison.columns[0].leaf_id if w.comparison else -1
    made = store.conversation(new)
    assert made.title == "the original prompt" and made.forked_from_conversation_id == conv
    assert _shape(store.path(new)) == _shape(store.path(conv, leaf))
    assert not {m.id for m in store.path(new)} & {m.id for m in store.path(conv, leaf)}


def test_export_writes_a_file_that_imports_again(
    qtbot: QtBot, demo: tuple[Store, int], tmp_path: Path,
) -> None:
    store, conv = demo
    first, second = regenerated_answers(store, conv)
    w = open_window(qtbot, store, conv, [first, second])
    dest = tmp_path / "branch.jsonl"
    asked: list[str] = []

    def answer(title: str, suggested: str, filters: str) -> tuple[Path, str]:
        asked.append(filters)
        return dest, "native"

    w.ask_save_path = answer  # type: ignore[method-assign]
    qtbot.mouseClick(w.headers[1].export_button, Qt.MouseButton.LeftButton)
    assert asked and "native" in asked[0] and dest.is_file()
    assert str(dest) in w.status.text()
    with Store(tmp_path / "again.db") as other:
        report = import_paths(other, [dest])
        assert report.errors == [] and len(report.conversations) == 1
        back = other.path(report.conversations[0].conversation_id)
        assert _shape(back) == _shape(store.path(conv, second))


def test_esc_closes(qtbot: QtBot, demo: tuple[Store, int]) -> None:
    store, conv = demo
    w = open_window(qtbot, store, conv, regenerated_answers(store, conv))
    assert w.isVisible()
    qtbot.keyClick(w.headers[0].fork_button, Qt.Key.Key_Escape)
    assert not w.isVisible()


def test_picker_prechecks_the_clicked_and_the_active_and_takes_the_count_picked(
    qtbot: QtBot, tmp_path: Path,
) -> None:
    with Store(tmp_path / "many.db") as store:
        conv = store.create_conversation("many answers")
        [prompt, *_] = store.append_turn(conv, [_user("name a colour"), _answer("red")])
        for colour in ("green", "blue", "amber", "teal", "plum", "sand"):
            store.append_turn(conv, [_answer(f"dark {colour}")], parent_id=prompt)
        answers = store.children(prompt)
        store.branch(conv, answers[0])
        w = CompareWindow(store, conv, answers, clicked=answers[1])
        qtbot.addWidget(w)
        w.show()
        assert w.picker is not None and w.picker.isVisible()
        shown = [c.chosen_id for c in w.comparison.columns]  # type: ignore[union-attr]
        assert answers[0] in shown and answers[1] in shown, "the active and the clicked"
        assert shown == [answers[0], answers[1], answers[5], answers[6]]
        assert w.comparison is not None and w.comparison.base == 0
        w.picker.set_checked([answers[0]])
        assert not w.picker.button.isEnabled()
        w.picker.set_checked([answers[0], answers[2], answers[3]])
        qtbot.mouseClick(w.picker.button, Qt.MouseButton.LeftButton)
        assert [c.chosen_id for c in w.comparison.columns] == [  # type: ignore[union-attr]
            answers[0], answers[2], answers[3]]
        assert len(w.headers) == 3 and len(w.cells[0]) == 3
        grid = w.body.layout()
        assert grid is not None and grid.columnCount() == 3, "no empty fourth column"
        assert all(h.isVisible() for h in w.headers)
        assert lit(w.cell(0, 1)) == ["dark", "blue"] and struck(w.cell(0, 1)) == ["red"]


def test_messages_of_another_conversation_are_explained(
    qtbot: QtBot, demo: tuple[Store, int],
) -> None:
    store, conv = demo
    [fork] = [c.id for c in store.conversations() if c.forked_from_conversation_id == conv]
    first, _ = regenerated_answers(store, conv)
    w = open_window(qtbot, store, conv, [first, db_id(store.path(fork)[-1].id)])
    assert "Cannot compare" in w.status.text() and "conversation" in w.status.text()
    assert w.headers == [] and w.comparison is None


def test_screenshot_of_the_demo(
    qtbot: QtBot, demo: tuple[Store, int], screenshot_dir: Path
) -> None:
    store, conv = demo
    w = open_window(qtbot, store, conv, edited_prompts(store, conv))
    shot = screenshot_dir / "compare.png"
    assert w.grab().save(str(shot))
    image = QImage(str(shot))
    assert (image.width(), image.height()) == (1200, 700)
    marked = QColor(w.colors.changed).rgb()
    assert w.comparison is not None
    cell = w.cell(0, 1 - w.comparison.base)
    origin = cell.mapTo(w, QPoint(0, 0))
    hits = sum(image.pixel(x, y) == marked for x in range(origin.x(), origin.x() + cell.width())
               for y in range(origin.y(), origin.y() + cell.height()))
    assert hits > 100, "the changed words show their highlight in the screenshot"


def _user(text: str) -> Message:
    return Message(id=None, parent_id=None, role="user", parts=[Part("text", text)])


def _answer(text: str) -> Message:
    return Message(id=None, parent_id=None, role="assistant", parts=[Part("text", text)],
                   model="test-model", usage=Usage(output_tokens=7))


def _shape(path: list[Message]) -> list[tuple[str, str]]:
    return [(m.role, m.text) for m in path]
