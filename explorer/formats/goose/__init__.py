"""Goose sessions: the older JSON Lines files and the newer ``sessions.db`` (see ``reader``)."""

from explorer.formats.goose.reader import FORMAT, read, read_changed, sniff

__all__ = ["FORMAT", "read", "read_changed", "sniff"]
