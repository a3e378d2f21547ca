"""What every model provider offers, the errors it can raise, and the neutral request shape.

Errors are classified (overflow, rate limit, server, auth, bad request, timeout, cancelled,
connection lost) so callers decide by kind, not by reading text: an overflow carries the count
the provider measured (L7), a rate limit carries its ``retry-after``. No error message ever holds
an API key; :func:`redact` scrubs one defensively wherever server text is quoted.
"""

from __future__ import annotations

import threading
from collections.abc import Callable, Sequence
from dataclasses import dataclass, replace
from typing import Protocol

from explorer.compaction.estimate import Family, image_size
from explorer.compaction.target import ProviderKind as ProviderKind
from explorer.formats.exporters.steps import image_marker
from explorer.tree.errors import ExplorerError
from explorer.tree.model import Message, Part, Usage

# The kinds a request can be sent to.
PROVIDER_KINDS: tuple[ProviderKind, ...] = (
    ProviderKind.ANTHROPIC, ProviderKind.OPENAI, ProviderKind.OPENAI_COMPATIBLE,
    ProviderKind.GEMINI)
TextCallback = Callable[[str], None]


class Secret:
    """An API key that never shows itself in ``str``/``repr`` (so never in a log or traceback)."""

    __slots__ = ("_value",)

    def __init__(self, value: str) -> None:
        self._value = value

    def reveal(self) -> str:
        return self._value

    def __repr__(self) -> str:
        return "Secret('***')"

    __str__ = __repr__

    def __bool__(self) -> bool:
        return bool(self._value)


def redact(text: str, secret: Secret | None) -> str:
    """``text`` with every occurrence of the secret replaced (server text is quoted in errors)."""
    if secret is None or not secret.reveal():
        return text
    return text.replace(secret.reveal(), "***")


# --- errors -----------------------------------------------------------------------------------


class ProviderError(ExplorerError):
    """A request that did not produce an answer; ``retryable`` says whether trying again helps."""

    kind = "error"
    retryable = False

    def __init__(self, message: str, *, status: int | None = None) -> None:
        super().__init__(message)
        self.message = message
        self.status = status

    def __str__(self) -> str:
        prefix = f"{self.kind} (HTTP {self.status})" if self.status else self.kind
        return f"{prefix}: {self.message}"


class ContextOverflow(ProviderError):
    """The provider rejected the request as too large; ``measured`` is its own count, if given."""

    kind = "context overflow"

    def __init__(
        self, message: str, *, status: int | None = None, measured: int | None = None,
        maximum: int | None = None,
    ) -> None:
        super().__init__(message, status=status)
        self.measured = measured
        self.maximum = maximum


class RateLimited(ProviderError):
    kind = "rate limited"
    retryable = True

    def __init__(
        self, message: str, *, status: int | None = None, retry_after: float | None = None
    ) -> None:
        super().__init__(message, status=status)
        self.retry_after = retry_after


class ServerError(RateLimited):
    """5xx or an overloaded provider (Anthropic's 529): transient, may carry ``retry-after``."""

    kind = "server error"


class AuthError(ProviderError):
    kind = "authentication failed"


class BadRequest(ProviderError):
    kind = "bad request"


class ProviderTimeout(ProviderError):
    kind = "timed out"
    retryable = True


class ConnectionLost(ProviderError):
    """The connection failed or the stream ended before the answer was complete."""

    kind = "connection lost"
    retryable = True


class Cancelled(ProviderError):
    kind = "cancelled"


# --- the interface ----------------------------------------------------------------------------


@dataclass
class Completion:
    """One whole answer: its parts, what the provider measured, and why it stopped."""

    parts: list[Part]
    usage: Usage
    model: str
    stop_reason: str | None = None

    @property
    def text(self) -> str:
        return "".join(p.text for p in self.parts if p.kind == "text")


class Provider(Protocol):
    """A model API that streams one answer for a list of messages."""

    @property
    def kind(self) -> ProviderKind: ...

    @property
    def family(self) -> Family: ...

    @property
    def model(self) -> str: ...

    def complete(
        self,
        messages: Sequence[Message],
        *,
        on_text: TextCallback | None = None,
        cancel: threading.Event | None = None,
        max_tokens: int | None = None,
        prompt_start: int | None = None,
    ) -> Completion: ...


# --- what a request can carry ---------------------------------------------------------------


def unexecuted_call_text(part: Part) -> Part:
    """A tool call in an answer to a request that declared no tools, kept readable as text."""
    return Part(
        "text",
        f"[tool call {part.tool_name or 'tool'} (not run)] {part.text}",
        meta={"unexecuted_tool_use": {"id": part.tool_use_id, "name": part.tool_name}},
    )


_MAGIC: tuple[tuple[bytes, str], ...] = (
    (b"\x89PNG\r\n\x1a\n", "image/png"),
    (b"\xff\xd8\xff", "image/jpeg"),
    (b"GIF87a", "image/gif"),
    (b"GIF89a", "image/gif"),
)
IMAGE_TYPES = ("image/png", "image/jpeg", "image/gif", "image/webp")


def image_media_type(part: Part) -> str | None:
    """The image's type from its bytes (stored types can be wrong), else the stored one."""
    data = part.data or b""
    for magic, media_type in _MAGIC:
        if data.startswith(magic):
            return media_type
    if data[:4] == b"RIFF" and data[8:12] == b"WEBP":
        return "image/webp"
    return part.media_type


def sendable_or_marker(part: Part, max_bytes: int, max_side: int, allowed: bool = True) -> Part:
    """The image as the provider takes it, else a text marker: no stored bytes (a link), a
    role that carries no images (``allowed`` false), or a type, size or side it refuses."""
    if part.data is None or not allowed:
        return Part("text", image_marker(part), meta={"image_left_out": "not sendable here"})
    return image_or_marker(part, max_bytes, max_side)


def image_or_marker(part: Part, max_bytes: int, max_side: int) -> Part:
    """The image if the provider accepts it, else a text marker saying why it was left out.

    One oversized or unsupported image would get the whole request rejected.
    """
    media_type = image_media_type(part)
    size = len(part.data or b"")
    side = max(image_size(part.data) or (0, 0)) if part.data else 0
    problem = (
        f"type {media_type or 'unknown'} is not accepted" if media_type not in IMAGE_TYPES
        else f"{size:,} bytes > {max_bytes:,}" if size > max_bytes
        else f"{side} px > {max_side} px" if side > max_side
        else None
    )
    if problem is None:
        return part
    return Part("text", f"[image not sent: {problem}]", meta={"image_left_out": problem})


def cap_images(
    messages: Sequence[Message], limit: int | None, notes: list[str] | None = None
) -> list[Message]:
    """``messages`` with no more images than the provider takes in one request.

    The oldest images become text markers (the newest, snapshot pages included, are the
    ones the model needs); each one left out is noted.
    """
    count = sum(1 for m in messages for p in m.parts if p.kind == "image" and p.data)
    excess = count - limit if limit is not None else 0
    if excess <= 0:
        return list(messages)
    out: list[Message] = []
    for m in messages:
        parts: list[Part] = []
        for p in m.parts:
            if excess > 0 and p.kind == "image" and p.data:
                excess -= 1
                why = f"over the provider's limit of {limit} images per request"
                parts.append(Part("text", f"[image not sent: {why}]",
                                  meta={"image_left_out": why}))
            else:
                parts.append(p)
        out.append(replace(m, parts=parts))
    if notes is not None:
        notes.append(f"{count - (limit or 0)} oldest image(s) left out: the provider takes at "
                     f"most {limit} per request")
    return out
