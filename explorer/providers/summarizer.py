"""The summary rung's model call: the request :func:`build_summary_request` built, nothing else.

The request was sized to fit the window (L7), so it is sent as it is; it is never the request
that overflowed. A failure (no key, no network) is raised for the caller to fall back to
snapshots, the one strategy always available (L6).
"""

from __future__ import annotations

import threading
from collections.abc import Callable
from dataclasses import dataclass, field

from explorer.compaction.summary import SummaryRequest
from explorer.providers.base import Provider
from explorer.tree.errors import ExplorerError


class EmptySummary(ExplorerError, ValueError):
    """The model answered the summary request with no text."""


@dataclass
class ProviderSummarizer:
    """A :class:`~explorer.compaction.summary.Summarizer` backed by a provider."""

    provider: Provider
    max_tokens: int = 2048
    cancel: threading.Event | None = None
    sent: list[SummaryRequest] = field(default_factory=list)
    say: Callable[[str], None] | None = None
    """Where the call names itself before it waits (the terminal's progress lines), so a
    second wait after the answer's own is not taken for a hang."""

    def summarize(self, request: SummaryRequest) -> str:
        self.sent.append(request)
        if self.say is not None:
            self.say(f"the compaction's summary call: asking for a summary of "
                     f"{len(request.messages)} message(s) first")
        completion = self.provider.complete(
            request.messages, cancel=self.cancel, max_tokens=self.max_tokens
        )
        text = completion.text.strip()
        if not text:
            raise EmptySummary("the model returned an empty summary")
        return text
