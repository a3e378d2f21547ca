"""claude.ai data exports (``conversations.json``).

The importer is ``reader``; ``read`` and ``sniff`` are what the registry calls.
"""

from explorer.formats.claude_ai.reader import FORMAT, read, sniff

__all__ = ["FORMAT", "read", "sniff"]
