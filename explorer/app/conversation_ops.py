"""Talking to a model from the tree: send a prompt, edit one and run it again, regenerate.

The prompt is built in memory and written together with its answer in one ``append_turn``
only after the stream completed (P2): a failed, cancelled or interrupted stream stores nothing
and the tip stays where it was. The context is what the compaction ladder builds for the
active path (from its context start), proactively past the threshold and reactively once
after the provider rejects a request as too large (L7). The answer carries the provider's
usage and, when compaction changed the request, the record of what it did.
"""

from __future__ import annotations

import threading
import time
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any, cast

from explorer.compaction import image_cost
from explorer.compaction.context import CompactionPlan
from explorer.compaction.elision import DEFAULT_KEEP_TURNS
from explorer.compaction.estimate import Estimator
from explorer.compaction.ladder import Mode, Rung, run_ladder
from explorer.compaction.page_geometry import page_geometry
from explorer.compaction.snapshot_render import render_snapshot
from explorer.compaction.split import PageLike, Renderer
from explorer.compaction.summary import Summarizer, SummaryTooLarge
from explorer.providers.base import (
    Completion,
    ContextOverflow,
    Provider,
    ProviderError,
    TextCallback,
    unexecuted_call_text,
)
from explorer.providers.summarizer import EmptySummary
from explorer.store import Store, StoreError
from explorer.store.reads import Conversation
from explorer.store.rows import db_id
from explorer.tree.model import Message, Part


@dataclass
class RunOptions:
    """How to build the context and stream the answer."""

    window: int
    max_output_tokens: int = 4096
    threshold: float = 0.8
    safety: float = 0.9
    keep_turns: int = DEFAULT_KEEP_TURNS
    vision: bool = True  # False: the model cannot read images, so no snapshot pages
    renderer: Renderer | None = None  # default: snapshot pages for the provider
    summarizer: Summarizer | None = None  # None: snapshots are the last rung
    estimator: Estimator | None = None
    on_text: TextCallback | None = None
    cancel: threading.Event | None = None


@dataclass
class RunResult:
    """What was stored: the new message ids (the answer last), the answer, and the context."""

    message_ids: list[int]
    answer: Message
    plan: CompactionPlan
    retried_after_overflow: bool = False
    notes: list[str] = field(default_factory=list)

    @property
    def answer_id(self) -> int:
        return self.message_ids[-1]


def snapshot_renderer(provider: Provider) -> Renderer:
    """Pages sized for the provider's image pricing (OpenAI's for compatible servers)."""
    geometry = (
        page_geometry("anthropic", provider.model) if provider.kind == "anthropic"
        else page_geometry("openai", provider.model if provider.kind == "openai" else None)
    )

    def render(middle: Sequence[Message]) -> Sequence[PageLike]:
        return render_snapshot(middle, geometry).pages

    return render


def estimator_for(provider: Provider) -> Estimator:
    """A fresh estimator of the provider's family, costing images by its published rule."""
    if provider.kind == "anthropic":
        return Estimator(family="anthropic")
    model = provider.model if provider.kind == "openai" else ""

    def image_tokens(width: int, height: int) -> int:
        return image_cost.openai_tokens(width, height, model)

    return Estimator(family=provider.family, image_tokens=image_tokens)


# --- use cases ----------------------------------------------------------------------------------


def send(
    store: Store, conv_id: int, text: str, provider: Provider, options: RunOptions
) -> RunResult:
    """Append a prompt to the active path and store it with its answer, in one transaction."""
    _require_text(text)
    conv = store.conversation(conv_id)
    parent = _continue_from(store, conv)
    prompt = Message(id="new:prompt", parent_id=parent, role="user", parts=[Part("text", text)],
                     created_at=time.time())
    result = _run([*_history(store, conv, parent), prompt], provider, options)
    result.message_ids = store.append_turn(conv_id, [prompt, result.answer], parent_id=parent)
    _record(store, conv_id, result, provider, options)
    if parent != conv.tip_id:
        result.notes.append(f"the tip was mid-turn; the prompt continues the last clean "
                            f"boundary (message {parent})")
    return result


