"""The context bar (``/context``): what fills the window, by part; a warning before the wall."""

from __future__ import annotations

import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from PySide6.QtCore import QSettings, Qt, QThreadPool
from PySide6.QtGui import QColor, QImage
from pytestqt.qtbot import QtBot

from explorer.app.calls import conversation_ops as ops
from explorer.app.context import compacting, prompt_cache
from explorer.compaction.context import PART_NAMES
from explorer.compaction.ladder import DEFAULT_OUTPUT_RESERVE
from explorer.compaction.target import Target
from explorer.providers import make_provider
from explorer.store import Store
from explorer.tree.model import text_message
from explorer.ui.preview import context_bar, context_panel
from explorer.ui.preview.context_bar import (
    BAR_PARTS,
    LABEL_WIDTH,
    WARNING_COLOUR,
    ContextBar,
    threshold_tokens,
)
from explorer.ui.preview.context_panel import ContextPanel


@pytest.fixture
def panel(qtbot: QtBot, demo: tuple[Store, int]) -> Iterator[ContextPanel]:
    store, _ = demo
    p = ContextPanel(store)
    qtbot.addWidget(p)
    p.resize(720, 220)
    p.show()
    yield p
    p.close()
    assert p.runner.pool.activeThreadCount() == 0
    assert QThreadPool.globalInstance().activeThreadCount() == 0


def usage_of(estimated: int, window: int | None = 200_000, measured: int | None = None,
             reserve: int = 0) -> dict[str, Any]:
    """A usage dict shaped like ``ContextUsage.to_dict()`` with the tokens spread over parts."""
    parts = dict.fromkeys(PART_NAMES, 0)
    parts["user"], parts["tool_results"] = estimated // 2, estimated - estimated // 2
    used = measured if measured is not None else estimated
    return {"family": "anthropic", "window": window, "output_reserve": reserve, "parts": parts,
            "free": None if window is None else window - reserve - used,
            "estimated_total": estimated, "measured_total": measured, "measured_at": None,
            "factor": 1.0}


def test_every_part_shows_the_numbers_of_context_usage(
    qtbot: QtBot, panel: ContextPanel, demo: tuple[Store, int],
) -> None:
    store, cid = demo
    panel.show_conversation(cid, Target.default())
    qtbot.waitUntil(lambda: not panel.busy, timeout=10_000)
    expected = compacting.usage(store, cid, Target.default()).to_dict()
    assert panel.bar.usage == expected
    for name in PART_NAMES:
        assert panel.bar.legend[name].text() == f"{expected['parts'][name]:,}"
    assert panel.bar.legend["free"].text() == f"{expected['free']:,}"
    assert panel.bar.legend["measured"].text() == f"{expected['measured_total']:,}"
    assert set(BAR_PARTS) == {*PART_NAMES, "free"}
    assert f"estimated {expected['estimated_total']:,}" in panel.bar.summary.text()
    assert not panel.bar.warning


def test_the_bar_follows_the_tip(qtbot: QtBot, panel: ContextPanel,
                                 demo: tuple[Store, int]) -> None:
    store, cid = demo
    panel.show_conversation(cid, Target.default())
    qtbot.waitUntil(lambda: not panel.busy, timeout=10_000)
    before = panel.bar.legend["user"].text()
    tip = store.conversation(cid).tip_id
    store.append_turn(cid, [text_message(None, tip, "user", "more words " * 3000)])
    panel.show_conversation(cid, Target.default())
    qtbot.waitUntil(lambda: not panel.busy, timeout=10_000)
    expected = compacting.usage(store, cid, Target.default()).to_dict()
    assert panel.bar.legend["user"].text() == f"{expected['parts']['user']:,}" != before


def test_warning_state_above_the_threshold(qtbot: QtBot) -> None:
    bar = ContextBar()
    qtbot.addWidget(bar)
    bar.resize(600, 160)
    bar.show()
    limit = int((200_000 - DEFAULT_OUTPUT_RESERVE) * 0.8)
    bar.set_usage(usage_of(limit), 0.8)
    assert not bar.warning and "Within the threshold" in bar.status.text()
    bar.set_usage(usage_of(limit + 1), 0.8)
    assert bar.warning
    assert "Compaction due" in bar.status.text()
    assert WARNING_COLOUR in bar.status.styleSheet()
    qtbot.wait(10)
    image = bar.bars.grab().toImage()
    border = [QColor(image.pixel(x, 2)).name() for x in range(LABEL_WIDTH - 1, LABEL_WIDTH + 2)]
    assert WARNING_COLOUR in border


