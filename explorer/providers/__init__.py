"""Model providers: Anthropic, OpenAI, OpenAI-compatible servers and Gemini; keys, settings."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
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

# Every name is imported when first used: the HTTP clients pull in httpx, the base the
# compaction estimates (Pillow) and the exporters; the window's start needs neither, only
# the settings module beside them.
_BASE = "explorer.providers.base"
_LAZY = {
    **dict.fromkeys(("PROVIDER_KINDS", "Completion", "ContextOverflow", "Provider",
                     "ProviderError", "ProviderKind", "Secret"), _BASE),
    "AnthropicProvider": "explorer.providers.anthropic",
    "GeminiProvider": "explorer.providers.gemini",
    "HttpPolicy": "explorer.providers.http",
    "OpenAIProvider": "explorer.providers.openai",
}


def __getattr__(name: str) -> Any:
    if name in _LAZY:
        import importlib

        return getattr(importlib.import_module(_LAZY[name]), name)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


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
    from explorer.providers.anthropic import AnthropicProvider
    from explorer.providers.base import ProviderKind
    from explorer.providers.gemini import GeminiProvider
    from explorer.providers.http import HttpPolicy
    from explorer.providers.openai import OpenAIProvider

    policy = policy or HttpPolicy()
    parsed = ProviderKind.parse(kind)
    if parsed is ProviderKind.ANTHROPIC:
        return AnthropicProvider(model, api_key, base_url, max_tokens, policy)
    if parsed in (ProviderKind.OPENAI, ProviderKind.OPENAI_COMPATIBLE):
        return OpenAIProvider(model, api_key, base_url, parsed is ProviderKind.OPENAI_COMPATIBLE,
                              max_tokens, policy)
    return GeminiProvider(model, api_key, base_url, max_tokens, policy)
