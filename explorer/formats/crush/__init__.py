"""Crush sessions: one SQLite ``crush.db`` per project, read-only.

The importer is ``reader`` (``read``, ``sniff``, and ``read_changed`` for a sync);
``projects.databases`` finds the databases Crush's project registry names.
"""

from explorer.formats.crush.convert import FORMAT
from explorer.formats.crush.projects import databases
from explorer.formats.crush.reader import read, read_changed, sniff

__all__ = ["FORMAT", "databases", "read", "read_changed", "sniff"]
