"""Starting the desktop app on a database, loading the demo on first start."""

from __future__ import annotations

import gc
import linecache
import sys
import tempfile
from pathlib import Path

from PySide6.QtCore import QEventLoop, QSettings, QTimer
from PySide6.QtGui import QIcon
from PySide6.QtWidgets import QApplication

from explorer.app import heap, safe_write
from explorer.app.demo import demo_loaded, load_demo
from explorer.app.preferences import load_app_prefs
from explorer.app.undo import purge_expired
from explorer.app.unzip import remove_stale_folders
from explorer.resources import resource_path
from explorer.store import Store
from explorer.ui import collector
from explorer.ui.main_window import MainWindow
from explorer.ui.theme import apply_theme

APP_ID = "io.github.conversation_explorer.ConversationExplorer"
SCREENSHOT_SETTLE_MS = 400
SCREENSHOT_LIMIT_MS = 15 * 60_000
"""Only against a view that never finishes: a big archive on a slow machine takes minutes."""


GIL_SWITCH_S = 0.0005
"""How long a worker running Python may keep the GIL from the UI thread (default 5 ms).

Qt releases the GIL around every call into C++; with a busy Python worker
(a layout, an import) the UI thread then waits up to this long to get it back,
once per call — building one card makes dozens of such calls."""


def make_application() -> QApplication:
    heap.share_one_heap()  # before Qt and the workers start their threads
    sys.setswitchinterval(GIL_SWITCH_S)
    app = QApplication.instance()
    if not isinstance(app, QApplication):
        app = QApplication(sys.argv[:1])
    app.setApplicationName("Conversation Explorer")
    app.setOrganizationName("conversation-explorer")
    app.setDesktopFileName(APP_ID)
    app.setStyle("Fusion")  # follows the system's light or dark colour scheme on every OS
    app.setWindowIcon(app_icon())
    apply_theme(load_app_prefs().theme)
    return app


def app_icon() -> QIcon:
    """The tree icon from its PNG sizes (no SVG plugin needed)."""
    icon = QIcon()
    for size in (16, 32, 48, 128, 256):
        icon.addFile(str(resource_path("icons", f"app-{size}.png")))
    return icon


def open_store(db_path: Path) -> Store:
    """The store, with the bundled demo loaded when the database has no conversations.

    Unpack folders that killed imports left in the temp folder are removed first.
    """
    remove_stale_folders(Path(tempfile.gettempdir()))
    store = Store(db_path)
    purge_expired(store)  # the purge_deleted_after_days setting
    if not store.has_conversations():
        load_demo(store)
    return store


def _first_start_choice(store: Store, settings: QSettings | None) -> int | None:
    """On a first start (nothing remembered) open the demo's main conversation."""
    remembered = (settings or QSettings()).value("window/conversation")
    return demo_loaded(store) if remembered is None else None


def run_app(db_path: Path, screenshot: str | None = None, conversation: int | None = None,
            settings: QSettings | None = None) -> int:
    app = make_application()
    store = open_store(db_path)
    scratch = tempfile.TemporaryDirectory(prefix="convo-screenshot-")
    if screenshot and settings is None:  # a screenshot must not depend on a person's settings
        settings = QSettings(str(Path(scratch.name) / "window.ini"), QSettings.Format.IniFormat)
    first = conversation if conversation is not None else _first_start_choice(store, settings)
    settings = settings if settings is not None else QSettings()
    if first is not None:  # the window opens it (once) as the one it remembers
        settings.setValue("window/conversation", first)
    collector.settle()  # what start-up built is never walked by a collection again
    # A person sees the window first and the data after; a screenshot shows no first frame,
    # so its loads start at once, beside the showing.
    window = MainWindow(store, settings, open_after_first_paint=not screenshot)
    if screenshot:
        with scratch:
            return _screenshot(app, window, store, Path(screenshot))
    scratch.cleanup()
    window.resize(1400, 860)
    window.show()
    QTimer.singleShot(0, lambda: settle_memory(collect=False))  # no full collection
    code = app.exec()
    store.close()
    return int(code)


def settle_memory(*, collect: bool = True) -> None:
    """Move everything built at start-up out of the collector's sight (``gc.freeze``).

    Later collections then only walk objects made since, so a collection
    triggered by a worker (an import allocates millions of objects) is short
    and does not hold the GIL for the UI's frame time. ``collect=False`` skips the
    full collection first (a pause that grows with everything alive; the app's
    start skips it, leaving the few cycles imports made).
    """
    if collect:
        gc.collect()
    gc.freeze()
    linecache.clearcache()  # Qt's bindings read every imported module's source (~6 MB)


def _views_loading(window: MainWindow) -> bool:
    """Whether a view the window shows is still reading, or has yet to start: the
    conversation opened after the first frame, the graph, the transcript (its whole
    path and the content on screen) or the context figure."""
    panel = window.context_panel
    opening = window.first_open is not None and window.first_open.pending
    return (opening or window.graph.is_loading or window.transcript.is_loading
            or (panel.isVisible() and panel.busy))


def _screenshot(app: QApplication, window: MainWindow, store: Store, dest: Path) -> int:
    """Show the window offscreen, wait until every view it shows has loaded (or failed,
    which it shows), write a PNG, exit.

    Nobody scrolls or zooms the window a screenshot is taken of, so the context figure
    does not wait for the graph and the transcript to finish first (it does for a
    person, whose frames it would slow): it is computed beside them, and the picture
    still waits for all three."""
    window.context_panel.gate.wait_for(lambda: False)
    window.resize(1400, 860)
    window.show()
    loop = QEventLoop()
    settle = QTimer(singleShot=True, interval=SCREENSHOT_SETTLE_MS)
    limit = QTimer(singleShot=True, interval=SCREENSHOT_LIMIT_MS)
    limit.timeout.connect(loop.quit)
    poll = QTimer(interval=25)

    def check() -> None:
        if not _views_loading(window):
            poll.stop()
            settle.start()

    def settled() -> None:  # a view that started reading again is waited for again
        if _views_loading(window):
            poll.start()
        else:
            loop.quit()

    poll.timeout.connect(check)
    settle.timeout.connect(settled)
    poll.start()
    limit.start()
    loop.exec()
    if poll.isActive():
        print(f"convo: the views were still loading after {SCREENSHOT_LIMIT_MS // 1000} s; "
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
