"""Streaming POSTs shared by the providers: timeouts, retries with backoff, cancel, SSE.

A request is retried only before its answer starts to stream: once text has reached the
caller, trying again would repeat it, so a later failure is raised as it is and the caller
persists nothing (P2). Waits honour the provider's ``retry-after`` and stop early on cancel.
"""

from __future__ import annotations

import email.utils
import json
import logging
import threading
import time
from collections.abc import Callable, Generator, Iterator
from contextlib import closing
from dataclasses import dataclass
from typing import Any, TypeVar

import httpx

from explorer.providers.base import (
    AuthError,
    BadRequest,
    Cancelled,
    ConnectionLost,
    ContextOverflow,
    ProviderError,
    ProviderTimeout,
    RateLimited,
    ServerError,
)

log = logging.getLogger(__name__)
ErrorParser = Callable[[int, bytes, httpx.Headers], ProviderError]
Waiter = Callable[[float, "threading.Event | None"], bool]
T = TypeVar("T")


def wait(delay: float, cancel: threading.Event | None) -> bool:
    """Sleep ``delay`` seconds; True when cancelled meanwhile."""
    if cancel is None:
        time.sleep(delay)
        return False
    return cancel.wait(delay)


@dataclass(frozen=True)
class HttpPolicy:
    """Timeouts (seconds) and the retry schedule: ``backoff * 2**n``, capped at ``max_delay``."""

    connect_timeout: float = 10.0
    read_timeout: float = 120.0
    max_attempts: int = 4
    backoff: float = 1.0
    max_delay: float = 60.0
    waiter: Waiter = wait
    notify: Callable[[str], None] | None = None
    """Told, in one line, each wait a person would otherwise sit through in silence."""

    def delay(self, attempt: int, error: ProviderError) -> float:
        """Seconds to wait before attempt ``attempt + 1``; ``retry-after`` wins when longer."""
        delay = self.backoff * 2.0 ** (attempt - 1)
        if isinstance(error, RateLimited) and error.retry_after is not None:
            delay = max(delay, error.retry_after)
        return min(delay, self.max_delay)


def retry_after(headers: httpx.Headers) -> float | None:
    """``retry-after-ms`` or ``retry-after`` (seconds or an HTTP date) as seconds."""
    ms = headers.get("retry-after-ms")
    if ms:
        try:
            return max(0.0, float(ms) / 1000)
        except ValueError:
            pass
    value = headers.get("retry-after")
    if not value:
        return None
    try:
        return max(0.0, float(value))
    except ValueError:
        pass
    try:
        when = email.utils.parsedate_to_datetime(value)
    except (TypeError, ValueError):
        return None
    return max(0.0, when.timestamp() - time.time())


def post_lines(
    url: str,
    headers: dict[str, str],
    body: dict[str, Any],
    parse_error: ErrorParser,
    *,
    policy: HttpPolicy,
    cancel: threading.Event | None = None,
) -> Generator[str, None, None]:
    """POST ``body`` and yield the response's lines as they arrive, retrying transient failures."""
    attempt = 0
    while True:
        attempt += 1
        started = False
        if policy.notify is not None and attempt == 1:
            policy.notify(f"waiting for the first byte (at most {policy.read_timeout:g} s "
                          f"a try, {policy.max_attempts} tries)")
        try:
            for line in _attempt(url, headers, body, parse_error, policy, cancel):
                started = True
                yield line
            return
        except ProviderError as error:
            if started or not error.retryable or attempt >= policy.max_attempts:
                raise
            delay = policy.delay(attempt, error)
            log.info("%s; attempt %d of %d in %.1fs", error.kind, attempt + 1,
                     policy.max_attempts, delay)
            if policy.notify is not None:
                policy.notify(f"{error}; trying again in {delay:g} s "
                              f"(attempt {attempt + 1} of {policy.max_attempts})")
            if policy.waiter(delay, cancel):
                raise Cancelled("cancelled while waiting to retry") from None


