"""Choosing the provider, model and key for a model call, the same way in the CLI and the app.

Flags (or dialog choices) win over the settings file; the key comes from the
keyring or the environment and never appears in an error message.
"""

from __future__ import annotations

import os
import threading
from collections.abc import Callable
from dataclasses import dataclass, field
from urllib.parse import urlsplit

from explorer.app.calls import conversation_ops as ops
from explorer.app.targets import build_target
from explorer.compaction.target import ProviderKind, Target
from explorer.providers import Provider, endpoints, make_provider
from explorer.providers.base import Secret, TextCallback
from explorer.providers.http import HttpPolicy
from explorer.providers.keys import resolve_key
from explorer.providers.settings import load_settings
from explorer.providers.summarizer import ProviderSummarizer
from explorer.tree.errors import ExplorerError


class SetupError(ExplorerError):
    """A model cannot be called as configured (no key, for instance)."""


@dataclass
class ModelChoice:
    """What the person asked for; ``None`` means "as in the settings file"."""

    kind: str | None = None
    model: str | None = None
    base_url: str | None = None
    window: int | None = None
    max_tokens: int | None = None
    tier: str | None = None
    vision: bool = True
    summary: bool = True
    redact: bool = True
    timeout: float | None = None
    """Seconds to wait for the first byte of each try (None: the provider's ``timeout``
    setting, else the default, 120)."""
    key_env: str | None = None
    """An environment variable holding the key for a custom base URL, named by the person."""

    def target(self) -> Target:
        """The target these choices make over the settings (what the preview aims at too)."""
        return build_target(self.kind, model=self.model, window=self.window, tier=self.tier,
                            max_tokens=self.max_tokens, vision=self.vision,
                            redact=self.redact)


KEY_SENT_TO_FIELD = "Send the key also to"
"""What the window's Settings dialog calls ``key_sent_to`` (a refusal names both)."""

OWN_HOSTS = {
    ProviderKind.ANTHROPIC: urlsplit(endpoints.ANTHROPIC_URL).hostname,
    ProviderKind.OPENAI: urlsplit(endpoints.OPENAI_URL).hostname,
    ProviderKind.GEMINI: urlsplit(endpoints.GEMINI_URL).hostname,
}


def _check_key_goes_home(kind: ProviderKind, base_url: str, trusted: str) -> None:
    """A provider's key goes to its own host, or to a URL the person named for it."""
    own = OWN_HOSTS.get(kind)
    if own is None or urlsplit(base_url).hostname == own:
        return
    if trusted and trusted.rstrip("/") == base_url.rstrip("/"):
        return
    raise SetupError(
        f"refusing to send the {kind} key to {base_url}: it goes only to {own}. To use "
        f"another server, name its key (--key-env NAME, a variable holding it), trust this "
        f"URL with the {kind} key in the settings (\"key_sent_to\"; in the window: "
        f"Settings, {kind}, \"{KEY_SENT_TO_FIELD}\"), or use --provider openai-compatible")


def _own_key(kind: ProviderKind) -> Secret | None:
    """The provider's key from the keyring, the key file or its variable (None only for an
    OpenAI-compatible server, which often needs none)."""
    try:
        key, status = resolve_key(kind.value)
    except ValueError as e:
        raise SetupError(str(e)) from None
    if key is None and kind is not ProviderKind.OPENAI_COMPATIBLE:
        raise SetupError(f"no {kind} API key ({status.line()}); run 'convo keys set {kind}' "
                         f"or set ${status.env_var}")
    return key


def _named_key(name: str) -> Secret:
    value = os.environ.get(name, "").strip()
    if not value:
        raise SetupError(f"--key-env {name}: no such environment variable (or it is empty)")
    return Secret(value)


@dataclass
class Prepared:
    provider: Provider
    options: ops.RunOptions
    notes: list[str] = field(default_factory=list)


def prepare(choice: ModelChoice, on_text: TextCallback | None = None,
            cancel: threading.Event | None = None,
            notify: Callable[[str], None] | None = None) -> Prepared:
    """The provider and the run options for ``choice``, built from one target."""
    settings = load_settings()
    try:
        target = choice.target()
    except ValueError as e:
        raise SetupError(str(e)) from None
    kind = target.kind
    base_url = choice.base_url or settings.for_provider(kind.value).base_url
    key = _named_key(choice.key_env) if choice.key_env else _own_key(kind)
    if key is not None and not choice.key_env:
        _check_key_goes_home(kind, base_url, settings.for_provider(kind.value).key_sent_to)
    try:
        timeout = choice.timeout if choice.timeout is not None else settings.timeout(kind.value)
        policy = HttpPolicy(notify=notify) if timeout is None else HttpPolicy(
            read_timeout=timeout, notify=notify)
        provider = make_provider(kind, model=target.model, base_url=base_url, api_key=key,
                                 max_tokens=target.output_reserve, policy=policy)
    except ValueError as e:
        raise SetupError(str(e)) from None
    options = ops.RunOptions(
        target=target,
        summarizer=ProviderSummarizer(provider, say=notify) if choice.summary else None,
        on_text=on_text,
        cancel=cancel,
    )
    return Prepared(provider, options, list(target.notes))
