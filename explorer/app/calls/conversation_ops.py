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
from dataclasses import dataclass, field, replace
from typing import Any

from explorer.app.context import prompt_cache
from explorer.app.context.compacting import applied_rung, from_context_start
from explorer.app.tending.tree_actions import write_turn
from explorer.compaction import planner
from explorer.compaction.context import CompactionPlan
from explorer.compaction.estimate import (
    IMAGE_PRICE_KEY,
    REQUEST_KEY,
    Estimator,
    image_price_ratio,
    measured_prompt,
)
from explorer.compaction.ladder import Mode, Rung
from explorer.compaction.summary import Summarizer, SummaryTooLarge
from explorer.compaction.target import Target
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
    """Whom the context is for (the target), and how to stream the answer."""

    target: Target
    summarizer: Summarizer | None = None  # None: snapshots are the last rung
    estimator: Estimator | None = None  # default: the target's, learned from the path
    on_text: TextCallback | None = None
    cancel: threading.Event | None = None
    pins: tuple[str, ...] | None = None  # None: the conversation's stored pins (L8)


@dataclass
class RunResult:
    """What was stored: the new message ids (the answer last), the answer, and the context."""

    message_ids: list[int]
    answer: Message
    plan: CompactionPlan
    retried_after_overflow: bool = False
    notes: list[str] = field(default_factory=list)
    sent: list[Message] = field(default_factory=list)

    @property
    def answer_id(self) -> int:
        return self.message_ids[-1]


# --- use cases ----------------------------------------------------------------------------------


def send(
    store: Store, conv_id: int, text: str, provider: Provider, options: RunOptions,
    log: bool = True,
) -> RunResult:
    """Append a prompt to the active path and store it with its answer, in one transaction
    (one undoable operation unless a caller that logs its own passes ``log=False``)."""
    _require_text(text)
    conv = store.conversation(conv_id)
    parent = _continue_from(store, conv)
    prompt = Message(id="new:prompt", parent_id=parent, role="user", parts=[Part("text", text)],
                     created_at=time.time())
    context = _history(store, conv, parent)
    result = _run(store, conv_id, parent, context, [prompt], provider, options)
    result.message_ids = write_turn(store, conv_id, "send", [prompt, result.answer],
                                    parent_id=parent, log=log)
    _record(store, conv_id, result, options.target)
    if parent != conv.tip_id:
        result.notes.append(f"the tip was mid-turn; the prompt continues the last clean "
                            f"boundary (message {parent})")
    return result


