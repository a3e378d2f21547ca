"""The transcript of a conversation's active path: cards built lazily around the viewport."""

from explorer.ui.transcript.view import TranscriptView

__all__ = ["TranscriptView"]
