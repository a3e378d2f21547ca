"""The one request encoder per provider, chosen by the target's kind (X1).

``send`` posts what these functions return, the preview writes it as ``request.json`` and the
``anthropic``/``openai`` exporters print it, so the three can never disagree on a byte.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from explorer.compaction.target import ProviderKind, Target
from explorer.providers import anthropic_body, gemini_body, openai_body
from explorer.tree.model import Message


def encode_request(
    messages: Sequence[Message], target: Target, *, notes: list[str] | None = None,
    stream: bool = True, max_tokens: int | None = None, prompt_start: int | None = None,
) -> dict[str, Any]:
    """The body of the request carrying ``messages`` to ``target`` (its model, cap, images);
    ``messages[prompt_start:]`` is the new prompt (``None`` in the preview: no prompt yet)."""
    cap = max_tokens or target.output_reserve
    kind = target.kind
    if kind is ProviderKind.ANTHROPIC:
        return anthropic_body.request_body(messages, target.model, cap, stream=stream,
                                           images=target.images, notes=notes,
                                           prompt_start=prompt_start)
    if kind in (ProviderKind.OPENAI, ProviderKind.OPENAI_COMPATIBLE):
        return openai_body.request_body(messages, target.model, cap, stream=stream,
                                        compatible=kind is ProviderKind.OPENAI_COMPATIBLE,
                                        images=target.images, notes=notes)
    return gemini_body.request_body(messages, cap, images=target.images, notes=notes)
