"""A tool's arguments, declared once: the JSON schema agents are shown, and the checks that
turn a malformed or oversized request into one line saying what is wrong.

The SDK could validate against the schema, but its messages run over several lines and
name schema paths; an agent (and the person reading its log) needs one sentence naming
the argument, what it must be and what it got.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from explorer.tree.errors import ExplorerError

MAX_STRING = 2000
"""No string argument is longer unless its parameter says so: a query, a label, a note."""


class ArgumentError(ExplorerError, ValueError):
    """A tool was called with arguments it cannot take; nothing was read or written."""


@dataclass(frozen=True)
class Param:
    name: str
    kind: str  # "integer", "string" or "boolean"
    description: str
    required: bool = False
    default: int | str | bool | None = None
    minimum: int | None = None
    maximum: int | None = None
    max_length: int = MAX_STRING
    choices: tuple[str, ...] = ()

    def schema(self) -> dict[str, Any]:
        out: dict[str, Any] = {"type": self.kind, "description": self.description}
        if self.default is not None:
            out["default"] = self.default
        if self.minimum is not None:
            out["minimum"] = self.minimum
        if self.maximum is not None:
            out["maximum"] = self.maximum
        if self.kind == "string":
            out["maxLength"] = self.max_length
        if self.choices:
            out["enum"] = list(self.choices)
        return out

    def read(self, value: object) -> int | str | bool:
        """``value`` as this parameter's type, or the one line saying why it cannot be."""
        if self.kind == "boolean":
            if not isinstance(value, bool):
                raise ArgumentError(f"{self.name!r} must be true or false, not {_shown(value)}")
            return value
        if self.kind == "integer":
            return self._integer(value)
        if not isinstance(value, str):
            raise ArgumentError(f"{self.name!r} must be a string, not {_shown(value)}")
        if len(value) > self.max_length:
            raise ArgumentError(f"{self.name!r} is {len(value):,} characters long; "
                                f"at most {self.max_length:,} are taken")
        if self.choices and value not in self.choices:
            raise ArgumentError(f"{self.name!r} must be one of {', '.join(self.choices)}, "
                                f"not {_shown(value)}")
        return value

    def _integer(self, value: object) -> int:
        if isinstance(value, float) and value.is_integer():
            value = int(value)
        if isinstance(value, bool) or not isinstance(value, int):
            raise ArgumentError(f"{self.name!r} must be a whole number, not {_shown(value)}")
        low = self.minimum if self.minimum is not None else -(2**63)
        high = self.maximum if self.maximum is not None else 2**63 - 1
        if not low <= value <= high:
            raise ArgumentError(f"{self.name!r} must be from {low:,} to {high:,}, "
                                f"not {value:,}")
        return value


def _shown(value: object) -> str:
    """A value named in an error: short and on one line (a list or an object by its kind)."""
    if isinstance(value, list):
        return "a list"
    if isinstance(value, dict):
        return "an object"
    if value is None:
        return "null"
    text = " ".join(repr(value).split())
    return text if len(text) <= 40 else text[:39] + "…"


def schema(params: Sequence[Param]) -> dict[str, Any]:
    """The tool's ``inputSchema``: an object of exactly these properties."""
    return {"type": "object", "properties": {p.name: p.schema() for p in params},
            "required": [p.name for p in params if p.required], "additionalProperties": False}


def read_arguments(tool: str, params: Sequence[Param],
                   given: Mapping[str, Any] | None) -> dict[str, Any]:
    """The arguments, checked and with defaults filled in (an absent optional one: None)."""
    given = dict(given or {})
    names = [p.name for p in params]
    unknown = sorted(k for k in given if k not in names)
    if unknown:
        takes = ", ".join(names) if names else "no arguments"
        raise ArgumentError(f"{tool} takes no argument {unknown[0][:60]!r} (it takes {takes})")
    out: dict[str, Any] = {}
    for p in params:
        value = given.get(p.name)
        if value is None:
            if p.required:
                raise ArgumentError(f"{tool} needs the argument {p.name!r}: {p.description}")
            out[p.name] = p.default
        else:
            out[p.name] = p.read(value)
    return out
