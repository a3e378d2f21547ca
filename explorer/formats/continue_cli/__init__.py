"""Continue CLI (``cn``) sessions: one JSON file per session under ``~/.continue/sessions/``."""

from explorer.formats.continue_cli.reader import FORMAT, read, sniff

__all__ = ["FORMAT", "read", "sniff"]
