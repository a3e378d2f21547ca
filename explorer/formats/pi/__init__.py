"""pi / oh-my-pi coding-agent sessions (JSONL, versions 1 to 3).

The importer is ``reader``; ``read`` and ``sniff`` are what the registry calls.
"""

from explorer.formats.pi.reader import FORMAT, read, sniff

__all__ = ["FORMAT", "read", "sniff"]
