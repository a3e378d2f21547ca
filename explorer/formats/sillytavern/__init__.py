"""SillyTavern chat files (JSONL).

The importer is ``reader``; ``read`` and ``sniff`` are what the registry calls.
"""

from explorer.formats.sillytavern.reader import FORMAT, read, sniff

__all__ = ["FORMAT", "read", "sniff"]
