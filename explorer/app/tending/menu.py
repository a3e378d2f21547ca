"""Which tending actions a message offers, what they are called, and why one is not
available (T6–T8).

Shared by the right-click menu, the menu bar's Tend branch menu and tests: both menus
name an action alike, and a disabled entry always says why ("Delete branch — on the
active path"), never a silent grey.
"""

from __future__ import annotations

from explorer.app.ops import op
from explorer.app.tending.message_actions import Availability
from explorer.app.views.tree_view import tended_view
from explorer.store import Store
from explorer.tree.tending import preferred_choices

ON_PATH = "on the active path"
OFF_FIRST = "switch to another branch first"
TEND_KEYS = ("archive", "unarchive", "delete", "star", "label", "note", "merge")
"""The tending operations, in menu order."""
TEXTS: dict[str, str] = {key: op(key).title for key in TEND_KEYS}
"""Each tending action's menu text (the operation's declared title)."""


def tending_availability(store: Store, conv_id: int, mid: int) -> dict[str, Availability]:
    view = tended_view(store, conv_id, show_all=True)
    tip = store.conversation(conv_id).tip_id
    active = set(store.path_ids(tip)) if tip is not None else set()
    on_path = mid in active
    archived = mid in view.marks.archived
    branch_points = preferred_choices(store.path_ids(mid), view.children)
    return {
        "archive": Availability(not on_path and not archived,
                                ON_PATH if on_path else "already archived",
                                OFF_FIRST if on_path else ""),
        "unarchive": Availability(archived, "not an archived branch",
                                  "archived branches show as markers (tree --all)"),
        "delete": Availability(not on_path, ON_PATH, OFF_FIRST),
        "star": Availability(bool(branch_points), "no branch point on the way",
                             "nothing to prefer"),
        "label": Availability(True),
        "note": Availability(True),
        "merge": Availability(not on_path, "already on the active path"),
        "replay": Availability(mid in store.edits(conv_id) or mid in view.stale,
                               "not an edited prompt or a stale answer"),
        "replay_stale": Availability(mid in view.stale, "not a stale answer"),
    }
