"""The compaction preview window: the pages it shows are the bytes the request carries (L3–L5)."""

from __future__ import annotations

import base64
import hashlib
import io
import json
import sys
import threading
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from PIL import Image
from PySide6.QtCore import QThreadPool
from PySide6.QtGui import QColor, QImage
from PySide6.QtWidgets import QApplication, QTableWidget
from pytestqt.qtbot import QtBot

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "core" / "providers"))
from provider_server import ProviderServer, ServerState

from explorer.app.calls import conversation_ops as ops
from explorer.app.context import compacting
from explorer.app.importing.demo import load_demo
from explorer.compaction.page_geometry import page_geometry
from explorer.compaction.snapshot_render import render_snapshot
from explorer.compaction.target import DEFAULT_WINDOWS, ProviderKind
from explorer.providers import make_provider
from explorer.store import Store
from explorer.tree.model import text_message
from explorer.ui.preview.page_viewer import FIT, PageViewer, fit_scale
from explorer.ui.preview.window import CompactionPreview
from explorer.ui.preview.worker import Cancelled, LatestRunner, Ticket

INTRO = "The earlier part of this conversation follows as"


def sha(data: bytes) -> str:
    return hashlib.sha256(data).hexdigest()


def snapshot_images(body: dict[str, Any]) -> list[bytes]:
    """The PNG bytes of the image blocks beside the snapshot intro, in request order."""
    found: list[bytes] = []
    for message in body["messages"]:
        content = message.get("content")
        if not isinstance(content, list):
            continue
        texts = [b.get("text", "") for b in content if b.get("type") == "text"]
        if not any(t.startswith(INTRO) for t in texts):
            continue
        for block in content:
            if block.get("type") == "image":
                found.append(base64.b64decode(block["source"]["data"]))
            elif block.get("type") == "image_url":
                url = block["image_url"]["url"]
                assert url.startswith("data:image/png;base64,")
                found.append(base64.b64decode(url.split(",", 1)[1]))
    return found


@pytest.fixture
def demo(tmp_path: Path) -> Iterator[tuple[Store, int]]:
    store = Store(tmp_path / "d.db")
    yield store, load_demo(store)
    store.close()


@pytest.fixture
def preview(qtbot: QtBot, demo: tuple[Store, int]) -> Iterator[CompactionPreview]:
    store, cid = demo
    window = CompactionPreview(store, cid)
    qtbot.addWidget(window)
    window.show()
    qtbot.waitUntil(lambda: not window.busy, timeout=20_000)
    yield window
    window.close()
    assert window.runner.pool.activeThreadCount() == 0
    assert QThreadPool.globalInstance().activeThreadCount() == 0


def settle(qtbot: QtBot, window: CompactionPreview, **options: Any) -> None:
    window.set_options(**options)
    qtbot.waitUntil(lambda: not window.busy, timeout=20_000)
    qtbot.wait(20)  # let the layouts follow the new content


def rgb_bytes(image: QImage) -> bytes:
    converted = image.convertToFormat(QImage.Format.Format_RGB32)  # kept alive while copied
    return bytes(converted.constBits())


def screen_pixel(image: QImage, x: int, y: int) -> tuple[int, int, int]:
    colour = QColor(image.pixel(x, y))
    return (colour.red(), colour.green(), colour.blue())


def png_pixel(png: bytes, x: int, y: int) -> tuple[int, int, int]:
    r, g, b = Image.open(io.BytesIO(png)).convert("RGB").split()
    return (int(r.getpixel((x, y))), int(g.getpixel((x, y))),  # type: ignore[arg-type]
            int(b.getpixel((x, y))))  # type: ignore[arg-type]


def dark_pixels(png: bytes, limit: int = 5) -> list[tuple[int, int]]:
    img = Image.open(io.BytesIO(png)).convert("L")
    w, h = img.size
    return [(x, y) for y in range(h) for x in range(w) if img.getpixel((x, y)) == 0][:limit]


