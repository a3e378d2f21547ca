"""Conversation text made safe to render as Markdown.

A Markdown export is opened by renderers that pass raw HTML through (markdown-it-py,
Python-Markdown, most previewers) and by browsers that then run it. Message text is
Markdown already, so it keeps its emphasis, lists and links, with four changes:

- every ``<`` outside code becomes ``&lt;``: no raw HTML, no autolinks;
- every image becomes its source text (``!\\[alt](url)``): nothing is fetched;
- a link or reference whose address is not ``http``, ``https``, ``mailto`` or
  scheme-less (``javascript:``, ``data:``, ``vbscript:``, entity-hidden forms) is
  broken (``]\\(``, ``]\\:``) and shows as text;
- a fenced code block becomes a ``<pre>`` block with escaped content, which every
  renderer shows verbatim (Python-Markdown without its fence extension would
  otherwise read a fence's content as Markdown and HTML).

Inline code spans keep ``<`` as it is, but only where every renderer must agree that
it is code: a paragraph stops getting code spans at the first link address or
reference (``](``, ``]:``) outside code, a table pipe, or a backtick run not closed on
its own line.
"""

from __future__ import annotations

import html
import re

SAFE_SCHEMES = ("http", "https", "mailto")
_FENCE = re.compile(r"^( *)(`{3,}|~{3,})(.*)$")
_SCHEME = re.compile(r"^([a-z][a-z0-9+.\-]*):")
_INFO = re.compile(r"^[A-Za-z0-9_+\-.#]+$")
_LINK = re.compile(r"\]([(:])(\s*)(<[^>\n]*>?|[^)\]\n]*)")
_UNSEEN = re.compile(r"[\x00-\x20\x7f]")
_BACKSLASHED = re.compile(r"\\(.)")


def safe_markdown(text: str) -> str:
    """Message text as Markdown that renders no HTML, fetches nothing, links nowhere unsafe."""
    lines = text.replace("\r\n", "\n").split("\n")
    out: list[str] = []
    prose: list[str] = []
    i = 0
    while i < len(lines):
        m = _FENCE.match(lines[i])
        if m is None or (m.group(2)[0] == "`" and "`" in m.group(3)):
            prose.append(lines[i])
            i += 1
            continue
        end = _fence_end(lines, i + 1, m.group(2))
        out.extend(_prose(prose))
        prose = []
        body = [_dedent(line, len(m.group(1))) for line in lines[i + 1:end]]
        info = m.group(3).strip()
        if info and (len(info.split()) > 1 or not _INFO.match(info)):
            body = [info, *body]  # more than a language name: the person's text, kept
        out.append(pre_block(body, info))
        i = end + 1
    out.extend(_prose(prose))
    return "\n".join(out)


def safe_inline(text: str) -> str:
    """One line of text (a title, a model name) with no Markdown or HTML effect."""
    return _neutralise(html.escape(" ".join(text.split()), quote=False))


def pre_block(lines: list[str], info: str = "") -> str:
    """Verbatim lines as an HTML ``<pre>`` block that starts at column 0 after a blank line,
    so every renderer takes it whole (and ends any list or quote it might sit in)."""
    cls = f' class="language-{info.split()[0]}"' if info and _INFO.match(info.split()[0]) else ""
    body = html.escape("\n".join(lines), quote=False)
    return f"\n<pre><code{cls}>{body}</code></pre>\n"


def unsafe_url(address: str) -> bool:
    """True when a link address has a scheme other than http, https or mailto, however a
    renderer or browser would decode it (entities, backslash escapes, hidden whitespace)."""
    plain = _BACKSLASHED.sub(r"\1", html.unescape(address.strip().strip("<>")))
    plain = _UNSEEN.sub("", html.unescape(plain)).lower()
    m = _SCHEME.match(plain)
    return m is not None and m.group(1) not in SAFE_SCHEMES


def _dedent(line: str, indent: int) -> str:
    """A fence's content loses up to the fence's own indentation, as in CommonMark."""
    return line[min(indent, len(line) - len(line.lstrip(" "))):]


def _fence_end(lines: list[str], start: int, marker: str) -> int:
    close = re.compile(rf"^ *{re.escape(marker[0])}{{{len(marker)},}}[ \t]*$")
    for j in range(start, len(lines)):
        if close.match(lines[j]):
            return j
    return len(lines)  # an unclosed fence runs to the end, as in CommonMark


def _prose(lines: list[str]) -> list[str]:
    out = []
    spans_ok = True
    for line in lines:
        if not line.strip():
            spans_ok = True  # a blank line ends the paragraph: code spans start afresh
            out.append(line)
            continue
        if "|" in line:  # a table row is split at pipes before code spans are seen
            spans_ok = False
        text, spans_ok = _line(line, spans_ok)
        out.append(text)
    return out


def _line(line: str, spans_ok: bool) -> tuple[str, bool]:
    """The line with its prose parts made safe and its code spans kept."""
    if not spans_ok:
        return _neutralise(line), False
    out: list[str] = []
    plain_from = 0
    i = 0
    while i < len(line):
        ch = line[i]
        if ch == "\\" and i + 1 < len(line):
            i += 2
            continue
        if line.startswith(("](", "]:"), i):  # a link address or title may hide backticks
            out.append(_neutralise(line[plain_from:]))
            return "".join(out), False
        if ch != "`":
            i += 1
            continue
        run = _run_length(line, i)
        close = _closing_run(line, i + run, run)
        if close < 0:  # may close on a later line in some renderer: no more spans here
            out.append(_neutralise(line[plain_from:]))
            return "".join(out), False
        out.append(_neutralise(line[plain_from:i]))
        out.append(line[i:close + run])
        i = plain_from = close + run
    out.append(_neutralise(line[plain_from:]))
    return "".join(out), True


def _run_length(line: str, i: int) -> int:
    n = 0
    while i + n < len(line) and line[i + n] == "`":
        n += 1
    return n


def _closing_run(line: str, start: int, length: int) -> int:
    j = start
    while j < len(line):
        if line[j] == "`":
            n = _run_length(line, j)
            if n == length:
                return j
            j += n
        else:
            j += 1
    return -1


def _neutralise(text: str) -> str:
    text = _LINK.sub(_break_unsafe_link, text)
    return text.replace("![", "!\\[").replace("<", "&lt;")


def _break_unsafe_link(m: re.Match[str]) -> str:
    address = m.group(3)
    at_end = m.end() == len(m.string)  # the address may follow on the next line: unseen
    if (address and not unsafe_url(address)) or (not address and not at_end):
        return m.group(0)
    return "]\\" + m.group(1) + m.group(2) + m.group(3)
