"""Compaction: building the context that would be sent for the active path (SPEC §5)."""
