"""Finding the image files a ChatGPT export ships next to its conversations.

Messages point at images by id (``file-service://file-AbC``, ``sediment://file_00ab``);
the export stores them as files whose names start with that id
(``file-AbC-photo.png``), at the top level or in a subfolder. The index is built
on the first lookup, so exports without images cost nothing.
"""

from __future__ import annotations

import mimetypes
import os
import re
from pathlib import Path
from typing import Protocol

from explorer.formats.base import FormatError
from explorer.formats.safe_zip import SafeZip

MAX_IMAGE_BYTES = 64 << 20
_FILE_ID = re.compile(r"^(file[-_][A-Za-z0-9]+)")
_POINTER = re.compile(r"^[a-z-]+://(.+)$")
_MAGIC = (
    (b"\x89PNG", "image/png"),
    (b"\xff\xd8\xff", "image/jpeg"),
    (b"GIF8", "image/gif"),
    (b"RIFF", "image/webp"),
)


def pointer_id(asset_pointer: str) -> str:
    """``file-service://file-AbC`` → ``file-AbC``; a bare id is returned as is."""
    m = _POINTER.match(asset_pointer)
    return m.group(1) if m else asset_pointer


def media_type(name: str, data: bytes) -> str | None:
    """The image type from the file's first bytes, else from its name."""
    for magic, kind in _MAGIC:
        if data.startswith(magic):
            return kind
    guessed = mimetypes.guess_type(name)[0]
    return guessed if guessed and guessed.startswith("image/") else None


class Images(Protocol):
    def find(self, asset_pointer: str) -> tuple[str, bytes] | None:
        """The (file name, bytes) of the image, or None if the export lacks it."""


class _Index:
    """File id → stored name, built once from a list of names."""

    def __init__(self, names: list[str]) -> None:
        self.names = names
        self.by_id: dict[str, str] = {}
        for name in names:
            m = _FILE_ID.match(name.rsplit("/", 1)[-1])
            if m:
                self.by_id.setdefault(m.group(1), name)

    def lookup(self, file_id: str) -> str | None:
        if not file_id or "/" in file_id:
            return None
        hit = self.by_id.get(file_id)
        if hit:
            return hit
        for name in self.names:
            if name.rsplit("/", 1)[-1].startswith(file_id):
                return name
        return None


class NoImages:
    """For a lone conversation object without any image files."""

    def find(self, asset_pointer: str) -> tuple[str, bytes] | None:
        return None


class ZipImages:
    """Images inside the downloaded export zip."""

    def __init__(self, archive: SafeZip) -> None:
        self._zip = archive
        self._index: _Index | None = None

    def find(self, asset_pointer: str) -> tuple[str, bytes] | None:
        if self._index is None:
            names = [n for n in self._zip.names() if not n.endswith(".json")]
            self._index = _Index(names)
        name = self._index.lookup(pointer_id(asset_pointer))
        if name is None:
            return None
        return name.rsplit("/", 1)[-1], self._zip.read(name, MAX_IMAGE_BYTES)


class FolderImages:
    """Images in an unpacked export folder (searched at most ``depth`` levels down)."""

    def __init__(self, root: Path, depth: int) -> None:
        self._root = root
        self._depth = depth
        self._index: _Index | None = None

    def find(self, asset_pointer: str) -> tuple[str, bytes] | None:
        if self._index is None:
            self._index = _Index(self._walk())
        name = self._index.lookup(pointer_id(asset_pointer))
        if name is None:
            return None
        path = self._root / name
        try:
            if path.stat().st_size > MAX_IMAGE_BYTES:
                raise FormatError(f"image {name!r} is larger than {MAX_IMAGE_BYTES} bytes")
            return path.name, path.read_bytes()
        except OSError:
            return None

    def _walk(self) -> list[str]:
        names: list[str] = []
        for top, dirs, files in os.walk(self._root):
            rel = Path(top).relative_to(self._root)
            if len(rel.parts) >= self._depth:
                dirs.clear()
            names.extend((rel / f).as_posix() for f in files if _FILE_ID.match(f))
        return names
