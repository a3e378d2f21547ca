"""Where Gemini CLI keeps a working directory's chats, found (or claimed) as it does.

Gemini CLI files each project under ``~/.gemini/tmp/<slug>/chats``. The slug comes
from ``~/.gemini/projects.json`` (path → slug), else from a folder whose
``.project_root`` file names the path, else a new one is claimed: the folder's
name, lower-cased with every other character as ``-``, then ``-1``, ``-2``… past
slugs taken. A hand-back claims a new slug the way Gemini CLI does — the marker files
in ``tmp/<slug>`` and ``history/<slug>`` — and never writes ``projects.json`` (Gemini
CLI locks it while it runs): when Gemini CLI starts in that folder it finds the marker
and registers the slug itself.
"""

from __future__ import annotations

import json
import os
import re
from pathlib import Path

from explorer.app.importing import agent_homes as homes
from explorer.app.importing.agent_homes import Environment

MARKER = ".project_root"


def chats_folder(e: Environment, cwd: str) -> Path:
    """``tmp/<slug>/chats`` for ``cwd``: the registered slug, else the one it would claim."""
    return homes.gemini_tmp(e) / slug_for(e, cwd) / "chats"


def claim(e: Environment, cwd: str) -> None:
    """Write the ownership markers of ``cwd``'s slug where they are missing (0700 folders,
    as Gemini CLI's own files are private to the person)."""
    slug = slug_for(e, cwd)
    for base in (homes.gemini_tmp(e), _gemini_dir(e) / "history"):
        folder = base / slug
        folder.mkdir(mode=0o700, parents=True, exist_ok=True)
        marker = folder / MARKER
        if not marker.exists():
            fd = os.open(marker, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
            with os.fdopen(fd, "w", encoding="utf-8") as f:
                f.write(_normal(cwd, e))


def slug_for(e: Environment, cwd: str) -> str:
    path = _normal(cwd, e)
    registered = _registry(e)
    slug = registered.get(path)
    if slug and _owner(e, slug) in (None, path):
        return slug
    for folder in sorted(homes.gemini_tmp(e).glob(f"*/{MARKER}")):
        if _owner(e, folder.parent.name) == path:
            return folder.parent.name
    return _new_slug(e, path, set(registered.values()))


def _new_slug(e: Environment, path: str, taken: set[str]) -> str:
    base = re.sub(r"-+", "-", re.sub(r"[^a-z0-9]", "-", _basename(path).lower())).strip("-")
    base = base or "project"
    n = 0
    while True:
        candidate = base if n == 0 else f"{base}-{n}"
        n += 1
        if candidate not in taken and _owner(e, candidate) in (None, path):
            return candidate


def _owner(e: Environment, slug: str) -> str | None:
    """Who a slug's markers say owns it (None: no marker yet)."""
    for base in (homes.gemini_tmp(e), _gemini_dir(e) / "history"):
        try:
            return _normal((base / slug / MARKER).read_text(encoding="utf-8").strip(), e)
        except OSError:
            continue
    return None


def _registry(e: Environment) -> dict[str, str]:
    try:
        data = json.loads((_gemini_dir(e) / "projects.json").read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return {}
    projects = data.get("projects") if isinstance(data, dict) else None
    if not isinstance(projects, dict):
        return {}
    return {_normal(k, e): v for k, v in projects.items() if isinstance(v, str)}


def _gemini_dir(e: Environment) -> Path:
    return homes.gemini_tmp(e).parent


def _normal(path: str, e: Environment) -> str:
    """Gemini CLI's ``path.resolve``, lower-cased on Windows."""
    text = path.rstrip("/\\") or path
    return text.lower() if e.system == "win32" else text


def _basename(path: str) -> str:
    return re.split(r"[/\\]", path.rstrip("/\\"))[-1] if path.strip("/\\") else ""
