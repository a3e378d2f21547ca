"""What every importer yields: plain records the app writes, one conversation at a time.

Importers never touch the database. They read a file lazily, turn it into
``ImportedConversation`` records whose message ids are the importer's own keys
(unique within one conversation), and say in ``notes`` what they repaired or
skipped and why. The store maps those keys to fresh database ids (T5). The records
themselves live in ``explorer.tree.imported``: the store, below the formats, writes them.
"""

from __future__ import annotations

from explorer.tree.errors import ExplorerError
from explorer.tree.imported import ImportedCheckpoint as ImportedCheckpoint
from explorer.tree.imported import ImportedCompaction as ImportedCompaction
from explorer.tree.imported import ImportedConversation as ImportedConversation
from explorer.tree.imported import ImportedRewind as ImportedRewind


class FormatError(ExplorerError, ValueError):
    """The input is not in a format we can read; the message says why."""
