"""Full-text search over every conversation, results updated as the person types.

Queries are debounced (one single-shot timer restarted on each keystroke) and
run on the main thread: the store's FTS index answers in milliseconds, and
a thread would cost more than it saves. Choosing a hit emits ``hitChosen``.
"""

from __future__ import annotations

import html
import re
import sqlite3
import unicodedata
from dataclasses import dataclass
from typing import Any

from PySide6.QtCore import (
    QAbstractListModel,
    QEvent,
    QModelIndex,
    QObject,
    QPersistentModelIndex,
    QSize,
    Qt,
    QTimer,
    Signal,
)
from PySide6.QtGui import (
    QAbstractTextDocumentLayout,
    QFont,
    QKeyEvent,
    QPainter,
    QPalette,
    QShowEvent,
    QTextDocument,
)
from PySide6.QtWidgets import (
    QDialog,
    QLabel,
    QLineEdit,
    QListView,
    QStyle,
    QStyledItemDelegate,
    QStyleOptionViewItem,
    QVBoxLayout,
    QWidget,
)

from explorer.store import NotFound, Store
from explorer.ui.window.format_badges import format_icon

DEBOUNCE_MS = 150
RESULT_LIMIT = 200
ICON = 20
Index = QModelIndex | QPersistentModelIndex
_USER = int(Qt.ItemDataRole.UserRole)
CONVERSATION_ROLE = _USER + 1
MESSAGE_ROLE = _USER + 2
SNIPPET_HTML_ROLE = _USER + 3

_WORD = re.compile(r"\w+")
_MARK = re.compile(r"\[([^\[\]]+)\]")
_SPACE = re.compile(r"\s+")


def _fold(word: str) -> str:
    """Case and accents folded the way the index folds them (unicode61)."""
    decomposed = unicodedata.normalize("NFKD", word)
    return "".join(c for c in decomposed if not unicodedata.combining(c)).casefold()


def snippet_spans(snippet: str, query: str) -> list[tuple[str, bool]]:
    """Split a snippet into (text, highlighted) runs.

    The index marks matches with square brackets, which also occur in real
    text (code, JSON); a bracketed run counts as a match only when its words
    are words of the query, so ``a[0]`` stays as written.
    """
    terms = {_fold(w) for w in _WORD.findall(query)}
    runs: list[tuple[str, bool]] = []
    pos = 0
    for m in _MARK.finditer(snippet):
        words = _WORD.findall(m.group(1))
        if words and all(_fold(w) in terms for w in words):
            runs += [(snippet[pos:m.start()], False), (m.group(1), True)]
            pos = m.end()
    runs.append((snippet[pos:], False))
    return [(text, bold) for text, bold in runs if text]


def snippet_html(snippet: str, query: str) -> str:
    """The snippet as one line of HTML with the matched words in bold."""
    flat = [(_SPACE.sub(" ", text), bold) for text, bold in snippet_spans(snippet, query)]
    return "".join(f"<b>{html.escape(t)}</b>" if bold else html.escape(t) for t, bold in flat)


@dataclass(frozen=True)
class Hit:
    conversation_id: int
    message_id: int
    title: str
    source_format: str | None
    snippet_html: str


class HitModel(QAbstractListModel):
    def __init__(self, parent: QObject | None = None) -> None:
        super().__init__(parent)
        self.hits: list[Hit] = []

    def set_hits(self, hits: list[Hit]) -> None:
        self.beginResetModel()
        self.hits = hits
        self.endResetModel()

    def rowCount(self, parent: Index = QModelIndex()) -> int:  # noqa: B008
        return 0 if parent.isValid() else len(self.hits)

    def data(self, index: Index, role: int = Qt.ItemDataRole.DisplayRole) -> Any:
        if not index.isValid() or not 0 <= index.row() < len(self.hits):
            return None
        hit = self.hits[index.row()]
        values: dict[int, Any] = {
            int(Qt.ItemDataRole.DisplayRole): hit.title,
            int(Qt.ItemDataRole.DecorationRole): format_icon(hit.source_format),
            CONVERSATION_ROLE: hit.conversation_id,
            MESSAGE_ROLE: hit.message_id,
            SNIPPET_HTML_ROLE: hit.snippet_html,
        }
        return values.get(int(role))


