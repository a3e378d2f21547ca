"""Message cards: the widgets the transcript stacks (slim ones: :mod:`.slim_cards`).

Colours come from the palette (so light and dark themes both work) except the
role accents, which carry meaning: the stripe on a card's left edge says who
spoke before the reader has read a word.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field, replace

from PySide6.QtCore import QPoint, QRectF, Qt, Signal
from PySide6.QtGui import (
    QColor,
    QContextMenuEvent,
    QFont,
    QMouseEvent,
    QPainter,
    QPaintEvent,
    QPalette,
    QPen,
)
from PySide6.QtWidgets import QFrame, QHBoxLayout, QLabel, QVBoxLayout, QWidget

from explorer.app.agent_display import command_chips
from explorer.app.meta_records import meta_record
from explorer.app.tree_view import marker_kind, merged_tip
from explorer.store.reads_path import FOLDED_KEY
from explorer.tree.model import Message, Part
from explorer.ui.compare_marks import paint_mark_badge
from explorer.ui.live_marks import paint_live_badge
from explorer.ui.transcript.card_words import (
    describe_tokens,
    format_time,
    format_tokens,
    shown_role,
)
from explorer.ui.transcript.chips import ChipRow, MetaText
from explorer.ui.transcript.folding import FoldedNote, WholeText, first_screenful
from explorer.ui.transcript.markdown import DocumentView
from explorer.ui.transcript.parts import (
    ImageThumbnail,
    MarkerLabel,
    ThinkingBlock,
    ToolCallBlock,
    ToolResultBlock,
)
from explorer.ui.transcript.rows import PathInfo, is_elided
from explorer.ui.transcript.switcher import SiblingSwitcher
from explorer.ui.transcript.text_view import TextView, plain_enough

ROLE_ACCENTS = {"user": "#3b82f6", "assistant": "#10a37f", "system": "#8b8f98", "tool": "#e0912b"}
META_ACCENT = "#b0b4bb"
"""The stripe of a tool's own record (a note, command output, compaction marker): faint."""


CARD_MARGINS = (14, 8, 10, 8)
"""Left, top, right, bottom: inside the border, right of the stripe."""
CARD_SPACING = 4


@dataclass
class CardContext:
    """Path-wide facts a card looks up; ``siblings`` is asked only when a card is built."""

    info: PathInfo = field(default_factory=PathInfo)
    siblings: Callable[[int], list[int]] = lambda mid: [mid]
    # one line per sibling saying what sets it apart (read only when a tooltip asks)
    describe: Callable[[list[int], int], list[str]] = lambda ids, mid: []


