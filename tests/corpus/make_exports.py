"""Writes tests/corpus/exports/: the chat products' exports the corpus keeps, byte for byte
as each product lays its files out. These products run as web services or apps that
cannot run here, so the files are written from their documented structure rather than
recorded; ``python -m tests.corpus.make_exports`` writes them again, and a test checks
the files on disk are what this writes."""

from __future__ import annotations

import json
from typing import Any

from tests.corpus import CORPUS
from tests.corpus import exports_chat_apps as apps
from tests.corpus import exports_chatgpt as chatgpt

EXPORTS = CORPUS / "exports"


def _python_json(value: Any) -> bytes:
    """ChatGPT's and claude.ai's way: one line, ``", "`` and ``": "``, ASCII escapes."""
    return json.dumps(value).encode()


def _browser_json(value: Any, indent: int | None = None) -> bytes:
    """``JSON.stringify`` (Open WebUI one line, LibreChat indented): UTF-8 as is."""
    separators = (",", ":") if indent is None else (",", ": ")
    return json.dumps(value, ensure_ascii=False, indent=indent,
                      separators=separators).encode()


def _jsonl(records: list[dict[str, Any]], final_newline: bool) -> bytes:
    text = "\n".join(json.dumps(r, ensure_ascii=False, separators=(",", ":"))
                     for r in records)
    return (text + ("\n" if final_newline else "")).encode()


def build() -> dict[str, bytes]:
    """Relative path → bytes, for every file under exports/ except its README."""
    return {
        "chatgpt/branching.json": _python_json([chatgpt.branching()]),
        "chatgpt/single-conversation.json": _python_json(chatgpt.recent()),
        f"chatgpt/{chatgpt.IMAGE_NAME}": chatgpt.png(),
        "openwebui/chat-export-1716802100.json": _browser_json(apps.openwebui()),
        "librechat/librechat-tree.json": _browser_json(apps.librechat(), indent=2),
        "sillytavern/Ferro - 2023-11-14@22h13m10s.jsonl":
            _jsonl(apps.sillytavern_greeting(), final_newline=False),
        "sillytavern/Nonna Rosa - 2024-05-05@22h11m35s.jsonl":
            _jsonl(apps.sillytavern_swipes(), final_newline=True),
        "claude_ai/conversations.json": _python_json(apps.claude_ai()),
    }


def main() -> None:
    for rel, data in build().items():
        path = EXPORTS / rel
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_bytes(data)
        print(f"{path.relative_to(CORPUS)}: {len(data)} bytes")


if __name__ == "__main__":
    main()
