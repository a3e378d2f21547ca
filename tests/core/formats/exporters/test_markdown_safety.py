"""The Markdown export is safe to render: rendered by markdown-it-py (CommonMark, with
tables) and Python-Markdown (plain, and with its fence and table extensions), the HTML has
no script, no event handler, no remote image and no ``javascript:``/``data:`` link, while
code keeps its exact text."""

from __future__ import annotations

from collections.abc import Callable
from html.parser import HTMLParser

import markdown
import pytest
from markdown_it import MarkdownIt

from explorer.formats.exporters import EXPORTERS
from explorer.formats.exporters.markdown_safety import safe_markdown, unsafe_url
from explorer.tree.model import Message, Part

PNG = b"\x89PNG\r\n\x1a\n" + b"\x00" * 16
HOST = "http://127.0.0.1:9/"

PAYLOADS = [
    "<script>fetch('http://127.0.0.1:9/s')</script>",
    '<img src="http://127.0.0.1:9/img" onerror="alert(1)">',
    "<IMG SRC=x onerror=alert(1)>",
    '<a href="javascript:alert(1)">raw link</a>',
    "<iframe src=http://127.0.0.1:9/f></iframe>",
    "<svg onload=alert(1)>",
    "<style>body{background:url(http://127.0.0.1:9/css)}</style>",
    "![remote](http://127.0.0.1:9/md-image.png)",
    "![data](data:image/svg+xml;base64,PHN2ZyBvbmxvYWQ9YWxlcnQoMSk+)",
    '![ref image][r]\n\n[r]: http://127.0.0.1:9/ref.png "t"',
    "[click](javascript:alert(1))",
    "[click](JaVaScRiPt:alert(1))",
    "[click](javascript&#58;alert(1))",
    "[click](java\tscript:alert(1))",
    "[click](<javascript:alert(1)>)",
    "[click](\njavascript:alert(1))",
    "[click](data:text/html;base64,PHNjcmlwdD5hbGVydCgxKTwvc2NyaXB0Pg==)",
    "[click](vbscript:msgbox(1))",
    "[ref][j]\n\n[j]: javascript:alert(1)",
    "[ref][k]\n\n[k]:\n  javascript:alert(1)",
    "<javascript:alert(1)>",
    "<http://127.0.0.1:9/autolink>",
    '[a](x "`") <img src=http://127.0.0.1:9/title onerror=alert(1)> `"`',
    "a ` b\n`<img src=http://127.0.0.1:9/span onerror=alert(1)>`",
    "| `a | <img src=http://127.0.0.1:9/table onerror=alert(1)> | b` |\n|---|---|---|",
    "```\nfine\n\n<img src=http://127.0.0.1:9/fence onerror=alert(1)>\n\n![x](http://127.0.0.1:9/f.png)\n```",
    "- item\n\n  ```\n  # comment\n  <script>alert(1)</script>\n  ```",
    "~~~\n<script>alert(1)</script>",
    "<details open><summary>x</summary><img src=http://127.0.0.1:9/d></details>",
    "<!-- comment --><img src=http://127.0.0.1:9/c>",
    "&lt;script&gt; is fine as text",
    "[x `a](b` y](javascript:alert(1))",
    "`ok` [a](javascript:alert(1)) `<img src=http://127.0.0.1:9/after onerror=alert(1)>`",
    "\\`<img src=http://127.0.0.1:9/esc onerror=alert(1)>`",
    "[a [b](javascript:alert(1))](https://ok.example)",
    "[a](  <javascript:alert(1)>  )",
    "[x]: <javascript:alert(1)>\n\n[x]",
    "[a](&#x6A;avascript:alert(1))",
    "``<img src=http://127.0.0.1:9/dbl onerror=alert(1)>` `",
    "    <script>alert(1)</script>",
    "<b>\n<script>alert(1)</script>\n</b>",
]


class Audit(HTMLParser):
    """Collects every unsafe thing a browser would act on in rendered HTML."""

    def __init__(self) -> None:
        super().__init__()
        self.problems: list[str] = []

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        if tag in {"script", "iframe", "object", "embed", "style", "svg", "link", "meta",
                   "base", "form", "frame"}:
            self.problems.append(f"<{tag}>")
        for name, value in attrs:
            v = (value or "").strip().lower()
            if name.startswith("on"):
                self.problems.append(f"{tag} {name}=")
            embedded = tag == "img" and name == "src" and v.startswith("data:image/png")
            if name in {"src", "srcset", "background", "poster"} and not embedded:
                self.problems.append(f"{tag} {name}={v[:40]}")
            if name in {"href", "action", "formaction", "xlink:href"} and unsafe_url(v):
                self.problems.append(f"{tag} {name}={v[:40]}")


def _commonmark(md: str) -> str:
    return MarkdownIt("commonmark").enable("table").render(md)


def _python_markdown(md: str) -> str:
    return markdown.markdown(md)


def _python_markdown_ext(md: str) -> str:
    return markdown.markdown(md, extensions=["fenced_code", "tables"])


