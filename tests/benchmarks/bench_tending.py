"""Tending a big tree: deleting a 10,000-message branch, its undo and its redo (T7, T8);
restoring it out of turn; and what drawing branch names and notes costs a graph frame.

Each is one writer transaction that moves every row of the branch (messages, parts,
search entries) out of or back into the live tables. CPU time is reported beside
wall time, since wall time on a shared machine mostly measures the neighbours.
"""

from __future__ import annotations

import tempfile
import time
from collections.abc import Callable
from pathlib import Path

from explorer.app.tending import redo, tree_actions, undo
from explorer.formats.base import ImportedConversation
from explorer.store import Store
from explorer.tree.model import Message, Part
from tests.benchmarks.harness import Result

AREA = "tending"
TRUNK, SIDE = 10_000, 10_000


def _messages() -> list[Message]:
    """A 10,000-message trunk with a 10,000-message side branch leaving at message 100."""
    out = [Message(i, i - 1 if i else None, "user" if i % 2 == 0 else "assistant",
                   [Part("text", f"trunk message {i} about the import and its fallback")])
           for i in range(TRUNK)]
    for k in range(SIDE):
        i = TRUNK + k
        out.append(Message(i, 100 if k == 0 else i - 1, "user" if k % 2 else "assistant",
                           [Part("text", f"side message {k} trying chardet instead")]))
    return out


def _measure(fn: Callable[[], object]) -> tuple[float, float]:
    """(wall ms, CPU ms of this process) of one call."""
    w0, c0 = time.perf_counter(), time.process_time()
    fn()
    return (time.perf_counter() - w0) * 1000, (time.process_time() - c0) * 1000


def run() -> list[Result]:
    results = []
    with tempfile.TemporaryDirectory() as d, Store(Path(d) / "bench.db") as s:
        conv = s.import_conversation(ImportedConversation("big", "bench", _messages(),
                                                          source_id="big")).conversation_id
        tip = s.conversation(conv).tip_id
        path = s.path_ids(tip) if tip is not None else []
        side_root = next(c for c in s.children(path[100]) if c not in path)
        for name, fn in (
            ("delete a 10k-message branch", lambda: tree_actions.delete(s, side_root)),
            ("undo it (restore, ids and all)", lambda: undo.undo(s, conv)),
            ("redo it (same tombstone)", lambda: redo.redo(s, conv)),
            ("", lambda: None),
            ("a later action (a note)", lambda: tree_actions.note(s, path[5], "later")),
            ("restore it out of turn (its chip)",
             lambda: undo.restore_deleted(s, s.tombstones(conv)[0].id)),
        ):
            if not name:
                size = s.reader.execute("SELECT sum(length(rows)) FROM tombstones").fetchone()[0]
                results.append(Result(AREA, "tombstone of the 10k branch", size / 1024, "KiB"))
                continue
            wall, cpu = _measure(fn)
            results.append(Result(AREA, f"{name}: wall", wall, "ms", "< 3000", wall < 3000))
            results.append(Result(AREA, f"{name}: CPU", cpu, "ms"))
    return results + _label_results()


def _frame_cpu(item: object, mid: int, scale: float, frames: int = 15) -> float:
    """Median CPU ms of painting the graph item, centred on ``mid``, at ``scale``."""
    from PySide6.QtCore import QRectF
    from PySide6.QtGui import QImage, QPainter
    from PySide6.QtWidgets import QStyleOptionGraphicsItem

    from explorer.ui.graph.item import GraphItem
    assert isinstance(item, GraphItem)
    m = item.model
    times = []
    for k in range(frames + 1):
        image = QImage(1400, 900, QImage.Format.Format_ARGB32_Premultiplied)
        painter = QPainter(image)
        painter.translate(700 + k, 450)
        painter.scale(scale, scale)
        painter.translate(-m.xs[m.index[mid]], -m.ys[m.index[mid]])
        option = QStyleOptionGraphicsItem()
        option.exposedRect = painter.worldTransform().inverted()[0].mapRect(
            QRectF(0, 0, 1400, 900))
        c0 = time.process_time()
        item.paint(painter, option)
        if k:  # the first frame builds the tiles and stamps
            times.append((time.process_time() - c0) * 1000)
        painter.end()
    return sorted(times)[len(times) // 2]


def _label_results() -> list[Result]:
    """A 30,000-message bushy tree, one node in five named and one in twenty noted."""
    from PySide6.QtWidgets import QApplication

    from explorer.store.marks import set_marks
    from explorer.ui.graph.item import GraphItem
    from explorer.ui.graph.palette import light_palette
    from explorer.ui.graph.worker import build_graph
    from tests.ui.graph_trees import generated_conversation
    QApplication.instance() or QApplication([])
    pal = light_palette()
    out = []
    with tempfile.TemporaryDirectory() as d, Store(Path(d) / "names.db") as s:
        cid = generated_conversation(s, 30_000, seed=3, branch=0.2)
        plain = build_graph(s, cid, pal)
        ids = [n.id for n in s.skeleton(cid)]

        def mark(conn: object) -> None:
            for mid in ids[::5]:
                set_marks(conn, cid, mid, label=f"branch {mid}")  # type: ignore[arg-type]
            for mid in ids[::20]:
                set_marks(conn, cid, mid, note=f"note on {mid}: look again")  # type: ignore[arg-type]
        s.transact(mark)
        named = build_graph(s, cid, pal)
        tip = int(named.model.ids[named.model.tip])
        for scale in (1.0, 0.3, 0.05):
            base = _frame_cpu(GraphItem(plain.model, plain.geometry, pal), tip, scale)
            item = GraphItem(named.model, named.geometry, pal)
            cost = _frame_cpu(item, tip, scale)
            shown = len(item.labels.named) + len(item.labels.memos)
            out.append(Result(AREA, f"graph frame at {scale}, no names: CPU", base, "ms"))
            out.append(Result(AREA, f"graph frame at {scale}, 6,000 names + 1,500 notes "
                              f"({shown} drawn): CPU", cost, "ms"))
    return out
