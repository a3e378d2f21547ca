"""The full content of a light Claude Code session, read again line by line when written.

A session of 100,000 messages is 100 MB of text and far more as Python objects;
holding it whole while it is shaped and stored cost an import over 400 MB. So a
large session is read twice: the first pass keeps of each message only its tree
(keys, parents, roles, tool ids, the opening of the part its preview shows, a
few flags) and the byte offsets of its lines; the store then asks for the full
parts and metadata of a chunk of messages at a time, which are parsed again
from those offsets and dropped once written. Memory is bounded by a chunk and
the largest line, not by the file.

Claude Code only appends to a session, so the offsets stay valid while the file
grows; a file rewritten between the passes no longer holds the same line at an
offset, which is found (the line's uuid is the message's key) and reported as
:class:`ContentUnavailable` instead of storing the wrong content.
"""

from __future__ import annotations

from collections.abc import Hashable, Sequence
from pathlib import Path
from typing import Any, BinaryIO

from explorer.formats import fast_json
from explorer.formats.claude_code.blocks import as_dict, as_str, content_parts, usage_from
from explorer.formats.claude_code.record_lines import line_meta
from explorer.formats.claude_code.records import (
    RECORD_KEY,
    SNAPSHOTS_KEY,
    notice_record,
    notice_text,
    snapshot_text,
)
from explorer.formats.claude_code.session import Node
from explorer.formats.jsonl import READ_BUFFER, SURROGATE_ESCAPE
from explorer.formats.text_repair import RepairTally, repair_in
from explorer.tree.imported import ContentUnavailable
from explorer.tree.model import Message, Part, Usage

_CALLS = frozenset({"tool_use", "tool_result"})
_START_BITS = 40  # a line's byte offset: files up to a terabyte
_FILE_BITS = 16  # which file of the session (the main one or a subagent's)


def _packed(index: int, line: int, start: int) -> int:
    """Where a message's first line is, as one integer: a tuple a message cost a
    100,000-message session megabytes more."""
    return (((line << _FILE_BITS) | index) << _START_BITS) | start


def _unpacked(where: int) -> tuple[int, int, int]:
    start = where & ((1 << _START_BITS) - 1)
    index = (where >> _START_BITS) & ((1 << _FILE_BITS) - 1)
    return index, where >> (_START_BITS + _FILE_BITS), start


