"""The transcript pane as tabs: the conversation, its Files, then any subagent opened from it.

Clicking a subagent in the graph (its node, or its name beside the dashed link)
opens that subagent's transcript in a tab of its own, read from its root down to
its newest message. Nothing moves the tip: a subagent is read beside the
conversation, never switched to (V1). The tab bar hides itself while only the
conversation is open, so the pane looks as it always did. A conversation whose agent
wrote files gets a Files tab: what its active path created, edited or deleted, read when
the tab is shown (C5).
"""

from __future__ import annotations

from PySide6.QtCore import Signal
from PySide6.QtWidgets import QTabWidget, QWidget

from explorer.app.views.subagents import subagent_end
from explorer.store import Store
from explorer.store.turn_reads import SubagentInfo
from explorer.ui.background.tasks import LatestRunner, Ticket
from explorer.ui.compare.files_tab import FilesTab
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
        self.files = FilesTab(store)
        self._files_for: tuple[int, int | None] | None = None
        self._probe = LatestRunner(self, threads=1, name="files-probe")
        self._probe.finished.connect(self._files_found)

    def show_files(self, conv_id: int) -> None:
        """Offer the Files tab when the conversation changed any file (asked off the main
        thread); its text follows the active path's tip."""
        tip = self.store.conversation(conv_id, boundary=False).tip_id
        self._files_for = (conv_id, tip)
        if self._probe.runner.closed:
            return

        def probe(ticket: Ticket) -> tuple[int, int | None, bool]:
            from explorer.app.effects.presence import changes_files

            return conv_id, tip, changes_files(self.store, conv_id)

        self._probe.submit(probe)

    def _files_found(self, found: tuple[int, int | None, bool]) -> None:
        conv_id, tip, changes = found
        if (conv_id, tip) != self._files_for:
            return
        at = self.indexOf(self.files)
        if changes and tip is not None:
            if at < 0:
                at = self.insertTab(1, self.files, "Files")
                self.setTabToolTip(at, "What the active path created, edited or deleted, "
                                       "rebuilt from the agent's tool calls (convo effects)")
                bar = self.tabBar()
                bar.setTabButton(at, bar.ButtonPosition.RightSide, None)
                bar.setTabButton(at, bar.ButtonPosition.LeftSide, None)
            self.files.set_branches(conv_id, [tip])
        elif at >= 0:
            self.removeTab(at)

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
        if not isinstance(view, TranscriptView) or view is self.main:  # Files stays too
            return
        root = next((r for r, v in self._agents.items() if v is view), None)
        if root is not None:
            del self._agents[root]
        view.shutdown()
        self.removeTab(index)
        self.setCurrentWidget(self.main)  # back to the conversation, not the tab beside
        view.deleteLater()

    def close_subagents(self) -> None:
        """Another conversation, or the window closing: only the conversation's tab stays."""
        for index in reversed(range(self.count())):
            self.close_tab(index)
        self.setCurrentWidget(self.main)

    def shutdown(self) -> None:
        self._probe.shutdown()
        self.files.runner.shutdown()
        for view in self._agents.values():
            view.shutdown()
