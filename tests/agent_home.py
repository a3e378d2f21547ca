"""A fake home folder holding real session files where each tool writes them (for tests)."""

from __future__ import annotations

import shutil
import sqlite3
from pathlib import Path

CODEX_MAY = "rollout-2026-05-11T11-26-55-019e1625-789d-76c0-80ab-3724b5ddb799.jsonl"
CLAUDE = "03eb5929-52b3-4b13-ada3-b93ae35806b8.jsonl"


def fake_home(home: Path, samples: Path) -> Path:
    """Claude Code, pi, Codex, Gemini CLI, OpenCode and llm sessions under ``home``."""
    def put(src: Path, dest: Path) -> None:
        dest.parent.mkdir(parents=True, exist_ok=True)
        shutil.copyfile(src, dest)

    put(samples / "claude_code" / "-experiments-ideas" / CLAUDE,
        home / ".claude" / "projects" / "-experiments-ideas" / CLAUDE)
    put(samples / "pi" / "branching.jsonl",
        home / ".pi" / "agent" / "sessions" / "--work-app--" / "2026-01-01_branching.jsonl")
    put(samples / "codex" / CODEX_MAY, home / ".codex" / "sessions" / "2026" / "05" / "11"
        / CODEX_MAY)
    chats = home / ".gemini" / "tmp" / "9da8b3df" / "chats"
    put(samples / "gemini_cli" / "gemini.jsonl", chats / "session-2026-04-23T12-52-0ab84937.jsonl")
    put(samples / "gemini_cli" / "session-2025-12-01T21-45-5b959dae.json",
        chats / "session-2025-12-01T21-45-5b959dae.json")
    shutil.copytree(samples / "opencode" / "project",
                    home / ".local" / "share" / "opencode" / "project")
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
