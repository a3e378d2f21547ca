"""The transcript pane as tabs: the conversation first, then any subagent opened from it.

Clicking a subagent in the graph (its node, or its name beside the dashed link)
opens that subagent's transcript in a tab of its own, read from its root down to
its newest message. Nothing moves the tip: a subagent is read beside the
conversation, never switched to (V1). The tab bar hides itself while only the
conversation is open, so the pane looks as it always did.
"""

from __future__ import annotations

from PySide6.QtCore import Signal
from PySide6.QtWidgets import QTabWidget, QWidget

from explorer.app.views.subagents import subagent_end
from explorer.store import Store
from explorer.store.turn_reads import SubagentInfo
from explorer.ui.transcript import TranscriptView


class TranscriptTabs(QTabWidget):
    subagentOpened = Signal(int)  # root message id of the subagent shown
    subagentRequested = Signal(str)  # an "open subagent" button, in any tab: the call's id

    def __init__(self, store: Store, main: TranscriptView,
                 parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.store = store
        self.main = main
        main.subagentRequested.connect(self.subagentRequested)
        self.addTab(main, "Conversation")
        self.setTabsClosable(True)
        self.setTabBarAutoHide(True)
        self.setDocumentMode(True)
        bar = self.tabBar()
        bar.setTabButton(0, bar.ButtonPosition.RightSide, None)  # the conversation stays
        bar.setTabButton(0, bar.ButtonPosition.LeftSide, None)
        self.tabCloseRequested.connect(self.close_tab)
        self._agents: dict[int, TranscriptView] = {}  # by subagent root

    def agent_views(self) -> dict[int, TranscriptView]:
        return dict(self._agents)

    def open_subagent(self, conv_id: int, info: SubagentInfo,
                      select: int | None = None) -> TranscriptView:
        """Show the subagent's transcript in its tab (made once, then brought to the front)."""
        view = self._agents.get(info.root)
        if view is None:
            view = TranscriptView(self.store)
            view.subagentRequested.connect(self.subagentRequested)  # a subagent's own subagents
            self._agents[info.root] = view
            at = self.addTab(view, f"⤷ {info.name}")
            spawned = (f", started by message {info.call_message}"
                       if info.call_message is not None else "")
            self.setTabToolTip(at, f"Subagent “{info.name}”{spawned}. "
                                   "Read beside the conversation: the tip does not move.")
            view.load_path(conv_id, tip=subagent_end(self.store, info))
        self.setCurrentWidget(view)
        if select is not None:
            view.select(select)
            view.scroll_to(select)
        self.subagentOpened.emit(info.root)
        return view

    def close_tab(self, index: int) -> None:
        view = self.widget(index)
        if not isinstance(view, TranscriptView) or view is self.main:
            return
        root = next((r for r, v in self._agents.items() if v is view), None)
        if root is not None:
            del self._agents[root]
        view.shutdown()
        self.removeTab(index)
        view.deleteLater()

    def close_subagents(self) -> None:
        """Another conversation, or the window closing: only the conversation's tab stays."""
        for index in reversed(range(self.count())):
            self.close_tab(index)
        self.setCurrentWidget(self.main)

    def shutdown(self) -> None:
        for view in self._agents.values():
            view.shutdown()
