"""Open WebUI chat exports (JSON array of chats).

The importer is ``reader``; ``read`` and ``sniff`` are what the registry calls.
"""

from explorer.formats.openwebui.reader import FORMAT, read, sniff

__all__ = ["FORMAT", "read", "sniff"]
