"""simonw/llm ``logs.db`` (SQLite), read-only; classic and message-store schemas.

The importer is ``reader``; ``read`` and ``sniff`` are what the registry calls,
``read_changed`` what a sync calls (see ``changes``).
"""

from explorer.formats.llm.changes import read_changed
from explorer.formats.llm.reader import read, sniff
from explorer.formats.llm.sql import FORMAT

__all__ = ["FORMAT", "read", "read_changed", "sniff"]
