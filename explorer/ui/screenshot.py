"""``convo --screenshot``: the window once it has settled, as a PNG.

Settled means what a person sees once nothing moves any more: the conversation's graph
laid out, its transcript's rows in with the content on screen, and the context figure
costed (or an error shown in its place), then no view starting to read again for
``SETTLE_MS``. There is no deadline a big archive can miss (only ``LIMIT_MS``, against
a view that never finishes).

No person scrolls or zooms the window a screenshot is taken of, so its loads are not
made to take turns for the sake of frames (as a person's open does, in the open's
lane and behind the context panel's gate): the graph, the transcript and the figure
read side by side, which on two cores lets one's SQLite run while another's Python
does, and the picture still waits for all of them.
"""

from __future__ import annotations

import sys
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

from PySide6.QtCore import QEventLoop, QSettings, QTimer
from PySide6.QtWidgets import QApplication

from explorer.app.graph import turn_process
from explorer.app.sharing import safe_write
from explorer.store import Store
from explorer.ui.background.lane import OPEN_LANE
from explorer.ui.read_only import mark_read_only
from explorer.ui.window.main_window import MainWindow

SETTLE_MS = 400
LIMIT_MS = 15 * 60_000
"""Only against a view that never finishes: a big archive on a slow machine takes minutes."""


def take_screenshot(app: QApplication, store: Store, settings: QSettings, dest: Path) -> int:
    """Open the window on ``settings``' conversation, wait until it has settled, write
    ``dest`` (never onto the database); 0, or 1 when the file could not be written."""
    with side_by_side():
        window = MainWindow(store, settings)  # its loads start now, beside the showing
        mark_read_only(window, store)
        window.context_panel.gate.wait_for(lambda: False)
        return _shoot(app, window, store, dest)


@contextmanager
def side_by_side() -> Iterator[None]:
    """The open's jobs run at once instead of one at a time in the open's lane, and the
    turn graph's builder keeps its priority (no person's frames need the cores)."""
    order, yields = OPEN_LANE.order, turn_process.YIELD_CORES
    OPEN_LANE.order, turn_process.YIELD_CORES = (), False
    try:
        yield
    finally:
        OPEN_LANE.order, turn_process.YIELD_CORES = order, yields


def views_loading(window: MainWindow) -> bool:
    """Whether a view the window shows is still reading, or has yet to start: the
    conversation opened after the first frame, the graph, the transcript (its whole
    path and the content on screen) or the context figure."""
    panel = window.context_panel
    opening = window.first_open is not None and window.first_open.pending
    return (opening or window.graph.is_loading or window.transcript.is_loading
            or (panel.isVisible() and panel.busy))


def _shoot(app: QApplication, window: MainWindow, store: Store, dest: Path) -> int:
    """Show the window offscreen, wait until it has settled, write the PNG, close."""
    window.resize(1400, 860)
    window.show()
    loop = QEventLoop()
    settle = QTimer(singleShot=True, interval=SETTLE_MS)
    limit = QTimer(singleShot=True, interval=LIMIT_MS)
    limit.timeout.connect(loop.quit)
    poll = QTimer(interval=25)

    def check() -> None:
        if not views_loading(window):
            poll.stop()
            settle.start()

    def settled() -> None:  # a view that started reading again is waited for again
        if views_loading(window):
            poll.start()
        else:
            loop.quit()

    poll.timeout.connect(check)
    settle.timeout.connect(settled)
    poll.start()
    limit.start()
    loop.exec()
    if poll.isActive():
        print(f"convo: the views were still loading after {LIMIT_MS // 1000} s; "
              "the picture shows them as they were", file=sys.stderr)
    for timer in (poll, settle, limit):
        timer.stop()
    app.processEvents()
    try:  # written beside ``dest`` and renamed into place; never onto the database
        with safe_write.replacing(dest, store.db_path) as tmp:
            if not window.grab().save(str(tmp), "PNG"):
                raise OSError(f"could not write {dest}")
        ok = True
    except (OSError, ValueError) as e:
        print(f"convo: error: {e}", file=sys.stderr)
        ok = False
    window.close()
    store.close()
    return 0 if ok else 1
