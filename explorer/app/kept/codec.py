"""Kept views as bytes, and the stamp of the code that derived them.

A kept view (``store.view_cache``) is columns of numbers and text plus a few small
records, the same packed form the turn graph's child sends through its pipe. It is
pickled, but a database file is not trusted the way the child is: a file someone sent
could hold a pickle that runs code when loaded. So loading refuses every global but
the project's own plain records (dataclasses and enums) and arrays: a refused or broken
entry is only a miss, derived again.

A view is only as good as the code that derived it, so each is kept under
:func:`code_key`: the version and a digest of the package's source, which any change
to the code moves (a frozen bundle has no source files: the program file stands for them).
"""

from __future__ import annotations

import contextlib
import dataclasses
import enum
import hashlib
import importlib
import io
import pickle
import sys
from functools import cache
from pathlib import Path
from typing import Any

import explorer

_ALLOWED_BUILTINS = {("array", "_array_reconstructor"), ("array", "array"),
                     ("builtins", "set"), ("builtins", "frozenset"),
                     ("builtins", "complex")}


class Refused(pickle.UnpicklingError):
    """A kept view named something it may not load."""


class _Unpickler(pickle.Unpickler):
    def find_class(self, module: str, name: str) -> Any:
        if (module, name) in _ALLOWED_BUILTINS:
            return super().find_class(module, name)
        if module == "explorer" or module.startswith("explorer."):
            found = getattr(importlib.import_module(module), name, None)
            if isinstance(found, type) and (dataclasses.is_dataclass(found)
                                            or issubclass(found, enum.Enum)):
                return found
        raise Refused(f"a kept view may not load {module}.{name}")


def encode(value: Any) -> bytes:
    return pickle.dumps(value, protocol=5)


def decode(data: bytes) -> Any:
    """The value ``encode`` made; raises :class:`pickle.UnpicklingError` (or another
    error of a broken entry) for anything else."""
    return _Unpickler(io.BytesIO(data)).load()


@cache
def code_key() -> str:
    """The version, and a digest of every source file of the package; in a frozen bundle,
    which has none, of the size and time of the program and the package as installed
    (another build of the same version is another program file)."""
    digest = hashlib.blake2b(digest_size=12)
    root = Path(explorer.__file__).parent
    sources = sorted(root.rglob("*.py"))
    for path in sources:
        digest.update(path.relative_to(root).as_posix().encode())
        digest.update(path.read_bytes())
    if not sources:
        for made in (Path(sys.executable), Path(explorer.__file__)):
            with contextlib.suppress(OSError):
                stat = made.stat()
                digest.update(f"{made}:{stat.st_size}:{stat.st_mtime_ns}".encode())
    return f"{explorer.__version__}:{digest.hexdigest()}"
