"""The conversation list of a whole archive: grouped by project folder or source, filtered
on title, project and source, kept through refreshes, and built only where shown."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest
from PySide6.QtCore import QPoint, Qt, QTimer
from pytestqt.modeltest import ModelTester
from pytestqt.qtbot import QtBot

from explorer.store import Store
from explorer.ui.window.conversation_groups import NO_FOLDER, GroupRow
from explorer.ui.window.conversations import HEADER_ROLE, ID_ROLE, ConversationList
from explorer.ui.window.format_badges import format_name

# title, project folder (the session's cwd), source, minutes ago it last changed
SESSIONS = [
    ("fix the invoice rounding", "/work/billing", "claude_code", 1),
    ("deploy notes", "/work/infra", "codex", 2),
    ("refund webhook", "/work/billing", "claude_code", 3),
    ("terraform plan", "/work/infra", "claude_code", 4),
    ("tax table update", "/work/billing", "codex", 5),
    ("travel ideas", None, "chatgpt", 6),
]
NOW = 1_800_000_000.0


def add(store: Store, title: str, folder: str | None, source: str, minutes_ago: float,
        source_path: str | None = None) -> int:
    meta = {"cwd": folder} if folder else {}
    cid = store.create_conversation(title, source_format=source, meta=meta,
                                    source_path=source_path)
    store.transact(lambda conn: conn.execute(
        "UPDATE conversations SET updated_at = ? WHERE id = ?", (NOW - 60 * minutes_ago, cid)))
    return cid


@pytest.fixture
def store(tmp_path: Path) -> Iterator[Store]:
    s = Store(tmp_path / "archive.db")
    for title, folder, source, ago in SESSIONS:
        add(s, title, folder, source, ago)
    yield s
    s.close()


@pytest.fixture
def widget(qtbot: QtBot, store: Store) -> Iterator[ConversationList]:
    w = ConversationList(store)
    qtbot.addWidget(w)
    w.resize(360, 700)
    w.show()
    yield w
    w.shutdown()
    assert [t for t in w.findChildren(QTimer) if t.isActive()] == []


def shown(w: ConversationList) -> list[tuple[str, object]]:
    """The list as a person reads it: ("group", (label, count)) or ("row", title)."""
    out: list[tuple[str, object]] = []
    for r in range(w.proxy.rowCount()):
        index = w.proxy.index(r, 0)
        group = index.data(HEADER_ROLE)
        if isinstance(group, GroupRow):
            out.append(("group", (group.label, group.count)))
        else:
            out.append(("row", index.data()))
    return out


def titles(w: ConversationList) -> list[str]:
    return [str(v) for kind, v in shown(w) if kind == "row"]


def by_title(store: Store, title: str) -> int:
    return next(c.id for c in store.conversations() if c.title == title)


def test_grouping_by_project_puts_each_conversation_under_its_folder_newest_first(
        widget: ConversationList) -> None:
    widget.set_grouping("project")
    assert shown(widget) == [
        ("group", ("billing", 3)),
        ("row", "fix the invoice rounding"), ("row", "refund webhook"),
        ("row", "tax table update"),
        ("group", ("infra", 2)), ("row", "deploy notes"), ("row", "terraform plan"),
        ("group", (NO_FOLDER, 1)), ("row", "travel ideas"),
    ]
    header = widget.proxy.group_at(0)
    assert header is not None and header.detail.endswith("/work/billing")


def test_grouping_by_source_counts_each_source_and_a_new_newest_moves_its_group_up(
        widget: ConversationList, store: Store) -> None:
    widget.set_grouping("source")
    assert [v for kind, v in shown(widget) if kind == "group"] == [
        (format_name("claude_code"), 3), (format_name("codex"), 2), (format_name("chatgpt"), 1)]
    add(store, "holiday budget", None, "chatgpt", 0.5)
    widget.reload()
    assert shown(widget)[:3] == [("group", (format_name("chatgpt"), 2)), ("row", "holiday budget"),
                                 ("row", "travel ideas")]
    widget.set_grouping("none")
    assert titles(widget)[:2] == ["holiday budget", "fix the invoice rounding"]


def test_the_folder_is_the_sessions_cwd_else_the_folder_its_file_was_read_from(
        tmp_path: Path, qtbot: QtBot) -> None:
    with Store(tmp_path / "paths.db") as s:
        add(s, "exported chat", None, "chatgpt", 1, source_path="/exports/2024/chats.json")
        add(s, "a session", "/src/app/", "claude_code", 2,
            source_path="/home/me/.claude/projects/-src-app/x.jsonl")
        s.transact(lambda conn: conn.execute(
            "UPDATE conversations SET meta = 'not json' WHERE title = 'exported chat'"))
        w = ConversationList(s)
        qtbot.addWidget(w)
        w.set_grouping("project")
        assert [v for kind, v in shown(w) if kind == "group"] == [("2024", 1), ("app", 1)]
        assert [g.key for g in w.proxy.shown.groups] == ["/exports/2024", "/src/app"]
        w.shutdown()


def test_shutting_a_group_hides_its_rows_and_keeps_its_header_and_count(
        qtbot: QtBot, widget: ConversationList) -> None:
    widget.set_grouping("project")
    widget.set_group_shut("/work/billing", True)
    assert shown(widget)[:2] == [("group", ("billing", 3)), ("group", ("infra", 2))]
    assert "refund webhook" not in titles(widget)
    # a click on the header opens it again, without choosing anything
    chosen: list[int] = []
    widget.conversationChosen.connect(chosen.append)
    rect = widget.view.visualRect(widget.proxy.index(0, 0))
    qtbot.mouseClick(widget.view.viewport(), Qt.MouseButton.LeftButton, pos=rect.center())
    assert "refund webhook" in titles(widget) and chosen == []
    # the keyboard: Left shuts the header in focus, Right opens it
    widget.view.setFocus()
    widget.view.setCurrentIndex(widget.proxy.index(0, 0))
    qtbot.keyClick(widget.view, Qt.Key.Key_Left)
    assert widget.proxy.group_at(0) is not None and widget.proxy.group_at(0).collapsed  # type: ignore[union-attr]
    assert shown(widget)[1] == ("group", ("infra", 2))
    qtbot.keyClick(widget.view, Qt.Key.Key_Right)
    assert shown(widget)[1] == ("row", "fix the invoice rounding")
    # a shut group stays shut across another grouping and back
    widget.set_group_shut("/work/infra", True)
    widget.set_grouping("source")
    widget.set_grouping("project")
    assert "deploy notes" not in titles(widget) and "refund webhook" in titles(widget)


@pytest.mark.parametrize("text, expected", [
    ("ROUNDING", {"fix the invoice rounding"}),  # the title, any case
    ("billing", {"fix the invoice rounding", "refund webhook", "tax table update"}),  # folder
    ("codex", {"deploy notes", "tax table update"}),  # the source's name
    ("chatgpt", {"travel ideas"}),
])
def test_the_filter_matches_title_project_folder_and_source(
        widget: ConversationList, text: str, expected: set[str]) -> None:
    widget.search.setText(text)
    assert set(titles(widget)) == expected
    widget.set_grouping("project")
    assert set(titles(widget)) == expected
    groups = [v for kind, v in shown(widget) if kind == "group"]
    assert sum(int(count) for _label, count in groups) == len(expected)  # type: ignore[call-overload]


def test_a_filtered_group_counts_its_matches_of_its_whole(widget: ConversationList) -> None:
    widget.set_grouping("project")
    widget.search.setText("tax")  # one of billing's three
    billing = widget.proxy.group_at(0)
    assert billing is not None and (billing.count, billing.total) == (1, 3)
    widget.search.setText("nothing like this")
    assert widget.proxy.rowCount() == 0 and widget.empty_label.isVisible()


def test_the_chosen_conversation_survives_reload_regrouping_and_a_background_refresh(
        qtbot: QtBot, widget: ConversationList, store: Store) -> None:
    refund = by_title(store, "refund webhook")
    chosen: list[int] = []
    widget.conversationChosen.connect(chosen.append)
    widget.select(refund)
    for grouping in ("project", "source", "none", "project"):
        widget.set_grouping(grouping)
        assert widget.current() == refund
        selected = widget.view.selectionModel().selectedIndexes()
        assert [i.data(ID_ROLE) for i in selected] == [refund]
    widget.set_group_shut("/work/billing", True)
    assert widget.view.selectionModel().selectedIndexes() == []  # hidden, still chosen
    assert widget.current() == refund
    new = add(store, "brand new session", "/work/billing", "claude_code", 0.1)
    widget.reload()
    assert widget.current() == refund and widget.model.row_of(new) is not None
    assert widget.select(refund)  # opens its group again
    assert "refund webhook" in titles(widget)
    newer = add(store, "another one", "/work/web", "codex", 0.05)
    widget.refresh()  # read off the main thread, as the window does after a sync
    assert widget.refreshing
    qtbot.waitUntil(lambda: not widget.refreshing, timeout=5000)
    assert widget.model.row_of(newer) is not None and widget.current() == refund
    assert [i.data(ID_ROLE) for i in widget.view.selectionModel().selectedIndexes()] == [refund]
    assert chosen == []  # none of it was a choice of the person's


def test_a_refresh_asked_for_while_one_reads_still_shows_what_came_after(
        qtbot: QtBot, widget: ConversationList, store: Store) -> None:
    widget.refresh()
    late = add(store, "written during the read", "/work/web", "codex", 0.01)
    widget.refresh()  # while the first reads (or just after): one more read, never none
    qtbot.waitUntil(lambda: not widget.refreshing and widget.model.row_of(late) is not None,
                    timeout=5000)
    assert titles(widget)[0] == "written during the read"


def test_a_conversation_chosen_before_its_refresh_arrives_is_selected_when_it_does(
        qtbot: QtBot, widget: ConversationList, store: Store) -> None:
    new = add(store, "made by an operation", "/work/billing", "claude_code", 0.01)
    widget.refresh()
    assert not widget.select(new)  # not read yet
    qtbot.waitUntil(lambda: not widget.refreshing, timeout=5000)
    assert widget.current() == new


def test_the_list_holds_every_row_but_builds_text_only_for_rows_on_screen(
        tmp_path: Path, qtbot: QtBot, monkeypatch: pytest.MonkeyPatch) -> None:
    """Lazy filling: 1,500 conversations are all counted and reachable, but a row's second
    line is made only when the view paints it."""
    with Store(tmp_path / "many.db") as s:
        s.transact(lambda conn: conn.executemany(
            "INSERT INTO conversations(title, source_format, created_at, updated_at, meta) "
            "VALUES (?, 'claude_code', ?, ?, ?)",
            [(f"session {n}", NOW + n, NOW + n, f'{{"cwd": "/p/{n % 7}"}}')
             for n in range(1500)]))
        w = ConversationList(s)
        qtbot.addWidget(w)
        built: list[int] = []
        subtitle = w.model.subtitle

        def counted(row: int, grouping: str = "none") -> str:
            built.append(row)
            return subtitle(row, grouping)

        monkeypatch.setattr(w.model, "subtitle", counted)
        w.resize(360, 600)
        w.show()
        qtbot.waitExposed(w)
        assert not w.grab().isNull()  # every row on screen painted
        assert w.model.rowCount() == 1500 and w.proxy.rowCount() == 1500
        assert "1,500 conversations" in w.search.placeholderText()
        assert 0 < len(set(built)) < 40
        w.set_grouping("project")
        assert sum(g.total for g in w.proxy.shown.groups) == 1500
        assert len(w.proxy.shown.groups) == 7 and w.proxy.rowCount() == 1507
        last = w.model.id_at(w.model.rowCount() - 1)  # the oldest: the end of a group
        assert w.select(last)
        index = w.view.currentIndex()
        assert index.data(ID_ROLE) == last and w.view.viewport().rect().intersects(
            w.view.visualRect(index))
        assert len(set(built)) < 120
        w.search.setText("session 1")  # hides the chosen one: the matches show from the top
        assert w.view.indexAt(QPoint(4, 4)).row() == 0
        assert len(set(built)) < 200
        w.shutdown()


def test_the_list_passes_the_model_tester_grouped(
        widget: ConversationList, qtmodeltester: ModelTester) -> None:
    widget.set_grouping("project")
    widget.set_group_shut("/work/infra", True)
    widget.search.setText("e")
    qtmodeltester.check(widget.proxy)


def test_the_window_remembers_the_grouping(qtbot: QtBot, tmp_path: Path, store: Store) -> None:
    from PySide6.QtCore import QSettings

    from explorer.ui.window.main_window import MainWindow

    settings = QSettings(str(tmp_path / "w.ini"), QSettings.Format.IniFormat)
    window = MainWindow(store, settings)
    qtbot.addWidget(window)
    window.conversations.set_grouping("source")
    window.close()
    again = MainWindow(store, settings)
    qtbot.addWidget(again)
    assert again.conversations.grouping() == "source"
    assert again.conversations.group_combo.currentText() == "By source"
    again.close()
