"""V2: a big conversation's turn graph is built in a child process, and draws the same.

Built on the graph's worker thread, the turn view held the interpreter for seconds and the
window's thread waited for it at every Qt call of its frames. The child reads the file
itself and sends the view back as columns; what the window draws must be exactly what the
thread builds, a cancel or a closing widget must end the child, and when no child can
start, or it fails, the thread builds as before.
"""

from __future__ import annotations

import contextlib
import os
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from graph_trees import generated_conversation
from pytestqt.qtbot import QtBot

from explorer.app.graph import turn_process, view_children
from explorer.app.graph.turn_process import build_in_child
from explorer.app.importing.run import import_paths
from explorer.app.kept import turns as kept_turns
from explorer.store import Store
from explorer.ui.graph import TreeGraphWidget
from explorer.ui.graph import worker as graph_worker
from explorer.ui.graph.model import F_RUN
from explorer.ui.graph.palette import light_palette
from explorer.ui.graph.worker import GraphData, build_turn_graph
from tests.corpus import claude_code_sessions as cc

pytestmark = pytest.mark.skipif(not sys.platform.startswith("linux"),
                                reason="child processes are counted through /proc")

MODEL_COLUMNS = ("ids", "parents", "xs", "ys", "depths", "styles", "flags", "child_start",
                 "child_list", "roots", "labels", "notes", "grid", "bounds", "tip",
                 "names", "memos")


def child_pids() -> set[int]:
    """This process's live children (a child that was waited for is gone from the list)."""
    out: set[int] = set()
    for task in Path(f"/proc/{os.getpid()}/task").iterdir():
        with contextlib.suppress(OSError):
            out |= {int(p) for p in (task / "children").read_text().split()}
    return out


@pytest.fixture(autouse=True)
def no_child_left() -> Iterator[None]:
    """Every test here ends with no child process of its own still running."""
    before = child_pids()
    yield
    view_children.settle_children()  # a child that answered keeps its build, then exits
    left = child_pids() - before
    assert not left, f"child processes left behind: {sorted(left)}"


def _same_graph(here: GraphData, there: GraphData) -> None:
    a, b = here.model, there.model
    for name in MODEL_COLUMNS:
        assert getattr(a, name) == getattr(b, name), name
    assert list(a.previews) == list(b.previews)
    assert dict(a.index.items()) == dict(b.index.items())
    ta, tb = a.turns, b.turns
    assert ta is not None and tb is not None
    for name in ("titles", "answers", "chips", "spans", "tooltips"):
        assert list(getattr(ta, name)) == list(getattr(tb, name)), name
    assert ta.agents == tb.agents and ta.model_changes == tb.model_changes
    assert (a.tending.folded, a.tending.merges, a.tending.points) == (
        b.tending.folded, b.tending.merges, b.tending.points)
    assert here.geometry.overview_scale == there.geometry.overview_scale
    assert sorted(here.geometry.batches) == sorted(there.geometry.batches)
    for key, mine in here.geometry.batches.items():
        theirs = there.geometry.batches[key]
        assert [(s, list(p)) for s, p in mine.dots] == [(s, list(p)) for s, p in theirs.dots]
        assert list(mine.active_dots) == list(theirs.active_dots)
        for edges in ("edges", "active_edges", "side_edges"):
            a_path, b_path = getattr(mine, edges), getattr(theirs, edges)
            assert a_path.elementCount() == b_path.elementCount(), edges
            assert a_path.boundingRect() == b_path.boundingRect(), edges
    assert here.geometry.overview.size() == there.geometry.overview.size()
    assert here.geometry.overview == there.geometry.overview
    assert here.geometry.marked == there.geometry.marked
    assert here.geometry.branches == there.geometry.branches
    assert here.geometry.sides == there.geometry.sides
    view = (-1e9, -1e9, 1e9, 1e9)
    for kind in ("names", "sides", "branches", "changes", "branch_names", "memos"):
        mine, theirs = getattr(here.geometry.spots, kind), getattr(there.geometry.spots, kind)
        assert list(mine.query(view, 10**9)) == list(theirs.query(view, 10**9)), kind
    va, vb = here.turn_view, there.turn_view
    assert va is not None and vb is not None
    assert va.marks == vb.marks and va.source == vb.source
    assert va.projection.tree.nbytes() == vb.projection.tree.nbytes()


