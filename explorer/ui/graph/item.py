"""The one graphics item that paints the whole tree: culled by grid cell, drawn by level of detail.

An item per message stops scaling near 10,000 nodes; this item paints only the
cells the view exposes, in a few batched calls per colour, and falls back to the
cached overview image when the tree is smaller on screen than that image.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from enum import IntEnum

from PySide6.QtCore import QPointF, QRectF, Qt
from PySide6.QtGui import QColor, QFont, QFontMetricsF, QImage, QPainter
from PySide6.QtWidgets import QGraphicsItem, QStyleOptionGraphicsItem, QWidget

from explorer.ui.graph.compare_marks import paint_compare_marks
from explorer.ui.graph.frames import FrameCache
from explorer.ui.graph.geometry import DOTS_MAX_SCALE, Geometry, cosmetic, paint_batches
from explorer.ui.graph.labels import LabelPainter
from explorer.ui.graph.model import (
    BOX_H,
    BOX_W,
    F_ACTIVE,
    F_CHECKPOINT,
    F_CLEAN_BOUNDARY,
    F_COMPACTION,
    F_CONTEXT_START,
    F_FORK,
    F_REWIND,
    F_RUN,
    MARK_FLAGS,
    GraphModel,
)
from explorer.ui.graph.palette import STYLE_NAMES, GraphPalette
from explorer.ui.graph.sibling_words import SiblingWords
from explorer.ui.graph.tend_glyphs import TendPainter
from explorer.ui.graph.tiles import TileCache
from explorer.ui.live_marks import paint_live_nodes

TEXT_MIN_SCALE = 0.45  # from here on boxes carry their text
RING_PX = 9.0  # selection ring radius when nodes are dots
MARGIN = 60.0
NEW_TEXTS_PER_FRAME = 12
_Text = tuple[str, str, str, float, bool]
"""head, second line, tool chip, chip width, whether the second line goes on with the head (a
turn with no answer words uses both lines for its title)."""


class Lod(IntEnum):
    OVERVIEW = 0  # the cached image of the whole tree
    DOTS = 1
    BOXES = 2
    TEXT = 3


def lod_for(scale: float, overview_scale: float) -> Lod:
    if scale <= overview_scale * 1.0001:
        return Lod.OVERVIEW
    if scale < DOTS_MAX_SCALE:
        return Lod.DOTS
    return Lod.BOXES if scale < TEXT_MIN_SCALE else Lod.TEXT


def _visible_part(painter: QPainter, exposed: QRectF) -> QRectF:
    """The exposed rectangle cut to the paint device: ``QGraphicsView.render`` exposes it all."""
    device = painter.device()
    inverse, ok = painter.worldTransform().inverted()
    if device is None or not ok:
        return exposed
    return exposed.intersected(inverse.mapRect(QRectF(0, 0, device.width(), device.height())))


@dataclass
class _CellBoxes:
    """Rectangles of one grid cell, built the first time the cell is seen up close."""

    by_style: dict[int, list[QRectF]]
    active: list[QRectF]
    marked: list[int]
    runs: list[QRectF]


class GraphItem(QGraphicsItem):
    def __init__(self, model: GraphModel, geometry: Geometry, palette: GraphPalette) -> None:
        super().__init__()
        self.model, self.geometry, self.palette = model, geometry, palette
        self.selected = -1
        self.compare_marks: list[tuple[int, int]] = []  # (node, number) marked for compare
        self.live_marks: list[tuple[int, float]] = []  # (node, strength) of followed arrivals
        self.cost_chips: dict[int, str] = {}  # node → a branch's cost (C5)
        self.sibling_words: SiblingWords | None = None  # what differs at branch points
        self.paint_count = 0
        self.last_lod: Lod | None = None
        self.last_drawn = 0  # boxes the last frame shows, painted or kept (0 for dots/overview)
        self.boxes_painted = 0  # boxes painted so far, kept frames not counted (for tests)
        self._kept_drawn = 0  # boxes in the kept frame when it was painted whole
        self._boxes: dict[tuple[int, int], _CellBoxes] = {}
        self._texts: dict[int, _Text] = {}
        self.texts_made = 0  # box texts elided so far (for tests)
        self.texts_missing = 0  # box texts the last paint left to a later frame
        self._overview_cache: tuple[tuple[float, float], QImage] | None = None
        self.overview_scaled = 0  # times the overview was scaled to a new zoom
        self.overview_stood_in = 0  # zoom frames that drew the overview from a mip, scaled
        self._last_scale: float | None = None  # the previous frame's zoom
        self._font = QFont()
        self._font.setPixelSize(13)
        self._bold = QFont(self._font)
        self._bold.setBold(True)
        self._small = QFont(self._font)
        self._small.setPixelSize(11)
        self._metrics = QFontMetricsF(self._font)
        self._bold_metrics = QFontMetricsF(self._bold)
        self._small_metrics = QFontMetricsF(self._small)
        narrowest = min(self._metrics.horizontalAdvance(c) for c in "il.,:;'| ")
        self._max_chars = int((BOX_W - 12) / max(narrowest, 1.0)) + 2
        self.labels = LabelPainter()
        self.tending = TendPainter()
        self.tiles = TileCache(geometry, palette, model.bounds)
        self.frames = FrameCache(palette.background)
        self.setFlag(QGraphicsItem.GraphicsItemFlag.ItemUsesExtendedStyleOption, True)
        left, top, right, bottom = model.bounds
        self._rect = QRectF(left, top, right - left, bottom - top).adjusted(
            -MARGIN, -MARGIN, MARGIN, MARGIN)

    def boundingRect(self) -> QRectF:
        return self._rect

    def set_selected(self, i: int) -> None:
        if i != self.selected:
            self.selected = i
            self.update()

    def paint(
        self, painter: QPainter, option: QStyleOptionGraphicsItem, widget: QWidget | None = None
    ) -> None:
        scale = QStyleOptionGraphicsItem.levelOfDetailFromTransform(painter.worldTransform())
        lod = lod_for(scale, self.geometry.overview_scale)
        self.paint_count += 1
        self.last_lod = lod
        self.last_drawn = 0
        r = _visible_part(painter, option.exposedRect)
        view = (r.left(), r.top(), r.right(), r.bottom())
        # A frame whose zoom differs from the previous one is a step of a zoom: it only
        # scales what is already made (mips, coarser tiles); the crisp image and new
        # tiles wait for the next frame at a resting zoom, which this frame asks for.
        last, self._last_scale = self._last_scale, scale
        zooming = last is not None and abs(scale / last - 1.0) > 1e-6
        if lod == Lod.OVERVIEW:
            self._paint_overview(painter, scale, zooming)
        elif lod == Lod.DOTS:
            self.tiles.paint(painter, scale, view, self.update, zooming)
        else:
            def tree(p: QPainter, part: tuple[float, float, float, float]) -> bool:
                return self._paint_tree(p, part, scale, lod == Lod.TEXT)

            if zooming:
                self.frames.drop()  # a zoom step paints directly; the resting frame is kept
            whole = self.frames.whole
            if zooming or not self.frames.paint(painter, tree):
                tree(painter, view)
            elif self.frames.whole != whole:
                self._kept_drawn = self.last_drawn
            else:
                self.last_drawn = self._kept_drawn
        self.tending.paint(painter, self.model, self.palette, view, lod >= Lod.BOXES,
                           lod == Lod.TEXT)
        self._paint_ring(painter, self.model.tip, self.palette.tip, scale, lod)
        self._paint_ring(painter, self.selected, self.palette.selection, scale, lod)
        paint_compare_marks(painter, self.model, self.compare_marks, scale,
                            lod not in (Lod.OVERVIEW, Lod.DOTS))
        if self.live_marks:
            m = self.model
            paint_live_nodes(painter, [(m.xs[i], m.ys[i], s) for i, s in self.live_marks], scale,
                             None if lod in (Lod.OVERVIEW, Lod.DOTS) else (BOX_W, BOX_H))
        self.labels.paint(painter, self.model, self.palette, self.geometry.spots, view,
                          [box for box, _node, _kind in self.tending.chip_boxes],
                          self.cost_chips)

    def _paint_overview(self, painter: QPainter, scale: float, zooming: bool) -> None:
        """The overview image at the exact on-screen size, drawn pixel for pixel: scaled
        once per zoom (from its nearest mip), not on every frame of a pan. A zoom step
        draws the nearest mip scaled by the painter instead (only the pixels on screen,
        where scaling the whole image cost several milliseconds) and asks for a frame
        at rest, which makes the exact image."""
        left, top, right, bottom = self.model.bounds
        size = (round((right - left) * scale, 1), round((bottom - top) * scale, 1))  # float noise
        if (self._overview_cache is None or self._overview_cache[0] != size) and zooming:
            source = self.geometry.overview_source(*size)
            if not source.isNull():
                painter.setRenderHint(QPainter.RenderHint.SmoothPixmapTransform, True)
                painter.drawImage(QRectF(left, top, right - left, bottom - top), source)
                self.overview_stood_in += 1
            self.update()
            return
        if self._overview_cache is None or self._overview_cache[0] != size:
            self._overview_cache = (size, self.geometry.overview_at(*size))
            self.overview_scaled += 1
        image = self._overview_cache[1]
        if image.isNull():
            return
        at = painter.worldTransform().map(QPointF(left, top))
        painter.save()
        painter.resetTransform()
        painter.drawImage(QPointF(round(at.x()), round(at.y())), image)
        painter.restore()

    def _paint_tree(
        self, painter: QPainter, view: tuple[float, float, float, float], scale: float,
        text: bool,
    ) -> bool:
        """Edges, merge links, boxes and their texts in ``view``; False when some box
        texts were left to a later frame."""
        self.texts_missing = 0
        paint_batches(painter, self.geometry.batches_in(*view), self.palette, None)
        self.tending.paint_links(painter, self.model, self.palette, view, True)
        self._paint_boxes(painter, view, scale, text)
        return self.texts_missing == 0

    def _paint_boxes(
        self, painter: QPainter, view: tuple[float, float, float, float], scale: float,
        text: bool,
    ) -> None:
        cells = [self._cell_boxes(key, cell) for key, cell in self.model.cells(*view)]
        pal = self.palette
        painter.setPen(cosmetic(pal.edge, 1.0))
        for style, color in enumerate(pal.styles):
            painter.setBrush(color)
            for c in cells:
                rects = c.by_style.get(style)
                if rects:
                    painter.drawRects(rects)
                    self.last_drawn += len(rects)
                    self.boxes_painted += len(rects)
        painter.setBrush(Qt.BrushStyle.NoBrush)
        dashed = cosmetic(pal.badge, 1.0)
        dashed.setStyle(Qt.PenStyle.DashLine)
        painter.setPen(dashed)
        for c in cells:
            if c.runs:
                painter.drawRects(c.runs)
        painter.setPen(cosmetic(pal.active, 2.0))
        for c in cells:
            if c.active:
                painter.drawRects(c.active)
        for c in cells:
            self._paint_marks(painter, c.marked)
        if text:
            self._paint_texts(painter, view)

    def _cell_boxes(self, key: tuple[int, int], cell: object) -> _CellBoxes:
        got = self._boxes.get(key)
        if got is not None:
            return got
        m = self.model
        boxes = _CellBoxes({}, [], [], [])
        for i in m.grid[key]:
            rect = QRectF(m.xs[i] - BOX_W / 2, m.ys[i] - BOX_H / 2, BOX_W, BOX_H)
            boxes.by_style.setdefault(m.styles[i], []).append(rect)
            if m.flags[i] & F_ACTIVE:
                boxes.active.append(rect)
            if m.flags[i] & F_RUN:
                boxes.runs.append(rect.adjusted(3, 3, -3, -3))
            if m.flags[i] & MARK_FLAGS:
                boxes.marked.append(i)
        self._boxes[key] = boxes
        return boxes

    def _paint_marks(self, painter: QPainter, marked: list[int]) -> None:
        pal, m = self.palette, self.model
        kinds = ((F_CHECKPOINT, pal.checkpoint), (F_FORK, pal.fork), (F_REWIND, pal.rewind),
                 (F_COMPACTION, pal.compaction), (F_CONTEXT_START, pal.compaction),
                 (F_CLEAN_BOUNDARY, pal.badge))
        painter.setPen(Qt.PenStyle.NoPen)
        for i in marked:
            x = m.xs[i] + BOX_W / 2 - 7
            for bit, color in kinds:
                if m.flags[i] & bit:
                    painter.setBrush(color)
                    painter.drawEllipse(QPointF(x, m.ys[i] + BOX_H / 2), 6.0, 6.0)
                    x -= 14

    def _paint_texts(self, painter: QPainter, view: tuple[float, float, float, float]) -> None:
        """Box texts, elided once per node: a frame elides at most ``NEW_TEXTS_PER_FRAME``
        new ones (the first frame of a zoom into text would otherwise elide every box on
        screen at once); the others get their text on the next frames."""
        m = self.model
        painter.setRenderHint(QPainter.RenderHint.TextAntialiasing, True)
        fresh = 0
        self.texts_missing = 0
        for i in m.visible(*view):
            got = self._texts.get(i)
            if got is None:
                if fresh >= NEW_TEXTS_PER_FRAME:
                    self.texts_missing += 1
                    continue
                got = self._text(i)
                fresh += 1
            head, line, chip, chip_w, more_head = got
            left, top = m.xs[i] - BOX_W / 2 + 6, m.ys[i] - BOX_H / 2
            painter.setPen(self.palette.text)
            painter.setFont(self._bold)
            painter.drawText(QPointF(left, top + 18), head)
            if chip:
                painter.setFont(self._small)
                painter.drawText(QPointF(m.xs[i] + BOX_W / 2 - 6 - chip_w, top + 17), chip)
            painter.setPen(self.palette.muted_text if m.turns and not more_head
                           else self.palette.text)
            painter.setFont(self._bold if more_head else self._font)
            painter.drawText(QPointF(left, top + 37), line)
        if self.texts_missing:
            self.update()

    def forget_texts(self, nodes: Iterable[int]) -> None:
        """Elide these boxes' texts again (their branch point's words came in)."""
        for i in nodes:
            self._texts.pop(i, None)
        self.frames.drop()
        self.update()

    def _text(self, i: int) -> _Text:
        """Node ``i``'s box text, elided once and kept."""
        got = self._texts.get(i)
        if got is None:
            got = self._texts[i] = self._turn_text(i) if self.model.turns else self._msg_text(i)
            self.texts_made += 1
        return got

    def _elide(self, metrics: QFontMetricsF, text: str, width: float) -> str:
        """``text`` cut to ``width`` pixels; cut to as many characters as could fit first,
        since eliding shapes the whole string (a long preview costs ten times a short one)."""
        return metrics.elidedText(text[:self._max_chars], Qt.TextElideMode.ElideRight, width)

    def _msg_text(self, i: int) -> _Text:
        m = self.model
        head = f"#{m.ids[i]} {STYLE_NAMES[m.styles[i]]}"
        differs = self.sibling_words.line(m, i) if self.sibling_words else None
        return (head, self._elide(self._metrics, differs or m.previews[i], BOX_W - 12), "", 0.0,
                False)

    def _turn_text(self, i: int) -> _Text:
        info = self.model.turns
        assert info is not None
        chip = info.chips[i]
        chip_w = self._small_metrics.horizontalAdvance(chip) if chip else 0.0
        room = BOX_W - 12 - (chip_w + 8 if chip else 0)
        differs = self.sibling_words.line(self.model, i) if self.sibling_words else None
        title = info.titles[i]
        head = self._elide(self._bold_metrics, title, room)
        answer = differs or info.answers[i]
        if not answer and head != title:  # no answer words: the title takes both lines
            first, rest = self._wrap(title, room)
            if first:
                return (first, self._elide(self._bold_metrics, rest, BOX_W - 12), chip, chip_w,
                        True)
        if answer and not self.model.flags[i] & F_RUN:
            answer = "→ " + answer
        return head, self._elide(self._metrics, answer, BOX_W - 12), chip, chip_w, False

    def _wrap(self, text: str, width: float) -> tuple[str, str]:
        """The words of ``text`` that fit ``width`` in bold, and the rest ("" when not even
        the first word fits)."""
        words, first = text[:self._max_chars * 2].split(" "), ""
        for n in range(1, len(words) + 1):
            candidate = " ".join(words[:n])
            if self._bold_metrics.horizontalAdvance(candidate) > width:
                break
            first = candidate
        return first, text[len(first):].strip()

    def _paint_ring(
        self, painter: QPainter, i: int, color: QColor, scale: float, lod: Lod
    ) -> None:
        if i < 0 or i >= len(self.model):
            return
        m = self.model
        painter.setBrush(Qt.BrushStyle.NoBrush)
        painter.setPen(cosmetic(color, 3.0))
        if lod in (Lod.OVERVIEW, Lod.DOTS):
            radius = RING_PX / max(scale, 1e-9)
            painter.drawEllipse(QPointF(m.xs[i], m.ys[i]), radius, radius)
        else:
            painter.drawRect(QRectF(m.xs[i] - BOX_W / 2 - 4, m.ys[i] - BOX_H / 2 - 4,
                                    BOX_W + 8, BOX_H + 8))