def _attempt(
    url: str,
    headers: dict[str, str],
    body: dict[str, Any],
    parse_error: ErrorParser,
    policy: HttpPolicy,
    cancel: threading.Event | None,
) -> Iterator[str]:
    timeout = httpx.Timeout(policy.read_timeout, connect=policy.connect_timeout)
    log.debug("POST %s", url)
    try:
        with httpx.Client(timeout=timeout) as client, client.stream(
            "POST", url, headers=headers, json=body
        ) as response:
            if response.status_code >= 400:
                raise parse_error(response.status_code, response.read(), response.headers)
            for line in response.iter_lines():
                if cancel is not None and cancel.is_set():
                    raise Cancelled("cancelled while the answer was streaming")
                yield line
    except httpx.TimeoutException as e:
        raise ProviderTimeout(f"no answer within the timeout ({type(e).__name__})") from None
    except httpx.TransportError as e:
        raise ConnectionLost(f"{type(e).__name__}: {_first_line(e)}") from None


def _first_line(error: Exception) -> str:
    text = str(error)
    return text.splitlines()[0] if text else "no details"


@dataclass(frozen=True)
class SseEvent:
    event: str
    data: str


def iter_sse(lines: Iterator[str]) -> Iterator[SseEvent]:
    """Server-sent events: ``event:`` and ``data:`` fields, dispatched on a blank line."""
    event, data = "", list[str]()
    for line in lines:
        if not line:
            if data or event:
                yield SseEvent(event or "message", "\n".join(data))
            event, data = "", []
        elif line.startswith(":"):
            continue
        else:
            name, _, value = line.partition(":")
            value = value[1:] if value.startswith(" ") else value
            if name == "event":
                event = value
            elif name == "data":
                data.append(value)
    # An event cut off by the end of the stream is discarded, as the SSE standard says.


def stream_events(
    url: str,
    headers: dict[str, str],
    body: dict[str, Any],
    parse_error: ErrorParser,
    read: Callable[[Iterator[SseEvent]], T],
    *,
    policy: HttpPolicy,
    cancel: threading.Event | None = None,
) -> T:
    """POST ``body`` and hand the answer's server-sent events to ``read``; the connection is
    closed whether ``read`` returns, raises or stops early."""
    lines = post_lines(url, headers, body, parse_error, policy=policy, cancel=cancel)
    with closing(lines):
        return read(iter_sse(lines))


def classify(
    status: int | None, error_type: str | None, message: str, headers: httpx.Headers | None = None
) -> ProviderError:
    """The error class for an HTTP status and a provider's error type (both APIs share these)."""
    after = retry_after(headers) if headers is not None else None
    etype = error_type or ""
    if status == 413 or etype == "request_too_large":
        return ContextOverflow(message, status=status)
    if status in (401, 403) or etype in ("authentication_error", "permission_error"):
        return AuthError(message, status=status)
    if etype == "insufficient_quota":  # a 429 that waiting does not cure
        return BadRequest(message, status=status)
    if status == 429 or etype in ("rate_limit_error", "rate_limit_exceeded"):
        return RateLimited(message, status=status, retry_after=after)
    if status == 408:
        return ProviderTimeout(message, status=status)
    if (status or 0) >= 500 or etype in ("overloaded_error", "api_error", "server_error"):
        return ServerError(message, status=status, retry_after=after)
    return BadRequest(message, status=status)


def error_fields(body: bytes) -> tuple[str | None, str, dict[str, Any]]:
    """(type or code, message, the whole error object) from a JSON error body, or its text."""
    try:
        data = json.loads(body)
    except ValueError:
        return None, body[:300].decode("utf-8", "replace").strip() or "no details", {}
    err = data.get("error") if isinstance(data, dict) else None
    if err is None and isinstance(data, dict) and "message" in data:
        err = data  # vLLM puts the fields at the top level
    if not isinstance(err, dict):
        text = err if isinstance(err, str) else str(data)[:300]
        return None, text, {}
    etype = err.get("code") if isinstance(err.get("code"), str) else err.get("type")
    return (str(etype) if etype else None), str(err.get("message") or etype or "no details"), err
