"""OpenAI Codex CLI rollouts: reading them (``reader``) and writing one back (``export``)."""

from explorer.formats.codex.reader import FORMAT, read, read_tail, sniff

__all__ = ["FORMAT", "read", "read_tail", "sniff"]
