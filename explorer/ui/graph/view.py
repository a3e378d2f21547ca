"""The graph view: zoom around the cursor, pinch, drag to pan, fit, and keyboard walking.

The view does its own hit testing against the model (the scene holds one item),
so a click, a drag and a right-click cost a grid lookup, not a scene query.
"""

from __future__ import annotations

from collections.abc import Callable

from PySide6.QtCore import QEvent, QPoint, QPointF, QRect, QRectF, Qt, Signal
from PySide6.QtGui import (
    QContextMenuEvent,
    QHelpEvent,
    QKeyEvent,
    QMouseEvent,
    QNativeGestureEvent,
    QPainter,
    QResizeEvent,
    QWheelEvent,
)
from PySide6.QtWidgets import (
    QGestureEvent,
    QGraphicsScene,
    QGraphicsView,
    QPinchGesture,
    QToolTip,
    QWidget,
)

from explorer.ui.graph.far_view import FarPainter
from explorer.ui.graph.item import GraphItem
from explorer.ui.graph.model import BOX_H, BOX_W, F_ACTIVE, F_RUN, GraphModel
from explorer.ui.plain_text import tooltip

MIN_SCALE_FACTOR = 0.5  # how far past fit-to-view one may zoom out
MAX_SCALE = 4.0
WHEEL_STEP = 1.0015  # zoom per wheel angle unit (120 units per notch: about 20 %)
DRAG_START_PX = 4
PICK_PX = 6.0
OPEN_MARGIN = 24.0  # scene units kept between an opened-on node and the view's edge


