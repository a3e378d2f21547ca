"""Message text as HTML: the Markdown a model or a person wrote, rendered, and nothing else.

No Markdown library ships with the program, and the ones that exist pass raw HTML through,
so this is a small renderer of the common blocks: paragraphs (line breaks kept, as chat
text relies on them), ATX headings, fenced and indented code, bullet and numbered lists
(nested by indentation), block quotes, rules and simple GitHub pipe tables (a table whose
rows do not parse is shown as preformatted text). Inline marks are ``html_inline``'s. Every
piece of source text is escaped as it is written, so raw HTML in a message shows as text;
nesting deeper than ``MAX_DEPTH`` stays plain text, so hostile input cannot recurse far.
"""

from __future__ import annotations

import re
from collections.abc import Iterator

from explorer.formats.exporters.html_inline import render_inline, shown

MAX_DEPTH = 6
_FENCE = re.compile(r"^( {0,3})(`{3,}|~{3,})(.*)$")
_INFO = re.compile(r"^[A-Za-z0-9_+\-.#]+$")
_HEADING = re.compile(r"^ {0,3}(#{1,6})(?:[ \t](.*))?$")
_QUOTE = re.compile(r"^ {0,3}> ?(.*)$")
_ITEM = re.compile(r"^( {0,3})([-*+]|[0-9]{1,9}[.)])(?:( +)(.*))?$")
_ALIGN_CELL = re.compile(r"^:?-+:?$")
_ALIGNS = {(True, False): "left", (False, True): "right", (True, True): "center"}


def render_markdown(text: str) -> str:
    """``text`` as HTML blocks, one or more lines of them."""
    lines = text.replace("\r\n", "\n").replace("\r", "\n").split("\n")
    return "\n".join(_blocks(lines, 0))


def _blocks(lines: list[str], depth: int) -> Iterator[str]:
    para: list[str] = []
    i = 0
    while i < len(lines):
        line = lines[i]
        found = None
        if not line.strip():
            i += 1
        elif depth >= MAX_DEPTH:
            para.append(line)
            i += 1
            continue
        elif _indent(line) >= 4 and not para:
            found = _indented_code(lines, i)
        else:
            found = _block(lines, i, depth, interrupting=bool(para))
            if found is None:
                para.append(line)
                i += 1
                continue
        if para:
            yield _paragraph(para)
            para = []
        if found is not None:
            yield found[0]
            i = found[1]
    if para:
        yield _paragraph(para)


def _block(lines: list[str], i: int, depth: int, interrupting: bool) -> tuple[str, int] | None:
    """The block that starts at line ``i`` and the index after it, or None for text."""
    line = lines[i]
    fence = _FENCE.match(line)
    if fence is not None and not (fence.group(2)[0] == "`" and "`" in fence.group(3)):
        return _fenced(lines, i, fence)
    heading = _HEADING.match(line)
    if heading is not None:
        level = len(heading.group(1))
        return f"<h{level}>{render_inline(_heading_text(heading.group(2) or ''))}</h{level}>", i + 1
    if _is_rule(line):
        return "<hr>", i + 1
    if _QUOTE.match(line):
        return _quote(lines, i, depth)
    item = _ITEM.match(line)
    if item is not None and (not interrupting or ((item.group(4) or "").strip()
                             and item.group(2) in ("-", "*", "+", "1.", "1)"))):
        return _list(lines, i, depth)
    return _table(lines, i)


def _indent(line: str) -> int:
    return len(line) - len(line.lstrip(" "))


def _is_rule(line: str) -> bool:
    bare = line.replace(" ", "").replace("\t", "")
    return _indent(line) < 4 and len(bare) >= 3 and bare.strip(bare[0]) == "" and bare[0] in "*-_"


def _paragraph(lines: list[str]) -> str:
    return f"<p>{render_inline(chr(10).join(line.strip() for line in lines))}</p>"


def _heading_text(text: str) -> str:
    text = text.strip()
    bare = text.rstrip("#")
    return bare.rstrip() if bare == "" or bare[-1] in " \t" else text


def _pre(lines: list[str], language: str = "") -> str:
    cls = f' class="language-{shown(language)}"' if language else ""
    return f"<pre><code{cls}>{shown(chr(10).join(lines))}</code></pre>"


def _fenced(lines: list[str], i: int, fence: re.Match[str]) -> tuple[str, int]:
    indent, marks = len(fence.group(1)), fence.group(2)
    info = fence.group(3).strip()
    body: list[str] = []
    end = i + 1
    while end < len(lines):
        bare = lines[end].strip()
        if _indent(lines[end]) < 4 and len(bare) >= len(marks) and bare.strip(marks[0]) == "":
            end += 1
            break
        line = lines[end]
        body.append(line[min(indent, _indent(line)):])
        end += 1
    language = info.split()[0] if info else ""
    if info and (len(info.split()) > 1 or not _INFO.match(language)):
        body, language = [info, *body], ""  # more than a language name: the person's text
    return _pre(body, language), end


def _indented_code(lines: list[str], i: int) -> tuple[str, int]:
    end = i
    while end < len(lines) and (not lines[end].strip() or _indent(lines[end]) >= 4):
        end += 1
    while not lines[end - 1].strip():
        end -= 1
    return _pre([line[4:] for line in lines[i:end]]), end


