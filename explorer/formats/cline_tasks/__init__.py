"""Task folders of the Cline, Roo Code and Kilo Code editor extensions (one format)."""

from explorer.formats.cline_tasks.reader import FORMAT, LIMIT, read, sniff

__all__ = ["FORMAT", "LIMIT", "read", "sniff"]
