"""Which actions a message offers, and why one is not available (shared by every UI).

A disabled action always carries its reason, so the app can say "Set
checkpoint — not a turn boundary" instead of silently greying it out.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from explorer.app.views.tree_view import tended_view
from explorer.store import Store
from explorer.store.rows import db_id
from explorer.tree.model import Message
from explorer.tree.turns import is_boundary, split_turns


@dataclass(frozen=True)
class Availability:
    enabled: bool
    reason: str = ""
    """Why not, short enough for a menu entry ("on the active path")."""
    hint: str = ""
    """What to do instead ("switch to another branch first"), for tooltips and the CLI."""

    @property
    def why(self) -> str:
        """The reason with its hint: the tooltip's and the command line's words."""
        return f"{self.reason}; {self.hint}" if self.hint else self.reason


@dataclass(frozen=True)
class MessageActions:
    """What can be done with one message of one conversation."""

    conversation_id: int
    message_id: int
    branch: Availability
    edit: Availability
    fork: Availability
    checkpoint: Availability
    compare: Availability
    regenerate: Availability
    rewind_labels: tuple[str, ...]
    is_tip: bool


def actions_for(store: Store, conv_id: int, mid: int) -> MessageActions:
    conv = store.conversation(conv_id)
    message = store.message(mid)
    path = store.path(conv_id, mid)
    siblings = store.siblings(mid)
    is_tip = conv.tip_id == mid
    return MessageActions(
        conversation_id=conv_id,
        message_id=mid,
        branch=Availability(not is_tip, "already the tip" if is_tip else ""),
        edit=Availability(message.is_prompt,
                          "" if message.is_prompt else f"{_kind(message)}, not a prompt",
                          "edit a prompt a person wrote"),
        fork=Availability(True),
        checkpoint=_checkpoint(path),
        compare=_compare(store, mid, siblings, path),
        regenerate=_regenerate(path),
        rewind_labels=tuple(sorted(store.checkpoints(conv_id))),
        is_tip=is_tip,
    )


def _compare(store: Store, mid: int, siblings: list[int],
             path: Sequence[Message]) -> Availability:
    """Siblings of the message, or of the branch point inside its turn (a turn node)."""
    if len(siblings) > 1:
        return Availability(True)
    if turn_branch_point(store, mid, path) is not None:
        return Availability(True)
    return Availability(False, "no siblings to compare")


def _kind(message: Message) -> str:
    """``a tool result``, ``an assistant message``: the kind with its article."""
    kind = "tool result" if message.is_tool_result_only else f"{message.role} message"
    return ("an " if kind[0] in "aeiou" else "a ") + kind


def _regenerate(path: Sequence[Message]) -> Availability:
    if any(m.is_prompt for m in path):
        return Availability(True)
    return Availability(False, "no prompt before this message to answer")


def _checkpoint(path: Sequence[Message]) -> Availability:
    if is_boundary(path, len(path) - 1):
        return Availability(True)
    return Availability(False, "inside a turn: a tool call still waits for its result",
                        "set it where the turn ends")


def branch_target(store: Store, mid: int) -> int:
    """Where "show this branch" lands: down the preferred children (``convo star``), else the
    newest visible leaf below ``mid``, like chat apps do; archived branches are skipped."""
    conv = store.message_conversation(mid)
    found = tended_view(store, conv).preferred_tip(mid)
    return found if found is not None else mid


def turn_branch_point(store: Store, mid: int,
                      path: Sequence[Message] | None = None) -> int | None:
    """The message with siblings nearest above ``mid`` within ``mid``'s turn, if any.

    A turn node of the turn view is named by its last message, which rarely has
    siblings itself: the branch it stands for is where its turn splits off.
    """
    if path is None:  # the root-to-mid path, when the caller has not read it already
        path = store.path(store.message_conversation(mid), mid)
    turn = next((t for t in split_turns(path) if t.start < len(path) <= t.end), None)
    start = turn.start if turn is not None else 0
    for m in reversed(path[start:]):
        if len(store.siblings(db_id(m.id))) > 1:
            return db_id(m.id)
    return None
