"""Seeded conversations and run options shared by the provider tests (a module of its own,
not the conftest, so test files import it by a name no other folder uses)."""

from __future__ import annotations

import threading
from typing import Any

from explorer.app.calls.conversation_ops import RunOptions
from explorer.compaction.target import ProviderKind, Target
from explorer.store import Store
from explorer.tree.model import Message, Part

WORDS = (
    "parser", "token", "window", "branch", "commit", "module", "render", "estimate", "ladder",
    "snapshot", "summary", "context", "request", "stream", "retry", "cancel", "export", "import",
    "keyring", "settings",
)



class Waits:
    """Records the backoff delays instead of sleeping them (a real cancel still stops them)."""

    def __init__(self) -> None:
        self.delays: list[float] = []

    def __call__(self, delay: float, cancel: threading.Event | None) -> bool:
        self.delays.append(delay)
        return cancel.is_set() if cancel is not None else False


def prose(seed: int, chars: int) -> str:
    """Deterministic English-like text of about ``chars`` characters."""
    out: list[str] = []
    n = 0
    i = seed
    while n < chars:
        word = WORDS[(i * 7 + seed) % len(WORDS)]
        out.append(word)
        n += len(word) + 1
        i += 1
    return " ".join(out)


def seed_conversation(store: Store, turns: int, chars: int = 200, title: str = "t") -> int:
    """A conversation of ``turns`` prompt/answer pairs, each written as one turn."""
    conv = store.create_conversation(title)
    for t in range(turns):
        store.append_turn(conv, [
            Message(id=None, parent_id=None, role="user",
                    parts=[Part("text", f"question {t}: " + prose(t, chars))]),
            Message(id=None, parent_id=None, role="assistant",
                    parts=[Part("text", f"answer {t}: " + prose(t + 100, chars))]),
        ])
    return conv


def db_state(store: Store, conv: int) -> tuple[int, int | None]:
    """(message count, tip): what a failed call must leave unchanged."""
    c = store.conversation(conv)
    return c.message_count, c.tip_id


def run_options(kind: str, window: int = 100_000, output_reserve: int = 256, *,
                vision: bool = True, **kw: Any) -> RunOptions:
    """Run options aimed at the test server's provider of ``kind`` (the models ``make`` uses)."""
    model = "claude-sonnet-4-5" if kind == "anthropic" else "gpt-4.1"
    target = Target(ProviderKind.parse(kind), model, window, output_reserve=output_reserve,
                    vision=vision)
    return RunOptions(target, **kw)


def request_texts(content: Any) -> list[str]:
    """The text blocks of one message's content in a request body (tool results' too)."""
    if isinstance(content, str):
        return [content]
    out: list[str] = []
    for block in content or []:
        if block.get("type") == "text":
            out.append(block["text"])
        elif block.get("type") == "tool_result":
            out += request_texts(block.get("content"))
    return out


def seen_and_asked(body: dict[str, Any]) -> tuple[list[str], str]:
    """What a text-only model was shown before the last message, and that last message."""
    *before, last = body["messages"]
    seen = [t for m in before for t in request_texts(m.get("content"))]
    return seen, "\n".join(request_texts(last.get("content")))
