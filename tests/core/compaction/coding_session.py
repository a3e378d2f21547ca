"""Hand-built paths for the compaction tests: a realistic coding session and a page renderer.

The renderer draws the middle's text with Pillow's default font into real PNG
pages; it stands in for the snapshot renderer with the same call shape.
"""

from __future__ import annotations

import io
import json
import textwrap
from collections.abc import Sequence
from dataclasses import dataclass

from PIL import Image, ImageDraw, ImageFont

from explorer.compaction.summary import SummaryRequest
from explorer.tree.model import Message, Part, Usage

RUN_UUID = "3f2b8c1e-9a4d-4e7b-8c2f-1d5e6a7b8c9d"
COMMIT_SHA = "9fceb02d0ae598e95dc970b74767f19372d61af8"
SHORT_SHA = "a1b2c3d"
CONFIG_PATH = "/home/dev/proj/config/settings.toml"
MODULE_PATH = "src/explorer/store/schema.py"
DOCS_URL = "https://docs.python.org/3/library/sqlite3.html#sqlite3.Connection"
ISSUE_URL = "https://github.com/example/proj/issues/4821"
FACT_STRINGS = (RUN_UUID, COMMIT_SHA, SHORT_SHA, CONFIG_PATH, MODULE_PATH, DOCS_URL, ISSUE_URL)


def args(**kw: str) -> str:
    """Tool-call arguments as the JSON a model sends."""
    return json.dumps(kw)


