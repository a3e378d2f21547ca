"""GitHub Copilot CLI sessions: the event log each session appends to (JSON Lines).

The importer is ``reader``; ``read`` and ``sniff`` are what the registry calls,
``can_tail`` and ``read_tail`` what a sync calls for the lines appended since the last.
"""

from explorer.formats.copilot_cli.reader import FORMAT, can_tail, read, read_tail, sniff

__all__ = ["FORMAT", "can_tail", "read", "read_tail", "sniff"]