def cell_text(table: QTableWidget, row: int, column: int) -> str:
    item = table.item(row, column)
    assert item is not None
    return item.text()


@pytest.mark.parametrize("kind", ["anthropic", "openai"])
def test_X1_pages_shown_and_applied_are_byte_for_byte_what_send_posts(
    qtbot: QtBot, preview: CompactionPreview, demo: tuple[Store, int], kind: str,
) -> None:
    """The preview's pages, once applied, are the images the next send POSTs (loopback)."""
    store, cid = demo
    settle(qtbot, preview, provider=kind, rung="snapshot", tier="dense")
    shown = preview.panes.pages.page_bytes()
    assert preview.panes.pages.count == len(shown) >= 1
    assert preview.result is not None
    target = preview.target()
    assert preview.result.target == target
    on_screen = preview.panes.pages.canvas.pixmap().toImage()
    assert rgb_bytes(on_screen) == rgb_bytes(QImage.fromData(shown[0]))
    body = compacting.request_body(preview.result.plan, target, [])
    assert preview.apply() is not None
    server = ProviderServer(ServerState()).start()
    try:
        provider = make_provider(kind, model=target.model, api_key=None,
                                 base_url=server.url + ("" if kind == "anthropic" else "/v1"),
                                 max_tokens=target.output_reserve)
        ops.send(store, cid, "and now?", provider, ops.RunOptions(target))
        (hit,) = server.state.hits
    finally:
        server.close()
    assert hit.status == 200 and hit.body is not None
    posted = snapshot_images(hit.body)
    assert [sha(b) for b in posted] == [sha(b) for b in shown]
    assert hit.body["messages"][:-1] == body["messages"]


def test_save_pages_writes_the_shown_pngs_and_the_request(
    qtbot: QtBot, preview: CompactionPreview, tmp_path: Path,
) -> None:
    settle(qtbot, preview, rung="snapshot")
    folder = tmp_path / "out"
    preview.ask_folder = lambda: folder  # type: ignore[method-assign]
    preview.save_button.click()
    pngs = sorted(folder.glob("page-*.png"))
    shown = preview.panes.pages.page_bytes()
    assert [sha(p.read_bytes()) for p in pngs] == [sha(b) for b in shown]
    body = json.loads((folder / "request.json").read_text(encoding="utf-8"))
    assert [sha(b) for b in snapshot_images(body)] == [sha(b) for b in shown]
    plan = json.loads((folder / "plan.json").read_text(encoding="utf-8"))
    assert [p["sha256"] for p in plan["pages"]] == [sha(b) for b in shown]
    assert "Wrote" in preview.status.text()


def test_save_pages_cancelled_writes_nothing(
    qtbot: QtBot, preview: CompactionPreview, tmp_path: Path,
) -> None:
    settle(qtbot, preview, rung="snapshot")
    preview.ask_folder = lambda: None  # type: ignore[method-assign]
    assert preview.save_pages() == []
    assert list(tmp_path.glob("**/page-*.png")) == []


def test_L5_page_is_pixel_exact_at_100_percent(qtbot: QtBot, preview: CompactionPreview) -> None:
    settle(qtbot, preview, rung="snapshot", tier="dense")
    assert preview.result is not None
    page = preview.result.plan.pages[0]
    viewer = preview.panes.pages
    viewer.set_zoom(1)
    pixmap = viewer.canvas.pixmap()
    assert (pixmap.width(), pixmap.height()) == (page.width, page.height)
    assert (viewer.canvas.width(), viewer.canvas.height()) == (page.width, page.height)
    grab = viewer.canvas.grab().toImage()
    assert (grab.width(), grab.height()) == (page.width, page.height)
    samples = [*dark_pixels(page.png), (0, 0), (page.width - 1, page.height - 1)]
    assert len(samples) > 2
    for x, y in samples:
        assert screen_pixel(grab, x, y) == png_pixel(page.png, x, y)


