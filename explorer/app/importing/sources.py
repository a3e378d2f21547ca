"""Finding the sessions a person already has: which tools, how many sessions, how big, how new.

Each tool's place comes from :mod:`explorer.app.importing.agent_homes`. A *unit* is what
one sync reads as a whole: a session file for the JSON Lines agents, the whole
storage folder for OpenCode (a session is spread over many files) and the
database for llm. An unreadable folder is named in ``problems`` and skipped;
it never stops the search.
"""

from __future__ import annotations

import os
import sqlite3
from collections.abc import Callable
from contextlib import closing
from dataclasses import dataclass, field
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from explorer.app.importing import agent_homes as homes
from explorer.app.importing.agent_homes import Environment
from explorer.app.importing.aider_places import histories
from explorer.app.importing.units import Unit
from explorer.formats.crush import databases as crush_databases
from explorer.formats.crush.database import is_database as crush_database
from explorer.formats.cursor.sql import tables_at
from explorer.formats.opencode.database import is_database
from explorer.formats.opencode.storage import find_layouts


@dataclass
class Found:
    """What one tool's folder holds."""

    tool: str
    path: Path
    exists: bool = False
    sessions: int = 0
    size: int = 0
    newest: float | None = None
    units: list[Unit] = field(default_factory=list)
    problems: list[str] = field(default_factory=list)

    def to_dict(self) -> dict[str, Any]:
        return {
            "tool": self.tool, "path": str(self.path), "exists": self.exists,
            "sessions": self.sessions, "size": self.size, "newest": iso(self.newest),
            "problems": self.problems,
        }


def iso(stamp: float | None) -> str | None:
    if stamp is None:
        return None
    return datetime.fromtimestamp(stamp, UTC).isoformat(timespec="seconds").replace("+00:00", "Z")


Scanner = Callable[[Found], None]


def _walk(root: Path, found: Found, depth: int) -> list[os.DirEntry[str]]:
    """Files down to ``depth`` folders below ``root``, in name order; unreadable folders
    are named. A list, filled by one loop a folder: a sync with nothing new walks 25,000
    files, and a generator a level cost a tenth of its time."""
    out: list[os.DirEntry[str]] = []
    _walk_into(root, found, depth, out)
    return out


def _walk_into(root: Path | str, found: Found, depth: int,
               out: list[os.DirEntry[str]]) -> None:
    try:
        with os.scandir(root) as listing:
            entries = sorted(listing, key=_name)
    except OSError as exc:
        found.problems.append(f"{root}: cannot be read ({exc.strerror or exc}); skipped")
        return
    for entry in entries:
        if entry.name.startswith("."):
            continue
        try:
            is_dir = entry.is_dir(follow_symlinks=False)
        except OSError:
            continue
        if is_dir and depth > 0:
            _walk_into(entry.path, found, depth - 1, out)
        elif not is_dir and _regular(entry):
            out.append(entry)
        elif not is_dir:  # a pipe would be waited on forever, a device read without end
            found.problems.append(f"{entry.path}: not a regular file; skipped")


def _name(entry: os.DirEntry[str]) -> str:
    return entry.name


def _regular(entry: os.DirEntry[str]) -> bool:
    try:
        return entry.is_file()  # a link counts when it leads to a regular file
    except OSError:
        return False


def _count(found: Found, entry: os.DirEntry[str], fmt: str) -> None:
    try:
        st = entry.stat()
    except OSError as exc:
        found.problems.append(f"{entry.path}: cannot be read ({exc.strerror or exc}); skipped")
        return
    found.sessions += 1
    found.size += st.st_size
    found.newest = max(found.newest or 0.0, st.st_mtime)
    found.units.append(Unit(entry.path, fmt, st.st_size, st.st_mtime_ns))


