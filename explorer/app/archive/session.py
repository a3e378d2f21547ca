"""What every archive tool works with: the store, redaction on the way out, and whether the
person allowed writes.

Redaction is the one exports for sharing use (R1): a message is redacted whole before any
of it is cut, folded or diffed, so a cut can never leave half a key that no rule matches;
every string of a result is scanned once more on the way out (titles, labels, notes).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from explorer.app.sharing.redaction import redact_export
from explorer.store import Store
from explorer.tree import secrets
from explorer.tree.model import Message


@dataclass
class Archive:
    store: Store
    redact: bool = True
    writes: bool = False

    def messages(self, messages: Sequence[Message]) -> list[Message]:
        """The messages as they may leave: every written string redacted."""
        if not self.redact:
            return list(messages)
        return redact_export(messages, {})[0]

    def message(self, m: Message) -> Message:
        return self.messages([m])[0]

    def text(self, text: str) -> str:
        return secrets.redact_text(text)[0] if self.redact else text

    def outgoing(self, value: Any) -> Any:
        """``value`` (a result) with every string in it scanned once more."""
        return secrets.redact_value(value)[0] if self.redact else value
