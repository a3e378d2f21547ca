"""Conversation Explorer: LLM conversations as trees in a local SQLite file."""

__version__ = "0.1.0"
