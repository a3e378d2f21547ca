"""L4 at the ladder: pages are drawn again from source text on every pass, never from pixels."""

from __future__ import annotations

import hashlib
from collections.abc import Sequence

from coding_session import coding_session

from explorer.compaction.estimate import Estimator
from explorer.compaction.ladder import run_ladder
from explorer.compaction.page_geometry import page_geometry
from explorer.compaction.snapshot_render import render_snapshot
from explorer.compaction.split import PageLike
from explorer.tree.model import Message, Part

GEOMETRY = page_geometry("anthropic", tier="dense")
HUGE = 10**7


class RecordingRenderer:
    """The real snapshot renderer, keeping every middle it was asked to draw."""

    def __init__(self) -> None:
        self.calls: list[tuple[Message, ...]] = []

    def __call__(self, middle: Sequence[Message]) -> Sequence[PageLike]:
        self.calls.append(tuple(middle))
        return render_snapshot(middle, GEOMETRY).pages


def _hashes(pages: Sequence[PageLike]) -> list[str]:
    return [hashlib.sha256(p.png).hexdigest() for p in pages]


def _scrambled(messages: Sequence[Message]) -> list[Message]:
    """The same messages with every image's bytes replaced by other bytes of the same size."""
    out = []
    for m in messages:
        parts = [
            Part("image", data=bytes(len(p.data)), media_type=p.media_type, meta=p.meta)
            if p.kind == "image" and p.data is not None
            else p
            for p in m.parts
        ]
        out.append(Message(m.id, m.parent_id, m.role, parts))
    return out


def test_L4_compacting_the_stored_path_again_gives_exactly_the_same_pages() -> None:
    path = coding_session()
    first = run_ladder(path, HUGE, Estimator(), RecordingRenderer(), force="snapshot")
    second = run_ladder(path, HUGE, Estimator(), RecordingRenderer(), force="snapshot")
    assert "snapshot" in first.rungs and first.pages
    assert first.split is not None and second.split is not None
    assert _hashes(second.pages) == _hashes(first.pages)
    fresh = render_snapshot(first.split.middle, GEOMETRY).pages  # from the retained source text
    assert _hashes(fresh) == _hashes(first.pages)


def test_L4_compacting_a_compacted_context_gives_exactly_the_pages_of_compacting_once() -> None:
    path = coding_session()
    once = run_ladder(path, HUGE, Estimator(), RecordingRenderer(), force="snapshot")
    assert "snapshot" in once.rungs and once.pages
    renderer = RecordingRenderer()
    twice = run_ladder(once.messages(), HUGE, Estimator(), renderer, force="snapshot")
    assert _hashes(twice.pages) == _hashes(once.pages)
    assert [m.id for m in twice.messages()] == [m.id for m in once.messages()]
    page_bytes = {p.png for p in once.pages}
    for middle in renderer.calls:  # the renderer saw source text, never the first pages
        assert not any(p.data in page_bytes for m in middle for p in m.parts if p.kind == "image")


def test_L4_an_image_in_the_middle_never_becomes_glyphs() -> None:
    path = coding_session()
    renderer = RecordingRenderer()
    run_ladder(path, HUGE, Estimator(), renderer, force="snapshot")
    for middle in renderer.calls:
        # An image is drawn as its marker: the pages are the same whatever bytes it holds.
        drawn = _hashes(render_snapshot(middle, GEOMETRY).pages)
        assert drawn == _hashes(render_snapshot(_scrambled(middle), GEOMETRY).pages)
