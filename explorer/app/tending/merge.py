"""Merge a side branch back: one message after MSG on the active path that carries its digest.

The side branch is the path to TIP from where it left the active path; it stays as
it was (T3). The merge message is a model-written summary when a summarizer is
given, else the free digest (what was asked, which tools ran, how it ended), and it
links back to the branch through ``source_meta["merged_from"]`` so the graph and
the transcript can open it. Writing it and logging its undo is one transaction.
"""

from __future__ import annotations

import sqlite3
import time
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

from explorer.app.tending.tree_actions import Change, tip_of
from explorer.compaction.estimate import Estimator
from explorer.compaction.summary import Summarizer, SummaryTooLarge, build_summary_request
from explorer.providers.base import ProviderError
from explorer.providers.summarizer import EmptySummary
from explorer.store import Store, StoreError, operations, tree_writes
from explorer.store.rows import db_id
from explorer.tree.digest import digest_text, exploration_digest
from explorer.tree.model import Message, Part
from explorer.tree.turns import is_boundary

PROMPT_CHARS = 240
SUMMARY_BUDGET = 32_000


@dataclass
class MergePlan:
    conversation_id: int
    tip: int
    into: int
    left_at: int | None  # the last message the side branch shares with the active path
    side: list[Message]
    digest: dict[str, Any]
    notes: list[str] = field(default_factory=list)


def plan_merge(store: Store, tip: int, into: int) -> MergePlan:
    """Check the two ends and find the side branch; refusals say why."""
    conv_id = store.message_conversation(tip)
    if store.message_conversation(into) != conv_id:
        raise StoreError(f"messages {tip} and {into} are in different conversations")
    conv = store.conversation(conv_id)
    active = store.path_ids(conv.tip_id) if conv.tip_id is not None else []
    if into not in active:
        raise StoreError(f"message {into} is not on the active path; a merge lands after a "
                         "message of the path the conversation continues (branch there first)")
    tip_path = store.path(conv_id, tip)
    shared = 0
    while shared < len(tip_path) and shared < len(active) and tip_path[shared].id == active[
            shared]:
        shared += 1
    side = tip_path[shared:]
    if not side:
        raise StoreError(f"message {tip} is on the active path: there is no side branch to merge")
    into_path = store.path(conv_id, into)
    if not is_boundary(into_path, len(into_path) - 1):
        raise StoreError(f"message {into} is inside a turn (a tool call waits for its result); "
                         "a merge lands after a turn boundary")
    left_at = db_id(tip_path[shared - 1].id) if shared else None
    return MergePlan(conv_id, tip, into, left_at, side, exploration_digest(side))


def digest_body(plan: MergePlan) -> str:
    """The free digest: every prompt of the branch (shortened) and how it ended."""
    lines = [digest_text(plan.digest)]
    prompts = [m for m in plan.side if m.is_prompt]
    if prompts:
        lines.append("Prompts on the branch:")
        lines += [f"- {_short(m.text)}" for m in prompts]
    return "\n".join(lines)


def _short(text: str) -> str:
    flat = " ".join(text.split())
    return flat if len(flat) <= PROMPT_CHARS else flat[: PROMPT_CHARS - 1] + "…"


def summary_body(
    plan: MergePlan, summarizer: Summarizer, estimator: Estimator | None = None,
    budget: int = SUMMARY_BUDGET,
) -> str:
    request = build_summary_request(plan.side, estimator or Estimator(), budget)
    return summarizer.summarize(request)


def merge_message(plan: MergePlan, body: str, how: str) -> Message:
    where = f"message {plan.left_at}" if plan.left_at is not None else "the start"
    head = (f"[Merged branch] The branch that left this path at {where} and ends at message "
            f"{plan.tip} ({len(plan.side)} messages, {plan.digest['turns']} turns), "
            f"{'summarized' if how == 'summary' else 'in digest'}:")
    meta = {"merged_from": {"tip": plan.tip, "left_at": plan.left_at, "how": how,
                            "messages": [m.id for m in plan.side], "digest": plan.digest}}
    return Message(id="new:merge", parent_id=plan.into, role="user",
                   parts=[Part("text", f"{head}\n\n{body}")], created_at=time.time(),
                   source_meta=meta)


def _write(conn: sqlite3.Connection, plan: MergePlan, message: Message) -> Change:
    before = tip_of(conn, plan.conversation_id)
    [new] = tree_writes.append_turn(conn, plan.conversation_id, [message], parent_id=plan.into)
    summary = f"branch ending at {plan.tip} merged after {plan.into} as message {new}"
    op = operations.record(conn, plan.conversation_id, "merge", summary,
                           {"tip": before, "created": [new]})
    how = message.source_meta["merged_from"]["how"]
    return Change("merge", plan.conversation_id, op, summary,
                  {"created": [new], "merged_from": plan.tip, "left_at": plan.left_at,
                   "how": how, "side_messages": len(plan.side),
                   "tip": {"from": before, "to": new}})


def merge(
    store: Store, tip: int, into: int, summarizer: Summarizer | None = None,
    estimator: Estimator | None = None,
) -> tuple[Change, list[str]]:
    """Write the merge message (undoable); returns the change and any notes for the person."""
    plan = plan_merge(store, tip, into)
    body, how = None, "digest"
    if summarizer is not None:
        try:
            body, how = summary_body(plan, summarizer, estimator), "summary"
        except (ProviderError, EmptySummary, SummaryTooLarge) as e:
            plan.notes.append(f"the summary failed ({e}); the free digest was used")
    message = merge_message(plan, body if body is not None else digest_body(plan), how)
    return store.transact(_write, plan, message), plan.notes


def merge_links(messages: Sequence[Message]) -> list[tuple[int, int]]:
    """(side branch tip, merge message) for every merge message among ``messages``."""
    out = []
    for m in messages:
        merged = m.source_meta.get("merged_from")
        if isinstance(merged, dict) and isinstance(merged.get("tip"), int):
            out.append((int(merged["tip"]), db_id(m.id)))
    return out
