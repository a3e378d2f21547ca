"""One self-contained HTML file of one path: safe to open, whatever the transcript holds.

Transcripts are untrusted text (tool output is whatever a web page or a file
said), so every piece of content is escaped and shown as text, never as markup.
What people and models wrote (text and thinking) is Markdown, rendered by
``html_markdown`` from escaped text: its emphasis, lists, code and tables show as
such, raw HTML shows as text, a link is made only to http, https or mailto, and an
image in Markdown is named, never fetched. Tool calls and results stay verbatim.
The page has inline CSS, no scripts and no external resources; images are
``data:`` URLs of raster types only (SVG can carry script). A
Content-Security-Policy meta forbids scripts and every load that is not inline,
as a second line of defence.

Like the Markdown export, only the root-to-tip path is written.
"""

from __future__ import annotations

import json
from collections.abc import Hashable, Iterator, Mapping, Sequence
from html import escape
from typing import Any

from explorer.formats.exporters.html_inline import CONTROL, shown
from explorer.formats.exporters.html_markdown import render_markdown
from explorer.formats.exporters.markdown import ROLE_NAMES, image_data_url, when
from explorer.formats.exporters.steps import active_path, image_marker
from explorer.tree.model import Message, Part

CSP = ("default-src 'none'; img-src data:; style-src 'unsafe-inline'; "
       "script-src 'none'; base-uri 'none'; form-action 'none'")
RASTER_TYPES = ("image/png", "image/jpeg", "image/gif", "image/webp", "image/bmp")
STYLE = """
body { font: 15px/1.5 system-ui, sans-serif; max-width: 52rem; margin: 2rem auto;
       padding: 0 1rem; color: #1d1d1f; background: #fff; }
header p { color: #555; margin: .2rem 0; }
article { border-top: 1px solid #ddd; padding: .6rem 0; }
article h2 { font-size: .95rem; margin: .3rem 0; color: #333; }
article.user h2 { color: #1a5fb4; } article.assistant h2 { color: #26a269; }
article.system h2, article.tool h2 { color: #865e3c; }
.text { white-space: pre-wrap; overflow-wrap: anywhere; margin: .4rem 0; }
.md { overflow-wrap: anywhere; margin: .4rem 0; } .md p { margin: .5rem 0; }
.md h1, .md h2, .md h3 { font-size: 1.1rem; margin: .8rem 0 .4rem; color: #1d1d1f; }
.md h4, .md h5, .md h6 { font-size: 1rem; margin: .6rem 0 .3rem; }
.md code { background: #f0f0f0; padding: 0 .2rem; border-radius: 3px; }
.md pre code { background: none; padding: 0; }
.md blockquote { margin: .5rem 0; padding-left: .8rem; border-left: 3px solid #ccc;
                 color: #444; }
.md table { border-collapse: collapse; margin: .5rem 0; }
.md th, .md td { border: 1px solid #ccc; padding: .2rem .5rem; }
.md hr { border: 0; border-top: 1px solid #ccc; }
pre { background: #f6f6f6; padding: .5rem; overflow-x: auto; white-space: pre-wrap;
      overflow-wrap: anywhere; }
.label { font-weight: 600; font-size: .85rem; } .error { color: #c01c28; }
.ctl { color: #c01c28; font-family: monospace; }
details { margin: .4rem 0; color: #555; } img { max-width: 100%; }
"""


def lines(header: Mapping[str, Any], messages: Sequence[Message], tip: Hashable | None,
          notes: list[str] | None = None) -> Iterator[str]:
    """The document line by line (no line contains a line break)."""
    for chunk in _chunks(header, messages, active_path(messages, tip)):
        yield from chunk.split("\n")


def _chunks(header: Mapping[str, Any], messages: Sequence[Message], path: list[Message]
            ) -> Iterator[str]:
    raw_title = str(header.get("title") or "Conversation")
    title = shown(raw_title)
    plain_title = escape(CONTROL.sub(lambda m: f"[U+{ord(m.group(0)):04X}]", raw_title))
    yield "<!DOCTYPE html>"
    yield '<html lang="en">'
    yield "<head>"
    yield '<meta charset="utf-8">'
    yield f'<meta http-equiv="Content-Security-Policy" content="{escape(CSP, quote=True)}">'
    yield '<meta name="referrer" content="no-referrer">'
    yield f"<title>{plain_title}</title>"  # no markup inside a title
    yield f"<style>{STYLE}</style>"
    yield "</head>"
    yield "<body>"
    yield f"<header><h1>{title}</h1>"
    yield f"<p>{len(path)} messages on the path from the root to the tip.</p>"
    if len(messages) > len(path):
        yield f"<p>{len(messages) - len(path)} messages on other branches are not included.</p>"
    yield "</header>"
    for m in path:
        yield from message_lines(m)
    yield "</body>"
    yield "</html>"


def message_lines(m: Message) -> Iterator[str]:
    bits = [ROLE_NAMES[m.role], m.model or "", when(m.created_at)]
    yield f'<article class="{m.role}">'
    yield f"<h2>{shown(' · '.join(b for b in bits if b))}</h2>"
    for p in m.parts:
        yield _part_html(p)
    yield "</article>"


def _part_html(p: Part) -> str:
    if p.kind == "text":
        return f'<div class="md">{render_markdown(p.text)}</div>'
    if p.kind == "thinking":
        body = render_markdown(p.text) if p.text.strip() else "<p>(redacted)</p>"
        return f'<details><summary>Thinking</summary><div class="md">{body}</div></details>'
    if p.kind == "tool_use":
        head = f"Tool call {p.tool_name or 'tool'} ({p.tool_use_id or 'no id'})"
        return f'<div class="label">{shown(head)}</div><pre>{shown(_pretty(p.text))}</pre>'
    if p.kind == "tool_result":
        label = "Tool error" if p.is_error else "Tool result"
        css = "label error" if p.is_error else "label"
        key = p.tool_use_id or "no id"
        head = f'<div class="{css}">{shown(f"{label} ({key})")}</div>'
        body = _image_html(p) if p.data is not None else f"<pre>{shown(p.text)}</pre>"
        return head + body
    return _image_html(p)


def _image_html(p: Part) -> str:
    url = image_data_url(p)
    if url is None or (p.media_type or "").lower() not in RASTER_TYPES:
        return f'<div class="text">{shown(image_marker(p))}</div>'
    return f'<img src="{escape(url, quote=True)}" alt="image">'


def _pretty(text: str) -> str:
    try:
        return json.dumps(json.loads(text), ensure_ascii=False, indent=2)
    except ValueError:
        return text
