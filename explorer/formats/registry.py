"""Which importer reads a given input: detected from the content, never the name."""

from __future__ import annotations

import importlib
from pathlib import Path
from types import ModuleType

from explorer.formats.base import FormatError

# Order matters only where two formats could both claim a file: specific first.
IMPORTERS: tuple[str, ...] = (
    "native", "gemini_cli", "claude_code", "pi", "codex", "opencode", "sillytavern", "chatgpt",
    "openwebui", "librechat", "claude_ai", "llm",
)


def importer_modules() -> list[ModuleType]:
    return [importlib.import_module(f"explorer.formats.{name}") for name in IMPORTERS]


def detect(path: Path) -> ModuleType | None:
    """The importer module whose ``sniff`` accepts ``path``, or None."""
    for module in importer_modules():
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
