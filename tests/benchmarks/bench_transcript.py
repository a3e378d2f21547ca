"""The transcript of a 5,000-message path: the tip's neighbourhood on screen, scrolling, cards.

Headless (``QT_QPA_PLATFORM=offscreen``). The path is read on workers (V2), so
"on screen" is measured from the call that loads the path, on a view that is
already shown (as when a person picks a conversation in the list), to the
repaint after the tip's card holds its message; the event loop runs meanwhile.
Scroll steps and the jump are measured on a settled view, each followed by a
synchronous repaint; content read after the step is not part of it.
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
from explorer.ui.transcript.cards import MessageCard
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


def _settle(view: TranscriptView, timeout: float = 120) -> None:
    end = time.monotonic() + timeout
    while view.is_loading:
        if time.monotonic() > end:
            raise TimeoutError("the transcript did not settle")
        QApplication.processEvents()
        time.sleep(0.0005)


def _tip_on_screen(store: Store, conv: int) -> tuple[float, float, int, float, float]:
    """Milliseconds to the tip's rows being in, to the tip's card showing its message, the
    cards built then, the process's CPU milliseconds to that point (what load distorts
    least) and milliseconds to the whole path's rows being in."""
    view = _view(store)
    tip = store.conversation(conv).tip_id
    assert tip is not None
    whole: list[float] = []
    view.loaded.connect(lambda _c: whole.append(time.perf_counter()))
    t0, c0 = time.perf_counter(), time.process_time()
    view.load_path(conv)
    view.scroll_to(tip)
    rows_in: float | None = None
    while not isinstance(view.card_for(tip) if view.has_message(tip) else None, MessageCard):
        QApplication.processEvents()
        if rows_in is None and view.has_message(tip):
            rows_in = time.perf_counter()
        time.sleep(0.0002)  # not spinning: the process's CPU is the view's and its workers'
        if time.perf_counter() - t0 > 120:
            raise TimeoutError("the tip never showed")
    view.repaint()
    shown = (time.perf_counter() - t0) * 1000
    cpu = (time.process_time() - c0) * 1000
    cards = len(view.live_cards())
    _settle(view)
    view.close()
    view.deleteLater()
    QApplication.processEvents()
    return (((rows_in or time.perf_counter()) - t0) * 1000, shown, cards, cpu,
            ((whole[0] if whole else time.perf_counter()) - t0) * 1000)


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
            samples = [_tip_on_screen(store, conv) for _ in range(REPEAT)]
            rows_in = statistics.median(s[0] for s in samples)
            shown = statistics.median(s[1] for s in samples)
            cpu = statistics.median(s[3] for s in samples)
            whole = statistics.median(s[4] for s in samples)
            view = _view(store)
            view.load_path(conv)
            _settle(view)
            step = _scroll_step(view)
            end = timed(lambda: _jump_to_end(view))
            _settle(view)
            cards = len(view.live_cards())
            view.close()
        finally:
            store.close()
    del app
    return [
        Result(AREA, f"the tip's rows in, {MESSAGES:,}-message path", rows_in, "ms"),
        Result(AREA, f"tip's neighbourhood on screen, {MESSAGES:,}-message path", shown, "ms",
               "< 150 ms", shown < 150),
        Result(AREA, "the same, CPU of the process", cpu, "ms", "< 150 ms", cpu < 150),
        Result(AREA, f"the whole path's rows in (skeleton), {MESSAGES:,}-message path", whole,
               "ms"),
        Result(AREA, "cards built when the tip shows", samples[0][2], "cards", "< 200",
               samples[0][2] < 200),
        Result(AREA, "scroll one page (build + repaint)", step, "ms", "≤ 16 ms", step <= 16),
        Result(AREA, "jump to the end (build + repaint)", end, "ms"),
        Result(AREA, "cards alive after scrolling", cards, "cards", "< 200", cards < 200),
    ]
