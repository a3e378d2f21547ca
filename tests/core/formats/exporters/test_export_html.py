"""HTML export: one self-contained page where no transcript content can become markup."""

from __future__ import annotations

from html.parser import HTMLParser
from pathlib import Path

from explorer.app.importing.demo import load_demo
from explorer.formats.exporters import EXPORTERS
from explorer.store import Store
from explorer.store.reads_all import conversation_messages
from explorer.tree.model import Message, Part

PNG = b"\x89PNG\r\n\x1a\n" + b"\x00" * 16
PAYLOADS = [
    "<script>alert(1)</script>",
    "<img src=x onerror=alert(1)>",
    '<a href="javascript:alert(1)">click</a>',
    "</style><script>alert(2)</script>",
    '" onmouseover="alert(3)" x="',
    "' onfocus='alert(4)' autofocus '",
    "</pre></details><iframe src=//evil.example></iframe>",
]


class _Page(HTMLParser):
    def __init__(self) -> None:
        super().__init__(convert_charrefs=True)
        self.tags: list[tuple[str, list[tuple[str, str | None]]]] = []
        self.text: list[str] = []
        self.style = ""
        self._in_style = False

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        self.tags.append((tag, attrs))
        self._in_style = tag == "style"

    def handle_startendtag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        self.tags.append((tag, attrs))

    def handle_endtag(self, tag: str) -> None:
        self._in_style = False

    def handle_data(self, data: str) -> None:
        if self._in_style:
            self.style += data
        else:
            self.text.append(data)


def _hostile_path() -> list[Message]:
    evil = " ".join(PAYLOADS)
    return [
        Message(1, None, "user", [Part("text", evil),
                                  Part("image", data=PNG, media_type='image/png" onerror="x'),
                                  Part("image", media_type="image/png",
                                       meta={"url": "javascript:alert(5)"}),
                                  Part("image", data=b"<svg onload=alert(6)>",
                                       media_type="image/svg+xml")]),
        Message(2, 1, "assistant", [
            Part("thinking", evil),
            Part("tool_use", '{"html": "<script>alert(7)</script>"}', tool_name=evil,
                 tool_use_id=evil)], model=evil),
        Message(3, 2, "user", [Part("tool_result", evil, tool_use_id=evil, is_error=True)]),
        Message(4, 3, "assistant", [Part("text", evil),
                                    Part("image", data=PNG, media_type="image/png")]),
    ]


def _render(messages: list[Message], title: str) -> tuple[str, _Page]:
    html = "\n".join(EXPORTERS["html"].lines({"title": title}, messages, messages[-1].id))
    page = _Page()
    page.feed(html)
    page.close()
    return html, page


def test_hostile_transcript_exports_with_no_executable_content() -> None:
    _, page = _render(_hostile_path(), title=" ".join(PAYLOADS))
    names = [tag for tag, _ in page.tags]
    assert "script" not in names and "iframe" not in names and "a" not in names
    assert names.count("style") == 1 and "alert" not in page.style
    for tag, attrs in page.tags:
        for name, value in attrs:
            assert not name.startswith("on"), (tag, name)
            assert "javascript:" not in (value or "").lower(), (tag, name)
            if name in ("src", "href", "action", "srcset", "poster"):
                assert (value or "").startswith("data:image/png;base64,"), (tag, name, value)
    images = [dict(attrs) for tag, attrs in page.tags if tag == "img"]
    assert len(images) == 1  # the clean PNG; the odd type, the link and the SVG are markers


def test_every_payload_is_shown_as_text() -> None:
    _, page = _render(_hostile_path(), title="t")
    text = "".join(page.text)
    for payload in PAYLOADS:
        assert text.count(payload) >= 5, payload  # text, thinking, tool name, result, answer
    assert "javascript:alert(5)" not in text  # a link-only image is a marker without its URL


def test_a_content_security_policy_forbids_scripts_and_external_loads() -> None:
    html, page = _render(_hostile_path(), title="t")
    metas = [dict(attrs) for tag, attrs in page.tags if tag == "meta"]
    csp = next(m["content"] or "" for m in metas
               if m.get("http-equiv") == "Content-Security-Policy")
    assert "default-src 'none'" in csp and "script-src 'none'" in csp
    assert "img-src data:" in csp
    head = html.split("<body>")[0]
    assert "http:" not in head and "https:" not in head and "//" not in head


def test_demo_exports_to_a_page_with_every_message(tmp_path: Path) -> None:
    store = Store(tmp_path / "demo.db")
    cid = load_demo(store)
    conv = store.conversation(cid)
    messages = conversation_messages(store.reader, cid)
    path = store.path(cid, conv.tip_id)
    store.close()
    html = "\n".join(EXPORTERS["html"].lines({"title": conv.title}, messages, conv.tip_id))
    page = _Page()
    page.feed(html)
    assert [tag for tag, _ in page.tags].count("article") == len(path)
    assert f"{len(messages) - len(path)} messages on other branches" in html
    assert sum(1 for tag, _ in page.tags if tag == "img") == 1
