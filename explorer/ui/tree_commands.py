"""Fork, checkpoint and rewind, written once for the menus and the command bar.

Each command does its store operation, refreshes the window's views and returns
the one line that tells the person what happened; the menus show that line in
their message box and the command bar under its input, but neither repeats the
operation itself.
"""

from __future__ import annotations

from collections.abc import Callable

from explorer.app import tree_actions
from explorer.store import Store
from explorer.tree.digest import digest_text

Refresh = Callable[[int | None], None]


class TreeCommands:
    def __init__(self, store: Store, refresh: Refresh) -> None:
        self.store = store
        self.refresh = refresh

    def fork(self, conv: int, mid: int, title: str | None) -> str:
        new = self.store.fork(conv, mid, title or None)
        self.refresh(new)
        return f"forked message {mid} into conversation {new}, a copy of the path to it"

    def checkpoint(self, conv: int, mid: int, label: str) -> str:
        tree_actions.checkpoint(self.store, conv, label, at=mid)
        self.refresh(None)
        return f"checkpoint {label!r} set at message {mid}"

    def rewind(self, conv: int, label: str) -> str:
        digest = tree_actions.rewind(self.store, conv, label).changed["digest"]
        self.refresh(None)
        return f"back at {label!r}. {digest_text(digest)}"
