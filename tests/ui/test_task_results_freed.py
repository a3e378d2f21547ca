"""An ended background job lets go of its result: nothing keeps the task alive for good.

Receivers connect lambdas that hold the task (``t=task``) and the end of the busy work
freezes what is alive then; a task (and its result: a whole conversation list, a graph)
used to outlive its use each time."""

from __future__ import annotations

import weakref
from collections.abc import Callable

from pytestqt.qtbot import QtBot

from explorer.ui.background.tasks import LatestRunner, Task, TaskRunner, Ticket


class Result:
    """Stands for a big result; weak references tell whether it is still alive."""


def _making(results: list[weakref.ref[Result]]) -> Callable[[Ticket], Result]:
    """A job that makes a result and keeps only a weak reference to it."""
    def job(_ticket: Ticket) -> Result:
        made = Result()
        results.append(weakref.ref(made))
        return made
    return job


def test_a_finished_tasks_result_goes_once_its_receivers_are_done(qtbot: QtBot) -> None:
    runner = TaskRunner(None, threads=1, name="freed-test")
    results: list[weakref.ref[Result]] = []
    tasks: list[weakref.ref[Task]] = []
    delivered: list[int] = []
    job = _making(results)
    try:
        for n in range(3):
            task = runner.run(job)
            task.finished.connect(lambda _r, t=task: delivered.append(t.serial))  # as views do
            task.ended.connect(lambda t=task: t.running)
            tasks.append(weakref.ref(task))
            del task
            qtbot.waitUntil(lambda n=n: len(delivered) > n and not runner.active, timeout=5000)
        assert delivered == [1, 2, 3]
        assert [r() for r in results] == [None, None, None]
        assert [t() for t in tasks] == [None, None, None]
    finally:
        runner.shutdown()


def test_the_newest_requests_runner_lets_go_of_each_result_it_delivered(qtbot: QtBot) -> None:
    latest = LatestRunner(None, threads=1, name="freed-latest")
    results: list[weakref.ref[Result]] = []
    got: list[bool] = []
    latest.finished.connect(lambda r: got.append(isinstance(r, Result)))
    job = _making(results)
    try:
        for n in range(3):
            latest.submit(job)
            qtbot.waitUntil(lambda n=n: len(got) > n and not latest.runner.active,
                            timeout=5000)
        assert got == [True, True, True]
        assert [r() for r in results] == [None, None, None]
    finally:
        latest.shutdown()
