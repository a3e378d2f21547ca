"""One measurement of the scale benchmark, in a fresh interpreter; prints one JSON line.

    python -m tests.benchmarks.scale_child SPAWNED open DB CONV [--quick] [--messages]
    python -m tests.benchmarks.scale_child SPAWNED import DB SESSION_FILE
    python -m tests.benchmarks.scale_child SPAWNED screenshot DB PNG

``SPAWNED`` is the parent's wall clock when it started this process, so
start → first frame includes the interpreter and the imports. ``--messages``
measures the graph's frames in the message view (one node per message) instead
of the turn view it opens in.
"""

from __future__ import annotations

import contextlib
import gc
import json
import math
import os
import resource
import statistics
import sys
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")

from explorer.app import bytecode, heap

bytecode.use_user_cache()  # as ``convo`` does before it imports the window
heap.share_one_heap()  # as ``convo`` does before any thread starts

from PySide6.QtCore import QEvent, QObject, QSettings, QTimer  # noqa: E402
from PySide6.QtWidgets import QApplication  # noqa: E402

from explorer.app.kept.turns import start_early_if_cold  # noqa: E402
from explorer.ui.app import make_application, open_store, settle_memory  # noqa: E402
from explorer.ui.transcript.cards import MessageCard  # noqa: E402
from explorer.ui.window.main_window import MainWindow  # noqa: E402

TICK_MS = 5
CONTEXT_TIMEOUT_S = 60
IDLE_S = 5.0  # the import window idle before the import: the loop's turns under this load


def note(stage: str) -> None:
    """Progress on stderr (the parent shows it if the child fails)."""
    print(f"{time.strftime('%H:%M:%S')} {stage}: rss {rss_mb():.0f} MB", file=sys.stderr,
          flush=True)


def rss_mb() -> float:
    with open("/proc/self/statm") as f:
        return int(f.read().split()[1]) * os.sysconf("SC_PAGE_SIZE") / 2**20


def peak_mb() -> float:
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024


def run_queue_ms() -> float:
    """How long the calling thread has waited, runnable, for a core (Linux; else 0)."""
    try:
        with open("/proc/thread-self/schedstat") as f:
            return int(f.read().split()[1]) / 1e6
    except (OSError, IndexError, ValueError):
        return 0.0


class Gaps:
    """The event loop's pulse: a 5 ms timer, and the longest wait between two of its ticks."""

    def __init__(self) -> None:
        self.timer = QTimer(interval=TICK_MS)
        self.timer.timeout.connect(self._tick)
        self.last = time.perf_counter()
        self.last_cpu = time.thread_time()
        self.gaps: list[float] = []
        self.cpu: list[float] = []  # the main thread's own CPU in each gap
        self.queued: list[float] = []  # its wait for a core in each gap
        self.last_queued = run_queue_ms()

    def start(self) -> None:
        self.last = time.perf_counter()
        self.last_cpu = time.thread_time()
        self.gaps = []
        self.cpu = []
        self.queued = []
        self.last_queued = run_queue_ms()
        self.timer.start()

    def stop(self) -> None:
        self.timer.stop()

    def _tick(self) -> None:
        now, cpu, queued = time.perf_counter(), time.thread_time(), run_queue_ms()
        self.gaps.append((now - self.last) * 1000)
        self.cpu.append((cpu - self.last_cpu) * 1000)
        self.queued.append(queued - self.last_queued)
        self.last, self.last_cpu, self.last_queued = now, cpu, queued

    def own(self) -> list[float]:
        """Each gap less the time the main thread waited for a core (the machine's load):
        what is left is its own work and its waits inside the process (the GIL)."""
        return [g - q for g, q in zip(self.gaps, self.queued, strict=True)]

    def longest_cpu(self) -> float:
        """The main thread's own CPU in the longest gap (the rest was waiting: GIL, cores)."""
        return self.cpu[self.gaps.index(self.longest)] if self.gaps else 0.0

    @property
    def longest(self) -> float:
        return max(self.gaps, default=0.0)


def wait_until(app: QApplication, ready: Callable[[], bool], timeout: float = 300) -> None:
    end = time.monotonic() + timeout
    while not ready():
        if time.monotonic() > end:
            raise TimeoutError("the window did not settle")
        app.processEvents()
        # Outside an event loop deleteLater() never runs: without this, every card the
        # transcript lets go would stay alive (hidden) and slow each later step.
        app.sendPostedEvents(None, QEvent.Type.DeferredDelete.value)
        time.sleep(0.001)


