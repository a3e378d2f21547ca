"""The main window: conversations, the tree graph and the transcript side by side.

The graph and the transcript keep their selections in step; every action that
changes the tree goes through the store (one writer) and then refreshes the views.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from pathlib import Path

from PySide6.QtCore import QByteArray, QEvent, QObject, QPoint, QSettings, Qt
from PySide6.QtGui import QAction, QCloseEvent, QKeyEvent
from PySide6.QtWidgets import QLabel, QMainWindow, QMenu, QSplitter, QVBoxLayout, QWidget

from explorer.app import error_log
from explorer.app.ops.availability import for_message, for_whole_turn
from explorer.store import Store
from explorer.ui.background.first_paint import AfterFirstPaint
from explorer.ui.background.memory import release_after_load
from explorer.ui.background.op_runner import OpRunner
from explorer.ui.background.tasks import TaskRunner
from explorer.ui.calls.worker import ModelJob
from explorer.ui.compare.actions import CompareActions
from explorer.ui.error_bar import ErrorBar, ErrorSink, open_log_folder
from explorer.ui.graph import TreeGraphWidget
from explorer.ui.importing.drop import install_drop_import
from explorer.ui.importing.follow import LiveFollow
from explorer.ui.preview.context_actions import ContextActions
from explorer.ui.preview.context_panel import ContextPanel
from explorer.ui.questions import Questions
from explorer.ui.saved_settings import keep_setting
from explorer.ui.sharing.redaction_switch import RedactionSwitch
from explorer.ui.tending.actions import TendActions
from explorer.ui.tending.runs import TendRuns
from explorer.ui.transcript import TranscriptView
from explorer.ui.window.actions import WindowActions
from explorer.ui.window.agent_tabs import TranscriptTabs
from explorer.ui.window.branch_state import BranchState
from explorer.ui.window.command_bar import CommandBar
from explorer.ui.window.context_menu import MessageMenu
from explorer.ui.window.conversations import GROUPINGS, ConversationList
from explorer.ui.window.cost_line import CostLine
from explorer.ui.window.menus import WindowMenus
from explorer.ui.window.slash_dispatch import SlashDispatcher


def remembered_or_first(settings: QSettings, ids: Sequence[int]) -> int | None:
    """The conversation a start opens: the one ``settings`` remember if it is among
    ``ids``, else the first of them."""
    last = settings.value("window/conversation")
    remembered = int(str(last)) if last is not None and str(last).isdigit() else None
    return remembered if remembered in ids else (ids[0] if ids else None)


class MainWindow(QMainWindow):
    actions_: WindowActions  # made after the compares, which branch through it

    def __init__(self, store: Store, settings: QSettings | None = None, *,
                 open_after_first_paint: bool = False) -> None:
        """``open_after_first_paint``: the remembered conversation's loads start once the
        window is on screen (the app's start), not while it is built (V2)."""
        super().__init__()
        self.store = store
        self.settings = settings or QSettings()
        self.tasks = TaskRunner(self, threads=3, name="explorer-window")
        self.ops = OpRunner(self, self.refresh)  # operations, off this thread and in order
        self.questions = Questions(self, self.status)  # tests answer them instead of dialogs
        self.setWindowTitle("Conversation Explorer")
        self.conversations = ConversationList(store)
        self.graph = TreeGraphWidget(store, runner=self.tasks)
        self.transcript = TranscriptView(store)
        self.context_panel = ContextPanel(store, after_first_paint=True,
                                          settings=self.settings)
        self.context_panel.gate.wait_for(
            lambda: self.transcript.is_loading or self.graph.is_loading)
        right = QWidget()
        column = QVBoxLayout(right)
        column.setContentsMargins(0, 0, 0, 0)
        column.setSpacing(2)
        column.addWidget(self.context_panel)
        self.transcript_tabs = TranscriptTabs(store, self.transcript)  # + subagent tabs
        self.branch_state = BranchState(self, self.graph, self.transcript,
                                        self.transcript_tabs)
        column.addWidget(self.branch_state.banner)
        self.follow = LiveFollow(self, self.graph, self.transcript, self.branch_state)
        column.addWidget(self.follow.bar)
        column.addWidget(self.transcript_tabs, 1)
        self.splitter = QSplitter(Qt.Orientation.Horizontal)
        for w in (self.conversations, self.graph, right):
            self.splitter.addWidget(w)
        self.splitter.setStretchFactor(1, 3)
        self.splitter.setStretchFactor(2, 2)
        self.command_bar = CommandBar()
        self.command_bar.hide()
        central = QWidget()
        outer = QVBoxLayout(central)
        outer.setContentsMargins(0, 0, 0, 0)
        outer.setSpacing(0)
        self.error_bar = ErrorBar(central, open_folder=self.open_log_folder)
        self.errors = ErrorSink(self)  # every failure, from any thread, reaches the bar (E1)
        self.errors.failed.connect(self.error_bar.show_failure)
        outer.addWidget(self.error_bar)
        outer.addWidget(self.splitter, 1)
        self.setCentralWidget(central)
        self.command_bar.overlay(central)  # floats over the top; never pushes the window down
        self.status_label = QLabel()
        self.status_label.setTextFormat(Qt.TextFormat.PlainText)  # titles are imported text
        self.statusBar().addPermanentWidget(self.status_label)
        self.cost_line = CostLine(store, lambda: (self.transcript.is_loading
                                                  or self.graph.is_loading), self,
                                  chips=lambda chips: self.graph.set_cost_chips(chips))
        self.statusBar().addPermanentWidget(self.cost_line)
        self.redaction = RedactionSwitch(self)  # secrets in sends, previews, exports (R1)
        self.statusBar().insertPermanentWidget(0, self.redaction.banner)
        self.compares = CompareActions(  # marks, compare windows, refusals
            self, self.questions,
            lambda conv, mid, then: self.actions_.branches.branch_in(conv, mid, then=then))
        self.actions_ = WindowActions(self, self.compares.open)
        self.tend = TendActions(self, self.questions)
        self.runs = TendRuns(self, self.questions, self.compares.open)
        self.context_actions = ContextActions(self, self.compares.marks)
        self._conv: int | None = None
        self.last_menu: QMenu | None = None  # kept alive while it is shown
        self.slash = SlashDispatcher(self, self.actions_, self.runs, self.tend.commands)
        self.menus = WindowMenus(self)
        self.undo_action, self.redo_action = self.menus.undo, self.menus.redo
        self._connect()
        self.drop_filter = install_drop_import(self, self.actions_.dialogs.start_import)
        self.first_open: AfterFirstPaint | None = None
        self._restore(open_after_first_paint)
        self.graph.view.setFocus(Qt.FocusReason.OtherFocusReason)  # F fits, arrows walk

    @property
    def model_job(self) -> ModelJob | None:
        """The model call running, or the last one (the window's model calls own it)."""
        return self.actions_.model_calls.job

    # -- wiring -------------------------------------------------------------------
    def _connect(self) -> None:
        self.conversations.conversationChosen.connect(self.open_conversation)
        self.graph.nodeSelected.connect(self.branch_state.graph_selected)
        self.graph.nodeActivated.connect(self.branch_state.activated)
        self.graph.contextMenuRequested.connect(
            lambda mid, pos: self.show_message_menu(mid, pos, self.graph.node_root(mid)))
        self.graph.chipClicked.connect(self.tend.open_marker)
        self.transcript.messageSelected.connect(self.branch_state.transcript_selected)
        self.transcript.siblingChosen.connect(self.branch_state.sibling_chosen)
        self.transcript.branchOpened.connect(self.branch_state.open_branch)
        self.transcript.markerOpened.connect(lambda mid, kind: self.tend.open_marker([mid], kind))
        self.transcript.compareRequested.connect(self.compares.compare)
        self.transcript.contextMenuRequested.connect(self.show_message_menu)
        self.transcript_tabs.subagentRequested.connect(self.branch_state.open_subagent_call)
        self.branch_state.branchRequested.connect(self.actions_.branches.branch)
        self.branch_state.siblingRequested.connect(self.actions_.branches.show_sibling)
        self.branch_state.cancel_running = self.runs.cancel_running
        self.command_bar.commandEntered.connect(self.slash.run)
        self.command_bar.closed.connect(self.actions_.model_calls.cancel)
        self.command_bar.closed.connect(self.runs.cancel)
        self.tasks.changed.connect(self.refresh_views)
        self.graph.loaded.connect(self._after_load)
        self.transcript.loaded.connect(self._after_load)
        self.compares.marks.changed.connect(self.graph.set_compare_marks)
        self.compares.marks.changed.connect(self.transcript.set_compare_marks)
        self.transcript.installEventFilter(self)

    def _after_load(self, _conv: int) -> None:
        """Once both views hold their data, what the loads freed goes back to the system."""
        if not self.graph.is_loading and not self.transcript.skeletons.busy:
            self.tasks.run(lambda _t: release_after_load(self.store), lane_kind="release")

    def open_log_folder(self) -> None:
        if not open_log_folder():
            self.status(f"The log is in {error_log.log_dir()}", 15000)

    def menu_action(self, name: str) -> QAction:
        found = self.findChild(QAction, name)
        if found is None:
            raise KeyError(name)
        return found

    # -- conversations ------------------------------------------------------------
    @property
    def conversation_id(self) -> int | None:
        return self._conv

    def open_conversation(self, conv_id: int) -> None:
        if self.first_open is not None:
            self.first_open.cancel()  # a choice made before the first frame wins
        self._conv = conv_id
        self.branch_state.reset()
        self.transcript.load_path(conv_id)  # first: the open's lane runs its skeleton first
        self.graph.load_conversation(conv_id)
        tip = self.store.conversation(conv_id, boundary=False).tip_id
        if tip is not None:
            self.graph.select_node(tip)
            self.transcript.scroll_to(tip)
        if self.conversations.current() != conv_id:
            self.conversations.select(conv_id)
        keep_setting(self.settings, "window/conversation", conv_id)
        self.update_status()

    def select_conversation(self, conv_id: int) -> None:
        self.open_conversation(conv_id)

    def refresh(self, conv_id: int | None = None) -> None:
        """Reload every view after the store changed (an action, an import)."""
        target = conv_id if conv_id is not None else self._conv
        self.conversations.refresh()  # read off this thread; shown when read
        if target is None:
            return
        if target != self._conv:
            self.open_conversation(target)
            return
        self.graph.refresh()
        self.branch_state.reset()
        self.transcript.load_path(target)
        self.update_status()

    def refresh_views(self, names: frozenset[str]) -> None:
        """Reload only the views a finished job says it changed."""
        if "conversations" in names:
            self.conversations.refresh()
        if self._conv is None:
            return
        if "graph" in names:
            self.graph.refresh()
        if "transcript" in names:
            self.branch_state.reset()
            self.transcript.load_path(self._conv)
        if names & {"transcript", "context", "conversations"}:
            self.update_status()

    def open_command_bar(self, prefix: str = "") -> None:
        if self._conv is not None:
            self.command_bar.set_context(sorted(self.store.checkpoints(self._conv)))
        self.command_bar.open(prefix)

    def eventFilter(self, watched: QObject, event: QEvent) -> bool:
        """"/" typed in the transcript opens the command bar, as in chat apps."""
        if (watched is self.transcript and event.type() == QEvent.Type.KeyPress
                and isinstance(event, QKeyEvent) and event.text() == "/"):
            self.open_command_bar("/")
            return True
        return super().eventFilter(watched, event)

    def keyPressEvent(self, event: QKeyEvent) -> None:
        """Esc that no widget took (the list, the context panel): stop a running call."""
        if event.key() == Qt.Key.Key_Escape and self.runs.cancel_running():
            event.accept()
            return
        super().keyPressEvent(event)

    def go_to_tip(self) -> None:
        if self._conv is None:
            return
        tip = self.store.conversation(self._conv, boundary=False).tip_id
        if tip is not None:
            self.branch_state.reset()
            self.transcript.load_path(self._conv)
            self.graph.center_on(tip)
            self.graph.select_node(tip)
            self.transcript.scroll_to(tip)

    def update_status(self) -> None:
        if self._conv is None:
            self.status_label.setText(str(self.store.db_path))
            return
        self.context_panel.show_conversation(self._conv)
        self.cost_line.show_conversation(self._conv)
        self.transcript_tabs.show_files(self._conv)
        conv = self.store.conversation(self._conv, boundary=False)
        labels = len(self.store.checkpoints(self._conv))
        self.status_label.setText(
            f"{conv.display_title} · {conv.message_count} messages · tip {conv.tip_id} · "
            f"{labels} checkpoint(s) · {self.store.db_path.name}"
        )

    # -- selection sync -----------------------------------------------------------
    def selected_message(self) -> int | None:
        return self.graph.selected_node() or self.transcript.selected()

    def reveal(self, mid: int) -> None:
        self.graph.center_on(mid)
        self.graph.select_node(mid)
        self.branch_state.graph_selected(mid)  # off the active path: a branch preview

    # -- what the controllers see of the window (WindowView) -----------------------------
    def status(self, text: str, ms: int) -> None:
        self.statusBar().showMessage(text, ms)

    def op_handlers(self) -> dict[str, Callable[..., None]]:
        """What each right-click entry runs, by operation id (and the few entries that are
        not operations: compare, mark, context), from the controllers that do them."""
        return {**self.actions_.menu_handlers(), **self.compares.handlers(),
                **self.tend.handlers(), **self.runs.handlers(),
                **self.context_actions.handlers()}

    def show_message_menu(self, mid: int, pos: QPoint, root: int | None = None) -> None:
        """The right-click menu of ``mid``; ``root`` is where its graph node starts (a turn
        node's first message), which archive and delete act on."""
        if self._conv is None:
            return
        available = for_message(self.store, self._conv, mid)
        whole = (root, for_whole_turn(self.store, self._conv, root)) if (
            root is not None and root != mid) else None
        menu = MessageMenu(self.actions_.availability(mid), self.op_handlers(), self,
                           marked=self.compares.marked, available=available,
                           context=self.context_actions.availability(mid), whole_node=whole)
        self.last_menu = menu
        menu.popup(pos)

    # -- settings -----------------------------------------------------------------
    def _restore(self, after_first_paint: bool = False) -> None:
        geometry = self.settings.value("window/geometry")
        if isinstance(geometry, QByteArray):
            self.restoreGeometry(geometry)
        state = self.settings.value("window/splitter")
        if isinstance(state, QByteArray):
            self.splitter.restoreState(state)
        else:
            self.splitter.setSizes([300, 560, 540])
        grouping = self.settings.value("window/grouping")
        if isinstance(grouping, str) and grouping in GROUPINGS:
            self.conversations.set_grouping(grouping)
        self.conversations.groupingChanged.connect(
            lambda key: keep_setting(self.settings, "window/grouping", key))
        chosen = remembered_or_first(self.settings, self.conversations.model.columns.ids)
        if chosen is not None and after_first_paint:
            self.conversations.select(chosen)  # the first frame shows which one is coming
            self.first_open = AfterFirstPaint(self, lambda: self.open_conversation(chosen))
        elif chosen is not None:
            self.open_conversation(chosen)

    def closeEvent(self, event: QCloseEvent) -> None:
        self.settings.setValue("window/geometry", self.saveGeometry())
        self.settings.setValue("window/splitter", self.splitter.saveState())
        self.settings.sync()
        self.follow.stop()
        self.conversations.shutdown()
        self.compares.close_window()  # its reads end before the store can close
        self.graph.shutdown()
        self.transcript.shutdown()
        self.transcript_tabs.shutdown()
        self.context_panel.shutdown()
        self.cost_line.shutdown()
        self.actions_.dialogs.shutdown()
        if self.model_job is not None:
            self.model_job.cancel()
        self.runs.cancel()
        self.ops.shutdown()  # what was asked is written before the window goes
        self.tasks.shutdown()
        self.errors.close()
        super().closeEvent(event)

    def db_path(self) -> Path:
        return self.store.db_path

