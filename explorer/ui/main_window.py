"""The main window: conversations on the left, the session tree of the chosen one on the right."""

from __future__ import annotations

from PySide6.QtCore import Qt
from PySide6.QtGui import QFont, QFontDatabase
from PySide6.QtWidgets import (
    QListWidget,
    QListWidgetItem,
    QMainWindow,
    QPlainTextEdit,
    QSplitter,
)

from explorer.app.views import tree_lines
from explorer.store import Store


class MainWindow(QMainWindow):
    def __init__(self, store: Store) -> None:
        super().__init__()
        self.store = store
        self.setWindowTitle("Conversation Explorer")
        self.conversation_list = QListWidget()
        self.tree_view = QPlainTextEdit()
        self.tree_view.setReadOnly(True)
        self.tree_view.setLineWrapMode(QPlainTextEdit.LineWrapMode.NoWrap)
        mono = QFontDatabase.systemFont(QFontDatabase.SystemFont.FixedFont)
        self.tree_view.setFont(QFont(mono))
        splitter = QSplitter(Qt.Orientation.Horizontal)
        splitter.addWidget(self.conversation_list)
        splitter.addWidget(self.tree_view)
        splitter.setSizes([320, 960])
        self.setCentralWidget(splitter)
        self.conversation_list.currentItemChanged.connect(self._show_current)
        self.refresh()

    def refresh(self) -> None:
        self.conversation_list.clear()
        for conv in self.store.conversations():
            item = QListWidgetItem(f"{conv.title}  ({conv.message_count})")
            item.setData(Qt.ItemDataRole.UserRole, conv.id)
            self.conversation_list.addItem(item)
        if self.conversation_list.count():
            self.conversation_list.setCurrentRow(0)
        self.statusBar().showMessage(
            f"{self.conversation_list.count()} conversation(s) in {self.store.db_path}"
        )

    def select_conversation(self, conv_id: int) -> None:
        for row in range(self.conversation_list.count()):
            if self.conversation_list.item(row).data(Qt.ItemDataRole.UserRole) == conv_id:
                self.conversation_list.setCurrentRow(row)
                return

    def current_conversation(self) -> int | None:
        item = self.conversation_list.currentItem()
        return None if item is None else int(item.data(Qt.ItemDataRole.UserRole))

    def _show_current(self, item: QListWidgetItem | None, _prev: object = None) -> None:
        if item is None:
            self.tree_view.clear()
            return
        conv_id = int(item.data(Qt.ItemDataRole.UserRole))
        self.tree_view.setPlainText("\n".join(tree_lines(self.store, conv_id, width=140)))
