"""View → Follow live session: the open conversation's session file, polled as an agent writes it.

A timer asks the window's task runner for one poll at a time
(:func:`explorer.app.importing.follow.poll`, a sync of that one file through the store's one
writer); nothing is read or written on the main thread. When a poll stored new messages the
graph and the transcript reload, keeping what the person looks at: the transcript stays where
it is being read, the graph keeps its view and selection. Only a person who is at the end (the
transcript scrolled to the bottom) is taken along: the transcript scrolls to the new end, and
when the tip was selected the new tip is selected instead. A strip over the transcript says
that the session is followed, what came in last, and has a Stop button; opening another
conversation stops following. Each message that comes in is marked "live" in both views until
it fades or is selected (:mod:`explorer.ui.live_marks`).
"""

from __future__ import annotations

import time
from typing import TYPE_CHECKING

from PySide6.QtCore import QObject, Qt, QTimer, Signal
from PySide6.QtGui import QAction, QKeySequence
from PySide6.QtWidgets import QFrame, QHBoxLayout, QLabel, QPushButton, QWidget

from explorer.tree.errors import ExplorerError
from explorer.ui.background.tasks import Task, Ticket
from explorer.ui.elided_label import ElidedLabel
from explorer.ui.live_marks import LiveMarks
from explorer.ui.window.view import WindowView

if TYPE_CHECKING:
    from explorer.app.importing.follow import Followed, Poll
    from explorer.ui.graph import TreeGraphWidget
    from explorer.ui.transcript import TranscriptView
    from explorer.ui.window.branch_state import BranchState

POLL_MS = 500
"""How often the file is looked at: new turns show within a second."""
END_SLACK = 4
"""Pixels from the bottom that still count as "at the end"."""


class FollowBar(QFrame):
    """The strip over the transcript while a session is followed: a live dot, news, Stop."""

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setObjectName("follow-bar")
        self.setStyleSheet("QFrame#follow-bar { background:#e6f7ee; border:1px solid #2f9e44;"
                           " border-radius:4px; } QLabel { color:#1b4d2b; }")
        self.dot = QLabel("●", self)
        self.dot.setStyleSheet("color:#2f9e44; font-size:14px;")
        self.title = ElidedLabel()
        self.detail = ElidedLabel()
        self.stop_button = QPushButton("Stop following", self)
        layout = QHBoxLayout(self)
        layout.setContentsMargins(8, 3, 8, 3)
        layout.addWidget(self.dot)
        layout.addWidget(self.title, 1)
        layout.addWidget(self.detail, 2)
        layout.addWidget(self.stop_button)


