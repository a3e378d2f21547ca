"""Claude Code session transcripts (``~/.claude/projects/<project>/<session>.jsonl``).

The importer is ``reader``; ``read`` and ``sniff`` are what the registry calls
(``reads_twice`` what the import's progress asks),
``can_tail`` and ``read_tail`` what a sync calls (see ``tail``).
"""

from explorer.formats.claude_code.reader import FORMAT, read, reads_twice, sniff
from explorer.formats.claude_code.tail import can_tail, read_tail

__all__ = ["FORMAT", "can_tail", "read", "read_tail", "reads_twice", "sniff"]
