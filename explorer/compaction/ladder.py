"""The compaction ladder: cheapest rung first, stop at the first that fits (SPEC §5).

Elision and image dropping cost nothing and keep the narrative; snapshots cost
nothing and keep every word as pixels; a summary costs a model call and is
taken only when a summarizer is given. Proactive runs start at a threshold of
the window; reactive runs start from a provider's rejection, correct the
estimator with the count it measured, and aim below a safety margin (L7).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Literal

from explorer.compaction.context import CompactionPlan, expand_compacted, snapshot_message
from explorer.compaction.elision import DEFAULT_KEEP_TURNS, elide
from explorer.compaction.estimate import Estimator
from explorer.compaction.facts import DEFAULT_MAX_CHARS, FactSheet, fact_sheet
from explorer.compaction.image_drop import drop_images
from explorer.compaction.kinds import DEFAULT_OUTPUT_RESERVE as DEFAULT_OUTPUT_RESERVE
from explorer.compaction.kinds import RUNGS as RUNGS
from explorer.compaction.kinds import Rung as Rung
from explorer.compaction.split import PageLike, Renderer, Split, best_split
from explorer.compaction.summary import Summarizer, build_summary_request, summary_message
from explorer.tree.errors import ExplorerError
from explorer.tree.model import Message

Mode = Literal["proactive", "reactive"]
TAIL_FRACTIONS = (0.5, 0.35, 0.25, 0.15, 0.08, 0.0)
SUMMARY_SHARE = 0.1  # of the target, kept free for the summary text in the new context
FACT_SHARE = 0.05  # of the target, at most, for the fact sheet beside the pages
# The sheet carries every exact string of the middle; it is cut only where pages and sheet
# together would cost more than this share of the middle sent as text, so imaging always at
# least halves the middle's cost. On the shared real transcripts only a middle of redaction
# markers (hundreds of distinct hashes and sizes in the narrative) reaches it (bench_fact_sheet).
FACT_TEXT_SHARE = 0.5
FACT_FLOOR_TOKENS = 150  # a sheet this small is always allowed: a short middle keeps its few ids
CHARS_PER_TOKEN = 3


class LadderError(ExplorerError, ValueError):
    """The ladder cannot run as asked (no room at all, or a rung that is unavailable)."""


def run_ladder(
    path: Sequence[Message],
    budget: int,
    estimator: Estimator,
    renderer: Renderer | None,
    summarizer: Summarizer | None = None,
    *,
    mode: Mode = "proactive",
    measured: int | str | None = None,
    force: Rung | None = None,
    threshold: float = 0.8,
    output_reserve: int = DEFAULT_OUTPUT_RESERVE,
    safety: float = 0.9,
    keep_turns: int = DEFAULT_KEEP_TURNS,
    head_fraction: float = 0.15,
    max_fact_chars: int = DEFAULT_MAX_CHARS,
    max_images: int | None = None,
    pins: Sequence[str] = (),
) -> CompactionPlan:
    """Build the context for ``path`` within a window of ``budget`` tokens.

    ``measured`` (reactive) is the provider's count for ``path`` or its error
    text; ``force`` runs every rung up to and including the named one. Without a
    ``renderer`` (a model that cannot see) the snapshot rung is skipped. ``max_images`` is the
    provider's limit of images a request: pages over it go to the summary rung when there is
    one, and are otherwise left out oldest first, the plan saying so. ``pins`` are strings
    the person asked to keep as text: the fact sheet carries them (L8).
    """
    path = expand_compacted(path)  # L4: pages are drawn from source text, never from pixels
    available = budget - output_reserve
    if available <= 0:
        raise LadderError(f"output reserve {output_reserve} leaves no room in {budget}")
    if force == "summary" and summarizer is None:
        raise LadderError("the summary rung needs a summarizer (a key and a network)")
    if mode == "reactive" and measured is not None:
        estimator.learn_from_rejection(path, measured)
    ratio = safety if mode == "reactive" else threshold
    plan = CompactionPlan(
        mode=mode,
        trigger="forced" if force else ("rejection" if mode == "reactive" else "threshold"),
        rungs=(),
        path=tuple(path),
        estimator=estimator,
        window=budget,
        output_reserve=output_reserve,
        target=int(available * ratio),
        parameters={
            "threshold": threshold,
            "safety": safety,
            "keep_turns": keep_turns,
            "head_fraction": head_fraction,
            "max_fact_chars": max_fact_chars,
            "max_images": max_images,
            "force": force,
            **({"pins": list(pins)} if pins else {}),
        },
    )
    plan.tokens_before = estimator.estimate(path)
    if force is None and mode == "proactive" and plan.fits:
        plan.trigger = "none"
        return plan
    last = RUNGS.index(force) if force else len(RUNGS) - 1
    for rung in RUNGS[: last + 1]:
        if rung == "summary" and summarizer is None:
            plan.notes.append("summary skipped: no summarizer; snapshots are the last rung")
            break
        before = plan.tokens
        _apply(plan, rung, renderer, summarizer)
        if rung in plan.rungs:
            plan.savings[rung] = before - plan.tokens
        if force is None and plan.fits:
            break
    if not plan.fits:
        plan.notes.append(f"does not fit: {plan.tokens} > {plan.target} tokens after every rung")
    return plan


def shake(
    path: Sequence[Message],
    estimator: Estimator | None = None,
    *,
    keep_turns: int = DEFAULT_KEEP_TURNS,
) -> CompactionPlan:
    """The free rungs only (``/shake``): elision and image dropping."""
    est = estimator or Estimator()
    plan = CompactionPlan(
        mode="proactive",
        trigger="forced",
        rungs=(),
        path=tuple(path),
        estimator=est,
        parameters={"keep_turns": keep_turns, "force": "images"},
    )
    plan.tokens_before = est.estimate(path)
    for rung in ("elide", "images"):
        before = plan.tokens
        _apply(plan, rung, None, None)
        plan.savings[rung] = before - plan.tokens
    return plan


def _apply(
    plan: CompactionPlan, rung: Rung, renderer: Renderer | None, summarizer: Summarizer | None
) -> None:
    keep = int(plan.parameters.get("keep_turns", DEFAULT_KEEP_TURNS))
    if rung in ("elide", "images"):
        rung_fn = elide if rung == "elide" else drop_images
        new_path, report = rung_fn(plan.path, keep_turns=keep)
        plan.path = tuple(new_path)
        plan.reports[rung] = report
        plan.rungs += (rung,)
    elif rung == "snapshot" and renderer is not None:
        _snapshot(plan, renderer, summarizer is not None)
    elif rung == "summary" and summarizer is not None:
        _summary(plan, summarizer)


def _candidates(plan: CompactionPlan) -> list[Split]:
    """Splits from the longest verbatim tail to the shortest, each with a middle.

    The head is chosen by a price that does not move between rounds: the uncorrected
    heuristic, against the proactive aim (threshold of the window less the reserve) in every
    mode. A conversation compacted again, reactively or after the estimator learned, keeps
    the same verbatim start, so the provider's cache of it keeps hitting.
    """
    target = min(plan.target or 10**12, plan.estimator.estimate(plan.path))
    fixed = Estimator(plan.estimator.family, image_tokens=plan.estimator.image_tokens)
    aim = plan.target
    if plan.window is not None:
        aim = int((plan.window - plan.output_reserve) * float(plan.parameters.get(
            "threshold", 0.8)))
    head_target = min(aim or 10**12, fixed.estimate(plan.path))
    head_budget = int(head_target * float(plan.parameters.get("head_fraction", 0.15)))
    out: list[Split] = []
    for frac in TAIL_FRACTIONS:
        split = best_split(plan.path, plan.estimator, head_budget=head_budget,
                           tail_budget=int(target * frac), head_estimator=fixed)
        if split.middle and all(s.tail_start != split.tail_start for s in out):
            out.append(split)
    return out


def _snapshot(plan: CompactionPlan, renderer: Renderer, summary_next: bool = False) -> None:
    """Image the middle: the longest tail whose context fits, else the smallest context."""
    candidates = _candidates(plan)
    if not candidates:
        plan.notes.append("snapshot skipped: no turn boundary leaves a middle to image")
        return
    target = plan.target or plan.estimator.estimate(plan.path)
    max_chars = min(
        int(plan.parameters.get("max_fact_chars", DEFAULT_MAX_CHARS)),
        int(target * FACT_SHARE * CHARS_PER_TOKEN),
    )
    best: tuple[int, Split, tuple[PageLike, ...], FactSheet] | None = None
    for split in candidates:
        pages = tuple(renderer(split.middle))
        facts = _fact_sheet(plan, split, pages, max_chars)
        msg = snapshot_message(pages, facts)
        tokens = plan.estimator.estimate([*split.head, msg, *split.tail])
        if best is None or tokens < best[0]:
            best = (tokens, split, pages, facts)
        if plan.target is None or tokens <= plan.target:
            best = (tokens, split, pages, facts)
            break
    assert best is not None
    if best[0] >= plan.tokens and plan.parameters.get("force") != "snapshot":
        plan.notes.append(f"snapshot skipped: pages would cost {best[0]} >= {plan.tokens} tokens")
        return
    _, split, drawn, facts = best
    sent = _within_image_limit(plan, split, drawn, summary_next)
    if sent is None:
        return
    plan.split, plan.pages, plan.facts = split, sent, facts
    if facts.omitted:
        plan.notes.append(_left_out_note(facts))
    plan.rungs += ("snapshot",)


def _fact_sheet(plan: CompactionPlan, split: Split, pages: tuple[PageLike, ...],
                max_chars: int) -> FactSheet:
    """The middle's fact sheet as the pipeline sends it beside ``pages``."""
    images = [p for p in snapshot_message(pages, None).parts if p.kind == "image"]
    page_tokens = sum(plan.estimator.part(p) for p in images)
    pins = plan.parameters.get("pins") or ()
    return sheet_beside_pages(split.middle, [*split.head, *split.tail], page_tokens,
                              plan.estimator, max_chars, pinned=pins)