class Card(QFrame):
    """A selectable rounded panel with an accent stripe; the base of both card kinds."""

    pressed = Signal(int)
    menuRequested = Signal(int, QPoint)
    resized = Signal()

    def __init__(self, mid: int, accent: str, dashed: bool, parent: QWidget | None,
                 body: bool = True) -> None:
        super().__init__(parent)
        self.mid = mid
        self.accent = QColor(accent)
        self.dashed = dashed
        self.selected = False
        self.compare_mark: int | None = None  # place among the messages marked for compare
        self.live = 0.0  # how strongly it is marked as just arrived (0: not at all)
        if body:  # a card that paints its content itself has no layout to fill
            self.body = QVBoxLayout(self)
            self.body.setContentsMargins(*CARD_MARGINS)
            self.body.setSpacing(CARD_SPACING)

    def set_selected(self, selected: bool) -> None:
        if selected != self.selected:
            self.selected = selected
            self.update()

    def set_compare_mark(self, number: int | None) -> None:
        if number != self.compare_mark:
            self.compare_mark = number
            self.setToolTip(f"marked for compare ({number})" if number else "")
            self.update()

    def set_live(self, strength: float) -> None:
        if strength != self.live:
            self.live = strength
            self.update()

    def paintEvent(self, event: QPaintEvent) -> None:
        painter = QPainter(self)
        painter.setRenderHint(QPainter.RenderHint.Antialiasing)
        rect = QRectF(self.rect()).adjusted(1.5, 1.5, -1.5, -1.5)
        pal = self.palette()
        role = QPalette.ColorRole.Highlight if self.selected else QPalette.ColorRole.Mid
        line = 2.0 if self.selected else 1.0
        fill = pal.color(QPalette.ColorRole.Window if self.dashed else QPalette.ColorRole.Base)
        if self.dashed:
            pen = QPen(pal.color(role), line, Qt.PenStyle.DashLine)
            painter.setPen(pen)
            painter.setBrush(fill)
            painter.drawRoundedRect(rect, 6, 6)
        else:  # the solid border as two fills: stroking a rounded outline costs 3× as much
            half = line / 2
            painter.setPen(Qt.PenStyle.NoPen)
            painter.setBrush(pal.color(role))
            painter.drawRoundedRect(rect.adjusted(-half, -half, half, half), 6 + half, 6 + half)
            painter.setBrush(fill)
            painter.drawRoundedRect(rect.adjusted(half, half, -half, -half), 6 - half, 6 - half)
        painter.setPen(Qt.PenStyle.NoPen)
        painter.setBrush(self.accent)
        painter.drawRoundedRect(QRectF(rect.left(), rect.top(), 4, rect.height()), 2, 2)
        if self.compare_mark is not None:
            paint_mark_badge(painter, rect, self.compare_mark)
        if self.live > 0:
            paint_live_badge(painter, rect, self.live)

    def mousePressEvent(self, event: QMouseEvent) -> None:
        self.pressed.emit(self.mid)
        super().mousePressEvent(event)

    def contextMenuEvent(self, event: QContextMenuEvent) -> None:
        self.menuRequested.emit(self.mid, event.globalPos())
        event.accept()

    def _forward_presses(self, view: DocumentView | TextView) -> None:
        view.pressed.connect(lambda: self.pressed.emit(self.mid))


