"""The tree graph as one widget: the view, its minimap, and loading on the task runner.

Selections made here by the person are announced with ``nodeSelected``; selections
made through ``select_node`` (say, by the transcript) are not, so two views kept in
sync never echo each other.
"""

from __future__ import annotations

from PySide6.QtCore import QEvent, QObject, QPoint, QPointF, QTimer, Signal
from PySide6.QtGui import QAction, QCloseEvent, QKeySequence, QShowEvent
from PySide6.QtWidgets import QHBoxLayout, QVBoxLayout, QWidget

from explorer.store import Store
from explorer.ui.background.tasks import Task, TaskRunner
from explorer.ui.graph.compare_marks import mark_indices
from explorer.ui.graph.focus import OPEN_SCALE, GraphFocus
from explorer.ui.graph.framing import (
    MINIMAP_MARGIN,
    band_scale,
    covered_below,
    frame_whole,
    place_overlays,
)
from explorer.ui.graph.item import GraphItem
from explorer.ui.graph.legend import Legend, ModeSwitch
from explorer.ui.graph.minimap import Minimap
from explorer.ui.graph.palette import palette_for_application
from explorer.ui.graph.view import GraphView
from explorer.ui.graph.word_reading import BoxWordReader
from explorer.ui.graph.worker import GraphData, Mode, graph_job

FIT_MIN_SCALE = 0.75  # a tree that fits only below this opens at 100 % on its tip
FIT_SLACK = 0.97  # Fit leaves a hair of room, so no box touches the pane's edge
MODE_SHORTCUT = "Ctrl+M"