def sheet_beside_pages(middle: Sequence[Message], verbatim: Sequence[Message],
                       page_tokens: int, estimator: Estimator,
                       max_chars: int = DEFAULT_MAX_CHARS, pinned: Sequence[str] = ()
                       ) -> FactSheet:
    """The fact sheet for ``middle`` imaged as pages costing ``page_tokens``: every exact
    string the verbatim start and end do not hold, unless pages and sheet would then cost more
    than ``FACT_TEXT_SHARE`` of the middle as text (a sheet of ``FACT_FLOOR_TOKENS`` is always
    allowed), and within ``max_chars``."""
    as_text = estimator.estimate(middle, with_overhead=False)
    allowed = int(max(FACT_FLOOR_TOKENS, FACT_TEXT_SHARE * as_text - page_tokens))
    return fact_sheet(middle, max_chars=max_chars, verbatim=verbatim, max_tokens=allowed,
                      tokens=lambda text: estimator.correct(estimator.text_tokens(text)),
                      pinned=pinned)


def _left_out_note(facts: FactSheet) -> str:
    kinds = ", ".join(f"{n} {kind}" for kind, n in facts.left_out)
    return (f"the fact sheet leaves out {facts.omitted} exact string(s) ({kinds}) to keep pages "
            f"and sheet under {FACT_TEXT_SHARE:.0%} of the middle as text; they are on the pages")


