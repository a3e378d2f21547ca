"""What an operation is: one declaration that every place offering it reads (O1).

An operation changes a conversation's tree, calls a model, or moves conversations in or
out. Its declaration names it once — the stable id, the menu text and shortcut, the
command bar's word, the command line's verb — and says where it is offered in the window
(the menu bar, the right-click menu) or why it is not, and why it has no verb where it has
none. The window's menus take their texts and shortcuts from here, ``convo ops`` lists the
same table, and a test holds the menus, the right-click menu, the command bar and the
command line to exactly this set.
"""

from __future__ import annotations

from dataclasses import asdict, dataclass
from typing import Any, Literal

Kind = Literal["tree", "model", "compaction", "data"]


@dataclass(frozen=True)
class OpSpec:
    id: str
    title: str
    """The menu text; the right-click menu and the Edit menu's Undo/Redo use it too."""
    help: str
    kind: Kind
    cli: str | None
    """The ``convo`` subcommand that runs it (None: see ``cli_absent``)."""
    slash: str | None = None
    """The command bar's word (``/fork``), or None when the bar does not offer it."""
    shortcut: str | None = None
    menu: str | None = None
    """Where the menu bar offers it ("Conversation/Tend branch"), or None."""
    context: bool = False
    """In the right-click menu of a node or message (acting on that message)."""
    cli_absent: str = ""
    elsewhere: str = ""
    """Where else in the window it is offered (a button of another window)."""
    window_absent: str = ""
    """Why the window offers it nowhere (empty when it does)."""
    whole_turn: bool = False
    """On a turn node of the graph it acts from the turn's first message (archive, delete:
    the whole turn goes), not from the last message that names the node."""

    @property
    def in_window(self) -> bool:
        return self.menu is not None or self.context or self.slash is not None or bool(
            self.elsewhere)

    def to_dict(self) -> dict[str, Any]:
        out = asdict(self)
        out["window"] = self.in_window
        return out
