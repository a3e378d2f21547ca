"""A word on screen while a big file is upgraded for this version, before the window.

Opening a file an older version wrote runs the migrations it lacks, and a step that builds
an index reads every message: seconds on an archive of gigabytes, before any window
exists. The store is opened on a thread meanwhile, and a small window says what is
happening, so a person does not take the wait for a program that failed to start.
"""

from __future__ import annotations

from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import TypeVar

from PySide6.QtCore import QEventLoop, Qt
from PySide6.QtWidgets import QApplication, QLabel

from explorer.store.migrations import slow_upgrade

T = TypeVar("T")
WAIT_S = 0.05
"""How long each wait for the upgrade lasts between two rounds of painting."""


def opened_with_notice(db_path: Path, open_store: Callable[[], T]) -> T:
    """``open_store()``, on a thread with a notice on screen when ``db_path`` needs a slow
    upgrade; on this thread, as before, otherwise."""
    if not slow_upgrade(db_path):
        return open_store()
    notice = upgrade_notice(db_path)
    notice.show()
    try:
        with ThreadPoolExecutor(max_workers=1, thread_name_prefix="upgrade") as pool:
            opening = pool.submit(open_store)
            while True:
                QApplication.processEvents(QEventLoop.ProcessEventsFlag.AllEvents, 50)
                try:
                    return opening.result(timeout=WAIT_S)
                except TimeoutError:
                    continue
    finally:
        notice.close()
        notice.deleteLater()


def upgrade_notice(db_path: Path) -> QLabel:
    """The small window shown while ``db_path`` is upgraded."""
    notice = QLabel(f"Upgrading {db_path.name} for this version of Conversation Explorer…\n"
                    "This happens once and can take a few seconds on a large archive.")
    notice.setWindowTitle("Conversation Explorer")
    notice.setObjectName("upgradeNotice")
    notice.setAlignment(Qt.AlignmentFlag.AlignCenter)
    notice.setMargin(24)
    notice.setWindowFlag(Qt.WindowType.WindowStaysOnTopHint)
    return notice