def _within_image_limit(plan: CompactionPlan, split: Split, pages: tuple[PageLike, ...],
                        summary_next: bool) -> tuple[PageLike, ...] | None:
    """The pages a request may carry beside the images the head and tail keep.

    Over the provider's limit, the middle goes to the summary rung when a summarizer can take
    it (``None``: snapshots skipped); otherwise the oldest pages are left out and the plan
    says which, so the preview shows exactly what the encoder will send.
    """
    limit = plan.parameters.get("max_images")
    if not isinstance(limit, int):
        return pages
    kept = sum(1 for m in (*split.head, *split.tail) for p in m.parts
               if p.kind == "image" and p.data)
    room = max(0, limit - kept)
    if len(pages) <= room:
        return pages
    why = (f"{len(pages)} pages and {kept} kept image(s) pass the provider's limit of {limit} "
           "images per request")
    if summary_next and plan.parameters.get("force") != "snapshot":
        plan.notes.append(f"snapshot skipped: {why}; the summary rung carries the middle")
        return None
    left = len(pages) - room
    plan.notes.append(f"{why}: the {left} oldest page(s) are left out (their text is not sent; "
                      "the fact sheet still carries the middle's ids)")
    return pages[left:]


def _summary(plan: CompactionPlan, summarizer: Summarizer) -> None:
    """Summarize the middle of the split that leaves room for a summary; one model call."""
    candidates = _candidates(plan)
    if not candidates:
        plan.notes.append("summary skipped: no turn boundary leaves a middle to summarize")
        return
    target = plan.target or plan.estimator.estimate(plan.path)
    room = int(target * (1 - SUMMARY_SHARE)) - plan.estimator.overhead
    split = next((s for s in candidates if s.head_tokens + s.tail_tokens <= room), candidates[-1])
    request = build_summary_request(split.middle, plan.estimator, target)
    text = summarizer.summarize(request)
    plan.split, plan.summary_request, plan.summary = split, request, text
    plan.pages, plan.facts = (), None
    plan.rungs += ("summary",)
    head_id = split.head[-1].id if split.head else None
    if plan.estimator.estimate([*split.head, summary_message(text, head_id), *split.tail]) > target:
        plan.notes.append("the summary came back longer than the room left for it")
