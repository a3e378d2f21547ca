"""SPEC X1 and R1 in the window: "Context at this point" shows the request the node sent,
part by part with its pages, secrets redacted; "Compare context" sets two nodes' contexts
side by side with what was folded into pages."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest
from helpers import assistant, user
from PySide6.QtCore import QPoint, QSettings
from pytestqt.qtbot import QtBot

from explorer.compaction.target import Target
from explorer.store import Store
from explorer.tree.secrets import SecretRedactor
from explorer.ui.preview import context_actions
from explorer.ui.preview.context_view import ContextDialog, ContextDiffDialog
from explorer.ui.window.main_window import MainWindow

SECRET = "sk-proj-Zq8vN3xW7yT2uK9pL4mR6sJ1hG5fD0aBcE3iO8nQ"


@pytest.fixture
def store(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[tuple[Store, int]]:
    monkeypatch.setattr(context_actions, "build_target", lambda redact=True: Target.default(
        "anthropic", window=6_000, output_reserve=500,
        redactor=SecretRedactor() if redact else None))
    s = Store(tmp_path / "w.db")
    conv = s.create_conversation("long session")
    for n in range(30):
        extra = f" (deploy key {SECRET})" if n == 4 else ""
        s.append_turn(conv, [user(f"question {n}: src/app/mod_{n}.py{extra} " + "word " * 220),
                             assistant(f"answer {n}: " + "text " * 220)])
    yield s, conv
    s.close()


def open_window(qtbot: QtBot, tmp_path: Path, store: Store, conv: int) -> MainWindow:
    w = MainWindow(store, QSettings(str(tmp_path / "ui.ini"), QSettings.Format.IniFormat))
    qtbot.addWidget(w)
    w.resize(1200, 800)
    with qtbot.waitSignal(w.graph.loaded, timeout=10_000):
        w.show()
        w.open_conversation(conv)
    w.graph.set_mode("messages")
    qtbot.waitUntil(lambda: not w.graph.is_loading, timeout=10_000)
    return w


def test_X1_R1_context_at_this_point_shows_the_parts_pages_and_redactions(
    qtbot: QtBot, tmp_path: Path, store: tuple[Store, int], screenshot_dir: Path,
) -> None:
    s, conv = store
    w = open_window(qtbot, tmp_path, s, conv)
    tip = s.conversation(conv).tip_id or 0
    w.show_message_menu(tip, QPoint(10, 10))
    assert w.last_menu is not None
    action = w.last_menu.action("context_at")
    assert action.isEnabled()
    action.trigger()
    dialog = w.context_actions.dialogs[-1]
    assert isinstance(dialog, ContextDialog)
    qtbot.waitUntil(lambda: dialog.context is not None, timeout=30_000)
    ctx = dialog.context
    assert ctx is not None and ctx.plan.pages
    panel = dialog.panel
    assert panel.table.rowCount() == len(ctx.parts())
    page_row = next(i for i, p in enumerate(panel.parts) if p.kind == "page")
    panel.table.selectRow(page_row)
    assert panel.detail.currentWidget() is panel.pages
    assert panel.pages.page_bytes() == [p.png for p in ctx.plan.pages]
    shown = "\n".join(p.text for p in panel.parts)
    assert SECRET not in shown
    assert "redacted 1 secret(s) (1 openai-key)" in panel.notes.text()
    assert f"{ctx.tokens:,} tokens" in panel.header.text()
    dialog.grab().save(str(screenshot_dir / "context-at-node.png"))
    dialog.close()


def test_X1_compare_context_of_a_marked_node_and_another(
    qtbot: QtBot, tmp_path: Path, store: tuple[Store, int], screenshot_dir: Path,
) -> None:
    s, conv = store
    w = open_window(qtbot, tmp_path, s, conv)
    path = s.path(conv)
    early, tip = int(path[7].id), int(path[-1].id)
    w.show_message_menu(tip, QPoint(10, 10))
    assert w.last_menu is not None and not w.last_menu.action("compare_context").isEnabled()
    w.compares.toggle_mark(early)
    w.show_message_menu(tip, QPoint(10, 10))
    action = w.last_menu.action("compare_context")
    assert action.isEnabled()
    action.trigger()
    dialog = w.context_actions.dialogs[-1]
    assert isinstance(dialog, ContextDiffDialog)
    qtbot.waitUntil(lambda: dialog.diff is not None, timeout=60_000)
    d = dialog.diff
    assert d is not None and (d.a.at, d.b.at) == (early, tip)
    changes = {r.change for r in dialog.rows}
    assert {"folded into pages", "entered"} <= changes
    assert dialog.pages_b.count == len(d.b.plan.pages) > 0 and dialog.pages_a.count == 0
    row = next(i for i, r in enumerate(dialog.rows) if r.change == "folded into pages")
    dialog.table.selectRow(row)
    assert dialog.text_a.toPlainText().startswith("[verbatim")
    assert dialog.text_b.toPlainText().startswith("[paged")
    assert w.compares.marked == []  # the mark was used
    dialog.grab().save(str(screenshot_dir / "context-compare.png"))
    dialog.close()


def test_R1_the_window_export_and_the_compaction_preview_list_the_redactions(
    qtbot: QtBot, tmp_path: Path, store: tuple[Store, int],
) -> None:
    s, conv = store
    w = open_window(qtbot, tmp_path, s, conv)
    dest = tmp_path / "shared.md"
    w.questions.ask_save_path = lambda *_: dest  # type: ignore[method-assign]
    w.actions_.exports.export("markdown", s.conversation(conv).tip_id or 0)
    w.ops.settle()  # written off the main thread
    text = dest.read_text(encoding="utf-8")
    assert SECRET not in text and "[redacted: openai-key]" in text
    assert "redacted 1 secret(s) (1 openai-key)" in w.statusBar().currentMessage()
    native = tmp_path / "backup.jsonl"
    w.questions.ask_save_path = lambda *_: native  # type: ignore[method-assign]
    w.actions_.exports.export("native", s.conversation(conv).tip_id or 0)
    w.ops.settle()  # written off the main thread
    assert SECRET in native.read_text(encoding="utf-8")  # the backup stays exact
    w.actions_.dialogs.compaction_preview()
    preview = w.actions_.dialogs.preview
    assert preview is not None
    preview.set_options(provider="anthropic", window=6000)
    qtbot.waitUntil(lambda: not preview.busy, timeout=30_000)
    assert preview.result is not None
    assert "redacted 1 secret(s) (1 openai-key)" in preview.panes.notes.text()
    panes = preview.panes
    assert SECRET not in (panes.facts_text.toPlainText() + panes.head_text.toPlainText()
                          + panes.tail_text.toPlainText())
    preview.close()


def test_R1_context_at_a_node_follows_the_windows_redaction_switch(
    qtbot: QtBot, tmp_path: Path, store: tuple[Store, int],
) -> None:
    s, conv = store
    w = open_window(qtbot, tmp_path, s, conv)
    w.redaction.set_on(False)
    w.context_actions.context_at(s.conversation(conv).tip_id or 0)
    dialog = w.context_actions.dialogs[-1]
    assert isinstance(dialog, ContextDialog)
    qtbot.waitUntil(lambda: dialog.context is not None, timeout=30_000)
    ctx = dialog.context
    assert ctx is not None and ctx.target.redactor is None
    assert "redacted" not in dialog.panel.notes.text()
    dialog.close()