def edit_and_run(
    store: Store, conv_id: int, msg_id: int, text: str, provider: Provider, options: RunOptions
) -> RunResult:
    """A sibling of prompt ``msg_id`` with ``text`` and its answer; the old answer stays (T2)."""
    _require_text(text)
    original = _message_in(store, conv_id, msg_id)
    if not original.is_prompt:
        raise StoreError(f"message {msg_id} is a {original.role} message, not a prompt to edit")
    parts = [Part("text", text)] + [p for p in original.parts if p.kind == "image"]
    parent = db_id(original.parent_id) if original.parent_id is not None else None
    edited = Message(id="new:prompt", parent_id=parent, role="user", parts=parts,
                     created_at=time.time(), source_meta={"edited_from": msg_id})
    history = _history(store, store.conversation(conv_id), parent) if parent is not None else []
    result = _run([*history, edited], provider, options)
    result.message_ids = store.append_turn(
        conv_id, [edited, result.answer], parent_id=parent, as_root=parent is None
    )
    _record(store, conv_id, result, provider, options)
    return result


def regenerate(
    store: Store, conv_id: int, msg_id: int, provider: Provider, options: RunOptions
) -> RunResult:
    """A new answer to the prompt that opens ``msg_id``'s turn, as a sibling of the old one."""
    _message_in(store, conv_id, msg_id)
    path = store.path(conv_id, msg_id)
    starts = [i for i, m in enumerate(path) if m.is_prompt]
    if not starts:
        raise StoreError(f"no prompt on the path to message {msg_id} to answer again")
    prompt = path[starts[-1]]
    prompt_id = db_id(prompt.id)
    history = _from_context_start(path[: starts[-1] + 1], store.conversation(conv_id))
    result = _run(history, provider, options)
    result.message_ids = store.append_turn(conv_id, [result.answer], parent_id=prompt_id)
    _record(store, conv_id, result, provider, options)
    return result


# --- the request ------------------------------------------------------------------------------


def _run(path: list[Message], provider: Provider, options: RunOptions) -> RunResult:
    """Build the context, stream the answer; after an overflow, climb the ladder and retry once."""
    estimator = options.estimator or estimator_for(provider)
    estimator.learn_from_path(path)
    renderer = (options.renderer or snapshot_renderer(provider)) if options.vision else None
    notes: list[str] = []
    plan = _ladder(path, estimator, renderer, options, "proactive", None, notes)
    try:
        completion = _complete(plan.messages(), provider, options)
        return RunResult([], _answer(completion, provider, plan, False), plan, notes=notes)
    except ContextOverflow as rejection:
        sent = plan.messages()
        if rejection.measured is not None:
            estimator.learn_from_rejection(sent, rejection.measured)
        # Without a measured count (a body over the byte limit) the free rungs may change
        # nothing the estimate sees, so the middle is imaged regardless.
        force: Rung | None = None if rejection.measured is not None else "snapshot"
        notes.append(f"the provider rejected {_measured_text(rejection)}; compacting once more")
        plan = _ladder(path, estimator, renderer, options, "reactive", force, notes)
        completion = _complete(plan.messages(), provider, options)
        answer = _answer(completion, provider, plan, True)
        return RunResult([], answer, plan, retried_after_overflow=True, notes=notes)


