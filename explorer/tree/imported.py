"""The plain records an importer yields and the store writes: one conversation at a time.

They sit in the domain layer because two layers share them: ``formats`` produces them and
``store`` (below it) persists them; ``explorer.formats.base`` re-exports them for importers.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Hashable
from dataclasses import dataclass, field
from typing import Any

from explorer.tree.model import Message


@dataclass
class ImportedCheckpoint:
    label: str
    message_key: Hashable


@dataclass
class ImportedCompaction:
    """A compaction another tool made (e.g. a summary across a boundary)."""

    message_key: Hashable
    kind: str
    summary: str = ""
    meta: dict[str, Any] = field(default_factory=dict)


@dataclass
class ImportedRewind:
    """A rewind recorded by a previous export of our own format."""

    from_key: Hashable
    to_key: Hashable
    label: str
    digest: dict[str, Any] = field(default_factory=dict)
    created_at: float | None = None


@dataclass
class ImportedConversation:
    """One conversation as read from a source file, before storage."""

    title: str
    source_format: str
    messages: list[Message]
    tip: Hashable | None = None
    source_id: str | None = None
    source_path: str | None = None
    created_at: float | None = None
    meta: dict[str, Any] = field(default_factory=dict)
    checkpoints: list[ImportedCheckpoint] = field(default_factory=list)
    compactions: list[ImportedCompaction] = field(default_factory=list)
    rewinds: list[ImportedRewind] = field(default_factory=list)
    context_start: Hashable | None = None
    incomplete: bool = False
    notes: list[str] = field(default_factory=list)
    ignored_records: Counter[str] = field(default_factory=Counter)
