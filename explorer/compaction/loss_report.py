"""The loss report: every exact string a compaction discards and where it goes (L8).

For a built plan, each item of what the ladder took out of the text (the middle, and the tool
results and images the free rungs replaced by markers) goes to the first of: ``verbatim`` (the
head or tail sent as text still holds it), ``fact_sheet`` (the sheet beside the pages carries
it), ``page`` (drawn on a snapshot page, with its page, line and whether the legibility proxy
says it reads back, ``page_lines``), ``summary_request`` (the transcript the summary model is
given holds it), ``summary`` (a summary already written holds it) or ``nowhere``. Pins are
listed with their state; a pin whose string the context no longer holds is ``stale``.
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterator, Sequence
from dataclasses import dataclass, field
from typing import Any

from explorer.compaction.context import CompactionPlan
from explorer.compaction.elision import jsonable_id
from explorer.compaction.fact_layout import expand, one_line
from explorer.compaction.facts import message_texts
from explorer.compaction.loss_items import KINDS, Item, items, message_items
from explorer.compaction.page_geometry import PageGeometry
from explorer.compaction.page_lines import PageIndex
from explorer.tree.model import Message

BUCKETS = ("verbatim", "fact_sheet", "page_read_back", "page_unsure", "summary_request",
           "summary", "nowhere")
BUCKET_TEXT = {"verbatim": "kept verbatim", "fact_sheet": "on the fact sheet",
               "page_read_back": "on pages read back exactly",
               "page_unsure": "on pages not surely read back",
               "summary_request": "in the summary request", "summary": "in the summary",
               "nowhere": "nowhere"}
PLURAL = {"command": "commands", "path": "paths", "id": "ids and hashes", "url": "URLs",
          "number": "numbers", "error": "errors", "decision": "decisions"}
SINGULAR = {"id": "id or hash", "url": "URL"}


@dataclass(frozen=True)
class Entry:
    """One item and where it goes."""

    item: Item
    destination: str
    page: int | None = None  # 1-based, as the preview and the saved files number pages
    line: int | None = None
    read_back: bool | None = None
    pinned: bool = False
    elided: bool = False  # a free rung replaced the part holding it by a marker

    @property
    def bucket(self) -> str:
        if self.destination != "page":
            return self.destination
        return "page_read_back" if self.read_back else "page_unsure"

    def to_dict(self) -> dict[str, Any]:
        return {"kind": self.item.kind, "text": self.item.text, "destination": self.destination,
                "page": self.page, "line": self.line, "read_back": self.read_back,
                "pinned": self.pinned, "elided": self.elided,
                "message": jsonable_id(self.item.message_id),
                **({"name": self.item.name} if self.item.name else {})}


@dataclass
class LossReport:
    """The items in order of first appearance, the pins' states and the counts per kind."""

    rung: str
    entries: list[Entry] = field(default_factory=list)
    pins: dict[str, str] = field(default_factory=dict)  # pinned text -> its state
    notes: list[str] = field(default_factory=list)
    about: dict[str, Any] = field(default_factory=dict)  # an applied compaction: which one

    def counts(self) -> dict[str, dict[str, int]]:
        out = {k: dict.fromkeys(("total", *BUCKETS), 0) for k in KINDS}
        for e in self.entries:
            out[e.item.kind]["total"] += 1
            out[e.item.kind][e.bucket] += 1
        return {k: v for k, v in out.items() if v["total"]}

    def count_lines(self) -> list[str]:
        """``214 commands: 180 on pages read back exactly, 30 on the fact sheet, 4 nowhere``."""
        lines = []
        for kind, c in self.counts().items():
            where = ", ".join(f"{c[b]} {BUCKET_TEXT[b]}" for b in BUCKETS if c[b])
            name = PLURAL[kind] if c["total"] != 1 else SINGULAR.get(kind, kind)
            lines.append(f"{c['total']} {name}: {where}")
        return lines

    def to_dict(self) -> dict[str, Any]:
        return {"rung": self.rung, **self.about, "counts": self.counts(),
                "items": [e.to_dict() for e in self.entries],
                "pins": [{"text": t, "state": s} for t, s in self.pins.items()],
                "notes": list(self.notes)}


def _discarded(original: Sequence[Message], plan: CompactionPlan) -> Iterator[Item]:
    """The items the plan no longer sends as text: the whole middle, and in the head and
    tail what the free rungs replaced by markers."""
    middle = {m.id for m in plan.split.middle} if plan.split else set()
    built = {m.id: m for m in plan.path}
    seen: set[tuple[str, str]] = set()
    files: dict[str, str] = {}
    built_files: dict[str, str] = {}
    for m in original:
        if m.id in middle:
            found: Iterator[Item] = message_items(m, files)
        else:
            kept = {(i.kind, i.text) for i in message_items(built.get(m.id, m), built_files)}
            found = (i for i in message_items(m, files) if (i.kind, i.text) not in kept)
        for item in found:
            if (item.kind, item.text) not in seen:
                seen.add((item.kind, item.text))
                yield item


