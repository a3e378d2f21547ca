"""Model providers: Anthropic, OpenAI, OpenAI-compatible servers and Gemini; keys, settings."""

from __future__ import annotations

from explorer.providers.anthropic import AnthropicProvider
from explorer.providers.base import (
    PROVIDER_KINDS,
    Completion,
    ContextOverflow,
    Provider,
    ProviderError,
    ProviderKind,
    Secret,
)
from explorer.providers.gemini import GeminiProvider
from explorer.providers.http import HttpPolicy
from explorer.providers.openai import OpenAIProvider

__all__ = [
    "PROVIDER_KINDS",
    "AnthropicProvider",
    "Completion",
    "ContextOverflow",
    "GeminiProvider",
    "HttpPolicy",
    "OpenAIProvider",
    "Provider",
    "ProviderError",
    "ProviderKind",
    "Secret",
    "make_provider",
]


def make_provider(
    kind: str,
    *,
    model: str,
    base_url: str,
    api_key: Secret | None,
    max_tokens: int = 4096,
    policy: HttpPolicy | None = None,
) -> Provider:
    """A provider of ``kind`` (``anthropic``, ``openai``, ``openai-compatible``, ``gemini``)."""
    policy = policy or HttpPolicy()
    parsed = ProviderKind.parse(kind)
    if parsed is ProviderKind.ANTHROPIC:
        return AnthropicProvider(model, api_key, base_url, max_tokens, policy)
    if parsed in (ProviderKind.OPENAI, ProviderKind.OPENAI_COMPATIBLE):
        return OpenAIProvider(model, api_key, base_url, parsed is ProviderKind.OPENAI_COMPATIBLE,
                              max_tokens, policy)
    return GeminiProvider(model, api_key, base_url, max_tokens, policy)