def _quote(lines: list[str], i: int, depth: int) -> tuple[str, int]:
    body: list[str] = []
    while i < len(lines):
        m = _QUOTE.match(lines[i])
        lazy = (m is None and bool(lines[i].strip()) and bool(body) and bool(body[-1].strip())
                and _block(lines, i, depth, interrupting=True) is None)
        if m is None and not lazy:
            break
        body.append(m.group(1) if m is not None else lines[i])
        i += 1
    inner = "\n".join(_blocks(body, depth + 1))
    return f"<blockquote>\n{inner}\n</blockquote>", i


def _list(lines: list[str], i: int, depth: int) -> tuple[str, int]:
    first = _marker(lines[i])
    ordered = first[0].isdigit()
    items: list[str] = []
    while i < len(lines):
        if not lines[i].strip():
            j = _next_text(lines, i)
            if j == len(lines) or not _same_list(lines[j], ordered):
                break
            i = j
        m = _ITEM.match(lines[i])
        if m is None or _is_rule(lines[i]) or m.group(2)[0].isdigit() != ordered:
            break
        gap = len(m.group(3) or " ")
        width = len(m.group(1)) + len(m.group(2)) + (gap if gap <= 4 else 1)
        text = m.group(4) or ""
        body = [text if gap <= 4 else " " * (gap - 1) + text]  # then indented code
        i += 1
        while i < len(lines):
            line = lines[i]
            if not line.strip():
                j = _next_text(lines, i)
                if j == len(lines) or _indent(lines[j]) < width:
                    break
                body.extend([""] * (j - i))
                i = j
            elif _indent(line) >= width:
                body.append(line[width:])
                i += 1
            elif _ITEM.match(line) is None and body[-1].strip() and _block(
                    lines, i, depth, interrupting=True) is None:
                body.append(line.strip())  # a lazy continuation of the item's paragraph
                i += 1
            else:
                break
        items.append(_item(body, depth))
    tag = "ol" if ordered else "ul"
    start = int(first[:-1]) if ordered else 1
    attrs = f' start="{start}"' if start != 1 else ""
    return f"<{tag}{attrs}>\n" + "\n".join(items) + f"\n</{tag}>", i


def _marker(line: str) -> str:
    m = _ITEM.match(line)
    return m.group(2) if m is not None else ""


def _same_list(line: str, ordered: bool) -> bool:
    m = _ITEM.match(line)
    return m is not None and not _is_rule(line) and m.group(2)[0].isdigit() == ordered


def _next_text(lines: list[str], i: int) -> int:
    while i < len(lines) and not lines[i].strip():
        i += 1
    return i


def _item(body: list[str], depth: int) -> str:
    """One list item; its first paragraph is not wrapped in ``<p>`` (a tight list's look)."""
    blocks = list(_blocks(body, depth + 1))
    if blocks and blocks[0].startswith("<p>"):
        blocks[0] = blocks[0][3:-4]
    return "<li>" + "\n".join(blocks) + "</li>"


def _table(lines: list[str], i: int) -> tuple[str, int] | None:
    """A pipe table (a header row, then a row of ``---`` cells) and the index after it."""
    if "|" not in lines[i] or i + 1 >= len(lines):
        return None
    aligns = _delimiter_row(lines[i + 1])
    if aligns is None:
        return None
    end = i + 2
    while end < len(lines) and "|" in lines[end] and lines[end].strip():
        end += 1
    head = _cells(lines[i])
    if len(head) != len(aligns):
        return _pre(lines[i:end]), end
    rows = [_row(_cells(line), aligns, "td") for line in lines[i + 2:end]]
    body = "<tbody>\n" + "\n".join(rows) + "\n</tbody>\n" if rows else ""
    return f"<table>\n<thead>\n{_row(head, aligns, 'th')}\n</thead>\n{body}</table>", end


def _delimiter_row(line: str) -> list[str | None] | None:
    cells = _cells(line)
    if "-" not in line or not all(_ALIGN_CELL.match(c.strip()) for c in cells):
        return None
    return [_ALIGNS.get((c.strip()[0] == ":", c.strip()[-1] == ":")) for c in cells]


def _cells(line: str) -> list[str]:
    """A row split at its pipes (not at an escaped ``\\|``), outer pipes dropped."""
    text = line.strip()
    text = text[1:] if text.startswith("|") else text
    text = text[:-1] if text.endswith("|") and not text.endswith("\\|") else text
    cells, start, i = [], 0, 0
    while i < len(text):
        if text[i] == "\\":
            i += 2
            continue
        if text[i] == "|":
            cells.append(text[start:i])
            start = i + 1
        i += 1
    return [*cells, text[start:]]


def _row(cells: list[str], aligns: list[str | None], tag: str) -> str:
    cells = (cells + [""] * len(aligns))[:len(aligns)]
    out = []
    for cell, align in zip(cells, aligns, strict=True):
        style = f' style="text-align: {align}"' if align else ""
        out.append(f"<{tag}{style}>{render_inline(cell.strip())}</{tag}>")
    return "<tr>" + "".join(out) + "</tr>"
