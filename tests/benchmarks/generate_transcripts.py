"""Synthetic Claude Code sessions and ChatGPT exports of a chosen size, for import benchmarks.

The files have the shapes the real tools write (line envelopes, one response
written as several lines sharing ``message.id``, parallel tool calls, progress
and snapshot records, rewinds; ChatGPT mappings with edits, regenerations, code
and execution output), so an importer does its real work on them. Text is drawn
from a pool of prose, code and tool output built once per seed, which keeps a
gigabyte within a minute or so. Output is streamed: one session or one
conversation is held in memory at a time. The same seed gives the same bytes.

    python -m tests.benchmarks.generate_transcripts --format claude-code --mb 100 --out DIR

Every count in :class:`Generated` is what a correct importer must report: a
message is what it stores (an assistant response of several lines is one), and a
branch point is a message with more than one child once parallel tool results
are chained (so only rewinds, edits and regenerations make them).
"""

from __future__ import annotations

import argparse
import json
import random
import sys
import time
from collections.abc import Callable
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any, BinaryIO

__all__ = ["FORMATS", "SIZES", "Generated", "generate"]

FORMATS = ("claude-code", "chatgpt")
MB = 1 << 20
START_TIME = 1_735_700_000.0  # 2025-01-01: timestamps grow from here, a few seconds a line

_COMMON_TEXT = (
    "the a to of and in is it that for on with as this be are not by or from at we you "
    "function value return error file test config path request response cache index query "
    "table module import export branch commit build deploy server client token context window "
    "message parser stream buffer record field schema migration handler route session user "
    "tool result call output input memory thread lock queue worker timeout retry limit size "
    "count list map key type class method object string number array null default option "
    "flag check update delete create read write open close start stop run fix bug issue "
    "because when then if so but also only each every first last next new old same other"
)
_COMMON = _COMMON_TEXT.split()
_SYLLABLE_TEXT = (
    "ka lo mi ren tor vex dal sun pri gro ber fen quo zel nat rip mor tal ven sol "
    "ast bri cor dim eph fal gin hol jun kel"
)
_SYLLABLES = _SYLLABLE_TEXT.split()


def _uuid(rng: random.Random) -> str:
    h = f"{rng.getrandbits(128):032x}"
    return f"{h[:8]}-{h[8:12]}-4{h[13:16]}-{h[16:20]}-{h[20:]}"


def _b62(rng: random.Random, n: int) -> str:
    alphabet = "0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz"
    return "".join(rng.choices(alphabet, k=n))


def _iso(t: float) -> str:
    ms = int(t * 1000) % 1000
    return time.strftime("%Y-%m-%dT%H:%M:%S", time.gmtime(t)) + f".{ms:03d}Z"


@dataclass(frozen=True)
class Sizes:
    """Median lengths (characters) of a Claude Code session's texts, and how often there is
    visible thinking; ``code_blocks`` is the most blocks a file a tool reads or writes has."""

    prompt: int
    thinking: int
    thinking_share: float
    answer: int
    step_text: int
    code_blocks: int
    output_lines: int | None  # median lines of a tool's output (None: as the pool has them)


SIZES = {
    # Measured on the real sessions in the shared samples: 2.1-4.6 KB of file per stored
    # message (envelopes, progress and snapshot lines included), a median message of
    # 140-240 characters of text, thinking mostly empty (signature only).
    "realistic": Sizes(prompt=120, thinking=300, thinking_share=0.2, answer=400, step_text=60,
                       code_blocks=1, output_lines=8),
    # The first generator's sizes: 4.2 KB per message, a median message of 1,070
    # characters; kept to load an importer with text.
    "heavy": Sizes(prompt=250, thinking=600, thinking_share=0.6, answer=1200, step_text=150,
                   code_blocks=3, output_lines=None),
}


def _size(rng: random.Random, median: float, low: int, high: int) -> int:
    """A text length: log-normal around ``median`` (real message sizes have long tails)."""
    return max(low, min(high, int(rng.lognormvariate(0.0, 0.9) * median)))


