"""Tending a big tree: deleting a 10,000-message branch, its undo and its redo (T7, T8).

Each is one writer transaction that moves every row of the branch (messages, parts,
search entries) out of or back into the live tables. CPU time is reported beside
wall time, since wall time on a shared machine mostly measures the neighbours.
"""

from __future__ import annotations

import tempfile
import time
from collections.abc import Callable
from pathlib import Path

from explorer.app import redo, tree_actions, undo
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
        ):
            wall, cpu = _measure(fn)
            results.append(Result(AREA, f"{name}: wall", wall, "ms", "< 3000", wall < 3000))
            results.append(Result(AREA, f"{name}: CPU", cpu, "ms"))
        size = s.reader.execute("SELECT sum(length(rows)) FROM tombstones").fetchone()[0]
        results.append(Result(AREA, "tombstone of the 10k branch", size / 1024, "KiB"))
    return results