def edit_and_run(
    store: Store, conv_id: int, msg_id: int, text: str, provider: Provider, options: RunOptions,
    log: bool = True,
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
    result = _run(store, conv_id, parent, history, [edited], provider, options)
    result.message_ids = write_turn(store, conv_id, "rerun", [edited, result.answer],
                                    parent_id=parent, as_root=parent is None, log=log)
    _record(store, conv_id, result, options.target)
    return result


def regenerate(
    store: Store, conv_id: int, msg_id: int, provider: Provider, options: RunOptions,
    log: bool = True,
) -> RunResult:
    """A new answer to the prompt that opens ``msg_id``'s turn, as a sibling of the old one."""
    _message_in(store, conv_id, msg_id)
    path = store.path(conv_id, msg_id)
    starts = [i for i, m in enumerate(path) if m.is_prompt]
    if not starts:
        raise StoreError(f"no prompt on the path to message {msg_id} to answer again")
    prompt = path[starts[-1]]
    prompt_id = db_id(prompt.id)
    conv = store.conversation(conv_id)
    history = from_context_start(path[: starts[-1] + 1], conv.context_start_id)[:-1]
    parent = db_id(prompt.parent_id) if prompt.parent_id is not None else None
    result = _run(store, conv_id, parent, history, [prompt], provider, options)
    result.message_ids = write_turn(store, conv_id, "regenerate", [result.answer],
                                    parent_id=prompt_id, log=log)
    _record(store, conv_id, result, options.target)
    return result


# --- the request ------------------------------------------------------------------------------


def _run(
    store: Store, conv_id: int, parent: int | None, context: list[Message],
    prompt: list[Message], provider: Provider, options: RunOptions,
) -> RunResult:
    """Plan the context before the prompt (as the preview does), append the prompt, stream the
    answer; after an overflow, climb the ladder with what the provider measured and retry once.
    """
    store.require_writable()  # an answer that could not be kept is not asked for
    target = options.target
    if options.pins is None:
        options = replace(options, pins=tuple(store.pins(conv_id)))
    estimator = options.estimator or target.estimator()
    estimator.learn_from_path(context)
    notes: list[str] = []
    rung = applied_rung(store, conv_id, parent, target)
    plan, sent = _context(context, prompt, target, estimator, options, "proactive", rung, notes)
    try:
        completion = _complete(sent, len(prompt), provider, target, options)
        keys = _keys(sent, len(prompt), target, plan.estimator)
        answer = _answer(completion, provider, plan, False, keys)
        answer.source_meta.update(_request_meta(sent, target, plan.estimator, completion))
        return RunResult([], answer, plan, notes=notes, sent=sent)
    except ContextOverflow as rejection:
        if rejection.measured is not None:
            estimator.learn_from_rejection(sent, rejection.measured)
        # Without a measured count (a body over the byte limit) the free rungs may change
        # nothing the estimate sees, so the middle is imaged regardless.
        force: Rung | None = None if rejection.measured is not None else "snapshot"
        notes.append(f"the provider rejected {_measured_text(rejection)}; compacting once more")
        plan, sent = _context(context, prompt, target, estimator, options, "reactive", force,
                              notes)
        completion = _complete(sent, len(prompt), provider, target, options)
        keys = _keys(sent, len(prompt), target, plan.estimator)
        answer = _answer(completion, provider, plan, True, keys)
        answer.source_meta.update(_request_meta(sent, target, plan.estimator, completion))
        return RunResult([], answer, plan, retried_after_overflow=True, notes=notes, sent=sent)


def plan_request(
    store: Store, conv_id: int, context: list[Message], prompt: list[Message], target: Target,
    summarizer: Summarizer | None = None,
) -> tuple[CompactionPlan, list[Message], list[str]]:
    """The plan and the messages ``send`` would post for ``prompt`` after ``context`` (with the
    compaction applied where the context ends), without posting: "what the model saw"."""
    estimator = target.estimator()
    estimator.learn_from_path(context)
    notes: list[str] = []
    parent = db_id(context[-1].id) if context and isinstance(context[-1].id, int) else None
    rung = applied_rung(store, conv_id, parent, target)
    options = RunOptions(target, summarizer=summarizer, pins=tuple(store.pins(conv_id)))
    plan, sent = _context(context, prompt, target, estimator, options, "proactive", rung, notes)
    return plan, sent, notes


def _context(
    context: list[Message], prompt: list[Message], target: Target, estimator: Estimator,
    options: RunOptions, mode: Mode, rung: str | None, notes: list[str],
) -> tuple[CompactionPlan, list[Message]]:
    """The plan of the context and the messages to send (the prompt appended).

    The context is planned without the prompt, exactly as the preview plans it; only a
    prompt too large for the room left makes the ladder run again with it inside.
    """
    prompt = planner.redacted(prompt, target, notes)
    if not context:
        plan = _ladder(prompt, target, estimator, options, mode, rung, notes)
        return plan, plan.messages()
    plan = _ladder(context, target, estimator, options, mode, rung, notes)
    if planner.prompt_fits(plan, prompt, target):
        return plan, planner.request_messages(plan, prompt)
    notes.append("the prompt does not fit beside the planned context; planned again with it")
    plan = _ladder([*context, *prompt], target, estimator, options, mode, rung, notes)
    return plan, plan.messages()


def _ladder(
    path: list[Message], target: Target, estimator: Estimator, options: RunOptions,
    mode: Mode, rung: str | None, notes: list[str],
) -> CompactionPlan:
    """The ladder; a failed summary call falls back to snapshots, always available (L6)."""
    def climb(summarizer: Summarizer | None) -> CompactionPlan:
        return planner.build_plan(path, target, rung=rung, summarizer=summarizer, mode=mode,
                                  estimator=estimator, pins=options.pins or ())

    try:
        return climb(options.summarizer)
    except (ProviderError, EmptySummary, SummaryTooLarge) as e:
        notes.append(f"summary failed ({e}); the ladder ran again without it")
        plan = climb(None)
        plan.notes.append(notes[-1])
        return plan


def _complete(
    messages: list[Message], prompt: int, provider: Provider, target: Target,
    options: RunOptions,
) -> Completion:
    """Stream the answer; the last ``prompt`` messages are the new prompt (cache marks)."""
    return provider.complete(messages, on_text=options.on_text, cancel=options.cancel,
                             max_tokens=target.output_reserve,
                             prompt_start=len(messages) - prompt)


def _keys(sent: list[Message], prompt: int, target: Target, estimator: Estimator
          ) -> list[dict[str, Any]]:
    """The prefixes the request wrote to the cache, for the next request's preview."""
    return prompt_cache.written_prefixes(sent, target, len(sent) - prompt, estimator)


def _request_meta(sent: list[Message], target: Target, estimator: Estimator,
                  completion: Completion) -> dict[str, Any]:
    """What the request carried (text by the heuristic, images by the rule), so the estimator
    learns from this answer's usage against the request that was sent, not the path; and,
    when images are a large share of it, the per-image price the provider's count implies."""
    rule = Estimator(target.family, image_tokens=target.images.tokens)
    text, image = rule.raw_split(sent)
    count = sum(1 for m in sent for p in m.parts if p.kind == "image" and p.data)
    meta: dict[str, Any] = {REQUEST_KEY: {"text": text, "image_rule_tokens": image,
                                          "images": count}}
    measured = measured_prompt(completion.usage, target.family)
    if measured and count and estimator.observations > 0:
        ratio = image_price_ratio(measured, estimator.correct(text) + estimator.overhead, image)
        if ratio is not None:
            meta[IMAGE_PRICE_KEY] = {"key": target.images.key, "ratio": round(ratio, 4),
                                     "images": count, "rule_tokens": image,
                                     "measured_prompt": measured}
    return meta


def _answer(
    completion: Completion, provider: Provider, plan: CompactionPlan, retried: bool,
    cache_keys: list[dict[str, Any]] | None = None,
) -> Message:
    """The assistant message to store: parts, model, usage, and the context record if any."""
    # Requests declare no tools, so a tool call in the answer cannot run; it stays readable
    # as text instead of leaving the turn open forever.
    parts = [unexecuted_call_text(p) if p.kind == "tool_use" else p for p in completion.parts]
    meta: dict[str, Any] = {"provider": provider.kind.value}
    if completion.stop_reason:
        meta["stop_reason"] = completion.stop_reason
    if cache_keys:
        meta[prompt_cache.META_KEY] = cache_keys
    if plan.rungs or retried:  # the whole record goes to the compactions table
        meta["context"] = {"rungs": list(plan.rungs), "trigger": plan.trigger,
                           "retried_after_overflow": retried,
                           "tokens": {"before": plan.tokens_before, "after": plan.tokens}}
    return Message(id="new:answer", parent_id=None, role="assistant",
                   parts=parts or [Part("text", "")], created_at=time.time(),
                   model=completion.model, usage=completion.usage, source_meta=meta)


def _record(store: Store, conv_id: int, result: RunResult, target: Target) -> None:
    """The compaction record on the new answer, so the preview can show what was sent.

    Written after the turn: a crash in between loses only this record, never half a turn.
    """
    plan = result.plan
    if not plan.rungs:
        return
    params = {**target.record(), "trigger": plan.trigger,
              "retried_after_overflow": result.retried_after_overflow}
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
    if parent is None:
        return []
    return from_context_start(store.path(conv.id, parent), conv.context_start_id)
