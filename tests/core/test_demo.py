"""The bundled demo shows every feature: edit, regenerate, tools with an error, image,
checkpoint, rewind and fork."""

from __future__ import annotations

from pathlib import Path

from helpers import new_store

from explorer.app.importing.demo import load_demo
from explorer.tree.turns import boundary_flags


def test_demo_holds_every_feature(tmp_path: Path) -> None:
    with new_store(tmp_path) as s:
        conv = load_demo(s)
        assert load_demo(s) == conv, "loading twice must not duplicate"
        nodes = s.skeleton(conv)
        msgs = [s.message(n.id) for n in nodes]
        edited = [m for m in msgs if m.source_meta.get("edited_from")]
        assert len(edited) == 1
        original = edited[0].source_meta["edited_from"]
        assert s.siblings(original) == [original, edited[0].id]
        assert len(s.children(original)) == 1 and len(s.children(edited[0].id)) == 1
        regenerated = [n.id for n in nodes if n.role == "user" and len(s.children(n.id)) == 2
                       and all(s.message(k).role == "assistant" for k in s.children(n.id))]
        assert regenerated, "a prompt with two sibling answers"
        parts = [p for m in msgs for p in m.parts]
        assert any(p.kind == "tool_result" and p.is_error for p in parts)
        assert any(p.kind == "image" and (p.data or b"").startswith(b"\x89PNG") for p in parts)
        assert {"diagnosed", "fixed"} <= set(s.checkpoints(conv))
        assert len(s.rewinds(conv)) == 1
        forks = [c for c in s.conversations() if c.forked_from_conversation_id == conv]
        assert len(forks) == 1 and forks[0].message_count > 0
        assert boundary_flags(s.path(conv))[-1], "the demo tip is at a turn boundary"
