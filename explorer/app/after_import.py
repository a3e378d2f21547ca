"""Run something once a module is imported, without importing it first.

The error log makes every asyncio event loop report what its tasks leave unhandled; setting
that up imported asyncio into every ``convo`` command, 25 ms and 4 MB that only ``convo
mcp`` uses. A finder at the front of ``sys.meta_path`` waits for the module's import
instead and runs the callback right after the module's own code, before anyone gets it.
"""

from __future__ import annotations

import importlib.util
import sys
import threading
from collections.abc import Callable, Sequence
from importlib.machinery import ModuleSpec
from types import ModuleType
from typing import Any

_lock = threading.Lock()


class _Then:
    """The module's own loader, then the callback."""

    def __init__(self, loader: Any, then: Callable[[], None]) -> None:
        self._loader, self._then = loader, then

    def create_module(self, spec: ModuleSpec) -> ModuleType | None:
        made: ModuleType | None = self._loader.create_module(spec)
        return made

    def exec_module(self, module: ModuleType) -> None:
        self._loader.exec_module(module)
        self._then()

    def __getattr__(self, name: str) -> Any:  # get_source, is_package ... as the loader's
        return getattr(self._loader, name)


class _Waiting:
    """Waits, at the front of ``sys.meta_path``, for one module's import."""

    def __init__(self, name: str, then: Callable[[], None]) -> None:
        self.name, self.then = name, then

    def find_spec(self, fullname: str, path: Sequence[str] | None = None,
                  target: ModuleType | None = None) -> ModuleSpec | None:
        if fullname != self.name or not forget(self):
            return None
        spec = importlib.util.find_spec(fullname)  # the other finders' answer
        if spec is not None and spec.loader is not None:
            spec.loader = _Then(spec.loader, self.then)  # type: ignore[assignment]
        return spec


def after_import(name: str, then: Callable[[], None]) -> object:
    """Call ``then`` once ``name`` is imported: now if it is, else right after its import.
    Returns what :func:`forget` takes to stop waiting."""
    if name in sys.modules:
        then()
        return None
    waiting = _Waiting(name, then)
    with _lock:
        sys.meta_path.insert(0, waiting)
    return waiting


def forget(waiting: object) -> bool:
    """Stop waiting; False when it was not waiting (any more)."""
    with _lock:
        if waiting is None or waiting not in sys.meta_path:
            return False
        sys.meta_path.remove(waiting)
        return True
