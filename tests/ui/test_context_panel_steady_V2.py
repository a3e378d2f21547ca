"""A figure arriving repaints the figure, not the window (V2: no stall while it shows).

The context panel sits above the transcript: if a new figure changed the panel's height,
the transcript below was resized and laid out again on the main thread; and the bars
were drawn afresh on every paint of the window over them.
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from PySide6.QtCore import QEvent, QObject, QSettings
from PySide6.QtGui import QColor
from PySide6.QtWidgets import QVBoxLayout, QWidget
from pytestqt.qtbot import QtBot

from explorer.app.importing.demo import load_demo
from explorer.compaction.target import Target
from explorer.store import Store
from explorer.ui.preview import context_panel
from explorer.ui.preview.context_bar import LABEL_WIDTH, ROW_HEIGHT, ContextBar
from explorer.ui.preview.context_panel import ContextPanel
from tests.ui.test_context_bar import usage_of


class Resizes(QObject):
    """Counts the resize and layout events a widget receives."""

    def __init__(self, watched: QWidget) -> None:
        super().__init__()
        self.resized = self.layouts = 0
        watched.installEventFilter(self)

    def eventFilter(self, watched: QObject, event: QEvent) -> bool:
        if event.type() == QEvent.Type.Resize:
            self.resized += 1
        elif event.type() == QEvent.Type.LayoutRequest:
            self.layouts += 1
        return False


@pytest.fixture
def column(qtbot: QtBot, tmp_path: Path) -> Iterator[tuple[ContextPanel, QWidget, int]]:
    """The window's right column in small: the panel above a stretching transcript."""
    store = Store(tmp_path / "d.db")
    conv = load_demo(store)
    host = QWidget()
    qtbot.addWidget(host)
    layout = QVBoxLayout(host)
    panel = ContextPanel(store, settings=QSettings(str(tmp_path / "s.ini"),
                                                   QSettings.Format.IniFormat))
    below = QWidget()
    layout.addWidget(panel)
    layout.addWidget(below, 1)
    host.resize(560, 760)
    host.show()
    qtbot.waitExposed(host)
    yield panel, below, conv
    host.close()
    panel.shutdown()
    store.close()


def _arrive(qtbot: QtBot, panel: ContextPanel, conv: int, **kw: Any) -> None:
    with qtbot.waitSignal(panel.runner.finished, timeout=20_000):
        panel.show_conversation(conv, Target.default(), **kw)
    qtbot.wait(50)  # the posted layout requests and paints run


@pytest.mark.parametrize("details", [False, True], ids=["folded", "details"])
def test_V2_a_figure_arriving_keeps_the_panels_height_and_the_transcripts_geometry(
    qtbot: QtBot, column: tuple[ContextPanel, QWidget, int], monkeypatch: pytest.MonkeyPatch,
    details: bool,
) -> None:
    panel, below, conv = column
    panel.details_button.setChecked(details)
    qtbot.wait(50)
    monkeypatch.setattr(context_panel, "AUTO_MEASURE_LIMIT", 5)  # the "plan when asked" case
    height, geometry = panel.height(), below.geometry()
    watch = Resizes(below)
    _arrive(qtbot, panel, conv)  # the first figure: every text goes from a dash to numbers
    assert panel.bar.usage is not None and panel.measure_button.isVisible()
    _arrive(qtbot, panel, conv)  # a refresh: the button goes and comes back
    with qtbot.waitSignal(panel.runner.finished, timeout=20_000):
        panel.measure_button.click()  # the cache's outlook replaces the long-path note
    qtbot.wait(50)
    assert panel.bar.cache is not None and not panel.measure_button.isVisible()
    assert panel.height() == height
    assert below.geometry() == geometry
    assert watch.resized == 0, "the transcript was resized, so laid out again"


def test_V2_a_figure_arriving_in_the_window_does_not_resize_the_transcript(
    qtbot: QtBot, window: Any, monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setattr(context_panel, "AUTO_MEASURE_LIMIT", 5)  # the long-path note comes
    panel: ContextPanel = window.context_panel
    panel.gate.wait_for(lambda: False)
    qtbot.waitUntil(lambda: panel.bar.usage is not None and not panel.busy, timeout=30_000)
    qtbot.wait(50)
    transcript = window.transcript
    geometry, watch = transcript.geometry(), Resizes(transcript)
    for _ in range(2):
        with qtbot.waitSignal(panel.runner.finished, timeout=20_000):
            panel.show_conversation(window.conversation_id)
        qtbot.wait(50)
    assert transcript.geometry() == geometry
    assert watch.resized == 0


def test_V2_the_bars_paint_from_their_cache_until_the_figure_or_size_changes(
    qtbot: QtBot,
) -> None:
    bar = ContextBar()
    qtbot.addWidget(bar)
    bar.resize(600, 200)
    bar.set_usage(usage_of(100_000), 0.8)
    bar.show()
    qtbot.waitExposed(bar)
    bars = bar.bars
    image = bars.grab().toImage()  # what the bars show: the estimate's first part
    drawn = bars.renders
    assert drawn >= 1
    for _ in range(3):
        bars.grab()
    assert bars.renders == drawn, "a repaint of an unchanged figure drew it again"
    y = ROW_HEIGHT // 2
    assert QColor(image.pixel(LABEL_WIDTH + 3, y)) != QColor(image.pixel(LABEL_WIDTH - 3, y))
    bar.set_usage(usage_of(150_000), 0.8)
    bars.grab()
    assert bars.renders == drawn + 1, "a new figure is drawn once"
    bars.grab()
    bar.resize(700, 200)
    bars.grab()
    assert bars.renders == drawn + 2, "a new width is drawn once"


def test_V2_the_panel_plans_the_prompt_cache_again_only_when_the_file_changed(
    qtbot: QtBot, column: tuple[ContextPanel, QWidget, int], monkeypatch: pytest.MonkeyPatch,
) -> None:
    from explorer.app.context import prompt_cache
    from tests.helpers import assistant, user

    panel, _below, conv = column
    plans: list[int] = []
    real = prompt_cache.figures

    def counted(context: Any, target: Target) -> dict[str, Any]:
        plans.append(len(context))
        return real(context, target)

    monkeypatch.setattr(prompt_cache, "figures", counted)
    _arrive(qtbot, panel, conv)
    first = panel.bar.cache
    _arrive(qtbot, panel, conv)
    assert len(plans) == 1 and panel.bar.cache == first  # the kept plan, shown again
    panel.store.append_turn(conv, [user("and now?"), assistant("now this")])
    _arrive(qtbot, panel, conv)
    assert len(plans) == 2 and plans[1] == plans[0] + 2
