"""A Markdown transcript of one path: the conversation as a person reads it.

Only the root-to-tip path is written, in order; the header says how many
messages of other branches were left out (export another branch by choosing its
tip). Each message is a level-2 heading with role, model and time (UTC).

The file is safe to render (see ``markdown_safety``): message text keeps its
Markdown but no raw HTML, no image that fetches anything and no ``javascript:`` or
``data:`` link; its fenced code becomes escaped ``<pre>`` blocks. Thinking sits in
a collapsible ``<details>`` block around an escaped ``<pre>``; tool arguments and
output are indented code blocks (verbatim in every renderer, fence extension or
not). The exporter's own images are embedded as ``data:`` URLs; an image without
stored bytes becomes a marker, never a remote link.
"""

from __future__ import annotations

import base64
import json
import re
from collections.abc import Hashable, Iterator, Mapping, Sequence
from datetime import UTC, datetime
from typing import Any

from explorer.formats.exporters.markdown_safety import pre_block, safe_inline, safe_markdown
from explorer.formats.exporters.steps import active_path, image_marker
from explorer.tree.model import Message, Part

ROLE_NAMES = {"system": "System", "user": "User", "assistant": "Assistant", "tool": "Tool"}
_IMAGE_TYPE = re.compile(r"^image/[a-z0-9.+-]+$")
_BACKTICKS = re.compile(r"`+")


def fence(text: str, info: str = "") -> str:
    """``text`` in a code fence longer than its longest run of backticks (for a reader
    that knows fences; the transcript itself uses ``code_block``)."""
    longest = max((len(run) for run in _BACKTICKS.findall(text)), default=0)
    marks = "`" * max(3, longest + 1)
    return f"{marks}{info}\n{text}\n{marks}"


def code_block(text: str) -> str:
    """``text`` as an indented code block: shown verbatim by every Markdown renderer."""
    lines = text.replace("\r\n", "\n").split("\n")
    if not any(line.strip() for line in lines):
        return "*(empty)*"
    return "\n".join(f"    {line}" if line.strip() else "" for line in lines)


def when(seconds: float | None) -> str:
    if seconds is None:
        return ""
    return datetime.fromtimestamp(seconds, UTC).strftime("%Y-%m-%d %H:%M UTC")


def image_data_url(p: Part) -> str | None:
    """A ``data:`` URL for an image with stored bytes and a plain image type, else None."""
    kind = (p.media_type or "").lower()
    if p.data is None or not _IMAGE_TYPE.match(kind) or kind == "image/svg+xml":
        return None
    return f"data:{kind};base64,{base64.b64encode(p.data).decode('ascii')}"


def lines(header: Mapping[str, Any], messages: Sequence[Message], tip: Hashable | None,
          notes: list[str] | None = None) -> Iterator[str]:
    """The document line by line (no line contains a line break)."""
    for chunk in _chunks(header, messages, active_path(messages, tip)):
        yield from chunk.split("\n")


def _chunks(header: Mapping[str, Any], messages: Sequence[Message], path: list[Message]
            ) -> Iterator[str]:
    yield f"# {_one_line(header.get('title') or 'Conversation')}"
    yield ""
    yield f"- Messages: {len(path)} on the path from the root to the tip"
    if len(messages) > len(path):
        yield f"- Not included: {len(messages) - len(path)} messages on other branches"
    if header.get("created_at"):
        yield f"- Started: {when(header['created_at'])}"
    yield ""
    for m in path:
        yield "---"
        yield ""
        yield from message_lines(m)


def message_lines(m: Message) -> Iterator[str]:
    bits = [ROLE_NAMES[m.role], m.model or "", when(m.created_at)]
    yield "## " + " · ".join(_one_line(b) for b in bits if b)
    yield ""
    for p in m.parts:
        yield from _part_lines(p)
        yield ""


def _part_lines(p: Part) -> Iterator[str]:
    if p.kind == "text":
        yield safe_markdown(p.text)
    elif p.kind == "thinking":
        yield "<details><summary>Thinking</summary>"
        yield pre_block((p.text or "(redacted)").replace("\r\n", "\n").split("\n"))
        yield "</details>"
    elif p.kind == "tool_use":
        yield f"**Tool call** `{_code(p.tool_name or 'tool')}` ({_code_id(p.tool_use_id)})"
        yield ""
        yield code_block(_pretty(p.text))
    elif p.kind == "tool_result":
        label = "**Tool error**" if p.is_error else "**Tool result**"
        yield f"{label} ({_code_id(p.tool_use_id)})"
        yield ""
        yield _image_line(p) if p.data is not None else code_block(p.text)
    else:
        yield _image_line(p)


def _image_line(p: Part) -> str:
    url = image_data_url(p)
    return f"![image]({url})" if url else f"*{safe_inline(image_marker(p))}*"


def _pretty(text: str) -> str:
    try:
        return json.dumps(json.loads(text), ensure_ascii=False, indent=2)
    except ValueError:
        return text


def _one_line(text: str) -> str:
    return safe_inline(str(text))


def _code(text: str) -> str:
    """Text for a one-backtick code span: verbatim inside it, so nothing to escape."""
    return " ".join(str(text).replace("`", "'").split()) or "?"


def _code_id(key: str | None) -> str:
    return f"`{_code(key)}`" if key else "no id"
