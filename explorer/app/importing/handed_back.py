"""A session handed to an agent and continued there comes back under its branch (H1).

The hand-back remembered which stored message each record of the file it wrote is
(:mod:`explorer.store.handoff_keys`). Before such a session is stored, it is renamed to
the conversation it came from (``ce:<uid>``, the id this program's own exports carry, which
the store finds by uid whatever the format) and those records take the keys their messages
are stored under: the store then sees them as present and writes only what the agent
added, below the branch's end.
"""

from __future__ import annotations

from dataclasses import replace

from explorer.formats.base import ImportedConversation
from explorer.store import Store
from explorer.store.handoff_keys import any_handoffs, linked
from explorer.store.import_match import identity


def relinked(store: Store, ic: ImportedConversation) -> ImportedConversation:
    """``ic`` as the continuation of the branch it was handed off from, or unchanged."""
    if not ic.messages or not any_handoffs(store.reader):
        return ic  # (checked first: an import of thousands of sessions pays one lookup each)
    first = [_key(m.source_id, m.id) for m in ic.messages[:3]]
    link = linked(store.reader, ic.source_format, identity(ic), first)
    if link is None:
        return ic
    ic.source_id = f"ce:{link.uid}"
    ic.source_aliases = []
    ic.messages = [
        replace(m, source_id=link.keys[k]) if (k := _key(m.source_id, m.id)) in link.keys
        else m for m in ic.messages]
    return ic


def _key(source_id: object, mid: object) -> str:
    return str(source_id if source_id is not None else mid)