class HitDelegate(QStyledItemDelegate):
    """The conversation title, then the snippet with its matches in bold."""

    PAD = 5

    def sizeHint(self, option: QStyleOptionViewItem, index: Index) -> QSize:
        line = option.fontMetrics.height()
        return QSize(200, 2 * line + 2 * self.PAD + 2)

    def paint(self, painter: QPainter, option: QStyleOptionViewItem, index: Index) -> None:
        opt = QStyleOptionViewItem(option)
        self.initStyleOption(opt, index)
        widget = opt.widget
        if widget is not None:
            widget.style().drawPrimitive(QStyle.PrimitiveElement.PE_PanelItemViewItem, opt,
                                         painter, widget)
        selected = bool(opt.state & QStyle.StateFlag.State_Selected)
        role = QPalette.ColorRole.HighlightedText if selected else QPalette.ColorRole.Text
        colour = opt.palette.color(role)
        rect = opt.rect.adjusted(self.PAD, self.PAD, -self.PAD, -self.PAD)
        line = opt.fontMetrics.height()
        icon = index.data(Qt.ItemDataRole.DecorationRole)
        icon.paint(painter, rect.left(), rect.top() + (line - ICON) // 2, ICON, ICON)
        painter.save()
        title_font = QFont(opt.font)
        title_font.setBold(True)
        painter.setFont(title_font)
        painter.setPen(colour)
        title_rect = rect.adjusted(ICON + self.PAD, 0, 0, 0)
        title_rect.setHeight(line)
        title = painter.fontMetrics().elidedText(str(index.data()), Qt.TextElideMode.ElideRight,
                                                 title_rect.width())
        painter.drawText(title_rect, Qt.AlignmentFlag.AlignLeft | Qt.AlignmentFlag.AlignVCenter,
                         title)
        self._snippet(painter, opt, colour, rect.adjusted(ICON + self.PAD, line + 2, 0, 0),
                      str(index.data(SNIPPET_HTML_ROLE)))
        painter.restore()

    @staticmethod
    def _snippet(painter: QPainter, opt: QStyleOptionViewItem, colour: Any, rect: Any,
                 text: str) -> None:
        doc = QTextDocument()
        doc.setDocumentMargin(0)
        doc.setDefaultFont(opt.font)
        doc.setHtml(f"<span style='white-space: pre'>{text}</span>")
        context = QAbstractTextDocumentLayout.PaintContext()
        context.palette.setColor(QPalette.ColorRole.Text, colour)
        painter.translate(rect.topLeft())
        painter.setClipRect(0, 0, rect.width(), rect.height())
        layout = doc.documentLayout()
        layout.draw(painter, context)


class SearchDialog(QDialog):
    """Ctrl+F: type words, see matching messages across every conversation, choose one.

    ``hitChosen(conversation_id, message_id)`` fires on Enter or double-click,
    and the dialog hides so the window shows the hit; ``resultsReady(count)``
    fires after every query.
    """

    hitChosen = Signal(int, int)
    resultsReady = Signal(int)

    def __init__(self, store: Store, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.store = store
        self.setWindowTitle("Search all conversations")
        self.resize(640, 480)
        self.query_edit = QLineEdit(self)
        self.query_edit.setPlaceholderText("Search every message of every conversation")
        self.query_edit.setClearButtonEnabled(True)
        self.model = HitModel(self)
        self.results = QListView(self)
        self.results.setModel(self.model)
        self.results.setItemDelegate(HitDelegate(self.results))
        self.results.setUniformItemSizes(True)
        self.status = QLabel("Type to search.", self)
        self.status.setTextFormat(Qt.TextFormat.PlainText)
        self.timer = QTimer(self)
        self.timer.setSingleShot(True)
        self.timer.setInterval(DEBOUNCE_MS)
        self._conversations: dict[int, tuple[str, str | None]] = {}
        box = QVBoxLayout(self)
        box.addWidget(self.query_edit)
        box.addWidget(self.results, 1)
        box.addWidget(self.status)
        self.query_edit.textChanged.connect(self.timer.start)
        self.timer.timeout.connect(self.run_query)
        self.results.activated.connect(self._choose_index)
        self.query_edit.installEventFilter(self)

    def query(self) -> str:
        return self.query_edit.text().strip()

    def run_query(self) -> None:
        """Search now (the timer calls this once typing pauses)."""
        self.timer.stop()
        text = self.query()
        try:
            found = self.store.search(text, RESULT_LIMIT) if text else []
        except sqlite3.Error as e:
            self.model.set_hits([])
            self.status.setText(f"Search failed: {e}")
            self.resultsReady.emit(0)
            return
        hits = [self._hit(h.conversation_id, h.message_id, h.snippet, text) for h in found]
        self.model.set_hits(hits)
        if hits:
            self.results.setCurrentIndex(self.model.index(0, 0))
        self.status.setText(self._status_text(text, len(hits)))
        self.resultsReady.emit(len(hits))

    @staticmethod
    def _status_text(text: str, count: int) -> str:
        if not text:
            return "Type to search."
        if count == 0:
            return "No matches."
        more = " (the best ones)" if count >= RESULT_LIMIT else ""
        return f"{count} match{'' if count == 1 else 'es'}{more}. Enter opens the selected one."

    def _hit(self, conv_id: int, msg_id: int, snippet: str, query: str) -> Hit:
        title, fmt = self._conversation(conv_id)
        return Hit(conv_id, msg_id, title, fmt, snippet_html(snippet, query))

    def _conversation(self, conv_id: int) -> tuple[str, str | None]:
        if conv_id not in self._conversations:
            try:
                conv = self.store.conversation(conv_id)
                self._conversations[conv_id] = (conv.display_title, conv.source_format)
            except NotFound:
                self._conversations[conv_id] = (f"conversation {conv_id}", None)
        return self._conversations[conv_id]

    def choose_current(self) -> bool:
        """Choose the selected hit (the first when none is selected); False when there is none."""
        if self.timer.isActive():
            self.run_query()
        index = self.results.currentIndex()
        if not index.isValid():
            index = self.model.index(0, 0)
        if not index.isValid():
            return False
        self._choose_index(index)
        return True

    def _choose_index(self, index: QModelIndex) -> None:
        if not index.isValid():
            return
        self.hitChosen.emit(int(index.data(CONVERSATION_ROLE)), int(index.data(MESSAGE_ROLE)))
        self.accept()

    def showEvent(self, event: QShowEvent) -> None:
        """Titles may have changed while hidden; select the query so typing replaces it."""
        self._conversations.clear()
        self.query_edit.setFocus()
        self.query_edit.selectAll()
        super().showEvent(event)

    def done(self, result: int) -> None:
        self.timer.stop()
        super().done(result)

    def eventFilter(self, watched: QObject, event: QEvent) -> bool:
        """Up/Down move through the hits and Enter chooses, without leaving the query field."""
        if watched is not self.query_edit or event.type() != QEvent.Type.KeyPress:
            return super().eventFilter(watched, event)
        assert isinstance(event, QKeyEvent)
        key = event.key()
        if key in (Qt.Key.Key_Return, Qt.Key.Key_Enter):
            self.choose_current()
            return True
        if key in (Qt.Key.Key_Down, Qt.Key.Key_Up, Qt.Key.Key_PageDown, Qt.Key.Key_PageUp):
            self._move(key)
            return True
        return super().eventFilter(watched, event)

    def _move(self, key: int) -> None:
        rows = self.model.rowCount()
        if not rows:
            return
        step = {Qt.Key.Key_Down: 1, Qt.Key.Key_Up: -1, Qt.Key.Key_PageDown: 10,
                Qt.Key.Key_PageUp: -10}[Qt.Key(key)]
        row = min(rows - 1, max(0, self.results.currentIndex().row() + step))
        self.results.setCurrentIndex(self.model.index(row, 0))
