"""The compaction preview window: the pages it shows are the bytes the request carries (L3–L5)."""

from __future__ import annotations

import base64
import hashlib
import io
import itertools
import json
import sys
import threading
from pathlib import Path
from typing import Any

import numpy as np
import pytest
from PIL import Image
from PySide6.QtCore import QPoint, QRect, Qt
from PySide6.QtGui import QColor, QImage
from PySide6.QtWidgets import QApplication, QTableWidget, QWidget
from pytestqt.qtbot import QtBot

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "core" / "providers"))
from provider_server import ProviderServer, ServerState

from explorer.app.calls import conversation_ops as ops
from explorer.app.context import compacting
from explorer.compaction.page_geometry import page_geometry
from explorer.compaction.snapshot_render import render_snapshot
from explorer.compaction.target import DEFAULT_WINDOWS, ProviderKind
from explorer.providers import make_provider
from explorer.store import Store
from explorer.tree.model import text_message
from explorer.ui.preview.page_viewer import FIT, OPENING_ZOOM, PageViewer, fit_scale
from explorer.ui.preview.plan_view import plan_sentence
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


# -- reading the pages, the plan in words, Esc -----------------------------------------------
def colours(image: QImage) -> set[int]:
    """Every RGB colour in ``image`` (alpha dropped)."""
    converted = image.convertToFormat(QImage.Format.Format_RGB32)
    pixels = np.frombuffer(bytes(converted.constBits()), dtype=np.uint32) & 0xFFFFFF
    return set(np.unique(pixels).tolist())


def page_image(width: int, height: int) -> QImage:
    """A page-like picture: black glyph pixels on white, one grey, nothing in between."""
    image = QImage(width, height, QImage.Format.Format_RGB32)
    image.fill(QColor("white"))
    for x in range(0, width, 3):
        image.setPixelColor(x, x % height, QColor("black"))
        image.setPixelColor(x, (x + 1) % height, QColor(128, 128, 128))
    return image


@pytest.mark.parametrize("zoom", [1, 2, 3])
def test_each_zoom_shows_the_page_at_exactly_its_size_with_only_the_pages_colours(
    qtbot: QtBot, preview: CompactionPreview, zoom: int,
) -> None:
    settle(qtbot, preview, rung="snapshot", tier="dense")
    assert preview.result is not None
    page = preview.result.plan.pages[0]
    viewer = preview.panes.pages
    viewer.set_zoom(zoom)
    size = viewer.canvas.displayed_size()
    assert (size.width(), size.height()) == (page.width * zoom, page.height * zoom)
    grab = viewer.canvas.grab().toImage()
    assert (grab.width(), grab.height()) == (page.width * zoom, page.height * zoom)
    original = colours(QImage.fromData(page.png))
    assert colours(grab) <= original  # nearest neighbour: no colour made up between pixels
    assert viewer.zoom_box.currentText() == f"{zoom * 100} %"


