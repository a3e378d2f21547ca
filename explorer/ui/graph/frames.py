"""The tree's last frame up close, kept so a pan repaints only the strips it exposes.

Up close (boxes, and boxes with text) every frame used to paint every box on
screen again: a few hundred rectangles cost milliseconds, most of a pan's frame.
The tree's own drawing (edges, boxes, texts) of a frame at a resting zoom is kept
in a viewport-sized pixmap; a later frame at the same zoom whose view moved by
whole pixels scrolls that pixmap and paints only the strips it exposes. Labels,
rings and marks are drawn over it on every frame, as before (they sit in
viewport pixels and change without the tree). A zoom step, a new size, a frame
whose box texts are not all elided yet, or ``drop()`` paints the tree whole again.
"""

from __future__ import annotations

from collections.abc import Callable

from PySide6.QtCore import QRect, QRectF
from PySide6.QtGui import QColor, QPainter, QPixmap, QTransform

View = tuple[float, float, float, float]
Draw = Callable[[QPainter, View], bool]  # paint the tree in a scene rectangle; True if complete


class FrameCache:
    """``background`` is the view's: the kept frame is opaque, so drawing it is a copy of
    its pixels rather than a blend of each over the background."""

    def __init__(self, background: QColor) -> None:
        self.background = QColor(background)
        self.background.setAlpha(255)
        self._pixmap: QPixmap | None = None
        self._key: tuple[float, float, int, int] | None = None  # zoom and size it was painted at
        self._at = (0.0, 0.0)  # the world transform's shift it was painted at
        self.whole = 0  # frames whose tree was painted whole into the pixmap (for tests)
        self.strips = 0  # strips painted after a pan scrolled the pixmap
        self.reused = 0  # frames drawn from the kept pixmap

    def drop(self) -> None:
        self._pixmap = None

    def paint(self, painter: QPainter, draw: Draw) -> bool:
        """Draw the tree from the kept frame (scrolled, its new strips painted), or into a
        new one; False when this painter cannot keep one (the caller paints directly)."""
        world = painter.worldTransform()
        device = painter.device()
        if (device is None or world.m12() or world.m21() or world.m13() or world.m23()
                or device.devicePixelRatioF() != 1.0):  # only scale and shift: whole pixels
            return False
        w, h = device.width(), device.height()
        key = (world.m11(), world.m22(), w, h)
        pix = self._pixmap
        if pix is None or self._key != key or not self._scrolled(pix, world, draw):
            pix = QPixmap(w, h)
            complete = self._draw(pix, world, QRect(0, 0, w, h), draw)
            self._pixmap, self._key = (pix if complete else None), key
            self.whole += 1
        self._at = (world.dx(), world.dy())
        painter.save()
        painter.resetTransform()
        painter.drawPixmap(0, 0, pix)
        painter.restore()
        return True

    def _scrolled(self, pix: QPixmap, world: QTransform, draw: Draw) -> bool:
        """Bring the kept frame to ``world``'s shift: scroll it, paint what came into view."""
        sx, sy = world.dx() - self._at[0], world.dy() - self._at[1]
        dx, dy = round(sx), round(sy)
        w, h = pix.width(), pix.height()
        if abs(sx - dx) > 1e-3 or abs(sy - dy) > 1e-3 or abs(dx) >= w or abs(dy) >= h:
            return False
        if not dx and not dy:
            self.reused += 1
            return True
        pix.scroll(dx, dy, pix.rect())
        strips = []
        if dx:
            strips.append(QRect(0 if dx > 0 else w + dx, 0, abs(dx), h))
        if dy:
            strips.append(QRect(0, 0 if dy > 0 else h + dy, w, abs(dy)))
        complete = True
        for strip in strips:
            complete = self._draw(pix, world, strip, draw) and complete
            self.strips += 1
        self.reused += 1
        if not complete:
            self._pixmap = None  # the strip's texts follow on a whole frame
        return True

    def _draw(self, pix: QPixmap, world: QTransform, rect: QRect, draw: Draw) -> bool:
        """Paint the tree into ``rect`` (device pixels) of ``pix``, on the background."""
        p = QPainter(pix)
        p.fillRect(rect, self.background)
        p.setClipRect(rect)
        p.setTransform(world)
        inverse, _ = world.inverted()
        r = inverse.mapRect(QRectF(rect))
        complete = draw(p, (r.left(), r.top(), r.right(), r.bottom()))
        p.end()
        return complete
