"""Which subagent transcript a message belongs to, and where that transcript ends.

A subagent's messages form a tree of their own whose root hangs off the call
that started it (V1): it is read beside the conversation, never as a branch of
it, so nothing here moves the tip.
"""

from __future__ import annotations

from explorer.app.tending.message_actions import branch_target
from explorer.store import Store
from explorer.store.turn_reads import SubagentInfo, read_subagents


def subagent_of(store: Store, conv_id: int, mid: int) -> SubagentInfo | None:
    """The subagent whose transcript holds ``mid``, or None for the conversation's own."""
    path = store.path_ids(mid)
    if not path:
        return None
    return read_subagents(store.reader, conv_id).get(path[0])


def subagent_end(store: Store, info: SubagentInfo) -> int:
    """The newest message of the subagent's transcript (what its tab shows down to)."""
    return branch_target(store, info.root)


def subagent_by_call(store: Store, conv_id: int, tool_use_id: str) -> SubagentInfo | None:
    """The subagent started by the call ``tool_use_id`` (the Agent row's "open" button)."""
    return next((info for info in read_subagents(store.reader, conv_id).values()
                 if info.tool_use_id == tool_use_id), None)
