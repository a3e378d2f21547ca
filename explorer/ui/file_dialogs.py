"""File dialogs that never open the database's files (W1).

Qt's own file dialog finds each listed file's type and icon from its *content* when the
name says nothing (``explorer.db-wal``, ``-shm``): it opens and closes the file, and on
POSIX systems that close drops every lock SQLite holds on it, so another ``convo`` could
delete the journal this window still writes into. Here the dialog is told types and icons
from names alone, and the database's own files are not listed at all.

Windows keeps its native dialog: its locks belong to the handle that took them, so a
shell reading a file cannot drop SQLite's. Elsewhere the Qt dialog is used (a desktop's
in-process dialog would sniff the same way, and cannot be told otherwise).
"""

from __future__ import annotations

import os
import sys
import tempfile
from pathlib import Path

from PySide6.QtCore import (
    QFileInfo,
    QModelIndex,
    QObject,
    QPersistentModelIndex,
    QSortFilterProxyModel,
)
from PySide6.QtGui import QIcon
from PySide6.QtWidgets import QFileDialog, QFileIconProvider, QFileSystemModel, QWidget

from explorer.store import guard

Index = QModelIndex | QPersistentModelIndex


class NameOnlyIcons(QFileIconProvider):
    """Icons and type names from the file's name, never from reading it."""

    def icon(self, what: QFileInfo | QFileIconProvider.IconType) -> QIcon:
        if isinstance(what, QFileInfo):
            what = (QFileIconProvider.IconType.Folder if what.isDir()
                    else QFileIconProvider.IconType.File)
        return super().icon(what)

    def type(self, info: QFileInfo) -> str:
        if info.isDir():
            return "Folder"
        suffix = info.suffix()
        return f"{suffix.upper()} file" if suffix else "File"


class HideDatabases(QSortFilterProxyModel):
    """Lists every entry but the open databases' own files."""

    def __init__(self, parent: QObject | None = None) -> None:
        super().__init__(parent)
        self.hidden = _database_names()

    def filterAcceptsRow(self, row: int, parent: Index) -> bool:
        model = self.sourceModel()
        if not isinstance(model, QFileSystemModel):
            return True
        path = model.filePath(model.index(row, 0, parent))
        return os.path.normpath(path) not in self.hidden


def _database_names() -> frozenset[str]:
    names: set[str] = set()
    for db in guard.open_databases():
        for path in guard.files_of(db):
            names.add(os.path.normpath(str(path)))
    return frozenset(names)


def native_allowed() -> bool:
    return sys.platform == "win32"


class SafeFileDialog(QFileDialog):
    """A file dialog that reads no file's content and lists no database file."""

    def __init__(self, parent: QWidget | None, title: str, directory: str = "",
                 filters: str = "") -> None:
        # The dialog starts listing its folder as soon as it has one, on a thread of its
        # own: it starts in an empty folder, is told to sniff nothing, and only then goes
        # where it should.
        with tempfile.TemporaryDirectory(prefix="convo-dialog-") as empty:
            super().__init__(parent, title, empty, filters)
            self.icons = NameOnlyIcons()  # not owned by the dialog: kept alive here
            if not native_allowed():
                self.setOption(QFileDialog.Option.DontUseNativeDialog, True)
                self.setIconProvider(self.icons)
                self.setProxyModel(HideDatabases(self))
            self._go(directory)

    def _go(self, directory: str) -> None:
        """Open the dialog at ``directory`` (a folder, or a file to propose), else here."""
        target = Path(directory) if directory else Path.cwd()
        if target.is_dir():
            self.setDirectory(str(target))
            return
        folder = target.parent if str(target.parent) not in ("", ".") else Path.cwd()
        self.setDirectory(str(folder if folder.is_dir() else Path.cwd()))
        self.selectFile(target.name)


def make_dialog(parent: QWidget | None, title: str, directory: str = "",
                filters: str = "") -> SafeFileDialog:
    return SafeFileDialog(parent, title, directory, filters)


def save_path(parent: QWidget | None, title: str, suggested: str,
              filters: str) -> tuple[Path, str] | None:
    """Where to write, and the chosen filter's text; None when the person cancels."""
    dialog = make_dialog(parent, title, suggested, filters)
    dialog.setAcceptMode(QFileDialog.AcceptMode.AcceptSave)
    dialog.setFileMode(QFileDialog.FileMode.AnyFile)
    if not dialog.exec():
        return None
    files = dialog.selectedFiles()
    return (Path(files[0]), dialog.selectedNameFilter()) if files else None


def open_paths(parent: QWidget | None, title: str) -> list[Path]:
    dialog = make_dialog(parent, title)
    dialog.setFileMode(QFileDialog.FileMode.ExistingFiles)
    return [Path(f) for f in dialog.selectedFiles()] if dialog.exec() else []


def folder(parent: QWidget | None, title: str) -> Path | None:
    dialog = make_dialog(parent, title)
    dialog.setFileMode(QFileDialog.FileMode.Directory)
    dialog.setOption(QFileDialog.Option.ShowDirsOnly, True)
    files = dialog.selectedFiles() if dialog.exec() else []
    return Path(files[0]) if files else None
