"""The command bar (Ctrl+K, or "/" in the transcript): type a slash command, see offers, run it.

Parsing and completion come from :mod:`explorer.app.ops.slash`, so the bar and the
command line speak one language. Mistakes show inline under the line, never in
a dialog; the window reports what a command did through :meth:`CommandBar.show_result`.
"""

from __future__ import annotations

from collections.abc import Sequence

from PySide6.QtCore import QEvent, QModelIndex, QObject, QStringListModel, Qt, Signal
from PySide6.QtGui import QFont, QFontDatabase, QHideEvent, QKeyEvent
from PySide6.QtWidgets import (
    QCompleter,
    QLabel,
    QLineEdit,
    QListView,
    QPlainTextEdit,
    QSizePolicy,
    QVBoxLayout,
    QWidget,
)

from explorer.app.ops.slash import BY_NAME, Arg, SlashError, complete, parse, usage_hint

HISTORY_LIMIT = 200
RESULT_MAX_LINES = 18
ERROR_COLOUR = "#d64541"  # readable on both the light and the dark palette


class CommandLine(QLineEdit):
    """The bar's line: Tab completes, Up/Down walk the history, Enter runs, Esc closes.

    Keys are caught in :meth:`event` because the completer's popup forwards
    them straight to ``event()``, bypassing event filters, and because Tab must
    not move the focus away.
    """

    tabPressed = Signal()
    enterPressed = Signal()
    escapePressed = Signal()
    historyStep = Signal(int)  # -1 older, +1 newer

    def event(self, e: QEvent) -> bool:
        if e.type() == QEvent.Type.KeyPress and isinstance(e, QKeyEvent) and self._handle(e):
            e.accept()
            return True
        return super().event(e)

    def _handle(self, e: QKeyEvent) -> bool:
        if e.modifiers() & ~Qt.KeyboardModifier.KeypadModifier:
            return False
        signals = {
            Qt.Key.Key_Tab: self.tabPressed,
            Qt.Key.Key_Return: self.enterPressed,
            Qt.Key.Key_Enter: self.enterPressed,
            Qt.Key.Key_Escape: self.escapePressed,
        }
        key = Qt.Key(e.key())
        if key in signals:
            signals[key].emit()
            return True
        if key in (Qt.Key.Key_Up, Qt.Key.Key_Down):
            self.historyStep.emit(-1 if key == Qt.Key.Key_Up else 1)
            return True
        return False


