"""A message card's header row as the card paints it (see :mod:`.header`), with the
switcher's and the links' requests as the card's signals."""

from __future__ import annotations

from PySide6.QtCore import QEvent, QPoint, QRect, Qt, Signal
from PySide6.QtGui import (
    QFocusEvent,
    QFont,
    QKeyEvent,
    QMouseEvent,
    QPainter,
    QPalette,
    QPixmap,
    QResizeEvent,
)
from PySide6.QtWidgets import QSizePolicy, QSpacerItem, QWidget

from explorer.app.views.meta_records import MetaRecord
from explorer.app.views.tree_view import marker_kind, merged_tip
from explorer.tree.model import Message
from explorer.ui.transcript.card_frame import CARD_MARGINS, CARD_SPACING, Card, CardContext
from explorer.ui.transcript.card_words import (
    describe_tokens,
    format_time,
    format_tokens,
    shown_role,
)
from explorer.ui.transcript.header import (
    BUTTON,
    LABEL,
    LINK,
    SWITCH_SPACING,
    CardHeader,
    HeaderItem,
    header_font,
)
from explorer.ui.transcript.switcher import SiblingSwitcher


class HeaderCard(Card):
    """A card whose first row is its painted header; the body follows in its layout."""

    siblingChosen = Signal(int)
    compareRequested = Signal(int)
    branchOpened = Signal(int)  # a merge message's side branch, by its tip
    markerOpened = Signal(int, str)  # this branch point, "archived" (unfold) or "deleted"

    def __init__(self, message: Message, meta: MetaRecord | None, mid: int, accent: str,
                 ctx: CardContext, parent: QWidget | None) -> None:
        super().__init__(mid, accent, meta is not None, parent)
        self.message = message
        self.meta = meta
        siblings = ctx.siblings(mid)
        shown = [s for s in siblings if s not in ctx.info.archived or s == mid]
        self.switcher = SiblingSwitcher(shown, mid, len(siblings) - len(shown), ctx.describe)
        self.header = CardHeader()
        self._picture: QPixmap | None = None  # the header as painted, kept: see paint_content
        self._picture_key: tuple[int, float, int] | None = None
        self._header(ctx)
        # The header's room in the body; a layout puts no spacing after a spacer, so it
        # includes the spacing before the first part, as the row of labels had.
        room = self.header.height() + (CARD_SPACING if message.parts else 0)
        self.body.addSpacerItem(QSpacerItem(0, room, QSizePolicy.Policy.Minimum,
                                            QSizePolicy.Policy.Fixed))
        self.setAccessibleName(self.header.spoken())
        if self.header.interactive:  # a switcher or a link: reached by Tab, lit by the mouse
            self.setFocusPolicy(Qt.FocusPolicy.TabFocus)
            self.setMouseTracking(True)

    def _header(self, ctx: CardContext) -> None:
        """Who spoke, the model, checkpoints, notes with their links; then, flush right,
        the time, the tokens and the switcher (see :mod:`.header`)."""
        add, small, bold = self.header.add, header_font(self, False), header_font(self, True)
        if self.meta is not None:
            add(HeaderItem("role", self.meta.label, bold, tip=self.meta.explain))
        else:
            add(HeaderItem("role", shown_role(self.message).capitalize(), bold,
                           tone=self.accent))
        add(HeaderItem("model", self.message.model or "", small))
        for label in ctx.info.checkpoint_labels.get(self.mid, []):
            add(HeaderItem("checkpoint", f"⚑ {label}", bold, tone=QPalette.ColorRole.WindowText))
        for note in ctx.info.notes.get(self.mid, []):
            add(HeaderItem("note", note, small))
            self._link(note)
        add(HeaderItem("time", format_time(self.message.created_at), small, right=True))
        usage = self.message.usage
        add(HeaderItem("tokens", format_tokens(usage), small, right=True,
                       tip=describe_tokens(usage)))
        if self.switcher.visible:
            self._switcher_items()

    def _switcher_items(self) -> None:
        """◀ 2/3 ▶ ⇆: step to the previous or next alternative, or compare them all."""
        sw, font, add = self.switcher, self.font(), self.header.add
        plain = QPalette.ColorRole.WindowText
        add(HeaderItem("previous", "◀", font, BUTTON, plain, enabled=sw.can_step(-1),
                       right=True))
        add(HeaderItem("place", sw.text(), font, LABEL, plain, right=True, gap=SWITCH_SPACING,
                       align=Qt.AlignmentFlag.AlignCenter))
        add(HeaderItem("next", "▶", font, BUTTON, plain, enabled=sw.can_step(1), right=True,
                       gap=SWITCH_SPACING))
        add(HeaderItem("compare", "⇆", font, BUTTON, plain, right=True, gap=SWITCH_SPACING))

    def _link(self, note: str) -> None:
        """What a note lets a person do, as a link beside it: open a merge message's side
        branch, unfold the branches archived here, restore the branch deleted here."""
        tip, kind = merged_tip(note), marker_kind(note)
        if tip is None and kind is None:
            return
        act = {"archived": "unfold", "deleted": "restore", None: "open it"}[kind]
        if kind is not None:
            words = ("Unfold the archived branches here" if kind == "archived"
                     else "Restore the branch deleted here (Edit → Undo deletes it again)")
        else:
            words = f"Show the branch ending at {tip} (the tip stays)"
        font = QFont(self.font())
        font.setUnderline(True)
        self.header.add(HeaderItem(f"note_{act.replace(' ', '_')}", act, font, LINK,
                                   QPalette.ColorRole.Link, tip=words,
                                   data=kind if kind is not None else tip))

    @property
    def links(self) -> list[HeaderItem]:
        """The header's links (open it, unfold, restore), in order."""
        return [i for i in self.header.items if i.kind == LINK]

    def activate(self, item: HeaderItem) -> None:
        """What pressing a button or following a link asks for."""
        if not item.enabled:
            return
        if item.name in ("previous", "next"):
            target = self.switcher.target(-1 if item.name == "previous" else 1)
            if target is not None:
                self.siblingChosen.emit(target)
        elif item.name == "compare":
            current = self.switcher.current()
            if current is not None:
                self.compareRequested.emit(current)
        elif item.kind == LINK and isinstance(item.data, str):
            self.markerOpened.emit(self.mid, item.data)
        elif item.kind == LINK and isinstance(item.data, int):
            self.branchOpened.emit(item.data)

    def tooltip(self, item: HeaderItem) -> str:
        """The switcher's list the siblings (read only when one is shown); others are set."""
        if item.name in ("previous", "place", "next", "compare"):
            return self.switcher.tooltip(item.name)
        return item.tip

    # -- the painted header's mouse, tooltips and keyboard ------------------------------
    def item_rect(self, name: str) -> QRect:
        """Where the header paints item ``name`` at the card's width (empty if it has none)."""
        self._lay_out_header()
        item = self.header.find(name)
        return QRect(item.rect) if item is not None else QRect()

    def _lay_out_header(self) -> QRect:
        rect = self._picture_rect()
        self.header.layout(rect)
        return rect

    def paint_content(self, painter: QPainter, clip: QRect) -> None:
        """The header from its kept picture; painted directly while the mouse or the
        keyboard is on one of its items."""
        header = self.header
        if header.hovered or header.pressed or header.focused:
            self._lay_out_header()
            header.paint(painter, self, clip)
            return
        rect = self._picture_rect()
        if rect.intersects(clip):
            painter.drawPixmap(rect.topLeft(), self._header_picture(rect))

    def _picture_rect(self) -> QRect:
        """The header's row inside the card's margins."""
        left, top, right, _ = CARD_MARGINS
        return QRect(left, top, self.width() - left - right, self.header.height())

    def _header_picture(self, rect: QRect) -> QPixmap:
        """The header painted once for this width (and palette) onto the card's fill.

        A scroll step paints every card it moves; the header's words are the same
        each time, so the step copies a picture of them rather than laying out and
        drawing a handful of texts (and button frames) per card. Made when the card
        gets its width (while it is built, before the step that shows it).
        """
        ratio = self.devicePixelRatioF()
        key = (rect.width(), ratio, self.palette().cacheKey())
        if self._picture is None or self._picture_key != key:
            self.header.layout(rect)
            picture = QPixmap(rect.size() * ratio)
            picture.setDevicePixelRatio(ratio)
            picture.fill(self.fill())  # inside the border: the pixels it covers
            inner = QPainter(picture)
            inner.translate(-rect.topLeft())
            self.header.paint(inner, self, rect)
            inner.end()
            self._picture, self._picture_key = picture, key
        return self._picture

    def resizeEvent(self, event: QResizeEvent) -> None:
        super().resizeEvent(event)
        rect = self._picture_rect()
        if event.size().width() != event.oldSize().width() and not rect.isEmpty():
            self._header_picture(rect)

    def mousePressEvent(self, event: QMouseEvent) -> None:
        self._lay_out_header()
        if event.button() == Qt.MouseButton.LeftButton and self.header.press(
                self, event.position().toPoint()):
            event.accept()  # a button or a link takes the press, as its widget did
            return
        super().mousePressEvent(event)

    def mouseReleaseEvent(self, event: QMouseEvent) -> None:
        if event.button() == Qt.MouseButton.LeftButton:
            taken, item = self.header.release(self, event.position().toPoint())
            if taken:
                event.accept()
                if item is not None:
                    self.activate(item)
                return
        super().mouseReleaseEvent(event)

    def mouseMoveEvent(self, event: QMouseEvent) -> None:
        self._lay_out_header()
        self.header.hover(self, event.position().toPoint())
        super().mouseMoveEvent(event)

    def leaveEvent(self, event: QEvent) -> None:
        self.header.hover(self, None)
        super().leaveEvent(event)

    def tooltip_at(self, pos: QPoint) -> str:
        self._lay_out_header()
        item = self.header.item_at(pos)
        tip = self.tooltip(item) if item is not None else ""
        return tip or super().tooltip_at(pos)

    def tooltip_rect(self, pos: QPoint) -> QRect:
        """Where the tooltip at ``pos`` holds: its header item, else the whole card."""
        item = self.header.item_at(pos)
        return QRect(item.rect) if item is not None else self.rect()

    def focusInEvent(self, event: QFocusEvent) -> None:
        reason = event.reason()
        if reason in (Qt.FocusReason.TabFocusReason, Qt.FocusReason.BacktabFocusReason):
            self.header.focus_step(self, reason == Qt.FocusReason.TabFocusReason, start=True)
        super().focusInEvent(event)

    def focusOutEvent(self, event: QFocusEvent) -> None:
        self.header.clear_focus(self)
        super().focusOutEvent(event)

    def focusNextPrevChild(self, next: bool) -> bool:
        if self.header.focused is not None and self.header.focus_step(self, next):
            return True  # the next button or link of this header
        return super().focusNextPrevChild(next)

    def keyPressEvent(self, event: QKeyEvent) -> None:
        focused = self.header.focused
        if focused is not None and event.key() in (Qt.Key.Key_Space, Qt.Key.Key_Return,
                                                    Qt.Key.Key_Enter):
            self.activate(focused)
            event.accept()
            return
        super().keyPressEvent(event)