class SessionContent:
    """Fills light messages of one conversation from the files they were read from."""

    def __init__(self, notes: list[str]) -> None:
        self.files: list[Path] = []
        self._where: dict[Hashable, int] = {}  # see _packed
        self._later: dict[Hashable, list[int]] = {}  # offsets of a response's later lines
        self._held: dict[Hashable, tuple[list[Part], dict[str, Any]]] = {}
        self.tally = RepairTally(notes)  # reported in the conversation's notes
        self._escaped = False  # a line of the message being read escapes a surrogate

    def add_file(self, path: Path, nodes: Sequence[Node]) -> None:
        """The light nodes read from ``path``."""
        index = len(self.files)
        if index >= 1 << _FILE_BITS:
            raise ValueError(f"a session of more than {1 << _FILE_BITS} files")
        self.files.append(path)
        for node in nodes:
            if node.light:
                self._where[node.key] = _packed(index, node.line, node.start)
                if node.later_offsets:
                    self._later[node.key] = node.later_offsets

    def __len__(self) -> int:
        return len(self._where)

    @property
    def notes(self) -> list[str]:
        """Where a repair is reported: the conversation's notes."""
        return self.tally.notes

    @notes.setter
    def notes(self, notes: list[str]) -> None:
        self.tally.notes = notes

    @property
    def repaired(self) -> int:
        """Lone surrogates replaced so far."""
        return self.tally.count

    def for_reader(self) -> SessionContent:
        """This content without its locators, for a reading process that fills chunks of it:
        each chunk's come with it (:meth:`locators`, :meth:`located`). The whole table,
        100,000 of them, pickled to each process as it began cost the importing process
        0.1 s and 12 MB (the pickler's memo of every key) at the writer's start."""
        copy = SessionContent([])
        copy.files = list(self.files)
        return copy

    def locators(self, keys: Sequence[Hashable]) -> list[tuple[int, list[int] | None] | None]:
        """Where the lines of each message of ``keys`` are; None for one not light."""
        return [(where, self._later.get(key)) if (where := self._where.get(key)) is not None
                else None for key in keys]

    def located(self, keys: Sequence[Hashable],
                locators: Sequence[tuple[int, list[int] | None] | None]) -> None:
        """Take the :meth:`locators` of a chunk; :meth:`forget` lets them go after."""
        for key, found in zip(keys, locators, strict=True):
            if found is not None:
                self._where[key] = found[0]
                if found[1]:
                    self._later[key] = found[1]

    def forget(self, keys: Sequence[Hashable]) -> None:
        for key in keys:
            self._where.pop(key, None)
            self._later.pop(key, None)

    def holds(self, key: Hashable) -> bool:
        """Whether the message ``key`` is light (its content read again when filled)."""
        return key in self._where

    def shed(self, messages: Sequence[Message]) -> None:
        """Once the conversation is shaped and titled, its light messages keep only their
        tool calls and results: a turn's boundary is judged by them before the content is
        read again, and the openings (text, thinking, notices) have served the title."""
        for m in messages:
            if m.id in self._where and any(p.kind not in _CALLS for p in m.parts):
                m.parts = [p for p in m.parts if p.kind in _CALLS]

    def fill(self, messages: Sequence[Message]) -> None:
        handles: dict[int, BinaryIO] = {}
        try:
            for m in messages:
                where = self._where.get(m.id)
                if where is None or m.id in self._held:
                    continue
                index, line, start = _unpacked(where)
                offsets = (start, *self._later.get(m.id, ()))
                if index not in handles:
                    handles[index] = self._open(index)
                self._escaped = False
                parts, meta, usage = self._read(handles[index], index, line, offsets, m)
                self._held[m.id] = (m.parts, m.source_meta)
                m.parts, m.source_meta, m.usage = parts, {**meta, **m.source_meta}, usage
                if self._escaped:  # only an escape makes a lone surrogate: see _entry
                    self._repair(m)
        finally:
            for handle in handles.values():
                handle.close()

    def release(self, messages: Sequence[Message]) -> None:
        for m in messages:
            held = self._held.pop(m.id, None)
            if held is not None:
                m.parts, m.source_meta = held
                m.usage = None

    def _open(self, index: int) -> BinaryIO:
        try:
            return self.files[index].open("rb", buffering=READ_BUFFER)  # lines near each other
        except OSError as exc:
            raise ContentUnavailable(f"{self.files[index]}: cannot be read again ({exc}); "
                                     "the conversation was not stored") from exc

    def _read(self, handle: BinaryIO, index: int, line: int, offsets: tuple[int, ...],
              m: Message) -> tuple[list[Part], dict[str, Any], Usage | None]:
        record = m.source_meta.get("meta_record")
        if record in ("notice", "file_snapshot"):
            record_parts, record_meta = self._record(handle, index, line, offsets, m, record)
            return record_parts, record_meta, None
        parts: list[Part] = []
        meta: dict[str, Any] = {}
        usage: Usage | None = None
        for n, offset in enumerate(offsets):
            entry = self._entry(handle, index, offset, m if n == 0 else None)
            message = as_dict(entry.get("message"))
            parts.extend(content_parts(message.get("content"))[0])
            usage = usage_from(message.get("usage")) or usage  # as the whole read: last wins
            if n == 0:
                meta = line_meta(line, entry, message)
            elif message.get("stop_reason") is not None:
                meta["stop_reason"] = message["stop_reason"]
        return parts, meta, usage

    def _record(self, handle: BinaryIO, index: int, line: int, offsets: tuple[int, ...],
                m: Message, record: str) -> tuple[list[Part], dict[str, Any]]:
        """A notice or a snapshot's records, as :mod:`records` makes them on a whole read."""
        if record == "notice":
            entry = self._entry(handle, index, offsets[0], m)
            meta = line_meta(line, entry, {})
            meta.update({"meta_record": "notice", "notice": as_str(entry.get("subtype")) or "",
                         RECORD_KEY: notice_record(entry)})
            return [Part("text", notice_text(entry))], meta
        entries = [self._entry(handle, index, offset, None) for offset in offsets]
        meta = {"line": line, "meta_record": "file_snapshot", SNAPSHOTS_KEY: entries}
        return [Part("text", snapshot_text(entries))], meta

    def _entry(self, handle: BinaryIO, index: int, offset: int,
               first_of: Message | None) -> dict[str, Any]:
        handle.seek(offset)
        raw = handle.readline()
        if offset == 0 and raw.startswith(b"\xef\xbb\xbf"):
            raw = raw[3:]
        try:
            entry = fast_json.loads_fast(raw)
        except ValueError:
            entry = self._slowly(raw)
        if not isinstance(entry, dict) or (
                first_of is not None and first_of.source_id is not None
                and entry.get("uuid") != first_of.id):
            raise ContentUnavailable(
                f"{self.files[index]}: changed while it was imported (byte {offset} no longer "
                "holds the line read first); the conversation was not stored, import it again")
        return entry

    def _slowly(self, raw: bytes) -> Any:
        """A line the fast parser refused, as ``json`` reads it (None if it cannot).

        The line is decoded strictly, so a lone surrogate can only come from a JSON escape
        of one, and the fast parser refuses every such escape: a message none of whose
        lines comes here with one is not walked string by string (that walk was a tenth of
        an import's time at the GIL; searching every line for the escape, 5 % of reading)."""
        self._escaped = self._escaped or SURROGATE_ESCAPE.search(raw) is not None
        try:
            return fast_json.loads(raw)
        except (ValueError, RecursionError):
            return None

    def _repair(self, m: Message) -> None:
        self.add_repairs(repair_in(m))

    def add_repairs(self, found: int) -> None:
        """Count ``found`` more lone surrogates replaced (here, or where another process
        filled a chunk of this conversation) in the conversation's one note."""
        self.tally.add(found)
