"""Imported text in places Qt would read as rich text.

A tooltip has no plain-text switch: Qt renders any string that looks like HTML, so a
title holding ``<img src=…>`` would draw an image. ``tooltip`` makes such text literal.
(Labels use ``setTextFormat(Qt.TextFormat.PlainText)`` instead.)
"""

from __future__ import annotations

from html import escape


def tooltip(text: str) -> str:
    """``text`` as a tooltip that shows exactly these characters, line breaks kept."""
    return f"<p style='white-space:pre-wrap'>{escape(text, quote=False)}</p>" if text else ""
