"""The tending commands (T6–T8), written once for the menus, the graph's chips and the
command bar.

Each runs the operation of ``explorer.app`` that ``convo`` runs (one undoable operation in
the store) on the window's operation runner, off the main thread (O1); once it is written
the views are refreshed and ``then`` gets the change, so its summary can be shown where the
command came from: the menus ask their questions first and show it in the status bar, the
command bar takes its argument from the typed line and shows it under its input. A refusal
(``ExplorerError``) or failure goes to ``failed`` the same way.
"""

from __future__ import annotations

from collections.abc import Callable

from explorer.app.tending import redo, tree_actions, undo
from explorer.app.tending.tree_actions import Change
from explorer.store import Store, StoreError
from explorer.ui.background.op_runner import OpRunner

Then = Callable[[Change], object]
Failed = Callable[[BaseException], object]


class TendCommands:
    def __init__(self, store: Store, ops: OpRunner) -> None:
        self.store = store
        self.ops = ops

    def _run(self, what: str, work: Callable[[], Change], then: Then, failed: Failed) -> None:
        self.ops.run(what, work, then, failed)

    def archive(self, mid: int, then: Then, failed: Failed) -> None:
        self._run("Archiving", lambda: tree_actions.archive(self.store, mid), then, failed)

    def unarchive(self, mid: int, then: Then, failed: Failed) -> None:
        self._run("Unarchiving", lambda: tree_actions.unarchive(self.store, mid), then, failed)

    def delete(self, mid: int, then: Then, failed: Failed, *,
               with_checkpoints: bool = False) -> None:
        """Refused (``StoreError`` naming ``--with-checkpoints``) when checkpoints sit on
        the branch and ``with_checkpoints`` is not given."""
        self._run("Deleting", lambda: tree_actions.delete(
            self.store, mid, with_checkpoints=with_checkpoints), then, failed)

    def star(self, mid: int, then: Then, failed: Failed) -> None:
        self._run("Preferring", lambda: tree_actions.star(self.store, mid), then, failed)

    def label(self, mid: int, name: str, then: Then, failed: Failed) -> None:
        self._run("Naming", lambda: tree_actions.label(self.store, mid, name), then, failed)

    def note(self, mid: int, text: str, then: Then, failed: Failed) -> None:
        self._run("Noting", lambda: tree_actions.note(self.store, mid, text), then, failed)

    def merge(self, conv: int, mid: int, then: Then, failed: Failed) -> None:
        """Merge the branch ending at ``mid`` back after the tip, with the free digest."""
        self._run("Merging", lambda: self._merge(conv, mid), then, failed)

    def _merge(self, conv: int, mid: int) -> Change:
        tip = self.store.conversation(conv).tip_id
        if tip is None:
            raise StoreError("this conversation has no tip to merge after")
        from explorer.app.tending import merge  # the summary's estimator loads with the first merge

        return merge.merge(self.store, mid, tip)[0]

    def unfold(self, conv: int, points: list[int], then: Then, failed: Failed) -> None:
        """Unfold what is archived at the branch points (a "▸ N archived" chip)."""
        self._run("Unfolding", lambda: tree_actions.unarchive_at(self.store, conv, points),
                  then, failed)

    def restore_at(self, conv: int, points: list[int], then: Then, failed: Failed) -> None:
        """Restore every deletion at the branch points (a "✕ N deleted · undo" chip), each
        its own undoable operation, in turn until one fails; ``then`` gets the last."""
        self._run("Restoring", lambda: self._restore_all(conv, points), then, failed)

    def _restore_all(self, conv: int, points: list[int]) -> Change:
        at = set(points)
        done: Change | None = None
        for t in [t for t in self.store.tombstones(conv) if t.parent_id in at]:
            done = undo.restore_deleted(self.store, t.id)
        if done is None:
            raise StoreError("nothing deleted there any more")
        return done

    def undo(self, conv: int, then: Then, failed: Failed) -> None:
        self._run("Undoing", lambda: undo.undo(self.store, conv), then, failed)

    def redo(self, conv: int, then: Then, failed: Failed) -> None:
        self._run("Redoing", lambda: redo.redo(self.store, conv), then, failed)

    def undo_text(self, conv: int | None) -> str:
        """The Edit menu's label: what Undo would take back ("Undo" alone: nothing)."""
        ops = [o for o in self.store.operations(conv, 20) if o.state == "done"] if (
            conv is not None) else []
        return f"Undo {ops[0].kind}" if ops else "Undo"

    def redo_text(self, conv: int | None) -> str:
        """The Edit menu's label: what Redo would make again ("Redo" alone: nothing)."""
        kind = redo.redo_kind(self.store, conv) if conv is not None else None
        return f"Redo {kind}" if kind else "Redo"
