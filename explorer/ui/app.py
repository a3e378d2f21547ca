"""Starting the desktop app on a database, loading the demo on first start."""

from __future__ import annotations

import gc
import linecache
import sys
import tempfile
from pathlib import Path

from PySide6.QtCore import QSettings, QTimer
from PySide6.QtGui import QIcon
from PySide6.QtWidgets import QApplication

from explorer.app import heap
from explorer.app.graph.turn_process import drop_early
from explorer.app.importing import collector as import_collector
from explorer.app.importing.demo import DEMO_FORMAT, load_demo
from explorer.app.importing.unzip import remove_stale_folders
from explorer.app.kept.turns import start_early_if_cold
from explorer.app.preferences import load_app_prefs
from explorer.app.tending.undo import purge_expired
from explorer.resources import resource_path
from explorer.store import Store, StoreError
from explorer.ui.background import collector
from explorer.ui.background.interrupts import close_on_signals
from explorer.ui.error_bar import route_qt_messages
from explorer.ui.read_only import mark_read_only
from explorer.ui.saved_settings import keep_setting
from explorer.ui.theme import apply_theme
from explorer.ui.upgrade_notice import opened_with_notice
from explorer.ui.window.main_window import MainWindow, remembered_or_first

APP_ID = "io.github.conversation_explorer.ConversationExplorer"
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

    Unpack folders that killed imports left in the temp folder are removed first. A
    database this process may not write is opened read-only, as it is: nothing purged,
    no demo.
    """
    remove_stale_folders(Path(tempfile.gettempdir()))
    store = opened_with_notice(db_path, lambda: Store(db_path))
    if store.read_only is not None:
        return store
    purge_expired(store)  # the purge_deleted_after_days setting
    if not store.has_conversations():
        load_demo(store)
    return store


DEMO_MAIN = "demo:orders"  # the demo's main conversation's source id


def _first_start_choice(store: Store, settings: QSettings | None) -> int | None:
    """On a first start (nothing remembered) open the demo's main conversation."""
    remembered = (settings or QSettings()).value("window/conversation")
    if remembered is not None:
        return None
    return store.find_conversation(DEMO_FORMAT, DEMO_MAIN)  # one row, not the whole list


def run_app(db_path: Path, screenshot: str | None = None, conversation: int | None = None,
            settings: QSettings | None = None) -> int:
    app = make_application()
    route_qt_messages()  # Qt's warnings into the log (E1)
    try:
        store = open_store(db_path)
    except StoreError as e:  # a file this version must not open (a newer version's): said
        return _refuse_file(str(e), show=screenshot is None)
    scratch = tempfile.TemporaryDirectory(prefix="convo-screenshot-")
    if screenshot and settings is None:  # a screenshot must not depend on a person's settings
        settings = QSettings(str(Path(scratch.name) / "window.ini"), QSettings.Format.IniFormat)
    first = conversation if conversation is not None else _first_start_choice(store, settings)
    settings = settings if settings is not None else QSettings()
    if first is not None:  # the window opens it (once) as the one it remembers
        keep_setting(settings, "window/conversation", first)
    likely = first if first is not None else _likely_first(store, settings)
    if likely is not None:  # its turn graph, if a big one nothing kept, starts now
        start_early_if_cold(store, likely, yield_cores=not screenshot)
    import_collector.collect_at_end = False  # the window's collections are decided here
    collector.settle()  # what start-up built is never walked by a collection again
    try:
        if screenshot:
            from explorer.ui.screenshot import take_screenshot

            with scratch:
                return take_screenshot(app, store, settings, Path(screenshot))
        scratch.cleanup()
        # A person sees the window first and the data after (V2).
        window = open_window(store, settings)
        window.resize(1400, 860)
        window.show()
        QTimer.singleShot(0, lambda: settle_memory(collect=False))  # no full collection
        restore = close_on_signals(window)
        try:
            code = app.exec()
        finally:
            restore()
        store.close()
        return int(code)
    finally:
        drop_early()  # a graph started for a conversation the window never opened


def open_window(store: Store, settings: QSettings) -> MainWindow:
    """The main window on ``store``, marked read-only when the store is."""
    window = MainWindow(store, settings, open_after_first_paint=True)
    mark_read_only(window, store)
    return window


def _refuse_file(text: str, *, show: bool) -> int:
    """The database cannot be opened: one line on stderr, and a dialog for a person."""
    print(f"convo: error: {text}", file=sys.stderr)
    if show:
        from PySide6.QtWidgets import QMessageBox

        QMessageBox.critical(None, "Conversation Explorer", text)
    return 1


def _likely_first(store: Store, settings: QSettings) -> int | None:
    """The conversation the window will open first, as it chooses it (in the list's
    default order: a list sorted otherwise makes a wrong guess, which costs an early
    start). Two one-row reads: the remembered one if it still exists, else the newest."""
    last = settings.value("window/conversation")
    if last is not None and str(last).isdigit():
        remembered = store.find_conversation_id(int(str(last)))
        if remembered is not None:
            return remembered
    return remembered_or_first(settings, store.newest_conversation_ids(1))


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
