"""Opening zips people downloaded from somewhere, without trusting them.

Nothing is ever extracted to disk, but names and sizes still come from the
archive's author: entries whose names climb out of the archive (``..``,
absolute paths) are refused, and members are read through a counter that stops
with a ``FormatError`` once a member or the whole archive inflates past its cap
or past a plausible compression ratio (a zip bomb), whatever the header claims.
"""

from __future__ import annotations

import zipfile
import zlib
from dataclasses import dataclass, field
from pathlib import Path, PurePosixPath
from types import TracebackType
from typing import IO

from explorer.formats.base import FormatError

GIB = 1 << 30
MAX_ENTRY_BYTES = 8 * GIB
MAX_TOTAL_BYTES = 16 * GIB
# Text rarely deflates beyond ~20:1; a run of zeros reaches ~1000:1.
MAX_RATIO = 200
RATIO_FREE_BYTES = 1 << 20  # small members may compress as well as they like


def unsafe_reason(name: str) -> str | None:
    """Why a member name must not be used, or None when it is an ordinary relative path."""
    posix = name.replace("\\", "/")
    if posix.startswith("/") or (len(posix) > 1 and posix[1] == ":"):
        return "absolute path"
    if ".." in PurePosixPath(posix).parts:
        return "path climbs out of the archive ('..')"
    if "\x00" in posix:
        return "NUL byte in the name"
    return None


@dataclass
class _Budget:
    """Decompressed bytes still allowed across the whole archive."""

    left: int


class CappedReader:
    """A member stream that refuses to inflate past its limits."""

    def __init__(self, raw: IO[bytes], name: str, limit: int, budget: _Budget) -> None:
        self._raw = raw
        self._name = name
        self._limit = limit
        self._budget = budget
        self.count = 0

    def read(self, size: int = -1) -> bytes:
        want = self._limit - self.count + 1 if size < 0 else size
        try:
            data = self._raw.read(min(want, self._limit - self.count + 1))
        except (zipfile.BadZipFile, zlib.error, EOFError, OSError) as e:
            raise FormatError(f"zip member {self._name!r} is damaged: {e}") from e
        self.count += len(data)
        self._budget.left -= len(data)
        if self.count > self._limit:
            raise FormatError(
                f"zip member {self._name!r} inflates past {self._limit} bytes; "
                "refusing it (a damaged file or a zip bomb)"
            )
        if self._budget.left < 0:
            raise FormatError(
                "the zip inflates past its total size limit; refusing it (a zip bomb?)"
            )
        return data

    def close(self) -> None:
        self._raw.close()

    def __enter__(self) -> CappedReader:
        return self

    def __exit__(
        self, t: type[BaseException] | None, e: BaseException | None, tb: TracebackType | None
    ) -> None:
        self.close()


@dataclass
class SafeZip:
    """A zip opened for reading with refused entries listed in ``refused``."""

    path: Path
    max_entry_bytes: int = MAX_ENTRY_BYTES
    max_total_bytes: int = MAX_TOTAL_BYTES
    max_ratio: int = MAX_RATIO
    refused: list[str] = field(default_factory=list)
    _zip: zipfile.ZipFile | None = None
    _members: dict[str, zipfile.ZipInfo] = field(default_factory=dict)
    _budget: _Budget = field(default_factory=lambda: _Budget(0))

    def __post_init__(self) -> None:
        try:
            self._zip = zipfile.ZipFile(self.path)
        except (zipfile.BadZipFile, OSError, ValueError) as e:
            raise FormatError(f"{self.path.name}: not a readable zip file ({e})") from e
        self._budget = _Budget(self.max_total_bytes)
        for info in self._zip.infolist():
            reason = unsafe_reason(info.filename)
            if reason:
                self.refused.append(f"zip entry {info.filename!r} refused: {reason}")
            elif not info.is_dir() and info.filename not in self._members:
                self._members[info.filename] = info

    def names(self) -> list[str]:
        """The usable member names (files only), in archive order."""
        return list(self._members)

    def size(self, name: str) -> int:
        """The size the header declares (not trusted for reading)."""
        return self._info(name).file_size

    def open(self, name: str, max_bytes: int | None = None) -> CappedReader:
        """Stream one member; reading stops with FormatError past its limit."""
        info = self._info(name)
        limit = min(max_bytes or self.max_entry_bytes, self.max_entry_bytes)
        ratio_cap = max(info.compress_size * self.max_ratio, RATIO_FREE_BYTES)
        if info.file_size > limit:
            size = info.file_size
            raise FormatError(f"zip member {name!r} is {size} bytes; the limit is {limit}")
        if info.file_size > ratio_cap:
            raise FormatError(
                f"zip member {name!r} claims to inflate {info.file_size} bytes from "
                f"{info.compress_size}; refusing it (a zip bomb?)"
            )
        assert self._zip is not None
        try:
            raw = self._zip.open(info)
        # zipfile raises NotImplementedError for compression methods it lacks, RuntimeError
        # for encrypted members: both are files we cannot read, said so plainly.
        except (zipfile.BadZipFile, RuntimeError, NotImplementedError, OSError) as e:
            raise FormatError(f"zip member {name!r} cannot be read: {e}") from e
        return CappedReader(raw, name, min(limit, ratio_cap), self._budget)

    def read(self, name: str, max_bytes: int | None = None) -> bytes:
        """A whole (small) member, within the same limits."""
        with self.open(name, max_bytes) as f:
            chunks = []
            while chunk := f.read(1 << 16):
                chunks.append(chunk)
            return b"".join(chunks)

    def _info(self, name: str) -> zipfile.ZipInfo:
        reason = unsafe_reason(name)
        if reason:
            raise FormatError(f"zip entry {name!r} refused: {reason}")
        info = self._members.get(name)
        if info is None:
            raise FormatError(f"no member {name!r} in {self.path.name}")
        return info

    def close(self) -> None:
        if self._zip is not None:
            self._zip.close()

    def __enter__(self) -> SafeZip:
        return self

    def __exit__(
        self, t: type[BaseException] | None, e: BaseException | None, tb: TracebackType | None
    ) -> None:
        self.close()


def is_zip(path: Path) -> bool:
    """True when the file starts like a zip archive."""
    try:
        with path.open("rb") as f:
            return f.read(4) in (b"PK\x03\x04", b"PK\x05\x06")
    except OSError:
        return False
