"""``convo --smoke-test``: prove an installation works end to end, headless, in a few seconds.

A bundle can build cleanly and still fail on first start: a Qt plugin left out, a font or the demo
not shipped, keyring backends that were never collected. Each check below exercises one of those
the way the app does — a fresh database with the demo, the window painted, the tree graph laid
out, a snapshot page rendered, the keyring backend chosen, the icon loaded — and prints one line.
The result is an exit status (0 when every check passed); nothing here raises.
"""

from __future__ import annotations

import importlib
import importlib.util
import io
import os
import sys
import tempfile
from array import array
from collections.abc import Callable
from dataclasses import dataclass, field
from importlib.metadata import entry_points
from pathlib import Path
from typing import TYPE_CHECKING, TextIO

from explorer.store import Store

if TYPE_CHECKING:
    from PySide6.QtGui import QImage
    from PySide6.QtWidgets import QApplication, QWidget

    from explorer.ui.graph.widget import TreeGraphWidget

PNG_SIGNATURE = b"\x89PNG\r\n\x1a\n"
MIN_COLOURS = 16  # a painted window has text and lines; a blank one has a handful of fills
GRAPH_TIMEOUT_MS = 30_000
NATIVE_KEYRINGS: dict[str, tuple[str, str]] = {
    # platform: (entry point name, module the backend needs to talk to the OS)
    "linux": ("SecretService", "secretstorage"),
    "win32": ("Windows", "win32ctypes.pywin32.win32cred"),
    "darwin": ("macOS", "keyring.backends.macOS.api"),
}


class SmokeFailure(Exception):
    """A check ran and found something wrong (the message says what)."""


@dataclass
class _Context:
    folder: Path
    store: Store | None = None
    conversation: int | None = None
    closers: list[Callable[[], object]] = field(default_factory=list)


@dataclass(frozen=True)
class CheckResult:
    name: str
    ok: bool
    detail: str

    def line(self) -> str:
        return f"{'ok  ' if self.ok else 'FAIL'} {self.name}: {self.detail}"


def run_smoke_test(out: TextIO | None = None) -> int:
    """Run every check, print one line each and a verdict; 0 if all passed, 1 otherwise."""
    stream = out if out is not None else sys.stdout  # None in a windowed Windows build
    results: list[CheckResult] = []
    try:
        with tempfile.TemporaryDirectory(prefix="convo-smoke-") as tmp:
            context = _Context(Path(tmp))
            try:
                for name, check in CHECKS:
                    result = _run_one(name, check, context)
                    results.append(result)
                    _emit(stream, result.line())
            finally:
                _close_all(context)
    except Exception as e:  # a temporary folder that cannot be made or removed
        results.append(CheckResult("setup", False, _describe(e)))
        _emit(stream, results[-1].line())
    failed = [r.name for r in results if not r.ok]
    if failed:
        _emit(stream, f"smoke test FAILED: {', '.join(failed)}")
        return 1
    _emit(stream, f"smoke test passed ({len(results)} checks)")
    return 0


def _run_one(name: str, check: Callable[[_Context], str], context: _Context) -> CheckResult:
    try:
        return CheckResult(name, True, check(context))
    except Exception as e:
        return CheckResult(name, False, _describe(e))


def _describe(e: BaseException) -> str:
    text = str(e).strip().splitlines()
    if isinstance(e, SmokeFailure) and text:
        return text[0]
    return f"{type(e).__name__}: {' '.join(text)}"


def _emit(stream: TextIO | None, line: str) -> None:
    if stream is not None:
        print(line, file=stream, flush=True)


def _close_all(context: _Context) -> None:
    for close in reversed(context.closers):
        try:
            close()
        except Exception as e:
            print(f"smoke test: cleanup failed: {_describe(e)}", file=sys.stderr)


# -- the checks -----------------------------------------------------------------------------------
def check_database(context: _Context) -> str:
    """A new database in a temporary folder, with the bundled demo loaded through the store."""
    from explorer.app.importing.demo import load_demo
    store = Store(context.folder / "smoke.db")
    context.closers.append(store.close)
    context.store = store
    context.conversation = load_demo(store)
    integrity = store.reader.execute("PRAGMA integrity_check").fetchone()[0]
    if integrity != "ok":
        raise SmokeFailure(f"integrity_check says {integrity!r}")
    messages = len(store.path(context.conversation))
    if messages == 0:
        raise SmokeFailure("the demo's active path is empty")
    conversations = len(store.conversations())
    return f"demo loaded: {conversations} conversations, {messages} messages on the path"


def _store(context: _Context) -> tuple[Store, int]:
    if context.store is None or context.conversation is None:
        raise SmokeFailure("skipped: needs the demo database")
    return context.store, context.conversation


def check_window(context: _Context) -> str:
    """The main window on the demo, shown offscreen and painted into an image."""
    from PySide6.QtGui import QGuiApplication

    from explorer.ui.window.main_window import MainWindow

    store, conv = _store(context)
    app = _application()
    window = MainWindow(store)
    context.closers.append(window.close)
    window.select_conversation(conv)
    window.resize(1100, 700)
    window.show()
    app.processEvents()
    for graph in _graphs_in(window):  # paint the window with its graph laid out
        context.closers.append(graph.shutdown)
        _wait_for_graph(graph)
    colours = _distinct_colours(window.grab().toImage())
    if colours < MIN_COLOURS:
        raise SmokeFailure(f"the window painted only {colours} colour(s): it looks blank")
    return f"painted {window.width()}x{window.height()}, {colours} colours " \
           f"(platform {QGuiApplication.platformName()})"