class LiveFollow(QObject):
    """Following the open conversation's session file; one poll in flight at a time.

    It is given the panes it keeps in step (the graph, the transcript, the branch
    preview's state) and sees the rest of the window through its :class:`WindowView`.
    """

    polled = Signal(object)  # the Poll, after the views were told

    def __init__(self, view: WindowView, graph: TreeGraphWidget, transcript: TranscriptView,
                 branches: BranchState) -> None:
        super().__init__(view.window())
        self.view = view
        self.graph, self.transcript, self.branches = graph, transcript, branches
        self.bar = FollowBar()
        self.bar.hide()
        self.bar.stop_button.clicked.connect(self.stop)
        self.action = QAction("Follow live session", view.window())
        self.action.setObjectName("follow_live_session")
        self.action.setCheckable(True)
        self.action.setShortcut(QKeySequence("Ctrl+L"))
        self.action.setShortcutContext(Qt.ShortcutContext.WindowShortcut)
        self.action.toggled.connect(self._toggled)
        self.timer = QTimer(self)
        self.timer.setInterval(POLL_MS)
        self.timer.timeout.connect(self.poll_now)
        self.followed: Followed | None = None
        self.task: Task | None = None
        self.new_messages = 0
        self._land_on_end = False
        self._select_tip: int | None = None
        self._placing = False  # the window itself selects the new tip: not "seen"
        self.marks = LiveMarks(self)
        self.marks.changed.connect(graph.set_live_marks)
        self.marks.changed.connect(transcript.set_live_marks)
        transcript.messageSelected.connect(self._seen)
        graph.nodeSelected.connect(self._seen)
        transcript.loaded.connect(self._transcript_loaded)

    @property
    def following(self) -> bool:
        return self.followed is not None

    # -- starting and stopping ---------------------------------------------------------
    def _toggled(self, on: bool) -> None:
        if on and not self.following:
            self.start()
        elif not on and self.following:
            self.stop()

    def start(self) -> bool:
        """Follow the open conversation's session file; says why not when it cannot."""
        from explorer.app.importing.follow import (  # not before the first frame
            NotFollowable,
            followable,
        )

        conv = self.view.conversation_id
        try:
            if conv is None:
                raise NotFollowable("open a conversation read from an agent's session first")
            followed = followable(self.view.store, conv)
        except (NotFollowable, ExplorerError) as exc:
            self._set_checked(False)
            self.view.questions.tell("Follow", str(exc))
            return False
        self.followed = followed
        self.new_messages = 0
        self.bar.title.set_full(f"Following {followed.agent} session {followed.path.name}")
        self.bar.detail.set_full("waiting for the agent to write…")
        self.bar.setToolTip(str(followed.path))
        self.bar.show()
        self._set_checked(True)
        self.timer.start()
        self.poll_now()
        return True

    def stop(self) -> None:
        """Stop polling; a poll under way is cancelled and reports nothing."""
        self.timer.stop()
        if self.task is not None:
            self.task.cancel()
            self.task = None
        self.followed = None
        self._land_on_end = False
        self._select_tip = None
        self.marks.clear()
        self.bar.hide()
        self._set_checked(False)

    def _set_checked(self, on: bool) -> None:
        self.action.blockSignals(True)
        self.action.setChecked(on)
        self.action.blockSignals(False)

    # -- polling -----------------------------------------------------------------------
    def poll_now(self) -> None:
        """Start one poll unless one is still running (a slow disk never piles them up)."""
        followed = self.followed
        if followed is None or (self.task is not None and self.task.running):
            return
        if self.view.conversation_id != followed.conversation_id:
            self.stop()
            return
        store = self.view.store
        from explorer.app.importing.follow import Poll, poll  # not before the first frame

        def job(ticket: Ticket) -> Poll:
            return poll(store, followed, ticket.is_cancelled)

        def done(result: object) -> None:
            if isinstance(result, Poll):
                self._polled(followed, result)

        def failed(error: BaseException) -> None:
            self._failed(followed, error)

        task = self.view.tasks.run(job, on_done=done, on_failed=failed)
        task.ended.connect(lambda t=task: self._ended(t))
        self.task = task

    def _ended(self, task: Task) -> None:
        if task is self.task:
            self.task = None

    def _failed(self, followed: Followed, error: BaseException) -> None:
        if followed is self.followed:
            self.bar.detail.set_full(f"could not read the session: {error}")

    def _polled(self, followed: Followed, result: Poll) -> None:
        if followed is not self.followed or self.view.conversation_id != followed.conversation_id:
            return
        if result.errors:
            self.bar.detail.set_full(str(result.errors[0]))
        if result.added:
            self.new_messages += result.added
            self.marks.add(result.new_ids)
            self._show_new(result)
        self.polled.emit(result)

    def _show_new(self, result: Poll) -> None:
        """Reload the views; take the person along only when they are at the end."""
        conv = self.view.conversation_id
        if conv is None:
            return
        stamp = time.strftime("%H:%M:%S")
        self.bar.detail.set_full(f"{result.added} new message(s) at {stamp} · "
                                f"{self.new_messages} since following began")
        at_end = self.at_end()
        selected = self.transcript.selected()
        old_tip = self.transcript.tip
        moved = result.tip is not None and result.tip != old_tip
        # the list's message count and newest date, the graph, the status line
        self.view.refresh_views(frozenset({"conversations", "graph"}))
        if self.branches.previewing:
            return  # the person reads another branch: the new turns wait in the graph
        self._land_on_end = at_end
        self._select_tip = (result.tip if at_end and moved and selected in (None, old_tip)
                            else None)
        self.transcript.load_path(conv)

    def _seen(self, mid: int) -> None:
        if not self._placing:
            self.marks.seen(mid)

    def at_end(self) -> bool:
        """True when the transcript shows its last row (or nothing yet)."""
        bar = self.transcript.verticalScrollBar()
        return bar.value() >= bar.maximum() - END_SLACK

    def _transcript_loaded(self, conv_id: int) -> None:
        followed = self.followed
        if followed is not None and conv_id != followed.conversation_id:
            self.stop()  # another conversation was opened
            return
        if not self._land_on_end:
            return
        self._land_on_end = False
        tip, self._select_tip = self._select_tip, None
        if tip is not None and self.transcript.has_message(tip):
            self._placing = True
            try:
                self.transcript.select(tip)
                self.graph.select_node(tip)
                self.graph.center_on(tip)
            finally:
                self._placing = False
        self.transcript.scroll_to_end()
