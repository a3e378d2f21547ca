"""Compact columns for per-node data of 100,000-node trees: arrays, not an object per node.

A Python object costs 50–200 bytes before its data; a projection with one object,
one list and two label strings per turn costs a 100,000-message session ~100 MB.
These hold the same facts in machine words: ids in an integer array with a sorted
index beside it, labels as one UTF-8 buffer with offsets, child lists as offsets
into one array (compressed sparse rows).
"""

from __future__ import annotations

from array import array
from bisect import bisect_left
from collections.abc import Callable, Hashable, Iterable, Iterator, Mapping, Sequence
from itertools import accumulate
from typing import Any, TypeVar, cast, overload

T = TypeVar("T")


def id_column(ids: Iterable[Hashable]) -> Sequence[Hashable]:
    """Message ids as a 64-bit integer array when they all are integers (the store's are),
    else as a list (tests and other callers may use any hashable)."""
    items = list(ids)
    if all(type(x) is int for x in items):
        try:
            return array("q", cast(list[int], items))
        except OverflowError:
            pass
    return items


class IdIndex(Mapping[Hashable, int]):
    """``{id: value}`` for many integer ids in two arrays (sorted ids, their values).

    A dict of 100,000 ints costs ~8 MB; this costs 12 bytes an entry. Lookups bisect.
    Ids that are not integers (only small hand-made trees have them) go to a dict.
    """

    __slots__ = ("_base", "_keys", "_other", "_values")

    def __init__(self, ids: Sequence[Hashable], values: Sequence[int]) -> None:
        self._base = -1
        whole = [i for i, x in enumerate(ids) if type(x) is int]
        order = sorted(whole, key=lambda i: cast(int, ids[i]))
        self._keys = array("q", [cast(int, ids[i]) for i in order])
        self._values = array("i", (values[i] for i in order))
        plain = set(whole)
        self._other: dict[Hashable, int] = {
            x: values[i] for i, x in enumerate(ids) if i not in plain}
        if len(order) > 1 and any(self._keys[k] == self._keys[k + 1]
                                  for k in range(len(self._keys) - 1)):
            self._dedupe(ids, values)

    @classmethod
    def from_sorted(cls, keys: array[int], values: array[int]) -> IdIndex:
        """An index over ids already ascending and distinct (a store read ``ORDER BY id``):
        the arrays are kept as they are, and ids that are one contiguous range (a
        conversation imported at once) are found by offset instead of by bisection."""
        index = cls.__new__(cls)
        index._keys, index._values, index._other = keys, values, {}
        dense = len(keys) > 0 and keys[-1] - keys[0] == len(keys) - 1
        index._base = keys[0] if dense else -1
        return index

    @classmethod
    def from_raw(cls, keys: array[int], values: array[int], base: int,
                 other: dict[Hashable, int]) -> IdIndex:
        """The index :meth:`raw` described, as it was (another process's, say)."""
        index = cls.__new__(cls)
        index._keys, index._values, index._base, index._other = keys, values, base, other
        return index

    def raw(self) -> tuple[array[int], array[int], int, dict[Hashable, int]]:
        """What the index holds: sorted ids, their values, the dense base (-1: none), odd ids."""
        return self._keys, self._values, self._base, self._other

    def _dedupe(self, ids: Sequence[Hashable], values: Sequence[int]) -> None:
        """Repeated ids keep their last value, as a dict built from the pairs would."""
        last: dict[int, int] = {}
        for x, v in zip(ids, values, strict=True):
            if type(x) is int:
                last[x] = v
        keys = sorted(last)
        self._keys = array("q", keys)
        self._values = array("i", (last[k] for k in keys))

    def _find(self, key: object) -> int:
        if type(key) is not int:
            return -1
        if self._base >= 0:
            k = key - self._base
            return k if 0 <= k < len(self._keys) else -1
        keys = self._keys
        k = bisect_left(keys, key)
        return k if k < len(keys) and keys[k] == key else -1

    def __getitem__(self, key: Hashable) -> int:
        k = self._find(key)
        if k >= 0:
            return self._values[k]
        return self._other[key]

    def get(self, key: Hashable, default: Any = None) -> Any:
        k = self._find(key)
        if k >= 0:
            return self._values[k]
        return self._other.get(key, default)

    def __contains__(self, key: object) -> bool:
        return self._find(key) >= 0 or (type(key) is not int and key in self._other)

    def __len__(self) -> int:
        return len(self._keys) + len(self._other)

    def __iter__(self) -> Iterator[Hashable]:
        yield from self._keys
        yield from self._other

    def pairs(self) -> Iterator[tuple[Hashable, int]]:
        """Every (id, value), ids ascending: a walk over the arrays, no lookup per id."""
        yield from zip(self._keys, self._values, strict=True)
        yield from self._other.items()

    def nbytes(self) -> int:
        """Bytes held by the arrays (the dict of odd ids is empty for the store's trees)."""
        return self._keys.itemsize * len(self._keys) + self._values.itemsize * len(self._values)


