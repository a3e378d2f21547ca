"""A small overview of the whole tree, the visible part outlined; click or drag to go there."""

from __future__ import annotations

from PySide6.QtCore import QPointF, QRectF, QSize, QSizeF, Qt
from PySide6.QtGui import QColor, QImage, QMouseEvent, QPainter, QPaintEvent, QPen, QPixmap
from PySide6.QtWidgets import QWidget

from explorer.app.graph.model import ROW_H
from explorer.ui.graph.far_view import ROW_PX_FAR, paint_far
from explorer.ui.graph.item import GraphItem
from explorer.ui.graph.view import GraphView

SIZE = QSize(180, 120)
MIN_BOX = 8.0  # px: the part on screen stays findable when the tree is far taller
PAD = 4.0


class Minimap(QWidget):
    def __init__(self, view: GraphView, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.view = view
        self.setFixedSize(SIZE)
        self.setCursor(Qt.CursorShape.PointingHandCursor)
        self.setToolTip("Overview: click or drag to move the view")
        self._scaled: tuple[int, QSize, QImage] | None = None  # the overview at this size
        self._still_cache: tuple[tuple[object, ...], QPixmap] | None = None
        self.scaled_count = 0  # times the overview was scaled down (once per tree and size)
        self.far_drawn = 0  # glyphs of the far view in the still image (0: none needed)
        self.last_box = QRectF()  # where the last paint outlined the part on screen
        view.viewChanged.connect(self.update)

    def _frame(self) -> tuple[QRectF, float] | None:
        """Where the scene is drawn inside the widget, and at what scale."""
        item = self.view.item
        if item is None:
            return None
        left, top, right, bottom = item.model.bounds
        w, h = max(right - left, 1.0), max(bottom - top, 1.0)
        avail = QRectF(self.rect()).adjusted(PAD, PAD, -PAD, -PAD)
        scale = min(avail.width() / w, avail.height() / h)
        dw, dh = w * scale, h * scale
        x = avail.left() + (avail.width() - dw) / 2
        y = avail.top() + (avail.height() - dh) / 2
        return QRectF(x, y, dw, dh), scale

    def paintEvent(self, event: QPaintEvent) -> None:
        """The still part (background, border, the tree) drawn once per tree and size, then
        blitted: the minimap sits over the graph and repaints with every frame of a pan."""
        item = self.view.item
        frame = self._frame()
        painter = QPainter(self)
        painter.drawPixmap(0, 0, self._still(item, frame))
        if item is None or frame is None:
            painter.end()
            return
        target, scale = frame
        visible = self.view.mapToScene(self.view.viewport().rect()).boundingRect()
        left, top = item.model.bounds[0], item.model.bounds[1]
        box = QRectF(target.left() + (visible.left() - left) * scale,
                     target.top() + (visible.top() - top) * scale,
                     visible.width() * scale, visible.height() * scale)
        if box.width() < MIN_BOX or box.height() < MIN_BOX:  # a big tree: still a mark
            centre = box.center()
            box.setSize(box.size().expandedTo(QSizeF(MIN_BOX, MIN_BOX)))
            box.moveCenter(centre)
        pen = QPen(item.palette.selection, 1.5)
        painter.setPen(pen)
        self.last_box = box.intersected(QRectF(self.rect()).adjusted(1, 1, -1, -1))
        painter.drawRect(self.last_box)
        painter.end()

    def _still(self, item: GraphItem | None, frame: tuple[QRectF, float] | None) -> QPixmap:
        background = QColor(item.palette.background if item else self.palette().base().color())
        background.setAlpha(230)
        ratio = self.devicePixelRatioF()
        key = (None if item is None else item.geometry.overview.cacheKey(), self.size(), ratio,
               background.rgba(), self.palette().mid().color().rgba())
        if self._still_cache is not None and self._still_cache[0] == key:
            return self._still_cache[1]
        pixmap = QPixmap(max(1, round(self.width() * ratio)), max(1, round(self.height() * ratio)))
        pixmap.setDevicePixelRatio(ratio)
        pixmap.fill(Qt.GlobalColor.transparent)
        painter = QPainter(pixmap)
        painter.fillRect(self.rect(), background)
        painter.setPen(self.palette().mid().color())
        painter.drawRect(QRectF(self.rect()).adjusted(0, 0, -1, -1))
        if item is not None and frame is not None:
            target = frame[0]
            painter.drawImage(target.topLeft(), self._overview(item.geometry.overview, target))
            self._far(painter, item, frame)
        painter.end()
        self._still_cache = (key, pixmap)
        return pixmap

    def _far(self, painter: QPainter, item: GraphItem, frame: tuple[QRectF, float]) -> None:
        """A tree too tall for the minimap to show as more than a line gets the graph's far
        view: branch points, marks and the active path at a fixed size."""
        target, scale = frame
        if scale * ROW_H >= ROW_PX_FAR:
            return
        marks, ys = self.view.far.prepared(item.model)
        left, top = item.model.bounds[0], item.model.bounds[1]
        painter.setRenderHint(QPainter.RenderHint.Antialiasing, True)
        self.far_drawn = paint_far(
            painter, marks, ys, item.palette,
            lambda x, y: (target.left() + (x - left) * scale, target.top() + (y - top) * scale),
            item.model.bounds, QRectF(self.rect()))

    def _overview(self, image: QImage, target: QRectF) -> QImage:
        """The overview scaled to the minimap once, not on every repaint (a 4096-pixel
        image smoothly scaled down cost several milliseconds a frame)."""
        size = target.size().toSize()
        got = self._scaled
        if got is not None and got[0] == image.cacheKey() and got[1] == size:
            return got[2]
        scaled = image.scaled(size, Qt.AspectRatioMode.IgnoreAspectRatio,
                              Qt.TransformationMode.SmoothTransformation)
        self._scaled = (image.cacheKey(), size, scaled)
        self.scaled_count += 1
        return scaled

    def scene_point(self, pos: QPointF) -> QPointF | None:
        frame = self._frame()
        item = self.view.item
        if frame is None or item is None:
            return None
        target, scale = frame
        left, top = item.model.bounds[0], item.model.bounds[1]
        return QPointF(left + (pos.x() - target.left()) / scale,
                       top + (pos.y() - target.top()) / scale)

    def mousePressEvent(self, event: QMouseEvent) -> None:
        self._move_view(event)

    def mouseMoveEvent(self, event: QMouseEvent) -> None:
        if event.buttons() & Qt.MouseButton.LeftButton:
            self._move_view(event)

    def _move_view(self, event: QMouseEvent) -> None:
        point = self.scene_point(event.position())
        if point is not None:
            self.view.centerOn(point)
            self.view.viewChanged.emit()
        event.accept()
