"""V2: a conversation's background jobs take turns in a stated order instead of all
competing with the window (and each other) for the interpreter at once."""

from __future__ import annotations

import threading
import time
from pathlib import Path

from PySide6.QtCore import QSettings
from pytestqt.qtbot import QtBot

from explorer.ui.app import open_store
from explorer.ui.background.lane import OPEN_LANE, Lane
from explorer.ui.background.tasks import Task, TaskRunner, Ticket
from explorer.ui.window.main_window import MainWindow

ORDER = ("transcript-skeleton", "graph", "context-figure")


class Log:
    """Who ran when, from the jobs' own threads."""

    def __init__(self) -> None:
        self.lock = threading.Lock()
        self.events: list[tuple[str, str]] = []
        self.inside = 0
        self.most_inside = 0

    def job(self, name: str, steps: int = 3, step_s: float = 0.01):  # type: ignore[no-untyped-def]
        def run(ticket: Ticket) -> str:
            with self.lock:
                self.inside += 1
                self.most_inside = max(self.most_inside, self.inside)
                self.events.append(("start", name))
            try:
                for _ in range(steps):
                    time.sleep(step_s)
            finally:
                with self.lock:
                    self.inside -= 1
                    self.events.append(("end", name))
            return name
        return run


def wait_all(qtbot: QtBot, tasks: list[Task]) -> None:
    qtbot.waitUntil(lambda: all(not t.running for t in tasks), timeout=10_000)


def test_V2_the_opens_jobs_run_one_at_a_time_in_the_stated_order(qtbot: QtBot) -> None:
    lane = Lane(ORDER)
    window = TaskRunner(threads=3, name="explorer-window", lane=lane)
    skeleton = TaskRunner(threads=1, name="transcript-skeleton", lane=lane)
    figure = TaskRunner(threads=1, name="context-figure", lane=lane)
    log = Log()
    # Submitted in the worst order, in one turn of the event loop, as a window may.
    with lane.batch():
        tasks = [figure.run(log.job("context-figure")),
                 window.run(log.job("graph"), lane_kind="graph"),
                 skeleton.run(log.job("transcript-skeleton"))]
    wait_all(qtbot, tasks)
    assert log.most_inside == 1
    assert [name for what, name in log.events if what == "start"] == list(ORDER)
    assert lane.entered == list(ORDER)
    for runner in (window, skeleton, figure):
        runner.shutdown()
    assert not lane.busy


def test_V2_jobs_outside_the_lanes_order_run_beside_it(qtbot: QtBot) -> None:
    lane = Lane(ORDER)
    window = TaskRunner(threads=3, name="explorer-window", lane=lane)
    started = threading.Event()
    release = threading.Event()

    def graph(ticket: Ticket) -> None:
        started.set()
        release.wait(5)

    held = window.run(graph, lane_kind="graph")
    assert started.wait(5)
    other = window.run(lambda _t: "an export")  # not one of the open's kinds
    qtbot.waitUntil(lambda: not other.running, timeout=5000)
    assert other.result == "an export" and held.running
    release.set()
    wait_all(qtbot, [held])
    window.shutdown()


def test_V2_a_running_job_gives_way_at_its_next_check(qtbot: QtBot) -> None:
    """A graph load already running lets a newer skeleton (more urgent) run between
    two of its steps, then finishes."""
    lane = Lane(ORDER)
    window = TaskRunner(threads=3, name="explorer-window", lane=lane)
    skeleton = TaskRunner(threads=1, name="transcript-skeleton", lane=lane)
    log = Log()
    first_step = threading.Event()
    go_on = threading.Event()

    def graph(ticket: Ticket) -> None:
        log.events.append(("step", "graph"))
        first_step.set()
        go_on.wait(5)
        ticket.check()  # where it gives way
        log.events.append(("step", "graph"))

    g = window.run(graph, lane_kind="graph")
    assert first_step.wait(5)
    s = skeleton.run(log.job("transcript-skeleton", steps=1))
    go_on.set()
    wait_all(qtbot, [g, s])
    assert log.events == [("step", "graph"), ("start", "transcript-skeleton"),
                          ("end", "transcript-skeleton"), ("step", "graph")]
    assert g.result is None and g.error is None
    assert lane.entered == ["graph", "transcript-skeleton", "graph"]
    window.shutdown()
    skeleton.shutdown()


def test_V2_a_cancelled_job_holds_nothing_up(qtbot: QtBot) -> None:
    """A superseded load still finishing a long step does not keep the next one waiting."""
    lane = Lane(ORDER)
    window = TaskRunner(threads=3, name="explorer-window", lane=lane)
    skeleton = TaskRunner(threads=1, name="transcript-skeleton", lane=lane)
    inside = threading.Event()
    release = threading.Event()

    def stuck(ticket: Ticket) -> None:
        inside.set()
        release.wait(10)  # a long step with no check in it

    old = window.run(stuck, lane_kind="graph")
    assert inside.wait(5)
    old.cancel()
    new = skeleton.run(lambda _t: "rows")
    qtbot.waitUntil(lambda: not new.running, timeout=5000)
    assert new.result == "rows" and not release.is_set()
    release.set()
    window.shutdown()
    skeleton.shutdown()
    assert not lane.busy


def test_V2_a_job_the_pool_never_ran_leaves_its_place(qtbot: QtBot) -> None:
    lane = Lane(ORDER)
    skeleton = TaskRunner(threads=1, name="transcript-skeleton", lane=lane)
    release = threading.Event()
    skeleton.run(lambda _t: release.wait(5))
    queued = skeleton.run(lambda _t: None)  # waits for the pool's one thread
    assert lane.busy
    release.set()
    skeleton.shutdown()
    assert not queued.running and not lane.busy


def test_V2_opening_a_conversation_reads_the_skeleton_before_the_graph(
        qtbot: QtBot, tmp_path: Path) -> None:
    store = open_store(tmp_path / "lane.db")  # the demo conversation
    window = MainWindow(store, QSettings(str(tmp_path / "lane.ini"),
                                         QSettings.Format.IniFormat))
    qtbot.addWidget(window)
    qtbot.waitUntil(lambda: not window.graph.is_loading and not window.transcript.is_loading,
                    timeout=20_000)
    conv = window.conversation_id
    assert conv is not None
    del OPEN_LANE.entered[:]
    window.open_conversation(conv)
    qtbot.waitUntil(lambda: not window.graph.is_loading and not window.transcript.is_loading,
                    timeout=20_000)
    opened = [k for k in OPEN_LANE.entered if k in ("transcript-skeleton", "graph")]
    assert opened[:2] == ["transcript-skeleton", "graph"]
    window.close()


class Flag:
    cancelled = False


def test_V2_a_job_whose_thread_never_starts_stops_holding_the_lane(qtbot: QtBot) -> None:
    """A window closed with a job still queued in its pool (which will never run it)
    must not stop every later open."""
    lane = Lane(ORDER)
    lane.join("transcript-skeleton", Flag())  # submitted; its thread never comes
    window = TaskRunner(threads=3, name="explorer-window", lane=lane)
    graph = window.run(lambda _t: "laid out", lane_kind="graph")
    qtbot.waitUntil(lambda: not graph.running, timeout=5000)
    assert graph.result == "laid out" and lane.entered == ["graph"]
    window.shutdown()

