"""Which importer reads a given input: detected from the content, never the name."""

from __future__ import annotations

import importlib
from pathlib import Path
from types import ModuleType

from explorer.formats.base import FormatError
from explorer.formats.safe_zip import is_zip
from explorer.store.guard import database_of

# Order matters only where two formats could both claim a file: specific first.
IMPORTERS: tuple[str, ...] = (
    "native", "gemini_cli", "claude_code", "pi", "codex", "opencode", "sillytavern", "chatgpt",
    "openwebui", "librechat", "claude_ai", "llm",
)


def importer_modules() -> list[ModuleType]:
    return [importlib.import_module(f"explorer.formats.{name}") for name in IMPORTERS]


# Importers that read a zip as it was downloaded. Any other zip is never offered to a
# content sniffer (an uncompressed zip shows its members' text between the headers).
ZIP_IMPORTERS: tuple[str, ...] = ("chatgpt",)


def detect(path: Path) -> ModuleType | None:
    """The importer module whose ``sniff`` accepts ``path``, or None (always None for a
    database this process has open: sniffing it would drop SQLite's locks, W1)."""
    if database_of(path) is not None:
        return None
    modules = importer_modules()
    if path.is_file() and is_zip(path):
        modules = [m for m in modules if m.__name__.rsplit(".", 1)[-1] in ZIP_IMPORTERS]
    for module in modules:
        try:
            if module.sniff(path):
                return module
        except (OSError, ValueError):
            continue
    return None


def require(path: Path) -> ModuleType:
    if not path.exists():
        raise FormatError(f"{path}: no such file or folder")
    module = detect(path)
    if module is None:
        known = ", ".join(IMPORTERS)
        raise FormatError(f"{path}: not a transcript format this program reads (known: {known})")
    return module