def _session_files(fmt: str) -> Scanner:
    """``<root>/<project folder>/<session>.jsonl``, as Claude Code and pi file them."""
    def scan(found: Found) -> None:
        root = len(str(found.path))
        for entry in _walk(found.path, found, 1):
            # in a project folder (its folder's path is longer than the root's), not the root
            if entry.name.endswith(".jsonl") and len(entry.path) - len(entry.name) - 1 > root:
                _count(found, entry, fmt)
    return scan


def _codex(found: Found) -> None:
    for entry in _walk(found.path, found, 4):
        if entry.name.startswith("rollout-") and entry.name.endswith(".jsonl"):
            _count(found, entry, "codex")


def _gemini(found: Found) -> None:
    for entry in _walk(found.path, found, 2):
        name, parent = entry.name, os.path.basename(os.path.dirname(entry.path))
        if parent == "chats" and name.startswith("session-") and name.endswith((".json", ".jsonl")):
            _count(found, entry, "gemini_cli")


def _qwen(found: Found) -> None:
    """``<project>/chats/<session id>.jsonl``: one chat recording per session."""
    for entry in _walk(found.path, found, 2):
        parent = os.path.basename(os.path.dirname(entry.path))
        if parent == "chats" and entry.name.endswith(".jsonl"):
            _count(found, entry, "qwen_code")


def _kimi(found: Found) -> None:
    """``<work folder hash>/<session id>/wire.jsonl``: each session's append-only wire log
    (its subagents' logs, a folder deeper, are not sessions of their own)."""
    for entry in _walk(found.path, found, 2):
        if entry.name == "wire.jsonl" and os.path.dirname(
                os.path.dirname(os.path.dirname(entry.path))) == str(found.path):
            _count(found, entry, "kimi_cli")


def _opencode(found: Found) -> None:
    for layout in find_layouts(found.path):
        sessions = layout.sessions()
        if not sessions:
            continue
        found.sessions += len(sessions)
        found.units.append(Unit(layout.root, "opencode"))
        for folder, _dirs, files in os.walk(layout.root):
            for name in files:
                try:
                    st = os.stat(os.path.join(folder, name))
                except OSError:
                    continue
                found.size += st.st_size
                found.newest = max(found.newest or 0.0, st.st_mtime)
    _opencode_db(found, found.path / "opencode.db")


def _opencode_db(found: Found, db: Path) -> None:
    """OpenCode 1.2+ (and Kilo CLI, built on it): every session in one SQLite file."""
    if not db.is_file():
        return
    if not is_database(db):
        found.problems.append(f"{db}: not an OpenCode database this program can read; skipped")
        return
    _database(found, db, "opencode", "SELECT count(*) FROM session")


def _llm(found: Found) -> None:
    path = found.path
    try:
        st = path.stat()
        uri = f"{path.resolve().as_uri()}?mode=ro"
        with closing(sqlite3.connect(uri, uri=True)) as conn:
            count = _llm_conversations(conn)
    except (OSError, sqlite3.Error) as exc:
        found.problems.append(f"{path}: cannot be read ({exc}); skipped")
        return
    found.sessions, found.size, found.newest = int(count), st.st_size, st.st_mtime
    found.units.append(Unit(path, "llm", st.st_size, st.st_mtime_ns))


def _llm_conversations(conn: sqlite3.Connection) -> int:
    """Classic conversations and llm 0.36's threads (which leave ``conversations`` empty),
    an id in both counted once, as the import reads it."""
    tables = {r[0] for r in conn.execute("SELECT name FROM sqlite_master WHERE type='table'")}
    ids = [f"SELECT id FROM {t}" for t in ("conversations", "threads") if t in tables]
    if not ids:
        return 0
    return int(conn.execute(f"SELECT count(*) FROM ({' UNION '.join(ids)})").fetchone()[0])


def _copilot(found: Found) -> None:
    """``<session id>/events.jsonl``, one folder per Copilot CLI session."""
    for entry in _walk(found.path, found, 1):
        if entry.name == "events.jsonl" and os.path.dirname(entry.path) != str(found.path):
            _count(found, entry, "copilot_cli")