class GraphView(QGraphicsView):
    nodeSelected = Signal(int)
    nodeActivated = Signal(int)
    contextMenuRequested = Signal(int, QPoint)
    viewChanged = Signal()
    runClicked = Signal(int)  # node position of a folded run of turns
    chipClicked = Signal(int, str)  # node position, "archived" or "deleted" (T6, T7)
    userNavigated = Signal()  # the person zoomed or panned: leave their view alone

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setScene(QGraphicsScene(self))
        self.scene().setItemIndexMethod(QGraphicsScene.ItemIndexMethod.NoIndex)
        self.item: GraphItem | None = None
        self.far = FarPainter()  # a big tree's structure when it is a line on screen
        self.setTransformationAnchor(QGraphicsView.ViewportAnchor.AnchorUnderMouse)
        self.setResizeAnchor(QGraphicsView.ViewportAnchor.AnchorViewCenter)
        self.setOptimizationFlag(QGraphicsView.OptimizationFlag.DontSavePainterState, True)
        self.setOptimizationFlag(QGraphicsView.OptimizationFlag.DontAdjustForAntialiasing, True)
        self.setViewportUpdateMode(QGraphicsView.ViewportUpdateMode.MinimalViewportUpdate)
        self.setRenderHint(QPainter.RenderHint.Antialiasing, False)
        self.setFocusPolicy(Qt.FocusPolicy.StrongFocus)
        # No scrollbars: the tree is moved by dragging, the wheel, the keys and the minimap,
        # and two Fusion scrollbars repainted on every frame of a pan or zoom cost more
        # than the tree itself (their tall gradient fills are split over the GUI thread
        # pool and waited for). The hidden bars still hold the scroll position.
        self.setHorizontalScrollBarPolicy(Qt.ScrollBarPolicy.ScrollBarAlwaysOff)
        self.setVerticalScrollBarPolicy(Qt.ScrollBarPolicy.ScrollBarAlwaysOff)
        self.viewport().grabGesture(Qt.GestureType.PinchGesture)
        self._press: QPoint | None = None
        self._last: QPoint | None = None
        self._dragging = False
        self.horizontalScrollBar().valueChanged.connect(self.viewChanged)
        self.verticalScrollBar().valueChanged.connect(self.viewChanged)

    # -- content --------------------------------------------------------------
    @property
    def model(self) -> GraphModel | None:
        return None if self.item is None else self.item.model

    def set_item(self, item: GraphItem | None) -> None:
        """Show a new snapshot; the previous item goes (the scene owns one item at most)."""
        scene = self.scene()
        if self.item is not None:
            scene.removeItem(self.item)
        self.item = item
        if item is not None:
            scene.addItem(item)
            self._update_scene_rect()
        self.viewport().update()

    def _update_scene_rect(self) -> None:
        """The tree plus half a viewport all round, so even an edge node can be centred."""
        if self.item is None:
            return
        scale = max(self.scale_factor(), 1e-9)
        mx, my = self.viewport().width() / 2 / scale, self.viewport().height() / 2 / scale
        self.setSceneRect(self.item.boundingRect().adjusted(-mx, -my, mx, my))

    @property
    def selected(self) -> int:
        return -1 if self.item is None else self.item.selected

    def select(self, i: int, *, user: bool = False) -> None:
        """Select node position ``i``; ``user`` selections are announced with nodeSelected."""
        if self.item is None or not 0 <= i < len(self.item.model):
            return
        self.item.set_selected(i)
        self.ensure_visible(i)
        if user:
            self.nodeSelected.emit(int(self.item.model.ids[i]))

    def ensure_visible(self, i: int) -> None:
        m = self.model
        if m is not None:
            self.ensureVisible(QRectF(m.xs[i] - BOX_W / 2, m.ys[i] - BOX_H / 2, BOX_W, BOX_H),
                               40, 40)

    def center_on_node(self, i: int) -> None:
        m = self.model
        if m is not None and 0 <= i < len(m):
            self.centerOn(QPointF(m.xs[i], m.ys[i]))

    def open_on_node(self, i: int, top: int = 0, bottom: int = 0) -> None:
        """Centre near node ``i`` but slide toward the tree, so the view spends no room on the
        empty scene beside it: a tip at the tree's left edge also shows the branches to its
        right, a tip at the bottom the turns above it. ``top``/``bottom``: viewport pixels
        covered by overlays, which the node must stay clear of."""
        m = self.model
        if m is None or self.item is None or not 0 <= i < len(m):
            return
        bounds = self.item.boundingRect()
        vp = self.viewport().rect()
        s = self.scale_factor()
        free = max(vp.height() - top - bottom, int(BOX_H * s))  # the band left between them
        cx = slide(m.xs[i], bounds.left(), bounds.right(), vp.width() / s / 2, BOX_W / 2)
        cy = slide(m.ys[i], bounds.top(), bounds.bottom(), free / s / 2, BOX_H / 2)
        self.centerOn(QPointF(cx, cy - (top - bottom) / s / 2))

    # -- zoom -----------------------------------------------------------------
    def scale_factor(self) -> float:
        return float(self.transform().m11())

    def fit_scale(self) -> float:
        if self.item is None:
            return 1.0
        rect = self.item.boundingRect()
        vp = self.viewport().rect()
        if rect.isEmpty() or vp.isEmpty():
            return 1.0
        return min(vp.width() / rect.width(), vp.height() / rect.height())

    def fit_all(self) -> None:
        if self.item is not None:
            bounds = self.item.boundingRect()
            self.fitInView(bounds, Qt.AspectRatioMode.KeepAspectRatio)
            self._update_scene_rect()
            self.centerOn(bounds.center())
            self.viewChanged.emit()

    def zoom_by(self, factor: float, anchor: QPoint | None = None) -> None:
        """Zoom keeping the scene point under ``anchor`` (viewport pixels) where it is."""
        low = min(self.fit_scale(), 1.0) * MIN_SCALE_FACTOR
        target = min(MAX_SCALE, max(low, self.scale_factor() * factor))
        factor = target / self.scale_factor()
        if abs(factor - 1.0) < 1e-9:
            return
        pos = anchor if anchor is not None else self.viewport().rect().center()
        before = self.mapToScene(pos)
        self.setTransformationAnchor(QGraphicsView.ViewportAnchor.NoAnchor)
        self.scale(factor, factor)
        self._update_scene_rect()
        self.setTransformationAnchor(QGraphicsView.ViewportAnchor.AnchorUnderMouse)
        delta = self.mapFromScene(before) - pos
        self.pan_by(delta.x(), delta.y())
        self.viewChanged.emit()

    def set_scale(self, scale: float) -> None:
        self.zoom_by(scale / self.scale_factor())

    def drawForeground(self, painter: QPainter, rect: QRectF | QRect) -> None:
        """Over the tree, in the view's pixels: a far view's branch points and marks."""
        super().drawForeground(painter, rect)
        if self.item is not None:
            self.far.paint(painter, self.item.model, self.item.palette, QRectF(rect))

    def resizeEvent(self, event: QResizeEvent) -> None:
        super().resizeEvent(event)
        self._update_scene_rect()

    def wheelEvent(self, event: QWheelEvent) -> None:
        self.userNavigated.emit()
        if event.modifiers() & Qt.KeyboardModifier.ControlModifier:
            steps = event.angleDelta().y() or event.angleDelta().x()
            self.zoom_by(WHEEL_STEP ** steps, event.position().toPoint())
            event.accept()
        else:
            super().wheelEvent(event)

    def viewportEvent(self, event: QEvent) -> bool:
        if event.type() == QEvent.Type.ToolTip and isinstance(event, QHelpEvent):
            i = self.node_at_view(event.pos())
            if i >= 0 and self.model is not None:
                QToolTip.showText(event.globalPos(), tooltip(self.model.tooltip(i)),
                                  self.viewport())
            else:
                QToolTip.hideText()
            return True
        if event.type() == QEvent.Type.Gesture and isinstance(event, QGestureEvent):
            pinch = event.gesture(Qt.GestureType.PinchGesture)
            if isinstance(pinch, QPinchGesture):
                self.userNavigated.emit()
                anchor = self.viewport().mapFromGlobal(pinch.centerPoint().toPoint())
                self.zoom_by(pinch.scaleFactor(), anchor)
                event.accept()
                return True
        if (isinstance(event, QNativeGestureEvent)
                and event.gestureType() == Qt.NativeGestureType.ZoomNativeGesture):
            self.zoom_by(1.0 + event.value(), event.position().toPoint())
            return True
        return super().viewportEvent(event)

    # -- mouse ----------------------------------------------------------------
    def node_at_view(self, pos: QPoint) -> int:
        m = self.model
        if m is None:
            return -1
        p = self.mapToScene(pos)
        return m.node_at(p.x(), p.y(), PICK_PX / max(self.scale_factor(), 1e-9))

    def mousePressEvent(self, event: QMouseEvent) -> None:
        if event.button() == Qt.MouseButton.LeftButton:
            self._press = self._last = event.position().toPoint()
            self._dragging = False
            event.accept()
            return
        super().mousePressEvent(event)

    def mouseMoveEvent(self, event: QMouseEvent) -> None:
        if self._press is None or self._last is None:
            super().mouseMoveEvent(event)
            return
        pos = event.position().toPoint()
        if not self._dragging and (pos - self._press).manhattanLength() >= DRAG_START_PX:
            self._dragging = True
            self.userNavigated.emit()
            self.viewport().setCursor(Qt.CursorShape.ClosedHandCursor)
        if self._dragging:
            self.pan_by(self._last.x() - pos.x(), self._last.y() - pos.y())
        self._last = pos
        event.accept()

    def pan_by(self, dx: int, dy: int) -> None:
        self.horizontalScrollBar().setValue(self.horizontalScrollBar().value() + dx)
        self.verticalScrollBar().setValue(self.verticalScrollBar().value() + dy)

    def mouseReleaseEvent(self, event: QMouseEvent) -> None:
        if event.button() == Qt.MouseButton.LeftButton and self._press is not None:
            if not self._dragging:
                i = self.node_at_view(event.position().toPoint())
                x, y = event.position().x(), event.position().y()
                chip = self.item.tending.chip_at(x, y) if self.item is not None else None
                if i < 0 and self.item is not None:  # a subagent's name opens that subagent
                    i = self.item.labels.agent_at(x, y)
                m = self.model
                if chip is not None:  # "▸ 1 archived" unfolds, "✕ 1 deleted · undo" restores
                    self.chipClicked.emit(*chip)
                elif i >= 0 and m is not None and m.flags[i] & F_RUN:
                    self.runClicked.emit(i)
                elif i >= 0:
                    self.select(i, user=True)
            self._press = self._last = None
            self._dragging = False
            self.viewport().unsetCursor()
            event.accept()
            return
        super().mouseReleaseEvent(event)

    def mouseDoubleClickEvent(self, event: QMouseEvent) -> None:
        i = self.node_at_view(event.position().toPoint())
        if event.button() == Qt.MouseButton.LeftButton and i >= 0 and self.model is not None:
            self.select(i, user=True)
            self.nodeActivated.emit(int(self.model.ids[i]))
            event.accept()
            return
        super().mouseDoubleClickEvent(event)

    def contextMenuEvent(self, event: QContextMenuEvent) -> None:
        i = self.node_at_view(event.pos())
        if i >= 0 and self.model is not None:
            if i != self.selected:  # the selected node keeps the message chosen inside it
                self.select(i, user=True)
            self.contextMenuRequested.emit(int(self.model.ids[i]), event.globalPos())
            event.accept()
            return
        event.ignore()

    # -- keyboard -------------------------------------------------------------
    def keyPressEvent(self, event: QKeyEvent) -> None:
        key = event.key()
        m = self.model
        if m is None:
            super().keyPressEvent(event)
            return
        self.userNavigated.emit()
        step = _STEPS.get(key)
        if step is not None:
            start = self.selected if self.selected >= 0 else m.tip
            target = step(m, start) if start >= 0 else (m.roots[0] if len(m) else -1)
            if target >= 0 and target != self.selected:
                self.select(target, user=True)
        elif key in (Qt.Key.Key_Return, Qt.Key.Key_Enter) and self.selected >= 0:
            if m.flags[self.selected] & F_RUN:
                self.runClicked.emit(self.selected)
            else:
                self.nodeActivated.emit(int(m.ids[self.selected]))
        elif key == Qt.Key.Key_F:
            self.fit_all()
        elif key in (Qt.Key.Key_Plus, Qt.Key.Key_Equal):
            self.zoom_by(1.25)
        elif key == Qt.Key.Key_Minus:
            self.zoom_by(0.8)
        else:
            super().keyPressEvent(event)
            return
        event.accept()


