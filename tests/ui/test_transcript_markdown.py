"""Rendering never reaches the network; Markdown is shown with highlighted code."""

from __future__ import annotations

import base64
import io
import socket
from collections.abc import Iterator
from pathlib import Path

import pytest
from PIL import Image as PILImage
from PySide6.QtCore import QCoreApplication, QUrl
from PySide6.QtGui import QColor, QImage, QTextDocument
from PySide6.QtNetwork import QNetworkAccessManager
from PySide6.QtWidgets import QApplication
from pytestqt.qtbot import QtBot
from transcript_helpers import load

from explorer.store import Store
from explorer.tree.model import Message, Part
from explorer.ui.transcript import TranscriptView
from explorer.ui.transcript.cards import MessageCard
from explorer.ui.transcript.highlight import language_for, token_formats
from explorer.ui.transcript.markdown import DocumentView, SafeDocument, decode_data_url


@pytest.fixture
def listener() -> Iterator[socket.socket]:
    """A real local server: any fetch of its URLs would show up as a connection."""
    server = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    server.bind(("127.0.0.1", 0))
    server.listen(5)
    server.setblocking(False)
    yield server
    server.close()


def assert_no_connection(server: socket.socket) -> None:
    with pytest.raises(BlockingIOError):
        conn, _ = server.accept()
        conn.close()


def hostile_markdown(port: int) -> str:
    return (
        f"Look: ![x](http://127.0.0.1:{port}/a.png) and\n\n"
        f'<img src="http://127.0.0.1:{port}/b.png"> <b>bold?</b>\n\n'
        f"<script>alert(1)</script>\n\n[a link](http://127.0.0.1:{port}/page)\n"
    )


def png_data_url() -> str:
    out = io.BytesIO()
    PILImage.new("RGB", (3, 2), "red").save(out, "PNG")
    return "data:image/png;base64," + base64.b64encode(out.getvalue()).decode()


def test_remote_image_is_refused_and_html_is_shown_as_text(
    qtbot: QtBot, listener: socket.socket
) -> None:
    port = listener.getsockname()[1]
    view = DocumentView()
    qtbot.addWidget(view)
    view.resize(500, 300)
    view.show()
    view.set_markdown(hostile_markdown(port))
    view.grab()
    QApplication.processEvents()
    image_url = f"http://127.0.0.1:{port}/a.png"
    assert image_url in view.safe_document.refused, "loadResource was asked and refused"
    resource = view.safe_document.resource(QTextDocument.ResourceType.ImageResource.value,
                                           QUrl(image_url))
    assert resource is None
    text = view.toPlainText()
    assert '<img src="http://127.0.0.1:' in text
    assert "<script>alert(1)</script>" in text
    assert all("b.png" not in url for url in view.safe_document.refused), "no <img> element made"
    assert_no_connection(listener)
    app = QCoreApplication.instance()
    assert app is not None
    assert app.findChildren(QNetworkAccessManager) == []


def test_a_hostile_message_in_the_transcript_makes_no_request(
    qtbot: QtBot, tmp_path: Path, listener: socket.socket
) -> None:
    port = listener.getsockname()[1]
    with Store(tmp_path / "h.db") as store:
        conv = store.create_conversation("hostile")
        store.append_turn(conv, [
            Message(None, None, "user", [Part("text", "show me")]),
            Message(None, None, "assistant", [Part("text", hostile_markdown(port))]),
        ])
        view = TranscriptView(store)
        qtbot.addWidget(view)
        view.resize(800, 600)
        view.show()
        load(qtbot, view, conv)
        view.grab()
        QApplication.processEvents()
        card = view.card_for(view.message_ids()[1])
        assert isinstance(card, MessageCard)
        refused = card.texts[0].safe_document.refused
        assert f"http://127.0.0.1:{port}/a.png" in refused
        assert_no_connection(listener)


def test_clicking_a_link_follows_nothing(qtbot: QtBot, listener: socket.socket) -> None:
    port = listener.getsockname()[1]
    view = DocumentView()
    qtbot.addWidget(view)
    view.set_markdown(f"[go](http://127.0.0.1:{port}/page)")
    before = view.toPlainText()
    view.anchorClicked.emit(QUrl(f"http://127.0.0.1:{port}/page"))
    QApplication.processEvents()
    assert view.toPlainText() == before
    assert view.source().isEmpty()
    assert_no_connection(listener)


def test_inline_data_images_are_allowed() -> None:
    doc = SafeDocument()
    url = png_data_url()
    loaded = doc.loadResource(QTextDocument.ResourceType.ImageResource.value, QUrl(url))
    assert isinstance(loaded, QImage)
    assert (loaded.width(), loaded.height()) == (3, 2)
    assert doc.refused == []


@pytest.mark.parametrize("url", ["file:///etc/passwd", "https://example.com/x.png",
                                 "qrc:/icon.png", "relative/picture.png", "ftp://h/x"])
def test_every_non_data_url_is_refused(url: str) -> None:
    doc = SafeDocument()
    assert doc.loadResource(QTextDocument.ResourceType.ImageResource.value, QUrl(url)) is None
    assert len(doc.refused) == 1


def test_data_url_decoding() -> None:
    assert decode_data_url("data:text/plain,a%20b") == b"a b"
    assert decode_data_url("data:;base64,aGk=") == b"hi"
    assert decode_data_url("data:nocomma") is None
    assert decode_data_url("http://x/y") is None


def _formats_at(doc: QTextDocument, line: str) -> dict[str, QColor]:
    """Colour of each highlighted token in the block whose text is ``line``."""
    block = doc.findBlock(0)
    while block.isValid() and block.text() != line:
        block = block.next()
    assert block.isValid(), f"no block {line!r}"
    out = {}
    for r in block.layout().formats():
        out[line[r.start:r.start + r.length]] = r.format.foreground().color()
    return out


def test_code_blocks_get_keywords_strings_comments_and_numbers_coloured() -> None:
    doc = SafeDocument()
    doc.set_markdown_text(
        "Prose with def and 42 stays plain.\n\n```python\n"
        "def f(x):  # note\n    return 'def' + 42\n```\n")
    colours = {k: f.foreground().color().name()
               for k, f in token_formats(QApplication.palette()).items()}
    line1 = _formats_at(doc, "def f(x):  # note")
    assert line1["def"].name() == colours["keyword"]
    assert line1["# note"].name() == colours["comment"]
    line2 = _formats_at(doc, "    return 'def' + 42")
    assert line2["'def'"].name() == colours["string"]
    assert line2["42"].name() == colours["number"]
    assert line2["return"].name() == colours["keyword"]
    assert _formats_at(doc, "Prose with def and 42 stays plain.") == {}


def test_block_comments_carry_across_lines() -> None:
    doc = SafeDocument()
    doc.set_markdown_text("```js\nlet a = 1; /* start\nstill comment\nend */ const b\n```\n")
    comment = token_formats(QApplication.palette())["comment"].foreground().color().name()
    assert _formats_at(doc, "still comment")["still comment"].name() == comment
    last = _formats_at(doc, "end */ const b")
    assert last["end */"].name() == comment
    assert last["const"].name() != comment


def test_language_names_and_aliases() -> None:
    assert language_for("py") is language_for("python")
    assert language_for("TS") is language_for("javascript")
    assert language_for("klingon") is None
