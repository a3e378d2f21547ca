"""Pre-rendered tiles for the zoom band between fit-all and readable boxes.

Painting every dot of a 100,000-node tree on each frame of that band costs
20–30 ms. Instead the band is split into levels (scales a factor ``STEP`` apart,
from just above the overview image to where boxes begin); each level is cut into
square tiles, painted once from the batches when first seen, and then drawn as
images, scaled down a little to the exact zoom. A frame at a resting zoom paints
at most ``NEW_PER_FRAME`` new tiles (a dense one costs 2–6 ms; the second only
while the first was quick), a step of a zoom paints none; where a tile is still
missing, the frame shows the nearest coarser level's tile scaled up (the previous zoom's,
usually), else the overview image, so no frame waits on many at once; the tiles
left over follow on the next frames. A pan paints only the tiles it newly exposes.
Old tiles are dropped past a memory budget. The tree is still one item; this is
only how it paints at those scales.
"""

from __future__ import annotations

import math
import time
from collections import OrderedDict
from collections.abc import Callable

from PySide6.QtCore import QRectF, Qt
from PySide6.QtGui import QImage, QPainter

from explorer.ui.graph.geometry import DOTS_MAX_SCALE, Geometry, paint_batches
from explorer.ui.graph.model import BOX_H
from explorer.ui.graph.palette import GraphPalette

TILE_PX = 256
STEP = math.sqrt(2.0)
NEW_PER_FRAME = 2
FRAME_BUDGET_S = 0.003  # no second new tile once a frame's new tiles took this long
BUDGET_BYTES = 48 * 2**20
Key = tuple[int, int, int]  # level, column, row


def dot_px(scale: float) -> float:
    return min(6.0, max(2.0, scale * BOX_H))


class TileCache:
    def __init__(self, geometry: Geometry, palette: GraphPalette,
                 bounds: tuple[float, float, float, float]) -> None:
        self.geometry, self.palette, self.bounds = geometry, palette, bounds
        low = max(geometry.overview_scale, 1e-6)
        self.levels: list[float] = []
        s = low * STEP
        while s < DOTS_MAX_SCALE * STEP:
            self.levels.append(min(s, DOTS_MAX_SCALE))
            s *= STEP
        self._tiles: OrderedDict[Key, QImage] = OrderedDict()
        self._bytes = 0
        self.rendered = 0  # tiles painted so far (for tests and benchmarks)
        self.missing = 0  # tiles the last paint had to leave to a later frame
        self.stood_in = 0  # missing tiles shown from a coarser level's tile so far

    def level_for(self, scale: float) -> int:
        """The first level at least as fine as ``scale`` (the finest when past them all)."""
        for k, s in enumerate(self.levels):
            if s >= scale * 0.999:
                return k
        return len(self.levels) - 1

    def keys_for(self, scale: float, view: tuple[float, float, float, float]) -> list[Key]:
        """The tiles covering ``view`` (scene units) at the level for ``scale``, row by row."""
        if not self.levels:
            return []
        k = self.level_for(scale)
        side = TILE_PX / self.levels[k]
        left, top = self.bounds[0], self.bounds[1]
        c0 = max(0, math.floor((view[0] - left) / side))
        r0 = max(0, math.floor((view[1] - top) / side))
        c1 = math.floor((min(view[2], self.bounds[2]) - left) / side)
        r1 = math.floor((min(view[3], self.bounds[3]) - top) / side)
        return [(k, c, r) for r in range(r0, r1 + 1) for c in range(c0, c1 + 1)]

    def paint(self, painter: QPainter, scale: float, view: tuple[float, float, float, float],
              later: Callable[[], None], zooming: bool = False) -> None:
        """Draw the tiles covering ``view`` (scene units) at the level for ``scale``; a
        ``zooming`` frame (a step of a zoom) paints no new tile: stand-ins show until
        the zoom rests."""
        if not self.levels:
            return
        level = self.levels[self.level_for(scale)]
        side = TILE_PX / level  # scene units per tile
        left, top = self.bounds[0], self.bounds[1]
        painter.setRenderHint(QPainter.RenderHint.SmoothPixmapTransform, True)
        fresh = 0
        started = time.perf_counter()
        self.missing = 0
        for key in self.keys_for(scale, view):
            _, c, r = key
            target = QRectF(left + c * side, top + r * side, side, side)
            image = self._tiles.get(key)
            if image is None:
                if zooming or fresh >= NEW_PER_FRAME or (
                        fresh and time.perf_counter() - started > FRAME_BUDGET_S):
                    self.missing += 1
                    self._stand_in(painter, target)
                    continue
                image = self._render(level, c, r)
                self._keep(key, image)
                fresh += 1
            else:
                self._tiles.move_to_end(key)
            if not image.isNull():
                painter.drawImage(target, image)
        if self.missing:
            later()

    def _stand_in(self, painter: QPainter, target: QRectF) -> None:
        """What shows under a tile not painted yet: a coarser level's tile, else the overview."""
        if self._coarser(painter, target):
            return
        g = self.geometry
        if g.overview.isNull():
            return
        s = g.overview_scale
        source = QRectF((target.left() - self.bounds[0]) * s, (target.top() - self.bounds[1]) * s,
                        target.width() * s, target.height() * s)
        painter.drawImage(target, g.overview, source)

    def _coarser(self, painter: QPainter, target: QRectF) -> bool:
        """Draw ``target`` from the nearest coarser level whose tiles under it are all kept
        (levels are a factor √2 apart, so a target can straddle up to four of them)."""
        left, top = self.bounds[0], self.bounds[1]
        for k in range(self.level_for(TILE_PX / target.width()) - 1, -1, -1):
            scale = self.levels[k]
            side = TILE_PX / scale
            cols = range(math.floor((target.left() - left) / side),
                         math.floor((target.right() - left - 1e-9) / side) + 1)
            rows = range(math.floor((target.top() - top) / side),
                         math.floor((target.bottom() - top - 1e-9) / side) + 1)
            found = [((c, r), self._tiles.get((k, c, r))) for r in rows for c in cols]
            if any(image is None for _, image in found):
                continue
            for (c, r), image in found:
                assert image is not None
                if image.isNull():
                    continue
                part = target.intersected(QRectF(left + c * side, top + r * side, side, side))
                source = QRectF((part.left() - left - c * side) * scale,
                                (part.top() - top - r * side) * scale,
                                part.width() * scale, part.height() * scale)
                painter.drawImage(part, image, source)
            self.stood_in += 1
            return True
        return False

    def _render(self, level: float, c: int, r: int) -> QImage:
        side = TILE_PX / level
        x0, y0 = self.bounds[0] + c * side, self.bounds[1] + r * side
        batches = self.geometry.batches_in(x0, y0, x0 + side, y0 + side)
        if not batches:
            return QImage()
        image = QImage(TILE_PX, TILE_PX, QImage.Format.Format_ARGB32_Premultiplied)
        image.fill(Qt.GlobalColor.transparent)
        p = QPainter(image)
        p.scale(level, level)
        p.translate(-x0, -y0)
        paint_batches(p, batches, self.palette, dot_px(level))
        p.end()
        self.rendered += 1
        return image

    def has(self, key: Key) -> bool:
        return key in self._tiles

    def _keep(self, key: Key, image: QImage) -> None:
        self._tiles[key] = image
        self._bytes += image.sizeInBytes()
        while self._bytes > BUDGET_BYTES and len(self._tiles) > 1:
            _, old = self._tiles.popitem(last=False)
            self._bytes -= old.sizeInBytes()
