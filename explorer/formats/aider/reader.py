"""aider chat histories: one conversation per ``.aider.chat.history.md``.

aider keeps no session ids and no per-message times: a project's file is every run of
aider there, one after another, each opened by ``# aider chat started at``. The file is
read as one conversation in the order it was written (so a sync only reads what was
appended); each run's start, aider version and model are kept on its first message, and
the conversation's context starts where aider's did last (a run started without
``--restore-chat-history``, or ``/clear`` and ``/reset``). How the markdown splits into
pieces is :mod:`explorer.formats.aider.history`; how edits become calls,
:mod:`explorer.formats.aider.edits`.

A sync starts from the beginning of the last turn it read (the person's last words, or a
run's start), so an answer or an edit outcome written after the read is completed on the
next one under the same keys.
"""

from __future__ import annotations

import hashlib
import re
from collections.abc import Iterator
from pathlib import Path
from typing import Any

from explorer.formats.aider import edits
from explorer.formats.aider.history import SESSION, Piece, Pieces, read_lines
from explorer.formats.base import FormatError, ImportedConversation
from explorer.formats.common import finish, parse_time, preview_title
from explorer.formats.jsonl import peek_prefix
from explorer.formats.tailing import Cursor, Tail
from explorer.tree.model import Message, Part

FORMAT = "aider"
MODEL = re.compile(r"^(?:Main model|Model): (\S+) with (\S+) edit format")
USAGE = ("Tokens:", "Cost:")
RESTORED = "Restored previous conversation history."
RESETS = ("/clear", "/reset")


def sniff(path: Path) -> bool:
    """A history starts (after blank lines) with aider's ``# aider chat started at``."""
    if not path.is_file():
        return False
    head = peek_prefix(path, max_bytes=256).lstrip(b"\xef\xbb\xbf\r\n")
    return head.startswith(SESSION.encode())


def can_tail(path: Path) -> bool:
    """aider only appends to its history."""
    return path.is_file()


def read(path: Path) -> Iterator[ImportedConversation]:
    conv = read_tail(path, None, whole=True).conversation
    if not conv.messages:
        raise FormatError(f"{path.name}: an aider chat history without any message")
    conv.title = conv.title or preview_title(conv.messages, path.parent.name)
    yield finish(conv, conv.messages[-1].id)


def read_tail(path: Path, cursor: Cursor | None, *, whole: bool = False) -> Tail:
    """The messages of the turns from ``cursor`` on (the whole history for None)."""
    start = cursor or Cursor()
    with path.open("rb") as handle:
        handle.seek(start.offset)
        data = handle.read()
    lines = read_lines(data, start.line, start.offset, whole)
    builder = _Builder(path, dict(start.state), start)
    for piece in Pieces(lines, whole):
        builder.add(piece)
    conv = builder.conv
    conv.notes.extend(builder.notes)
    return Tail(conv, builder.resume)


class _Builder:
    """Messages from pieces, in file order; remembers where the last turn began."""

    def __init__(self, path: Path, state: dict[str, Any], start: Cursor) -> None:
        self.state = state
        self.notes: list[str] = []
        self.conv = ImportedConversation(title="", source_format=FORMAT, messages=[],
                                         source_path=str(path), source_id=state.get("sid"))
        self.conv.meta["agent"] = FORMAT
        self.resume = Cursor(start.offset, start.line, dict(state))
        self.after: str | None = None  # what the records now being read follow
        self.answer: Message | None = None
        self.tool: Message | None = None
        self.outcome: list[str] = []
        self.path = path

    # -- pieces ---------------------------------------------------------------

    def add(self, piece: Piece) -> None:
        if piece.kind in ("session", "user"):
            self.resume = Cursor(piece.offset, piece.line - 1, dict(self.state))
        if piece.kind == "session":
            self._session(piece)
        elif piece.kind == "user":
            self._user(piece)
        elif piece.kind == "assistant":
            self._assistant(piece)
        else:
            self._record(piece)

    def _session(self, piece: Piece) -> None:
        if "sid" not in self.state:
            digest = hashlib.sha1(f"{self.path.resolve()}\n{piece.text}".encode()).hexdigest()
            self.state["sid"] = self.conv.source_id = f"aider-{digest[:20]}"
        self.state.setdefault("started", piece.text)  # local time, as aider writes it
        self.conv.created_at = parse_time(self.state["started"])
        self.state.update(session=piece.text, restored=False, reset=True, preamble=[])
        self.after, self.answer, self.tool = "session", None, None

    def _user(self, piece: Piece) -> None:
        if "sid" not in self.state:  # a file that lost its first header
            digest = hashlib.sha1(str(self.path.resolve()).encode()).hexdigest()
            self.state["sid"] = self.conv.source_id = f"aider-{digest[:20]}"
            self.notes.append(f"line {piece.line}: the history does not start with "
                              "“# aider chat started at”; read it from here")
        meta: dict[str, Any] = {"line": piece.line}
        if self.state.get("preamble") is not None:
            meta["run"] = {"started": self.state.get("session"),
                           "output": self.state.pop("preamble")}
        message = self._message(piece, "user", [Part("text", piece.text)], meta)
        if self.state.get("reset") and not self.state.get("restored"):
            self.conv.context_start = message.id
        self.state["reset"] = piece.text.strip().split(" ")[0] in RESETS
        self.after, self.answer, self.tool = "user", None, None

    def _assistant(self, piece: Piece) -> None:
        key = f"L{piece.line}"
        parts = edits.answer_parts(piece.text, key)
        meta: dict[str, Any] = {"line": piece.line}
        self.answer = self._message(piece, "assistant", parts, meta)
        self.answer.model = self.state.get("model")
        self.after, self.tool, self.outcome = "assistant", None, []

    def _record(self, piece: Piece) -> None:
        text = piece.text
        model = MODEL.match(text)
        if model:
            self.state["model"] = model.group(1)
        if text == RESTORED:
            self.state["restored"] = True
        if self.after == "session":
            self.state.setdefault("preamble", []).append(text)
        elif self.after == "assistant" and self.answer is not None:
            self._outcome(piece)
        elif self.conv.messages:
            self.conv.messages[-1].source_meta.setdefault("output", []).append(text)

    def _outcome(self, piece: Piece) -> None:
        answer, text = self.answer, piece.text
        assert answer is not None
        if text.startswith(USAGE):
            answer.source_meta.setdefault("usage", []).append(text)
            return
        self.outcome.append(text)
        calls = answer.tool_uses()
        if not calls:
            calls = edits.late_calls(self.outcome, str(answer.id))
            answer.parts.extend(calls)
        if not calls:
            answer.source_meta.setdefault("output", []).append(text)
            return
        results = edits.results(calls, self.outcome)
        if self.tool is None:
            self.tool = self._message(piece, "tool", results, {"line": piece.line},
                                      key=f"L{piece.line}r")
        else:
            self.tool.parts = results

    # -- messages -------------------------------------------------------------

    def _message(self, piece: Piece, role: str, parts: list[Part], meta: dict[str, Any],
                 key: str | None = None) -> Message:
        message = Message(key or f"L{piece.line}", self.state.get("last"), role,  # type: ignore[arg-type]
                          parts, source_meta=meta)
        self.conv.messages.append(message)
        self.state["last"] = message.id
        return message