class MessageCard(Card):
    """Role, model, time and tokens over the message's parts, in their order."""

    siblingChosen = Signal(int)
    compareRequested = Signal(int)
    unfoldRequested = Signal(int, int)  # message id, part index: the whole part in a window
    expandRequested = Signal(int, int)  # message id, part index: the whole part in place
    collapsed = Signal(int, int)  # message id, part index: back to its first screenful
    subagentRequested = Signal(str)  # tool_use id of a call that started a subagent
    branchOpened = Signal(int)  # a merge message's side branch, by its tip
    markerOpened = Signal(int, str)  # this branch point, "archived" (unfold) or "deleted"

    def __init__(self, message: Message, mid: int, ctx: CardContext,
                 parent: QWidget | None = None) -> None:
        role = shown_role(message)
        self.meta = meta_record(message)  # a tool's own record: dashed, faint, muted text
        accent = META_ACCENT if self.meta is not None else ROLE_ACCENTS.get(role, "#888888")
        super().__init__(mid, accent, self.meta is not None, parent)
        self.message = message
        self.meta_texts: list[MetaText] = []
        self.thinking: list[ThinkingBlock] = []
        self.results: list[ToolResultBlock] = []
        self.thumbnails: list[ImageThumbnail] = []
        self.texts: list[DocumentView | TextView] = []
        self.calls: list[ToolCallBlock] = []
        self.chip_rows: list[ChipRow] = []
        self.folded: list[FoldedNote] = []
        self.part_widgets: list[QWidget] = []
        self.notes: dict[int, FoldedNote] = {}  # by part index
        self.wholes: dict[int, WholeText] = {}  # parts shown whole, by part index
        self._switcher: SiblingSwitcher | None = None
        self._fonts: dict[bool, QFont] = {}
        self._describe = ctx.describe
        siblings = ctx.siblings(mid)
        self._shown = [s for s in siblings if s not in ctx.info.archived or s == mid]
        self._archived = len(siblings) - len(self._shown)
        self.body.addLayout(self._header(ctx))
        if len(self._shown) > 1 or self._archived:
            _ = self.switcher  # most messages have no alternatives: no switcher to build
        for index, part in enumerate(message.parts):
            folded = FOLDED_KEY in part.meta
            shown = replace(part, text=first_screenful(part.text)) if folded else part
            widget = self._part_widget(shown, ctx)
            self.part_widgets.append(widget)
            self.body.addWidget(widget)
            if folded:
                self._add_note(index, int(part.meta[FOLDED_KEY]), len(shown.text))

    def _add_note(self, index: int, total: int, shown: int) -> None:
        note = FoldedNote(total, shown, self)
        note.unfold.connect(lambda i=index: self.unfoldRequested.emit(self.mid, i))
        note.expand.connect(lambda i=index: self.expandRequested.emit(self.mid, i))
        note.collapse.connect(lambda i=index: self.show_head(i))
        self.folded.append(note)
        self.notes[index] = note
        self.body.addWidget(note)

    def show_whole(self, index: int, text: str) -> WholeText | None:
        """Show folded part ``index`` whole, in place of its first screenful (V2)."""
        note = self.notes.get(index)
        if note is None or index in self.wholes:
            return self.wholes.get(index)
        kind = self.message.parts[index].kind
        whole = self.wholes[index] = WholeText(text, kind != "text", self)
        whole.pressed.connect(lambda: self.pressed.emit(self.mid))
        self.body.insertWidget(self.body.indexOf(note), whole)
        whole.show()  # now, not on the next turn: the card is measured at once
        self._hide_head(index, True)
        note.set_state("whole")
        self.resized.emit()
        return whole

    def show_head(self, index: int) -> None:
        """Back to part ``index``'s first screenful."""
        whole = self.wholes.pop(index, None)
        if whole is None:
            return
        whole.stop()
        whole.hide()
        whole.deleteLater()
        self._hide_head(index, False)
        self.notes[index].set_state("folded")
        self.collapsed.emit(self.mid, index)
        self.resized.emit()

    def _hide_head(self, index: int, hidden: bool) -> None:
        """The first screenful is the whole text's start: hidden while the whole is shown."""
        widget = self.part_widgets[index]
        if isinstance(widget, ToolResultBlock):
            widget.hide_output(hidden)
        elif isinstance(widget, DocumentView | TextView | MetaText):
            widget.setHidden(hidden)

    def _header(self, ctx: CardContext) -> QHBoxLayout:
        row = QHBoxLayout()
        row.setSpacing(8)
        self.role_label = self._label(shown_role(self.message).capitalize(), bold=True)
        pal = self.role_label.palette()
        pal.setColor(QPalette.ColorRole.WindowText, self.accent)
        self.role_label.setPalette(pal)
        if self.meta is not None:
            self.role_label.setText(self.meta.label)
            self.role_label.setToolTip(self.meta.explain)
            self.role_label.setForegroundRole(QPalette.ColorRole.PlaceholderText)
        row.addWidget(self.role_label)
        self.model_label = self._label(self.message.model or "")
        row.addWidget(self.model_label)
        for label in ctx.info.checkpoint_labels.get(self.mid, []):
            row.addWidget(self._label(f"⚑ {label}", bold=True))
        self.note_labels = [self._label(note) for note in ctx.info.notes.get(self.mid, [])]
        self.link_labels: list[QLabel] = []
        for note in self.note_labels:
            row.addWidget(note)
            link = self._link(note.text())
            if link is not None:
                self.link_labels.append(link)
                row.addWidget(link)
        row.addStretch(1)
        self.time_label = self._label(format_time(self.message.created_at))
        row.addWidget(self.time_label)
        self.tokens_label = self._label(format_tokens(self.message.usage))
        self.tokens_label.setToolTip(describe_tokens(self.message.usage))
        row.addWidget(self.tokens_label)
        self._header_row = row
        return row

    @property
    def switcher(self) -> SiblingSwitcher:
        """The ◀ n/m ▶ switcher at the header's end, built when first needed."""
        if self._switcher is None:
            switcher = self._switcher = SiblingSwitcher(self)
            switcher.siblingChosen.connect(self.siblingChosen)
            switcher.compareRequested.connect(self.compareRequested)
            switcher.describe = self._describe
            self._header_row.addWidget(switcher)
            switcher.set_siblings(self._shown, self.mid, archived=self._archived)
        return self._switcher

    def _small_font(self, bold: bool) -> QFont:
        """The header's slightly smaller font, made once per card and weight."""
        if bold not in self._fonts:
            font = QFont(self.font())
            font.setBold(bold)
            font.setPointSizeF(font.pointSizeF() * 0.9)
            self._fonts[bold] = font
        return self._fonts[bold]

    def _link(self, note: str) -> QLabel | None:
        """What a note lets a person do, as a link beside it: open a merge message's side
        branch, unfold the branches archived here, restore the branch deleted here."""
        tip, kind = merged_tip(note), marker_kind(note)
        if tip is None and kind is None:
            return None
        act = {"archived": "unfold", "deleted": "restore", None: "open it"}[kind]
        link = QLabel(f'<a href="#{act}">{act}</a>', self)
        link.setTextFormat(Qt.TextFormat.RichText)
        link.setObjectName(f"note_{act.replace(' ', '_')}")
        if kind is not None:
            link.setToolTip("Unfold the archived branches here" if kind == "archived"
                            else "Restore the branch deleted here (Edit → Undo deletes it again)")
            link.linkActivated.connect(lambda _l, k=kind: self.markerOpened.emit(self.mid, k))
        elif tip is not None:
            link.setToolTip(f"Show the branch ending at {tip} (the tip stays)")
            link.linkActivated.connect(lambda _l, t=tip: self.branchOpened.emit(t))
        return link

    def _label(self, text: str, bold: bool = False) -> QLabel:
        label = QLabel(text, self)
        label.setTextFormat(Qt.TextFormat.PlainText)
        label.setFont(self._small_font(bold))
        if not bold:
            label.setForegroundRole(QPalette.ColorRole.PlaceholderText)
        label.setVisible(bool(text))
        return label

    def _part_widget(self, part: Part, ctx: CardContext) -> QWidget:
        if is_elided(part):
            return MarkerLabel(part.text, self)
        if part.kind == "thinking":
            block = ThinkingBlock(part, self)
            block.resized.connect(self.resized)
            self.thinking.append(block)
            return block
        if part.kind == "tool_use":
            call = ToolCallBlock(part, self, ctx.info.subagents.get(part.tool_use_id or ""))
            call.resized.connect(self.resized)
            call.subagentRequested.connect(self.subagentRequested)
            self.calls.append(call)
            return call
        if part.kind == "tool_result":
            name = ctx.info.tool_names.get(part.tool_use_id or "", "tool")
            result = ToolResultBlock(part, name, self)
            result.resized.connect(self.resized)
            self.results.append(result)
            return result
        if part.kind == "image":
            thumb = ImageThumbnail(part, self)
            self.thumbnails.append(thumb)
            return thumb
        chips = command_chips(part.text) if part.kind == "text" else None
        if chips is not None:
            row = ChipRow(chips, self)
            self.chip_rows.append(row)
            return row
        if self.meta is not None and part.kind == "text":
            muted = MetaText(part.text, self)
            muted.more.clicked.connect(lambda _=False: self.resized.emit())
            self.meta_texts.append(muted)
            return muted
        # Prose is painted by a light view; fenced code keeps the browser (copy buttons).
        view = TextView(self) if plain_enough(part.text) else DocumentView(self)
        self._forward_presses(view)
        view.set_markdown(part.text)
        self.texts.append(view)
        return view