def _both(store: Store, cid: int, **kw: Any) -> tuple[GraphData, GraphData]:
    pal = light_palette()
    return (build_turn_graph(store, cid, pal, **kw),
            build_turn_graph(store, cid, pal, child=True, **kw))


def test_V2_the_child_builds_the_turn_graph_the_thread_builds_on_generated_trees(
        qtbot: QtBot, tmp_path: Path) -> None:
    with Store(tmp_path / "g.db") as store:
        bushy = generated_conversation(store, 3000, seed=5, branch=0.2)
        deep = generated_conversation(store, 3000, seed=6, branch=0.01)
        path = store.path_ids(store.conversation(deep).tip_id or 0)
        store.checkpoint(deep, "halfway", path[len(path) // 2])
        for cid in (bushy, deep):
            here, there = _both(store, cid)
            _same_graph(here, there)
        # A re-fold after a run was expanded: the same in both ways too.
        m = here.model
        heads = [int(str(h)) for h in m.ids[:5]]
        _same_graph(*_both(store, deep, expanded=heads))


def test_V2_the_child_builds_the_claude_code_sample_as_the_thread_does(
        qtbot: QtBot, tmp_path: Path) -> None:
    with Store(tmp_path / "cc.db") as store:
        import_paths(store, [cc.PROJECTS, cc.fork_in_one_file(tmp_path / "rewound"),
                             cc.reply_alone(tmp_path / "alone")])
        convs = store.conversations()
        assert len(convs) == 2  # the session with its fork and subagents, a lone reply
        for conv in convs:
            _same_graph(*_both(store, conv.id))


def test_V2_the_child_reads_a_file_whose_path_needs_quoting(tmp_path: Path) -> None:
    folder = tmp_path / "a #1 what?%20"
    folder.mkdir()
    with Store(folder / "x y.db") as store:
        cid = generated_conversation(store, 300, seed=2, branch=0.1)
        built = build_in_child(store.db_path, cid)
        assert built is not None
        assert len(built.model) == len(build_turn_graph(store, cid, light_palette()).model)


def test_V2_a_cancel_ends_the_child_at_once(tmp_path: Path) -> None:
    with Store(tmp_path / "c.db") as store:
        cid = generated_conversation(store, 2000, seed=3)
        started: list[set[int]] = []

        def cancelled() -> bool:
            started.append(child_pids())
            return len(started) > 2  # the child is running by then: abandon it

        t0 = time.monotonic()
        assert build_in_child(store.db_path, cid, (), cancelled) is None
        assert time.monotonic() - t0 < 30  # generous: this is about not waiting for it
        assert any(started), "the child was never seen running"
        assert not (child_pids() & set().union(*started))


def _nice(pid: int) -> int | None:
    """A process's niceness (None once it is gone)."""
    try:
        stat = Path(f"/proc/{pid}/stat").read_text()
    except OSError:
        return None
    return int(stat.rsplit(")", 1)[1].split()[16])


@pytest.mark.parametrize("screenshot", [False, True])
def test_V2_the_child_yields_the_cores_unless_a_screenshot_only_waits(
        tmp_path: Path, screenshot: bool) -> None:
    """Behind a person's window the builder runs below its priority, so the frames win
    the cores; for ``--screenshot`` (``side_by_side``) it keeps the window's priority,
    or a busy machine would starve the one view the picture still waits for."""
    from explorer.app.graph.turn_child import NICE
    from explorer.ui.screenshot import side_by_side

    seen: list[int] = []

    def watching() -> bool:
        seen.extend(n for n in map(_nice, child_pids()) if n is not None)
        return False

    with Store(tmp_path / "n.db") as store:
        cid = generated_conversation(store, 2000, seed=5)
        with side_by_side() if screenshot else contextlib.nullcontext():
            assert build_in_child(store.db_path, cid, (), watching) is not None
    assert turn_process.YIELD_CORES, "the screenshot's setting is put back"
    assert seen, "the child was never seen running"
    assert max(seen) == os.nice(0) + (0 if screenshot else NICE)


def test_V2_the_thread_builds_when_no_process_can_start(
        qtbot: QtBot, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    def no_process(*args: Any, **kwargs: Any) -> subprocess.Popen[bytes]:
        raise OSError("no processes left")

    with Store(tmp_path / "f.db") as store:
        cid = generated_conversation(store, 500, seed=4, branch=0.1)
        here = build_turn_graph(store, cid, light_palette())
        monkeypatch.setattr(view_children.subprocess, "Popen", no_process)
        assert build_in_child(store.db_path, cid) is None
        _same_graph(here, build_turn_graph(store, cid, light_palette(), child=True))


def test_V2_the_thread_builds_when_the_child_fails(
        qtbot: QtBot, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    with Store(tmp_path / "f.db") as store:
        cid = generated_conversation(store, 500, seed=4, branch=0.1)
        here = build_turn_graph(store, cid, light_palette())
        monkeypatch.setattr(view_children, "MODULE", "explorer.app.no_such_module")
        assert build_in_child(store.db_path, cid) is None
        _same_graph(here, build_turn_graph(store, cid, light_palette(), child=True))
        # A conversation the child cannot find is said by the thread's build, as before.
        monkeypatch.undo()
        assert build_in_child(store.db_path, 999) is None


def test_V2_the_window_builds_a_big_turn_graph_in_a_child_and_closing_ends_it(
        qtbot: QtBot, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(graph_worker, "CHILD_MIN_MESSAGES", 1000)
    built: list[bool] = []
    real = kept_turns.packed_in_child

    def watched(*args: Any, **kwargs: Any) -> Any:
        got = real(*args, **kwargs)
        built.append(got is not None)
        return got

    monkeypatch.setattr(kept_turns, "packed_in_child", watched)
    store = Store(tmp_path / "w.db")
    cid = generated_conversation(store, 1500, seed=8, branch=0.1)
    small = generated_conversation(store, 200, seed=9)
    w = TreeGraphWidget(store)
    qtbot.addWidget(w)
    try:
        with qtbot.waitSignal(w.loaded, timeout=60_000):
            w.load_conversation(cid)
        assert built == [True]
        m = w.view.model
        assert m is not None and len(m) > 0
        # Expanding a run re-folds the grouping the window holds: no child for that.
        run = next(i for i in range(len(m)) if m.flags[i] & F_RUN)
        with qtbot.waitSignal(w.loaded, timeout=60_000):
            w.expand_run(run)
        assert built == [True]
        m2 = w.view.model
        assert m2 is not None and len(m2) > len(m)
        with qtbot.waitSignal(w.loaded, timeout=60_000):
            w.load_conversation(small)  # under the threshold: on the thread
        assert built == [True]
        # Opened again unchanged, once the child has kept it (after it sent it, on its own
        # time): the graph is the one kept in the file, no child.
        qtbot.waitUntil(lambda: kept_turns.is_kept(store, cid), timeout=60_000)
        with qtbot.waitSignal(w.loaded, timeout=60_000):
            w.load_conversation(cid)
        assert built == [True]
        again = w.view.model
        assert again is not None and again is not m
        for name in MODEL_COLUMNS:
            assert getattr(again, name) == getattr(m, name), name
        store.rename(cid, "renamed")  # a changed conversation is built again
        w.load_conversation(cid)
        qtbot.waitUntil(lambda: bool(child_pids()), timeout=30_000)
    finally:
        w.shutdown()  # cancels the load: the child is ended before this returns
        store.close()
    view_children.settle_children()  # those that answered end once they kept their build
    assert not child_pids()
