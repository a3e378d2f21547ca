"""The window's tending actions: archive, delete, star, label, note, merge back, undo, redo
(T6–T8).

Each calls the same operation of ``explorer.app`` that ``convo`` does, then refreshes
the views; Edit → Undo takes back the last tree action of the open conversation.
"""

from __future__ import annotations

from collections.abc import Callable
from functools import partial

from explorer.app import merge, redo, tree_actions, undo
from explorer.app.message_actions import Availability
from explorer.app.tend_menu import tending_availability
from explorer.app.tree_actions import Change
from explorer.store import NotFound, StoreError
from explorer.ui.tend_view import Asks, TendView

WITH_CHECKPOINTS = "Delete it with its checkpoints"


class TendActions:
    def __init__(self, view: TendView, asks: Asks) -> None:
        self.view = view
        self.asks = asks
        self.last_change: Change | None = None

    def availability(self, mid: int) -> dict[str, Availability]:
        conv = self.view.conversation_id
        return tending_availability(self.view.store, conv, mid) if conv is not None else {}

    def handlers(self) -> dict[str, Callable[..., None]]:
        return {"archive": self.archive, "unarchive": self.unarchive, "delete": self.delete,
                "star": self.star, "label": self.label, "note": self.note,
                "merge": self.merge}

    def _do(self, title: str, fn: Callable[[], Change]) -> Change | None:
        try:
            change = fn()
        except (StoreError, NotFound) as e:
            self.asks.fail(str(e.args[0]) if isinstance(e, NotFound) and e.args
                                 else str(e))
            return None
        self.last_change = change
        self.view.refresh()
        self.asks.tell(title, change.summary)
        return change

    def archive(self, mid: int) -> None:
        self._do("Archive", lambda: tree_actions.archive(self.view.store, mid))

    def unarchive(self, mid: int) -> None:
        self._do("Unarchive", lambda: tree_actions.unarchive(self.view.store, mid))

    def delete(self, mid: int) -> None:
        store = self.view.store
        try:
            self.last_change = tree_actions.delete(store, mid)
        except StoreError as e:
            if "--with-checkpoints" not in str(e):
                self.asks.fail(str(e))
                return
            answer = self.asks.ask_item("Delete branch", str(e).split(";")[0],
                                              ["Keep the branch", WITH_CHECKPOINTS])
            if answer != WITH_CHECKPOINTS:
                return
            self._do("Delete", lambda: tree_actions.delete(store, mid, with_checkpoints=True))
            return
        self.view.refresh()
        self.asks.tell("Delete", self.last_change.summary + " — Edit → Undo restores it")

    def star(self, mid: int) -> None:
        self._do("Prefer path", lambda: tree_actions.star(self.view.store, mid))

    def label(self, mid: int) -> None:
        current = self.view.store.marks(self.view.conversation_id or 0).labels.get(mid, "")
        name = self.asks.ask_text("Name branch", "Branch name (empty clears it):", current)
        if name is not None:
            self._do("Name branch", lambda: tree_actions.label(self.view.store, mid, name))

    def note(self, mid: int) -> None:
        current = self.view.store.marks(self.view.conversation_id or 0).notes.get(mid, "")
        text = self.asks.ask_multiline("Note", "Note on this message (empty clears it):",
                                             current)
        if text is not None:
            self._do("Note", lambda: tree_actions.note(self.view.store, mid, text))

    def merge(self, mid: int) -> None:
        """Merge the branch ending at ``mid`` back after the tip, with the free digest."""
        conv = self.view.conversation_id
        tip = self.view.store.conversation(conv).tip_id if conv is not None else None
        if tip is None:
            return
        self._do("Merge back", lambda: merge.merge(self.view.store, mid, tip)[0])

    def open_marker(self, points: list[int], kind: str) -> None:
        """A click on a branch point's chip: "▸ N archived" unfolds what is folded there,
        "✕ N deleted · undo" restores what was deleted there (each undoable again)."""
        conv = self.view.conversation_id
        if conv is None or not points:
            return
        store = self.view.store
        if kind == "archived":
            self._do("Unarchive", lambda: tree_actions.unarchive_at(store, conv, points))
            return
        stones = [t.id for t in store.tombstones(conv) if t.parent_id in set(points)]
        for tid in stones:
            if self._do("Restore", partial(undo.restore_deleted, store, tid)) is None:
                return

    def undo(self) -> None:
        conv = self.view.conversation_id
        if conv is None:
            return
        self._do("Undo", lambda: undo.undo(self.view.store, conv))

    def redo(self) -> None:
        conv = self.view.conversation_id
        if conv is None:
            return
        self._do("Redo", lambda: redo.redo(self.view.store, conv))

    def redo_text(self) -> str:
        """The Edit menu's label: what Redo would make again ("Redo" alone: nothing)."""
        conv = self.view.conversation_id
        kind = redo.redo_kind(self.view.store, conv) if conv is not None else None
        return f"Redo {kind}" if kind else "Redo"

    def undo_text(self) -> str:
        """The Edit menu's label: what Undo would take back."""
        conv = self.view.conversation_id
        ops = [o for o in self.view.store.operations(conv, 20) if o.state == "done"] if (
            conv is not None) else []
        return f"Undo {ops[0].kind}" if ops else "Undo"
