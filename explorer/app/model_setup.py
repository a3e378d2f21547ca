"""Choosing the provider, model and key for a model call, the same way in the CLI and the app.

Flags (or dialog choices) win over the settings file; the key comes from the
keyring or the environment and never appears in an error message.
"""

from __future__ import annotations

import threading
from dataclasses import dataclass, field

from explorer.app import conversation_ops as ops
from explorer.app.preferences import load_app_prefs
from explorer.providers import Provider, make_provider
from explorer.providers.base import TextCallback
from explorer.providers.keys import resolve_key
from explorer.providers.settings import load_settings
from explorer.providers.summarizer import ProviderSummarizer


class SetupError(Exception):
    """A model cannot be called as configured (no key, for instance)."""


@dataclass
class ModelChoice:
    """What the person asked for; ``None`` means "as in the settings file"."""

    kind: str | None = None
    model: str | None = None
    base_url: str | None = None
    window: int | None = None
    max_tokens: int | None = None
    vision: bool = True
    summary: bool = True


@dataclass
class Prepared:
    provider: Provider
    options: ops.RunOptions
    notes: list[str] = field(default_factory=list)


def prepare(choice: ModelChoice, on_text: TextCallback | None = None,
            cancel: threading.Event | None = None) -> Prepared:
    settings = load_settings()
    prefs = load_app_prefs()
    kind = choice.kind or settings.provider
    chosen = settings.for_provider(kind)
    key, status = resolve_key(kind)
    if key is None and kind != "openai-compatible":
        raise SetupError(f"no {kind} API key ({status.line()}); run 'convo keys set {kind}' "
                         f"or set ${status.env_var}")
    max_tokens = choice.max_tokens or chosen.max_output_tokens
    provider = make_provider(kind, model=choice.model or chosen.model,
                             base_url=choice.base_url or chosen.base_url, api_key=key,
                             max_tokens=max_tokens)
    options = ops.RunOptions(
        window=choice.window or chosen.window,
        max_output_tokens=max_tokens,
        threshold=prefs.threshold,
        vision=choice.vision,
        summarizer=ProviderSummarizer(provider) if choice.summary else None,
        on_text=on_text,
        cancel=cancel,
    )
    return Prepared(provider, options, [*settings.notes, *prefs.notes])
