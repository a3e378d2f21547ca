"""Claude Code session transcripts (``~/.claude/projects/<project>/<session>.jsonl``).

The importer is ``reader``; ``read`` and ``sniff`` are what the registry calls.
"""

from explorer.formats.claude_code.reader import FORMAT, read, sniff

__all__ = ["FORMAT", "read", "sniff"]
