"""The corpus's exports with branches, imported into a fresh database, and ways to find their
messages by what they say (ids depend on import order, words do not)."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from explorer.app.importing.run import import_paths
from explorer.store import Store

# name -> (file under tests/corpus, the title of the conversation in it)
BRANCHING = {
    "chatgpt": ("exports/chatgpt/branching.json", "Rain, a poem and a French joke"),
    "librechat": ("exports/librechat/librechat-tree.json", "Undoing a Git commit"),
    "openwebui": ("exports/openwebui/chat-export-1716802100.json", "Reading notes.txt"),
}


@dataclass
class Samples:
    store: Store
    conv: dict[str, int]

    def find(self, name: str, role: str, starts: str) -> list[int]:
        """Messages of sample ``name`` with ``role`` whose text starts with ``starts``."""
        return [n.id for n in self.store.skeleton(self.conv[name])
                if n.role == role and self.store.message(n.id).text.startswith(starts)]

    def one(self, name: str, role: str, starts: str) -> int:
        [found] = self.find(name, role, starts)
        return found


def import_samples(corpus_dir: Path, db: Path) -> Samples:
    store = Store(db)
    conv: dict[str, int] = {}
    for name, (rel, title) in BRANCHING.items():
        report = import_paths(store, [corpus_dir / rel])
        [c] = [c for c in report.conversations if store.conversation(c.conversation_id).title
               == title]
        conv[name] = c.conversation_id
    return Samples(store, conv)
