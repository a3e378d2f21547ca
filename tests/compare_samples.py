"""The real samples with branches, imported into a fresh database, and ways to find their
messages by what they say (ids depend on import order, words do not)."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from explorer.app.importing.run import import_paths
from explorer.store import Store

BRANCHING = {
    "chatgpt": "chatgpt/chatgpt-tree.json",
    "librechat": "librechat/librechat-tree.json",
    "pi": "pi/branching.jsonl",
    "claude_code": "claude_code/dag_fork.jsonl",
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


def import_samples(samples_dir: Path, db: Path) -> Samples:
    store = Store(db)
    conv: dict[str, int] = {}
    for name, rel in BRANCHING.items():
        report = import_paths(store, [samples_dir / rel])
        [c] = report.conversations
        conv[name] = c.conversation_id
    return Samples(store, conv)
