"""Ctrl+C or a TERM closes the window as its close button does (and nothing polls)."""

from __future__ import annotations

import os
import signal

import pytest
from PySide6.QtCore import QTimer
from PySide6.QtGui import QCloseEvent
from PySide6.QtWidgets import QWidget
from pytestqt.qtbot import QtBot

from explorer.ui.background.interrupts import close_on_signals


class _Window(QWidget):
    def __init__(self) -> None:
        super().__init__()
        self.closes = 0

    def closeEvent(self, event: QCloseEvent) -> None:
        self.closes += 1
        super().closeEvent(event)


@pytest.mark.parametrize("signum", [signal.SIGINT, signal.SIGTERM])
def test_a_signal_closes_the_window_through_its_close_event(qtbot: QtBot, signum: int) -> None:
    window = _Window()
    qtbot.addWidget(window)
    window.show()
    before = signal.getsignal(signum)
    restore = close_on_signals(window)
    try:
        assert [t for t in window.findChildren(QTimer) if t.isActive()] == []
        os.kill(os.getpid(), signum)
        qtbot.waitUntil(lambda: not window.isVisible(), timeout=5000)
        assert window.closes == 1
    finally:
        restore()
    assert signal.getsignal(signum) == before
