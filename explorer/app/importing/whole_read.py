"""Reading one sync unit whole: its conversations, the record the sync keeps of it, the errors.

Used where the sync writes (a unit read on its own thread) and in the reading processes of a
big sync (:mod:`explorer.app.importing.read_pool`), so both read, title and record a session
the same way. A file that changes while it is read is read again (an agent appending as the
sync reads it), a few times at most; the record then keeps the signature from before the
read that was kept, so a change the last read missed is seen by the next sync.
"""

from __future__ import annotations

import hashlib
import os
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import NamedTuple

from explorer.app.importing.made_rows import SentLight, made_rows
from explorer.app.importing.units import Unit
from explorer.formats.base import FormatError, ImportedConversation
from explorer.formats.common import finish, preview_title
from explorer.formats.registry import formats
from explorer.formats.tailing import Cursor
from explorer.store.sync_writes import SyncRecord

_HASH_SPAN = 4096
READ_TRIES = 3
"""Reads of a file that keeps changing under the reader before what was read is kept."""


class Signature(NamedTuple):
    """What a sync compares to see whether a unit changed (a tuple: 25,000 made per sync)."""

    size: int
    mtime_ns: int
    files: int = 1  # files in a folder unit


def signature(unit: Unit) -> Signature:
    """Size and newest mtime of a file, or of every file in a folder unit."""
    if unit.size is not None and unit.mtime_ns is not None:
        return Signature(unit.size, unit.mtime_ns)
    return _measured(unit.path)


def _measured(path: Path) -> Signature:
    if not path.is_dir():
        st = path.stat()
        return Signature(st.st_size, st.st_mtime_ns)
    size = newest = count = 0
    for folder, _dirs, files in os.walk(path):
        for name in files:
            st = os.stat(os.path.join(folder, name))
            size, newest, count = size + st.st_size, max(newest, st.st_mtime_ns), count + 1
    return Signature(size, newest, count)


def tail_hash(path: Path, offset: int) -> str:
    """A digest of the file's start and of the bytes just before ``offset``.

    Unchanged when the file only grew; a file rewritten or replaced changes it
    (a session is rewritten from its start, and the offset must still fall just
    after a newline).
    """
    with path.open("rb") as handle:
        head = handle.read(min(offset, _HASH_SPAN))
        start = max(0, offset - _HASH_SPAN)
        handle.seek(start)
        window = handle.read(offset - start)
    if window and not window.endswith(b"\n"):
        return "not at a line end"
    return hashlib.sha1(head + b"\0" + window).hexdigest()


@dataclass
class WholeRead:
    """What reading a unit whole gave: conversations to store, the record, what went wrong."""

    conversations: list[ImportedConversation]
    record: SyncRecord
    errors: list[str] = field(default_factory=list)


def read_whole(unit: Unit, sig: Signature) -> WholeRead:
    """Read ``unit`` whole (again while it changes under the reader). Raises OSError."""
    for _ in range(READ_TRIES):
        got = _read_once(unit, sig)
        if unit.size is None and unit.path.is_dir():
            return got
        now = _measured(unit.path)
        if (now.size, now.mtime_ns) == (sig.size, sig.mtime_ns):
            return got
        sig = now  # it changed while it was read: what it is now is read again
    return got


def _read_once(unit: Unit, sig: Signature) -> WholeRead:
    module = formats()[unit.fmt]
    tailing = module.tail is not None and module.tail.can_tail(unit.path)
    cursor: Cursor | None = None
    errors: list[str] = []
    try:
        if tailing and module.tail is not None:
            tail = module.tail.read_tail(unit.path, None)
            cursor = tail.cursor
            found = tail.conversation
            convs = [_finished(found, unit.path)] if found.messages else []
            if not found.messages and found.notes:
                errors.append(f"{unit.path}: nothing readable ({found.notes[0]})")
        else:
            convs = list(module.importer.read(unit.path))
    except FormatError as exc:
        errors.append(str(exc))
        convs = []
    return WholeRead(convs, record(unit, sig, cursor), errors)


def _finished(conv: ImportedConversation, path: Path) -> ImportedConversation:
    conv.title = conv.title or preview_title(conv.messages, conv.source_id or path.stem)
    return finish(conv, conv.tip if conv.tip is not None else conv.messages[-1].id)


def record(unit: Unit, sig: Signature, cursor: Cursor | None) -> SyncRecord:
    if unit.size is None and unit.path.is_dir():
        return SyncRecord(str(unit.path), unit.fmt, sig.size, sig.mtime_ns, sig.files)
    offset = cursor.offset if cursor is not None else sig.size
    return SyncRecord(
        str(unit.path), unit.fmt, sig.size, sig.mtime_ns, offset,
        cursor.to_json() if cursor is not None else None,
        tail_hash(unit.path, offset) if cursor is not None else None, time.time())


def with_rows(got: WholeRead) -> WholeRead:
    """``got`` with every conversation's rows made (its content read in full first), and
    its messages light: their parts come back from the rows when read (``SentLight``)."""
    for ic in got.conversations:
        ic.materialize()
        sent = SentLight(made_rows(ic.messages))
        sent.shed(ic.messages)
        ic.content = sent
    return got
