"""Qwen Code chat recordings: a Gemini CLI fork whose sessions are a record tree of their own."""

from explorer.formats.qwen_code.reader import FORMAT, can_tail, read, read_tail, sniff

__all__ = ["FORMAT", "can_tail", "read", "read_tail", "sniff"]
