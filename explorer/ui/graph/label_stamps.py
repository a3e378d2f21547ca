"""What a fixed-size label looks like, drawn once into a pixmap the graph then only blits.

An antialiased rounded box and its text cost far more per frame than copying their pixels,
so each look (text, box, colours) is rendered once per zoom ratio and kept by the painter.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

from PySide6.QtCore import QRectF, Qt
from PySide6.QtGui import QColor, QFont, QPainter, QPen, QPixmap

from explorer.ui.graph.palette import GraphPalette


def render_stamp(look: Look, w: float, h: float, ratio: float, font: QFont) -> QPixmap:
    """``look`` in a ``w`` × ``h`` box at the screen's pixel ratio."""
    pix = QPixmap(max(1, math.ceil(w * ratio)), max(1, math.ceil(h * ratio)))
    pix.setDevicePixelRatio(ratio)
    pix.fill(Qt.GlobalColor.transparent)
    p = QPainter(pix)
    p.setRenderHint(QPainter.RenderHint.Antialiasing, True)
    p.setRenderHint(QPainter.RenderHint.TextAntialiasing, True)
    rect = QRectF(0, 0, w, h)
    p.setPen(QPen(look.border, 1) if look.border is not None else Qt.PenStyle.NoPen)
    p.setBrush(look.fill)
    p.drawRoundedRect(rect.adjusted(0.5, 0.5, -0.5, -0.5) if look.border else rect,
                      look.radius, look.radius)
    p.setPen(look.color)
    p.setFont(font)
    if look.centred:
        p.drawText(rect, Qt.AlignmentFlag.AlignCenter, look.text)
    else:
        p.drawText(rect.adjusted(4, 0, 0, 0),
                   Qt.AlignmentFlag.AlignVCenter | Qt.AlignmentFlag.AlignLeft, look.text)
    p.end()
    return pix


def veil(pal: GraphPalette) -> QColor:
    """A name's background: the graph's own, nearly opaque, so edges under it fade."""
    back = QColor(pal.background)
    back.setAlpha(225)
    return back


@dataclass(frozen=True)
class Look:
    """What one label looks like: its text, box and colours (the stamp cache's key)."""

    text: str
    radius: float
    fill: QColor
    border: QColor | None
    color: QColor
    bold: bool
    centred: bool

    def key(self) -> tuple[object, ...]:
        return (self.text, self.radius, self.fill.rgba(),
                None if self.border is None else self.border.rgba(), self.color.rgba(),
                self.bold, self.centred)