class TreeGraphWidget(QWidget):
    nodeSelected = Signal(int)
    nodeActivated = Signal(int)
    contextMenuRequested = Signal(int, QPoint)
    loaded = Signal(int)  # conversation id, once its graph is on screen
    loadFailed = Signal(int, str)

    modeChanged = Signal(str)
    chipClicked = Signal(object, str)  # branch point message ids, "archived" or "deleted"

    def __init__(
        self, store: Store, parent: QWidget | None = None, mode: Mode = "turns",
        runner: TaskRunner | None = None,
    ) -> None:
        super().__init__(parent)
        self.store = store
        # The window's one runner when given; a widget on its own gets a runner of its own.
        self._own_runner = runner is None
        self.runner = runner if runner is not None else TaskRunner(self, 1, "graph-layout")
        self.mode: Mode = mode
        self.view = GraphView(self)
        self.minimap = Minimap(self.view, self.view)
        self.legend = Legend(self.view)
        self.switch = ModeSwitch(self)  # above the view, never over a node
        self.switch.set_mode(mode)
        self.switch.modeChosen.connect(self.set_mode)
        self.mode_action = QAction("Message view", self)
        self.mode_action.setCheckable(True)
        self.mode_action.setChecked(mode == "messages")
        self.mode_action.setShortcut(QKeySequence(MODE_SHORTCUT))
        self.mode_action.setObjectName("message_view")
        self.mode_action.toggled.connect(
            lambda on: self.set_mode("messages" if on else "turns"))
        self._expanded: set[int] = set()
        self.focus = GraphFocus(self.view, lambda: self.is_loading)
        self._compare_marks: list[int] = []
        self._live_marks: dict[int, float] = {}
        self._cost_chips: dict[int, str] = {}
        self._auto_view = False  # re-fit on resize until the person moves the view
        layout = QVBoxLayout(self)
        layout.setContentsMargins(0, 0, 0, 0)
        layout.setSpacing(2)
        heading = QHBoxLayout()
        heading.setContentsMargins(MINIMAP_MARGIN, 2, MINIMAP_MARGIN, 0)
        heading.addWidget(self.switch)
        heading.addStretch(1)
        layout.addLayout(heading)
        layout.addWidget(self.view)
        self.data: GraphData | None = None
        self._conv: int | None = None
        self._job: Task | None = None
        self.words = BoxWordReader(store, self.runner, self.view)
        self._keep_view = False
        self.view.nodeSelected.connect(self._on_view_selected)
        self.view.runClicked.connect(self.expand_run)
        self.view.chipClicked.connect(self._on_chip)
        self.view.nodeActivated.connect(self.nodeActivated)
        self.view.contextMenuRequested.connect(
            lambda mid, pos: self.contextMenuRequested.emit(self.focus.chosen_in(mid), pos))
        self.view.installEventFilter(self)
        self.view.viewport().installEventFilter(self)
        self.view.userNavigated.connect(self._stop_auto_view)
        self._apply_palette()

    # -- loading --------------------------------------------------------------
    @property
    def conversation_id(self) -> int | None:
        return self._conv

    @property
    def is_loading(self) -> bool:
        return self._job is not None

    @property
    def reading_words(self) -> bool:
        """Branch points' box words are being read, or wait to be."""
        return self.words.busy

    def load_conversation(self, conv_id: int) -> None:
        """Show ``conv_id``'s tree; the work runs on a worker and ``loaded`` says when it is in."""
        self._keep_view = conv_id == self._conv and self.data is not None
        if conv_id != self._conv:
            self._expanded.clear()
            self.focus.forget()
            self._cost_chips = {}  # the next conversation's come with its cost
        self._conv = conv_id
        self._start(conv_id)

    def set_mode(self, mode: Mode) -> None:
        """Turns or messages; the selection and the tip stay where they were (V1)."""
        if mode == self.mode:
            return
        self.mode = mode
        self.switch.set_mode(mode)
        self.mode_action.blockSignals(True)
        self.mode_action.setChecked(mode == "messages")
        self.mode_action.blockSignals(False)
        self.legend.set_mode(mode)
        if self._conv is not None:
            chosen = self.focus.mid
            self._keep_view = False
            self.focus.pending_select = chosen
            self.focus.pending_center = chosen if chosen is not None else self._tip_mid()
            self._start(self._conv)
        self.modeChanged.emit(mode)

    def _on_chip(self, i: int, kind: str) -> None:
        """A tending chip was clicked: announce its branch points (message ids) and kind."""
        data = self.data
        if data is not None:
            self.chipClicked.emit(list(data.model.tending.points.get(i, ())), kind)

    def expand_run(self, i: int) -> None:
        """Show the turns a folded run holds (they stay shown until another conversation)."""
        data = self.data
        if data is None or data.turn_view is None or self._conv is None:
            return
        proj = data.turn_view.projection
        if not 0 <= i < len(proj.nodes) or not proj.nodes[i].is_run:
            return
        heads = [proj.tree.turns[t].head for t in proj.nodes[i].turns]
        self._expanded.update(int(str(h)) for h in heads)
        self._keep_view = True
        self.focus.pending_center = int(str(heads[len(heads) // 2]))
        self._start(self._conv, previous=True)

    def _tip_mid(self) -> int | None:
        m = self.view.model
        return None if m is None or m.tip < 0 else int(m.ids[m.tip])

    def _on_view_selected(self, mid: int) -> None:
        self.focus.mid = mid
        self.nodeSelected.emit(mid)

    def refresh(self) -> None:
        """Read the current conversation again (a new tip, branch or mark), keeping the view."""
        if self._conv is not None:
            self._keep_view = self.data is not None
            if self.selected_node() is not None and self.focus.pending_select is None:
                self.focus.pending_select = self.selected_node()
            self._start(self._conv)

    def clear(self) -> None:
        self._cancel()
        self.words.cancel()
        self._conv = None
        self.data = None
        self.view.set_item(None)
        self.minimap.update()

    def _start(self, conv_id: int, previous: bool = False) -> None:
        self._cancel()
        if self.runner.closed:
            return  # the window is closing: a late palette change must not start a load
        earlier = self.data.turn_view if previous and self.data is not None else None
        job = graph_job(self.store, conv_id, palette_for_application(), self.mode,
                        self._expanded, earlier)
        task = self.runner.run(job, lane_kind="graph")
        task.finished.connect(lambda data, t=task: self._on_done(t, data))
        task.failed.connect(lambda error, t=task: self._on_failed(t, error))
        task.ended.connect(lambda t=task: self._on_ended(t))
        self._job = task

    def _cancel(self) -> None:
        if self._job is not None:
            self._job.cancel()
            self._job = None

    def shutdown(self) -> None:
        """Cancel any load and wait for it: nothing of this widget runs after this returns."""
        self._cancel()
        self.words.cancel()
        if self._own_runner:  # a shared runner is shut down (and waited for) by its owner
            self.runner.shutdown()

    def _on_ended(self, task: Task) -> None:
        """A load that stopped itself (cancelled inside the job) is no longer loading."""
        if task is self._job:
            self._job = None

    def _on_done(self, task: Task, data: object) -> None:
        if task is not self._job or not isinstance(data, GraphData):
            return
        self._job = None
        center = self.view.mapToScene(self.view.viewport().rect().center())
        scale = self.view.scale_factor()
        previous = self.data
        self.data = data
        self.view.set_item(GraphItem(data.model, data.geometry, palette_for_application()))
        self.set_compare_marks(self._compare_marks)
        self.set_live_marks(self._live_marks)
        self.set_cost_chips(self._cost_chips)
        self.words.attach(data.model)
        if self._keep_view and previous is not None:
            self.view.set_scale(scale)
            self.view.centerOn(center)
        else:
            self._initial_view()
        self.focus.apply_pending()
        self.minimap.update()
        self._place_overlays()
        self.loaded.emit(data.conversation_id)

    def _on_failed(self, task: Task, error: BaseException) -> None:
        if task is self._job:
            self._job = None
            self.loadFailed.emit(self._conv if self._conv is not None else -1,
                                 f"{type(error).__name__}: {error}")

    def _stop_auto_view(self) -> None:
        self._auto_view = False

    def _initial_view(self) -> None:
        """The whole tree when it reads at 75 % or more in the band the overlays leave free;
        otherwise 100 % on the tip, slid toward the tree and clear of the overlays."""
        self._auto_view = True
        self.view.fit_all()
        model = self.view.model
        if model is None or self.view.item is None:
            return
        bottom = self._covered_below()
        fit = band_scale(self.view, bottom)
        if fit >= FIT_MIN_SCALE:
            frame_whole(self.view, min(fit, OPEN_SCALE), bottom)
            return
        self.view.set_scale(OPEN_SCALE)
        focus = model.tip if model.tip >= 0 else (model.roots[0] if len(model) else -1)
        self.view.open_on_node(focus, top=0, bottom=bottom)

    def _covered_below(self) -> int:
        self._place_overlays()
        return covered_below(self.view, (self.legend, self.minimap))

    # -- selection and focus --------------------------------------------------
    def set_compare_marks(self, mids: list[int]) -> None:
        """Show which messages are marked for "compare marked" (numbered in marking order)."""
        self._compare_marks = list(mids)
        item = self.view.item
        if item is not None:
            item.compare_marks = mark_indices(item.model, self._compare_marks)
            item.update()

    def set_live_marks(self, marks: dict[int, float]) -> None:
        """Halo the messages that came in while following (``ui.importing.live_marks``)."""
        self._live_marks = dict(marks)
        item = self.view.item
        if item is not None:
            index = item.model.index
            item.live_marks = [(index[m], s) for m, s in marks.items() if m in index]
            item.update()

    def set_cost_chips(self, by_message: dict[int, str]) -> None:
        """A branch's cost on the node it starts at, the path's at the tip (C5)."""
        self._cost_chips = dict(by_message)
        item = self.view.item
        if item is not None:
            index = item.model.index
            item.cost_chips = {index[m]: t for m, t in by_message.items() if m in index}
            item.update()

    def live_marked_nodes(self) -> list[tuple[int, float]]:
        return [] if self.view.item is None else list(self.view.item.live_marks)

    def compare_marked_nodes(self) -> list[tuple[int, int]]:
        return [] if self.view.item is None else list(self.view.item.compare_marks)

    def node_root(self, mid: int) -> int:
        """The first message of ``mid``'s node. A turn node is named by its last message;
        archiving or deleting it acts on the whole turn, from here."""
        model = self.view.model
        node = model.index.get(mid, -1) if model is not None else -1
        if model is None or node < 0:
            return mid
        root = mid
        for m in reversed(self.store.path_ids(mid)[:-1]):
            if model.index.get(m, -2) != node:
                break
            root = m
        return root

    def selected_node(self) -> int | None:
        """The selected message: in the turn view, the one chosen inside the selected turn."""
        return self.focus.selected()

    def select_node(self, mid: int) -> bool:
        """Select a message without announcing it; False if it is not in this tree."""
        return self.focus.select(mid)

    def center_on(self, mid: int) -> bool:
        """Centre the view on a message, zooming in to read it when it is too small to see."""
        self._auto_view = False
        return self.focus.center_on(mid)

    def fit(self) -> None:
        """The whole tree in the band the legend and the minimap leave free."""
        self._auto_view = False
        self.view.fit_all()
        if self.view.item is not None:
            bottom = self._covered_below()
            frame_whole(self.view, band_scale(self.view, bottom) * FIT_SLACK, bottom)

    def node_position(self, mid: int) -> QPointF | None:
        """Scene centre of a message's node (for tests and for placing popups)."""
        model = self.view.model
        i = -1 if model is None else model.index.get(mid, -1)
        return None if model is None or i < 0 else QPointF(model.xs[i], model.ys[i])

    # -- housekeeping ---------------------------------------------------------
    def _apply_palette(self) -> None:
        self.view.setBackgroundBrush(palette_for_application().background)

    def changeEvent(self, event: QEvent) -> None:
        if event.type() in (QEvent.Type.PaletteChange, QEvent.Type.ApplicationPaletteChange):
            self._apply_palette()
            if not self.runner.closed:  # a closed window's graph is not laid out again
                self.refresh()
        super().changeEvent(event)

    def eventFilter(self, watched: QObject, event: QEvent) -> bool:
        if watched in (self.view, self.view.viewport()) and event.type() in (
                QEvent.Type.Resize, QEvent.Type.Show):
            self._place_overlays()
            if watched is self.view.viewport() and self._auto_view and not self.is_loading:
                QTimer.singleShot(0, self._refit)
        return super().eventFilter(watched, event)

    def _refit(self) -> None:
        """The pane got its final size after the tree came in: frame it again."""
        if not self._auto_view or self.view.model is None:
            return
        self._initial_view()
        focus = self.focus.mid if self.focus.mid is not None else self._tip_mid()
        if focus is not None and self.view.scale_factor() >= OPEN_SCALE * 0.99:
            i = self.view.model.index.get(focus, -1)
            if i >= 0:
                self.view.ensure_visible(i)

    def showEvent(self, event: QShowEvent) -> None:
        super().showEvent(event)
        QTimer.singleShot(0, self._place_overlays)  # after the window's final geometry

    def _place_overlays(self) -> None:
        place_overlays(self.view, self.legend, self.minimap)

    def closeEvent(self, event: QCloseEvent) -> None:
        self.shutdown()
        super().closeEvent(event)