class FirstPaint(QObject):
    def __init__(self) -> None:
        super().__init__()
        self.at: float | None = None
        self.cpu = 0.0  # the process's CPU seconds then (all threads): load distorts it least

    def eventFilter(self, watched: QObject, event: QEvent) -> bool:
        if event.type() == QEvent.Type.Paint and self.at is None:
            self.at = time.time()
            self.cpu = time.process_time()
        return False


class FullCollections:
    """Generation-2 garbage collections: each holds the GIL while it walks everything."""

    def __init__(self) -> None:
        self.count = 0
        gc.callbacks.append(self._seen)

    def _seen(self, phase: str, info: dict[str, Any]) -> None:
        if phase == "stop" and info["generation"] == 2:
            self.count += 1

    def stop(self) -> int:
        gc.callbacks.remove(self._seen)
        return self.count


def open_window(db: Path, conv: int) -> tuple[QApplication, MainWindow, FirstPaint]:
    app = make_application()
    store = open_store(db)
    settings = QSettings(str(db.with_suffix(".ini")), QSettings.Format.IniFormat)
    settings.setValue("window/conversation", conv)
    start_early_if_cold(store, conv)  # as ``convo`` does: the graph's child, if cold, now
    window = MainWindow(store, settings, open_after_first_paint=True)
    first = FirstPaint()
    window.installEventFilter(first)
    window.resize(1400, 860)
    window.show()
    return app, window, first


def measure_open(spawned: float, db: Path, conv: int, quick: bool,
                 messages: bool = False) -> dict[str, Any]:
    shown = time.perf_counter()
    marks: dict[str, float] = {}
    full = FullCollections()
    app, window, first = open_window(db, conv)
    gaps = Gaps()
    gaps.start()
    t = window.transcript
    t.loaded.connect(lambda _c: marks.setdefault("skeleton", time.perf_counter()))
    tip = window.store.conversation(conv, boundary=False).tip_id

    def tip_card_shown() -> bool:
        """Whether the tip's card (its text, not a placeholder) is on screen; the first
        time it is, the moment is marked."""
        card = t.card_for(tip) if tip is not None and t.has_message(tip) else None
        if isinstance(card, MessageCard) and card.isVisible():
            marks.setdefault("content", time.time())
        return "content" in marks

    wait_until(app, lambda: first.at is not None)
    opening = window.first_open

    def settled() -> bool:
        tip_card_shown()  # watched on every turn, so its moment is not missed
        return not (opening and opening.pending) and not t.is_loading \
            and not window.graph.is_loading

    wait_until(app, settled)
    with contextlib.suppress(TimeoutError):  # never shown: reported as not measured
        wait_until(app, tip_card_shown, timeout=30)
    open_gap = gaps.longest
    over_50 = sum(g > 50 for g in gaps.gaps)
    collections = full.stop()
    settle_memory()
    out: dict[str, Any] = {
        "first_frame_s": (first.at or time.time()) - spawned,
        "first_frame_cpu_s": first.cpu,
        "skeleton_ms": (marks.get("skeleton", shown) - shown) * 1000,
        # from the first frame to the tip's card on screen; None if it never came
        "content_ms": ((marks["content"] - (first.at or marks["content"])) * 1000
                       if "content" in marks else None),
        "open_gap_ms": open_gap,
        "open_gaps_over_50": over_50,
        "open_gap_cpu_ms": gaps.longest_cpu(),
        "open_full_collections": collections,
        "rss_mb": rss_mb(),
        "peak_mb": peak_mb(),
    }
    note("opened")
    if quick:
        gaps.stop()
        window.close()
        return out
    out.update(scroll(app, window, gaps))
    note("scrolled")
    if messages:
        window.graph.set_mode("messages")
        wait_until(app, lambda: not window.graph.is_loading)
    out.update(graph_frames(app, window))
    note("graph frames")
    out.update(context(app, window, gaps))
    note("context")
    out["rss_after_mb"] = rss_mb()
    gaps.stop()
    window.close()
    return out


