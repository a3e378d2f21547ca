"""The ``anthropic`` and ``openai`` export formats: a path as the request body a provider takes.

They print what the one encoder per provider returns (the body ``send`` posts, less the
stream flag and the prompt-cache marks, which only pay off when sent), with the last model
of the provider found on the path and a 4,096-token cap.
"""

from __future__ import annotations

import json
from collections.abc import Hashable, Iterator, Mapping, Sequence
from typing import Any

from explorer.compaction.target import ProviderKind, rule_for
from explorer.formats.exporters import Exporter
from explorer.formats.exporters.steps import active_path
from explorer.providers import anthropic_body as anthropic
from explorer.providers import openai_body as openai
from explorer.tree.model import Message

ANTHROPIC_MODEL = "claude-sonnet-4-5"
OPENAI_MODEL = "gpt-4o"
OPENAI_PREFIXES = ("gpt-", "o1", "o3", "o4", "chatgpt")
MAX_TOKENS = 4096


def pick_model(path: Sequence[Message], prefixes: tuple[str, ...], default: str) -> str:
    """The last model on the path that belongs to the provider, else ``default``."""
    for m in reversed(path):
        if m.model and m.model.startswith(prefixes):
            return m.model
    return default


def anthropic_export(path: Sequence[Message], notes: list[str], model: str | None = None
                     ) -> dict[str, Any]:
    """A Messages API body for ``path`` (no stream flag: it is for reading and replaying)."""
    name = model or pick_model(path, ("claude",), ANTHROPIC_MODEL)
    return anthropic.request_body(path, name, MAX_TOKENS, stream=False, cache=False,
                                  images=rule_for(ProviderKind.ANTHROPIC, name), notes=notes)


def openai_export(path: Sequence[Message], notes: list[str], model: str | None = None
                  ) -> dict[str, Any]:
    """A Chat Completions body for ``path`` (no stream flag)."""
    name = model or pick_model(path, OPENAI_PREFIXES, OPENAI_MODEL)
    return openai.request_body(path, name, MAX_TOKENS, stream=False,
                               images=rule_for(ProviderKind.OPENAI, name), notes=notes)


def body_lines(body: Mapping[str, Any]) -> Iterator[str]:
    """A body as indented JSON lines (no trailing newline in any line)."""
    yield from json.dumps(body, ensure_ascii=False, indent=2).splitlines()


def anthropic_lines(header: Mapping[str, Any], messages: Sequence[Message],
                    tip: Hashable | None, notes: list[str] | None = None) -> Iterator[str]:
    yield from body_lines(anthropic_export(active_path(messages, tip), _notes(notes)))


def openai_lines(header: Mapping[str, Any], messages: Sequence[Message],
                 tip: Hashable | None, notes: list[str] | None = None) -> Iterator[str]:
    yield from body_lines(openai_export(active_path(messages, tip), _notes(notes)))


def _notes(notes: list[str] | None) -> list[str]:
    return notes if notes is not None else []


EXPORTERS: dict[str, Exporter] = {e.name: e for e in (
    Exporter("anthropic", ".json", "Anthropic Messages API request body", anthropic_lines),
    Exporter("openai", ".json", "OpenAI Chat Completions request body", openai_lines),
)}
