"""Ask several models at once: one prompt, each model's answer (or K samples) as siblings.

The prompt is written at the active path's last clean boundary (a prompt alone is a
whole turn: nothing waits for a result), then every target answers it concurrently
through the app's regenerate use-case, so each answer is written whole, with its own
usage and compaction record. The first target's answer (in the order named) becomes
the tip; a person picks another by branching to it. A target that fails is reported
and leaves nothing; if every target fails, the prompt goes again. The whole fan-out
is one undoable operation (T8).
"""

from __future__ import annotations

import sqlite3
import time
from collections.abc import Callable, Sequence
from concurrent.futures import ThreadPoolExecutor, as_completed
from dataclasses import dataclass, field
from typing import Any

from explorer.app.calls import conversation_ops as ops
from explorer.app.tending.tree_actions import Change, archived_rows, unfolded_since
from explorer.compaction.ladder import LadderError
from explorer.providers.base import Provider, ProviderError
from explorer.store import Store, StoreError, operations, tombstones, tree_writes
from explorer.tree.model import Message, Part

MAX_CONCURRENT = 8


@dataclass(frozen=True)
class Target:
    """One model to ask: its label (``provider:model``), provider and run options."""

    label: str
    provider: Provider
    options: ops.RunOptions


@dataclass
class FanoutAnswer:
    label: str
    sample: int
    answer_id: int | None = None
    text: str = ""
    error: str | None = None


@dataclass
class FanoutResult:
    change: Change
    prompt_id: int
    answers: list[FanoutAnswer] = field(default_factory=list)


Progress = Callable[[FanoutAnswer], None]


def _write_prompt(conn: sqlite3.Connection, conv_id: int, text: str, parent: int | None) -> int:
    prompt = Message(id="new:prompt", parent_id=parent, role="user",
                     parts=[Part("text", text)], created_at=time.time())
    return tree_writes.append_turn(conn, conv_id, [prompt], parent_id=parent,
                                   as_root=parent is None)[0]


def fanout(
    store: Store, conv_id: int, text: str, targets: Sequence[Target], samples: int = 1,
    progress: Progress | None = None,
) -> FanoutResult:
    """The prompt and one answer per target and sample; refuses when no answer came back."""
    if not text.strip():
        raise StoreError("the prompt is empty")
    if not targets or samples < 1:
        raise StoreError("name at least one model (--model PROVIDER:MODEL) and -n of 1 or more")
    before = store.conversation(conv_id).tip_id
    folded = archived_rows(store.reader, conv_id)  # what the answers may unfold (T6)
    parent = store.clean_boundary(conv_id) if before is not None else None
    prompt_id = store.transact(_write_prompt, conv_id, text, parent)
    jobs = [FanoutAnswer(t.label, k) for t in targets for k in range(samples)]
    by_label = {t.label: t for t in targets}
    with ThreadPoolExecutor(max_workers=min(MAX_CONCURRENT, len(jobs))) as pool:
        futures = {pool.submit(_answer, store, conv_id, prompt_id, by_label[j.label], j): j
                   for j in jobs}
        for future in as_completed(futures):
            future.result()
            if progress:
                progress(futures[future])
    done = [j.answer_id for j in jobs if j.answer_id is not None]
    if not done:
        store.transact(_drop_prompt, conv_id, prompt_id, before)
        reasons = "; ".join(f"{j.label}: {j.error}" for j in jobs)
        raise StoreError(f"no model answered ({reasons}); nothing was kept")
    change = store.transact(_record, conv_id, before, prompt_id, done, len(jobs), folded)
    return FanoutResult(change, prompt_id, jobs)


def _answer(store: Store, conv_id: int, prompt_id: int, target: Target, job: FanoutAnswer
            ) -> None:
    try:
        result = ops.regenerate(store, conv_id, prompt_id, target.provider,
                                 target.options, log=False)
    except (ProviderError, LadderError, StoreError) as e:
        job.error = str(e)
        return
    job.answer_id = result.answer_id
    job.text = result.answer.text


def _drop_prompt(conn: sqlite3.Connection, conv_id: int, prompt_id: int, tip: int | None
                 ) -> None:
    tid = tombstones.bury(conn, conv_id, [prompt_id])
    conn.execute("DELETE FROM tombstones WHERE id = ?", (tid,))
    conn.execute("UPDATE conversations SET tip_id = ? WHERE id = ?", (tip, conv_id))


def _record(conn: sqlite3.Connection, conv_id: int, before: int | None, prompt_id: int,
            answers: list[int], asked: int, folded: dict[int, dict[str, Any]]) -> Change:
    tree_writes.branch(conn, conv_id, answers[0])
    summary = (f"prompt {prompt_id} answered by {len(answers)} of {asked} model run(s) "
               f"({', '.join(map(str, answers))})")
    created = [prompt_id, *answers]
    unfolded = unfolded_since(conn, conv_id, folded, created)
    op = operations.record(conn, conv_id, "fanout", summary,
                           {"tip": before, "created": created,
                            **({"marks": unfolded} if unfolded else {})})
    changed: dict[str, Any] = {"created": created, "prompt": prompt_id, "answers": answers,
                               "tip": {"from": before, "to": answers[0]}}
    if unfolded:
        changed["unarchived"] = [int(r["message_id"]) for r in unfolded]
    return Change("fanout", conv_id, op, summary, changed)