def scroll(app: QApplication, window: MainWindow, gaps: Gaps) -> dict[str, Any]:
    """Page up 40 times: each step (scroll, paint) and the turns that fill its cards in."""
    t = window.transcript
    bar = t.verticalScrollBar()
    bar.setValue(bar.maximum())
    wait_until(app, lambda: not t.is_loading)
    # What the open left to paint (the graph's words read meanwhile) is painted now: a step's
    # repaint() would otherwise paint it too, and time the graph as the transcript's step.
    window.repaint()
    gaps.start()
    steps, cpu = [], []

    def page_up() -> None:
        bar.setValue(max(0, bar.value() - t.viewport().height()))
        t.viewport().repaint()

    for _ in range(40):
        wall, main_cpu = _timed(page_up)
        steps.append(wall)
        cpu.append(main_cpu)
        wait_until(app, lambda: not t.is_loading)
    turn, turn_cpu = gaps.longest, gaps.longest_cpu()  # the longest step or filling-in turn
    t0 = time.perf_counter()
    t.scroll_to(t.message_ids()[0])
    t.viewport().repaint()
    jump = (time.perf_counter() - t0) * 1000
    wait_until(app, lambda: not t.is_loading)
    return {"scroll_max_ms": max(steps), "scroll_median_ms": statistics.median(steps),
            "scroll_steps_ms": [round(s, 1) for s in steps],
            "scroll_cpu_max_ms": max(cpu),
            "scroll_cpu_median_ms": statistics.median(cpu), "jump_ms": jump,
            "scroll_turn_ms": turn, "scroll_turn_cpu_ms": turn_cpu}


def context(app: QApplication, window: MainWindow, gaps: Gaps) -> dict[str, Any]:
    """The figure costed from nothing kept (as in a new process: the open's own figure is
    dropped, and the one kept in the file), then again on the unchanged file. The
    graph's repaints the frames left pending are let through first: they are not the
    figure's."""
    from explorer.app.kept import figure as kept_figure  # after the measured start

    conv = window.conversation_id
    assert conv is not None
    panel = window.context_panel
    idle_until = time.monotonic() + 0.5
    wait_until(app, lambda: time.monotonic() > idle_until)
    out: dict[str, Any] = {}
    for stage in ("context", "context_again"):
        if stage == "context":  # nothing kept, in memory or in the file: every message's
            panel._figure = None  # costs read again
            window.store.transact(lambda conn: conn.execute(
                "DELETE FROM view_cache WHERE kind = ?", (kept_figure.KIND,)))
        gaps.start()
        t0 = time.perf_counter()
        panel.show_conversation(conv)
        with contextlib.suppress(TimeoutError):  # reported as the time waited
            wait_until(app, lambda: not panel.busy, timeout=CONTEXT_TIMEOUT_S)
        seconds, done = time.perf_counter() - t0, not panel.busy
        after = time.monotonic() + 0.3  # the figure's repaint and the job's ending counted
        wait_until(app, lambda end=after: time.monotonic() > end)
        out.update({f"{stage}_gap_ms": gaps.longest, f"{stage}_gap_cpu_ms": gaps.longest_cpu(),
                    f"{stage}_gap_less_core_wait_ms": max(gaps.own(), default=0.0),
                    f"{stage}_s": seconds, f"{stage}_done": done})
    return out


def _timed(step: Callable[[], object]) -> tuple[float, float]:
    """Wall and main-thread CPU milliseconds of one step (CPU is what load distorts least)."""
    t0, c0 = time.perf_counter(), time.thread_time()
    step()
    return (time.perf_counter() - t0) * 1000, (time.thread_time() - c0) * 1000


def graph_frames(app: QApplication, window: MainWindow) -> dict[str, Any]:
    """Frames at five zooms (fit-all, the band just past it, up to 100 %), pans and zoom steps."""
    view = window.graph.view
    view.fit_all()
    fit = view.scale_factor()
    zooms: dict[str, float] = {}
    zooms_cpu: dict[str, float] = {}
    for factor in (1, 2, 4, 8, 32):
        view.set_scale(min(fit * factor, 1.0) if factor < 32 else 1.0)
        frames = [_timed(view.viewport().repaint) for _ in range(5)]
        zooms[f"{view.scale_factor():.4g}"] = max(f[0] for f in frames[1:])
        zooms_cpu[f"{view.scale_factor():.4g}"] = max(f[1] for f in frames[1:])
    view.set_scale(fit * 4)

    def pan() -> None:
        view.pan_by(40, 25)
        view.viewport().repaint()

    pans = [_timed(pan) for _ in range(20)]
    view.fit_all()

    def zoom() -> None:
        view.zoom_by(1.25)
        view.viewport().repaint()

    steps = [_timed(zoom) for _ in range(int(math.log(1.0 / fit, 1.25)) + 1)]
    app.processEvents()
    item = view.item
    return {"graph_zoom_ms": zooms, "graph_pan_ms": max(p[0] for p in pans),
            "graph_zoom_cpu_ms": zooms_cpu, "graph_pan_cpu_ms": max(p[1] for p in pans),
            "graph_step_ms": max(z[0] for z in steps),
            "graph_step_cpu_ms": max(z[1] for z in steps),
            "graph_tiles": item.tiles.rendered if item is not None else 0}


