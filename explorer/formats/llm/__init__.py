"""simonw/llm ``logs.db`` (SQLite), read-only; classic and message-store schemas.

The importer is ``reader``; ``read`` and ``sniff`` are what the registry calls.
"""

from explorer.formats.llm.reader import read, sniff
from explorer.formats.llm.sql import FORMAT

__all__ = ["FORMAT", "read", "sniff"]
