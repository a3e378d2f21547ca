"""The explorer's own lossless format: both its importer and its writer live in ``format``."""

from explorer.formats.native.format import FORMAT, MAGIC, VERSION, dump_lines, read, sniff

__all__ = ["FORMAT", "MAGIC", "VERSION", "dump_lines", "read", "sniff"]