def test_a_lower_threshold_warns_earlier_and_a_measured_overflow_warns_too(
    qtbot: QtBot,
) -> None:
    bar = ContextBar()
    qtbot.addWidget(bar)
    bar.set_usage(usage_of(100_000), 0.8)
    assert not bar.warning
    bar.set_usage(usage_of(100_000), 0.5)
    assert bar.warning
    bar.set_usage(usage_of(10_000, measured=190_000), 0.8)
    assert bar.warning and "190,000" in bar.status.text()


def test_threshold_uses_the_usage_reserve_or_the_ladder_default() -> None:
    assert threshold_tokens(usage_of(1, reserve=20_000), 0.8) == int(180_000 * 0.8)
    assert threshold_tokens(usage_of(1), 0.8) == int((200_000 - DEFAULT_OUTPUT_RESERVE) * 0.8)
    assert threshold_tokens(usage_of(1, window=None), 0.8) is None


def test_an_unknown_window_shows_no_threshold_and_no_free(qtbot: QtBot) -> None:
    bar = ContextBar()
    qtbot.addWidget(bar)
    bar.set_usage(usage_of(5_000_000, window=None))
    assert not bar.warning
    assert bar.legend["free"].text() == "–"
    assert "window unknown" in bar.summary.text()
    assert bar.legend["measured"].text() == "–"


def test_a_path_past_the_window_shows_no_negative_free_space(qtbot: QtBot) -> None:
    bar = ContextBar()
    qtbot.addWidget(bar)
    bar.set_usage(usage_of(4_000_000))
    assert bar.legend["free"].text() == "0"
    assert bar.shares["free"].text() == "full"
    assert bar.warning and "4,000,000" in bar.status.text()
    assert bar.shares["user"].text() == "1000.0 %"


def test_only_the_newest_request_is_shown(
    qtbot: QtBot, panel: ContextPanel, demo: tuple[Store, int],
) -> None:
    store, cid = demo
    shown: list[object] = []
    panel.runner.finished.connect(shown.append)
    panel.show_conversation(cid, Target.default("openai"))
    panel.show_conversation(cid, Target.default("gemini"))
    qtbot.waitUntil(lambda: not panel.busy, timeout=10_000)
    qtbot.wait(50)
    assert len(shown) == 1
    assert panel.bar.usage == compacting.usage(store, cid, Target.default("gemini")).to_dict()
    assert "gemini" in panel.title.full


def test_a_failure_is_shown_in_the_bar(qtbot: QtBot, panel: ContextPanel) -> None:
    panel.show_conversation(987_654, Target.default())
    qtbot.waitUntil(lambda: not panel.busy, timeout=10_000)
    assert panel.bar.status.text() != ""
    assert WARNING_COLOUR in panel.bar.status.styleSheet()


def test_screenshot_of_the_context_bar(
    qtbot: QtBot, panel: ContextPanel, demo: tuple[Store, int], screenshot_dir: Path,
) -> None:
    _, cid = demo
    panel.show_conversation(cid, Target.default())
    qtbot.waitUntil(lambda: not panel.busy, timeout=10_000)
    qtbot.wait(50)
    out = screenshot_dir / "context.png"
    assert panel.grab().toImage().save(str(out))
    saved = QImage(str(out))
    assert (saved.width(), saved.height()) == (panel.width(), panel.height())


def test_V2_a_long_path_shows_its_figure_and_plans_the_cache_only_when_asked(
    qtbot: QtBot, panel: ContextPanel, demo: tuple[Store, int], monkeypatch: pytest.MonkeyPatch
) -> None:
    store, conv = demo
    monkeypatch.setattr(context_panel, "AUTO_MEASURE_LIMIT", 5)
    length = len(panel.figure.context_ids(conv))
    assert length > 5
    with qtbot.waitSignal(panel.runner.finished, timeout=10_000):
        panel.show_conversation(conv, Target.default())
    expected = compacting.usage(store, conv, Target.default()).to_dict()
    assert panel.bar.usage is not None  # the figure itself is shown at any length
    assert panel.bar.usage["estimated_total"] == expected["estimated_total"]
    assert panel.deferred == length and panel.bar.cache is None
    assert f"{length:,} messages" in panel.bar.cache_text.text()
    assert panel.measure_button.isVisible()
    costed = panel.figure.costed
    with qtbot.waitSignal(panel.runner.finished, timeout=10_000):
        panel.measure_button.click()
    assert panel.deferred is None and not panel.measure_button.isVisible()
    assert panel.bar.cache is not None and "last" in panel.bar.cache
    assert panel.figure.costed == costed  # asking again estimated no message twice
    assert panel.bar.usage["estimated_total"] == expected["estimated_total"]


