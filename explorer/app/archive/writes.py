"""``label``, ``note`` and ``checkpoint``: the only changes an agent may make, and only when
the person started the server with ``--allow-writes``.

Each asks the operation's availability first (the sentence the window and ``convo`` give,
O1) and then runs the very tree action ``convo label``/``note``/``checkpoint`` runs, through
the store's one writer, as one undoable operation (T8). Nothing is ever removed: an empty
name or note (which would clear one) is refused, and so is one over what a person wrote.
"""

from __future__ import annotations

from typing import Any

from explorer.app.archive.arguments import ArgumentError, Param
from explorer.app.archive.session import Archive
from explorer.app.ops.availability import check
from explorer.app.tending import tree_actions
from explorer.store import StoreError

_MESSAGE = Param("message", "integer", "the message's id", required=True, minimum=1)
LABEL_PARAMS = [_MESSAGE, Param("name", "string", "the branch's name", required=True,
                                max_length=200)]
NOTE_PARAMS = [_MESSAGE, Param("text", "string", "the note", required=True, max_length=2000)]
CHECKPOINT_PARAMS = [_MESSAGE, Param("label", "string", "the checkpoint's label (unique in "
                                     "its conversation)", required=True, max_length=200)]


def _given(name: str, text: str) -> str:
    if not text.strip():
        raise ArgumentError(f"an empty {name} would clear one: this server never removes "
                            "anything")
    return text


def _mark(archive: Archive, op: str, mid: int, text: str) -> dict[str, Any]:
    store = archive.store
    conv = store.message_conversation(mid)
    check(store, op, mid, conv)
    marks = store.marks(conv)
    there = (marks.labels if op == "label" else marks.notes).get(mid)
    if there is not None and there != text.strip():
        raise StoreError(f"message {mid} already has the {op} {there!r}: this server never "
                         f"replaces one (change it in the window or with convo {op})")
    act = tree_actions.label if op == "label" else tree_actions.note
    return _done(act(store, mid, text))


def label(archive: Archive, args: dict[str, Any]) -> dict[str, Any]:
    return _mark(archive, "label", args["message"], _given("name", args["name"]))


def note(archive: Archive, args: dict[str, Any]) -> dict[str, Any]:
    return _mark(archive, "note", args["message"], _given("note", args["text"]))


def checkpoint(archive: Archive, args: dict[str, Any]) -> dict[str, Any]:
    store = archive.store
    mid = args["message"]
    conv = store.message_conversation(mid)
    check(store, "checkpoint", mid, conv)
    return _done(tree_actions.checkpoint(store, conv, _given("label", args["label"]), mid))


def _done(change: tree_actions.Change) -> dict[str, Any]:
    return {"done": change.summary, "conversation": change.conversation_id,
            "operation": change.operation_id,
            "undo": f"convo undo --conversation {change.conversation_id}", "cut": False}