def png_bytes(width: int, height: int, color: tuple[int, int, int] = (40, 90, 160)) -> bytes:
    """A real PNG of the given size."""
    buf = io.BytesIO()
    img = Image.new("RGB", (width, height), color)
    ImageDraw.Draw(img).rectangle((10, 10, width // 2, height // 2), fill=(230, 230, 230))
    img.save(buf, format="PNG")
    return buf.getvalue()


def jpeg_bytes(width: int, height: int) -> bytes:
    buf = io.BytesIO()
    Image.new("RGB", (width, height), (200, 30, 30)).save(buf, format="JPEG")
    return buf.getvalue()


def listing(lines: int) -> str:
    return "\n".join(
        f"-rw-r--r-- 1 dev dev {1000 + 37 * i:>6} Mar {1 + i % 28:>2} src/explorer/mod_{i:03}.py"
        for i in range(lines)
    )


def source_file(lines: int) -> str:
    return "\n".join(
        f"{i:>5}\tdef handler_{i}(request: dict[str, int]) -> int:  # returns request['n'] + {i}"
        for i in range(lines)
    )


def test_log(lines: int) -> str:
    body = "\n".join(
        f"tests/core/test_mod_{i:03}.py::test_case_{i} PASSED [{i * 100 // lines:>3}%]"
        for i in range(lines)
    )
    return body + f"\n==== 1 failed, {lines - 1} passed in 12.34s ===="


def explanation(topic: str, sentences: int) -> str:
    """A long assistant explanation: narrative that elision must keep."""
    return " ".join(
        f"Point {i} about {topic}: the store writes each turn in one transaction, so a crash "
        f"leaves the file at the previous boundary and the check passes."
        for i in range(sentences)
    )


class Builder:
    """Appends messages with parent links and fresh ids."""

    def __init__(self) -> None:
        self.path: list[Message] = []

    def add(self, role: str, *parts: Part, usage: Usage | None = None) -> Message:
        parent = self.path[-1].id if self.path else None
        m = Message(
            id=len(self.path) + 1,
            parent_id=parent,
            role=role,  # type: ignore[arg-type]
            parts=list(parts),
            usage=usage,
        )
        self.path.append(m)
        return m

    def call(
        self, tool: str, args: str, result: str, *, error: bool = False, text: str = ""
    ) -> None:
        tid = f"toolu_{len(self.path):04d}"
        parts = ([Part("text", text)] if text else []) + [
            Part("tool_use", args, tool_name=tool, tool_use_id=tid)
        ]
        self.add("assistant", *parts)
        self.add("user", Part("tool_result", result, tool_use_id=tid, is_error=error))


def coding_session() -> list[Message]:
    """Seven turns: a task, tool calls with long outputs, an error, a screenshot, recent work."""
    b = Builder()
    b.add("system", Part("text", "You are a careful coding assistant working in /home/dev/proj."))
    b.add(
        "user",
        Part(
            "text",
            "Task: add a schema migration for the messages table. "
            "Constraints: keep ids opaque, never delete rows, Python 3.11.",
        ),
    )
    b.call("Bash", '{"command": "ls -l src/explorer"}', listing(120), text="Let me look around.")
    b.call("Read", args(file_path=MODULE_PATH), source_file(150))
    b.call(
        "Edit",
        args(file_path=MODULE_PATH, old="x", new="y"),
        "Error: old_string not found in file",
        error=True,
    )
    b.call(
        "Edit",
        args(file_path=MODULE_PATH, old="def a", new="def b"),
        "The file was updated.",
    )
    b.add(
        "assistant",
        Part("text", f"Migration drafted; see {DOCS_URL} for the pragma."),
        usage=Usage(input_tokens=9000),
    )
    # turn 2: a screenshot
    b.add(
        "user",
        Part("text", "Here is what the app shows after the change:"),
        Part("image", data=png_bytes(1280, 800), media_type="image/png"),
        Part("text", "Why is the tree empty?"),
    )
    b.call(
        "Bash",
        '{"command": "git log -1"}',
        f"commit {COMMIT_SHA}\nAuthor: dev\n\n    store: add schema v2 (run {RUN_UUID})\n"
        + listing(60),
    )
    b.add(
        "assistant",
        Part(
            "text",
            f"The tree is empty because commit {SHORT_SHA} dropped the "
            f"index; settings live in {CONFIG_PATH}. See {ISSUE_URL}. "
            + explanation("the empty tree", 40),
        ),
        usage=Usage(input_tokens=14000),
    )
    # turn 3: more work with a screenshot returned by a tool
    b.add("user", Part("text", "Fix it and run the tests."))
    b.call("Bash", '{"command": "pytest -q"}', test_log(200))
    b.add(
        "assistant",
        Part("tool_use", '{"path": "shot.png"}', tool_name="Screenshot", tool_use_id="toolu_shot"),
    )
    b.add(
        "user",
        Part("tool_result", "screenshot taken", tool_use_id="toolu_shot"),
        Part("image", data=png_bytes(800, 600), media_type="image/png"),
    )
    b.add(
        "assistant",
        Part(
            "text",
            "One test fails; the screenshot shows the empty pane. "
            + explanation("the failing test", 40),
        ),
        usage=Usage(input_tokens=21000),
    )
    # turns 4-7: the recent work
    for n in range(4, 8):
        b.add("user", Part("text", f"Step {n}: continue with the next failing test."))
        b.call("Bash", args(command=f"pytest -q -k step{n}"), test_log(60))
        b.add("assistant", Part("text", f"Step {n} done."), usage=Usage(input_tokens=21000 + n))
    return b.path


def single_turn_session(calls: int = 12) -> list[Message]:
    """One prompt followed by a long agent run: no second turn to cut at."""
    b = Builder()
    b.add("user", Part("text", "Refactor the store module; run the tests after each step."))
    for i in range(calls):
        b.call("Bash", args(command=f"step {i}"), test_log(80), text=f"Step {i}.")
    b.add("assistant", Part("text", "All steps done."))
    return b.path


@dataclass(frozen=True)
class TextPage:
    png: bytes
    width: int
    height: int


def text_renderer(
    messages: Sequence[Message], *, width: int = 900, lines_per_page: int = 80
) -> list[TextPage]:
    """Draw the messages' text, wrapped, into PNG pages (deterministic)."""
    font = ImageFont.load_default()
    lines: list[str] = []
    for m in messages:
        for p in m.parts:
            body = p.text if p.kind != "image" else f"[image {p.media_type}]"
            for raw in f"{m.role}: {body}".splitlines() or [""]:
                lines += textwrap.wrap(raw, 140) or [""]
    pages: list[TextPage] = []
    for start in range(0, len(lines), lines_per_page):
        chunk = lines[start : start + lines_per_page]
        img = Image.new("L", (width, len(chunk) * 12 + 8), 255)
        draw = ImageDraw.Draw(img)
        for k, line in enumerate(chunk):
            draw.text((4, 4 + 12 * k), line, fill=0, font=font)
        buf = io.BytesIO()
        img.save(buf, format="PNG")
        pages.append(TextPage(buf.getvalue(), img.width, img.height))
    return pages


class FakeSummarizer:
    """Deterministic in-process summarizer that records what it was asked."""

    def __init__(self) -> None:
        self.requests: list[SummaryRequest] = []

    def summarize(self, request: SummaryRequest) -> str:
        self.requests.append(request)
        prompt = request.prompt
        return f"Summary of {prompt.count('## ')} messages; the task was a schema migration."
