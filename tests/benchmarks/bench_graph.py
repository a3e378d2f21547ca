"""The tree graph on a 100,000-message generated conversation: layout, build, paint, pan, memory."""

from __future__ import annotations

import gc
import os
import random
import statistics
import tempfile
import time
import tracemalloc
from pathlib import Path

os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")

from PySide6.QtWidgets import QApplication

from explorer.app.graph.marks import read_marks
from explorer.store import Store
from explorer.store.layout_store import load_layout
from explorer.tree.layout import layout_ids, tidy_layout
from explorer.ui.graph.geometry import DOTS_MAX_SCALE, build_geometry
from explorer.ui.graph.item import Lod
from explorer.ui.graph.model import build_model
from explorer.ui.graph.palette import light_palette
from explorer.ui.graph.widget import TreeGraphWidget
from tests.benchmarks.harness import Result, timed
from tests.ui.graph_trees import agent_session, generated_conversation

N = 100_000
AREA = "graph"


def _render(w: TreeGraphWidget) -> None:
    """A synchronous paint of the whole viewport, as the window system would ask for it."""
    w.view.viewport().repaint()


def _rss_mb() -> float:
    with open("/proc/self/statm") as f:
        return int(f.read().split()[1]) * os.sysconf("SC_PAGE_SIZE") / 2**20


def _layout_results(store: Store, cid: int) -> list[Result]:
    nodes = store.skeleton(cid)
    ids, parents = [n.id for n in nodes], [n.parent_id for n in nodes]
    ms = timed(lambda: layout_ids(ids, parents), repeat=3)
    rnd = random.Random(1)
    wide = [-1] + [rnd.randrange(i) for i in range(1, N)]
    wide_ms = timed(lambda: tidy_layout(wide), repeat=3)
    return [
        Result(AREA, "layout, 100k conversation tree", ms, "ms", "< 500 ms", ms < 500),
        Result(AREA, "layout, 100k random tree (33k wide)", wide_ms, "ms", "< 500 ms",
               wide_ms < 500),
    ]


def _build_results(store: Store, cid: int) -> list[Result]:
    nodes = store.skeleton(cid)
    lay = layout_ids([n.id for n in nodes], [n.parent_id for n in nodes])
    marks = read_marks(store, cid)
    pal = light_palette()
    t0 = time.perf_counter()
    model = build_model(nodes, marks, lay.xs, lay.depths)
    t1 = time.perf_counter()
    geometry = build_geometry(model, pal)
    t2 = time.perf_counter()
    del model, geometry
    gc.collect()
    rss0 = _rss_mb()
    tracemalloc.start()
    model = build_model(nodes, marks, lay.xs, lay.depths)
    geometry = build_geometry(model, pal)
    _, peak = tracemalloc.get_traced_memory()
    tracemalloc.stop()
    kept = _rss_mb() - rss0
    del model, geometry
    ms = (t2 - t0) * 1000
    return [
        Result(AREA, "model build (arrays + grid), 100k", (t1 - t0) * 1000, "ms"),
        Result(AREA, "batches + overview image build, 100k", (t2 - t1) * 1000, "ms"),
        Result(AREA, "model + batches + overview build, 100k", ms, "ms", "< 1 s", ms < 1000),
        Result(AREA, "graph memory, Python peak (tracemalloc)", peak / 2**20, "MB", "< 150 MB",
               peak / 2**20 < 150),
        Result(AREA, "graph memory, process growth (RSS)", kept, "MB", "< 150 MB", kept < 150),
    ]


def _paint_results(w: TreeGraphWidget, app: QApplication) -> list[Result]:
    out: list[Result] = []
    item, m = w.view.item, w.data.model if w.data else None
    assert item is not None and m is not None
    w.fit()
    t0 = time.perf_counter()
    _render(w)
    first = (time.perf_counter() - t0) * 1000
    out.append(Result(AREA, "first paint after load (fit)", first, "ms", "< 50 ms", first < 50))
    dense = max(m.grid.values(), key=len)[0]
    dots = (item.geometry.overview_scale * DOTS_MAX_SCALE) ** 0.5
    widest_dots = item.geometry.overview_scale * 1.01  # the most of the tree drawn as dots
    for label, scale in (("fit", w.view.fit_scale()), ("dots, just above overview", widest_dots),
                         ("dots", dots), ("dots, near boxes", DOTS_MAX_SCALE * 0.9),
                         ("boxes", 0.3), ("text", 1.0)):
        w.view.set_scale(scale)
        w.view.center_on_node(dense)
        _render(w)
        ms = timed(lambda: _render(w), repeat=7)
        lod = Lod(item.last_lod or 0).name.lower()
        out.append(Result(AREA, f"repaint at {label} ({lod}, scale {scale:.4f})", ms, "ms",
                          "≤ 16 ms", ms <= 16))
    for label, scale in (("dots", dots), ("boxes", 0.3), ("text", 1.0)):
        w.view.set_scale(scale)
        w.view.center_on_node(dense)
        app.processEvents()
        samples = []
        for step in range(12):
            t0 = time.perf_counter()
            w.view.pan_by(0, 12 if step % 2 else -12)
            w.view.pan_by(15, 0)
            app.processEvents()
            samples.append((time.perf_counter() - t0) * 1000)
        ms = statistics.median(samples)
        out.append(Result(AREA, f"pan step at {label} (scroll + repaint)", ms, "ms", "≤ 8 ms",
                          ms <= 8))
    return out