class TextPool:
    """Prose, code and tool output fragments; messages are assembled from them quickly."""

    def __init__(self, rng: random.Random) -> None:
        self.rng = rng
        made = {a + b + c for a in _SYLLABLES for b in _SYLLABLES for c in ("", *_SYLLABLES)}
        extra = rng.sample(sorted(made), 2500)
        self.words = _COMMON + extra
        weights = [40.0] * len(_COMMON) + [1.0] * len(extra)
        self._cum = [sum(weights[: i + 1]) for i in range(len(weights))]
        self.paragraphs = [self._paragraph() for _ in range(1500)]
        self.code_blocks = [self._code(rng.randint(6, 60)) for _ in range(400)]
        self.json_docs = [self._json_doc() for _ in range(200)]
        self.logs = [self._log() for _ in range(200)]

    def word(self) -> str:
        return self.rng.choices(self.words, cum_weights=self._cum)[0]

    def name(self) -> str:
        return f"{self.rng.choice(self.words[len(_COMMON):])}_{self.word()}"

    def _paragraph(self) -> str:
        sentences = []
        for _ in range(self.rng.randint(2, 6)):
            words = self.rng.choices(self.words, cum_weights=self._cum, k=self.rng.randint(6, 18))
            if self.rng.random() < 0.3:
                words[self.rng.randrange(len(words))] = f"`{self.name()}()`"
            sentences.append(" ".join(words).capitalize() + ".")
        return " ".join(sentences)

    def _code(self, lines: int) -> str:
        rng, out = self.rng, [f"def {self.name()}({self.word()}, {self.word()}=None):"]
        out.append(f'    """{self.rng.choice(self.paragraphs)[:70]}"""')
        while len(out) < lines:
            v, n = self.name(), rng.randint(1, 500)
            out.extend(rng.choice((
                [f"    {v} = {self.word()}.get('{self.word()}', {n})"],
                [f"    if {v} is None:", f"        raise ValueError('{self.word()} missing')"],
                [f"    for i in range({n}):", f"        {v}.append(i * {rng.randint(2, 9)})"],
                [f"    {v} = [{self.word()} for {self.word()} in {self.name()}() if x > {n}]"],
                [f"    log.debug('{v}=%s', {v})", "    # " + rng.choice(self.paragraphs)[:60]],
            )))  # fmt: skip
        out.append(f"    return {self.name()}")
        return "\n".join(out)

    def _json_doc(self) -> str:
        rng = self.rng
        items = [
            {"id": rng.randint(1, 99999), "name": self.name(), "open": rng.random() < 0.5,
             "labels": [self.word() for _ in range(rng.randint(0, 4))],
             "body": rng.choice(self.paragraphs)[: rng.randint(40, 400)],
             "created_at": _iso(START_TIME + rng.randint(0, 10**7))}
            for _ in range(rng.randint(1, 12))
        ]  # fmt: skip
        return json.dumps({"total_count": len(items), "items": items}, indent=2)

    def _log(self) -> str:
        rng = self.rng
        lines = [f"$ {rng.choice(('pytest -q', 'npm run build', 'make test', 'cargo check'))}"]
        for _ in range(rng.randint(3, 40)):
            lines.append(rng.choice((
                f"src/{self.name()}.py:{rng.randint(1, 900)}: {self.word()} {self.word()} ok",
                f"PASSED tests/test_{self.name()}.py::test_{self.name()}",
                f"warning: unused variable `{self.name()}` at line {rng.randint(1, 400)}",
                f"drwxr-xr-x  2 dev dev  4096 Jan {rng.randint(1, 28)} 10:{rng.randint(10, 59)} "
                f"{self.name()}",
            )))  # fmt: skip
        return "\n".join(lines)

    def prose(self, chars: int, code: float = 0.0) -> str:
        """About ``chars`` characters of markdown; ``code`` is the chance of a fenced block."""
        parts: list[str] = []
        total = 0
        while total < chars:
            if self.rng.random() < code:
                piece = "```python\n" + self.rng.choice(self.code_blocks) + "\n```"
            else:
                piece = self.rng.choice(self.paragraphs)
            parts.append(piece)
            total += len(piece) + 2
        return "\n\n".join(parts)

    def numbered(self, text: str) -> str:
        return "\n".join(f"{i:>6}→{line}" for i, line in enumerate(text.splitlines(), 1))


@dataclass
class Generated:
    """What was written, and what an importer must find in it."""

    format: str
    path: Path
    bytes: int = 0
    files: int = 0
    conversations: int = 0
    messages: int = 0
    branch_points: int = 0
    planted: str | None = None

    def to_dict(self) -> dict[str, Any]:
        return {**asdict(self), "path": str(self.path)}

    def add(self, n_bytes: int, tree: _Tree) -> None:
        """Count one finished conversation (one session file for Claude Code)."""
        self.bytes += n_bytes
        self.conversations += 1
        self.messages += tree.messages
        self.branch_points += tree.branch_points


