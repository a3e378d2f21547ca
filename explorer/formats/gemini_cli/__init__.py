"""Gemini CLI saved chats, in the older JSON and the newer JSON Lines shape."""

from explorer.formats.gemini_cli.reader import FORMAT, can_tail, read, read_tail, sniff

__all__ = ["FORMAT", "can_tail", "read", "read_tail", "sniff"]
