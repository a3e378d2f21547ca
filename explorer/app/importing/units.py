"""One thing a sync reads whole, as a search for sessions found it (:mod:`sources`)."""

from __future__ import annotations

from pathlib import Path


class Unit:
    """One thing a sync reads whole: a path and the importer that reads it.

    ``size`` and ``mtime_ns`` are what the search saw of a file (None for a folder),
    so a sync with nothing new needs no second look at each file. ``where`` is the path as
    text; the :class:`Path` is made when first asked for (25,000 of them were a sixth of a
    sync with nothing new). Equal, hashed and pickled by its four values.
    """

    __slots__ = ("_path", "fmt", "mtime_ns", "size", "where")

    def __init__(self, path: Path | str, fmt: str, size: int | None = None,
                 mtime_ns: int | None = None) -> None:
        self.where = path if isinstance(path, str) else str(path)
        self._path = path if isinstance(path, Path) else None
        self.fmt, self.size, self.mtime_ns = fmt, size, mtime_ns

    @property
    def path(self) -> Path:
        if self._path is None:
            self._path = Path(self.where)
        return self._path

    def _key(self) -> tuple[str, str, int | None, int | None]:
        return self.where, self.fmt, self.size, self.mtime_ns

    def __eq__(self, other: object) -> bool:
        return isinstance(other, Unit) and self._key() == other._key()

    def __hash__(self) -> int:
        return hash(self._key())

    def __repr__(self) -> str:
        return f"Unit({self.where!r}, {self.fmt!r}, {self.size!r}, {self.mtime_ns!r})"

    def __reduce__(self) -> tuple[type[Unit], tuple[str, str, int | None, int | None]]:
        return Unit, self._key()
