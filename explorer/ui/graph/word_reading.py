"""Reading the words shown in branch points' boxes, off the main thread, as boxes ask.

A box drawn on screen notes the branch point it needs words for (see
:mod:`explorer.ui.graph.sibling_words`); the notes are read on the task runner one read at a
time, the next read taking what was noted meanwhile. Words read for a tree that is no longer
shown are dropped.
"""

from __future__ import annotations

from explorer.store import Store
from explorer.ui.background.tasks import Task, TaskRunner
from explorer.ui.graph.model import GraphModel
from explorer.ui.graph.sibling_words import SiblingWords, read_sibling_words
from explorer.ui.graph.view import GraphView


class BoxWordReader:
    """The one running read of box words for the tree a :class:`GraphView` shows."""

    def __init__(self, store: Store, runner: TaskRunner, view: GraphView) -> None:
        self.store = store
        self.runner = runner
        self.view = view
        self._job: Task | None = None

    @property
    def busy(self) -> bool:
        """Box words are being read, or wait to be."""
        item = self.view.item
        words = item.sibling_words if item is not None else None
        return self._job is not None or (words is not None and words.waiting > 0)

    def attach(self, model: GraphModel) -> None:
        """Give the view's new item the words of ``model``'s branch points, read on demand."""
        if self.view.item is not None:
            self.view.item.sibling_words = SiblingWords(model, self.read)

    def read(self) -> None:
        """Read the words the boxes noted, unless a read is running (it reads them next)."""
        item = self.view.item
        words = item.sibling_words if item is not None else None
        if self._job is not None or words is None or self.runner.closed:
            return
        groups = words.take()
        if not groups:
            return
        store = self.store
        task = self.runner.run(lambda ticket: read_sibling_words(store, groups, ticket.check),
                               lane_kind="graph-words")
        task.finished.connect(lambda got, w=words: self._on_words(w, got))
        task.ended.connect(lambda t=task: self._ended(t))
        self._job = task

    def cancel(self) -> None:
        """Stop reading words (a new tree leaves a read running: its words are dropped)."""
        if self._job is not None:
            self._job.cancel()
            self._job = None

    def _on_words(self, words: SiblingWords, got: object) -> None:
        item = self.view.item
        if item is None or item.sibling_words is not words or not isinstance(got, dict):
            return  # a newer tree is shown: these words were for the old one
        words.fill(got)
        item.forget_texts(got)

    def _ended(self, task: Task) -> None:
        if task is self._job:
            self._job = None
            self.read()