@dataclass
class _Tree:
    """Message-level parent counts of one conversation, to count branch points."""

    kids: dict[str, int] = field(default_factory=dict)
    messages: int = 0
    branch_points: int = 0

    def add(self, parent: str | None) -> None:
        self.messages += 1
        if parent is not None:
            self.kids[parent] = self.kids.get(parent, 0) + 1
            if self.kids[parent] == 2:
                self.branch_points += 1


def plan_turn(rng: random.Random, remaining: int | None) -> list[int] | None:
    """Tool calls per intermediate response (parallel calls > 1); None: a lone prompt.

    With ``remaining`` messages left the plan is cut to fit (prompt + steps + answer).
    """
    steps: list[int] = []
    for _ in range(rng.choices(range(8), weights=(25, 20, 15, 12, 10, 8, 6, 4))[0]):
        steps.append(rng.randint(2, 4) if rng.random() < 0.15 else 1)
    if remaining is None:
        return steps
    if remaining <= 1:
        return None
    while turn_messages(steps) > remaining:
        if steps[-1] > 1:
            steps[-1] -= 1
        else:
            steps.pop()
    return steps


def turn_messages(steps: list[int] | None) -> int:
    """A Claude Code turn's messages: the prompt, each step's response and results, the
    answer, and (in a turn that uses tools) the file snapshot taken before the prompt."""
    return 1 if steps is None else 2 + sum(1 + c for c in steps) + (1 if steps else 0)


class _Budget:
    """How much is left to write: bytes, messages, or both."""

    def __init__(self, mb: float | None, messages: int | None) -> None:
        self.bytes_left = int(mb * MB) if mb is not None else None
        self.messages_left = messages

    def done(self) -> bool:
        return (self.bytes_left is not None and self.bytes_left <= 0) or (
            self.messages_left is not None and self.messages_left <= 0
        )

    def spend(self, n_bytes: int, n_messages: int) -> None:
        if self.bytes_left is not None:
            self.bytes_left -= n_bytes
        if self.messages_left is not None:
            self.messages_left -= n_messages

    def cap(self, n_bytes: int) -> int:
        return n_bytes if self.bytes_left is None else min(n_bytes, self.bytes_left)

    def left(self, pending: int) -> int | None:
        """Messages still to write once ``pending`` more are counted (None: no limit)."""
        return None if self.messages_left is None else self.messages_left - pending

    def last_turn(self, steps: list[int] | None) -> bool:
        return self.messages_left is not None and turn_messages(steps) == self.messages_left


def generate(
    fmt: str, out: Path, mb: float | None = None, messages: int | None = None,
    seed: int = 0, plant: str | None = None, sizes: str = "realistic",
) -> Generated:
    """Write a data set under ``out``; stop at ``mb`` megabytes or exactly ``messages``.

    ``plant`` is written into the very last message (needs ``messages``), so a
    search can prove the whole set was stored. ``sizes`` names an entry of
    :data:`SIZES` (Claude Code sessions).
    """
    if sizes not in SIZES:
        raise ValueError(f"unknown sizes {sizes!r}; choose from {', '.join(SIZES)}")
    if mb is None and messages is None:
        raise ValueError("give a size in MB, a message count, or both")
    if plant is not None and messages is None:
        raise ValueError("a planted word needs an exact message count")
    out.mkdir(parents=True, exist_ok=True)
    rng = random.Random(seed)
    pool = TextPool(rng)
    budget = _Budget(mb, messages)
    if fmt == "claude-code":
        return _write_claude_code(rng, pool, budget, out, plant, SIZES[sizes])
    if fmt == "chatgpt":
        return _write_chatgpt(rng, pool, budget, out, plant)
    raise ValueError(f"unknown format {fmt!r}; choose from {', '.join(FORMATS)}")


# -- Claude Code ------------------------------------------------------------------------------

_PROJECTS = ("api-server", "web-frontend", "data-pipeline", "infra", "docs-site")
_TOOLS = ("Bash", "Read", "Edit", "Grep", "TodoWrite", "mcp__github__list_issues", "Write")
_TOOL_WEIGHTS = (30, 25, 15, 10, 5, 8, 7)
_Call = tuple[dict[str, Any], Any, Any, bool]
"""A tool_use block, the tool_result content, the line's ``toolUseResult``, is_error."""


