"""The screen gallery: the pictures a reviewer looks at before a release.

``python -m tests.screens OUT_DIR`` opens the real window offscreen on the demo, on a real
agent session with subagents (the Claude Code recording kept in the repository) and on a
generated 100,000-message session, and writes one PNG per view: the turn view, fit-all,
100 %, a branch preview, compare with 2 and 4 columns, the compaction preview, tending
markers, the dark scheme and the smallest supported window. The 100k session is generated
and imported once into ``OUT_DIR/cache``.
"""

from __future__ import annotations

import os
import shutil
import sys
import time
from collections.abc import Callable
from pathlib import Path

os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")

ROOT = Path(__file__).resolve().parents[1]


def _spin(ms: int) -> None:
    from PySide6.QtCore import QCoreApplication, QElapsedTimer

    clock = QElapsedTimer()
    clock.start()
    while clock.elapsed() < ms:
        QCoreApplication.processEvents()
        time.sleep(0.005)


def _settle(window: object, limit_ms: int = 30_000) -> None:
    """Until the graph and the transcript are laid out (or ``limit_ms`` passed)."""
    from PySide6.QtCore import QElapsedTimer

    w = window
    clock = QElapsedTimer()
    clock.start()
    w.ops.settle()  # type: ignore[attr-defined]
    while clock.elapsed() < limit_ms and (w.graph.is_loading  # type: ignore[attr-defined]
                                         or w.transcript.is_loading):  # type: ignore[attr-defined]
        _spin(50)
    _spin(400)


class Gallery:
    def __init__(self, out: Path) -> None:
        from PySide6.QtWidgets import QApplication

        self.app = QApplication.instance() or QApplication([])
        self.out = out
        self.written: list[Path] = []
        out.mkdir(parents=True, exist_ok=True)

    def window(self, db: Path, conv: int, size: tuple[int, int] = (1280, 800)) -> object:
        from PySide6.QtCore import QSettings

        from explorer.ui.app import open_store
        from explorer.ui.window.main_window import MainWindow

        store = open_store(db)
        settings = QSettings(str(self.out / "cache" / "gallery.ini"), QSettings.Format.IniFormat)
        settings.clear()
        w = MainWindow(store, settings)
        w.resize(*size)
        w.show()
        w.open_conversation(conv)
        _settle(w)
        return w

    def shoot(self, widget: object, name: str) -> None:
        _spin(150)
        path = self.out / f"{name}.png"
        widget.grab().save(str(path))  # type: ignore[attr-defined]
        self.written.append(path)
        print(f"  {path.name}", flush=True)

    @staticmethod
    def close(window: object) -> None:
        window.close()  # type: ignore[attr-defined]
        window.store.close()  # type: ignore[attr-defined]


def demo_db(cache: Path) -> Path:
    from explorer.app.importing.demo import load_demo
    from explorer.store import Store

    db = cache / "demo.db"
    if not db.exists():
        with Store(db) as store:
            load_demo(store)
    return db


def agent_db(cache: Path) -> tuple[Path, int]:
    """A real Claude Code session with subagents: the recording kept in the repository."""
    from explorer.app.importing.run import import_paths
    from explorer.store import Store
    from tests.corpus.claude_code_sessions import original

    source = original()
    db = cache / "agent.db"
    db.unlink(missing_ok=True)
    with Store(db) as store:
        import_paths(store, [source])
        conv = max(store.conversations(), key=lambda c: c.message_count).id
    return db, conv


def big_db(cache: Path) -> tuple[Path, int]:
    from tests.benchmarks.scale_session import imported_session

    return imported_session(cache / "s100k")


def tended_copy(cache: Path, demo: Path) -> Path:
    """The demo with a branch archived and one deleted, for the tending markers."""
    from explorer.app.tending import tree_actions
    from explorer.store import Store

    db = cache / "tended.db"
    for suffix in ("", "-wal", "-shm"):
        Path(str(db) + suffix).unlink(missing_ok=True)
    shutil.copy(demo, db)
    with Store(db) as store:
        active = set(store.path_ids(store.conversation(1).tip_id or 0))
        off = [n.id for n in store.skeleton(1) if n.id not in active
               and store.message(n.id).parent_id in active]
        tree_actions.archive(store, off[0])
        tree_actions.delete(store, off[-1])
    return db


