"""Planning a compaction preview off the main thread.

Planning renders snapshot pages, which may take a noticeable fraction of a
second on a long conversation; the window must stay responsive and must never
show a plan for options the person has already changed. The window runs
:func:`build_preview` through the shared :class:`~explorer.ui.background.tasks.LatestRunner`
(newest request wins, older ones are cancelled between stages).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from PySide6.QtGui import QImage

from explorer.app.context import compacting, loss
from explorer.compaction.context import CompactionPlan
from explorer.compaction.loss_report import LossReport
from explorer.compaction.summary import render_message
from explorer.compaction.target import Target
from explorer.store import Store
from explorer.tree.model import Message
from explorer.ui.background.tasks import Cancelled, LatestRunner, Ticket

__all__ = ["Cancelled", "LatestRunner", "PreviewResult", "Ticket", "build_preview"]


@dataclass(frozen=True, eq=False)
class PreviewResult:
    """A plan and everything the window shows of it, prepared off the main thread."""

    target: Target
    rung: str | None
    plan: CompactionPlan
    record: dict[str, Any]
    images: tuple[QImage, ...]
    head_text: str
    tail_text: str
    cache: tuple[str, ...] = ()  # the page price's rule and the prompt-cache outlook, as lines
    loss: LossReport | None = None  # every exact string the plan discards and where it goes


def decode_png(data: bytes) -> QImage:
    """The image exactly as the PNG holds it (a null image if it is not one)."""
    image = QImage()
    image.loadFromData(data, "PNG")
    return image


def messages_text(messages: Sequence[Message]) -> str:
    """Messages as the transcript text a summary request would quote (images as markers)."""
    return "\n\n".join(render_message(m) for m in messages)


def build_preview(
    store: Store, conv_id: int, target: Target, rung: str | None, ticket: Ticket | None = None,
    pin_changes: Sequence[tuple[str, bool]] = (),
) -> PreviewResult:
    """Plan the compaction and decode its pages from their own PNG bytes.

    ``pin_changes`` ((text, pin or unpin)) are written first, so the plan shows them (L8).
    """
    for text, pin in pin_changes:
        if pin:
            store.pin(conv_id, text)
        else:
            store.unpin(conv_id, text)
    step = ticket.step if ticket is not None else (lambda _stage: None)
    step("planning")
    context = compacting.active_context(store, conv_id)
    pins = store.pins(conv_id)
    plan = compacting.plan_of(context, pins, conv_id, target, rung)
    step("measuring")
    record = plan.to_record()
    images: list[QImage] = []
    for i, page in enumerate(plan.pages):
        step(f"decoding page {i + 1} of {len(plan.pages)}")
        image = decode_png(page.png)
        if image.isNull():
            raise ValueError(f"page {i + 1} is not a readable PNG")
        images.append(image)
    split = plan.split
    step("listing what it discards")
    report = loss.report_for_plan(context, plan, target, pins)
    step("pricing the prompt cache")
    cache = tuple(line.strip() for line in compacting.price_lines(plan, target)
                  + compacting.density_lines(plan) + compacting.cache_lines(plan, target))
    return PreviewResult(
        target=target, rung=rung, plan=plan, record=record, images=tuple(images),
        head_text=messages_text(split.head) if split else "",
        tail_text=messages_text(split.tail) if split else "",
        cache=cache, loss=report,
    )