class _ToolCalls:
    """Tool calls with outputs shaped like Claude Code's tools return them."""

    def __init__(self, rng: random.Random, pool: TextPool, cwd: str, sizes: Sizes) -> None:
        self.rng, self.pool, self.cwd, self.sizes = rng, pool, cwd, sizes

    def _cut(self, text: str) -> str:
        """The first lines of a tool's output, as many as the sizes' median suggests."""
        if self.sizes.output_lines is None:
            return text
        keep = _size(self.rng, self.sizes.output_lines, 1, 400)
        return "\n".join(text.splitlines()[:keep])

    def make(self) -> _Call:
        name = self.rng.choices(_TOOLS, weights=_TOOL_WEIGHTS)[0]
        make: Callable[[], tuple[dict[str, Any], Any, Any, bool]] = getattr(
            self, "_" + name.split("__")[-1].lower()
        )
        args, content, extra, error = make()
        block = {"type": "tool_use", "id": "toolu_01" + _b62(self.rng, 22), "name": name,
                 "input": args, "caller": {"type": "direct"}}  # fmt: skip
        return block, content, extra, error

    def _path(self) -> str:
        return f"{self.cwd}/src/{self.pool.name()}.py"

    def _code(self) -> str:
        k = self.rng.randint(1, self.sizes.code_blocks)
        return self._cut("\n\n".join(self.rng.choices(self.pool.code_blocks, k=k)))

    def _bash(self) -> tuple[dict[str, Any], Any, Any, bool]:
        rng, pool = self.rng, self.pool
        out = self._cut(rng.choice(pool.json_docs) if rng.random() < 0.2 else rng.choice(pool.logs))
        error = rng.random() < 0.06
        if error:
            out = "Exit code 1\n" + out + f"\nError: {pool.word()} {pool.word()} failed"
        args = {"command": f"cd {self.cwd} && {out.splitlines()[0].lstrip('$ ')}",
                "description": rng.choice(pool.paragraphs)[:50]}  # fmt: skip
        extra = {"stdout": out, "stderr": "", "interrupted": False, "isImage": False}
        return args, out, extra, error

    def _read(self) -> tuple[dict[str, Any], Any, Any, bool]:
        path, code = self._path(), self._code()
        n = code.count("\n") + 1
        extra = {"type": "text", "file": {"filePath": path, "content": code, "numLines": n,
                                          "startLine": 1, "totalLines": n}}  # fmt: skip
        return {"file_path": path}, self.pool.numbered(code), extra, False

    def _edit(self) -> tuple[dict[str, Any], Any, Any, bool]:
        path, code = self._path(), self._code()
        lines = code.splitlines()
        old = "\n".join(lines[: min(len(lines), 4)])
        new = old.replace("return", "return  # checked", 1) + "\n    " + self.pool.name() + "()"
        content = (f"The file {path} has been updated. Here's the result of running `cat -n` "
                   f"on a snippet of the edited file:\n" + self.pool.numbered(new))  # fmt: skip
        diff = ["-" + x for x in old.splitlines()] + ["+" + x for x in new.splitlines()]
        patch = [{"oldStart": 1, "oldLines": 4, "newStart": 1, "newLines": 5, "lines": diff}]
        extra = {"filePath": path, "oldString": old, "newString": new, "originalFile": code,
                 "structuredPatch": patch, "userModified": False, "replaceAll": False}
        return {"file_path": path, "old_string": old, "new_string": new}, content, extra, False

    def _grep(self) -> tuple[dict[str, Any], Any, Any, bool]:
        word, rng = self.pool.word(), self.rng
        hits = [f"src/{self.pool.name()}.py:{rng.randint(1, 800)}:    {word} = {self.pool.name()}()"
                for _ in range(rng.randint(0, 30))]  # fmt: skip
        content = "\n".join(hits) or "No matches found"
        extra = {"mode": "content", "numFiles": len(hits), "filenames": [], "content": content,
                 "numLines": len(hits)}  # fmt: skip
        return {"pattern": word, "path": self.cwd, "output_mode": "content"}, content, extra, False

    def _todowrite(self) -> tuple[dict[str, Any], Any, Any, bool]:
        todos = [{"content": self.rng.choice(self.pool.paragraphs)[:80],
                  "status": self.rng.choice(("pending", "in_progress", "completed")),
                  "activeForm": self.rng.choice(self.pool.paragraphs)[:60]}
                 for _ in range(self.rng.randint(2, 8))]  # fmt: skip
        content = ("Todos have been modified successfully. Ensure that you continue to use the "
                   "todo list to track your progress. Please proceed with the current tasks.")
        return {"todos": todos}, content, {"oldTodos": [], "newTodos": todos}, False

    def _list_issues(self) -> tuple[dict[str, Any], Any, Any, bool]:
        blocks = [{"type": "text", "text": self._cut(self.rng.choice(self.pool.json_docs))}]
        args = {"owner": self.pool.word(), "repo": self.pool.name(), "state": "open"}
        return args, blocks, blocks, False

    def _write(self) -> tuple[dict[str, Any], Any, Any, bool]:
        path, code = self._path(), self._code()
        extra = {"type": "create", "filePath": path, "content": code, "structuredPatch": []}
        content = f"File created successfully at: {path}"
        return {"file_path": path, "content": code}, content, extra, False


