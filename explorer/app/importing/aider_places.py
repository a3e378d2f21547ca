"""Where aider's chat histories are: in the folders a person works in, not in a home of its own.

aider writes ``.aider.chat.history.md`` into the folder it runs in (or wherever
``--chat-history-file`` says). So ``convo sources`` looks where projects usually are: the
home folder and the folders up to two levels below it (``~/app``, ``~/code/app``; hidden
folders and package caches skipped), and every folder Claude Code has worked in (the
``projects`` of ``~/.claude.json``), which reaches projects anywhere on the disk. A history
elsewhere is read with ``convo import <file>``.
"""

from __future__ import annotations

import json
import os
from collections.abc import Iterator
from pathlib import Path

HISTORY = ".aider.chat.history.md"
DEPTH = 2
SKIPPED = frozenset({"node_modules", "Library", "AppData", "Applications", "snap", "go",
                     "venv", "__pycache__", "site-packages", "Pictures", "Music", "Movies",
                     "Videos"})
CLAUDE_LIST_LIMIT = 32 * 1024 * 1024
"""``.claude.json`` is read for its project list only while it is smaller than this."""


def _folders(root: Path, depth: int) -> Iterator[Path]:
    yield root
    if depth == 0:
        return
    try:
        entries = sorted(os.scandir(root), key=lambda e: e.name)
    except OSError:
        return
    for entry in entries:
        if entry.name.startswith(".") or entry.name in SKIPPED:
            continue
        try:
            if entry.is_dir(follow_symlinks=False):
                yield from _folders(Path(entry.path), depth - 1)
        except OSError:
            continue


def _claude_projects(home: Path) -> list[Path]:
    """The folders Claude Code lists in ``~/.claude.json`` (absent or unreadable: none)."""
    listing = home / ".claude.json"
    try:
        if listing.stat().st_size > CLAUDE_LIST_LIMIT:
            return []
        data = json.loads(listing.read_bytes())
    except (OSError, ValueError):
        return []
    projects = data.get("projects") if isinstance(data, dict) else None
    return [Path(p) for p in projects if isinstance(p, str) and p] \
        if isinstance(projects, dict) else []


def histories(home: Path) -> list[Path]:
    """Every aider history in the places above, once each, in a stable order."""
    seen: set[str] = set()
    found: list[Path] = []
    for folder in [*_folders(home, DEPTH), *_claude_projects(home)]:
        path = folder / HISTORY
        key = os.path.normcase(os.path.abspath(path))
        if key in seen:
            continue
        seen.add(key)
        if path.is_file():
            found.append(path)
    return found
