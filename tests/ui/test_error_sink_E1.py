"""E1: every failure reaches a person. A background job nobody handles, a thread that dies,
an asyncio task, a write made in the background: each ends up in the log with its whole
traceback and in the window's error bar, in one line with its details to copy."""

from __future__ import annotations

import asyncio
import threading
from pathlib import Path

import pytest
from PySide6.QtGui import QGuiApplication
from pytestqt.qtbot import QtBot

from explorer.app import error_log
from explorer.ui.background.tasks import LatestRunner
from explorer.ui.window.main_window import MainWindow


def boom(_ticket: object) -> None:
    raise ZeroDivisionError("the answer was divided by nothing")


@pytest.fixture
def logged(_own_log_folder: Path) -> Path:
    return error_log.install("convo test", window=True)


def test_E1_a_background_job_nobody_handles_reaches_the_log_and_the_bar(
        qtbot: QtBot, window: MainWindow, logged: Path) -> None:
    assert window.error_bar.isHidden()
    window.tasks.run(boom, what="Reading the test data")
    qtbot.waitUntil(lambda: window.error_bar.isVisible(), timeout=5000)
    bar = window.error_bar
    assert bar.summary == ("Reading the test data failed: ZeroDivisionError: "
                               "the answer was divided by nothing")
    text = logged.read_text(encoding="utf-8")
    assert "Reading the test data failed" in text
    assert "Traceback (most recent call last)" in text and 'in boom' in text
    bar.copy_details()
    copied = QGuiApplication.clipboard().text()
    assert "in boom" in copied and str(logged) in copied


def test_E1_a_handled_failure_is_logged_but_not_shown_twice(
        qtbot: QtBot, window: MainWindow, logged: Path) -> None:
    told: list[BaseException] = []
    task = window.tasks.run(boom, on_failed=told.append, what="A handled job")
    qtbot.waitUntil(lambda: bool(told), timeout=5000)
    assert task.error is told[0]
    assert window.error_bar.isHidden()  # its handler said it; the bar does not repeat it
    assert "A handled job failed" in logged.read_text(encoding="utf-8")


def test_E1_a_latest_runner_without_a_failure_handler_reaches_the_bar(
        qtbot: QtBot, window: MainWindow, logged: Path) -> None:
    runner = LatestRunner(window, threads=1, name="transcript-test")
    try:
        runner.submit(boom)
        qtbot.waitUntil(lambda: window.error_bar.isVisible(), timeout=5000)
        assert "transcript-test" in window.error_bar.summary
    finally:
        runner.shutdown()


def test_E1_a_dying_thread_and_an_asyncio_task_reach_the_bar(
        qtbot: QtBot, window: MainWindow, logged: Path) -> None:
    worker = threading.Thread(target=lambda: boom(None), name="sync-worker")
    worker.start()
    worker.join(5)
    qtbot.waitUntil(lambda: window.error_bar.isVisible(), timeout=5000)
    assert window.error_bar.summary.startswith("sync-worker failed: ZeroDivisionError")

    async def fails() -> None:
        raise KeyError("lost key")

    async def main() -> None:
        asyncio.get_running_loop().create_task(fails())
        await asyncio.sleep(0.01)

    loop = asyncio.new_event_loop()
    try:
        loop.run_until_complete(main())
        for task in asyncio.all_tasks(loop):
            task.cancel()
    finally:
        loop.close()
    import gc

    gc.collect()  # an unretrieved task exception is reported when the task is collected
    qtbot.waitUntil(lambda: "lost key" in window.error_bar.details(), timeout=5000)
    assert window.error_bar.more.text() == "+1 more"
    text = logged.read_text(encoding="utf-8")
    assert "sync-worker failed" in text and "lost key" in text


def test_E1_a_write_nobody_waits_for_reaches_the_bar(
        qtbot: QtBot, window: MainWindow, logged: Path) -> None:
    def refuse(conn: object, *args: object) -> None:
        raise RuntimeError("the disk said no")

    window.store._unwaited(refuse)
    qtbot.waitUntil(lambda: window.error_bar.isVisible(), timeout=5000)
    assert "a write made in the background failed: the disk said no" in \
        window.error_bar.summary


def test_E1_the_bar_is_hidden_and_brought_back_from_the_help_menu(
        qtbot: QtBot, window: MainWindow, logged: Path) -> None:
    window.tasks.run(boom, what="Job one")
    qtbot.waitUntil(lambda: window.error_bar.isVisible(), timeout=5000)
    window.error_bar.dismiss()
    assert window.error_bar.isHidden()
    window.menu_action("show_last_errors").trigger()
    assert window.error_bar.isVisible() and "Job one" in window.error_bar.summary
    assert window.menu_action("open_log_folder").text() == "Open log folder"


def test_E1_secrets_are_masked_in_the_log_and_the_details(
        qtbot: QtBot, window: MainWindow, logged: Path) -> None:
    key = "sk-proj-" + "Zx9" * 14

    def leaks(_t: object) -> None:
        raise ValueError(f"request failed for key {key}")

    window.tasks.run(leaks, what="Sending")
    qtbot.waitUntil(lambda: window.error_bar.isVisible(), timeout=5000)
    assert key not in window.error_bar.details()
    assert key not in logged.read_text(encoding="utf-8")
    assert "[redacted: openai-key]" in logged.read_text(encoding="utf-8")


def test_E1_a_long_failure_is_cut_with_an_ellipsis_and_kept_whole(
        qtbot: QtBot, window: MainWindow, logged: Path) -> None:
    window.resize(700, 500)
    long = "x" * 400

    def fails(_t: object) -> None:
        raise OSError(28, f"No space left on device: {long}")

    window.tasks.run(fails, what="Saving")
    qtbot.waitUntil(lambda: window.error_bar.isVisible(), timeout=5000)
    shown = window.error_bar.text.text()
    assert shown.endswith("…") and len(shown) < len(window.error_bar.summary)
    assert long in window.error_bar.text.toolTip() and long in window.error_bar.details()