class _ClaudeSession:
    """One session file written line by line, with the message-level tree it makes."""

    def __init__(
        self, fp: BinaryIO, rng: random.Random, pool: TextPool, sid: str, project: str,
        clock: float, sizes: Sizes = SIZES["realistic"],
    ) -> None:
        self.fp, self.rng, self.pool, self.clock = fp, rng, pool, clock
        self.sid, self.sizes = sid, sizes
        cwd = f"/home/dev/{project}"
        self.base = {"isSidechain": False, "userType": "external", "cwd": cwd,
                     "sessionId": self.sid, "version": "2.1.42", "gitBranch": "main"}  # fmt: skip
        self.tools = _ToolCalls(rng, pool, cwd, sizes)
        self.model = rng.choice(("claude-opus-4-6", "claude-sonnet-4-5"))
        self.signatures = [_b62(rng, rng.randint(200, 600)) for _ in range(4)]
        self.tree = _Tree()
        self.bytes = 0
        self.line_tip: str | None = None  # the line the next line hangs from
        self.last_message: str | None = None  # the message the next message continues
        self.turn_start: tuple[str | None, str | None] = (None, None)

    def _write(self, entry: dict[str, Any]) -> None:
        data = json.dumps(entry, ensure_ascii=False, separators=(",", ":")).encode() + b"\n"
        self.fp.write(data)
        self.bytes += len(data)

    def _line(self, kind: str, parent: str | None, uid: str | None = None, **fields: Any) -> str:
        self.clock += self.rng.uniform(0.05, 4.0)
        uid = uid or _uuid(self.rng)
        self._write({"parentUuid": parent, **self.base, "type": kind, **fields, "uuid": uid,
                     "timestamp": _iso(self.clock)})  # fmt: skip
        return uid

    def _message(self, key: str) -> None:
        self.tree.add(self.last_message)
        self.last_message = key

    def _hook(self, parent: str | None, event: str, tool_id: str) -> str:
        data = {"type": "hook_progress", "hookEvent": event, "hookName": event,
                "command": '"${CLAUDE_PLUGIN_ROOT}/scripts/notify.sh" busy'}  # fmt: skip
        return self._line("progress", parent, data=data, parentToolUseID=tool_id, toolUseID=tool_id)

    def start(self) -> None:
        hook = {"type": "hook_success", "hookName": "SessionStart:startup", "hookEvent":
                "SessionStart", "content": "", "stdout": "", "stderr": "", "exitCode": 0,
                "command": "session-start.sh", "durationMs": self.rng.randint(50, 2000)}
        self.line_tip = self._line("attachment", None, attachment=hook)

    @property
    def can_rewind(self) -> bool:
        return self.turn_start[1] is not None

    def turn(self, steps: list[int] | None, plant: str | None, rewind: bool) -> None:
        """A prompt, its tool steps and the answer; ``rewind`` forks at the previous turn."""
        if rewind:
            self.line_tip, self.last_message = self.turn_start
        self.turn_start = (self.line_tip, self.last_message)
        uid = _uuid(self.rng)
        if steps:  # Claude Code backs up the files a turn with tools may change
            snap = {"messageId": uid, "trackedFileBackups": {}, "timestamp": _iso(self.clock)}
            self._write({"type": "file-history-snapshot", "messageId": uid, "snapshot": snap,
                         "isSnapshotUpdate": False})  # fmt: skip
            self._message(f"snapshot:{uid}")  # kept above the prompt it was taken before
        paste = self.rng.random() < 0.05
        text = self.pool.prose(_size(self.rng, self.sizes.prompt, 20, 3000)) + (
            "\n\n```\n" + self.rng.choice(self.pool.logs) + "\n```" if paste else ""
        )
        if steps is None and plant:
            text += f" {plant}"
        self._line("user", self.line_tip, uid, message={"role": "user", "content": text},
                   thinkingMetadata={"maxThinkingTokens": 31999}, permissionMode="default")
        self.line_tip = uid
        self._message(uid)
        if steps is None:
            return
        for calls in steps:
            self._response(calls, None)
        self._response(0, plant)
        self.line_tip = self._hook(self.line_tip, "Stop", _uuid(self.rng))

    def _response(self, calls: int, plant: str | None) -> None:
        """One API response: a line per block sharing ``message.id``, then the tool results."""
        rng, pool, sizes = self.rng, self.pool, self.sizes
        blocks: list[dict[str, Any]] = []
        if rng.random() < sizes.thinking_share:
            thought = pool.prose(_size(rng, sizes.thinking, 40, 8000))
            blocks.append({"type": "thinking", "thinking": thought,
                           "signature": rng.choice(self.signatures)})  # fmt: skip
        if calls == 0:
            text = pool.prose(_size(rng, sizes.answer, 20, 12000), code=0.25)
            blocks.append({"type": "text", "text": text + (f" {plant}" if plant else "")})
        elif rng.random() < 0.5:
            step = pool.prose(_size(rng, sizes.step_text, 20, 800))
            blocks.append({"type": "text", "text": step})
        made = [self.tools.make() for _ in range(calls)]
        blocks += [m[0] for m in made]
        msg_id, request = "msg_01" + _b62(rng, 22), "req_011C" + _b62(rng, 20)
        usage = {"input_tokens": rng.randint(1, 20), "cache_read_input_tokens":
                 rng.randint(1000, 150000), "output_tokens": rng.randint(5, 4000)}  # fmt: skip
        first: str | None = None
        call_lines: list[str] = []
        for i, block in enumerate(blocks):
            done = i == len(blocks) - 1
            message = {"model": self.model, "id": msg_id, "type": "message", "role": "assistant",
                       "content": [block], "stop_reason": ("tool_use" if calls else "end_turn")
                       if done else None, "stop_sequence": None, "usage": usage}  # fmt: skip
            self.line_tip = self._line("assistant", self.line_tip, message=message,
                                       requestId=request)
            first = first or self.line_tip
            if block["type"] == "tool_use":
                call_lines.append(self.line_tip)
        assert first is not None
        self._message(first)
        self._results(made, call_lines)

    def _results(self, made: list[_Call], call_lines: list[str]) -> None:
        """Each result hangs from the line of its call, in completion order (parallel calls)."""
        order = list(range(len(made)))
        self.rng.shuffle(order)
        for i in order:
            block, content, extra, error = made[i]
            tip = call_lines[i]
            for _ in range(self.rng.choice((0, 0, 1, 2))):
                tip = self._hook(tip, "PostToolUse", block["id"])
            result = {"tool_use_id": block["id"], "type": "tool_result", "content": content,
                      "is_error": error}  # fmt: skip
            self.line_tip = self._line(
                "user", call_lines[i], message={"role": "user", "content": [result]},
                toolUseResult=extra, sourceToolAssistantUUID=call_lines[i],
            )
            self._message(self.line_tip)
        if made and self.rng.random() < 0.5:
            hook = {"type": "hook_success", "hookName": "PostToolUse", "hookEvent": "PostToolUse",
                    "content": "", "stdout": "ok\n", "stderr": "", "exitCode": 0}  # fmt: skip
            self.line_tip = self._line("attachment", self.line_tip, attachment=hook)