def loss_report(original: Sequence[Message], plan: CompactionPlan,
                geometry: PageGeometry | None, pins: Sequence[str] = ()) -> LossReport:
    """Where each exact string ``plan`` takes out of ``original`` (the context it was built
    from, after redaction) goes; ``geometry`` is the pages' (None: no pages)."""
    rung = plan.rungs[-1] if plan.rungs else "none"
    report = LossReport(rung)
    split = plan.split
    verbatim = [*split.head, *split.tail] if split else list(plan.path)
    known = "\n".join(t for _, t in message_texts(verbatim))
    sheet = plan.facts.text if plan.facts is not None and plan.summary is None else ""
    sheet_has = SheetStrings(sheet)
    request = plan.summary_request.prompt if plan.summary_request is not None else ""
    summary = plan.summary or ""
    index = PageIndex(split.middle, geometry) if split and plan.pages and geometry else None
    first_sent = index.pages - len(plan.pages) if index else 0
    if first_sent > 0:
        report.notes.append(f"the {first_sent} oldest page(s) are over the provider's image "
                            "limit and are not sent")
    rendered = {m.id: m for m in split.middle} if split else {}
    plan_messages = {m.id: m for m in plan.path}
    pinned = set(pins)
    for item in _discarded(original, plan):
        text = item.text
        pin = text in pinned
        if text in known:
            report.entries.append(Entry(item, "verbatim", pinned=pin))
            continue
        if sheet_has(item):
            report.entries.append(Entry(item, "fact_sheet", pinned=pin))
            continue
        place = None
        if index is not None and item.message_id in rendered:
            place = index.place(rendered[item.message_id], text)
        if place is not None and place.page >= first_sent:
            report.entries.append(Entry(item, "page", place.page - first_sent + 1, place.line,
                                        index.reads_back(text) if index else None, pin))
        elif summary and _within(text, summary):
            report.entries.append(Entry(item, "summary", pinned=pin))
        elif request and _within(text, request):
            report.entries.append(Entry(item, "summary_request", pinned=pin))
        else:
            built = plan_messages.get(item.message_id)
            gone = built is not None and not _holds(built, text)
            report.entries.append(Entry(item, "nowhere", pinned=pin, elided=gone))
    report.pins = pin_states(original, pins, known, sheet)
    return report


def _within(text: str, hay: str) -> bool:
    """``text`` in ``hay`` as written, or JSON-escaped as a tool call's input holds it."""
    return text in hay or json.dumps(text, ensure_ascii=False)[1:-1] in hay


def _holds(message: Message, text: str) -> bool:
    """True when a part of ``message`` (as the plan built it) still holds ``text``."""
    return any(_within(text, t) for _, t in message_texts([message]))


class SheetStrings:
    """Whether the fact sheet carries an item: as a string of its own, inside a longer one (a
    hash in a path), or for a number, as the number beside its name (``duration_ms 8127``)."""

    def __init__(self, sheet: str) -> None:
        strings = expand(sheet) if sheet else []
        self._joined = "\n".join(strings)
        self._numbers = {re.split(r"[ =:]", s)[-1] for s in strings} | set(strings)

    def __call__(self, item: Item) -> bool:
        if not self._joined:
            return False
        if item.kind == "number":
            return item.text in self._numbers
        return one_line(item.text) in self._joined


def summary_holds(summary: str, item: Item) -> bool:
    """True when ``summary`` carries the item's exact string (a number as a whole number)."""
    if item.kind != "number":
        return item.text in summary
    return re.search(rf"(?<![\w.]){re.escape(item.text)}(?![\w]|\.\d)", summary) is not None


def summary_report(replaced: Sequence[Message], summary: str, rung: str) -> LossReport:
    """After the fact: each exact string of ``replaced`` either in the ``summary`` that stands
    for it now, or nowhere."""
    report = LossReport(rung)
    for item in items(replaced):
        where = "summary" if summary_holds(summary, item) else "nowhere"
        report.entries.append(Entry(item, where))
    return report


def pin_states(original: Sequence[Message], pins: Sequence[str], known: str, sheet: str
               ) -> dict[str, str]:
    """Each pin's state: on the sheet, kept verbatim, not carried, or ``stale`` (the context no
    longer holds its string; listed, never dropped silently)."""
    texts = [t for _, t in message_texts(original)]
    out = {}
    for pin in pins:
        if sheet and one_line(pin) in sheet:
            out[pin] = "fact_sheet"
        elif pin in known:
            out[pin] = "verbatim"
        elif any(pin in t for t in texts):
            out[pin] = "not carried"
        else:
            out[pin] = "stale"
    return out


__all__ = ["BUCKETS", "Entry", "LossReport", "items", "loss_report", "summary_report"]
