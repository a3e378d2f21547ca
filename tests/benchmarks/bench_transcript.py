"""The transcript of a 5,000-message path: time to first paint, scrolling, cards built.

Headless (``QT_QPA_PLATFORM=offscreen``). First paint is measured from the call
that loads the path to the end of a synchronous repaint of the view, on a view
that is already shown, as when a person picks a conversation in the list.
"""

from __future__ import annotations

import os
import statistics
import tempfile
import time
from pathlib import Path

from PySide6.QtWidgets import QApplication

from explorer.store import Store
from explorer.ui.transcript import TranscriptView
from tests.benchmarks.harness import Result, timed
from tests.helpers import tool_turn

AREA = "transcript"
MESSAGES = 5000
REPEAT = 5


def _store(folder: Path) -> tuple[Store, int]:
    store = Store(folder / "bench.db")
    conv = store.create_conversation("long session")
    per_turn = MESSAGES // 4 // 5
    for k in range(5):
        batch = [m for n in range(per_turn) for m in tool_turn(k * per_turn + n, error=n % 40 == 0)]
        store.append_turn(conv, batch)
    return store, conv


def _view(store: Store) -> TranscriptView:
    view = TranscriptView(store)
    view.resize(1000, 800)
    view.show()
    QApplication.processEvents()
    return view


def _first_paint(store: Store, conv: int) -> tuple[float, int]:
    view = _view(store)
    t0 = time.perf_counter()
    view.load_path(conv)
    view.repaint()
    elapsed = (time.perf_counter() - t0) * 1000
    cards = len(view.live_cards())
    view.close()
    view.deleteLater()
    QApplication.processEvents()
    return elapsed, cards


def _scroll_step(view: TranscriptView) -> float:
    bar = view.verticalScrollBar()

    def step() -> None:
        bar.setValue(bar.value() + bar.pageStep())
        view.repaint()

    return timed(step, repeat=40)


def _jump_to_end(view: TranscriptView) -> None:
    view.scroll_to_end()
    view.repaint()


def run() -> list[Result]:
    os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")
    app = QApplication.instance() or QApplication([])
    with tempfile.TemporaryDirectory() as tmp:
        store, conv = _store(Path(tmp))
        try:
            samples = [_first_paint(store, conv) for _ in range(REPEAT)]
            paint = statistics.median(s[0] for s in samples)
            view = _view(store)
            view.load_path(conv)
            step = _scroll_step(view)
            end = timed(lambda: _jump_to_end(view))
            cards = len(view.live_cards())
            view.close()
        finally:
            store.close()
    del app
    return [
        Result(AREA, f"first paint, {MESSAGES:,}-message path", paint, "ms", "< 200 ms",
               paint < 200),
        Result(AREA, "cards built at first paint", samples[0][1], "cards", "< 200",
               samples[0][1] < 200),
        Result(AREA, "scroll one page (build + repaint)", step, "ms", "≤ 16 ms", step <= 16),
        Result(AREA, "jump to the end (build + repaint)", end, "ms"),
        Result(AREA, "cards alive after scrolling", cards, "cards", "< 200", cards < 200),
    ]
