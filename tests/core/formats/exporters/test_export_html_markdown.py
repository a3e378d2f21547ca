"""The HTML export renders the Markdown people and models wrote, and nothing in it can become
markup that runs, fetches or links anywhere unsafe."""

from __future__ import annotations

import random
import re
import time
from html.parser import HTMLParser

import pytest
from markdown_it import MarkdownIt

from explorer.formats.exporters import EXPORTERS
from explorer.formats.exporters.html_markdown import render_markdown
from explorer.tree.model import Message, Part

ALLOWED = {"p", "br", "strong", "em", "code", "pre", "a", "h1", "h2", "h3", "h4", "h5", "h6",
           "ul", "ol", "li", "blockquote", "hr", "table", "thead", "tbody", "tr", "th", "td",
           "span"}


class _Tags(HTMLParser):
    def __init__(self) -> None:
        super().__init__(convert_charrefs=True)
        self.tags: list[tuple[str, dict[str, str | None]]] = []
        self.text: list[str] = []

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        self.tags.append((tag, dict(attrs)))

    def handle_data(self, data: str) -> None:
        self.text.append(data)


def _parse(html: str) -> _Tags:
    page = _Tags()
    page.feed(html)
    page.close()
    return page


def _tags(markdown: str) -> list[str]:
    return [tag for tag, _ in _parse(render_markdown(markdown)).tags]


def _assert_inert(html: str) -> None:
    """Only the renderer's own elements, each with only the attributes it writes."""
    for tag, attrs in _parse(html).tags:
        assert tag in ALLOWED, tag
        for name, value in attrs.items():
            value = value or ""
            allowed = {"a": {"href", "rel"}, "code": {"class"}, "ol": {"start"},
                       "th": {"style"}, "td": {"style"}, "span": {"class"}}.get(tag, set())
            assert name in allowed, (tag, name, value)
            if name == "href":
                assert value.startswith(("http://", "https://", "mailto:")), value
            if name == "style":
                assert re.fullmatch(r"text-align: (left|right|center)", value), value
            if name == "class":
                assert re.fullmatch(r"language-[A-Za-z0-9_+\-.#]+|ctl", value), value


def test_emphasis_code_and_line_breaks_render_as_elements() -> None:
    html = render_markdown("**bold**, *italic*, _also_, `a < b` and snake_case_name\nnext")
    assert html == ("<p><strong>bold</strong>, <em>italic</em>, <em>also</em>, "
                    "<code>a &lt; b</code> and snake_case_name<br>\nnext</p>")


def test_headings_rules_quotes_and_paragraphs_render_as_elements() -> None:
    text = "# One\n\n###### Six ##\n\ntext\n\n---\n\n> quoted\n> > inner\n\nafter"
    assert _tags(text) == ["h1", "h6", "p", "hr", "blockquote", "p", "blockquote", "p", "p"]
    assert "<h6>Six</h6>" in render_markdown(text)


def test_lists_nest_and_numbered_lists_keep_their_start() -> None:
    html = render_markdown("- a\n- b\n  - c\n  - d\n- e\n\n3. three\n4. four")
    assert _tags("- a\n- b\n  - c\n  - d\n- e") == ["ul", "li", "li", "ul", "li", "li", "li"]
    assert "<li>b\n<ul>\n<li>c</li>" in html
    assert '<ol start="3">\n<li>three</li>\n<li>four</li>\n</ol>' in html


def test_a_fence_keeps_its_language_as_a_class_and_its_content_verbatim() -> None:
    html = render_markdown("```python\nif a < b and **c**:\n    <script>x</script>\n```\nafter")
    assert html.startswith('<pre><code class="language-python">if a &lt; b and **c**:\n'
                           "    &lt;script&gt;x&lt;/script&gt;</code></pre>")
    assert html.endswith("<p>after</p>")
    assert render_markdown("    indented\n    code") == "<pre><code>indented\ncode</code></pre>"
    unclosed = render_markdown("```\n**runs to the end**")
    assert unclosed == "<pre><code>**runs to the end**</code></pre>"


def test_a_simple_pipe_table_is_a_table_and_a_broken_one_stays_preformatted() -> None:
    page = _parse(render_markdown("| a | b |\n|:--|--:|\n| 1 | 2 \\| 3 |\n| x |"))
    assert [t for t, _ in page.tags] == ["table", "thead", "tr", "th", "th", "tbody", "tr",
                                         "td", "td", "tr", "td", "td"]
    assert "2 | 3" in page.text
    assert page.tags[4][1] == {"style": "text-align: right"}
    assert _tags("| a | b |\n|---|\n| c | d |") == ["pre", "code"]


def test_links_are_made_only_to_http_https_and_mailto() -> None:
    html = render_markdown("[site](https://example.org/a_(b)) [mail](mailto:a@b.c) "
                           '[t](http://x.y "title")')
    links = [attrs for tag, attrs in _parse(html).tags if tag == "a"]
    assert [a["href"] for a in links] == ["https://example.org/a_(b)", "mailto:a@b.c",
                                          "http://x.y"]
    assert all(a["rel"] == "noopener noreferrer" for a in links)
    for address in ("javascript:alert(1)", "JaVaScRiPt:alert(1)", "javascript&#58;alert(1)",
                    "data:text/html,<b>x</b>", "vbscript:x", " javascript:x", "//evil.example",
                    "file:///etc/passwd", "java\tscript:x", "https://ok.example\u0000x"):
        out = render_markdown(f"[click]({address})")
        assert "<a" not in out, address
        assert "click" in "".join(_parse(out).text)