def _ladder(
    path: list[Message], estimator: Estimator, renderer: Renderer | None, options: RunOptions,
    mode: Mode, force: Rung | None, notes: list[str],
) -> CompactionPlan:
    """The ladder; a failed summary call falls back to snapshots, always available (L6)."""
    def climb(summarizer: Summarizer | None) -> CompactionPlan:
        # The ladder skips the snapshot rung without a renderer (its type does not say so yet).
        return run_ladder(
            path, options.window, estimator, cast(Renderer, renderer), summarizer, mode=mode,
            force=force if renderer is not None or force != "snapshot" else "images",
            threshold=options.threshold, safety=options.safety,
            output_reserve=options.max_output_tokens, keep_turns=options.keep_turns,
        )

    try:
        return climb(options.summarizer)
    except (ProviderError, EmptySummary, SummaryTooLarge) as e:
        notes.append(f"summary failed ({e}); the ladder ran again without it")
        plan = climb(None)
        plan.notes.append(notes[-1])
        return plan


def _complete(messages: list[Message], provider: Provider, options: RunOptions) -> Completion:
    return provider.complete(messages, on_text=options.on_text, cancel=options.cancel,
                             max_tokens=options.max_output_tokens)


def _answer(
    completion: Completion, provider: Provider, plan: CompactionPlan, retried: bool
) -> Message:
    """The assistant message to store: parts, model, usage, and the context record if any."""
    # Requests declare no tools, so a tool call in the answer cannot run; it stays readable
    # as text instead of leaving the turn open forever.
    parts = [unexecuted_call_text(p) if p.kind == "tool_use" else p for p in completion.parts]
    meta: dict[str, Any] = {"provider": provider.kind}
    if completion.stop_reason:
        meta["stop_reason"] = completion.stop_reason
    if plan.rungs or retried:  # the whole record goes to the compactions table
        meta["context"] = {"rungs": list(plan.rungs), "trigger": plan.trigger,
                           "retried_after_overflow": retried,
                           "tokens": {"before": plan.tokens_before, "after": plan.tokens}}
    return Message(id="new:answer", parent_id=None, role="assistant",
                   parts=parts or [Part("text", "")], created_at=time.time(),
                   model=completion.model, usage=completion.usage, source_meta=meta)


def _record(
    store: Store, conv_id: int, result: RunResult, provider: Provider, options: RunOptions
) -> None:
    """The compaction record on the new answer, so the preview can show what was sent.

    Written after the turn: a crash in between loses only this record, never half a turn.
    """
    plan = result.plan
    if not plan.rungs:
        return
    params = {"provider": provider.kind, "model": provider.model, "window": options.window,
              "trigger": plan.trigger, "retried_after_overflow": result.retried_after_overflow}
    store.add_compaction(conv_id, result.answer_id, plan.rungs[-1], params, plan.to_record(),
                         plan.summary or "")


def _measured_text(error: ContextOverflow) -> str:
    if error.measured is None:
        return "the request as too large"
    limit = f" > {error.maximum}" if error.maximum else ""
    return f"the request at {error.measured} tokens{limit}"


# --- the path -----------------------------------------------------------------------------------


def _require_text(text: str) -> None:
    if not text.strip():
        raise StoreError("the prompt is empty")


def _message_in(store: Store, conv_id: int, msg_id: int) -> Message:
    message = store.message(msg_id)
    if store.message_conversation(msg_id) != conv_id:
        raise StoreError(f"message {msg_id} is not in conversation {conv_id}")
    return message


def _continue_from(store: Store, conv: Conversation) -> int | None:
    """The tip, or the last clean boundary before it when the tip is mid-turn (P3)."""
    if conv.tip_id is None:
        return None
    boundary = store.clean_boundary(conv.id)
    if boundary is None:
        raise StoreError(f"conversation {conv.id} has no clean turn boundary to continue from")
    return boundary


def _history(store: Store, conv: Conversation, parent: int | None) -> list[Message]:
    return _from_context_start(store.path(conv.id, parent), conv) if parent is not None else []


def _from_context_start(path: list[Message], conv: Conversation) -> list[Message]:
    """The path from the conversation's context start, when the start is on it (P4)."""
    for i, m in enumerate(path):
        if m.id == conv.context_start_id:
            return path[i:]
    return path
