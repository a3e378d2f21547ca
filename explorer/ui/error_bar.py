"""Failures a person must hear of, shown in a bar over the window that never blocks it (E1).

:class:`ErrorSink` listens to :mod:`explorer.app.error_log` from any thread and hands each
failure to the main thread through a queued signal; :class:`ErrorBar` shows the newest in
one line, counts the others, copies every detail for a report and opens the log folder.
Qt's own warnings go to the log too (:func:`route_qt_messages`), never to the bar.
"""

from __future__ import annotations

import logging
from collections.abc import Callable

from PySide6.QtCore import QObject, QtMsgType, QUrl, Signal, qInstallMessageHandler
from PySide6.QtGui import QDesktopServices, QGuiApplication
from PySide6.QtWidgets import (
    QFrame,
    QHBoxLayout,
    QLabel,
    QPushButton,
    QToolButton,
    QWidget,
)

from explorer.app import error_log
from explorer.app.error_log import Failure
from explorer.ui.elided_label import ElidedLabel

KEPT = 20  # the failures whose details "Copy details" copies
qt_log = logging.getLogger("explorer.qt")


class ErrorSink(QObject):
    """The main thread's end of the error log: ``failed(Failure)`` for every failure."""

    failed = Signal(object)

    def __init__(self, parent: QObject | None = None) -> None:
        super().__init__(parent)
        self._stop = error_log.add_listener(self.failed.emit)  # queued when off the main thread
        self.destroyed.connect(lambda *_: self._stop())

    def close(self) -> None:
        self._stop()


class ErrorBar(QFrame):
    """One line for the newest failure, "+N more", Copy details, Open log folder, ✕."""

    def __init__(self, parent: QWidget | None = None,
                 open_folder: Callable[[], object] | None = None) -> None:
        super().__init__(parent)
        self.setObjectName("errorBar")
        self.setStyleSheet("#errorBar { background: #fde8e8; border-bottom: 1px solid #e0a0a0; }"
                           " #errorBar QLabel { color: #8a1c1c; }")
        self.failures: list[Failure] = []
        self.summary = ""
        self.shown_before: list[Failure] = []
        self.text = ElidedLabel()
        self.more = QLabel()
        self.copy_button = QPushButton("Copy details")
        self.copy_button.clicked.connect(self.copy_details)
        self.folder_button = QPushButton("Open log folder")
        self.folder_button.clicked.connect(open_folder or open_log_folder)
        close = QToolButton()
        close.setText("✕")
        close.setToolTip("Hide (the log keeps every failure)")
        close.setAutoRaise(True)
        close.clicked.connect(self.dismiss)
        row = QHBoxLayout(self)
        row.setContentsMargins(8, 3, 4, 3)
        row.addWidget(self.text, 1)
        row.addWidget(self.more)
        row.addWidget(self.copy_button)
        row.addWidget(self.folder_button)
        row.addWidget(close)
        self.hide()

    def show_failure(self, failure: Failure) -> None:
        self.failures = [*self.failures, failure][-KEPT:]
        self.summary = failure.summary
        self.text.set_full(failure.summary)
        others = len(self.failures) - 1
        self.more.setText(f"+{others} more" if others else "")
        self.show()

    def details(self) -> str:
        """Every failure shown since the bar was last hidden, newest last, with the log's place."""
        parts = [f.details for f in self.failures]
        return "\n\n---\n\n".join([*parts, f"Log: {error_log.log_path()}"])

    def copy_details(self) -> None:
        QGuiApplication.clipboard().setText(self.details())

    def dismiss(self) -> None:
        """Hide the bar; Help → Show last errors brings the same failures back."""
        self.shown_before, self.failures = self.failures, []
        self.hide()

    def show_again(self) -> None:
        failures = self.failures or self.shown_before
        if not failures:
            self.summary = f"No failures since the window opened. The log: {error_log.log_path()}"
            self.text.set_full(self.summary)
            self.more.setText("")
            self.show()
            return
        self.failures = failures[:-1]
        self.show_failure(failures[-1])


def open_log_folder() -> bool:
    folder = error_log.log_dir()
    folder.mkdir(parents=True, exist_ok=True)
    return QDesktopServices.openUrl(QUrl.fromLocalFile(str(folder)))


_LEVELS = {
    QtMsgType.QtDebugMsg: logging.DEBUG, QtMsgType.QtInfoMsg: logging.INFO,
    QtMsgType.QtWarningMsg: logging.WARNING, QtMsgType.QtCriticalMsg: logging.WARNING,
    QtMsgType.QtFatalMsg: logging.CRITICAL,
}


def route_qt_messages() -> None:
    """Qt's warnings go to the log, not to a terminal nobody reads (nor to the bar: Qt
    warns of many harmless things)."""
    qInstallMessageHandler(_qt_message)


def _qt_message(kind: QtMsgType, context: object, message: str) -> None:
    qt_log.log(_LEVELS.get(kind, logging.WARNING), "%s", message, extra={"quiet": True})
