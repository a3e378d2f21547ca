"""A message card's header, painted by the card: who spoke, the model, checkpoint flags,
notes and their links, the time, the tokens, and the ◀ 2/3 ▶ ⇆ sibling switcher.

Why painted rather than a row of labels and tool buttons: those made five to nine
child widgets per card, and Qt paints every child as a widget of its own (its
own paint event, clip, background and style calls) each time a scroll step
moves the card, which was the larger part of a step's painting. Here the card
measures the header's words once, lays them out once per width, and draws them
in its own paint event. What the widgets did is kept: the switcher's buttons are
drawn by the style as the same auto-raise tool buttons (raised under the mouse,
sunk while pressed, greyed at either end), a click runs an item's action on
release over it, tooltips are read when asked, links show the pointing hand, Tab
reaches each button and link and Space or Enter presses it, and the header's
words are the card's accessible name.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from PySide6.QtCore import QPoint, QRect, QSize, Qt
from PySide6.QtGui import QColor, QFont, QFontMetrics, QPainter, QPalette
from PySide6.QtWidgets import (
    QLabel,
    QStyle,
    QStyleOptionFocusRect,
    QStyleOptionToolButton,
    QToolButton,
    QWidget,
)

SPACING = 8
"""Between the header's items, as the row of labels had."""
SWITCH_SPACING = 2
"""Between the switcher's buttons and its "2/3"."""
LABEL, LINK, BUTTON = "label", "link", "button"
ALIGN = Qt.AlignmentFlag.AlignLeft | Qt.AlignmentFlag.AlignVCenter

Tone = QColor | QPalette.ColorRole


@dataclass(eq=False)
class HeaderItem:
    """One word or button of the header; ``rect`` is where the last layout put it."""

    name: str
    text: str
    font: QFont
    kind: str = LABEL
    tone: Tone = QPalette.ColorRole.PlaceholderText
    tip: str = ""  # the card asks its own for the switcher's (they list the siblings)
    enabled: bool = True
    right: bool = False  # after the stretch: time, tokens, the switcher
    gap: int = SPACING  # before it, when an item precedes it
    size: QSize = field(default_factory=QSize)
    rect: QRect = field(default_factory=QRect)
    shown: str = ""  # the text as painted: elided when the card is too narrow for it
    align: Qt.AlignmentFlag = ALIGN

    data: object = None  # what a link opens

    @property
    def interactive(self) -> bool:
        """A button or a link: it takes presses, lights up and is reached by Tab."""
        return self.kind != LABEL


