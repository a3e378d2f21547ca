"""How large a file an import reads, per format: past it the file is skipped and named.

Real sessions run to hundreds of megabytes, so the limits are generous; they keep a file
that only starts like a transcript (a sparse file, years of a log, a disk image) from being
read for hours or into memory. The registry gives each format its limit beside what else
it can do (:class:`~explorer.formats.importer.Capabilities`); whoever is about to read a
file of that format asks :meth:`SizeLimit.refusal` first.
"""

from __future__ import annotations

import os
import stat
from dataclasses import dataclass
from pathlib import Path

GIB = 1 << 30
SESSIONS = 4 * GIB
"""JSON Lines agent sessions, streamed line by line: a long session is hundreds of MB."""
EXPORTS = 2 * GIB
"""JSON exports, parsed as one document (streamed element by element where they can be)."""
DATABASES = 8 * GIB
"""SQLite files: queried, never read whole, so a big one costs little more than a small one."""
OTHER = 1 * GIB


@dataclass(frozen=True)
class SizeLimit:
    max_bytes: int
    holds: str
    """What files of the format are, in the plural ("Claude Code sessions")."""

    def refusal(self, path: Path) -> str | None:
        """The note naming ``path`` when it is a regular file over the limit, else None."""
        try:
            st = os.stat(path)
        except OSError:
            return None  # missing or unreadable: said where it is read
        if not stat.S_ISREG(st.st_mode) or st.st_size <= self.max_bytes:
            return None
        return (f"{path}: {_size(st.st_size, self.max_bytes)} is over the "
                f"{self.max_bytes / GIB:g} GB limit for {self.holds}; skipped")


ANY_FILE = SizeLimit(OTHER, "files")


def _size(n: int, limit: int) -> str:
    """``n`` bytes in GB, one decimal; exact bytes where that would read as the limit."""
    shown = f"{n / GIB:.1f}"
    return f"{n:,} bytes" if float(shown) <= limit / GIB else f"{shown} GB"
