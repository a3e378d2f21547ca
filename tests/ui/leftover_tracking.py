"""What a test left running: worker threads, thread pools, runner tasks, active timers.
A module of its own so test files import it by a name no other folder uses."""

from __future__ import annotations

import weakref
from typing import TypeVar

import shiboken6
from PySide6.QtCore import QCoreApplication, QThread, QThreadPool, QTimer

from explorer.ui.background.tasks import TaskRunner

T = TypeVar("T")

GRACE_MS = 200


class Tracker:
    def __init__(self) -> None:
        self.threads: list[weakref.ref[QThread]] = []
        self.pools: list[weakref.ref[QThreadPool]] = []
        self.timers: list[weakref.ref[QTimer]] = []

    @staticmethod
    def _alive(refs: list[weakref.ref[T]]) -> list[T]:
        out = []
        for ref in refs:
            obj = ref()
            if obj is not None and shiboken6.isValid(obj):
                out.append(obj)
        return out

    def leftovers(self) -> list[str]:
        found: list[str] = []
        for runner in list(TaskRunner.live):
            if shiboken6.isValid(runner) and runner.active:
                runner.wait(GRACE_MS)
                QCoreApplication.processEvents()
                if runner.active:
                    found.append(f"{len(runner.active)} task(s) of runner {runner.name!r}")
                    runner.shutdown()
        for pool in self._alive(self.pools):
            if not pool.waitForDone(GRACE_MS):
                found.append(f"a thread pool with {pool.activeThreadCount()} busy thread(s)")
                pool.clear()
                pool.waitForDone()
        for thread in self._alive(self.threads):
            if thread.isRunning() and not thread.wait(GRACE_MS):
                found.append(f"thread {thread.objectName() or type(thread).__name__!r}")
                thread.quit()
                thread.wait()
        for timer in self._alive(self.timers):
            if timer.isActive():
                found.append(f"an active timer ({timer.interval()} ms) of "
                             f"{type(timer.parent()).__name__}")
                timer.stop()
        return found
