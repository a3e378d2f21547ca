"""pi / oh-my-pi coding-agent sessions (JSONL, versions 1 to 3).

The importer is ``reader``; ``read`` and ``sniff`` are what the registry calls,
``can_tail`` and ``read_tail`` what a sync calls (see ``tail``).
"""

from explorer.formats.pi.reader import FORMAT, read, sniff
from explorer.formats.pi.tail import can_tail, read_tail

__all__ = ["FORMAT", "can_tail", "read", "read_tail", "sniff"]
