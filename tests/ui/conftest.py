"""Qt tests run offscreen: the machines that run them have no display."""

from __future__ import annotations

import gc
import os

os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")


import weakref
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from leftover_tracking import Tracker
from PySide6.QtCore import QThread, QThreadPool, QTimer

SCREENSHOTS = Path(__file__).resolve().parents[2] / "resources" / "screenshots"


@pytest.fixture
def screenshot_dir(tmp_path: Path) -> Path:
    """Where panel screenshots go: the repository's folder with CONVO_UPDATE_SCREENSHOTS=1
    (to refresh the pictures the README shows), else a temporary folder, so a test run
    never changes the checkout."""
    if os.environ.get("CONVO_UPDATE_SCREENSHOTS") == "1":
        SCREENSHOTS.mkdir(parents=True, exist_ok=True)
        return SCREENSHOTS
    return tmp_path


# -- nothing left running -----------------------------------------------------------------
# As napari's fixtures do: a test that leaves a worker thread, a thread pool job, a task of
# the window's runner or an active timer behind fails, because whatever it left runs on
# into the next test (or into a closed store). Threads that are only returning get a short
# grace; a job still working after it has not finished.


@pytest.fixture(autouse=True)
def nothing_left_running(monkeypatch: pytest.MonkeyPatch) -> Iterator[None]:
    tracker = Tracker()
    thread_start, pool_start, timer_init = QThread.start, QThreadPool.start, QTimer.__init__

    def start_thread(self: QThread, *args: Any) -> None:
        tracker.threads.append(weakref.ref(self))
        thread_start(self, *args)

    def start_pool(self: QThreadPool, *args: Any) -> None:
        tracker.pools.append(weakref.ref(self))
        pool_start(self, *args)

    def init_timer(self: QTimer, *args: Any, **kwargs: Any) -> None:
        timer_init(self, *args, **kwargs)
        tracker.timers.append(weakref.ref(self))

    monkeypatch.setattr(QThread, "start", start_thread)
    monkeypatch.setattr(QThreadPool, "start", start_pool)
    monkeypatch.setattr(QTimer, "__init__", init_timer)
    yield
    monkeypatch.undo()
    left = tracker.leftovers()
    if left:
        pytest.fail("the test left work running: " + "; ".join(left), pytrace=False)


@pytest.fixture(autouse=True)
def thawed_after() -> Iterator[None]:
    """What a test's background work froze (``explorer.ui.background.collector``) is thawed after
    it, so the suite's own garbage is still collected."""
    yield
    gc.unfreeze()


@pytest.fixture
def worktrees_session(tmp_path: Path) -> Iterator[tuple[Any, int]]:
    """The recorded Claude Code session with two subagents and a /compact, imported."""
    from explorer.app.importing.run import import_paths
    from explorer.store import Store
    from tests.corpus.claude_code_sessions import original

    store = Store(tmp_path / "s.db")
    try:
        import_paths(store, [original()])
        yield store, store.conversations()[0].id
    finally:
        store.close()


@pytest.fixture
def provider(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[Any]:
    """A loopback Anthropic-like server set as the window's provider, its key in a memory
    keyring; the server's ``ServerState`` is yielded (what it received, how to answer)."""
    import json
    import sys

    import keyring
    from helpers import MemoryKeyring

    sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "core" / "providers"))
    from provider_server import ProviderServer, ServerState

    state = ServerState(anthropic_key="sk-ant-window-test")
    server = ProviderServer(state).start()
    config = tmp_path / "settings.json"
    config.write_text(json.dumps({"provider": "anthropic", "providers": {
        "anthropic": {"base_url": server.url, "model": "claude-test", "window": 200_000,
                      "key_sent_to": server.url}}}))
    monkeypatch.setenv("CONVO_CONFIG", str(config))
    previous = keyring.get_keyring()
    memory = MemoryKeyring()
    memory.set_password("conversation-explorer", "anthropic", "sk-ant-window-test")
    keyring.set_keyring(memory)
    yield state
    state.stop.set()
    keyring.set_keyring(previous)
    server.close()


@pytest.fixture
def window(qtbot: Any, tmp_path: Path) -> Iterator[Any]:
    """The window on a fresh file with the demo, conversation 1 open and its graph laid out."""
    from PySide6.QtCore import QSettings

    from explorer.ui.app import open_store
    from explorer.ui.window.main_window import MainWindow

    store = open_store(tmp_path / "ui.db")
    w = MainWindow(store, QSettings(str(tmp_path / "ui.ini"), QSettings.Format.IniFormat))
    qtbot.addWidget(w)
    with qtbot.waitSignal(w.graph.loaded, timeout=10_000):
        w.show()
        w.open_conversation(1)
    yield w
    w.close()
    store.close()


@pytest.fixture
def store(tmp_path: Path) -> Iterator[Any]:
    """A store on a fresh file, closed after the test."""
    from explorer.store import Store

    s = Store(tmp_path / "d.db")
    yield s
    s.close()


@pytest.fixture
def demo(tmp_path: Path) -> Iterator[tuple[Any, int]]:
    """A store on a fresh file holding the bundled demo conversation, and its id."""
    from explorer.app.importing.demo import load_demo
    from explorer.store import Store

    with Store(tmp_path / "demo.db") as s:
        yield s, load_demo(s)


@pytest.fixture
def preview(qtbot: Any, demo: tuple[Any, int]) -> Iterator[Any]:
    """The compaction preview on the demo, shown and settled; no thread outlives it."""
    from explorer.ui.preview.window import CompactionPreview

    store, cid = demo
    window = CompactionPreview(store, cid)
    qtbot.addWidget(window)
    window.show()
    qtbot.waitUntil(lambda: not window.busy, timeout=20_000)
    yield window
    window.close()
    assert window.runner.pool.activeThreadCount() == 0
    assert QThreadPool.globalInstance().activeThreadCount() == 0