def _open(w: TreeGraphWidget, app: QApplication, cid: int) -> float:
    t0 = time.perf_counter()
    w.load_conversation(cid)
    while w.is_loading:
        app.processEvents()
        time.sleep(0.001)
    return (time.perf_counter() - t0) * 1000


def _frames(w: TreeGraphWidget, scale: float) -> tuple[float, float, float]:
    """First frame at ``scale`` (tiles painted), then median and max of warm frames."""
    w.view.set_scale(scale)
    t0 = time.perf_counter()
    _render(w)
    first = (time.perf_counter() - t0) * 1000
    samples = []
    for _ in range(9):
        t0 = time.perf_counter()
        _render(w)
        samples.append((time.perf_counter() - t0) * 1000)
    return first, statistics.median(samples), max(samples)


def _session_results(app: QApplication, store: Store) -> list[Result]:
    """A deep 100k agent session: the turn view's map and the message view's zoom band."""
    out: list[Result] = []
    cid = agent_session(store, N, seed=7)
    for mode in ("turns", "messages"):
        w = TreeGraphWidget(store, mode=mode)
        w.resize(1200, 800)
        w.show()
        load = _open(w, app, cid)
        m = w.view.model
        assert m is not None and w.view.item is not None
        out.append(Result(AREA, f"deep 100k session, {mode} view: open (worker)", load, "ms"))
        out.append(Result(AREA, f"deep 100k session, {mode} view: nodes drawn", len(m), "nodes"))
        w.fit()
        fit = w.view.scale_factor()
        overview = w.view.item.geometry.overview_scale
        bands = [("fit", fit), ("just past fit", overview * 1.05), ("band middle",
                 (overview * DOTS_MAX_SCALE) ** 0.5), ("near boxes", DOTS_MAX_SCALE * 0.9),
                 ("100 %", 1.0)]
        for label, scale in bands:
            w.view.center_on_node(m.tip)
            first, median, worst = _frames(w, scale)
            lod = Lod(w.view.item.last_lod or 0).name.lower()
            name = f"deep 100k {mode}: frame at {label} ({lod}, scale {scale:.4f})"
            out.append(Result(AREA, name + ", first", first, "ms"))
            out.append(Result(AREA, name + ", median / max " + f"{worst:.1f}", median, "ms",
                              "≤ 16 ms", worst <= 16))
        w.shutdown()
        w.close()
    return out


def run() -> list[Result]:
    app = QApplication.instance() or QApplication([])
    assert isinstance(app, QApplication)
    with tempfile.TemporaryDirectory() as tmp:
        store = Store(Path(tmp) / "bench.db")
        try:
            cid = generated_conversation(store, N, seed=11, branch=0.05)
            results = _layout_results(store, cid)
            results += _build_results(store, cid)
            w = TreeGraphWidget(store, mode="messages")
            w.resize(1200, 800)
            w.show()
            t0 = time.perf_counter()
            w.load_conversation(cid)
            while w.is_loading:
                app.processEvents()
                time.sleep(0.001)
            load = (time.perf_counter() - t0) * 1000
            results.append(Result(AREA, "open 100k on the worker (first, lays out)", load, "ms"))
            results += _paint_results(w, app)
            t0 = time.perf_counter()
            w.load_conversation(cid)
            while w.is_loading:
                app.processEvents()
                time.sleep(0.001)
            again = (time.perf_counter() - t0) * 1000
            results.append(Result(AREA, "reopen 100k (stored layout)", again, "ms"))
            read_ms = timed(lambda: load_layout(store.reader, cid), repeat=5)
            results.append(Result(AREA, "stored layout read, 100k", read_ms, "ms"))
            w.shutdown()
            w.close()
            results += _session_results(app, store)
        finally:
            store.close()
    return results
