"""Message cards: the widgets the transcript stacks (slim ones: :mod:`.slim_cards`).

A card's frame and stripe are :mod:`.card_frame`'s, its header row :mod:`.header_card`'s;
this is the message's parts, in their order, below it.
"""

from __future__ import annotations

from dataclasses import replace

from PySide6.QtCore import Signal
from PySide6.QtWidgets import QWidget

from explorer.app.views.agent_display import command_chips
from explorer.app.views.meta_records import meta_record
from explorer.store.reads_path import FOLDED_KEY
from explorer.tree.model import Message, Part
from explorer.ui.transcript.card_frame import (
    CARD_MARGINS,
    CARD_SPACING,
    META_ACCENT,
    ROLE_ACCENTS,
    Card,
    CardContext,
)
from explorer.ui.transcript.card_words import shown_role
from explorer.ui.transcript.chips import ChipRow, MetaText
from explorer.ui.transcript.folding import FoldedNote, WholeText, first_screenful
from explorer.ui.transcript.header_card import HeaderCard
from explorer.ui.transcript.markdown import DocumentView
from explorer.ui.transcript.parts import (
    ImageThumbnail,
    MarkerLabel,
    ThinkingBlock,
    ToolCallBlock,
    ToolResultBlock,
)
from explorer.ui.transcript.rows import is_elided
from explorer.ui.transcript.text_view import TextView, plain_enough

__all__ = ["CARD_MARGINS", "CARD_SPACING", "META_ACCENT", "ROLE_ACCENTS", "Card", "CardContext",
           "MessageCard"]


class MessageCard(HeaderCard):
    """Role, model, time and tokens over the message's parts, in their order."""

    unfoldRequested = Signal(int, int)  # message id, part index: the whole part in a window
    expandRequested = Signal(int, int)  # message id, part index: the whole part in place
    collapsed = Signal(int, int)  # message id, part index: back to its first screenful
    subagentRequested = Signal(str)  # tool_use id of a call that started a subagent

    def __init__(self, message: Message, mid: int, ctx: CardContext,
                 parent: QWidget | None = None) -> None:
        meta = meta_record(message)  # a tool's own record: dashed, faint, muted text
        accent = META_ACCENT if meta is not None else ROLE_ACCENTS.get(shown_role(message),
                                                                       "#888888")
        super().__init__(message, meta, mid, accent, ctx, parent)
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
        for index, part in enumerate(message.parts):
            folded = FOLDED_KEY in part.meta
            shown = replace(part, text=first_screenful(part.text)) if folded else part
            if "\x00" in shown.text:  # Qt's text ends at a NUL: show it, and all after it
                shown = replace(shown, text=shown.text.replace("\x00", "\u2400"))
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
