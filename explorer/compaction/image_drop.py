"""L2: old images replaced by a marker saying what they were.

Screenshots are the largest single items of many sessions and the first thing
a later turn no longer needs; the text around them (the question asked about
the image, the answer) stays as it was. Images inside tool-result messages are
dropped the same way. The recent window keeps its images.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import replace

from explorer.compaction.elision import DEFAULT_KEEP_TURNS, Removal, RungReport, protected_from
from explorer.compaction.estimate import image_size
from explorer.tree.model import Message, Part


def image_marker(part: Part) -> str:
    """``[image dropped: image/png, 1280x800 px, 245,123 bytes]``."""
    media = part.media_type or "image"
    data = part.data or b""
    size = image_size(data) if data else None
    pixels = f"{size[0]}x{size[1]} px" if size else "size unknown"
    return f"[image dropped: {media}, {pixels}, {len(data):,} bytes]"


def _dropped(part: Part) -> Part:
    data = part.data or b""
    size = image_size(data) if data else None
    info = {
        "media_type": part.media_type,
        "bytes": len(data),
        "width": size[0] if size else None,
        "height": size[1] if size else None,
    }
    meta = {k: v for k, v in part.meta.items()}
    meta["dropped_image"] = info
    return Part("text", image_marker(part), meta=meta)


def drop_images(
    path: Sequence[Message], *, keep_turns: int = DEFAULT_KEEP_TURNS
) -> tuple[list[Message], RungReport]:
    """Return the path with images before the protected window turned into markers."""
    cutoff = protected_from(path, keep_turns)
    out: list[Message] = []
    removed: list[Removal] = []
    for i, m in enumerate(path):
        if i >= cutoff or not any(p.kind == "image" for p in m.parts):
            out.append(m)
            continue
        parts: list[Part] = []
        for j, p in enumerate(m.parts):
            if p.kind != "image":
                parts.append(p)
                continue
            parts.append(_dropped(p))
            removed.append(Removal(m.id, j, "image", p.media_type or "image", len(p.data or b"")))
        out.append(replace(m, parts=parts))
    return out, RungReport("images", tuple(removed))