@pytest.mark.parametrize("zoom", [2, 3, 4])
def test_integer_zoom_makes_each_page_pixel_an_exact_square(
    qtbot: QtBot, preview: CompactionPreview, zoom: int,
) -> None:
    settle(qtbot, preview, rung="snapshot")
    assert preview.result is not None
    page = preview.result.plan.pages[0]
    preview.panes.pages.set_zoom(zoom)
    canvas = preview.panes.pages.canvas
    assert (canvas.width(), canvas.height()) == (page.width * zoom, page.height * zoom)
    grab = canvas.grab().toImage()
    for x, y in dark_pixels(page.png, 3):
        expected = png_pixel(page.png, x, y)
        for dx in range(zoom):
            for dy in range(zoom):
                got = screen_pixel(grab, x * zoom + dx, y * zoom + dy)
                assert got == expected
    assert preview.panes.pages.zoom_box.currentData() == zoom


def test_fit_shrinks_a_wide_page_and_otherwise_picks_an_integer_step() -> None:
    assert fit_scale(1568, 784) == 0.5
    assert fit_scale(384, 1000) == 2.0
    assert fit_scale(384, 1600) == 4.0
    assert fit_scale(384, 383) == pytest.approx(383 / 384)
    assert fit_scale(0, 100) == 1.0


def test_fit_zoom_follows_the_view(qtbot: QtBot, preview: CompactionPreview) -> None:
    settle(qtbot, preview, rung="snapshot")
    preview.panes.pages.set_zoom(FIT)
    room = preview.panes.pages.scroll_area.viewport().width()
    width = preview.panes.pages.canvas.pixmap().width()
    assert preview.panes.pages.canvas.scale == pytest.approx(fit_scale(width, room))
    with pytest.raises(ValueError, match="zoom must be"):
        preview.panes.pages.set_zoom(5)


def test_changing_the_tier_renders_again_with_the_tiers_cells(
    qtbot: QtBot, preview: CompactionPreview, demo: tuple[Store, int],
) -> None:
    store, cid = demo
    settle(qtbot, preview, rung="snapshot", tier="dense")
    dense_bytes = preview.panes.pages.page_bytes()
    settle(qtbot, preview, tier="legible")
    assert preview.result is not None and preview.result.target.tier == "legible"
    shape = preview.target()
    cells = page_geometry(shape.kind.pricing, shape.model, "legible")
    expected = compacting.plan(store, cid, shape, "snapshot").pages
    for page in expected:  # each page hugs its rows at the legible tier's row pitch
        assert page.rows * cells.cell_height <= page.height < (
            page.rows * cells.cell_height + cells.height_quantum)
    assert [(p.width, p.height) for p in expected] == [
        (QImage.fromData(b).width(), QImage.fromData(b).height())
        for b in preview.panes.pages.page_bytes()]
    assert preview.panes.pages.page_bytes() != dense_bytes


def test_changing_the_provider_brings_its_window_and_page_size(
    qtbot: QtBot, preview: CompactionPreview,
) -> None:
    settle(qtbot, preview, rung="snapshot", provider="gemini")
    assert preview.window_box.value() == DEFAULT_WINDOWS[ProviderKind.GEMINI]
    assert preview.target().model == "gemini-2.5-flash"
    geometry = page_geometry("gemini", None, "dense")
    assert preview.panes.pages.canvas.pixmap().width() == geometry.page_width
    assert preview.result is not None and preview.result.target.kind == "gemini"


def test_L6_forcing_summary_without_a_key_shows_the_error_inline(
    qtbot: QtBot, preview: CompactionPreview,
) -> None:
    settle(qtbot, preview, rung="summary")
    assert preview.result is None
    assert preview.error is not None and "key" in preview.error
    assert preview.status.text() == preview.error
    assert "c62828" in preview.status.styleSheet()
    assert QApplication.activeModalWidget() is None
    assert not preview.apply_button.isEnabled()
    assert preview.panes.pages.count == 0
    settle(qtbot, preview, rung="snapshot")
    assert preview.error is None and preview.panes.pages.count >= 1