def _write_claude_code(
    rng: random.Random, pool: TextPool, budget: _Budget, out: Path, plant: str | None,
    sizes: Sizes,
) -> Generated:
    """Session files in project folders under ``out/projects`` (import that folder)."""
    root = out / "projects"
    result = Generated("claude-code", root, planted=plant)
    clock = START_TIME
    while not budget.done():
        project = rng.choice(_PROJECTS)
        folder = root / f"-home-dev-{project}"
        folder.mkdir(parents=True, exist_ok=True)
        target = budget.cap(_size(rng, 1.5 * MB, 20_000, 40 * MB))
        sid = _uuid(rng)
        with (folder / f"{sid}.jsonl").open("wb") as fp:
            s = _ClaudeSession(fp, rng, pool, sid, project, clock, sizes)
            s.start()
            spent = (0, 0)
            while (s.tree.messages == 0 or s.bytes < target) and not budget.done():
                steps = plan_turn(rng, budget.messages_left)
                rewind = s.can_rewind and rng.random() < 0.05
                s.turn(steps, plant if budget.last_turn(steps) else None, rewind)
                budget.spend(s.bytes - spent[0], s.tree.messages - spent[1])
                spent = (s.bytes, s.tree.messages)
        clock = s.clock + 3600
        result.add(s.bytes, s.tree)
        result.files += 1
    return result


# -- ChatGPT ----------------------------------------------------------------------------------

_MODELS = ("gpt-4o", "o3", "gpt-4-turbo", "gpt-5")
_REASONING = ("o3", "gpt-5")