def _continue(found: Found) -> None:
    """``<session id>.json``, one file per Continue CLI session, beside its ``sessions.json``."""
    for entry in _walk(found.path, found, 0):
        if entry.name.endswith(".json") and entry.name != "sessions.json":
            _count(found, entry, "continue_cli")


def _crush(found: Found) -> None:
    """Crush's ``crush.db`` of every project its ``projects.json`` names (title sessions
    are no conversation and are not counted)."""
    for db in crush_databases(found.path, found.problems):
        if not crush_database(db):
            found.problems.append(f"{db}: not a Crush database this program can read; skipped")
            continue
        _database(found, db, "crush", "SELECT count(*) FROM sessions WHERE parent_session_id "
                  "IS NULL OR id != 'title-' || parent_session_id")


def _cline(found: Found) -> None:
    """Cline CLI's ``<session id>/*.messages.json``, or an extension's task folders."""
    if found.path.name == "tasks":
        _tasks(found)
        return
    for entry in _walk(found.path, found, 1):
        if entry.name.endswith(".messages.json") and os.path.dirname(entry.path) != str(found.path):
            _count(found, entry, "cline")


def _tasks(found: Found) -> None:
    """``<task id>/api_conversation_history.json`` and its siblings: one unit a task folder
    (Cline's, Roo Code's or Kilo Code's extension), rewritten whole."""
    for entry in _walk(found.path, found, 1):
        if entry.name != "api_conversation_history.json":
            continue
        folder = Path(entry.path).parent
        found.sessions += 1
        found.units.append(Unit(folder, "cline_tasks"))
        for item in os.scandir(folder):
            try:
                st = item.stat()
            except OSError:
                continue
            if item.is_file():
                found.size += st.st_size
                found.newest = max(found.newest or 0.0, st.st_mtime)


def _places(where: Path | list[Path]) -> list[Path]:
    """Every place of a tool kept in several (one per editor): those there, else the first."""
    if isinstance(where, Path):
        return [where]
    there = [p for p in where if p.exists()]
    return there or where[:1]


_EXT = {"cline": "saoudrizwan.claude-dev", "roo-code": "rooveterinaryinc.roo-cline",
        "kilo-code": "kilocode.kilo-code"}


def _database(found: Found, db: Path, fmt: str, count_sql: str) -> None:
    """One SQLite file a tool writes through its ``-wal`` file: its size and newest change
    count both, so a sync sees what is only in the WAL yet."""
    try:
        uri = f"{db.resolve().as_uri()}?mode=ro"
        with closing(sqlite3.connect(uri, uri=True)) as conn:
            count = int(conn.execute(count_sql).fetchone()[0])
        stats = [p.stat() for p in (db, db.with_name(db.name + "-wal")) if p.is_file()]
    except (OSError, sqlite3.Error) as exc:
        found.problems.append(f"{db}: cannot be read ({exc}); skipped")
        return
    size, newest = sum(st.st_size for st in stats), max(st.st_mtime_ns for st in stats)
    found.sessions += count
    found.size += size
    found.newest = max(found.newest or 0.0, newest / 1e9)
    found.units.append(Unit(db, fmt, size, newest))


def _cursor_chats(found: Found) -> None:
    """``<workspace md5>/<chat id>/store.db``, one cursor-agent chat each."""
    for entry in _walk(found.path, found, 2):
        if entry.name == "store.db":
            _database(found, Path(entry.path), "cursor",
                      "SELECT count(*) FROM meta WHERE key = '0'")


def _cursor_editor(found: Found) -> None:
    """The editor's composer chats, in ``globalStorage/state.vscdb`` (and, from older
    builds, a workspace's own ``workspaceStorage/<id>/state.vscdb``)."""
    dbs = [found.path / "globalStorage" / "state.vscdb",
           *sorted((found.path / "workspaceStorage").glob("*/state.vscdb"))]
    for db in dbs:
        if db.is_file() and "cursorDiskKV" in tables_at(db):
            _database(found, db, "cursor",
                      "SELECT count(*) FROM cursorDiskKV WHERE key LIKE 'composerData:%'")


