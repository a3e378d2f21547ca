"""ChatGPT data exports: the zip as downloaded, its ``conversations.json``
(or split ``conversations-000.json``, ``-001``…), an unpacked folder, or one
conversation object.

Exports reach gigabytes, so conversations are streamed one at a time from the
array and never loaded whole.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterator
from contextlib import AbstractContextManager, ExitStack
from dataclasses import dataclass, field
from pathlib import Path

from explorer.formats.base import FormatError, ImportedConversation
from explorer.formats.chatgpt.assets import FolderImages, Images, ZipImages
from explorer.formats.chatgpt.tree import convert_conversation
from explorer.formats.json_stream import Element, Readable, carry_notes, iter_elements
from explorer.formats.safe_zip import SafeZip, is_zip

FORMAT = "chatgpt"
PEEK_BYTES = 64 * 1024
_CONVERSATIONS = re.compile(r"(?:^|/)conversations(?:-\d+)?\.json$")
_LOOKS_LIKE = re.compile(rb'"mapping"\s*:\s*\{')
_AND_ONE_OF = re.compile(rb'"(?:current_node|content_type|author|parent|children)"\s*:')


@dataclass
class _Input:
    """The conversation files of one export and where its images are."""

    label: str
    sources: list[tuple[str, Callable[[], AbstractContextManager[Readable]]]]
    images: Images
    notes: list[str] = field(default_factory=list)


def sniff(path: Path) -> bool:
    """True when the content looks like a ChatGPT export (names are not trusted)."""
    try:
        with ExitStack() as stack:
            found = _open(path, stack)
            if not found.sources:
                return False
            try:
                with found.sources[0][1]() as f:
                    head = f.read(PEEK_BYTES)
            except FormatError:
                return is_zip(path)  # refused (a bomb, damage): reading it says why
    except (FormatError, OSError):
        return False
    start = head.lstrip(b"\xef\xbb\xbf \t\r\n")[:1]
    return start in (b"[", b"{") and bool(_LOOKS_LIKE.search(head) and _AND_ONE_OF.search(head))


def read(path: Path) -> Iterator[ImportedConversation]:
    """Yield each conversation; skipped or repaired parts are listed in its notes."""
    yield from carry_notes(_items(path), path.name)


def _items(path: Path) -> Iterator[ImportedConversation | str]:
    with ExitStack() as stack:
        found = _open(path, stack)
        yield from found.notes
        if not found.sources:
            raise FormatError(f"{path.name}: no conversations.json in it")
        for label, opener in found.sources:
            with opener() as fp:
                yield from _conversations(fp, label, found.images, str(path))


def _conversations(
    fp: Readable, label: str, images: Images, source_path: str
) -> Iterator[ImportedConversation | str]:
    for el in iter_elements(fp):
        item = _convert(el, label, images, source_path)
        del el  # the decoded JSON can go before the record is used
        yield item


def _convert(
    el: Element, label: str, images: Images, source_path: str
) -> ImportedConversation | str:
    """The record for one array element, or a note saying why there is none."""
    where = f"{label}: conversation #{el.index + 1} (character {el.offset})"
    if el.error is not None:
        return f"{where}: {el.error}"
    if not isinstance(el.value, dict):
        return f"{where}: not an object ({type(el.value).__name__}); skipped"
    try:
        conv = convert_conversation(el.value, images, source_path)
    except (ValueError, TypeError, KeyError, AttributeError, RecursionError) as e:
        return f"{where}: skipped: {e}"
    if label != Path(source_path).name:
        conv.meta["member"] = label
    if el.note is not None:
        conv.notes.append(f"{label}: {el.note}")
    return conv


def _open(path: Path, stack: ExitStack) -> _Input:
    """Find the conversation files in a zip, a folder or a single file."""
    if path.is_dir():
        names = sorted(p for p in path.iterdir()
                       if _CONVERSATIONS.search(p.name) and p.is_file())
        too_big = {p: _over_limit(p) for p in names}  # named, never read
        sources = [(p.name, _file_opener(p)) for p in names if too_big[p] is None]
        return _Input(path.name, sources, FolderImages(path, depth=3),
                      [note for note in too_big.values() if note])
    if is_zip(path):
        archive = stack.enter_context(SafeZip(path))
        members = sorted(n for n in archive.names() if _CONVERSATIONS.search(n))
        sources = [(n, _member_opener(archive, n)) for n in members]
        return _Input(path.name, sources, ZipImages(archive), list(archive.refused))
    if not path.is_file():
        raise FormatError(f"{path}: no such file")
    return _Input(path.name, [(path.name, _file_opener(path))], FolderImages(path.parent, 2))


def _over_limit(path: Path) -> str | None:
    """The note naming a conversations file of an unpacked export over the size limit of
    ChatGPT exports (a file named alone was checked before it was read)."""
    from explorer.formats.registry import formats  # the table imports this package

    return formats()[FORMAT].limit.refusal(path)


def _file_opener(path: Path) -> Callable[[], AbstractContextManager[Readable]]:
    return lambda: path.open("rb")


def _member_opener(archive: SafeZip, name: str) -> Callable[[], AbstractContextManager[Readable]]:
    return lambda: archive.open(name)
