"""The one vocabulary for "which API": settings, flags, records, prices and encoders use it.

It lives below :mod:`explorer.compaction.image_cost` and :mod:`explorer.compaction.target` so
that both key their rules by the same enum (``explorer.compaction.target`` re-exports it).
"""

from __future__ import annotations

from enum import StrEnum
from typing import Literal

from explorer.tree.errors import ExplorerError

Family = Literal["anthropic", "openai", "gemini", "generic"]
Rung = Literal["elide", "images", "snapshot", "summary"]
RUNGS: tuple[Rung, ...] = ("elide", "images", "snapshot", "summary")
"""The compaction ladder's rungs, in the order they are tried (here so that naming them
costs no import of the ladder)."""
PART_NAMES: tuple[str, ...] = (
    "system", "tools", "user", "assistant", "tool_results", "images", "snapshots", "overhead",
)
"""What a context is made of, as the context bar shows it (here so that drawing the bar
costs no import of the estimator)."""
DEFAULT_OUTPUT_RESERVE = 8192
"""Tokens kept free for the answer when no target says otherwise."""


class TargetError(ExplorerError, ValueError):
    """A target that cannot be built as asked (an unknown provider or tier, no room)."""


class ProviderKind(StrEnum):
    """Which API a request goes to; a plain string naming one parses to it."""

    ANTHROPIC = "anthropic"
    OPENAI = "openai"
    OPENAI_COMPATIBLE = "openai-compatible"
    GEMINI = "gemini"

    @classmethod
    def parse(cls, value: str | ProviderKind) -> ProviderKind:
        """The kind named ``value``; an unknown name is a clear error listing the known ones."""
        try:
            return cls(value)
        except ValueError:
            known = ", ".join(k.value for k in cls)
            raise TargetError(f"unknown provider {value!r}; expected one of {known}") from None

    @property
    def pricing(self) -> ProviderKind:
        """Whose published image pricing applies (compatible servers are assumed OpenAI's)."""
        return ProviderKind.OPENAI if self is ProviderKind.OPENAI_COMPATIBLE else self

    @property
    def family(self) -> Family:
        """The token-estimate family (local servers run other tokenizers: a generic one)."""
        return "generic" if self is ProviderKind.OPENAI_COMPATIBLE else self.value  # type: ignore[return-value]


PROVIDER_KINDS: tuple[ProviderKind, ...] = tuple(ProviderKind)
