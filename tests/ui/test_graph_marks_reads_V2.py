"""V2: the graph's marks name the messages other conversations were forked at without
counting the messages of every conversation in the file."""

from __future__ import annotations

import sys
from pathlib import Path

from explorer.app.graph.marks import read_marks
from explorer.app.views.read import tree_marks
from explorer.store import Store

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "core" / "tending"))
from tending_helpers import grow, ids_of


def test_V2_the_graphs_fork_marks_come_from_the_forks_alone(tmp_path: Path) -> None:
    store = Store(tmp_path / "forks.db")
    try:
        conv = grow(store, [0, 1, 2, 1, 4, 5, 3], 5)
        at = ids_of(store, conv)[3]
        store.fork(conv, at)
        statements: list[str] = []
        store.reader.set_trace_callback(statements.append)
        try:
            marks = read_marks(store, conv, tree_marks(store, conv))
        finally:
            store.reader.set_trace_callback(None)
        assert marks.forks == frozenset({at})
        assert not [s for s in statements if "GROUP BY conversation_id" in s]
    finally:
        store.close()