class CommandBar(QWidget):
    """A line with a completion popup, a usage hint, an inline error and a result area.

    ``commandEntered(SlashCommand)`` fires when Enter is pressed on a valid
    line; the line then clears and joins the history. ``closed()`` fires when
    Esc hides the bar, so the window can give the focus back.
    """

    commandEntered = Signal(object)
    closed = Signal()

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self._labels: list[str] | None = None
        self._history: list[str] = []
        self._history_pos: int | None = None
        self._draft = ""
        self._quiet = False
        self._floating = False
        self.edit = CommandLine(self)
        self.edit.setObjectName("commandLine")
        self.edit.setPlaceholderText("Type / for a command: /compact · /context · /tree · /fork · "
                                     "/checkpoint NAME · /rewind NAME · /export FORMAT · …")
        self.model = QStringListModel(self)
        self.completer = QCompleter(self.model, self)
        self.completer.setCompletionMode(QCompleter.CompletionMode.UnfilteredPopupCompletion)
        self.completer.setCaseSensitivity(Qt.CaseSensitivity.CaseInsensitive)
        self.popup = QListView()
        self.popup.setObjectName("commandOffers")
        self.completer.setPopup(self.popup)  # the completer takes ownership
        self.completer.setWidget(self.edit)
        self.hint_label = self._small_label()
        self.error_label = self._small_label()
        self.error_label.setObjectName("commandError")
        self.error_label.setStyleSheet(f"color: {ERROR_COLOUR};")
        self.result_view = self._result_view()
        self.setSizePolicy(QSizePolicy.Policy.Preferred, QSizePolicy.Policy.Maximum)
        box = QVBoxLayout(self)
        box.setContentsMargins(4, 4, 4, 4)
        box.setSpacing(2)
        for widget in (self.edit, self.hint_label, self.error_label, self.result_view):
            box.addWidget(widget)
        self._connect()

    def _small_label(self) -> QLabel:
        label = QLabel(self)
        label.setTextFormat(Qt.TextFormat.PlainText)
        label.setWordWrap(True)
        label.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
        label.hide()
        return label

    def _result_view(self) -> QPlainTextEdit:
        view = QPlainTextEdit(self)
        view.setObjectName("commandResult")
        view.setReadOnly(True)
        view.setLineWrapMode(QPlainTextEdit.LineWrapMode.NoWrap)
        font = QFontDatabase.systemFont(QFontDatabase.SystemFont.FixedFont)
        font.setStyleHint(QFont.StyleHint.TypeWriter)
        view.setFont(font)
        view.setFocusPolicy(Qt.FocusPolicy.ClickFocus)
        view.hide()
        return view

    def _connect(self) -> None:
        self.edit.textChanged.connect(self._text_changed)
        self.edit.tabPressed.connect(self.accept_completion)
        self.edit.enterPressed.connect(self._enter)
        self.edit.escapePressed.connect(self._escape)
        self.edit.historyStep.connect(self._step_history)
        self.completer.activated[str].connect(self._take)  # type: ignore[index]

    # -- public API ------------------------------------------------------------------------
    def set_context(self, labels: Sequence[str]) -> None:
        """The checkpoint labels of the conversation on show (offered and checked by /rewind)."""
        self._labels = list(labels)
        self._refresh(popup=self.popup.isVisible())

    def open(self, prefix: str = "") -> None:
        """Show the bar with ``prefix`` typed and the focus in the line.

        Ctrl+K opens it empty, its placeholder saying to type "/"; a "/" typed in
        the transcript opens it with that "/" already in the line.
        """
        self.show()
        self.raise_()
        self._place()
        self._clear_output()
        self._history_pos = None
        self.edit.setFocus(Qt.FocusReason.ShortcutFocusReason)
        self.edit.setText(prefix)
        self.edit.end(False)
        self._refresh()

    def show_error(self, text: str) -> None:
        """Report a failure inline (the line keeps its text so it can be fixed)."""
        self.result_view.hide()
        self.error_label.setText(text)
        self.error_label.show()
        self._place()

    # -- overlay -----------------------------------------------------------------------------
    def overlay(self, host: QWidget) -> None:
        """Float over ``host``'s top edge instead of taking room in its layout, on a background
        of its own (a style sheet's: a palette fill is dropped when the style sheet polishes)."""
        self.setParent(host)
        self._floating = True
        self.setObjectName("commandBar")
        self.setAttribute(Qt.WidgetAttribute.WA_StyledBackground, True)
        self.setStyleSheet("#commandBar { background: palette(window); "
                           "border: 1px solid palette(mid); border-radius: 4px; }")
        host.installEventFilter(self)
        self._place()

    def eventFilter(self, watched: QObject, event: QEvent) -> bool:
        if watched is self.parentWidget() and event.type() == QEvent.Type.Resize:
            self._place()
        return super().eventFilter(watched, event)

    def _place(self) -> None:
        host = self.parentWidget()
        if host is None or not self._floating:
            return
        width = min(host.width() - 16, max(560, host.width() * 2 // 3))
        width = max(200, width)
        self.setFixedWidth(width)
        height = self.heightForWidth(width)  # a wrapped hint or error is as tall as its lines
        self.resize(width, height if height > 0 else self.sizeHint().height())
        self.move((host.width() - self.width()) // 2, 6)
        self.raise_()

    def show_result(self, text: str) -> None:
        """Show what a command produced (``/tree``, ``/context``, a plan) in monospace."""
        self.error_label.hide()
        self.result_view.setPlainText(text)
        lines = max(1, min(text.count("\n") + 1, RESULT_MAX_LINES))
        metrics = self.result_view.fontMetrics()
        margins = self.result_view.contentsMargins()
        extra = 2 * int(self.result_view.document().documentMargin()) + margins.top() \
            + margins.bottom() + self.result_view.horizontalScrollBar().sizeHint().height()
        self.result_view.setFixedHeight(lines * metrics.lineSpacing() + extra)
        self.result_view.show()
        self._place()

    def completions(self) -> list[str]:
        """What the popup offers for the current text."""
        return list(self.model.stringList())

    def history(self) -> list[str]:
        return list(self._history)

    # -- typing ----------------------------------------------------------------------------
    def _text_changed(self, text: str) -> None:
        self.error_label.hide()
        if text[:1].isalpha():  # "co" means "/co": commands are the only thing typed here
            self.edit.setText("/" + text)
            return
        self._refresh(popup=not self._quiet)

    def _refresh(self, popup: bool = True) -> None:
        """Recompute the offers and the usage hint; show the popup when there is a choice."""
        text = self.edit.text()
        offers = complete(text, self._labels or [])
        self.model.setStringList(offers)
        hint = usage_hint(text)
        self.hint_label.setText(hint)
        self.hint_label.setVisible(bool(hint))
        if popup and offers and offers != [text] and self.edit.isVisible():
            self.completer.setCompletionPrefix(text)
            self.completer.complete()
            # Nothing highlighted until Down is pressed, so Enter runs the line as typed.
            self.popup.setCurrentIndex(QModelIndex())
        else:
            self.popup.hide()
        self._place()  # the hint came or went: the bar grows or shrinks with it

    def accept_completion(self) -> None:
        """Tab: take the highlighted offer, else the first one; a bare command gets its space."""
        index = self.popup.currentIndex() if self.popup.isVisible() else None
        offers = self.completions()
        if index is not None and index.isValid():
            self._take(str(index.data()))
        elif offers:
            self._take(offers[0])

    def _take(self, line: str) -> None:
        spec = BY_NAME.get(line.lstrip("/"))
        if spec is not None and spec.arg is not Arg.NONE:
            line += " "
        self.popup.hide()
        self.edit.setText(line)
        self.edit.end(False)
        self._refresh()

    def _enter(self) -> None:
        if self.popup.isVisible() and self.popup.currentIndex().isValid():
            self._take(str(self.popup.currentIndex().data()))
            return
        text = self.edit.text().strip()
        if not text:
            return
        try:
            command = parse(text, labels=self._labels)
        except SlashError as e:
            self.popup.hide()
            self.show_error(str(e))
            return
        self._remember(text)
        self._clear_output()
        self.edit.clear()
        self.commandEntered.emit(command)

    def _escape(self) -> None:
        if self.popup.isVisible():
            self.popup.hide()
            return
        self.hide()
        self.closed.emit()

    def _clear_output(self) -> None:
        self.error_label.hide()
        self.error_label.clear()
        self.result_view.hide()
        self.result_view.clear()

    # -- history ---------------------------------------------------------------------------
    def _remember(self, text: str) -> None:
        if not self._history or self._history[-1] != text:
            self._history.append(text)
            del self._history[:-HISTORY_LIMIT]
        self._history_pos = None

    def _step_history(self, step: int) -> None:
        if not self._history:
            return
        if self._history_pos is None:
            if step > 0:
                return
            self._draft = self.edit.text()
            self._history_pos = len(self._history)
        pos = self._history_pos + step
        if pos < 0:
            return
        if pos >= len(self._history):
            self._history_pos = None
            self._set_quietly(self._draft)
            return
        self._history_pos = pos
        self._set_quietly(self._history[pos])

    def _set_quietly(self, text: str) -> None:
        """Recall a line without popping offers over it."""
        self._quiet = True
        try:
            self.edit.setText(text)
        finally:
            self._quiet = False
        self.edit.end(False)

    def hideEvent(self, event: QHideEvent) -> None:
        self.popup.hide()
        super().hideEvent(event)

    def error_text(self) -> str:
        """The inline error on show, or "" (for the window's own checks)."""
        return self.error_label.text() if not self.error_label.isHidden() else ""

