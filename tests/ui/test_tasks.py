"""The one task runner: results, progress and any failure come back on the main thread,
cancel answers between steps, and a finished job names the views to refresh."""

from __future__ import annotations

import threading
from pathlib import Path

import pytest
from leftover_tracking import Tracker
from PySide6.QtCore import QSettings
from pytestqt.qtbot import QtBot

from explorer.app.calls.model_setup import ModelChoice
from explorer.ui.app import open_store
from explorer.ui.background.tasks import Cancelled, TaskRunner, Ticket
from explorer.ui.calls.worker import ModelJob
from explorer.ui.window.main_window import MainWindow


class Surprise(Exception):
    """Not one of the errors any caller expects."""


def test_the_result_and_progress_arrive_on_the_main_thread_in_order(qtbot: QtBot) -> None:
    runner = TaskRunner()
    seen: list[tuple[str, object, bool]] = []
    main = threading.main_thread()

    def job(ticket: Ticket) -> int:
        for i in range(3):
            ticket.report(i)
        return 42

    task = runner.run(
        job, on_progress=lambda p: seen.append(("p", p, threading.current_thread() is main)),
        on_done=lambda r: seen.append(("done", r, threading.current_thread() is main)))
    with qtbot.waitSignal(task.ended, timeout=5000):
        pass
    assert seen == [("p", 0, True), ("p", 1, True), ("p", 2, True), ("done", 42, True)]
    assert not task.running and task.result == 42 and runner.active == []
    runner.shutdown()


def test_any_exception_is_delivered_as_failed_not_swallowed(qtbot: QtBot) -> None:
    runner = TaskRunner()
    errors: list[BaseException] = []

    def job(ticket: Ticket) -> None:
        raise Surprise("a bug nobody planned for")

    task = runner.run(job, on_failed=errors.append, on_done=lambda r: pytest.fail("no result"))
    with qtbot.waitSignal(task.ended, timeout=5000):
        pass
    assert len(errors) == 1 and isinstance(errors[0], Surprise)
    assert task.error is errors[0] and not task.running
    runner.shutdown()


def test_cancel_stops_the_job_at_its_next_check_and_nothing_is_delivered(qtbot: QtBot) -> None:
    runner = TaskRunner()
    inside = threading.Event()
    steps: list[int] = []
    delivered: list[object] = []

    def job(ticket: Ticket) -> str:
        inside.set()
        for i in range(10_000):
            ticket.check()
            steps.append(i)
            threading.Event().wait(0.001)
        return "finished anyway"

    task = runner.run(job, on_done=delivered.append, on_failed=delivered.append,
                      on_progress=delivered.append)
    assert inside.wait(5)
    with qtbot.waitSignal(task.ended, timeout=5000):
        task.cancel()
    assert delivered == [] and len(steps) < 10_000
    runner.shutdown()


def test_a_finished_job_names_the_views_to_refresh_and_a_failed_one_does_not(
    qtbot: QtBot,
) -> None:
    runner = TaskRunner()
    changes: list[frozenset[str]] = []
    runner.changed.connect(changes.append)
    ok = runner.run(lambda t: None, refresh={"graph", "transcript"})
    with qtbot.waitSignal(ok.ended, timeout=5000):
        pass

    def broken(ticket: Ticket) -> None:
        raise Surprise

    bad = runner.run(broken, refresh={"conversations"})
    with qtbot.waitSignal(bad.ended, timeout=5000):
        pass
    assert changes == [frozenset({"graph", "transcript"})]
    runner.shutdown()


def test_shutdown_cancels_waits_and_refuses_new_work(qtbot: QtBot) -> None:
    runner = TaskRunner()
    release = threading.Event()

    def job(ticket: Ticket) -> None:
        while not release.wait(0.01):
            if ticket.cancelled:
                raise Cancelled

    runner.run(job)
    runner.shutdown()
    assert runner.pool.activeThreadCount() == 0 and runner.active == []
    with pytest.raises(RuntimeError, match="shut down"):
        runner.run(job)


def test_the_leak_check_finds_a_job_left_running(qtbot: QtBot) -> None:
    """The autouse fixture's own check: a job still working at the end of a test is reported."""
    runner = TaskRunner(name="left-behind")
    release = threading.Event()
    runner.run(lambda t: release.wait(10))
    tracker = Tracker()
    try:
        found = tracker.leftovers()
    finally:
        release.set()
        runner.shutdown()
    assert any("left-behind" in f for f in found)


def test_a_model_call_that_raises_anything_ends_sending(
    qtbot: QtBot, tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
) -> None:
    """Any exception from the call (not only provider errors) reaches ``failed``."""
    monkeypatch.setenv("CONVO_CONFIG", str(tmp_path / "config.toml"))
    store = open_store(tmp_path / "m.db")
    runner = TaskRunner()

    def call(*_args: object) -> object:
        raise Surprise("the model call fell over")

    job = ModelJob(runner, store, call,  # type: ignore[arg-type]
                   ModelChoice(kind="openai-compatible", base_url="http://127.0.0.1:9"))
    with qtbot.waitSignal(job.failed, timeout=5000) as blocker:
        job.start()
    assert blocker.args == ["Surprise: the model call fell over"]
    runner.wait()
    qtbot.waitUntil(lambda: not job.is_running(), timeout=5000)
    runner.shutdown()
    store.close()


def test_closing_the_window_leaves_its_runner_idle(qtbot: QtBot, tmp_path: Path) -> None:
    store = open_store(tmp_path / "w.db")
    window = MainWindow(store, QSettings(str(tmp_path / "w.ini"), QSettings.Format.IniFormat))
    qtbot.addWidget(window)
    window.show()
    window.close()
    assert window.tasks.closed and window.tasks.active == []
    assert window.tasks.pool.activeThreadCount() == 0
    store.close()


def test_the_window_lays_out_its_graph_on_its_one_runner(qtbot: QtBot, tmp_path: Path) -> None:
    store = open_store(tmp_path / "w.db")
    window = MainWindow(store, QSettings(str(tmp_path / "w.ini"), QSettings.Format.IniFormat))
    qtbot.addWidget(window)
    assert window.graph.runner is window.tasks
    window.close()
    store.close()


def test_only_the_task_runner_owns_a_thread_pool() -> None:
    """One way to run background work: no module but ``tasks`` makes pools or runnables."""
    root = Path(__file__).resolve().parents[2] / "explorer"
    found = [str(p.relative_to(root)) for p in root.rglob("*.py")
             if p.relative_to(root).as_posix() != "ui/background/tasks.py" and any(
                 word in p.read_text() for word in ("QThreadPool(", "QRunnable)", "QThread("))]
    assert found == []
