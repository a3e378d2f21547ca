"""Waiting for the transcript: its path and content are read on workers (V2)."""

from __future__ import annotations

from pytestqt.qtbot import QtBot

from explorer.ui.transcript import TranscriptView

TIMEOUT_MS = 10_000


def settle(qtbot: QtBot, view: TranscriptView) -> None:
    """Wait until the path's rows are in and the rows near the viewport have their content."""
    qtbot.waitUntil(lambda: not view.is_loading, timeout=TIMEOUT_MS)


def load(qtbot: QtBot, view: TranscriptView, conv: int, tip: int | None = None) -> None:
    view.load_path(conv, tip)
    settle(qtbot, view)
