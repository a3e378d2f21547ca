"""Cline CLI sessions (``~/.cline/data/sessions/<id>/<id>.messages.json``).

The importer is ``reader``; how one stored message becomes messages of the tree is in
``messages``, which the extensions' task folders (``cline_tasks``) share.
"""

from explorer.formats.cline.reader import FORMAT, read, sniff

__all__ = ["FORMAT", "read", "sniff"]
