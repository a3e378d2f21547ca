"""Every child of a branch point hangs from its parent by a drawn line (the elbow's span).

A child placed left of the first child in the model's order (the turn view puts the active
child below its parent and a sibling to its right, whatever order they come in) must still
be joined: a box floating under a stub with no line to its parent reads as an orphan.
"""

from __future__ import annotations

from pathlib import Path

from PySide6.QtGui import QPainterPath
from pytestqt.qtbot import QtBot

from explorer.app.importing.demo import load_demo
from explorer.store import Store
from explorer.ui.graph import TreeGraphWidget
from explorer.ui.graph.model import BOX_H, F_SIDE, ROW_H


def _segments(path: QPainterPath) -> list[tuple[float, float, float, float]]:
    pts = [path.elementAt(k) for k in range(path.elementCount())]
    return [(a.x, a.y, b.x, b.y) for a, b in zip(pts[::2], pts[1::2], strict=False)]


def _covered(spans: list[tuple[float, float]], x0: float, x1: float) -> bool:
    """Whether the union of the spans covers [x0, x1]."""
    at = x0
    for a, b in sorted(spans):
        if a > at + 0.5:
            break
        at = max(at, b)
    return at >= x1 - 0.5


def test_V1_each_child_of_a_branch_point_is_joined_to_its_parent(
    qtbot: QtBot, tmp_path: Path
) -> None:
    store = Store(tmp_path / "demo.db")
    cid = load_demo(store)
    for mode in ("turns", "messages"):
        w = TreeGraphWidget(store, mode=mode)  # type: ignore[arg-type]
        qtbot.addWidget(w)
        try:
            with qtbot.waitSignal(w.loaded, timeout=30_000):
                w.load_conversation(cid)
            data = w.data
            assert data is not None
            model, segs = data.model, []
            for batch in data.geometry.batches.values():
                segs += _segments(batch.edges) + _segments(batch.active_edges)
            checked = 0
            for p in range(len(model)):
                kids = [c for c in model.children(p) if not model.flags[c] & F_SIDE]
                if len(kids) < 2:
                    continue
                ym = model.ys[p] + ROW_H / 2
                spans = [(min(x0, x1), max(x0, x1)) for x0, y0, x1, y1 in segs
                         if abs(y0 - ym) < 0.5 and abs(y1 - ym) < 0.5]
                for c in kids:
                    lo, hi = sorted((model.xs[p], model.xs[c]))
                    assert _covered(spans, lo, hi), (mode, p, c)
                    assert any(abs(x0 - model.xs[c]) < 0.5 and abs(x1 - x0) < 0.5
                               and min(y0, y1) <= ym + 0.5
                               and max(y0, y1) >= model.ys[c] - BOX_H / 2 - 0.5
                               for x0, y0, x1, y1 in segs), (mode, p, c)
                    checked += 1
            assert checked >= 4, mode  # the demo has branch points in both views
        finally:
            w.shutdown()
    store.close()