def test_apply_records_the_compaction_on_the_tip(
    qtbot: QtBot, preview: CompactionPreview, demo: tuple[Store, int],
) -> None:
    store, cid = demo
    settle(qtbot, preview, rung="snapshot")
    before = store.compactions(cid)
    with qtbot.waitSignal(preview.applied, timeout=5000) as signal:
        preview.apply_button.click()
    record_id = signal.args[0]
    after = store.compactions(cid)
    assert len(after) == len(before) + 1
    new = next(c for c in after if c["id"] == record_id)
    assert new["message_id"] == store.conversation(cid).tip_id
    assert new["kind"] == "snapshot"
    assert preview.result is not None
    shown = [sha(b) for b in preview.panes.pages.page_bytes()]
    assert [p["sha256"] for p in new["outputs"]["pages"]] == shown


def test_plan_and_costs_show_the_numbers_the_command_line_prints(
    qtbot: QtBot, preview: CompactionPreview, demo: tuple[Store, int],
) -> None:
    store, cid = demo
    settle(qtbot, preview, rung="snapshot")
    plan = compacting.plan(store, cid, preview.target(), "snapshot")
    tokens = plan.to_record()["tokens"]
    shown = preview.panes.cost_table.tokens_shown()
    assert shown["verbatim start"] == tokens["head"]
    assert shown["snapshot pages"] == tokens["pages"]
    assert shown["fact sheet"] == tokens["facts"]
    assert shown["verbatim end"] == tokens["tail"]
    assert shown["total"] == tokens["after"] == plan.tokens
    table = preview.panes.rung_table
    rungs = {cell_text(table, r, 0): cell_text(table, r, 2) for r in range(table.rowCount())}
    assert rungs["snapshots"] == f"{plan.savings['snapshot']:,}"
    assert rungs["elision"] == f"{plan.savings['elide']:,}"
    assert f"{tokens['before']:,} → {tokens['after']:,}" in preview.panes.headline.text()
    assert plan.split is not None
    assert preview.panes.head_text.toPlainText().startswith("## system")
    assert str(len(plan.split.tail)) in preview.panes.tail_box.title()
    assert plan.facts is not None and preview.panes.facts_text.toPlainText() == plan.facts.text
    price = compacting.price_lines(plan, preview.target())[0].strip()
    assert price.startswith("page price:") and price in preview.panes.notes.text()


def test_auto_on_a_small_conversation_needs_no_compaction(
    qtbot: QtBot, preview: CompactionPreview,
) -> None:
    settle(qtbot, preview, rung="auto")
    assert preview.result is not None and preview.result.plan.rungs == ()
    assert "whole path is sent verbatim" in preview.panes.head_text.toPlainText()
    assert preview.panes.pages.count == 0 and preview.panes.pages.page_label.text() == "no pages"


def test_a_burst_of_changes_shows_only_the_last_plan(
    qtbot: QtBot, preview: CompactionPreview,
) -> None:
    finished: list[object] = []
    preview.runner.finished.connect(finished.append)
    for tier, rung in (("legible", "elide"), ("dense", "images"), ("legible", "snapshot")):
        preview.set_options(tier=tier, rung=rung)
        preview.replan()
    qtbot.waitUntil(lambda: not preview.busy, timeout=20_000)
    qtbot.wait(50)
    assert len(finished) == 1
    assert preview.result is not None
    assert (preview.result.target.tier, preview.result.rung) == ("legible", "snapshot")


