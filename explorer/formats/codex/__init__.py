"""OpenAI Codex CLI rollouts: reading them (``reader``) and writing one back (``export``)."""

from explorer.formats.codex.reader import FORMAT, can_tail, read, read_tail, sniff

__all__ = ["FORMAT", "can_tail", "read", "read_tail", "sniff"]
