"""Codex rollout export, read back through the Codex importer."""

from __future__ import annotations

import json
from pathlib import Path

from explorer.app.importing.demo import load_demo
from explorer.formats import codex
from explorer.formats.exporters.codex import lines
from explorer.formats.exporters.steps import INTERRUPTED
from explorer.store import Store
from explorer.tree.model import Message, Part, text_message


def write(tmp_path: Path, out: list[str]) -> Path:
    f = tmp_path / "rollout.jsonl"
    f.write_text("\n".join(out) + "\n", encoding="utf-8")
    return f


def test_the_demo_reads_back_with_every_word_and_call(tmp_path: Path) -> None:
    with Store(tmp_path / "d.db") as store:
        cid = load_demo(store)
        conv = store.conversation(cid)
        path = store.path(cid, conv.tip_id)
    header = {"title": conv.title, "source_id": conv.source_id, "cwd": "/work/orders",
              "meta": {"git_branch": "fix-csv"}}
    notes: list[str] = []
    out = list(lines(header, path, path[-1].id, notes))
    meta = json.loads(out[0])
    assert meta["type"] == "session_meta" and meta["payload"]["cwd"] == "/work/orders"
    assert meta["payload"]["git"] == {"branch": "fix-csv"}
    back = next(codex.read(write(tmp_path, out)))
    assert back.source_id == meta["payload"]["id"] and back.meta["git_branch"] == "fix-csv"
    texts = [p.text for m in path if m.role != "system" for p in m.parts
             if p.kind == "text" and p.text.strip()]
    assert [p.text for m in back.messages if m.role != "system" for p in m.parts
            if p.kind == "text"] == texts
    calls = [p.tool_use_id for m in path for p in m.tool_uses()]
    assert [p.tool_use_id for m in back.messages for p in m.tool_uses()] == calls
    assert not back.incomplete
    prompts = [json.loads(x)["payload"]["message"] for x in out
               if '"user_message"' in x and '"event_msg"' in x]
    assert prompts and all(isinstance(p, str) for p in prompts)


def test_an_unanswered_call_is_answered_and_sealed_reasoning_kept(tmp_path: Path) -> None:
    path = [
        text_message("u", None, "user", "patch it"),
        Message("a", "u", "assistant", [
            Part("thinking", "plan", meta={"encrypted_content": "gAAA-sealed"}),
            Part("tool_use", "*** Begin Patch", tool_name="apply_patch", tool_use_id="c1",
                 meta={"custom": True})]),
    ]
    notes: list[str] = []
    back = next(codex.read(write(tmp_path, list(lines({"title": "t"}, path, "a", notes)))))
    parts = [p for m in back.messages for p in m.parts]
    thinking = next(p for p in parts if p.kind == "thinking")
    assert thinking.meta["encrypted_content"] == "gAAA-sealed" and thinking.text == "plan"
    use = next(p for p in parts if p.kind == "tool_use")
    assert use.meta.get("custom") is True and use.text == "*** Begin Patch"
    result = next(p for p in parts if p.kind == "tool_result")
    assert result.tool_use_id == "c1" and result.text == INTERRUPTED
    assert any("interrupted" in n for n in notes)
