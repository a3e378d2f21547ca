"""The ``agent-*.jsonl`` files of a folder, listed once while the folder stays unchanged.

Every session of a project asks for the older top-level subagent files beside it, and a
sync asks twice (can it be tailed, then the read): each ask listed the whole project folder,
so 2,000 sessions in one folder cost 4,000 listings of 2,000 entries (2.7 s of a 31 s first
sync under the profiler), growing with the square of the sessions. A folder's entries change
only with its modification time, so a listing is kept with that time. A folder changed in
the last ``STABLE_NS`` is listed afresh on every ask: a time stamp's tick could hide an
entry added within it.
"""

from __future__ import annotations

import stat
import time
from pathlib import Path

STABLE_NS = 2_000_000_000
KEPT_FOLDERS = 4096
_kept: dict[Path, tuple[int, tuple[Path, ...]]] = {}


def agent_paths(folder: Path) -> tuple[Path, ...]:
    """The folder's ``agent-*.jsonl`` entries, sorted (none when it is not a folder)."""
    try:
        st = folder.stat()
    except OSError:
        return ()
    if not stat.S_ISDIR(st.st_mode):
        return ()
    kept = _kept.get(folder)
    if kept is not None and kept[0] == st.st_mtime_ns:
        return kept[1]
    found = tuple(sorted(folder.glob("agent-*.jsonl")))
    if time.time_ns() - st.st_mtime_ns > STABLE_NS:
        if len(_kept) >= KEPT_FOLDERS:
            _kept.clear()
        _kept[folder] = (st.st_mtime_ns, found)
    return found
