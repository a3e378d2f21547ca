"""A fake home folder holding session files the agents' real clients recorded (the corpus),
each where its tool writes it, plus an llm database (for tests)."""

from __future__ import annotations

import shutil
import sqlite3
from pathlib import Path

from tests.corpus import CORPUS

AGENTS = ("claude_code", "pi", "codex", "gemini_cli", "opencode")
CODEX_DAY = Path(".codex", "sessions", "2026", "12", "04")
# The Codex session resumed twice (three prompts, two shell calls) and the one beside it.
CODEX_LONG = "rollout-2026-12-04T23-35-13-01a24369-7080-7f33-80e6-888c77e99a4c.jsonl"
CODEX_SHORT = "rollout-2026-12-04T23-35-14-01a24369-73c3-7780-82e6-3404c6dc8faa.jsonl"
CLAUDE_DIR = Path(".claude", "projects", "-tmp-convo-corpus-claude-code-work")
PI_DIR = Path(".pi", "agent", "sessions", "--tmp-convo-corpus-pi-work--")
# The pi session with a second branch, and the file --fork copied it into.
PI = "2026-12-04T23-39-19-427Z_01a2436d-3203-742a-b948-b985f4b16523.jsonl"
PI_FORK = "2026-12-04T23-39-23-350Z_01a2436d-4156-74d1-aebe-3fb41a107acb.jsonl"
GEMINI = Path(".gemini", "tmp", "work", "chats", "session-2026-12-04T23-45-47adf9f6.jsonl")
OPENCODE_DB = Path(".local", "share", "opencode", "opencode.db")


def recorded(agent: str, relative: Path | str) -> Path:
    """A file ``agent``'s client wrote, at its place under the recorded home."""
    return CORPUS / agent / "home" / relative


def codex_rollout(name: str = CODEX_LONG) -> Path:
    return recorded("codex", CODEX_DAY / name)


def claude_sessions() -> list[Path]:
    """The recorded Claude Code session files (subagents' files aside): the session, then the
    copy ``--fork-session`` made of it. The session goes on after the copy was made, so it
    is the longer file."""
    files = recorded("claude_code", CLAUDE_DIR).glob("*.jsonl")
    return sorted(files, key=lambda p: -p.stat().st_size)


def claude_session(fork: bool = False) -> Path:
    return claude_sessions()[1 if fork else 0]


def pi_session(name: str = PI) -> Path:
    return recorded("pi", PI_DIR / name)


def fake_home(home: Path) -> Path:
    """Claude Code, pi, Codex, Gemini CLI and OpenCode recordings and an llm database under
    ``home``: 2 + 2 + 2 + 1 session files, OpenCode's database and llm's."""
    for agent in AGENTS:
        shutil.copytree(CORPUS / agent / "home", home, dirs_exist_ok=True)
    llm = home / ".config" / "io.datasette.llm"
    llm.mkdir(parents=True)
    llm_db(llm / "logs.db")
    return home


def llm_db(path: Path) -> Path:
    """llm's classic logs.db: one conversation of two responses."""
    with sqlite3.connect(path) as conn:
        conn.executescript(
            "CREATE TABLE conversations (id TEXT PRIMARY KEY, name TEXT, model TEXT);"
            "CREATE TABLE responses (id TEXT PRIMARY KEY, model TEXT, prompt TEXT, system TEXT,"
            " prompt_json TEXT, options_json TEXT, response TEXT, response_json TEXT,"
            " conversation_id TEXT, duration_ms INTEGER, datetime_utc TEXT,"
            " input_tokens INTEGER, output_tokens INTEGER);")
        conn.execute("INSERT INTO conversations VALUES ('c1', 'Greetings', 'gpt-4o')")
        conn.executemany(
            "INSERT INTO responses (id, model, prompt, response, conversation_id, datetime_utc)"
            " VALUES (?, 'gpt-4o', ?, ?, 'c1', ?)",
            [("r1", "hi", "hello", "2024-05-01T10:00:00"),
             ("r2", "more", "sure", "2024-05-01T10:01:00")])
    conn.close()
    return path
