"""What a branch about to be shared holds that the person may not want to give away (R1).

Before a share is written, every secret the redaction rules find (in text, tool calls and
their output, the title; in images' metadata, and their pixels where OCR reads them), every
absolute path and every e-mail address is listed by category, each category to keep or
redact. The branch is read a chunk of messages at a time, so a 100,000-message branch is
reviewed without holding it.
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from dataclasses import dataclass, field

from explorer.app.sharing.image_ocr import pixel_reader
from explorer.app.sharing.share_scan import CATEGORIES, FINDERS, NAMES, SECRETS
from explorer.store import Store, StoreError
from explorer.store.rows import db_id, load_messages
from explorer.tree import secrets
from explorer.tree.model import Message

CHUNK = 256
SHOWN = 12  # items listed per category; the rest are counted


@dataclass
class Item:
    """One distinct thing found: a secret's kind (never its value), a path, an address."""

    value: str
    count: int = 0
    messages: list[int] = field(default_factory=list)
    places: set[str] = field(default_factory=set)

    def seen(self, mid: int | None, place: str) -> None:
        self.count += 1
        self.places.add(place)
        if mid is not None and mid not in self.messages and len(self.messages) < 5:
            self.messages.append(mid)


@dataclass
class Review:
    conversation_id: int
    at: int
    messages: int
    found: dict[str, dict[str, Item]] = field(
        default_factory=lambda: {c: {} for c in CATEGORIES})
    unscanned_images: int = 0
    ocr: bool = False

    def count(self, category: str) -> int:
        return sum(i.count for i in self.found[category].values())

    def add(self, category: str, value: str, mid: int | None, place: str) -> None:
        self.found[category].setdefault(value, Item(value)).seen(mid, place)

    def lines(self) -> list[str]:
        out = [f"review of the path to message {self.at} ({self.messages} messages):"]
        for cat in CATEGORIES:
            items = sorted(self.found[cat].values(), key=lambda i: -i.count)
            out.append(f"  {NAMES[cat]}: {self.count(cat) or 'none'}")
            for item in items[:SHOWN]:
                where = ", ".join(sorted(item.places))
                ids = ", ".join(map(str, item.messages))
                out.append(f"    {item.value} ×{item.count} ({where}; message {ids})")
            if len(items) > SHOWN:
                out.append(f"    and {len(items) - SHOWN} more")
        if self.unscanned_images:
            out.append(f"  {secrets.unscanned_note(self.unscanned_images)}")
        return out


def path_chunks(store: Store, conv_id: int, at: int) -> Iterator[list[Message]]:
    """The path from the root to ``at``, a chunk of messages at a time."""
    if store.message_conversation(at) != conv_id:
        raise StoreError(f"message {at} is not in conversation {conv_id}")
    ids = store.path_ids(at)
    for start in range(0, len(ids), CHUNK):
        part = ids[start:start + CHUNK]
        loaded = load_messages(store.reader, part)
        yield [loaded[i] for i in part]


def review_branch(store: Store, conv_id: int, at: int, ocr: bool = False) -> Review:
    review = Review(conv_id, at, 0, ocr=ocr)
    pixels = pixel_reader(ocr)
    title = store.conversation(conv_id, boundary=False).title or ""
    _scan(review, title, None, "title")
    for chunk in path_chunks(store, conv_id, at):
        review.messages += len(chunk)
        _scan_secrets(review, chunk, pixels)
        for m in chunk:
            for p in m.parts:
                if p.kind != "image" and p.text:
                    _scan(review, p.text, db_id(m.id), _place(p.kind), secrets_too=False)
    return review


def _scan_secrets(review: Review, chunk: Sequence[Message],
                  pixels: secrets.PixelReader | None) -> None:
    """Secrets as the redaction rules find them (the same pass the share writes with)."""
    done, found = secrets.redact_messages(chunk, pixels)
    review.unscanned_images += secrets.unscanned_images(done)
    parts: dict[tuple[object, int | None], str] = {
        (m.id, i): p.kind for m in chunk for i, p in enumerate(m.parts)}
    for f in found:
        kind = parts.get((f.message_id, f.part_index), "text")
        place = f.where or _place(kind)
        review.add(SECRETS, f.kind, db_id(f.message_id) if f.message_id is not None else None,
                   place)


def _scan(review: Review, text: str, mid: int | None, place: str,
          secrets_too: bool = True) -> None:
    if secrets_too:
        for _, _, kind in secrets.find_spans(text):
            review.add(SECRETS, kind, mid, place)
    for cat, finder in FINDERS.items():
        for value in finder(text):
            review.add(cat, value, mid, place)


def _place(kind: str) -> str:
    return {"tool_use": "tool call", "tool_result": "tool output", "thinking": "thinking",
            "image": "image"}.get(kind, "text")
