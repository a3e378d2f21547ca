"""The tending commands (T6–T8), written once for the menus, the graph's chips and the
command bar.

Each does the operation of ``explorer.app`` that ``convo`` does (one undoable
operation in the store), refreshes the window's views and returns the change, so
its summary can be shown where the command came from: the menus ask their
questions first and show it in the status bar, the command bar takes its
argument from the typed line and shows it under its input. Errors are raised
(``ExplorerError``) for the caller to show the same way.
"""

from __future__ import annotations

from collections.abc import Callable
from functools import partial

from explorer.app import redo, tree_actions, undo
from explorer.app.tree_actions import Change
from explorer.store import Store, StoreError

Refresh = Callable[[], None]


class TendCommands:
    def __init__(self, store: Store, refresh: Refresh) -> None:
        self.store = store
        self.refresh = refresh

    def _done(self, change: Change) -> Change:
        self.refresh()
        return change

    def archive(self, mid: int) -> Change:
        return self._done(tree_actions.archive(self.store, mid))

    def unarchive(self, mid: int) -> Change:
        return self._done(tree_actions.unarchive(self.store, mid))

    def delete(self, mid: int, with_checkpoints: bool = False) -> Change:
        """Refused (``StoreError`` naming ``--with-checkpoints``) when checkpoints sit on
        the branch and ``with_checkpoints`` is not given."""
        return self._done(tree_actions.delete(self.store, mid,
                                              with_checkpoints=with_checkpoints))

    def star(self, mid: int) -> Change:
        return self._done(tree_actions.star(self.store, mid))

    def label(self, mid: int, name: str) -> Change:
        return self._done(tree_actions.label(self.store, mid, name))

    def note(self, mid: int, text: str) -> Change:
        return self._done(tree_actions.note(self.store, mid, text))

    def merge(self, conv: int, mid: int) -> Change:
        """Merge the branch ending at ``mid`` back after the tip, with the free digest."""
        tip = self.store.conversation(conv).tip_id
        if tip is None:
            raise StoreError("this conversation has no tip to merge after")
        from explorer.app import merge  # the summary's estimator loads with the first merge

        return self._done(merge.merge(self.store, mid, tip)[0])

    def unfold(self, conv: int, points: list[int]) -> Change:
        """Unfold what is archived at the branch points (a "▸ N archived" chip)."""
        return self._done(tree_actions.unarchive_at(self.store, conv, points))

    def deleted_at(self, conv: int, points: list[int]) -> list[Callable[[], Change]]:
        """One restore per deletion at the branch points (a "✕ N deleted · undo" chip),
        each its own undoable operation, for the caller to run until one fails."""
        at = set(points)
        return [partial(self._restore, t.id) for t in self.store.tombstones(conv)
                if t.parent_id in at]

    def _restore(self, tombstone: int) -> Change:
        return self._done(undo.restore_deleted(self.store, tombstone))

    def undo(self, conv: int) -> Change:
        return self._done(undo.undo(self.store, conv))

    def redo(self, conv: int) -> Change:
        return self._done(redo.redo(self.store, conv))

    def undo_text(self, conv: int | None) -> str:
        """The Edit menu's label: what Undo would take back ("Undo" alone: nothing)."""
        ops = [o for o in self.store.operations(conv, 20) if o.state == "done"] if (
            conv is not None) else []
        return f"Undo {ops[0].kind}" if ops else "Undo"

    def redo_text(self, conv: int | None) -> str:
        """The Edit menu's label: what Redo would make again ("Redo" alone: nothing)."""
        kind = redo.redo_kind(self.store, conv) if conv is not None else None
        return f"Redo {kind}" if kind else "Redo"
