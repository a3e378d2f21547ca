"""Full-text search over every conversation, results updated as the person types.

Queries are debounced (one single-shot timer restarted on each keystroke) and run on a
worker with its own read connection (:mod:`explorer.ui.search_worker`): a newer keystroke
interrupts the search in flight. The first page shows as soon as it is ready, the next
when the list is scrolled to its end. Choosing a hit emits ``hitChosen``.
"""

from __future__ import annotations

import html
import re
import unicodedata
from collections.abc import Callable
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

from explorer.store import Store
from explorer.ui.search_worker import PAGE, Found, SearchWorker
from explorer.ui.window.format_badges import format_icon

DEBOUNCE_MS = 150
RESULT_LIMIT = PAGE  # the first page; more come as the list is scrolled
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
        self.more = False  # the query has hits past the last row
        self.ask_more: Callable[[], None] = lambda: None

    def set_hits(self, hits: list[Hit], more: bool = False) -> None:
        self.beginResetModel()
        self.hits = hits
        self.more = more
        self.endResetModel()

    def add_hits(self, hits: list[Hit], more: bool) -> None:
        self.more = more
        if hits:
            self.beginInsertRows(QModelIndex(), len(self.hits), len(self.hits) + len(hits) - 1)
            self.hits = self.hits + hits
            self.endInsertRows()

    def canFetchMore(self, parent: Index = QModelIndex()) -> bool:  # noqa: B008
        return not parent.isValid() and self.more

    def fetchMore(self, parent: Index = QModelIndex()) -> None:  # noqa: B008
        """The view reached the end: the next page is asked for (it arrives by add_hits)."""
        if self.canFetchMore(parent):
            self.more = False
            self.ask_more()

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
        self.model.ask_more = self._more
        self.results = QListView(self)
        self.results.setModel(self.model)
        self.results.setItemDelegate(HitDelegate(self.results))
        self.results.setUniformItemSizes(True)
        self.status = QLabel("Type to search.", self)
        self.status.setTextFormat(Qt.TextFormat.PlainText)
        self.timer = QTimer(self)
        self.timer.setSingleShot(True)
        self.timer.setInterval(DEBOUNCE_MS)
        self.worker = SearchWorker(store, self)
        self.worker.ready.connect(self._found)
        self.worker.failed.connect(self._failed)
        self._asked = ""  # the query whose hits the list shows or is waiting for
        self._note = ""
        self._choose_when_found = False
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
        """Search now (the timer calls this once typing pauses); the hits arrive later."""
        self.timer.stop()
        text = self._asked = self.query()
        if not text:
            self.worker.cancel()
            self.model.set_hits([])
            self.status.setText("Type to search.")
            self.resultsReady.emit(0)
            return
        self.status.setText("Searching…")
        self.worker.search(text)

    @property
    def searching(self) -> bool:
        return self.timer.isActive() or self.worker.busy

    def _more(self) -> None:
        if self._asked:
            self.worker.search(self._asked, self.model.rowCount())

    def _found(self, found: Found) -> None:
        if found.text != self._asked:
            return  # a query typed over since
        hits = [Hit(h.conversation_id, h.message_id, *found.titles[h.conversation_id],
                    snippet_html(h.snippet, found.text)) for h in found.page.hits]
        if found.offset == 0:
            self.model.set_hits(hits, found.page.more)
            if hits:
                self.results.setCurrentIndex(self.model.index(0, 0))
        else:
            self.model.add_hits(hits, found.page.more)
        self._note = found.page.note
        count = self.model.rowCount()
        self.status.setText(self._status_text(found.text, count, self.model.more, self._note))
        self.resultsReady.emit(count)
        if self._choose_when_found and found.offset == 0:
            self._choose_when_found = False
            self.choose_current()

    def _failed(self, error: str) -> None:
        self.model.set_hits([])
        self.status.setText(f"Search failed: {error}")
        self._choose_when_found = False
        self.resultsReady.emit(0)

    @staticmethod
    def _status_text(text: str, count: int, more: bool = False, note: str = "") -> str:
        if not text:
            return "Type to search."
        if count == 0:
            return "No matches."
        shown = f"{count}+ matches" if more else f"{count} match{'' if count == 1 else 'es'}"
        how = f", {note}" if note else (", the best first" if more else "")
        return f"{shown}{how}. Enter opens the selected one."

    def choose_current(self) -> bool:
        """Choose the selected hit (the first when none is selected); False when there is none.
        While a search is still running, its best hit is chosen when it arrives."""
        if self.timer.isActive():
            self.run_query()
        if self.worker.busy:
            self._choose_when_found = True
            return True
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
        self.worker.forget_titles()
        self.query_edit.setFocus()
        self.query_edit.selectAll()
        super().showEvent(event)

    def done(self, result: int) -> None:
        self.timer.stop()
        self.worker.cancel()
        self._choose_when_found = False
        super().done(result)

    def shutdown(self) -> None:
        """The window closes: stop the search in flight and close its connection."""
        self.timer.stop()
        self.worker.shutdown()

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
