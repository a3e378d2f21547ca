"""The agents a branch can be handed to, each with where it looks and how it resumes.

One row per agent says everything the hand-back needs of it: the export format it
reads, the importer that reads the file back (to check it), where a new session goes
for a working directory, how the export names its session, the command that resumes
it, and whether the agent keeps the branch's system text (Codex does; the others bring
their own system prompt).
"""

from __future__ import annotations

import json
import shlex
import time
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass
from pathlib import Path

from explorer.app.importing import agent_homes as homes
from explorer.app.importing.agent_homes import Environment
from explorer.app.sharing import gemini_place
from explorer.formats.titles import TITLES


@dataclass(frozen=True)
class Target:
    agent: str  # the name on the command line and in the export picker
    source: str  # the importer (and the store's source format) that reads its sessions
    session_id: Callable[[dict[str, object]], str | None]  # a record → its session id
    destination: Callable[[Environment, str, str], Path]  # (env, cwd, session) → file
    resume: Callable[[str, str, Path], str]  # (session, cwd, file) → command
    keeps_system: bool = False
    hint: str | None = None  # what the person needs to know besides the command
    listed_anywhere: bool = False  # the agent opens a file wherever it was saved
    twins: Callable[[Path, str], Iterator[Path]] = lambda dest, _s: iter(
        [dest] if dest.exists() else [])  # earlier copies of the same session
    prepare: Callable[[Environment, str], None] = lambda _e, _cwd: None  # before writing

    @property
    def name(self) -> str:
        """As a person calls the agent (its format's title)."""
        return TITLES[self.source]

    def session_of(self, lines: Sequence[str]) -> str | None:
        for line in lines:
            found = self.session_id(json.loads(line))
            if found is not None:
                return found
        return None


def _go(cwd: str) -> str:
    return f"cd {shlex.quote(cwd)} && "


def _claude_dest(e: Environment, cwd: str, session: str) -> Path:
    return homes.claude_projects(e) / homes.claude_project_folder(cwd) / f"{session}.jsonl"


def _pi_dest(e: Environment, cwd: str, session: str) -> Path:
    stamp = time.strftime("%Y-%m-%dT%H-%M-%S-000Z", time.gmtime())
    return homes.pi_sessions(e) / homes.pi_session_folder(cwd) / f"{stamp}_{session}.jsonl"


def _codex_dest(e: Environment, cwd: str, session: str) -> Path:
    local = time.localtime()
    day = homes.codex_home(e) / "sessions" / time.strftime("%Y/%m/%d", local)
    return day / f"rollout-{time.strftime('%Y-%m-%dT%H-%M-%S', local)}-{session}.jsonl"


def _gemini_dest(e: Environment, cwd: str, session: str) -> Path:
    stamp = time.strftime("%Y-%m-%dT%H-%M", time.gmtime())
    return gemini_place.chats_folder(e, cwd) / f"session-{stamp}-{session[:8]}.jsonl"


def _opencode_dest(e: Environment, cwd: str, session: str) -> Path:
    """OpenCode keeps sessions in its database: the export waits in its own folder for
    ``opencode import``, which keeps every id (so the continued session syncs back linked)."""
    return homes.opencode_data(e) / "handoff" / f"{session}.json"


def _named(folder_of: Callable[[Path], Path], pattern: str,
           ) -> Callable[[Path, str], Iterator[Path]]:
    """Files in the destination's folder named after the session (the time is in the name,
    so the same branch would otherwise land twice)."""
    def find(dest: Path, session: str) -> Iterator[Path]:
        folder = folder_of(dest)
        return folder.glob(pattern.format(session=session, short=session[:8])) \
            if folder.is_dir() else iter([])
    return find


def _header_field(kind: str, key: str) -> Callable[[dict[str, object]], str | None]:
    def find(record: dict[str, object]) -> str | None:
        if kind and record.get("type") != kind:
            return None
        value = record.get(key)
        if isinstance(value, dict):  # Codex: {"type": "session_meta", "payload": {"id"}}
            value = value.get("id")
        return str(value) if value else None
    return find


def _gemini_twins(dest: Path, session: str) -> Iterator[Path]:
    """Gemini CLI names a chat by the session's first 8 characters: only a file whose
    header names the whole session is the same one."""
    for path in _named(lambda d: d.parent, "session-*-{short}.jsonl")(dest, session):
        try:
            with path.open(encoding="utf-8") as f:
                head = json.loads(f.readline() or "{}")
        except (OSError, ValueError):
            continue
        if head.get("sessionId") == session:
            yield path


def _opencode_session(record: dict[str, object]) -> str | None:
    info = record.get("info")
    return str(info["id"]) if isinstance(info, dict) and "id" in info else None


CODEX_PICKER = ("Codex's session picker (codex resume without an id) lists this session only "
                "after it was resumed once by id: use the command above the first time")
OPENCODE_IMPORT = ("OpenCode keeps its sessions in a database: the command imports the file "
                   "first (every id kept), then opens the session")

TARGETS: dict[str, Target] = {t.agent: t for t in (
    Target("claude-code", "claude_code", _header_field("", "sessionId"),
           _claude_dest, lambda s, cwd, _p: _go(cwd) + f"claude --resume {s}"),
    Target("pi", "pi", _header_field("session", "id"), _pi_dest,
           lambda _s, cwd, p: _go(cwd) + f"pi --session {shlex.quote(str(p))}",
           listed_anywhere=True, twins=_named(lambda d: d.parent, "*{session}.jsonl")),
    Target("codex", "codex", _header_field("session_meta", "payload"),
           _codex_dest, lambda s, cwd, _p: _go(cwd) + f"codex resume {s}", keeps_system=True,
           hint=CODEX_PICKER, twins=_named(lambda d: d.parents[3], "**/*{session}.jsonl")),
    Target("gemini-cli", "gemini_cli", _header_field("", "sessionId"),
           _gemini_dest, lambda s, cwd, _p: _go(cwd) + f"gemini --resume {s}",
           twins=_gemini_twins, prepare=gemini_place.claim),
    Target("opencode", "opencode", _opencode_session, _opencode_dest,
           lambda s, cwd, p: _go(cwd) + f"opencode import {shlex.quote(str(p))} && "
                                        f"opencode --session {s}",
           hint=OPENCODE_IMPORT, listed_anywhere=True),
)}
AGENTS = tuple(TARGETS)
