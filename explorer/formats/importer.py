"""What an importer is, as types: the seam between the formats and whoever reads them.

Every format package is an :class:`Importer` (``FORMAT``, ``sniff``, ``read``); some can also
read only what an agent appended (:class:`Tailing`), only the sessions of a database that
changed (:class:`ChangeReader`), or read a big file twice (:class:`TwoPass`). The registry
states which format has which, once, as :class:`Capabilities`, and mypy checks each package
against the protocols it is named for: nothing asks a module whether it happens to have a
function of some name.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Protocol

from explorer.formats.size_limit import ANY_FILE, SizeLimit
from explorer.formats.tailing import Cursor, Tail
from explorer.formats.titles import TITLES
from explorer.tree.imported import ImportedConversation

Changed = tuple[list[ImportedConversation], dict[str, Any]]


class Importer(Protocol):
    @property
    def FORMAT(self) -> str: ...  # the packages' own constant

    def sniff(self, path: Path) -> bool: ...

    def read(self, path: Path) -> Iterable[ImportedConversation]: ...


class Tailing(Protocol):
    """A session file an agent appends to: read only what came after a cursor."""

    def can_tail(self, path: Path) -> bool: ...

    def read_tail(self, path: Path, cursor: Cursor | None, *, whole: bool = False) -> Tail: ...


class ChangeReader(Protocol):
    """A database of sessions: read only those changed since the cursor (None: all)."""

    def read_changed(self, path: Path, since: dict[str, Any] | None) -> Changed | None: ...


class TwoPass(Protocol):
    """A format that reads a big file twice (its tree, then its content as it is written)."""

    def reads_twice(self, path: Path) -> bool: ...


@dataclass(frozen=True)
class Capabilities:
    """One format, what it can do besides reading a whole file, and how large a file of it
    an import reads (a larger one is skipped and named)."""

    importer: Importer
    tail: Tailing | None = None
    changes: ChangeReader | None = None
    two_pass: TwoPass | None = None
    limit: SizeLimit = ANY_FILE

    @property
    def name(self) -> str:
        return self.importer.FORMAT

    @property
    def title(self) -> str:
        """The program that wrote it, as a person calls it."""
        return TITLES[self.name]
