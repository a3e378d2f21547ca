"""L2: old images become markers; the text around them stays."""

from __future__ import annotations

import copy

from coding_session import Builder, coding_session, png_bytes

from explorer.compaction.image_drop import drop_images, image_marker
from explorer.tree.model import Part


def test_L2_old_screenshot_becomes_marker_with_kind_and_size() -> None:
    path = coding_session()
    idx = next(i for i, m in enumerate(path) if any(p.kind == "image" for p in m.parts))
    shot = next(p for p in path[idx].parts if p.kind == "image")
    out, report = drop_images(path, keep_turns=3)
    parts = out[idx].parts
    assert [p.kind for p in parts] == ["text", "text", "text"]
    assert parts[0].text == "Here is what the app shows after the change:"
    assert parts[2].text == "Why is the tree empty?"
    assert (
        parts[1].text == f"[image dropped: image/png, 1280x800 px, {len(shot.data or b''):,} bytes]"
    )
    assert parts[1].meta["dropped_image"]["width"] == 1280
    assert report.removed[0].size == len(shot.data or b"")


def test_L2_images_inside_tool_results_are_dropped_too() -> None:
    path = coding_session()
    idx = next(
        i
        for i, m in enumerate(path)
        if any(p.kind == "tool_result" for p in m.parts) and any(p.kind == "image" for p in m.parts)
    )
    out, _ = drop_images(path, keep_turns=3)
    assert out[idx].parts[0] == path[idx].parts[0]
    assert out[idx].parts[1].text.startswith("[image dropped: image/png, 800x600 px")


def test_L2_recent_images_are_kept() -> None:
    path = coding_session()
    out, report = drop_images(path, keep_turns=6)
    assert report.count == 0 and out == path


def test_L2_unreadable_image_says_size_unknown() -> None:
    part = Part("image", data=b"\x89PNG broken", media_type="image/png")
    assert image_marker(part) == "[image dropped: image/png, size unknown, 11 bytes]"


def test_L2_input_unchanged_and_idempotent() -> None:
    path = coding_session()
    before = copy.deepcopy(path)
    once, first = drop_images(path)
    assert path == before and first.count == 2
    twice, again = drop_images(once)
    assert twice == once and again.count == 0
    assert not any(p.kind == "image" for m in once[:-12] for p in m.parts)


def test_L2_turn_structure_is_unchanged() -> None:
    b = Builder()
    b.add("user", Part("image", data=png_bytes(64, 64), media_type="image/png"))
    b.add("assistant", Part("text", "A blue square."))
    for n in range(3):
        b.add("user", Part("text", f"turn {n}"))
        b.add("assistant", Part("text", "ok"))
    out, _ = drop_images(b.path)
    assert [m.is_prompt for m in out] == [m.is_prompt for m in b.path]
    assert out[0].parts[0].text.startswith("[image dropped: image/png, 64x64 px")
