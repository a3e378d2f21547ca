"""Kimi CLI sessions: the append-only wire log of each session, with what its share folder
says of it (model, work folder, title)."""

from explorer.formats.kimi_cli.reader import FORMAT, can_tail, read, read_tail, sniff

__all__ = ["FORMAT", "can_tail", "read", "read_tail", "sniff"]
