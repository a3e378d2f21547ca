"""What a probe answer cost and scored, read back from the store for the compare view.

A probe keeps its rung, context size, pages and (for a quiz) its score on the answer's
``source_meta["probe"]``, and the provider's measured usage on the answer. The compare view
opened from the preview's "Probe…" shows one line per column from these, as ``convo probe``
and the preview's status line do; a prompt's column also shows the recall score the quiz got
after the same rung's context in the same probe run.
"""

from __future__ import annotations

from typing import Any

from explorer.app.calls.probe import META_KEY
from explorer.app.calls.recall_quiz import kinds_line
from explorer.app.calls.replay import cost_usd
from explorer.store import Store
from explorer.tree.model import Message


def probe_record(message: Message) -> dict[str, Any] | None:
    record = message.source_meta.get(META_KEY)
    if message.role != "assistant" or not isinstance(record, dict) or "rung" not in record:
        return None
    return record


def header_line(store: Store, answer_id: int) -> str | None:
    """``snapshot rung, 2 pages · context 4,210 est., 4,388 in · 96 out · $0.0146 ·
    recall 4/6 (path 2/2, decision 1/2)``; None when the message is not a probe answer."""
    answer = store.message(answer_id)
    record = probe_record(answer)
    if record is None:
        return None
    pages = int(record.get("pages") or 0)
    bits = [f"{record['rung']} rung" + (f", {pages} page(s)" if pages else "")]
    usage = answer.usage
    measured = usage.input_tokens if usage else None
    out = usage.output_tokens if usage else None
    context = f"context {int(record.get('context_tokens') or 0):,} est."
    bits.append(context + (f", {measured:,} in" if measured is not None else ""))
    bits.append(f"{out:,} out" if out is not None else "output not measured")
    cost = (cost_usd(answer.model, measured, out)
            if measured is not None and out is not None else None)
    bits.append(f"${cost:.4f}" if cost is not None else "cost unknown (no price for "
                f"{answer.model or 'the model'})")
    score = record.get("score") or _quiz_score(store, answer, record)
    if isinstance(score, dict):
        kinds = kinds_line(score.get("by_kind") or {})
        bits.append(f"recall {score['right']}/{score['asked']}"
                    + (f" ({kinds})" if kinds else ""))
    return " · ".join(bits)


def _quiz_score(store: Store, answer: Message, record: dict[str, Any]
                ) -> dict[str, Any] | None:
    """The score of the quiz sent after the same rung's context in the same probe run."""
    run = record.get("run")
    if run is None or not isinstance(answer.parent_id, int):
        return None
    prompt = store.message(answer.parent_id)
    if not isinstance(prompt.parent_id, int):
        return None
    for sibling in store.children(prompt.parent_id):
        for child in store.children(sibling):
            other = probe_record(store.message(child))
            if (other is not None and other.get("run") == run and other.get("kind") == "quiz"
                    and other.get("rung") == record["rung"]):
                score = other.get("score")
                return score if isinstance(score, dict) else None
    return None
