"""One start of ``convo`` on an archive, measured from inside; prints one JSON line.

    python -m tests.benchmarks.archive_list_child SPAWNED DB [WORD]

``convo`` starts through its own entry point (the store opened, the first conversation
guessed, the window built as a person's start does), with ``QApplication.exec``
replaced by the measurement: the first frame in which the conversation list shows rows,
the newest conversation opened (transcript and graph loaded), then WORD typed into the
filter a letter at a time and deleted again, the grouping and sort choices switched, and
the list read again as after a sync (how long until shown, and the longest the event
loop stood still meanwhile). ``SPAWNED`` is the parent's wall clock when it
started this process, so the start includes the interpreter and the imports.
"""

from __future__ import annotations

import json
import os
import resource
import statistics
import sys
import time
from collections.abc import Callable
from typing import Any

os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")

from PySide6.QtCore import QEvent, QObject, Qt, QTimer
from PySide6.QtTest import QTest
from PySide6.QtWidgets import QApplication, QWidget

SPAWNED = float(sys.argv[1]) if len(sys.argv) > 1 else time.time()
WORD = sys.argv[3] if len(sys.argv) > 3 else "billing"


class Painted(QObject):
    """The first paint of a widget that ``ready`` says shows what is wanted."""

    def __init__(self, ready: Callable[[], bool]) -> None:
        super().__init__()
        self.ready = ready
        self.at: float | None = None

    def eventFilter(self, watched: QObject, event: QEvent) -> bool:
        if event.type() == QEvent.Type.Paint and self.at is None and self.ready():
            self.at = time.time()
        return False


def rss_mb() -> float:
    with open("/proc/self/statm") as f:
        return int(f.read().split()[1]) * os.sysconf("SC_PAGE_SIZE") / 2**20


def wait_until(app: QApplication, ready: Callable[[], bool], timeout: float = 120) -> None:
    end = time.monotonic() + timeout
    while not ready():
        if time.monotonic() > end:
            raise TimeoutError("the window did not settle")
        app.processEvents()
        app.sendPostedEvents(None, QEvent.Type.DeferredDelete.value)
        time.sleep(0.001)


def step_ms(app: QApplication, view: QWidget, action: Callable[[], object]) -> float:
    """One action and the list's repaint that shows it, in milliseconds."""
    t0 = time.perf_counter()
    action()
    app.processEvents()
    view.repaint()
    return (time.perf_counter() - t0) * 1000


def refresh(app: QApplication, convs: Any) -> tuple[float, float]:
    """The list read again as the window does after a sync: milliseconds until it shows
    the new read, and the longest the event loop stood still meanwhile (a 5 ms timer)."""
    ticks = [time.perf_counter()]
    gaps: list[float] = []

    def tick() -> None:
        now = time.perf_counter()
        gaps.append((now - ticks[-1]) * 1000)
        ticks.append(now)

    timer = QTimer(interval=5)
    timer.timeout.connect(tick)
    timer.start()
    t0 = time.perf_counter()
    if hasattr(convs, "refresh"):
        convs.refresh()
        wait_until(app, lambda: not convs.refreshing)
    else:  # the list before it could read off the main thread
        convs.reload()
    app.processEvents()
    convs.view.viewport().repaint()
    took = (time.perf_counter() - t0) * 1000
    tick()
    timer.stop()
    return took, max(gaps, default=took)


def measure(*_args: object) -> int:
    """Stands in for ``QApplication.exec``."""
    app = QApplication.instance()
    assert isinstance(app, QApplication)
    window: Any = next(w for w in app.topLevelWidgets()
                       if isinstance(w, QWidget) and w.isVisible())
    convs = window.conversations
    viewport = convs.view.viewport()
    painted = Painted(lambda: convs.view.model().rowCount() > 0)
    viewport.installEventFilter(painted)
    wait_until(app, lambda: painted.at is not None)
    out: dict[str, Any] = {"list_shown_s": (painted.at or time.time()) - SPAWNED,
                           "rss_shown_mb": rss_mb(), "rows": convs.model.rowCount()}
    t0 = time.perf_counter()
    opening = window.first_open

    def settled() -> bool:
        return not (opening and opening.pending) and not window.transcript.is_loading \
            and not window.graph.is_loading

    wait_until(app, settled)
    out["newest_open_ms"] = (time.perf_counter() - t0) * 1000
    out["opened"] = window.conversation_id
    out["rss_opened_mb"] = rss_mb()
    convs.search.setFocus()
    typing = [step_ms(app, viewport, lambda ch=ch: QTest.keyClick(convs.search, ch))
              for ch in WORD]
    out["matches"] = convs.view.model().rowCount()
    typing += [step_ms(app, viewport, lambda: QTest.keyClick(convs.search, Qt.Key.Key_Backspace))
               for _ in WORD]
    out["keystroke_max_ms"] = max(typing)
    out["keystroke_median_ms"] = statistics.median(typing)
    out["keystrokes_ms"] = [round(t, 1) for t in typing]
    out["rss_typed_mb"] = rss_mb()
    if hasattr(convs, "set_grouping"):
        group = {key: step_ms(app, viewport, lambda key=key: convs.set_grouping(key))
                 for key in ("project", "source", "none")}
        out["group_max_ms"] = max(group.values())
        out["group_ms"] = group
        convs.set_grouping("project")  # the word typed again into the grouped list
        grouped = [step_ms(app, viewport, lambda ch=ch: QTest.keyClick(convs.search, ch))
                   for ch in WORD]
        grouped += [step_ms(app, viewport,
                            lambda: QTest.keyClick(convs.search, Qt.Key.Key_Backspace))
                    for _ in WORD]
        out["keystroke_grouped_max_ms"] = max(grouped)
        convs.set_grouping("none")
    sort = {key: step_ms(app, viewport, lambda key=key: convs.set_sort(key))
            for key in ("title", "size", "date")}
    out["sort_max_ms"] = max(sort.values())
    out["sort_ms"] = sort
    refreshes = [refresh(app, convs) for _ in range(3)]
    out["refresh_ms"] = min(r[0] for r in refreshes)
    out["refresh_stall_ms"] = max(r[1] for r in refreshes)
    out["rss_end_mb"] = rss_mb()
    out["peak_self_mb"] = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
    print(json.dumps(out))
    sys.stdout.flush()
    os._exit(0)


if __name__ == "__main__":
    QApplication.exec = measure  # type: ignore[method-assign,assignment]
    from explorer.cli.main import main

    main(["--db", sys.argv[2]])
