"""Which importer reads a given input: detected from the content, never the name.

The table of formats is written once here, each with what it can do besides reading a
whole file (:class:`~explorer.formats.importer.Capabilities`); mypy checks every package
against the protocols it is listed for.
"""

from __future__ import annotations

from functools import cache
from pathlib import Path

from explorer.formats.base import FormatError
from explorer.formats.importer import Capabilities, Importer
from explorer.formats.safe_zip import is_zip
from explorer.formats.size_limit import DATABASES, EXPORTS, OTHER, SESSIONS, SizeLimit
from explorer.store.guard import database_of

# Order matters only where two formats could both claim a file: specific first.
IMPORTERS: tuple[str, ...] = (
    "native", "gemini_cli", "qwen_code", "kimi_cli", "cline", "claude_code", "pi", "codex",
    "opencode", "crush", "continue_cli",
    "sillytavern", "chatgpt",
    "openwebui", "librechat", "claude_ai", "llm",
    "copilot_cli", "cline_tasks",
    "cursor", "aider", "goose", "mistral_vibe",
)


@cache
def formats() -> dict[str, Capabilities]:
    """Every format by name, in detection order (imported on first use)."""
    from explorer.formats import (
        aider,
        chatgpt,
        claude_ai,
        claude_code,
        cline,
        cline_tasks,
        codex,
        continue_cli,
        copilot_cli,
        crush,
        cursor,
        gemini_cli,
        goose,
        kimi_cli,
        librechat,
        llm,
        mistral_vibe,
        native,
        opencode,
        openwebui,
        pi,
        qwen_code,
        sillytavern,
    )

    table = {
        "native": Capabilities(native, limit=SizeLimit(EXPORTS, "Conversation Explorer files")),
        "gemini_cli": Capabilities(gemini_cli, tail=gemini_cli,
                                   limit=SizeLimit(SESSIONS, "Gemini CLI chats")),
        "qwen_code": Capabilities(qwen_code, tail=qwen_code,
                                  limit=SizeLimit(SESSIONS, "Qwen Code chats")),
        "kimi_cli": Capabilities(kimi_cli, tail=kimi_cli,
                                 limit=SizeLimit(SESSIONS, "Kimi CLI sessions")),
        "claude_code": Capabilities(claude_code, tail=claude_code, two_pass=claude_code,
                                    limit=SizeLimit(SESSIONS, "Claude Code sessions")),
        "pi": Capabilities(pi, tail=pi, limit=SizeLimit(SESSIONS, "pi sessions")),
        "codex": Capabilities(codex, tail=codex, limit=SizeLimit(SESSIONS, "Codex CLI sessions")),
        "opencode": Capabilities(opencode, changes=opencode,
                                 limit=SizeLimit(DATABASES, "OpenCode exports and databases")),
        "crush": Capabilities(crush, changes=crush, limit=SizeLimit(DATABASES, "Crush databases")),
        "continue_cli": Capabilities(continue_cli,
                                     limit=SizeLimit(SESSIONS, "Continue CLI sessions")),
        "sillytavern": Capabilities(sillytavern, limit=SizeLimit(OTHER, "SillyTavern chats")),
        "chatgpt": Capabilities(chatgpt, limit=SizeLimit(EXPORTS, "ChatGPT exports")),
        "openwebui": Capabilities(openwebui, limit=SizeLimit(EXPORTS, "Open WebUI exports")),
        "librechat": Capabilities(librechat, limit=SizeLimit(EXPORTS, "LibreChat exports")),
        "claude_ai": Capabilities(claude_ai, limit=SizeLimit(EXPORTS, "claude.ai exports")),
        "llm": Capabilities(llm, changes=llm, limit=SizeLimit(DATABASES, "llm databases")),
        "copilot_cli": Capabilities(copilot_cli, tail=copilot_cli,
                                    limit=SizeLimit(SESSIONS, "Copilot CLI sessions")),
        "cursor": Capabilities(cursor, changes=cursor,
                               limit=SizeLimit(DATABASES, "Cursor chat databases")),
        "goose": Capabilities(goose, changes=goose,
                              limit=SizeLimit(DATABASES, "Goose sessions")),
        "cline": Capabilities(cline, limit=SizeLimit(EXPORTS, "Cline CLI sessions")),
        "cline_tasks": Capabilities(cline_tasks, limit=cline_tasks.LIMIT),
        "aider": Capabilities(aider, tail=aider, limit=SizeLimit(SESSIONS, "aider chat histories")),
        "mistral_vibe": Capabilities(mistral_vibe,
                                     limit=SizeLimit(SESSIONS, "Mistral Vibe sessions")),
    }
    return {name: table[name] for name in IMPORTERS}


def importer_modules() -> list[Importer]:
    return [f.importer for f in formats().values()]


def capabilities(importer: Importer) -> Capabilities:
    """What ``importer`` can do besides reading a whole file."""
    return formats()[importer.FORMAT]


# Importers that read a zip as it was downloaded. Any other zip is never offered to a
# content sniffer (an uncompressed zip shows its members' text between the headers).
ZIP_IMPORTERS: tuple[str, ...] = ("chatgpt",)


def detect(path: Path) -> Importer | None:
    """The importer whose ``sniff`` accepts ``path``, or None (always None for a database
    this process has open: sniffing it would drop SQLite's locks, W1)."""
    if database_of(path) is not None:
        return None
    found = formats()
    names = [n for n in found if n in ZIP_IMPORTERS] if path.is_file() and is_zip(path) \
        else list(found)
    for name in names:
        try:
            if found[name].importer.sniff(path):
                return found[name].importer
        except (OSError, ValueError):
            continue
    return None


def require(path: Path) -> Importer:
    if not path.exists():
        raise FormatError(f"{path}: no such file or folder")
    module = detect(path)
    if module is None:
        known = ", ".join(IMPORTERS)
        raise FormatError(f"{path}: not a transcript format this program reads (known: {known})")
    return module