def test_the_bar_shows_the_prompt_cache_outlook_of_the_next_request(
    qtbot: QtBot, panel: ContextPanel, demo: tuple[Store, int],
) -> None:
    """After an answer from a caching stand-in of the Anthropic API, the panel shows what the
    next request is expected to read from the cache, as the preview and the CLI count it."""
    sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "core" / "providers"))
    from provider_server import ProviderServer, ServerState

    store, cid = demo
    target = Target.default(window=100_000, output_reserve=256)
    state = ServerState()
    state.prompt_cache = {}
    server = ProviderServer(state).start()
    try:
        provider = make_provider("anthropic", model=target.model, api_key=None,
                                 base_url=server.url, max_tokens=target.output_reserve)
        ops.send(store, cid, "first question", provider, ops.RunOptions(target))
    finally:
        server.close()
    panel.show_conversation(cid, target)
    qtbot.waitUntil(lambda: not panel.busy, timeout=20_000)
    plan = compacting.plan(store, cid, target)
    outlook = prompt_cache.outlook(plan, target)
    assert outlook is not None and outlook.read > 0
    assert panel.bar.usage is not None and context_panel.CACHE_KEY not in panel.bar.usage
    assert panel.bar.bars.cache == [("read", outlook.read), ("written", outlook.written),
                                    ("uncached", outlook.uncached)]
    text = panel.bar.cache_text.text()
    assert f"{outlook.read:,} tokens expected from the cache" in text
    assert f"last answer read {state.hits[0].cache_read:,}" in text
    assert f"wrote {state.hits[0].cache_write:,}" in text
    qtbot.wait(10)
    image = panel.bar.bars.grab().toImage()
    y = 2 * (context_bar.ROW_HEIGHT + 4) + context_bar.ROW_HEIGHT // 2
    assert QColor(image.pixel(LABEL_WIDTH + 2, y)).name() == context_bar.CACHE_COLOURS["read"]


def test_a_provider_without_an_outlook_still_shows_what_the_last_answer_cached(
    qtbot: QtBot,
) -> None:
    bar = ContextBar()
    qtbot.addWidget(bar)
    bar.set_usage(usage_of(1000), 0.8)
    bar.set_cache({"outlook": None, "last": {"message": 7, "read": 1200, "written": 0}})
    assert bar.bars.cache == []
    assert "no outlook" in bar.cache_text.text()
    assert "last answer read 1,200 from the cache" in bar.cache_text.text()


def test_V2_in_the_window_the_figure_waits_for_the_first_frame(
    qtbot: QtBot, demo: tuple[Store, int],
) -> None:
    """The estimator's import and the costing do not compete with the first frame."""
    store, cid = demo
    p = ContextPanel(store, after_first_paint=True)
    qtbot.addWidget(p)
    try:
        p.show_conversation(cid)
        p.show_conversation(cid)  # a newer request replaces the one waiting
        assert p.busy and p.runner.serial == 0, "nothing runs before the panel has painted"
        p.resize(720, 220)
        p.show()
        qtbot.waitUntil(lambda: p.runner.serial > 0, timeout=10_000)
        qtbot.waitUntil(lambda: not p.busy, timeout=30_000)
        assert p.runner.serial == 1, "only the newest request ran"
        assert p.bar.usage["estimated_total"] > 0
        assert "Context · " in p.title.full
    finally:
        p.close()


def test_V2_the_figure_waits_while_the_window_is_still_loading(
    qtbot: QtBot, demo: tuple[Store, int],
) -> None:
    """A worker costing the figure would take the interpreter's turns from the loads' frames."""
    store, cid = demo
    loading = [True]
    p = ContextPanel(store)
    p.gate.wait_for(lambda: loading[0])
    qtbot.addWidget(p)
    try:
        p.show_conversation(cid)
        qtbot.wait(300)  # several polls
        assert p.busy and p.runner.serial == 0, "nothing runs while the views load"
        loading[0] = False
        qtbot.waitUntil(lambda: p.runner.serial == 1, timeout=10_000)
        qtbot.waitUntil(lambda: not p.busy, timeout=30_000)
        assert p.bar.usage["estimated_total"] > 0
    finally:
        p.close()


def test_the_panel_folds_its_details_and_remembers_the_choice(
        qtbot: QtBot, demo: tuple[Store, int], tmp_path: Path) -> None:
    store, _ = demo
    settings = QSettings(str(tmp_path / "s.ini"), QSettings.Format.IniFormat)
    first = ContextPanel(store, settings=settings)
    qtbot.addWidget(first)
    first.show()
    folded_height = first.sizeHint().height()
    assert not first.bar.details.isVisible()  # a window's panel starts folded
    assert first.bar.bars.isVisible() and first.bar.status.isVisible()
    qtbot.mouseClick(first.details_button, Qt.MouseButton.LeftButton)
    assert first.bar.details.isVisible() and first.bar.cache_text.isVisible()
    assert first.sizeHint().height() > folded_height
    first.close()
    again = ContextPanel(store, settings=settings)
    qtbot.addWidget(again)
    again.show()
    assert again.bar.details.isVisible() and again.details_button.isChecked()
    again.close()
