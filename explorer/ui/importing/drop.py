"""Files, folders and zips dropped on the window start an import.

Kept apart from the import dialog so the window can take drops from its first
frame without loading the dialog and the importers (they load with the first drop).
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

from PySide6.QtCore import QEvent, QMimeData, QObject
from PySide6.QtGui import QDragMoveEvent, QDropEvent
from PySide6.QtWidgets import QWidget


def local_paths(mime: QMimeData) -> list[Path]:
    """The local files and folders among dropped URLs (remote URLs are never fetched)."""
    if not mime.hasUrls():
        return []
    return [Path(u.toLocalFile()) for u in mime.urls() if u.isLocalFile() and u.toLocalFile()]


class _DropImport(QObject):
    """Event filter: accepts drags of local files and hands a drop to the import callback."""

    def __init__(self, widget: QWidget, start_import: Callable[[list[Path]], None]) -> None:
        super().__init__(widget)
        self._start_import = start_import

    def eventFilter(self, watched: QObject, event: QEvent) -> bool:
        kind = event.type()
        if kind in (QEvent.Type.DragEnter, QEvent.Type.DragMove):
            assert isinstance(event, QDragMoveEvent)
            if local_paths(event.mimeData()):
                event.acceptProposedAction()
                return True
            return False
        if kind == QEvent.Type.Drop:
            assert isinstance(event, QDropEvent)
            paths = local_paths(event.mimeData())
            if paths:
                event.acceptProposedAction()
                self._start_import(paths)
                return True
        return False


def install_drop_import(widget: QWidget, start_import: Callable[[list[Path]], None]) -> QObject:
    """Let ``widget`` (normally the main window) take dropped files, folders and zips.

    Widgets inside it that take drops themselves (text editors) keep theirs.
    Returns the event filter, owned by ``widget``.
    """
    widget.setAcceptDrops(True)
    drop = _DropImport(widget, start_import)
    widget.installEventFilter(drop)
    return drop
