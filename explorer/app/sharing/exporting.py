"""Exporting a conversation or one branch of it."""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from dataclasses import replace
from pathlib import Path
from typing import Any

from explorer.app.preferences import load_app_prefs
from explorer.app.sharing import redaction as export_redaction
from explorer.app.sharing import safe_write
from explorer.app.sharing.image_ocr import missing_note, pixel_reader
from explorer.formats import native
from explorer.formats.exporters import EXPORTERS as FORMAT_EXPORTERS
from explorer.formats.exporters import Exporter
from explorer.providers.request_export import EXPORTERS as REQUEST_EXPORTERS
from explorer.store import Store, StoreError
from explorer.store.reads_all import conversation_messages
from explorer.tree.model import Message

# The file formats, then the provider request bodies (one encoder per provider, as send uses).
EXPORTERS: dict[str, Exporter] = {**FORMAT_EXPORTERS, **REQUEST_EXPORTERS}
FORMATS = ("native", *EXPORTERS)


def purpose(fmt: str) -> str:
    """What a format is for, in a line for the format picker."""
    if fmt == native.FORMAT:
        return "lossless file this program imports again (tree, checkpoints, compactions)"
    return EXPORTERS[fmt].description if fmt in EXPORTERS else ""


def export_lines(
    store: Store, conv_id: int, fmt: str = "native", at: int | None = None,
    notes: list[str] | None = None, place: Mapping[str, Any] | None = None,
    redact: bool = True, ocr: bool | None = None,
) -> Iterator[str]:
    """The export as lines; with ``at`` only the branch from the root to that message.

    ``place`` overrides header fields an agent files the session by (``cwd``,
    ``agent_version``, ``meta``), for a hand-back to an agent.

    ``notes`` collects what a lossy format had to change (left-out system text,
    synthesized tool results) so the caller can tell the person.

    Every format but ``native`` is meant for sharing or sending: its secrets are replaced by
    ``[redacted: kind]`` and listed in ``notes`` unless ``redact`` is False (SPEC R1). The
    native export is a backup and stays exact. ``ocr`` reads images with Tesseract to black
    out secrets drawn in them (None: as the ``ocr_images`` preference says).
    """
    if fmt not in FORMATS:
        raise StoreError(f"unknown export format {fmt!r} (known: {', '.join(FORMATS)})")
    conv = store.conversation(conv_id)
    if at is not None:
        if store.message_conversation(at) != conv_id:
            raise StoreError(f"message {at} is not in conversation {conv_id}")
        messages = store.path(conv_id, at)
        tip: int | None = at
    else:
        messages = conversation_messages(store.reader, conv_id)
        tip = conv.tip_id
    uid = conv.meta.get("uid", "")
    messages = [m if m.source_id is not None else replace(m, source_id=f"ce:{uid}:{m.id}")
                for m in messages]
    header = {
        "title": conv.title, "source_format": conv.source_format or native.FORMAT,
        "source_id": conv.source_id or f"ce:{uid}", "created_at": conv.created_at,
        "meta": conv.meta,
    }
    header.update(place or {})
    if conv.forked_from_conversation_id is not None:
        header["forked_from"] = {"conversation": conv.forked_from_conversation_id,
                                 "message": conv.forked_from_message_id}
    if fmt != native.FORMAT:
        # The checkpoints as they are now, not as the source file had them (pi writes labels).
        header["checkpoints"] = store.checkpoints(conv_id)
        if redact:
            messages = _redacted(messages, header, notes, ocr)
        elif notes is not None:
            notes.append("secrets were not redacted (asked for): this file carries them as "
                         "stored")
        yield from EXPORTERS[fmt].lines(header, messages, tip, notes)
        return
    yield from native.dump_lines(
        header, messages, tip=tip, context_start=conv.context_start_id,
        checkpoints=store.checkpoints(conv_id), rewinds=store.rewinds(conv_id),
        compactions=store.compactions(conv_id),
    )


def _redacted(messages: list[Message], header: dict[str, Any], notes: list[str] | None,
              ocr: bool | None) -> list[Message]:
    """The messages and ``header`` with every secret they would write replaced; listed."""
    wanted = load_app_prefs().ocr_images if ocr is None else ocr
    out, found = export_redaction.redact_export(messages, header, pixel_reader(wanted))
    if notes is not None:
        notes += export_redaction.export_notes(out, found) + missing_note(wanted)
    return out


def export_to_file(store: Store, conv_id: int, dest: Path, fmt: str = "native",
                   at: int | None = None, notes: list[str] | None = None,
                   redact: bool = True, place: Mapping[str, Any] | None = None,
                   ocr: bool | None = None) -> int:
    """Write the export; returns the number of lines written.

    The file is written beside ``dest`` and renamed into place when complete, and
    the store's own database (or its ``-wal``/``-shm``) is refused as a target.
    """
    n = 0
    with safe_write.atomic_text(dest, store.db_path) as f:
        for line in export_lines(store, conv_id, fmt, at, notes, place, redact=redact,
                                 ocr=ocr):
            f.write(line + "\n")
            n += 1
    return n
