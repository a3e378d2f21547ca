"""LibreChat conversation exports (one JSON object per file).

The importer is ``reader``; ``read`` and ``sniff`` are what the registry calls.
"""

from explorer.formats.librechat.reader import FORMAT, NO_PARENT, read, sniff

__all__ = ["FORMAT", "NO_PARENT", "read", "sniff"]