def check_graph(context: _Context) -> str:
    """The zoomable tree graph laid out on its worker and painted, where the app has one."""
    if importlib.util.find_spec("explorer.ui.graph.widget") is None:
        return "no graph widget in this version"
    from explorer.ui.graph.widget import TreeGraphWidget

    store, conv = _store(context)
    _application()
    widget = TreeGraphWidget(store)
    context.closers.append(widget.close)
    context.closers.append(widget.shutdown)
    widget.resize(900, 700)
    widget.show()
    _wait_for_graph(widget, lambda: widget.load_conversation(conv))
    if widget.data is None:
        raise SmokeFailure("the graph finished loading without data")
    colours = _distinct_colours(widget.grab().toImage())
    if colours < MIN_COLOURS:
        raise SmokeFailure(f"the graph painted only {colours} colour(s): it looks blank")
    return f"{len(widget.data.model)} nodes laid out and painted, {colours} colours"


def _graphs_in(window: QWidget) -> list[TreeGraphWidget]:
    if importlib.util.find_spec("explorer.ui.graph.widget") is None:
        return []
    from explorer.ui.graph.widget import TreeGraphWidget

    return list(window.findChildren(TreeGraphWidget))


def _wait_for_graph(widget: TreeGraphWidget, start: Callable[[], None] | None = None) -> None:
    """Run Qt's event loop until the graph's worker hands its layout back; raise if it fails."""
    from PySide6.QtCore import QEventLoop, QTimer

    failures: list[str] = []
    loop = QEventLoop()

    def failed(_cid: int, message: str) -> None:
        failures.append(message)
        loop.quit()

    widget.loaded.connect(loop.quit)
    widget.loadFailed.connect(failed)
    deadline = QTimer(singleShot=True, interval=GRAPH_TIMEOUT_MS)
    deadline.timeout.connect(loop.quit)
    deadline.start()
    if start is not None:
        start()
    if widget.is_loading:
        loop.exec()
    deadline.stop()
    if failures:
        raise SmokeFailure(f"the graph failed to load: {failures[0]}")
    if widget.is_loading:
        raise SmokeFailure(f"the graph did not load within {GRAPH_TIMEOUT_MS // 1000} s")


def check_snapshot(context: _Context) -> str:
    """One snapshot page of the demo's path, drawn with the bundled bitmap fonts."""
    from PIL import Image

    from explorer.compaction.page_geometry import page_geometry
    from explorer.compaction.snapshot_render import render_snapshot
    store, conv = _store(context)
    geometry = page_geometry("anthropic", tier="legible")
    snapshot = render_snapshot(store.path(conv), geometry)
    if not snapshot.pages:
        raise SmokeFailure("the renderer produced no page")
    page = snapshot.pages[0]
    if not page.png.startswith(PNG_SIGNATURE):
        raise SmokeFailure("the first page is not a PNG")
    with Image.open(io.BytesIO(page.png)) as image:
        if image.size != (page.width, page.height):
            raise SmokeFailure(f"page is {image.size}, expected {(page.width, page.height)}")
    return f"{len(snapshot.pages)} page(s), first {page.width}x{page.height}, " \
           f"{len(page.png)} bytes, {page.chars} characters"


def check_keyring(context: _Context) -> str:
    """The keyring backend chosen here, and that this platform's native backend was shipped."""
    import keyring

    backend = keyring.get_keyring()
    name = f"{type(backend).__module__}.{type(backend).__qualname__}"
    found = {ep.name for ep in entry_points(group="keyring.backends")}
    if not found:
        raise SmokeFailure(f"backend {name}: no keyring.backends entry points (metadata missing)")
    native = NATIVE_KEYRINGS.get(sys.platform)
    if native is not None:
        entry, module = native
        if entry not in found:
            raise SmokeFailure(f"backend {name}: the {entry} backend is not registered")
        importlib.import_module(module)
    priority = getattr(backend, "priority", "?")
    return f"backend {name} (priority {priority}); {len(found)} backends registered"


def check_icon(context: _Context) -> str:
    """The application icon ships with the resources and loads as an image."""
    from PySide6.QtGui import QImage

    from explorer.resources import resource_path

    resource_path("icons", "app.svg")
    path = resource_path("icons", "app-256.png")
    image = QImage(str(path))
    if image.isNull() or (image.width(), image.height()) != (256, 256):
        raise SmokeFailure(f"{path.name} does not load as a 256 px image")
    return f"{path.name} loads, 256x256"


def _application() -> QApplication:
    """The app's QApplication, offscreen unless a platform was chosen.

    A plain one stands in when the app module itself cannot load, so every later check still
    runs and reports on its own part instead of repeating that one import error.
    """
    from PySide6.QtWidgets import QApplication

    existing = QApplication.instance()
    if isinstance(existing, QApplication):
        return existing
    os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")
    try:
        from explorer.ui.app import make_application
    except ImportError:
        return QApplication(sys.argv[:1])
    return make_application()


def _distinct_colours(image: QImage) -> int:
    """How many different pixel values an image holds (1 means blank)."""
    from PySide6.QtGui import QImage

    if image.isNull():
        return 0
    rgb = image.convertToFormat(QImage.Format.Format_RGB32)
    words = array("I")
    words.frombytes(bytes(rgb.constBits())[: rgb.sizeInBytes()])
    return len(set(words))


CHECKS: tuple[tuple[str, Callable[[_Context], str]], ...] = (
    ("database", check_database),
    ("window", check_window),
    ("graph", check_graph),
    ("snapshot", check_snapshot),
    ("keyring", check_keyring),
    ("icon", check_icon),
)
