"""The snapshot pages exactly as they would be sent: page i of n, pixel-exact at 100 %.

Each page is decoded from its own PNG bytes (the ones the request carries) and
drawn without smoothing, so at 100 % a screen pixel is a page pixel and at
200–400 % a page pixel is an exact square of screen pixels: what the person sees
is what the model is billed for. "Fit width" shrinks (smoothly: dropping whole pixel
rows would break the glyphs) a page wider than the view, and otherwise picks the largest
integer step that fits. Until the person picks a zoom, a page wider than the view is
fitted and one that fits twice over is shown at 200 % (the glyphs are 7–8 px tall);
Ctrl+= and Ctrl+- step through the zooms, Ctrl+0 is 100 %.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence

from PySide6.QtCore import QSize, Qt, Signal
from PySide6.QtGui import (
    QAction,
    QImage,
    QKeySequence,
    QPainter,
    QPaintEvent,
    QPixmap,
    QResizeEvent,
)
from PySide6.QtWidgets import (
    QComboBox,
    QHBoxLayout,
    QLabel,
    QPushButton,
    QScrollArea,
    QVBoxLayout,
    QWidget,
)

from explorer.ui.preview.worker import decode_png

ZOOM_STEPS: tuple[int, ...] = (1, 2, 3, 4)
OPENING_ZOOM = 2
"""A page opens at 200 %, where its pixel glyphs read (at 100 % they are 7–8 px tall),
however wide the view; Fit width, an overview of a wide page, is one step out."""
FIT = "fit"


def fit_scale(width: int, room: int) -> float:
    """Shrink a page wider than the view to its width; otherwise the largest integer step
    that fits, so glyph pixels stay exact squares."""
    if width <= 0 or room <= 0:
        return 1.0
    if width > room:
        return room / width
    return float(max(s for s in ZOOM_STEPS if s == 1 or s * width <= room))


def stepped_zoom(scale: float, fit: float, direction: int) -> int | str:
    """The zoom one step in ``direction`` (+1 in, -1 out) from the shown ``scale``: the
    integer steps, and fit width when it shrinks the page; the end steps stay put."""
    levels: list[tuple[float, int | str]] = [(float(z), z) for z in ZOOM_STEPS]
    if fit < 1:
        levels.insert(0, (fit, FIT))
    if direction > 0:
        return next((z for s, z in levels if s > scale + 1e-9), levels[-1][1])
    return next((z for s, z in reversed(levels) if s < scale - 1e-9), levels[0][1])


def _sequences(keys: Sequence[str | QKeySequence.StandardKey]) -> list[QKeySequence]:
    """The key sequences, each once (a platform's standard zoom key may repeat another)."""
    found: dict[str, QKeySequence] = {}
    for key in keys:
        bindings = (QKeySequence.keyBindings(key) if isinstance(key, QKeySequence.StandardKey)
                    else [QKeySequence(key)])
        found.update((q.toString(), q) for q in bindings if not q.isEmpty())
    return list(found.values())


class PageCanvas(QWidget):
    """One page at an integer zoom (or fit), painted from its pixmap with no smoothing."""

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self._pixmap = QPixmap()
        self._scale = 1.0
        self.setAttribute(Qt.WidgetAttribute.WA_OpaquePaintEvent)

    def pixmap(self) -> QPixmap:
        """The page at 1:1: exactly its width × height, from its own PNG bytes."""
        return self._pixmap

    @property
    def scale(self) -> float:
        return self._scale

    def set_page(self, image: QImage | None) -> None:
        self._pixmap = QPixmap() if image is None else QPixmap.fromImage(image)
        self._resize()

    def set_scale(self, scale: float) -> None:
        self._scale = scale
        self._resize()

    def displayed_size(self) -> QSize:
        """The page's size on screen at the current zoom."""
        if self._pixmap.isNull():
            return QSize(0, 0)
        return QSize(round(self._pixmap.width() * self._scale),
                     round(self._pixmap.height() * self._scale))

    def _resize(self) -> None:
        self.setFixedSize(self.displayed_size())
        self.update()

    def paintEvent(self, event: QPaintEvent) -> None:
        painter = QPainter(self)
        painter.fillRect(event.rect(), Qt.GlobalColor.white)
        if not self._pixmap.isNull():
            painter.setRenderHint(QPainter.RenderHint.SmoothPixmapTransform, self._scale < 1)
            painter.scale(self._scale, self._scale)
            painter.drawPixmap(0, 0, self._pixmap)
        painter.end()


class _FitScroll(QScrollArea):
    resized = Signal()

    def resizeEvent(self, event: QResizeEvent) -> None:
        super().resizeEvent(event)
        self.resized.emit()


class PageViewer(QWidget):
    """Browse the plan's pages; ``page_bytes()`` are the PNG bytes the pixels come from."""

    pageChanged = Signal(int)

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self._pngs: list[bytes] = []
        self._images: list[QImage] = []
        self._index = 0
        self._zoom: int | str = 1
        self._chosen = False  # until the person picks a zoom, pages open at OPENING_ZOOM
        self.canvas = PageCanvas()
        self.scroll_area = _FitScroll()
        self.scroll_area.setWidget(self.canvas)
        self.scroll_area.setAlignment(Qt.AlignmentFlag.AlignLeft | Qt.AlignmentFlag.AlignTop)
        self.scroll_area.resized.connect(self._apply_zoom)
        self.prev_button = QPushButton("◀")
        self.next_button = QPushButton("▶")
        self.prev_button.clicked.connect(lambda: self.show_page(self._index - 1))
        self.next_button.clicked.connect(lambda: self.show_page(self._index + 1))
        for button in (self.prev_button, self.next_button):
            button.setFixedWidth(36)
        self.page_label = QLabel()
        self.page_label.setMinimumWidth(220)
        self.zoom_box = QComboBox()
        self.zoom_box.addItem("Fit width", FIT)
        for z in ZOOM_STEPS:
            self.zoom_box.addItem(f"{z * 100} %", z)
        self.zoom_box.setCurrentIndex(self.zoom_box.findData(self._zoom))
        self.zoom_box.setToolTip("Zoom the pages: Ctrl+= in, Ctrl+- out, Ctrl+0 100 % "
                                 "(pixel-exact)")
        self.zoom_box.currentIndexChanged.connect(
            lambda i: self.set_zoom(self.zoom_box.itemData(i)))
        self._add_zoom_keys()
        bar = QHBoxLayout()
        for w in (self.prev_button, self.page_label, self.next_button):
            bar.addWidget(w)
        bar.addStretch(1)
        bar.addWidget(QLabel("Zoom"))
        bar.addWidget(self.zoom_box)
        layout = QVBoxLayout(self)
        layout.setContentsMargins(0, 0, 0, 0)
        layout.addLayout(bar)
        layout.addWidget(self.scroll_area, 1)
        self._update_controls()

    def _add_zoom_keys(self) -> None:
        """Zoom keys that work wherever the focus is in the preview's window."""
        keys: tuple[tuple[str, list[str | QKeySequence.StandardKey], Callable[[], None]], ...]
        keys = (("Zoom in", ["Ctrl+=", "Ctrl++", QKeySequence.StandardKey.ZoomIn],
                 lambda: self.step_zoom(1)),
                ("Zoom out", ["Ctrl+-", QKeySequence.StandardKey.ZoomOut],
                 lambda: self.step_zoom(-1)),
                ("Actual size", ["Ctrl+0"], lambda: self.set_zoom(1)))
        for name, wanted, slot in keys:
            action = QAction(name, self)
            action.setShortcuts(_sequences(wanted))
            action.setShortcutContext(Qt.ShortcutContext.WindowShortcut)
            action.triggered.connect(slot)
            self.addAction(action)

    # -- content ----------------------------------------------------------------
    def set_pages(self, pngs: Sequence[bytes], images: Sequence[QImage] | None = None) -> None:
        """Show ``pngs``; ``images`` are the same bytes already decoded (off the main thread)."""
        self._pngs = list(pngs)
        self._images = list(images) if images is not None else [
            decode_png(b) for b in self._pngs]
        if len(self._images) != len(self._pngs):
            raise ValueError("one decoded image is needed per page")
        self._index = 0
        self.show_page(0)

    def page_bytes(self) -> list[bytes]:
        return list(self._pngs)

    @property
    def count(self) -> int:
        return len(self._pngs)

    @property
    def index(self) -> int:
        return self._index

    def current_png(self) -> bytes | None:
        return self._pngs[self._index] if self._pngs else None

    def show_page(self, index: int) -> None:
        if self._pngs:
            self._index = max(0, min(index, len(self._pngs) - 1))
            self.canvas.set_page(self._images[self._index])
        else:
            self._index = 0
            self.canvas.set_page(None)
        self._apply_zoom()
        self._update_controls()
        self.pageChanged.emit(self._index)

    # -- zoom -------------------------------------------------------------------
    @property
    def zoom(self) -> int | str:
        return self._zoom

    def set_zoom(self, zoom: int | str) -> None:
        """An integer step (1–4, i.e. 100–400 %) or ``"fit"`` (fit the width of the view),
        kept for every page and plan shown after."""
        if zoom != FIT and zoom not in ZOOM_STEPS:
            raise ValueError(f"zoom must be one of {ZOOM_STEPS} or {FIT!r}, not {zoom!r}")
        self._chosen = True
        self._show_zoom(zoom)

    def step_zoom(self, direction: int) -> None:
        """One zoom step in (+1) or out (-1) from what is shown."""
        self.set_zoom(stepped_zoom(self.canvas.scale, self._fit(), direction))

    def _show_zoom(self, zoom: int | str) -> None:
        self._zoom = zoom
        i = self.zoom_box.findData(zoom)
        if i != self.zoom_box.currentIndex():
            self.zoom_box.blockSignals(True)
            self.zoom_box.setCurrentIndex(i)
            self.zoom_box.blockSignals(False)
        self._apply_zoom()

    def _fit(self) -> float:
        return fit_scale(self.canvas.pixmap().width(), self.scroll_area.viewport().width())

    def _apply_zoom(self) -> None:
        if not self._chosen and not self.canvas.pixmap().isNull():
            zoom = OPENING_ZOOM
            if zoom != self._zoom:
                self._show_zoom(zoom)
                return
        self.canvas.set_scale(self._fit() if self._zoom == FIT else float(self._zoom))

    def _update_controls(self) -> None:
        n = len(self._pngs)
        if n:
            pm = self.canvas.pixmap()
            self.page_label.setText(f"page {self._index + 1} of {n} · {pm.width()}×{pm.height()}")
        else:
            self.page_label.setText("no pages")
        self.prev_button.setEnabled(self._index > 0)
        self.next_button.setEnabled(self._index < n - 1)
