"""L8 in the compaction preview: the loss report tab lists what the CLI lists, computed with the
plan off the main thread, and Pin moves a string to the fact sheet of the next plan."""

from __future__ import annotations

import threading
from typing import Any

import pytest
from PySide6.QtCore import Qt
from pytestqt.qtbot import QtBot

from explorer.app.context import loss
from explorer.store import Store
from explorer.ui.preview import worker
from explorer.ui.preview.window import CompactionPreview


def settle(qtbot: QtBot, window: CompactionPreview, **options: Any) -> None:
    window.set_options(**options)
    qtbot.waitUntil(lambda: not window.busy, timeout=20_000)


def test_L8_the_loss_tab_lists_what_the_command_line_lists(
    qtbot: QtBot, preview: CompactionPreview, demo: tuple[Store, int],
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    threads: list[bool] = []
    real = loss.report_for_plan

    def spy(*args: Any, **kw: Any) -> Any:
        threads.append(threading.current_thread() is threading.main_thread())
        return real(*args, **kw)

    monkeypatch.setattr(worker.loss, "report_for_plan", spy)
    settle(qtbot, preview, rung="snapshot", tier="dense")
    assert threads and not any(threads)  # computed off the main thread, with the plan
    pane = preview.panes.loss
    store, cid = demo
    expected = loss.report(store, cid, preview.target(), "snapshot").report
    rows = [pane.table.topLevelItem(i) for i in range(pane.table.topLevelItemCount())]
    assert [(r.text(0), r.data(0, Qt.ItemDataRole.UserRole)) for r in rows] == [
        (e.item.kind, e.item.text) for e in expected.entries]
    for row, e in zip(rows, expected.entries, strict=True):
        assert row.text(2) == (f"{e.page} · {e.line}" if e.page is not None else "")
    assert pane.counts.text().splitlines()[1:1 + len(expected.count_lines())] == \
        expected.count_lines()


def test_L8_pin_in_the_preview_moves_the_string_to_the_fact_sheet(
    qtbot: QtBot, preview: CompactionPreview, demo: tuple[Store, int],
) -> None:
    settle(qtbot, preview, rung="snapshot", tier="dense")
    pane = preview.panes.loss
    rows = [pane.table.topLevelItem(i) for i in range(pane.table.topLevelItemCount())]
    row = next(r for r in rows if r.text(1).startswith(("page", "nowhere")))
    text = row.data(0, Qt.ItemDataRole.UserRole)
    row.setSelected(True)
    assert pane.pin_button.isEnabled()
    pane.pin_button.click()
    qtbot.waitUntil(lambda: not preview.busy, timeout=20_000)
    store, cid = demo
    assert store.pins(cid) == [text]
    assert preview.result is not None and preview.result.plan.facts is not None
    assert f"pinned: {text}" in preview.panes.facts_text.toPlainText()
    moved = next(e for e in pane.report.entries if e.item.text == text)  # type: ignore[union-attr]
    assert (moved.destination, moved.pinned) == ("fact_sheet", True)
