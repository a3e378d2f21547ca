"""Labels drawn at a fixed on-screen size over the tree: TIP, checkpoints, branch names,
notes, branch counts, agents.

Box text scales with the zoom; these do not. Each is placed in viewport pixels at
its node's mapped position, so the tip and every checkpoint name stay readable
from fit-all to 400 %. When too many of one kind would pile up (branch counts
on a 100,000-message map), that kind is left out and the tooltip still tells.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence

from PySide6.QtCore import QPointF, QRectF, Qt
from PySide6.QtGui import QColor, QFont, QFontMetricsF, QPainter, QPixmap

from explorer.app.graph.model import STAR
from explorer.app.graph.spots import LabelSpots
from explorer.ui.graph.label_stamps import Look, render_stamp, veil
from explorer.ui.graph.model import BOX_H, BOX_W, COL_W, F_ACTIVE, GraphModel
from explorer.ui.graph.palette import GraphPalette

LABEL_PX = 11
MAX_BRANCH_LABELS = 120
MAX_NAME_LABELS = 200
NAME_CHARS_PX = 220  # longest checkpoint or agent name, in pixels
COST_MIN_SCALE = 0.3  # below this zoom boxes are dots: their money would only clutter
NAME_MIN_PX = 70  # names are cut to a column's width on screen, but never below this
MEMO_PX = 180  # a note shows its first words; the tooltip and the transcript show it all
_BUCKET_W, _BUCKET_H = 128.0, 32.0  # viewport buckets of drawn labels
MAX_STAMPS = 2000


Box = tuple[float, float, float, float]  # left, top, width, height in viewport pixels
_Made = tuple[QPixmap, float, str]  # a label's stamp, its width and the text it shows


class LabelPainter:
    """Places and blits the labels; a label's text, size and stamp are made once per node
    (and zoom, for names cut to a column), so a frame only does arithmetic and blits."""

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
        self.flags: list[tuple[QRectF, int]] = []  # checkpoint names drawn, by node
        self.costs: list[tuple[QRectF, str]] = []  # branch costs drawn in the last paint
        self.memos: list[tuple[QRectF, str]] = []  # notes drawn in the last paint
        self.models: list[tuple[QRectF, str]] = []  # model changes drawn in the last paint
        self.room = float(NAME_CHARS_PX)
        self._taken: dict[tuple[int, int], list[Box]] = {}
        self._bounds: Box | None = None
        self._stamps: dict[tuple[object, ...], QPixmap] = {}
        self._made: dict[tuple[object, ...], _Made] = {}  # by kind, node, room and pixel ratio
        self._ratio = 1.0
        self._map = (1.0, 1.0, 0.0, 0.0)  # the world transform: scale x, y, shift x, y
        self.stamped = 0  # labels rendered into a new stamp so far (for tests)
        self.made = 0  # label texts measured (and cut) so far: once per node (for tests)

    def paint(
        self, painter: QPainter, model: GraphModel, palette: GraphPalette,
        spots: LabelSpots, view: tuple[float, float, float, float],
        occupied: Sequence[QRectF] = (), costs: Mapping[int, str] | None = None,
    ) -> None:
        """``occupied``: viewport boxes drawn before the labels (tending chips), which no
        label covers; ``costs``: a branch's cost by the node it starts at (C5)."""
        world = painter.worldTransform()
        self._map = (world.m11(), world.m22(), world.dx(), world.dy())
        self.room = float(round(max(NAME_MIN_PX, min(NAME_CHARS_PX, COL_W * world.m11() - 10))))
        painter.save()
        painter.resetTransform()
        self.drawn = 0
        self.agent_boxes = []
        self.named = []
        self.flags = []
        self.memos = []
        self.models = []
        self.costs = []
        self._taken = {}
        for r in occupied:
            self._free((r.left(), r.top(), r.width(), r.height()))
        device = painter.device()
        self._ratio = device.devicePixelRatioF() if device is not None else 1.0
        self._bounds = (2.0, 2.0, device.width() - 4.0, device.height() - 4.0) if device else None
        if len(self._made) > MAX_STAMPS:
            self._made.clear()
        tip = model.tip
        if 0 <= tip < len(model) and _contains(view, model.xs[tip], model.ys[tip]):
            self._tip(painter, model, palette, tip)  # first: nothing may hide it
        checkpoints: dict[int, Box] = {}
        for i in spots.names.query(view, MAX_NAME_LABELS):
            box = self._name(painter, model, i, "⚑ " + ", ".join(model.labels[i]),
                             palette.checkpoint, palette)
            if box is not None:
                checkpoints[i] = box
                self.flags.append((QRectF(*box), i))
        for i in spots.branch_names.query(view, MAX_NAME_LABELS):
            self._branch_name(painter, model, i, palette, checkpoints.get(i))
        agents = model.turns.agents if model.turns is not None else {}
        for i in spots.sides.query(view, MAX_NAME_LABELS):
            name = agents.get(i, "subagent")
            # cut in the middle: "Round 2: alice comparison" and "Round 2: bob comparison"
            # stay apart when a column is too narrow for either
            box = self._name(painter, model, i, "⤷ " + name, palette.agent, palette,
                             below=i in model.labels, elide=Qt.TextElideMode.ElideMiddle)
            if box is not None:
                self.agent_boxes.append((QRectF(*box), i))
        changes = model.turns.model_changes if model.turns is not None else {}
        for i in spots.changes.query(view, MAX_NAME_LABELS):
            self._model(painter, model, i, changes[i], palette)
        seen = list(spots.branches.query(view, MAX_BRANCH_LABELS + 1))
        if len(seen) <= MAX_BRANCH_LABELS:  # more would pile up: the tooltip still tells
            for i in seen:
                self._branch(painter, model, palette, i)
        for i in spots.memos.query(view, MAX_NAME_LABELS):  # after the counts: they come first
            self._memo(painter, model, i, palette)
        if costs and world.m11() >= COST_MIN_SCALE:  # where boxes read: money beside them
            for i, text in costs.items():
                if 0 <= i < len(model) and _contains(view, model.xs[i], model.ys[i]):
                    self._cost(painter, model, i, text, palette)
        painter.restore()

    def _cost(self, painter: QPainter, m: GraphModel, i: int, text: str,
              pal: GraphPalette) -> None:
        """``$0.042`` under the node's bottom-right corner (a line lower, or right of the box
        when no box stands there, when that is taken)."""
        rx, ry = self._at(m.xs[i] + BOX_W / 2, m.ys[i])
        _, by = self._at(m.xs[i], m.ys[i] + BOX_H / 2)
        key = ("cost", text, self._ratio)
        made = self._made.get(key)
        if made is None:
            made = self._made_for(key, lambda: Look(text, 3, veil(pal), pal.muted_text,
                                                     pal.muted_text, False, False),
                                  self.metrics.horizontalAdvance(text) + 8, 15)
        w = made[1]
        right = [] if m.node_at(m.xs[i] + COL_W, m.ys[i]) >= 0 else [(rx + 4, ry + 2, w, 15.0)]
        for box in ((rx - w, by + 2, w, 15.0), (rx - w, by + 18, w, 15.0), *right):
            box = self._inside_view(box)
            if self._free(box):
                self._blit(painter, box, made)
                self.costs.append((QRectF(*box), text))
                return

    def agent_at(self, x: float, y: float) -> int:
        """The node whose subagent name was drawn under viewport point (x, y), or -1."""
        return next((i for box, i in self.agent_boxes if box.contains(QPointF(x, y))), -1)

    def _at(self, x: float, y: float) -> tuple[float, float]:
        """Scene point (x, y) in viewport pixels (the view only scales and shifts)."""
        sx, sy, tx, ty = self._map
        return x * sx + tx, y * sy + ty

    def _inside_view(self, box: Box) -> Box:
        """``box`` moved back inside the viewport when it would stick out of an edge."""
        b = self._bounds
        if b is None:
            return box
        left, top, w, h = box
        dx = min(0.0, b[0] + b[2] - (left + w)) or max(0.0, b[0] - left)
        dy = min(0.0, b[1] + b[3] - (top + h)) or max(0.0, b[1] - top)
        return left + dx, top + dy, w, h

    def _free(self, box: Box) -> bool:
        """Claim ``box`` unless a label already drawn there overlaps it.

        Drawn labels are kept in buckets of the viewport, so a claim looks only at
        its neighbours, not at every label drawn so far.
        """
        left, top, w, h = box
        right, bottom = left + w, top + h
        keys = [(c, r) for c in range(int(left // _BUCKET_W), int(right // _BUCKET_W) + 1)
                for r in range(int(top // _BUCKET_H), int(bottom // _BUCKET_H) + 1)]
        taken = self._taken
        for k in keys:
            for t in taken.get(k, ()):
                if left < t[0] + t[2] and t[0] < right and top < t[1] + t[3] and t[1] < bottom:
                    return False
        for k in keys:
            taken.setdefault(k, []).append(box)
        return True

    def _tip(self, painter: QPainter, m: GraphModel, pal: GraphPalette, i: int) -> None:
        cx, cy = self._at(m.xs[i], m.ys[i])
        rx, ty = self._at(m.xs[i] + BOX_W / 2, m.ys[i] - BOX_H / 2)
        x, y = max(rx, cx + 6), min(ty, cy - 6)
        made = self._made_for(("tip", self._ratio), lambda: Look(
            "TIP", 4, pal.tip, None, QColor("#ffffff"), True, True),
            self.bold_metrics.horizontalAdvance("TIP") + 10, 16)
        box = self._inside_view((x - made[1] / 2, y - 9, made[1], 16))
        self._free(box)
        self._blit(painter, box, made)

    def _name(self, painter: QPainter, m: GraphModel, i: int, text: str, color: QColor,
              pal: GraphPalette, below: bool = False,
              elide: Qt.TextElideMode = Qt.TextElideMode.ElideRight) -> Box | None:
        ax, ay = self._at(m.xs[i] - BOX_W / 2, m.ys[i] + (BOX_H / 2 if below else -BOX_H / 2))
        cx, cy = self._at(m.xs[i], m.ys[i])
        x = min(ax, cx + 8)
        top = (max(ay, cy + 6) + 2) if below else (min(ay, cy - 6) - 17)
        key = ("name", i, text, color.rgba(), self.room, self._ratio)
        made = self._made.get(key)
        if made is None:
            shown = self.metrics.elidedText(text, elide, self.room)
            made = self._made_for(key, lambda: Look(shown, 3, veil(pal), None, color, False,
                                                     False),
                                  self.metrics.horizontalAdvance(shown) + 8, 15)
        box = self._inside_view((x, top, made[1], 15))
        if not self._free(box):  # a chip or a label sits there: just right of what holds it
            past = max((t[0] + t[2] for t in self._overlapping(box)), default=None)
            if past is None:
                return None
            box = self._inside_view((past + 4, top, made[1], 15))
            if not self._free(box):
                return None
        self._blit(painter, box, made)
        return box

    def _overlapping(self, box: Box) -> list[Box]:
        """The claimed boxes ``box`` overlaps."""
        left, top, w, h = box
        found = []
        for boxes in self._taken.values():
            found += [t for t in boxes if left < t[0] + t[2] and t[0] < left + w
                      and top < t[1] + t[3] and t[1] < top + h]
        return found

    def _branch_name(self, painter: QPainter, m: GraphModel, i: int, pal: GraphPalette,
                     after: Box | None) -> None:
        """``⎇ name`` over the node's top-left corner (after its checkpoint name, if any); under
        the box, or right of it, when a label drawn first (the TIP badge) holds that place."""
        cx, cy = self._at(m.xs[i], m.ys[i])
        lx, ty = self._at(m.xs[i] - BOX_W / 2, m.ys[i] - BOX_H / 2)
        _, by = self._at(m.xs[i], m.ys[i] + BOX_H / 2)
        rx, _ = self._at(m.xs[i] + BOX_W / 2, m.ys[i])
        x = after[0] + after[2] + 4 if after is not None else min(lx, cx + 8)
        room = float(round(max(NAME_MIN_PX, self.room - (after[2] + 4 if after else 0))))
        text = ", ".join(m.names[i])
        key = ("branch_name", text, room, pal.branch_name.rgba(), self._ratio)
        made = self._made.get(key)
        if made is None:
            mark = "" if text.startswith(STAR) else "⎇ "
            shown = self.bold_metrics.elidedText(mark + text, Qt.TextElideMode.ElideRight, room)
            made = self._made_for(key, lambda: Look(shown, 7.5, pal.branch_name, None,
                                                     pal.background, True, True),
                                  self.bold_metrics.horizontalAdvance(shown) + 12, 15)
        w = made[1]
        for box in ((x, min(ty, cy - 6) - 17, w, 15.0),
                    (min(lx, cx + 8), max(by, cy + 6) + 2, w, 15.0),
                    (max(rx, cx + 8) + 4, cy - 7, w, 15.0)):
            box = self._inside_view(box)
            if self._free(box):
                self._blit(painter, box, made)
                self.named.append((QRectF(*box), made[2]))
                return

    def _memo(self, painter: QPainter, m: GraphModel, i: int, pal: GraphPalette) -> None:
        """``✎ note`` under the node's box, in the gap before its child (its first words: the
        tooltip and the transcript have it all); right of the box when that gap is taken (a
        branch count, the chips of what is folded or deleted there)."""
        rx, ry = self._at(m.xs[i] + BOX_W / 2, m.ys[i])
        cx, cy = self._at(m.xs[i], m.ys[i])
        lx, by = self._at(m.xs[i] - BOX_W / 2, m.ys[i] + BOX_H / 2)
        text = " ".join(" / ".join(m.memos[i]).split())
        room = float(round(min(self.room, MEMO_PX)))
        key = ("memo", text, room, pal.note.rgba(), self._ratio)
        made = self._made.get(key)
        if made is None:
            shown = self.metrics.elidedText("✎ " + text, Qt.TextElideMode.ElideRight, room)
            made = self._made_for(key, lambda: Look(shown, 3, pal.note, pal.note_text,
                                                     pal.note_text, False, False),
                                  self.metrics.horizontalAdvance(shown) + 8, 15)
        x = max(rx, cx + 8) + 4
        under = [] if i in m.tending.folded else [(min(lx, cx + 8), max(by, cy + 6) + 2)]
        for left, top in (*under, (x, ry - 7), (x, ry + 10), (x, ry - 24)):
            box = self._inside_view((left, top, made[1], 15.0))
            if self._free(box):
                self._blit(painter, box, made)
                self.memos.append((QRectF(*box), made[2]))
                return

    def _model(self, painter: QPainter, m: GraphModel, i: int, name: str,
               pal: GraphPalette) -> None:
        """``⇄ claude-opus-4-7`` right of a node whose answers came from a new model; over its
        top-right corner, or under it, when a box stands to its right (the tag would hide it)."""
        rx, ry = self._at(m.xs[i] + BOX_W / 2, m.ys[i])
        cx, cy = self._at(m.xs[i], m.ys[i])
        lx, ty = self._at(m.xs[i] - BOX_W / 2, m.ys[i] - BOX_H / 2)
        _, by = self._at(m.xs[i], m.ys[i] + BOX_H / 2)
        key = ("model", name, self.room, self._ratio)
        made = self._made.get(key)
        if made is None:
            text = self.metrics.elidedText("⇄ " + name, Qt.TextElideMode.ElideRight, self.room)
            made = self._made_for(key, lambda: Look(text, 3, veil(pal), pal.muted_text,
                                                     pal.muted_text, False, False),
                                  self.metrics.horizontalAdvance(text) + 8, 15)
        w = made[1]
        right = [] if m.node_at(m.xs[i] + COL_W, m.ys[i]) >= 0 else [
            (max(rx, cx + 8) + 4, ry - 7, w, 15.0)]
        for box in (*right, (max(rx, cx + 8) - w, min(ty, cy - 6) - 17, w, 15.0),
                    (min(lx, cx + 8), max(by, cy + 6) + 2, w, 15.0)):
            box = self._inside_view(box)
            if self._free(box):
                self._blit(painter, box, made)
                self.models.append((QRectF(*box), made[2]))
                return

    def _branch(self, painter: QPainter, m: GraphModel, pal: GraphPalette, i: int) -> None:
        key = ("branch", i, self._ratio)
        made = self._made.get(key)
        if made is None:  # the model never changes under this painter: count once per node
            kids = m.own_children(i)
            active = next((k for k, c in enumerate(kids, 1) if m.flags[c] & F_ACTIVE), 0)
            text = f"{active}/{len(kids)}" if active else str(len(kids))
            made = self._made_for(key, lambda: Look(text, 7, pal.background, pal.badge,
                                                     pal.badge, False, True),
                                  self.metrics.horizontalAdvance(text) + 10, 15)
        cx, cy = self._at(m.xs[i], m.ys[i])
        _, by = self._at(m.xs[i], m.ys[i] + BOX_H / 2)
        box = (cx + 6, max(by, cy + 5) + 2, made[1], 15.0)
        if self._free(box):
            self._blit(painter, box, made)

    def _made_for(self, key: tuple[object, ...], look: Callable[[], Look], w: float,
                  h: float) -> _Made:
        got = self._made.get(key)
        if got is None:
            made = look()
            got = self._made[key] = (self._stamp(made, w, h), w, made.text)
            self.made += 1
        return got

    def _blit(self, painter: QPainter, box: Box, made: _Made) -> None:
        """Blit the label's pre-rendered stamp: an antialiased rounded box and its text
        cost far more per frame than copying their pixels."""
        painter.drawPixmap(QPointF(round(box[0]), round(box[1])), made[0])
        self.drawn += 1

    def _stamp(self, look: Look, w: float, h: float) -> QPixmap:
        ratio = self._ratio
        key = (look.key(), round(w, 2), round(h, 2), ratio)
        got = self._stamps.get(key)
        if got is not None:
            return got
        pix = render_stamp(look, w, h, ratio, self.bold if look.bold else self.font)
        if len(self._stamps) > MAX_STAMPS:
            self._stamps.clear()
        self._stamps[key] = pix
        self.stamped += 1
        return pix


def _contains(view: tuple[float, float, float, float], x: float, y: float) -> bool:
    left, top, right, bottom = view
    return left - BOX_W <= x <= right + BOX_W and top - BOX_H <= y <= bottom + BOX_H

