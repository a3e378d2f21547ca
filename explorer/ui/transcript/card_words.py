"""What a card's header says in words: the role shown, token counts, the time."""

from __future__ import annotations

from datetime import datetime

from explorer.tree.model import Message, Usage


def shown_role(message: Message) -> str:
    """Tool output travels as a user message; it is shown as what it is."""
    return "tool" if message.is_tool_result_only else message.role


def _count(value: int) -> str:
    """Token counts as a header has room for them: 65.7k, not 65,682."""
    return f"{value / 1000:.1f}k" if value >= 10_000 else f"{value:,}"


def format_tokens(usage: Usage | None) -> str:
    """The header's short token line; ``describe_tokens`` is its tooltip."""
    if usage is None:
        return ""
    bits = []
    if usage.input_tokens is not None:
        bits.append(f"in {_count(usage.input_tokens)}")
    if usage.output_tokens is not None:
        bits.append(f"out {_count(usage.output_tokens)}")
    cached = (usage.cache_read_tokens or 0) + (usage.cache_write_tokens or 0)
    if cached:
        bits.append(f"cache {_count(cached)}")
    return " · ".join(bits) if bits else ""


def describe_tokens(usage: Usage | None) -> str:
    """Every count the provider reported, exactly."""
    if usage is None:
        return ""
    named = (("input", usage.input_tokens), ("output", usage.output_tokens),
             ("cache read", usage.cache_read_tokens), ("cache write", usage.cache_write_tokens))
    return "\n".join(f"{name}: {value:,} tokens" for name, value in named if value is not None)


def format_time(created_at: float | None) -> str:
    if created_at is None:
        return ""
    return datetime.fromtimestamp(created_at).strftime("%Y-%m-%d %H:%M")
