"""Labels drawn at a fixed on-screen size over the tree: TIP, checkpoints, branch names,
branch counts, agents.

Box text scales with the zoom; these do not. Each is placed in viewport pixels at
its node's mapped position, so the tip and every checkpoint name stay readable
from fit-all to 400 %. When too many of one kind would pile up (branch counts
on a 100,000-message map), that kind is left out and the tooltip still tells.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

from PySide6.QtCore import QPointF, QRectF, Qt
from PySide6.QtGui import QColor, QFont, QFontMetricsF, QPainter, QPen, QPixmap, QTransform

from explorer.ui.graph.model import BOX_H, BOX_W, COL_W, F_ACTIVE, GraphModel
from explorer.ui.graph.palette import GraphPalette
from explorer.ui.graph.spots import LabelSpots

LABEL_PX = 11
MAX_BRANCH_LABELS = 120
MAX_NAME_LABELS = 200
NAME_CHARS_PX = 220  # longest checkpoint or agent name, in pixels
NAME_MIN_PX = 70  # names are cut to a column's width on screen, but never below this
_BUCKET_W, _BUCKET_H = 128.0, 32.0  # viewport buckets of drawn labels
MAX_STAMPS = 2000


class LabelPainter:
    def __init__(self) -> None:
        self.font = QFont()
        self.font.setPixelSize(LABEL_PX)
        self.bold = QFont(self.font)
        self.bold.setBold(True)
        self.metrics = QFontMetricsF(self.font)
        self.bold_metrics = QFontMetricsF(self.bold)
        self.drawn = 0  # labels drawn in the last paint (for tests)
        self.agent_boxes: list[tuple[QRectF, int]] = []  # subagent names drawn (viewport px)
        self.named: list[tuple[QRectF, str]] = []  # branch names drawn in the last paint
        self.room = float(NAME_CHARS_PX)
        self._taken: dict[tuple[int, int], list[QRectF]] = {}
        self._bounds: QRectF | None = None
        self._stamps: dict[tuple[object, ...], QPixmap] = {}
        self._counts: dict[int, str] = {}  # branch label text by node
        self.stamped = 0  # labels rendered into a new stamp so far (for tests)

    def paint(
        self, painter: QPainter, model: GraphModel, palette: GraphPalette,
        spots: LabelSpots, view: tuple[float, float, float, float],
    ) -> None:
        world = painter.worldTransform()
        self.room = max(NAME_MIN_PX, min(NAME_CHARS_PX, COL_W * world.m11() - 10))
        painter.save()
        painter.resetTransform()
        painter.setRenderHint(QPainter.RenderHint.Antialiasing, True)
        painter.setRenderHint(QPainter.RenderHint.TextAntialiasing, True)
        self.drawn = 0
        self.agent_boxes = []
        self.named = []
        self._taken = {}
        device = painter.device()
        self._bounds = QRectF(2, 2, device.width() - 4, device.height() - 4) if device else None
        tip = model.tip
        if 0 <= tip < len(model) and _contains(view, model.xs[tip], model.ys[tip]):
            self._tip(painter, world, model, palette, tip)  # first: nothing may hide it
        checkpoints: dict[int, QRectF] = {}
        for i in spots.names.query(view, MAX_NAME_LABELS):
            box = self._name(painter, world, model, i, "⚑ " + ", ".join(model.labels[i]),
                             palette.checkpoint, palette)
            if box is not None:
                checkpoints[i] = box
        for i in spots.branch_names.query(view, MAX_NAME_LABELS):
            self._branch_name(painter, world, model, i, palette, checkpoints.get(i))
        agents = model.turns.agents if model.turns is not None else {}
        for i in spots.sides.query(view, MAX_NAME_LABELS):
            name = agents.get(i, "subagent")
            box = self._name(painter, world, model, i, "⤷ " + name, palette.agent, palette,
                             below=i in model.labels)
            if box is not None:
                self.agent_boxes.append((box, i))
        changes = model.turns.model_changes if model.turns is not None else {}
        for i in spots.changes.query(view, MAX_NAME_LABELS):
            self._model(painter, world, model, i, changes[i], palette)
        seen = list(spots.branches.query(view, MAX_BRANCH_LABELS + 1))
        if len(seen) <= MAX_BRANCH_LABELS:  # more would pile up: the tooltip still tells
            for i in seen:
                self._branch(painter, world, model, palette, i)
        painter.restore()

    def agent_at(self, x: float, y: float) -> int:
        """The node whose subagent name was drawn under viewport point (x, y), or -1."""
        return next((i for box, i in self.agent_boxes if box.contains(QPointF(x, y))), -1)

    def _inside_view(self, box: QRectF) -> QRectF:
        """``box`` moved back inside the viewport when it would stick out of an edge."""
        b = self._bounds
        if b is None:
            return box
        dx = min(0.0, b.right() - box.right()) or max(0.0, b.left() - box.left())
        dy = min(0.0, b.bottom() - box.bottom()) or max(0.0, b.top() - box.top())
        return box.translated(dx, dy)

    def _free(self, box: QRectF) -> bool:
        """Claim ``box`` unless a label already drawn there overlaps it.

        Drawn labels are kept in buckets of the viewport, so a claim looks only at
        its neighbours, not at every label drawn so far.
        """
        keys = [(c, r) for c in range(int(box.left() // _BUCKET_W),
                                      int(box.right() // _BUCKET_W) + 1)
                for r in range(int(box.top() // _BUCKET_H), int(box.bottom() // _BUCKET_H) + 1)]
        taken = self._taken
        if any(box.intersects(t) for k in keys for t in taken.get(k, ())):
            return False
        for k in keys:
            taken.setdefault(k, []).append(box)
        return True

    def _tip(self, painter: QPainter, world: QTransform, m: GraphModel, pal: GraphPalette,
             i: int) -> None:
        corner = world.map(QPointF(m.xs[i] + BOX_W / 2, m.ys[i] - BOX_H / 2))
        centre = world.map(QPointF(m.xs[i], m.ys[i]))
        at = QPointF(max(corner.x(), centre.x() + 6), min(corner.y(), centre.y() - 6))
        w = self.bold_metrics.horizontalAdvance("TIP") + 10
        box = self._inside_view(QRectF(at.x() - w / 2, at.y() - 9, w, 16))
        self._free(box)
        self._draw(painter, box, _Look("TIP", 4, pal.tip, None, QColor("#ffffff"), True, True))

    def _name(self, painter: QPainter, world: QTransform, m: GraphModel, i: int, text: str,
              color: QColor, pal: GraphPalette, below: bool = False) -> QRectF | None:
        y = m.ys[i] + BOX_H / 2 if below else m.ys[i] - BOX_H / 2
        at = world.map(QPointF(m.xs[i] - BOX_W / 2, y))
        centre = world.map(QPointF(m.xs[i], m.ys[i]))
        x = min(at.x(), centre.x() + 8)
        text = self.metrics.elidedText(text, Qt.TextElideMode.ElideRight, self.room)
        w = self.metrics.horizontalAdvance(text) + 8
        top = (max(at.y(), centre.y() + 6) + 2) if below else (min(at.y(), centre.y() - 6) - 17)
        box = self._inside_view(QRectF(x, top, w, 15))
        if not self._free(box):
            return None
        back = QColor(pal.background)
        back.setAlpha(225)
        self._draw(painter, box, _Look(text, 3, back, None, color, False, False))
        return box

    def _branch_name(self, painter: QPainter, world: QTransform, m: GraphModel, i: int,
                     pal: GraphPalette, after: QRectF | None) -> None:
        """``⎇ name`` over the node's top-left corner (after its checkpoint name, if any); under
        the box, or right of it, when a label drawn first (the TIP badge) holds that place."""
        corner = world.map(QPointF(m.xs[i] - BOX_W / 2, m.ys[i] - BOX_H / 2))
        low = world.map(QPointF(m.xs[i] - BOX_W / 2, m.ys[i] + BOX_H / 2))
        centre = world.map(QPointF(m.xs[i], m.ys[i]))
        x = after.right() + 4 if after is not None else min(corner.x(), centre.x() + 8)
        room = max(NAME_MIN_PX, self.room - (after.width() + 4 if after is not None else 0))
        text = self.bold_metrics.elidedText("⎇ " + ", ".join(m.names[i]),
                                            Qt.TextElideMode.ElideRight, room)
        w = self.bold_metrics.horizontalAdvance(text) + 12
        above = QRectF(x, min(corner.y(), centre.y() - 6) - 17, w, 15)
        below = QRectF(min(low.x(), centre.x() + 8), max(low.y(), centre.y() + 6) + 2, w, 15)
        right = world.map(QPointF(m.xs[i] + BOX_W / 2, m.ys[i]))
        beside = QRectF(max(right.x(), centre.x() + 8) + 4, right.y() - 7, w, 15)
        for box in (self._inside_view(above), self._inside_view(below),
                    self._inside_view(beside)):
            if self._free(box):
                self._draw(painter, box, _Look(text, 7.5, pal.branch_name, None, pal.background,
                                               True, True))
                self.named.append((box, text))
                return

    def _model(self, painter: QPainter, world: QTransform, m: GraphModel, i: int, name: str,
               pal: GraphPalette) -> None:
        """``⇄ claude-opus-4-7`` right of a node whose answers came from a new model."""
        right = world.map(QPointF(m.xs[i] + BOX_W / 2, m.ys[i]))
        centre = world.map(QPointF(m.xs[i], m.ys[i]))
        text = self.metrics.elidedText("⇄ " + name, Qt.TextElideMode.ElideRight, self.room)
        w = self.metrics.horizontalAdvance(text) + 8
        box = self._inside_view(QRectF(max(right.x(), centre.x() + 8) + 4, right.y() - 7, w, 15))
        if not self._free(box):
            return
        back = QColor(pal.background)
        back.setAlpha(225)
        self._draw(painter, box, _Look(text, 3, back, pal.muted_text, pal.muted_text, False,
                                       False))

    def _branch(self, painter: QPainter, world: QTransform, m: GraphModel, pal: GraphPalette,
                i: int) -> None:
        text = self._counts.get(i)
        if text is None:  # the model never changes under this painter: count once per node
            kids = m.own_children(i)
            active = next((k for k, c in enumerate(kids, 1) if m.flags[c] & F_ACTIVE), 0)
            text = self._counts[i] = f"{active}/{len(kids)}" if active else str(len(kids))
        bottom = world.map(QPointF(m.xs[i], m.ys[i] + BOX_H / 2))
        centre = world.map(QPointF(m.xs[i], m.ys[i]))
        y = max(bottom.y(), centre.y() + 5)
        w = self.metrics.horizontalAdvance(text) + 10
        box = QRectF(centre.x() + 6, y + 2, w, 15)
        if not self._free(box):
            return
        self._draw(painter, box, _Look(text, 7, pal.background, pal.badge, pal.badge, False,
                                       True))

    def _draw(self, painter: QPainter, box: QRectF, look: _Look) -> None:
        """Blit the label's pre-rendered stamp: an antialiased rounded box and its text
        cost far more per frame than copying their pixels."""
        at = QPointF(round(box.left()), round(box.top()))
        painter.drawPixmap(at, self._stamp(look, box.width(), box.height(), painter))
        self.drawn += 1

    def _stamp(self, look: _Look, w: float, h: float, painter: QPainter) -> QPixmap:
        device = painter.device()
        ratio = device.devicePixelRatioF() if device is not None else 1.0
        key = (look.key(), round(w, 2), round(h, 2), ratio)
        got = self._stamps.get(key)
        if got is not None:
            return got
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
        p.setFont(self.bold if look.bold else self.font)
        if look.centred:
            p.drawText(rect, Qt.AlignmentFlag.AlignCenter, look.text)
        else:
            p.drawText(rect.adjusted(4, 0, 0, 0),
                       Qt.AlignmentFlag.AlignVCenter | Qt.AlignmentFlag.AlignLeft, look.text)
        p.end()
        if len(self._stamps) > MAX_STAMPS:
            self._stamps.clear()
        self._stamps[key] = pix
        self.stamped += 1
        return pix


@dataclass(frozen=True)
class _Look:
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


def _contains(view: tuple[float, float, float, float], x: float, y: float) -> bool:
    left, top, right, bottom = view
    return left - BOX_W <= x <= right + BOX_W and top - BOX_H <= y <= bottom + BOX_H