@dataclass
class _ChatPlan:
    """One ChatGPT turn: optional reasoning, code steps (call + output), branches."""

    thoughts: bool = False
    code_steps: int = 0
    edit: bool = False  # an abandoned prompt and answer before this prompt (an edit)
    regenerations: int = 0  # extra answers to the same prompt
    lone_prompt: bool = False

    @property
    def messages(self) -> int:
        if self.lone_prompt:
            return 1
        return 2 + 2 * self.thoughts + 2 * self.code_steps + 2 * self.edit + self.regenerations


def plan_chat(
    rng: random.Random, remaining: int | None, model: str, can_edit: bool
) -> _ChatPlan:
    if remaining is not None and remaining <= 1:
        return _ChatPlan(lone_prompt=True)
    plan = _ChatPlan(
        thoughts=model in _REASONING and rng.random() < 0.5,
        code_steps=rng.choices(range(5), weights=(70, 12, 8, 6, 4))[0],
        edit=can_edit and rng.random() < 0.05,
    )
    if not plan.thoughts and not plan.code_steps and rng.random() < 0.06:
        plan.regenerations = rng.randint(1, 2)
    while remaining is not None and plan.messages > remaining:
        if plan.regenerations:
            plan.regenerations -= 1
        elif plan.edit:
            plan.edit = False
        elif plan.code_steps:
            plan.code_steps -= 1
        else:
            plan.thoughts = False
    return plan


class _ChatConversation:
    """One conversation object (``mapping`` with parent and children), built in memory."""

    def __init__(self, rng: random.Random, pool: TextPool, clock: float) -> None:
        self.rng, self.pool, self.clock = rng, pool, clock
        self.id = _uuid(rng)
        self.model = rng.choice(_MODELS)
        self.tree = _Tree()
        self.chars = 0
        self.root = _uuid(rng)
        self.mapping: dict[str, dict[str, Any]] = {
            self.root: {"id": self.root, "message": None, "parent": None, "children": []}
        }
        self.current = self.root
        self.created = clock

    def _node(
        self, parent: str, role: str, content: dict[str, Any], *, name: str | None = None,
        recipient: str = "all", metadata: dict[str, Any] | None = None,
    ) -> str:
        key = _uuid(self.rng)
        self.clock += self.rng.uniform(0.5, 30.0)
        meta = dict(metadata or {})
        if role == "assistant":
            meta.update({"finish_details": {"type": "stop", "stop_tokens": [200002]},
                         "is_complete": True, "citations": [], "model_slug": self.model,
                         "default_model_slug": self.model, "parent_id": parent,
                         "request_id": _b62(self.rng, 16), "timestamp_": "absolute"})
        message = {"id": key, "author": {"role": role, "name": name, "metadata": {}},
                   "create_time": round(self.clock, 6), "update_time": None, "content": content,
                   "status": "finished_successfully",
                   "end_turn": True if role == "assistant" and recipient == "all" else None,
                   "weight": 1.0, "metadata": meta, "recipient": recipient, "channel": None}
        self.mapping[key] = {"id": key, "message": message, "parent": parent, "children": []}
        self.mapping[parent]["children"].append(key)
        self.tree.add(None if parent == self.root else parent)
        self.chars += 600 + len(json.dumps(content, ensure_ascii=False))
        return key

    def _text(self, parent: str, role: str, text: str) -> str:
        return self._node(parent, role, {"content_type": "text", "parts": [text]})

    def start(self, system: bool) -> None:
        """The hidden system message most conversations open with (or custom instructions)."""
        if not system:
            return
        content: dict[str, Any]
        if self.rng.random() < 0.2:
            content = {"content_type": "user_editable_context",
                       "user_profile": self.rng.choice(self.pool.paragraphs),
                       "user_instructions": self.rng.choice(self.pool.paragraphs)}
        else:
            content = {"content_type": "text", "parts": [""]}
        self.current = self._node(self.root, "system", content,
                                  metadata={"is_visually_hidden_from_conversation": True})

    @property
    def can_edit(self) -> bool:
        return self.current != self.root

    def _prompt(self, plant: str | None = None) -> str:
        text = self.pool.prose(_size(self.rng, 300, 10, 6000), code=0.05)
        return self._text(self.current, "user", text + (f" {plant}" if plant else ""))

    def _answer(self, parent: str, plant: str | None = None) -> str:
        text = self.pool.prose(_size(self.rng, 1500, 20, 20000), code=0.3)
        return self._text(parent, "assistant", text + (f" {plant}" if plant else ""))

    def turn(self, plan: _ChatPlan, plant: str | None) -> None:
        if plan.edit:
            self._answer(self._prompt())  # the prompt as first written, with its answer
        cur = self._prompt(plant if plan.lone_prompt else None)
        if plan.lone_prompt:
            self.current = cur
            return
        if plan.thoughts:
            cur = self._thoughts(cur)
        for _ in range(plan.code_steps):
            cur = self._code_step(cur)
        n = 1 + plan.regenerations
        answers = [self._answer(cur, plant if i == n - 1 else None) for i in range(n)]
        self.current = answers[-1] if plant else self.rng.choice(answers)

    def _thoughts(self, parent: str) -> str:
        thought = {"summary": self.rng.choice(self.pool.paragraphs)[:60],
                   "content": self.pool.prose(_size(self.rng, 800, 50, 6000)),
                   "chunks": [], "finished": True}  # fmt: skip
        cur = self._node(parent, "assistant", {"content_type": "thoughts", "thoughts": [thought],
                         "source_analysis_msg_id": _uuid(self.rng)},
                         metadata={"reasoning_status": "is_reasoning"})  # fmt: skip
        recap = {"content_type": "reasoning_recap",
                 "content": f"Thought for {self.rng.randint(2, 90)} seconds"}
        return self._node(cur, "assistant", recap, metadata={"reasoning_status": "reasoning_ended"})

    def _code_step(self, parent: str) -> str:
        code = self.rng.choice(self.pool.code_blocks)
        call = self._node(parent, "assistant", {"content_type": "code", "language": "unknown",
                          "response_format_name": None, "text": code}, recipient="python")
        rng = self.rng
        output = rng.choice(self.pool.json_docs if rng.random() < 0.3 else self.pool.logs)
        result = {"status": "success", "run_id": _uuid(rng), "start_time": self.clock,
                  "end_time": self.clock + 1.5, "code": code, "final_expression_output": output,
                  "messages": [], "jupyter_messages": []}  # fmt: skip
        return self._node(call, "tool", {"content_type": "execution_output", "text": output},
                          name="python", metadata={"aggregate_result": result})

    def export(self) -> dict[str, Any]:
        title = " ".join(self.rng.choice(self.pool.paragraphs).split()[:6])
        return {"title": title, "create_time": self.created, "update_time": self.clock,
                "mapping": self.mapping, "moderation_results": [], "current_node": self.current,
                "plugin_ids": None, "conversation_id": self.id, "conversation_template_id": None,
                "gizmo_id": None, "is_archived": False, "safe_urls": [],
                "default_model_slug": self.model, "id": self.id}  # fmt: skip