def test_page_viewer_pages_through_i_of_n(qtbot: QtBot) -> None:
    text = " ".join(f"word{i}" for i in range(40_000))
    pages = render_snapshot([text_message(1, None, "user", text)],
                            page_geometry("gemini", None, "dense")).pages
    assert len(pages) >= 3
    viewer = PageViewer()
    qtbot.addWidget(viewer)
    viewer.set_pages([p.png for p in pages])
    assert viewer.page_label.text().startswith(f"page 1 of {len(pages)}")
    assert not viewer.prev_button.isEnabled()
    viewer.next_button.click()
    assert viewer.index == 1 and viewer.current_png() == pages[1].png
    assert viewer.page_label.text().startswith(f"page 2 of {len(pages)}")
    viewer.show_page(len(pages) + 5)
    assert viewer.index == len(pages) - 1 and not viewer.next_button.isEnabled()
    with pytest.raises(ValueError, match="one decoded image"):
        viewer.set_pages([pages[0].png], [])


def test_runner_drops_superseded_results_and_waits_on_shutdown(qtbot: QtBot) -> None:
    runner = LatestRunner()
    release = threading.Event()
    seen: list[object] = []
    runner.finished.connect(seen.append)

    def slow(ticket: Ticket) -> str:
        release.wait(5)
        ticket.step("after the wait")  # superseded: raises Cancelled
        return "slow"

    runner.submit(slow)
    runner.submit(lambda t: "fast")
    qtbot.waitUntil(lambda: not runner.busy, timeout=5000)
    release.set()
    runner.wait()
    qtbot.wait(30)
    assert seen == ["fast"]
    runner.shutdown()
    assert runner.pool.activeThreadCount() == 0
    with pytest.raises(RuntimeError, match="shut down"):
        runner.submit(lambda t: None)


def test_runner_reports_the_newest_failure(qtbot: QtBot) -> None:
    runner = LatestRunner()
    errors: list[object] = []
    runner.failed.connect(errors.append)

    def broken(ticket: Ticket) -> None:
        raise KeyError("boom")

    with qtbot.waitSignal(runner.failed, timeout=5000):
        runner.submit(broken)
    assert len(errors) == 1 and isinstance(errors[0], KeyError)
    runner.shutdown()


def test_ticket_step_raises_once_cancelled() -> None:
    stages: list[str] = []
    ticket = Ticket(1, lambda _s, stage: stages.append(stage))
    ticket.step("one")
    ticket.cancel()
    with pytest.raises(Cancelled):
        ticket.step("two")
    assert stages == ["one"]


def test_closing_leaves_no_thread_running(qtbot: QtBot, demo: tuple[Store, int]) -> None:
    store, cid = demo
    window = CompactionPreview(store, cid)
    qtbot.addWidget(window)
    window.set_options(rung="snapshot", tier="legible")
    window.replan()
    window.close()  # while planning
    assert window.runner.pool.activeThreadCount() == 0
    assert not window.runner.busy
    with pytest.raises(RuntimeError):
        window.replan()


def test_screenshot_of_the_preview(
    qtbot: QtBot, preview: CompactionPreview, screenshot_dir: Path
) -> None:
    settle(qtbot, preview, rung="snapshot", tier="dense")
    preview.resize(1280, 860)
    qtbot.wait(50)
    out = screenshot_dir / "preview.png"
    image = preview.grab().toImage()
    assert image.save(str(out))
    saved = QImage(str(out))
    assert (saved.width(), saved.height()) == (preview.width(), preview.height())


def test_apply_after_the_tip_moved_plans_again_instead_of_recording(
    qtbot: QtBot, preview: CompactionPreview, demo: tuple[Store, int],
) -> None:
    store, cid = demo
    settle(qtbot, preview, rung="snapshot")
    tip = store.conversation(cid).tip_id
    store.append_turn(cid, [text_message(None, tip, "user", "one more question")])
    before = len(store.compactions(cid))
    assert preview.apply() is None
    assert "tip moved" in preview.status.text()
    assert len(store.compactions(cid)) == before
    qtbot.waitUntil(lambda: not preview.busy, timeout=20_000)
    assert preview.apply() is not None
    assert store.compactions(cid)[-1]["message_id"] == store.conversation(cid).tip_id
