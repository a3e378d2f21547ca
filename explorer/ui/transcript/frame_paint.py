"""A card's rounded border and fill, painted from a small kept tile instead of rasterised.

Every card on screen is painted again on each scroll step (it moved), and filling
two antialiased rounded rectangles the size of the card cost about a quarter of
a millisecond per card: a few milliseconds of every step, for the same corners
each time. The border and fill of a card are the same shape at every size, so
they are drawn once into a tile a little larger than two corners, with the very
same painter calls; a card copies the tile's four corners, stretches its middle
row and column along the edges (nearest pixel, so every copied pixel is the
pixel the painter would have made) and fills the inside flat. The result is
pixel for pixel what the painter drew, at a fraction of the cost.
"""

from __future__ import annotations

from PySide6.QtCore import QRect, QRectF, Qt
from PySide6.QtGui import QColor, QPainter, QPixmap

RADIUS = 6.0
INSET = 1.5
"""The border's middle sits this far inside the card's edge (half pixels: crisp lines)."""
CORNER = 12
"""Tile pixels per corner: beyond the rounding (inset, radius and a wide border's half)."""
TILE = 2 * CORNER + 1

_tiles: dict[tuple[int, int, float], QPixmap] = {}


def rounded_frame(painter: QPainter, rect: QRectF, border: QColor, fill: QColor,
                  line: float) -> None:
    """The two fills that make a solid rounded border of width ``line`` around ``fill``
    (stroking a rounded outline costs three times as much)."""
    half = line / 2
    painter.setPen(Qt.PenStyle.NoPen)
    painter.setBrush(border)
    painter.drawRoundedRect(rect.adjusted(-half, -half, half, half), RADIUS + half, RADIUS + half)
    painter.setBrush(fill)
    painter.drawRoundedRect(rect.adjusted(half, half, -half, -half), RADIUS - half, RADIUS - half)


def paint_frame(painter: QPainter, width: int, height: int, border: QColor, fill: QColor,
                line: float) -> None:
    """The frame of a ``width`` × ``height`` card, from the tile where it can be."""
    device = painter.device()
    tiled = (width > TILE and height > TILE and device is not None
             and device.devicePixelRatioF() == 1.0 and painter.worldTransform().isIdentity())
    if not tiled:  # a tiny card, or a scaled painter (print, high-DPI): paint it outright
        rounded_frame(painter, QRectF(0, 0, width, height).adjusted(
            INSET, INSET, -INSET, -INSET), border, fill, line)
        return
    tile = _tile(border, fill, line)
    c, far_x, far_y = CORNER, width - CORNER, height - CORNER
    inner_w, inner_h, tail = width - 2 * c, height - 2 * c, TILE - c
    for x, sx in ((0, 0), (far_x, tail)):  # the corners
        for y, sy in ((0, 0), (far_y, tail)):
            painter.drawPixmap(x, y, tile, sx, sy, c, c)
    for y, sy in ((0, 0), (far_y, tail)):  # top and bottom: the tile's middle column
        painter.drawPixmap(QRect(c, y, inner_w, c), tile, QRect(c, sy, 1, c))
    for x, sx in ((0, 0), (far_x, tail)):  # left and right: its middle row
        painter.drawPixmap(QRect(x, c, c, inner_h), tile, QRect(sx, c, c, 1))
    painter.fillRect(QRect(c, c, inner_w, inner_h), fill)


def _tile(border: QColor, fill: QColor, line: float) -> QPixmap:
    key = (border.rgba(), fill.rgba(), line)
    tile = _tiles.get(key)
    if tile is None:
        if len(_tiles) > 16:  # themes and selection make a handful; never a leak
            _tiles.clear()
        tile = QPixmap(TILE, TILE)
        tile.fill(Qt.GlobalColor.transparent)
        painter = QPainter(tile)
        painter.setRenderHint(QPainter.RenderHint.Antialiasing)
        rounded_frame(painter, QRectF(0, 0, TILE, TILE).adjusted(INSET, INSET, -INSET, -INSET),
                      border, fill, line)
        painter.end()
        _tiles[key] = tile
    return tile