RENDERERS: list[Callable[[str], str]] = [_commonmark, _python_markdown, _python_markdown_ext]


def hostile_path() -> list[Message]:
    text = "\n\n".join(PAYLOADS)
    return [
        Message(1, None, "user", [Part("text", text),
                                  Part("image", data=PNG, media_type="image/png")],
                created_at=0.0),
        Message(2, 1, "assistant", [
            Part("thinking", "\n\n".join(PAYLOADS) + "\n</details>\n" + PAYLOADS[0]),
            Part("tool_use", '{"html": "<script>alert(1)</script>"}',
                 tool_name="<img src=http://127.0.0.1:9/tool>", tool_use_id="<b>id</b>"),
        ], model="![m](http://127.0.0.1:9/model.png) <script>x</script>", created_at=1.0),
        Message(3, 2, "user", [Part("tool_result", "\n\n".join(PAYLOADS), tool_use_id="t")]),
        Message(4, 3, "assistant", [
            Part("image", media_type="x](javascript:alert(1)) <img src=http://127.0.0.1:9/mt>",
                 meta={"url": "http://127.0.0.1:9/stored.png"}),
            Part("text", "\n".join(PAYLOADS))]),
    ]


def export(path: list[Message], title: str = "T") -> str:
    return "\n".join(EXPORTERS["markdown"].lines({"title": title}, path, path[-1].id))


@pytest.mark.parametrize("render", RENDERERS, ids=lambda r: r.__name__)
def test_every_payload_is_inert_in_every_renderer(render: Callable[[str], str]) -> None:
    md = export(hostile_path(), title='<img src="http://127.0.0.1:9/title"> ![t](http://x/t.png)')
    audit = Audit()
    audit.feed(render(md))
    assert audit.problems == []
    assert "127.0.0.1:9" in md, "the addresses are still shown, as text"


@pytest.mark.parametrize("render", RENDERERS, ids=lambda r: r.__name__)
@pytest.mark.parametrize("payload", PAYLOADS)
def test_each_payload_alone_is_inert(render: Callable[[str], str], payload: str) -> None:
    audit = Audit()
    audit.feed(render(safe_markdown(payload)))
    assert audit.problems == [], payload


def test_code_keeps_its_exact_text_and_safe_links_stay_links() -> None:
    text = ("Use `Vec<String>` and `a < b`; see [the docs](https://example.org/x?a=1&b=2) "
            "or [home](/index.html) or <b>bold</b>.\n\n"
            "After a link [x](https://x.org) `T<U>` is escaped, to be safe.\n\n"
            "```python\nif a < b and c > d:\n    print('<ok>')\n\nreturn x & y\n```\n")
    html = _commonmark(safe_markdown(text))
    assert "<code>Vec&lt;String&gt;</code>" in html and "<code>a &lt; b</code>" in html
    assert "<code>T&amp;lt;U&gt;</code>" in html
    assert '<a href="https://example.org/x?a=1&amp;b=2">the docs</a>' in html
    assert '<a href="/index.html">home</a>' in html
    assert "&lt;b&gt;bold&lt;/b&gt;" in html and "<b>" not in html
    assert ('<pre><code class="language-python">if a &lt; b and c &gt; d:\n'
            "    print('&lt;ok&gt;')\n\nreturn x &amp; y</code></pre>") in html
    assert "<code>Vec&lt;String&gt;</code>" in _python_markdown(safe_markdown(text))


def test_tool_output_and_thinking_are_verbatim_code() -> None:
    out = "line <1>\n\n  indented & `ticks` ```\n<script>x</script>"
    path = [Message(1, None, "user", [Part("text", "go")]),
            Message(2, 1, "assistant", [Part("thinking", "think <hard>"),
                                        Part("tool_use", '{"a": 1}', tool_name="Bash",
                                             tool_use_id="t1")]),
            Message(3, 2, "user", [Part("tool_result", out, tool_use_id="t1")])]
    for render in RENDERERS:
        html = render(export(path))
        assert ("<pre><code>line &lt;1&gt;\n\n  indented &amp; `ticks` ```\n"
                "&lt;script&gt;x&lt;/script&gt;\n</code></pre>") in html, render.__name__
        assert "think &lt;hard&gt;" in html and "<details>" in html, render.__name__


@pytest.mark.parametrize("address,unsafe", [
    ("javascript:alert(1)", True), (" JAVASCRIPT:x", True), ("java\nscript:x", True),
    ("javascript&#x3A;x", True), ("&#106;avascript:x", True), ("data:text/html,x", True),
    ("vbscript:x", True), ("file:///etc/passwd", True), ("<javascript:x>", True),
    ("https://example.org", False), ("http://x", False), ("mailto:a@b.c", False),
    ("/path:with/colon", False), ("#anchor", False), ("docs/page.md", False), ("", False),
])
def test_unsafe_url(address: str, unsafe: bool) -> None:
    assert unsafe_url(address) is unsafe