def up(m: GraphModel, i: int) -> int:
    return m.parents[i]


def down(m: GraphModel, i: int) -> int:
    """The child on the active path if there is one, else the first own child."""
    kids = m.own_children(i) or list(m.children(i))
    if not kids:
        return -1
    return next((c for c in kids if m.flags[c] & F_ACTIVE), kids[0])


def sibling(m: GraphModel, i: int, step: int) -> int:
    sibs = list(m.siblings(i))
    at = sibs.index(i) + step
    return sibs[at] if 0 <= at < len(sibs) else -1


def left(m: GraphModel, i: int) -> int:
    return sibling(m, i, -1)


def right(m: GraphModel, i: int) -> int:
    return sibling(m, i, 1)


_STEPS: dict[int, Callable[[GraphModel, int], int]] = {
    Qt.Key.Key_Up: up, Qt.Key.Key_Down: down, Qt.Key.Key_Left: left, Qt.Key.Key_Right: right,
}


def slide(node: float, low: float, high: float, half: float, box_half: float) -> float:
    """On one axis, the view centre closest to showing the most of ``[low, high]`` that keeps
    the node (``box_half`` either side) inside a view ``2 * half`` wide, with a small margin."""
    centre = (low + high) / 2 if high - low <= 2 * half else min(max(node, low + half),
                                                                 high - half)
    room = max(0.0, half - box_half - OPEN_MARGIN)
    return min(max(centre, node - room), node + room)
