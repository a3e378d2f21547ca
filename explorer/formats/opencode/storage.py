"""OpenCode's on-disk storage: one JSON file per session, message and part.

Two layouts have shipped (both under ``~/.local/share/opencode/``):

- up to 0.5: ``project/<project>/storage/session/{info,message,part}/`` with
  ``info/<ses>.json``, ``message/<ses>/<msg>.json``, ``part/<ses>/<msg>/<prt>.json``;
- from 0.6: ``storage/session/<project>/<ses>.json``, ``storage/message/<ses>/<msg>.json``,
  ``storage/part/<msg>/<prt>.json``.

Ids sort by creation time (``msg_``/``prt_`` carry a time prefix), so files are
read in id order. A file that does not parse is named in a note and skipped.
OpenCode 1.2 moved to a SQLite database: see :mod:`explorer.formats.opencode.database`.
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from explorer.formats.base import ImportedConversation
from explorer.formats.opencode.convert import conversation


@dataclass(frozen=True)
class Layout:
    """Where one storage root keeps each kind of file."""

    root: Path
    old: bool

    def sessions(self) -> list[Path]:
        if self.old:
            return sorted((self.root / "session" / "info").glob("ses_*.json"))
        return sorted((self.root / "session").glob("*/ses_*.json"))

    def messages(self, session_id: str) -> list[Path]:
        base = self.root / "session" / "message" if self.old else self.root / "message"
        return sorted((base / session_id).glob("*.json"))

    def parts(self, session_id: str, message_id: str) -> list[Path]:
        if self.old:
            return sorted((self.root / "session" / "part" / session_id / message_id).glob("*.json"))
        return sorted((self.root / "part" / message_id).glob("*.json"))


def layout_at(path: Path) -> Layout | None:
    if (path / "session" / "info").is_dir() and (path / "session" / "message").is_dir():
        return Layout(path, old=True)
    if all((path / d).is_dir() for d in ("session", "message", "part")):
        return Layout(path, old=False)
    return None


def find_layouts(path: Path) -> Iterator[Layout]:
    """Storage roots at ``path``, its ``storage``, ``project/*/storage``, or above ``session``.

    Only these places, never a deep search: a folder is OpenCode's only if its
    shape says so.
    """
    candidates = [path, path / "storage"]
    if path.name == "session":
        candidates.append(path.parent)
    projects = path / "project"
    if projects.is_dir():
        candidates += [p / "storage" for p in sorted(projects.iterdir())]
    if path.name == "project":
        candidates += [p / "storage" for p in sorted(path.iterdir())]
    for candidate in candidates:
        found = layout_at(candidate)
        if found is not None:
            yield found


def load(path: Path, notes: list[str]) -> dict[str, Any] | None:
    try:
        value = json.loads(path.read_bytes())
    except (OSError, ValueError, RecursionError) as exc:
        notes.append(f"{path.name}: unreadable ({type(exc).__name__}); skipped")
        return None
    if not isinstance(value, dict):
        notes.append(f"{path.name}: not a JSON object; skipped")
        return None
    return value


def session_records(layout: Layout, info: dict[str, Any],
                    notes: list[str]) -> list[tuple[dict[str, Any], list[Any]]]:
    """The session's messages in time order, each with its parts in id order."""
    sid = str(info.get("id", ""))
    out: list[tuple[dict[str, Any], list[Any]]] = []
    for file in layout.messages(sid):
        minfo = load(file, notes)
        if minfo is None:
            continue
        mid = str(minfo.get("id", file.stem))
        parts = [p for f in layout.parts(sid, mid) if (p := load(f, notes)) is not None]
        out.append((minfo, parts))
    out.sort(key=lambda r: (_created(r[0]), str(r[0].get("id", ""))))
    return out


def _created(info: dict[str, Any]) -> float:
    times = info.get("time")
    value = times.get("created") if isinstance(times, dict) else None
    return float(value) if isinstance(value, int | float) and not isinstance(value, bool) else 0.0


def layout_conversations(layout: Layout, only: set[str] | None = None
                         ) -> Iterator[ImportedConversation]:
    """The conversations of the layout's sessions (of those named in ``only``, when given);
    a session file that cannot be read is named in its notes and left out, as is an empty one."""
    for file in layout.sessions():
        if only is not None and file.stem not in only:
            continue
        notes: list[str] = []
        info = load(file, notes)
        if info is None:
            continue
        conv = conversation(info, session_records(layout, info, notes), str(file), notes)
        if conv.messages:
            yield conv