def shots(g: Gallery) -> None:
    cache = g.out / "cache"
    cache.mkdir(exist_ok=True)
    demo = demo_db(cache)
    w = g.window(demo, 1)
    g.shoot(w, "demo-turns")
    w.graph.set_mode("messages")  # type: ignore[attr-defined]
    _settle(w)
    g.shoot(w, "demo-messages")
    w.graph.fit()  # type: ignore[attr-defined]
    g.shoot(w, "demo-fit")
    store = w.store  # type: ignore[attr-defined]
    active = set(store.path_ids(store.conversation(1).tip_id or 0))
    off = next(n.id for n in store.skeleton(1) if n.id not in active)
    w.reveal(off)  # type: ignore[attr-defined]
    _settle(w)
    g.shoot(w, "demo-branch-preview")
    _compare_shots(g, w)
    _preview_shot(g, w)
    g.close(w)
    w = g.window(demo, 1, (1024, 700))
    g.shoot(w, "demo-1024x700")
    g.close(w)
    _dark_shot(g, demo)
    w = g.window(tended_copy(cache, demo), 1)
    g.shoot(w, "demo-tending-markers")
    g.close(w)
    db, conv = agent_db(cache)
    w = g.window(db, conv)
    g.shoot(w, "agent-subagents-turns")
    w.graph.fit()  # type: ignore[attr-defined]
    g.shoot(w, "agent-subagents-fit")
    g.close(w)
    db, conv = big_db(cache)
    w = g.window(db, conv)
    g.shoot(w, "session100k-100pct")
    w.graph.fit()  # type: ignore[attr-defined]
    _spin(500)
    g.shoot(w, "session100k-fit")
    g.close(w)


def _compare_shots(g: Gallery, w: object) -> None:
    store = w.store  # type: ignore[attr-defined]
    compares = w.compares  # type: ignore[attr-defined]
    compares.compare(store.conversation(1).tip_id)
    _spin(600)
    g.shoot(compares.window, "compare-2-columns")
    compares.window.close()
    leaves = [n.id for n in store.skeleton(1) if not store.children(n.id)][:4]
    for leaf in leaves:
        compares.toggle_mark(leaf)
    compares.compare_marked()
    _spin(800)
    if compares.window is not None:
        compares.window.resize(1400, 800)
        _spin(300)
        g.shoot(compares.window, f"compare-{len(leaves)}-columns")
        compares.window.close()


def _preview_shot(g: Gallery, w: object) -> None:
    dialogs = w.actions_.dialogs  # type: ignore[attr-defined]
    dialogs.compaction_preview()
    preview = dialogs.preview
    preview.resize(1280, 800)
    _wait(lambda: not preview.busy, 30_000)
    _spin(500)
    g.shoot(preview, "compaction-preview")
    dialogs.close_preview()


def _dark_shot(g: Gallery, demo: Path) -> None:
    from explorer.ui.theme import apply_theme

    apply_theme("dark")
    try:
        w = g.window(demo, 1)
        g.shoot(w, "demo-dark")
        g.close(w)
    finally:
        apply_theme("system")


def _wait(done: Callable[[], bool], limit_ms: int) -> None:
    from PySide6.QtCore import QElapsedTimer

    clock = QElapsedTimer()
    clock.start()
    while not done() and clock.elapsed() < limit_ms:
        _spin(50)


def main(argv: list[str]) -> int:
    if len(argv) != 1:
        print("usage: python -m tests.screens OUT_DIR", file=sys.stderr)
        return 2
    started = time.perf_counter()
    g = Gallery(Path(argv[0]))
    shots(g)
    print(f"{len(g.written)} screens in {time.perf_counter() - started:.0f} s → {g.out}")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