class CardHeader:
    """The items of one card's header, their layout for a width, painting and hit tests.

    It holds no reference to its card (which is passed in where needed) and its items
    no callables, so a card and its header make no reference cycle: a card let go is
    freed at once, not by a garbage collection.
    """

    def __init__(self) -> None:
        self.items: list[HeaderItem] = []
        self.hovered: HeaderItem | None = None
        self.pressed: HeaderItem | None = None
        self.focused: HeaderItem | None = None
        self._laid_out = QRect()
        self._height = -1

    # -- building ---------------------------------------------------------------------
    def add(self, item: HeaderItem) -> HeaderItem:
        """Add ``item`` (empty texts are left out, as a hidden label took no room)."""
        if item.text:
            item.size = button_size(item.text, item.font) if item.kind == BUTTON else \
                text_size(item.text, item.font)
            item.shown = item.text
            self.items.append(item)
            self._laid_out = QRect()
            self._height = -1
        return item

    def find(self, name: str) -> HeaderItem | None:
        return next((i for i in self.items if i.name == name), None)

    def text(self, name: str) -> str:
        item = self.find(name)
        return item.text if item is not None else ""

    def texts(self, name: str) -> list[str]:
        """The texts of every item called ``name`` (a card may have several notes)."""
        return [i.text for i in self.items if i.name == name]

    def height(self) -> int:
        """The row's height: its tallest item (asked on every paint, so kept)."""
        if self._height < 0:
            self._height = max((i.size.height() for i in self.items), default=0)
        return self._height

    @property
    def interactive(self) -> bool:
        return any(i.interactive for i in self.items)

    def spoken(self) -> str:
        """The header's words in reading order, for the card's accessible name."""
        return ", ".join(i.text for i in self.items if i.kind != BUTTON)

    # -- layout -----------------------------------------------------------------------
    def layout(self, rect: QRect) -> None:
        """Place the items in ``rect``: the left ones from its left, the right ones flush
        right; when both do not fit, the left ones after the first are elided."""
        if rect == self._laid_out:
            return
        self._laid_out = QRect(rect)
        left = [i for i in self.items if not i.right]
        right = _right_that_fits(self.items, left, rect.width())
        need_right = _span(right)
        room = rect.width() - need_right - (SPACING if right and left else 0)
        widths = _fit(left, room)
        x = rect.left()
        for n, (item, width) in enumerate(zip(left, widths, strict=True)):
            x += item.gap if n else 0
            self._place(item, x, width, rect)
            item.shown = item.text if width >= item.size.width() else QFontMetrics(
                item.font).elidedText(item.text, Qt.TextElideMode.ElideRight, width)
            x += width
        x = rect.right() + 1 - need_right
        for n, item in enumerate(right):
            x += item.gap if n else 0
            self._place(item, x, item.size.width(), rect)
            item.shown = item.text  # it may have given way in a narrower layout
            x += item.size.width()

    @staticmethod
    def _place(item: HeaderItem, x: int, width: int, rect: QRect) -> None:
        """Labels take the row's height (their text centred in it); buttons keep their own
        height, centred, as a layout placed the fixed-height tool buttons."""
        height = item.size.height() if item.kind == BUTTON else rect.height()
        item.rect = QRect(x, rect.top() + (rect.height() - height) // 2, max(0, width), height)

    # -- painting ---------------------------------------------------------------------
    def paint(self, painter: QPainter, card: QWidget, clip: QRect) -> None:
        palette = card.palette()
        for item in self.items:
            if not item.rect.intersects(clip) or item.rect.width() <= 0:
                continue
            if item.kind == BUTTON:
                self._paint_button(painter, card, item)
                continue
            painter.setFont(item.font)
            tone = item.tone
            painter.setPen(tone if isinstance(tone, QColor) else palette.color(tone))
            painter.drawText(item.rect, item.align, item.shown)
            if item is self.focused:
                self._paint_focus(painter, card, item.rect)

    def _paint_button(self, painter: QPainter, card: QWidget, item: HeaderItem) -> None:
        """As QToolButton paints an auto-raise button, so it looks and behaves the same."""
        option = QStyleOptionToolButton()
        option.initFrom(card)
        state = option.state | QStyle.StateFlag.State_AutoRaise
        state &= ~(QStyle.StateFlag.State_MouseOver | QStyle.StateFlag.State_HasFocus)
        if not item.enabled:
            state &= ~QStyle.StateFlag.State_Enabled
            palette = QPalette(option.palette)
            palette.setCurrentColorGroup(QPalette.ColorGroup.Disabled)
            option.palette = palette
        elif item is self.pressed and item is self.hovered:
            state |= QStyle.StateFlag.State_Sunken
        else:
            state |= QStyle.StateFlag.State_Raised
        if item.enabled and item is self.hovered:
            state |= QStyle.StateFlag.State_MouseOver
        if item is self.focused:
            state |= QStyle.StateFlag.State_HasFocus
        option.state = state
        option.rect = item.rect
        option.text = item.text
        option.font = item.font
        option.subControls = QStyle.SubControl.SC_ToolButton
        option.activeSubControls = QStyle.SubControl.SC_None
        option.toolButtonStyle = Qt.ToolButtonStyle.ToolButtonIconOnly
        card.style().drawComplexControl(QStyle.ComplexControl.CC_ToolButton, option,
                                        painter, card)

    @staticmethod
    def _paint_focus(painter: QPainter, card: QWidget, rect: QRect) -> None:
        option = QStyleOptionFocusRect()
        option.initFrom(card)
        option.rect = rect
        card.style().drawPrimitive(QStyle.PrimitiveElement.PE_FrameFocusRect, option,
                                   painter, card)

    # -- the mouse and the keyboard -----------------------------------------------------
    def item_at(self, pos: QPoint) -> HeaderItem | None:
        return next((i for i in self.items if i.rect.contains(pos)), None)

    def hover(self, card: QWidget, pos: QPoint | None) -> bool:
        """Follow the mouse; True when what is under it changed (the card repaints it)."""
        item = self.item_at(pos) if pos is not None else None
        item = item if item is not None and item.interactive else None
        if item is self.hovered:
            return False
        _repaint(card, self.hovered, item)
        self.hovered = item
        if item is not None and item.kind == LINK:
            card.setCursor(Qt.CursorShape.PointingHandCursor)
        else:
            card.unsetCursor()
        return True

    def press(self, card: QWidget, pos: QPoint) -> bool:
        """A left press: True when it is on a button or link (which takes it)."""
        item = self.item_at(pos)
        if item is None or not item.interactive:
            return False
        self.hovered = item
        if item.enabled:
            self.pressed = item
            _repaint(card, item)
        return True

    def release(self, card: QWidget, pos: QPoint) -> tuple[bool, HeaderItem | None]:
        """The press's end: (whether the header took it, the item to act if the mouse is
        still over the one pressed)."""
        item, self.pressed = self.pressed, None
        if item is None:
            return False, None
        _repaint(card, item)
        return True, (item if item.rect.contains(pos) and item.enabled else None)

    def focus_step(self, card: QWidget, forward: bool, start: bool = False) -> bool:
        """Move the keyboard focus to the next (previous) button or link; False past the
        last (first), where the focus leaves the card. ``start``: from outside it."""
        order = [i for i in self.items if i.interactive and i.enabled]
        if not order:
            return False
        if start or self.focused not in order:
            target: HeaderItem | None = order[0] if forward else order[-1]
        else:
            assert self.focused is not None
            at = order.index(self.focused) + (1 if forward else -1)
            target = order[at] if 0 <= at < len(order) else None
        _repaint(card, self.focused, target)
        self.focused = target
        return target is not None

    def clear_focus(self, card: QWidget) -> None:
        _repaint(card, self.focused)
        self.focused = None


def _repaint(card: QWidget, *items: HeaderItem | None) -> None:
    for item in items:
        if item is not None:
            card.update(item.rect.adjusted(-2, -2, 2, 2))


GIVE_WAY = ("tokens", "time")
KEPT_WHOLE = ("checkpoint",)
"""Left-hand words the right-hand ones give way to: a checkpoint's name is never "⚑ …"."""
"""Right-hand words a narrow card leaves out, first to last, so that who spoke is never
covered (the card's tooltip and the transcript's selection still tell them)."""


def _right_that_fits(items: list[HeaderItem], left: list[HeaderItem],
                     width: int) -> list[HeaderItem]:
    """The right-hand items that leave room for who spoke and the links; the others are
    laid out empty (not drawn, not hit)."""
    right = [i for i in items if i.right]
    keep = sum(i.size.width() + (i.gap if n else 0) for n, i in enumerate(left)
               if n == 0 or i.kind == LINK or i.name in KEPT_WHOLE)
    for name in GIVE_WAY:
        if _span(right) + keep + SPACING <= width:
            break
        for item in [i for i in right if i.name == name]:
            right.remove(item)
            item.rect, item.shown = QRect(), ""
    return right


def _span(items: list[HeaderItem]) -> int:
    return sum(i.size.width() for i in items) + sum(i.gap for i in items[1:])


def _fit(items: list[HeaderItem], room: int) -> list[int]:
    """The left items' widths in ``room``: who spoke, the links and checkpoint names whole;
    the other words (model, notes) shrunk from the last towards nothing until they fit."""
    out = [i.size.width() for i in items]
    over = sum(out) + sum(i.gap for i in items[1:]) - room
    for n in range(len(out) - 1, 0, -1):
        if over <= 0:
            break
        if items[n].kind == LINK or items[n].name in KEPT_WHOLE:
            continue
        cut = min(over, out[n])
        out[n] -= cut
        over -= cut
    return out


_TEXT_SIZES: dict[tuple[str, str], QSize] = {}
_LABEL_HEIGHTS: dict[str, int] = {}
_BUTTON_SIZES: dict[tuple[str, str], QSize] = {}


def text_size(text: str, font: QFont) -> QSize:
    """A one-line label's size for ``text``, as QLabel's size hint gives it."""
    key = (text, font.key())
    size = _TEXT_SIZES.get(key)
    if size is None:
        height = _LABEL_HEIGHTS.get(font.key())
        if height is None:
            probe = QLabel("X")
            probe.setFont(font)
            height = _LABEL_HEIGHTS[font.key()] = probe.sizeHint().height()
        bounds = QFontMetrics(font).boundingRect(QRect(0, 0, 2000, 2000), ALIGN, text)
        size = QSize(bounds.width(), height)
        if len(_TEXT_SIZES) > 4096:  # times and token counts vary: keep the cache small
            _TEXT_SIZES.clear()
        _TEXT_SIZES[key] = size
    return size


def button_size(text: str, font: QFont) -> QSize:
    """An auto-raise tool button's size for ``text``, measured on a real one once."""
    key = (text, font.key())
    size = _BUTTON_SIZES.get(key)
    if size is None:
        probe = QToolButton()
        probe.setAutoRaise(True)
        probe.setFont(font)
        probe.setText(text)
        size = _BUTTON_SIZES[key] = probe.sizeHint()
    return size


_FONTS: dict[tuple[str, bool], QFont] = {}


def header_font(widget: QWidget, bold: bool) -> QFont:
    """The header's slightly smaller font for ``widget``'s font, made once per weight."""
    base = widget.font()
    key = (base.key(), bold)
    font = _FONTS.get(key)
    if font is None:
        font = _FONTS[key] = QFont(base)
        font.setBold(bold)
        font.setPointSizeF(font.pointSizeF() * 0.9)
    return font