def _goose(found: Found) -> None:
    """``<id>.jsonl`` sessions and, from Goose 1.10, ``sessions.db`` holding them all."""
    for entry in _walk(found.path, found, 0):
        if entry.name.endswith(".jsonl"):
            _count(found, entry, "goose")
    db = found.path / "sessions.db"
    if db.is_file():
        _database(found, db, "goose", "SELECT count(*) FROM sessions")


def _aider(found: Found) -> None:
    """aider's histories in the project folders under the home (see ``aider_places``)."""
    for path in histories(found.path):
        try:
            st = path.stat()
        except OSError as exc:
            found.problems.append(f"{path}: cannot be read ({exc.strerror or exc}); skipped")
            continue
        found.sessions += 1
        found.size += st.st_size
        found.newest = max(found.newest or 0.0, st.st_mtime)
        found.units.append(Unit(path, "aider", st.st_size, st.st_mtime_ns))


def _vibe(found: Found) -> None:
    """One unit a session folder (its journal grows in segments), read whole and merged."""
    for entry in _walk(found.path, found, 1):
        if entry.name != "CURRENT":
            continue
        folder = Path(entry.path).parent
        found.sessions += 1
        found.units.append(Unit(folder, "mistral_vibe"))
        for name in ("CURRENT", "meta.json"):
            try:
                st = (folder / name).stat()
            except OSError:
                continue
            found.size += st.st_size
            found.newest = max(found.newest or 0.0, st.st_mtime)


TOOLS: tuple[tuple[str, Callable[[Environment], Path | list[Path]], Scanner], ...] = (
    ("claude-code", homes.claude_projects, _session_files("claude_code")),
    ("pi", homes.pi_sessions, _session_files("pi")),
    ("oh-my-pi", homes.omp_sessions, _session_files("pi")),
    ("codex", lambda e: homes.codex_home(e) / "sessions", _codex),
    ("gemini-cli", homes.gemini_tmp, _gemini),
    ("qwen-code", homes.qwen_projects, _qwen),
    ("kimi-cli", homes.kimi_sessions, _kimi),
    ("opencode", homes.opencode_data, _opencode),
    ("llm", homes.llm_logs, _llm),
    ("copilot", homes.copilot_sessions, _copilot),
    ("cursor", homes.cursor_chats, _cursor_chats),
    ("cursor-editor", homes.cursor_user, _cursor_editor),
    ("goose", homes.goose_sessions, _goose),
    ("crush", homes.crush_data, _crush),
    ("continue", homes.continue_sessions, _continue),
    ("cline", lambda e: [homes.cline_sessions(e), *homes.editor_tasks(e, _EXT["cline"])], _cline),
    ("roo-code", lambda e: homes.editor_tasks(e, _EXT["roo-code"]), _tasks),
    ("kilo-code", lambda e: homes.editor_tasks(e, _EXT["kilo-code"]), _tasks),
    ("kilo-cli", homes.kilo_data, lambda found: _opencode_db(found, found.path / "kilo.db")),
    ("aider", lambda e: e.home, _aider),
    ("mistral-vibe", homes.vibe_sessions, _vibe),
)
TOOL_NAMES = tuple(name for name, _, _ in TOOLS)


def find_sources(env: Environment | None = None, only: set[str] | None = None) -> list[Found]:
    """Every known tool's place, with what it holds (absent places say ``exists: False``)."""
    e = env or Environment.current()
    out: list[Found] = []
    for name, where, scan in TOOLS:
        if only is not None and name not in only:
            continue
        for path in _places(where(e)):
            found = Found(name, path)
            found.exists = found.path.exists()
            if found.exists:
                scan(found)
            out.append(found)
    return out