def measure_import(db: Path, session: Path) -> dict[str, Any]:
    from explorer.app.importing.run import ImportProgress, ImportReport
    from explorer.ui.importing.dialog import ImportDialog

    app = make_application()
    store = open_store(db)
    window = MainWindow(store, QSettings(str(db.with_suffix(".ini")),
                                         QSettings.Format.IniFormat))
    window.resize(1400, 860)
    window.show()
    app.processEvents()
    settle_memory()
    gaps = Gaps()
    dialog = ImportDialog(store, [session], window)
    reading: list[ImportProgress] = []
    done: list[ImportReport] = []
    dialog.job.progressed.connect(
        lambda p: p.conversations_done == 0 and p.bytes_done > 0 and reading.append(p))
    dialog.importFinished.connect(done.append)
    dialog.show()
    # The same window idle first: how long the loop's turns are on this machine's load.
    gaps.start()
    idle_until = time.monotonic() + IDLE_S
    wait_until(app, lambda: time.monotonic() > idle_until)
    gaps.stop()
    idle_max, idle_over_50 = gaps.longest, sum(g > 50 for g in gaps.gaps)
    gaps.start()
    t0 = time.perf_counter()
    dialog.start()
    wait_until(app, lambda: bool(done), timeout=3600)
    seconds = time.perf_counter() - t0
    gaps.stop()
    messages = sum(c.added for c in done[0].conversations)
    out = {"max_gap_ms": gaps.longest, "gaps_over_100": sum(g > 100 for g in gaps.gaps),
           "gaps_over_50": sum(g > 50 for g in gaps.gaps), "ticks": len(gaps.gaps),
           "max_gap_less_core_wait_ms": max(gaps.own(), default=0.0),
           "gaps_over_50_less_core_wait": sum(g > 50 for g in gaps.own()),
           "idle_max_gap_ms": idle_max, "idle_gaps_over_50": idle_over_50,
           "load": os.getloadavg()[0],
           "reports_while_reading": len(reading), "seconds": seconds, "peak_mb": peak_mb(),
           "messages": messages, "mb": session.stat().st_size / 1e6,
           "cancel_ms": measure_cancel(app, store, session)}
    dialog.close()
    window.close()
    return out


def measure_cancel(app: QApplication, store: Any, session: Path) -> float:
    """From Cancel to the reader stopping, on a second import of the same file."""
    from explorer.ui.importing.worker import ImportJob

    fresh = open_store(Path(store.db_path).with_name("cancel.db"))  # an unchanged source
    job = ImportJob(fresh, [session])                                # would not be read again
    seen: list[float] = []
    job.progressed.connect(lambda p: seen.append(time.perf_counter()))
    job.start()
    wait_until(app, lambda: len(seen) >= 3)
    t0 = time.perf_counter()
    job.cancel()
    wait_until(app, lambda: job.report is not None)
    elapsed = (time.perf_counter() - t0) * 1000
    stopped = job.report
    # A cancel the import did not honour is reported as such, not as a fast one.
    return elapsed if stopped is not None and stopped.cancelled else float("inf")


def main(argv: list[str]) -> int:
    spawned, what = float(argv[0]), argv[1]
    if what == "open":
        result = measure_open(spawned, Path(argv[2]), int(argv[3]), "--quick" in argv,
                              "--messages" in argv)
    elif what == "screenshot":
        from explorer.ui.app import run_app

        code = run_app(Path(argv[2]), screenshot=argv[3])
        result = {"peak_mb": peak_mb(), "code": code}
    elif what == "import":
        result = measure_import(Path(argv[2]), Path(argv[3]))
    else:
        raise SystemExit(f"unknown measurement {what!r}")
    print(json.dumps(result))
    sys.stdout.flush()
    os._exit(0)  # skip teardown: the numbers are out


if __name__ == "__main__":
    main(sys.argv[1:])
