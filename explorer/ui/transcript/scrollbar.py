"""The transcript's scroll bar, whose groove is painted once and kept.

Each scroll step moves the handle, and Qt paints the whole bar again: with the
Fusion style that is a gradient fill of the groove the height of the view,
which the raster engine splits over its thread pool and then waits for: on a
busy machine, a fifth of a page step's time, for pixels that did not change.
Here the groove is painted by the style into a kept picture, and each paint
copies it and lets the style paint only the handle and the arrows over it.
While the mouse is over the bar or presses it (the style lights the part under
it) the bar is painted whole, as before.
"""

from __future__ import annotations

from PySide6.QtGui import QPainter, QPaintEvent, QPixmap
from PySide6.QtWidgets import QScrollBar, QStyle, QStyleOptionSlider, QWidget

_MOVING = (QStyle.SubControl.SC_ScrollBarSlider | QStyle.SubControl.SC_ScrollBarAddLine
           | QStyle.SubControl.SC_ScrollBarSubLine | QStyle.SubControl.SC_ScrollBarFirst
           | QStyle.SubControl.SC_ScrollBarLast)
"""Painted over the kept groove each time: the handle, and the arrows, which the style
paints over the handle's ends (and greys at either end of the range)."""


class KeptGrooveScrollBar(QScrollBar):
    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self._groove: QPixmap | None = None
        self._key: tuple[object, ...] | None = None
        self.kept_paints = 0  # paints that copied the kept groove (for tests)

    def paintEvent(self, event: QPaintEvent) -> None:
        option = QStyleOptionSlider()
        self.initStyleOption(option)
        busy = (option.state & QStyle.StateFlag.State_MouseOver or self.isSliderDown()
                or option.activeSubControls != QStyle.SubControl.SC_None)
        if busy:  # the style lights what the mouse is on: paint it all, as QScrollBar does
            super().paintEvent(event)
            return
        painter = QPainter(self)
        painter.drawPixmap(0, 0, self._kept_groove(option))
        option.subControls = _MOVING
        self.style().drawComplexControl(QStyle.ComplexControl.CC_ScrollBar, option, painter,
                                        self)
        self.kept_paints += 1

    def _kept_groove(self, option: QStyleOptionSlider) -> QPixmap:
        ratio = self.devicePixelRatioF()
        key = (self.size(), ratio, self.palette().cacheKey(), int(option.state.value),
               self.isEnabled())
        if self._groove is None or self._key != key:
            groove = QPixmap(self.size() * ratio)
            groove.setDevicePixelRatio(ratio)
            groove.fill(self.palette().color(self.backgroundRole()))
            still = QStyleOptionSlider(option)
            still.subControls = QStyle.SubControl.SC_ScrollBarGroove
            painter = QPainter(groove)
            self.style().drawComplexControl(QStyle.ComplexControl.CC_ScrollBar, still, painter,
                                            self)
            painter.end()
            self._groove, self._key = groove, key
        return self._groove
