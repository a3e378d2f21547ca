"""aider chat histories (``.aider.chat.history.md`` in a project folder).

The importer is ``reader``; ``read`` and ``sniff`` are what the registry calls,
``can_tail`` and ``read_tail`` what a sync calls (aider only ever appends to the file).
"""

from explorer.formats.aider.reader import FORMAT, can_tail, read, read_tail, sniff

__all__ = ["FORMAT", "can_tail", "read", "read_tail", "sniff"]
