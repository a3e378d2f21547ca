"""``sqlite_utils`` imported without the optional ``numpy`` it would pull in.

A new database file is made by the migrations, which use ``sqlite_utils``; it imports
``numpy`` when it can, only to map numpy's number types to column types, which no migration
passes. In ``convo import`` of a 100,000-message session into a new file that was 14 MB of
the 177 MB its process peaked at, held through the whole read. The window, which needs
``numpy`` anyway, has it imported already and finds it as usual.

Only the importing thread is refused ``numpy``, and only while it imports ``sqlite_utils``:
another thread importing ``numpy`` meanwhile gets it (and then ``sqlite_utils`` finds it
imported and uses it, as before).
"""

from __future__ import annotations

import importlib
import sys
import threading
from collections.abc import Sequence
from importlib.machinery import ModuleSpec
from types import ModuleType
from typing import Any

_HIDDEN = "numpy"


class _Refuse:
    """A finder at the front of ``sys.meta_path`` that refuses ``numpy`` to one thread."""

    def __init__(self, thread: int) -> None:
        self.thread = thread

    def find_spec(self, name: str, path: Sequence[str] | None = None,
                  target: ModuleType | None = None) -> ModuleSpec | None:
        if threading.get_ident() == self.thread and (
                name == _HIDDEN or name.startswith(_HIDDEN + ".")):
            raise ImportError(f"{name} is not imported with sqlite_utils", name=name)
        return None


def sqlite_utils() -> Any:
    """The ``sqlite_utils`` module, imported without ``numpy`` unless that is imported."""
    if "sqlite_utils" in sys.modules or _HIDDEN in sys.modules:
        return importlib.import_module("sqlite_utils")
    refuse = _Refuse(threading.get_ident())
    sys.meta_path.insert(0, refuse)
    try:
        return importlib.import_module("sqlite_utils")
    finally:
        sys.meta_path.remove(refuse)
