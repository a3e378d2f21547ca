"""One selection for the graph, the transcript and ◀ ▶, and a visible branch preview.

Clicking a node off the active path shows that branch down to its newest
leaf without moving the tip; a banner over the transcript says so ("previewing
a branch — Enter to switch, Esc to go back"), because a transcript that looks
like the active path but is not is exactly the state a person must not have to
guess. Whatever selects a message (a click in either view, ◀ ▶, Esc) selects it
in both views, so Enter in the graph acts on what the person last chose.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING

from PySide6.QtCore import QObject, Qt, Signal
from PySide6.QtGui import QKeySequence, QShortcut
from PySide6.QtWidgets import QFrame, QHBoxLayout, QPushButton, QVBoxLayout, QWidget

from explorer.app.tending.message_actions import branch_target
from explorer.app.views.subagents import subagent_by_call, subagent_of
from explorer.store.turn_reads import SubagentInfo
from explorer.ui.elided_label import ElidedLabel
from explorer.ui.window.view import WindowView

if TYPE_CHECKING:
    from explorer.ui.graph import TreeGraphWidget
    from explorer.ui.transcript import TranscriptView
    from explorer.ui.window.agent_tabs import TranscriptTabs

BANNER_TEXT = "Previewing a branch — Enter to switch, Esc to go back"


class PreviewBanner(QFrame):
    """The strip over the transcript while it shows a branch that is not the active one."""

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setObjectName("preview-banner")
        self.setStyleSheet("QFrame#preview-banner { background:#fff3bf; border:1px solid #f08c00;"
                           " border-radius:4px; } QLabel { color:#5c3c00; }")
        self.title = ElidedLabel()
        self.title.set_full(BANNER_TEXT)
        bold = self.title.font()
        bold.setBold(True)
        self.title.setFont(bold)
        self.detail = ElidedLabel()
        self.switch_button = QPushButton("Switch to this branch")
        self.back_button = QPushButton("Back")
        self.back_button.setToolTip("Back to the active branch (Esc)")
        self.switch_button.setToolTip("Make this branch the active one (Enter)")
        rows = QVBoxLayout(self)
        rows.setContentsMargins(8, 4, 8, 4)
        rows.setSpacing(2)
        top = QHBoxLayout()
        top.addWidget(self.title, 1)
        top.addWidget(self.switch_button)
        top.addWidget(self.back_button)
        rows.addLayout(top)
        rows.addWidget(self.detail)


class BranchState(QObject):
    """The selection shared by the graph and the transcript, and the branch preview.

    It is given the views it keeps in step when it is made and asks for the tree
    actions it needs (switching branches, showing a sibling) by signal, so it does not
    reach into the window.
    """

    branchRequested = Signal(int)  # make this message's branch the active one
    siblingRequested = Signal(int)  # show this sibling's newest continuation

    def __init__(self, view: WindowView, graph: TreeGraphWidget, transcript: TranscriptView,
                 tabs: TranscriptTabs) -> None:
        super().__init__(view.window())
        self.store = view.store
        self.graph = graph
        self.transcript = transcript
        self.tabs = tabs
        self._conversation: Callable[[], int | None] = lambda: view.conversation_id
        self._status = view.status
        # Stops a running replay or fan-out, True if one ran (the window sets it once its
        # runs exist).
        self.cancel_running: Callable[[], bool] = lambda: False
        self.preview_leaf: int | None = None
        self._tabs_conv: int | None = None  # conversation whose subagent tabs are open
        self.banner = PreviewBanner()
        self.banner.hide()
        self.banner.switch_button.clicked.connect(self.switch)
        self.banner.back_button.clicked.connect(self.back)
        for widget in (graph, transcript):
            esc = QShortcut(QKeySequence(Qt.Key.Key_Escape), widget)
            esc.setContext(Qt.ShortcutContext.WidgetWithChildrenShortcut)
            esc.activated.connect(self.escape)
        for key in (Qt.Key.Key_Return, Qt.Key.Key_Enter):
            enter = QShortcut(QKeySequence(key), transcript)
            enter.setContext(Qt.ShortcutContext.WidgetWithChildrenShortcut)
            enter.activated.connect(self.switch)

    @property
    def previewing(self) -> bool:
        return self.preview_leaf is not None

    # -- selections ----------------------------------------------------------------------
    def graph_selected(self, mid: int) -> None:
        """A node chosen in the graph: show it in the transcript, previewing if off the path."""
        conv = self._conversation()
        if conv is None:
            return
        active = self._active_ids()
        if mid not in active and self.open_subagent(mid):
            return
        if mid in active:
            if self.previewing:
                self._end_preview()
                self.transcript.load_path(conv)
        else:
            leaf = branch_target(self.store, mid)
            if leaf != self.preview_leaf or not self.transcript.has_message(mid):
                self.transcript.load_path(conv, tip=leaf)
                self._start_preview(mid, leaf)
        self.transcript.select(mid)
        self._status(f"message {mid}", 3000)

    def open_subagent(self, mid: int) -> bool:
        """A subagent's message: its transcript opens in a tab of its own, the tip stays (V1).

        False when ``mid`` is the conversation's own message.
        """
        conv = self._conversation()
        info = None if conv is None else subagent_of(self.store, conv, mid)
        if conv is None or info is None:
            return False
        self._show_subagent(conv, info, mid)
        return True

    def open_subagent_call(self, tool_use_id: str) -> bool:
        """The "open subagent" button on the call that started one: the same tab as its node."""
        conv = self._conversation()
        info = None if conv is None else subagent_by_call(self.store, conv, tool_use_id)
        if conv is None or info is None:
            self._status("that subagent's transcript is not stored", 5000)
            return False
        self._show_subagent(conv, info, None)
        return True

    def _show_subagent(self, conv: int, info: SubagentInfo, mid: int | None) -> None:
        self._tabs_conv = conv
        self.tabs.open_subagent(conv, info, select=mid)
        self._status(
            f"subagent “{info.name}”: read beside the conversation, the tip is unchanged", 5000)

    def transcript_selected(self, mid: int) -> None:
        self.graph.select_node(mid)

    def select_everywhere(self, mid: int) -> None:
        self.graph.select_node(mid)
        self.graph.center_on(mid)
        self.transcript.select(mid)  # waits for a path being read

    def open_branch(self, tip: int) -> None:
        """A merge message's link: show the side branch it digests (previewed; the tip
        stays), its end selected and centred in the graph."""
        self.graph_selected(tip)
        self.graph.select_node(tip)
        self.graph.center_on(tip)

    def sibling_chosen(self, mid: int) -> None:
        """◀ ▶: switch to that sibling's newest continuation and select the sibling itself
        (in the transcript once the switch is written and the path read again)."""
        self.siblingRequested.emit(mid)
        self.graph.select_node(mid)
        self.graph.center_on(mid)

    def activated(self, mid: int) -> None:
        """Enter or a double click in the graph: switch to the previewed branch, else branch."""
        leaf = self.preview_leaf
        if mid not in self._active_ids() and self.open_subagent(mid):
            return  # a subagent is never made the tip
        if leaf is not None and mid in self.store.path_ids(leaf) and (
                mid not in self._active_ids()):
            self.switch()
            return
        self.branchRequested.emit(mid)
        self.select_everywhere(mid)

    # -- the preview ---------------------------------------------------------------------
    def switch(self) -> None:
        """Make the previewed branch the active one (its newest leaf becomes the tip)."""
        leaf = self.preview_leaf
        if leaf is None:
            return
        selected = self.graph.selected_node()
        self.branchRequested.emit(leaf)
        self.select_everywhere(selected if selected is not None else leaf)

    def escape(self) -> None:
        """Esc in the graph or the transcript: stop a running model call first, else leave
        the preview."""
        if not self.cancel_running():
            self.back()

    def back(self) -> None:
        """Leave the preview: the active path again, its tip selected."""
        conv = self._conversation()
        if not self.previewing or conv is None:
            return
        self._end_preview()
        self.transcript.load_path(conv)
        tip = self.store.conversation(conv, boundary=False).tip_id
        if tip is not None:
            self.select_everywhere(tip)
            self.transcript.scroll_to(tip)

    def reset(self) -> None:
        """The transcript shows the active path again (a refresh, another conversation)."""
        self._end_preview()
        if self._tabs_conv is not None and self._tabs_conv != self._conversation():
            self.tabs.close_subagents()  # they belong to the one left
            self._tabs_conv = None

    def _start_preview(self, mid: int, leaf: int) -> None:
        self.preview_leaf = leaf
        active = self._active_ids()
        start = next((m for m in self.store.path_ids(leaf) if m not in active), mid)
        sibs = self.store.siblings(start)
        place = (f"alternative {sibs.index(start) + 1} of {len(sibs)} at message {start}"
                 if len(sibs) > 1 else f"from message {start}")
        self.banner.detail.set_full(f"{place}, down to its newest message {leaf}; "
                                   "the active branch is unchanged")
        self.banner.show()

    def _end_preview(self) -> None:
        self.preview_leaf = None
        self.banner.hide()

    def _active_ids(self) -> set[int]:
        conv = self._conversation()
        tip = None if conv is None else self.store.conversation(conv, boundary=False).tip_id
        return set() if tip is None else set(self.store.path_ids(tip))