def test_markdown_images_are_named_never_fetched() -> None:
    html = render_markdown("![a chart](http://evil.example/x.png) ![](https://t.example/p.gif) "
                           "[![inner](http://e.example/i.png)](https://ok.example)")
    assert "<img" not in html and "evil.example" not in html and "t.example" not in html
    assert "[image: a chart]" in html and "[image]" in html


@pytest.mark.parametrize("text", [
    "<script>alert(1)</script>",
    "<img src=x onerror=alert(1)>",
    "[x](javascript:alert(1))",
    "![](http://evil/x.png)",
    '<a href="javascript:alert(1)">click</a>',
    "**<b>bold</b>** *<i onmouseover=alert(1)>x</i>*",
    "`</code><script>alert(1)</script>`",
    "[<img src=x onerror=alert(1)>](https://ok.example)",
    '[x](https://ok.example/"onmouseover="alert(1))',
    "| <b>h</b> |\n|---|\n| <script>x</script> |",
    "> <iframe src=//evil.example></iframe>",
    "```x\" onload=\"alert(1)\n</pre><script>alert(1)</script>\n```",
    "- <svg onload=alert(1)>\n  - [a](data:text/html;base64,PHNjcmlwdD4=)",
    "**a *b [c](https://x.example **d* e",
])
def test_hostile_markdown_stays_inert(text: str) -> None:
    html = render_markdown(text)
    _assert_inert(html)
    assert "<script" not in html and "<img" not in html and "<iframe" not in html


def test_random_markdown_and_html_soup_stays_inert() -> None:
    pieces = ["*", "**", "_", "`", "```", "[", "]", "(", ")", "![", "](", "<", ">", "> ", "- ",
              "1. ", "#", "|", "---", "\n", "\n\n", "  ", "    ", "\\", "a", "word ", "&#58;",
              "javascript:", "https://x.example", "<script>", "onerror=", '"', "'", "\u202e"]
    rng = random.Random(7)
    for _ in range(400):
        text = "".join(rng.choice(pieces) for _ in range(rng.randrange(1, 60)))
        _assert_inert(render_markdown(text))


def test_bidi_overrides_and_nul_are_shown_in_rendered_text() -> None:
    html = render_markdown("# photo\u202egnp.exe\n\n**a\x00b** `c\u2066d`\n\n```\ne\u202ef\n```")
    assert "\u202e" not in html and "\x00" not in html and "\u2066" not in html
    assert '<h1>photo<span class="ctl">[U+202E]</span>gnp.exe</h1>' in html
    assert '<strong>a<span class="ctl">[U+0000]</span>b</strong>' in html
    assert '<code>c<span class="ctl">[U+2066]</span>d</code>' in html
    assert 'e<span class="ctl">[U+202E]</span>f</code></pre>' in html


@pytest.mark.parametrize("text", [
    "*" * 1_000_000,
    "*a" * 128_000,
    "**a " * 64_000,
    "*_" * 128_000,
    "_a" * 128_000,
    "[" * 256_000,
    "[a](" * 64_000,
    "![" * 128_000,
    "`" * 256_000,
    "`a``" * 64_000,
    ">" * 256_000,
    "- " * 128_000 + "a",
    "|" * 256_000 + "\n" + "|-" * 128_000,
    "# a" + " " * 256_000 + "b",
    "```\n" * 64_000,
    "a\n" * 128_000,
    "\n".join(" " * i + "- a" for i in range(0, 4000, 2)),
], ids=lambda text: repr(text[:8]))
def test_pathological_input_finishes_fast(text: str) -> None:
    start = time.perf_counter()
    html = render_markdown(text)
    assert time.perf_counter() - start < 5  # linear: a quadratic pass would take hours
    _assert_inert(html)


def test_simple_markdown_renders_as_a_reference_renderer_does() -> None:
    reference = MarkdownIt("commonmark").enable("table")
    for text in ["**bold** and *it*", "# Title\n\n## Part ##", "- a\n- b\n  - c\n- d", "3. a\n4. b",
                 "> q\n\n---", "```py\nx < 1\n```", "`a < b`", "***x***", "a *b **c** d*",
                 "| a | b |\n|---|:-:|\n| 1 | 2 |", "    code\n    more", "_a_ snake_case",
                 "\\*not\\*", "* * *", "[t](https://x.y/)"]:
        ours = render_markdown(text).replace(' rel="noopener noreferrer"', "")
        theirs = reference.render(text).replace("<hr />", "<hr>")
        assert re.sub(r"\s+", "", ours) == re.sub(r"\s+", "", theirs), text


def test_the_html_export_renders_message_markdown_and_keeps_tool_output_verbatim() -> None:
    messages = [
        Message(1, None, "user", [Part("text", "Please **fix** it:\n\n- one\n- two")]),
        Message(2, 1, "assistant", [Part("thinking", "*plan*"),
                                    Part("tool_use", '{"cmd": "**x**"}', tool_name="Bash",
                                         tool_use_id="c1")]),
        Message(3, 2, "user", [Part("tool_result", "**raw** <b>", tool_use_id="c1")]),
        Message(4, 3, "assistant", [Part("text", "Done: `ok` [docs](https://d.example)")]),
    ]
    html = "\n".join(EXPORTERS["html"].lines({"title": "t"}, messages, 4))
    assert '<div class="md"><p>Please <strong>fix</strong> it:</p>' in html
    assert "<ul>\n<li>one</li>\n<li>two</li>\n</ul>" in html
    assert '<summary>Thinking</summary><div class="md"><p><em>plan</em></p>' in html
    assert "<pre>**raw** &lt;b&gt;</pre>" in html and "&quot;**x**&quot;" in html
    assert '<code>ok</code> <a href="https://d.example" rel="noopener noreferrer">docs</a>' in html
