"""Whether an operation can run on a message, and the one sentence that says why not (O1).

Every place that offers an operation asks here: the right-click menu shows the short
reason in its entry ("Delete branch — on the active path") and the whole sentence in its
tooltip, the menu bar refuses a shortcut with the sentence, and ``convo`` exits 1 with the
same sentence before it writes anything. The operations' own checks stay where they write
(a second line of defence for a tree that changed in between).
"""

from __future__ import annotations

from explorer.app.ops.catalog import OPERATIONS, op
from explorer.app.tending.menu import tending_availability
from explorer.app.tending.message_actions import Availability, actions_for
from explorer.store import Store, StoreError

MESSAGE_OPS = ("branch", "edit", "rerun", "regenerate", "fork", "checkpoint", "rewind",
               "archive", "unarchive", "delete", "star", "label", "note", "merge", "replay",
               "fanout", "export", "handoff", "share")
"""The operations that act on one message: the right-click menu's, and the menu bar's
"on the selected message" entries."""


class Refused(StoreError):
    """An operation asked where it cannot run; the message is the sentence every place says."""


def for_message(store: Store, conv_id: int, mid: int) -> dict[str, Availability]:
    """Each message operation's availability at ``mid``, keyed by operation id (and
    ``replay_stale``: whether the replay there redoes a stale answer, which names it)."""
    acts = actions_for(store, conv_id, mid)
    tend = tending_availability(store, conv_id, mid)
    always = Availability(True)
    return {
        "branch": acts.branch, "edit": acts.edit, "rerun": acts.edit,
        "regenerate": acts.regenerate, "fork": acts.fork, "checkpoint": acts.checkpoint,
        "rewind": Availability(bool(acts.rewind_labels), "no checkpoints yet",
                               "set a checkpoint first"),
        **{key: tend[key] for key in ("archive", "unarchive", "delete", "star", "label",
                                      "note", "merge", "replay", "replay_stale")},
        "fanout": always, "export": always, "handoff": always, "share": always,
    }


def for_whole_turn(store: Store, conv_id: int, root: int) -> dict[str, Availability]:
    """The availability of the operations that take a turn node whole, at its first
    message: only those (a full :func:`for_message` reads the path twice, on a big tree a
    second of the window's time on each right-click of a turn node)."""
    tend = tending_availability(store, conv_id, root)
    return {o.id: tend[o.id] for o in OPERATIONS if o.whole_turn}


def sentence(op_id: str, mid: int, found: Availability) -> str:
    """"Set checkpoint is not possible at message 3: inside a turn: …" — the one line."""
    return f"{op(op_id).title.rstrip('…★ ')} is not possible at message {mid}: {found.why}"


def check(store: Store, op_id: str, mid: int, conv_id: int | None = None) -> None:
    """Raise :class:`Refused` with the sentence when ``op_id`` cannot run at ``mid``."""
    conv = conv_id if conv_id is not None else store.message_conversation(mid)
    found = for_message(store, conv, mid)[op_id]
    if not found.enabled:
        raise Refused(sentence(op_id, mid, found))
