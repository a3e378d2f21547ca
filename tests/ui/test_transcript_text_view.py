"""Prose parts are painted by a light view, not a text browser each (V2), and read the same."""

from __future__ import annotations

from pathlib import Path

from PySide6.QtCore import QPoint, QPointF, Qt, QUrl
from PySide6.QtGui import QImage
from PySide6.QtTest import QTest
from PySide6.QtWidgets import QApplication, QTextBrowser, QWidget
from pytestqt.qtbot import QtBot
from transcript_helpers import load

from explorer.store import Store
from explorer.tree.model import Message, Part
from explorer.ui.transcript import TranscriptView
from explorer.ui.transcript.cards import MessageCard
from explorer.ui.transcript.markdown import DocumentView
from explorer.ui.transcript.text_view import TextView

PROSE = ("Done. **sniff_encoding()** tries UTF-8 on the whole file and falls back to "
         "`cp1252`, see [the notes](https://example.com/notes).\n\n"
         "- one item\n- two items, the second long enough to wrap at a narrow width\n\n"
         "| file | rows |\n|---|---|\n| a.csv | 1,204 |\n")
CODE = "Run this:\n\n```python\nprint('hi')\n```\n"


def side_by_side(qtbot: QtBot, text: str) -> tuple[QWidget, DocumentView, TextView]:
    """The same text in both views, side by side in ``host`` (kept by the caller)."""
    host = QWidget()
    qtbot.addWidget(host)
    host.resize(900, 400)
    browser, light = DocumentView(host), TextView(host)
    for view in (browser, light):
        view.set_markdown(text)
        view.resize(420, view.heightForWidth(420))
    light.move(440, 0)
    host.show()
    qtbot.waitExposed(host)
    return host, browser, light


def test_V2_prose_reads_exactly_as_in_the_browser_view(qtbot: QtBot) -> None:
    _host, browser, light = side_by_side(qtbot, PROSE)
    assert light.height() == browser.height() and light.toPlainText() == browser.toPlainText()
    a, b = browser.grab().toImage(), light.grab().toImage()
    assert a.convertToFormat(QImage.Format.Format_RGB32) == \
        b.convertToFormat(QImage.Format.Format_RGB32), "the same pixels"


def test_V2_code_reads_exactly_as_in_the_browser_view(qtbot: QtBot) -> None:
    host = QWidget()
    qtbot.addWidget(host)
    browser, light = DocumentView(host), TextView(host)
    arguments = '{\n  "command": "git merge --no-ff feature/encoding",\n  "timeout": 120000\n}'
    for view in (browser, light):
        view.set_code(arguments, "json")
        view.resize(300, view.heightForWidth(300))
    light.move(320, 0)
    host.show()
    qtbot.waitExposed(host)
    assert light.height() == browser.height() and light.toPlainText() == arguments
    a, b = browser.grab().toImage(), light.grab().toImage()
    assert a.convertToFormat(QImage.Format.Format_RGB32) == \
        b.convertToFormat(QImage.Format.Format_RGB32), "the same pixels, highlighted alike"


def test_V2_a_card_of_prose_has_no_text_browser_and_code_keeps_one(
    qtbot: QtBot, tmp_path: Path
) -> None:
    with Store(tmp_path / "light.db") as store:
        conv = store.create_conversation("light")
        store.append_turn(conv, [Message(None, None, "user", [Part("text", PROSE)]),
                                 Message(None, None, "assistant", [Part("text", CODE)])])
        view = TranscriptView(store)
        qtbot.addWidget(view)
        view.resize(800, 600)
        view.show()
        load(qtbot, view, conv)
        prose, code = (view.card_for(mid) for mid in view.message_ids())
        assert isinstance(prose, MessageCard) and isinstance(code, MessageCard)
        assert prose.findChildren(QTextBrowser) == [] and isinstance(prose.texts[0], TextView)
        assert isinstance(code.texts[0], DocumentView) and code.texts[0].copy_buttons
        clicks: list[int] = []
        view.messageSelected.connect(clicks.append)
        QTest.mouseClick(prose.texts[0], Qt.MouseButton.LeftButton, pos=QPoint(5, 5))
        assert clicks == [prose.mid], "a click on the text selects its message"


def test_V2_the_light_view_selects_by_dragging_and_copies(qtbot: QtBot) -> None:
    _host, _, light = side_by_side(qtbot, "alpha beta gamma delta\n\nsecond paragraph")
    start = light.cursorRect(0).center()
    end = light.cursorRect(len("alpha beta")).center()
    QTest.mousePress(light, Qt.MouseButton.LeftButton, pos=start)
    QTest.mouseMove(light, end)
    QTest.mouseRelease(light, Qt.MouseButton.LeftButton, pos=end)
    assert light.selected_text() == "alpha beta"
    QTest.keyClick(light, Qt.Key.Key_C, Qt.KeyboardModifier.ControlModifier)
    assert QApplication.clipboard().text() == "alpha beta"
    QTest.mouseDClick(light, Qt.MouseButton.LeftButton, pos=light.cursorRect(13).center())
    assert light.selected_text() == "gamma"
    QTest.keyClick(light, Qt.Key.Key_A, Qt.KeyboardModifier.ControlModifier)
    QTest.keyClick(light, Qt.Key.Key_C, Qt.KeyboardModifier.ControlModifier)
    assert QApplication.clipboard().text() == "alpha beta gamma delta\nsecond paragraph"


def test_V2_a_link_in_the_light_view_is_clickable_and_follows_nothing(qtbot: QtBot) -> None:
    _host, _, light = side_by_side(qtbot, "see [the notes](http://127.0.0.1:9/page) here")
    at = light.cursorRect(len("see t")).center()
    assert light.document().documentLayout().anchorAt(QPointF(at)) == "http://127.0.0.1:9/page"
    with qtbot.waitSignal(light.anchorClicked, timeout=1000) as clicked:
        QTest.mouseClick(light, Qt.MouseButton.LeftButton, pos=at)
    assert clicked.args == [QUrl("http://127.0.0.1:9/page")]
    assert light.toPlainText() == "see the notes here" and light.selected_text() == ""
    assert light.safe_document.refused == []