class TextColumn(Sequence[str]):
    """Many short strings in one UTF-8 buffer with offsets: ``column[i]`` decodes one.

    Appends go to a bytearray; :meth:`freeze` trims it to bytes once filling is done.
    """

    __slots__ = ("_buf", "_ends")

    def __init__(self, items: Iterable[str] = ()) -> None:
        self._buf: bytes | bytearray = bytearray()
        self._ends = array("I")
        for s in items:
            self.append(s)

    @classmethod
    def of(cls, texts: Iterable[str]) -> TextColumn:
        """A frozen column of ``texts``, encoded and measured in C loops, not an append each."""
        column = cls()
        column.extend(texts)
        return column.freeze()

    def extend(self, texts: Iterable[str]) -> None:
        """Append many strings at once (a chunk of labels), encoded and measured in C loops."""
        buf = self._buf
        assert isinstance(buf, bytearray), "a frozen column takes no more text"
        encoded = list(map(str.encode, texts))
        self._ends.extend(accumulate(map(len, encoded), initial=len(buf)))
        self._ends.pop(len(self._ends) - len(encoded) - 1)
        buf += b"".join(encoded)

    def append(self, text: str) -> None:
        buf = self._buf
        assert isinstance(buf, bytearray), "a frozen column takes no more text"
        buf += text.encode()
        self._ends.append(len(buf))

    @classmethod
    def from_raw(cls, buf: bytes, ends: array[int]) -> TextColumn:
        """A frozen column over ``buf`` with the end offsets ``ends`` (see :meth:`raw`)."""
        column = cls()
        column._buf, column._ends = buf, ends
        return column

    def raw(self) -> tuple[bytes | bytearray, array[int]]:
        """The UTF-8 buffer and each string's end offset in it."""
        return self._buf, self._ends

    def freeze(self) -> TextColumn:
        self._buf = bytes(self._buf)
        return self

    def __len__(self) -> int:
        return len(self._ends)

    @overload
    def __getitem__(self, i: int) -> str: ...
    @overload
    def __getitem__(self, i: slice) -> list[str]: ...
    def __getitem__(self, i: int | slice) -> str | list[str]:
        if isinstance(i, slice):
            return [self[k] for k in range(*i.indices(len(self)))]
        ends = self._ends
        if i < 0:
            i += len(ends)
        start = ends[i - 1] if i > 0 else 0
        return self._buf[start:ends[i]].decode()

    def startswith(self, i: int, prefix: str) -> bool:
        """Whether string ``i`` starts with ``prefix``, without decoding it."""
        start = self._ends[i - 1] if i > 0 else 0
        head = prefix.encode()
        return self._buf[start:start + len(head)] == head and self._ends[i] - start >= len(head)

    def nbytes(self) -> int:
        return len(self._buf) + self._ends.itemsize * len(self._ends)


class Lazy(Sequence[T]):
    """``make(i)`` for ``i`` in ``range(n)``, computed when asked: labels only for what is drawn."""

    __slots__ = ("_make", "_n")

    def __init__(self, n: int, make: Callable[[int], T]) -> None:
        self._n, self._make = n, make

    def __len__(self) -> int:
        return self._n

    @overload
    def __getitem__(self, i: int) -> T: ...
    @overload
    def __getitem__(self, i: slice) -> list[T]: ...
    def __getitem__(self, i: int | slice) -> T | list[T]:
        if isinstance(i, slice):
            return [self._make(k) for k in range(*i.indices(self._n))]
        if i < 0:
            i += self._n
        if not 0 <= i < self._n:
            raise IndexError(i)
        return self._make(i)


def csr(parents: Sequence[int], keep: Callable[[int], bool] | None = None
        ) -> tuple[array[int], array[int]]:
    """Children lists as offsets: the children of ``p`` are ``items[start[p]:start[p + 1]]``,
    in increasing index. ``keep(i)`` says which nodes count (all when None).

    A counting sort in plain loops: no object per node, and no single long call into C
    (a ``sorted`` of 100,000 keys holds the interpreter lock for its whole 30 ms, which
    the window's frames would wait for when a worker groups a tree)."""
    n = len(parents)
    if keep is not None:
        parents = array("i", (p if keep(i) else -1 for i, p in enumerate(parents)))
    starts = array("i", bytes(4 * (n + 1)))
    for p in parents:
        if p >= 0:
            starts[p + 1] += 1
    total = 0
    for k in range(n + 1):
        total += starts[k]
        starts[k] = total
    fill = array("i", starts)
    items = array("i", bytes(4 * total))
    for i, p in enumerate(parents):
        if p >= 0:
            items[fill[p]] = i
            fill[p] += 1
    return starts, items