def _write_chatgpt(
    rng: random.Random, pool: TextPool, budget: _Budget, out: Path, plant: str | None
) -> Generated:
    """``out/conversations.json``: one array, one conversation written at a time."""
    path = out / "conversations.json"
    result = Generated("chatgpt", path, planted=plant, files=1)
    clock = START_TIME
    with path.open("wb") as fp:
        fp.write(b"[")
        result.bytes = 1
        while not budget.done():
            conv = _ChatConversation(rng, pool, clock)
            target = budget.cap(_size(rng, 40_000, 1500, 4 * MB))
            left = budget.left(0)
            conv.start(system=rng.random() < 0.7 and (left is None or left > 2))
            left = budget.left(conv.tree.messages)
            while conv.tree.messages == 0 or (conv.chars < target and left != 0):
                plan = plan_chat(rng, left, conv.model, conv.can_edit)
                conv.turn(plan, plant if plan.messages == left else None)
                left = budget.left(conv.tree.messages)
            data = (b", " if result.conversations else b"") + json.dumps(
                conv.export(), ensure_ascii=False, separators=(", ", ": ")
            ).encode()
            fp.write(data)
            budget.spend(len(data), conv.tree.messages)
            result.add(len(data), conv.tree)
            clock = conv.clock + 7200
        fp.write(b"]")
        result.bytes += 1
    return result


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--format", choices=FORMATS, required=True)
    parser.add_argument("--mb", type=float, help="total size to write, in MiB")
    parser.add_argument("--messages", type=int, help="stop at exactly this many messages")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--plant", help="a word written into the very last message")
    parser.add_argument("--sizes", choices=sorted(SIZES), default="realistic",
                        help="text sizes of Claude Code sessions (default: as real sessions)")
    parser.add_argument("--out", type=Path, required=True)
    args = parser.parse_args(argv)
    if args.mb is None and args.messages is None:
        parser.error("give --mb, --messages or both")
    made = generate(args.format, args.out, args.mb, args.messages, args.seed, args.plant,
                    args.sizes)
    print(json.dumps(made.to_dict(), indent=2))
    return 0


if __name__ == "__main__":
    sys.exit(main())
