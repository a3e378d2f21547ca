"""Fork, checkpoint and rewind, written once for the menus and the command bar.

Each command runs its store operation on the window's operation runner (off the main
thread, O1), and once it is written the views are refreshed and ``then`` is given the one
line that tells the person what happened; the menus show that line in the status bar and
the command bar under its input. A refusal or failure goes to ``failed`` the same way.
"""

from __future__ import annotations

from collections.abc import Callable

from explorer.app.tending import tree_actions
from explorer.store import Store
from explorer.tree.digest import digest_text
from explorer.ui.background.op_runner import OpRunner

Then = Callable[[str], object]
Failed = Callable[[BaseException], object]


class TreeCommands:
    def __init__(self, store: Store, ops: OpRunner) -> None:
        self.store = store
        self.ops = ops

    def fork(self, conv: int, mid: int, title: str | None, then: Then, failed: Failed) -> None:
        self.ops.run(
            "Forking", lambda: self.store.fork(conv, mid, title or None),
            lambda new: then(f"forked message {mid} into conversation {new}, "
                             "a copy of the path to it"),
            failed, refresh=lambda new: new)

    def checkpoint(self, conv: int, mid: int, label: str, then: Then, failed: Failed) -> None:
        self.ops.run("Setting a checkpoint",
                     lambda: tree_actions.checkpoint(self.store, conv, label, at=mid),
                     lambda _change: then(f"checkpoint {label!r} set at message {mid}"),
                     failed)

    def rewind(self, conv: int, label: str, then: Then, failed: Failed) -> None:
        self.ops.run("Rewinding", lambda: tree_actions.rewind(self.store, conv, label),
                     lambda change: then(f"back at {label!r}. "
                                         f"{digest_text(change.changed['digest'])}"),
                     failed)