def test_a_page_opens_at_200_percent_where_its_glyphs_read(
    qtbot: QtBot,
) -> None:
    assert OPENING_ZOOM == 2  # wider than the view: scrolled, never shrunk unreadable
    viewer = PageViewer()
    qtbot.addWidget(viewer)
    viewer.resize(700, 400)
    viewer.show()
    assert viewer.zoom_box.currentData() == viewer.zoom == 1  # no page yet: 100 %, said so
    room = viewer.scroll_area.viewport().width()
    viewer.set_pages([b"", b""], [page_image(room // 3, 40), page_image(room // 3, 40)])
    assert viewer.zoom == 2 and viewer.canvas.scale == 2.0
    assert viewer.zoom_box.currentText() == "200 %"
    viewer.set_pages([b""], [page_image(room * 2, 40)])
    assert viewer.zoom == 2 and viewer.zoom_box.currentText() == "200 %"
    assert viewer.canvas.displayed_size().width() == 4 * room


def test_a_chosen_zoom_applies_to_every_page_and_every_plan_shown_after(qtbot: QtBot) -> None:
    viewer = PageViewer()
    qtbot.addWidget(viewer)
    viewer.resize(700, 400)
    viewer.show()
    room = viewer.scroll_area.viewport().width()
    viewer.set_pages([b"", b""], [page_image(room // 3, 40), page_image(room // 4, 30)])
    viewer.zoom_box.setCurrentIndex(viewer.zoom_box.findData(3))  # as a person picks it
    viewer.next_button.click()
    assert viewer.canvas.displayed_size().width() == 3 * (room // 4)
    viewer.set_pages([b""], [page_image(room * 2, 40)])  # a new plan, a page wider than the view
    assert viewer.zoom == 3 and viewer.canvas.displayed_size().width() == 6 * room


def test_zoom_keys_step_in_and_out_and_ctrl_0_is_100_percent(
    qtbot: QtBot, preview: CompactionPreview,
) -> None:
    settle(qtbot, preview, rung="snapshot", tier="dense")
    viewer = preview.panes.pages
    preview.activateWindow()
    qtbot.waitUntil(lambda: QApplication.activeWindow() is preview)
    ctrl = Qt.KeyboardModifier.ControlModifier
    seen = []
    viewer.set_zoom(FIT)
    for key in (Qt.Key.Key_Equal, Qt.Key.Key_Equal, Qt.Key.Key_Equal, Qt.Key.Key_Minus,
                Qt.Key.Key_0, Qt.Key.Key_Minus):
        qtbot.keyClick(preview.panes.head_text, key, ctrl)  # the focus elsewhere in the window
        seen.append(viewer.zoom)
    assert viewer.canvas.scale < 1  # the demo's page is wider than the view
    assert seen == [1, 2, 3, 2, 1, FIT]


def test_plan_sentence_counts_what_is_kept_and_dropped() -> None:
    record: dict[str, Any] = {
        "rungs": ["elide", "images", "snapshot"],
        "split": {"head_messages": 3, "middle_messages": 214, "tail_messages": 12,
                  "middle_tokens": 61_200},
        "tokens": {"before": 90_000, "after": 20_000, "pages": 6_100, "facts": 0},
        "pages": [{}, {}, {}, {}],
        "reports": {"elide": {"count": 38}, "images": {"count": 2}},
    }
    assert plan_sentence(record, 229) == (
        "Keeps the first 3 and last 12 messages verbatim; 214 messages (61,200 tokens) become "
        "4 snapshot pages (6,100 tokens); 38 old tool results are shortened; 2 images dropped; "
        "no summary.")
    record.update(rungs=["elide", "images", "snapshot", "summary"], pages=[],
                  split={"head_messages": 0, "middle_messages": 1, "tail_messages": 1,
                         "middle_tokens": 900},
                  reports={"elide": {"count": 1}, "images": {"count": 0}})
    record["tokens"]["summary"] = 150
    assert plan_sentence(record, 2) == (
        "Keeps the last message verbatim; 1 message (900 tokens) become a summary (150 tokens); "
        "1 old tool result is shortened; no image is dropped.")
    shaken = {"rungs": ["elide"], "tokens": {"before": 5000, "after": 4000},
              "reports": {"elide": {"count": 4}}}
    assert plan_sentence(shaken, 30) == (
        "Keeps all 30 messages; 4 old tool results are shortened; no image is dropped; "
        "no summary.")


def test_the_plan_is_said_in_words_with_the_plans_own_numbers(
    qtbot: QtBot, preview: CompactionPreview,
) -> None:
    settle(qtbot, preview, rung="snapshot", tier="dense")
    assert preview.result is not None
    plan = preview.result.plan
    split, parts = plan.split, plan.part_tokens()
    assert split is not None and len(plan.pages) == 1 and parts["facts"]
    elided, dropped = plan.reports["elide"].count, plan.reports["images"].count
    assert elided == 1 and dropped == 0  # the demo's one old tool result, no old image
    assert preview.panes.summary.text() == (
        f"Keeps the first {len(split.head)} and last {len(split.tail)} messages verbatim; "
        f"{len(split.middle)} messages ({split.middle_tokens:,} tokens) become 1 snapshot page "
        f"({parts['pages']:,} tokens) and a fact sheet ({parts['facts']:,} tokens); "
        f"1 old tool result is shortened; no image is dropped; no summary.")
    summary = preview.panes.summary
    assert summary.isVisible() and summary.y() < preview.panes.y()  # over the plan, full width
    settle(qtbot, preview, rung="auto")
    assert preview.panes.summary.text() == (
        f"Nothing is dropped: all {len(preview.result.plan.path)} messages "
        f"({preview.result.plan.tokens_before:,} tokens) are sent verbatim.")


def test_esc_closes_the_preview(qtbot: QtBot, preview: CompactionPreview) -> None:
    preview.activateWindow()
    qtbot.waitUntil(lambda: QApplication.activeWindow() is preview)
    qtbot.keyClick(preview.panes.tail_text, Qt.Key.Key_Escape)
    assert not preview.isVisible()
    assert not preview.runner.busy


def test_V3_the_plan_side_stacks_its_tables_without_overlap_at_1024x700(
    qtbot: QtBot, preview: CompactionPreview,
) -> None:
    settle(qtbot, preview, rung="snapshot", tier="dense")
    preview.resize(1024, 700)
    qtbot.wait(50)
    panes = preview.panes
    side = panes.headline.parentWidget()
    assert side is not None

    def rect(widget: QWidget) -> QRect:
        return QRect(widget.mapTo(side, QPoint(0, 0)), widget.size())

    stacked = [panes.headline, panes.rung_table, panes.cost_table, panes.cost_bar, panes.notes]
    for upper, lower in itertools.pairwise(stacked):
        assert rect(upper).bottom() < rect(lower).top(), (upper, lower)  # the total row shows
    assert all(rect(w).height() >= w.minimumSizeHint().height() for w in stacked)
