"""How long the window's main thread stops while an operation runs (O1): forking a
5,000-message path and deleting a 10,000-message branch, started as the menus start them.

A 5 ms timer on the main thread records the longest pause between its ticks from the click
until the operation's outcome is shown and the views are refreshed.
"""

from __future__ import annotations

import itertools
import os
import tempfile
import time
from collections.abc import Callable
from pathlib import Path

from tests.benchmarks.harness import Result

AREA = "operations"
TRUNK, SIDE = 10_000, 10_000


def _settle(app: object, window: object, seconds: float) -> None:
    """Until the window's views have loaded, and ``seconds`` more: the gap measured is the
    operation's, not the open's."""
    from PySide6.QtWidgets import QApplication

    from explorer.ui.window.main_window import MainWindow

    assert isinstance(app, QApplication) and isinstance(window, MainWindow)
    deadline = time.perf_counter() + 60
    while (window.graph.is_loading or window.transcript.is_loading) and (
            time.perf_counter() < deadline):
        app.processEvents()
    end = time.perf_counter() + seconds
    while time.perf_counter() < end:
        app.processEvents()


def _gap(app: object, start: Callable[[], None], done: Callable[[], bool]) -> tuple[float, float]:
    """The longest main-thread pause (ms) from the click until the outcome is told, and in
    the half second of refreshed views after it."""
    from PySide6.QtCore import QTimer
    from PySide6.QtWidgets import QApplication

    assert isinstance(app, QApplication)
    ticks: list[float] = []
    timer = QTimer()
    timer.setInterval(5)
    timer.timeout.connect(lambda: ticks.append(time.perf_counter()))
    timer.start()
    ticks.append(time.perf_counter())
    start()
    deadline = time.perf_counter() + 60
    while not done() and time.perf_counter() < deadline:
        app.processEvents()
    told = len(ticks)
    ticks.append(time.perf_counter())
    end = time.perf_counter() + 0.5
    while time.perf_counter() < end:
        app.processEvents()
    timer.stop()
    ticks.append(time.perf_counter())

    def longest(seq: list[float]) -> float:
        return max(b - a for a, b in itertools.pairwise(seq)) * 1000

    return longest(ticks[:told + 1]), longest(ticks[told:])


def run() -> list[Result]:
    os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")
    from PySide6.QtCore import QSettings
    from PySide6.QtWidgets import QApplication

    from explorer.formats.base import ImportedConversation
    from explorer.store import Store
    from explorer.ui.window.main_window import MainWindow
    from tests.benchmarks.bench_tending import _messages

    app = QApplication.instance() or QApplication([])
    results = []
    with tempfile.TemporaryDirectory() as d:
        store = Store(Path(d) / "bench.db")
        conv = store.import_conversation(ImportedConversation(
            "big", "bench", _messages(), source_id="big")).conversation_id
        path = store.path_ids(store.conversation(conv).tip_id or 0)
        side = next(c for c in store.children(path[100]) if c not in path)
        window = MainWindow(store, QSettings(str(Path(d) / "w.ini"), QSettings.Format.IniFormat))
        window.resize(1200, 800)
        window.show()
        window.open_conversation(conv)
        window.questions.ask_text = lambda *_a, **_k: "the fork"  # type: ignore[method-assign]
        _settle(app, window, 2.0)
        fork = _gap(app, lambda: window.actions_.branches.fork(path[4_999]),
                    lambda: not window.ops.busy)
        _settle(app, window, 2.0)
        delete = _gap(app, lambda: window.tend.delete(side), lambda: not window.ops.busy)
        window.close()
        window.tasks.shutdown()
        store.close()
    for name, (running, after) in (("fork a 5,000-message path", fork),
                                   ("delete a 10,000-message branch", delete)):
        results.append(Result(AREA, f"main-thread gap while it runs: {name}", running, "ms",
                              "≤ 50 ms", running <= 50))
        results.append(Result(AREA, f"main-thread gap as the views refresh: {name}", after,
                              "ms"))
    return results
