"""Mistral Vibe sessions (``~/.vibe/logs/session/unified/<session id>/``)."""

from explorer.formats.mistral_vibe.reader import FORMAT, read, sniff

__all__ = ["FORMAT", "read", "sniff"]
