"""Claude Code session export: a uuid chain Claude Code writes, read back by our importer."""

from __future__ import annotations

import itertools
import json
import uuid
from collections import defaultdict
from pathlib import Path
from typing import Any

from explorer.app.importing.demo import load_demo
from explorer.formats import claude_code
from explorer.formats.exporters.claude_code import lines, session_id
from explorer.formats.exporters.steps import INTERRUPTED, active_path
from explorer.store import Store
from explorer.tree.model import Message, Part, text_message
from tests.corpus import claude_code_sessions as cc


def _demo(tmp_path: Path) -> tuple[dict[str, Any], list[Message]]:
    store = Store(tmp_path / "demo.db")
    cid = load_demo(store)
    conv = store.conversation(cid)
    header = {"title": conv.title, "source_id": conv.source_id, "meta": conv.meta,
              "created_at": conv.created_at, "cwd": "/home/someone/shop-backend"}
    path = store.path(cid, conv.tip_id)
    store.close()
    return header, path


def _export(tmp_path: Path, header: dict[str, Any], path: list[Message],
            notes: list[str] | None = None) -> tuple[Path, list[dict[str, Any]]]:
    out = list(lines(header, path, path[-1].id, notes))
    file = tmp_path / f"{session_id(header, path)}.jsonl"
    file.write_text("\n".join(out) + "\n", encoding="utf-8")
    return file, [json.loads(line) for line in out]


def _shape(path: list[Message]) -> list[tuple[str, list[str], list[tuple[str | None, str]]]]:
    """Roles, texts and tool calls/results of each message, in order."""
    return [
        (m.role, [p.text for p in m.parts if p.kind == "text"],
         [(p.tool_use_id, p.kind) for p in m.parts if p.kind in ("tool_use", "tool_result")])
        for m in path
    ]


def test_demo_round_trips_through_the_claude_code_importer(tmp_path: Path) -> None:
    header, path = _demo(tmp_path)
    notes: list[str] = []
    file, _ = _export(tmp_path, header, path, notes)
    conv = next(claude_code.read(file))
    back = active_path(conv.messages, conv.tip)
    sent = [m for m in path if m.role != "system"]
    assert _shape(back) == _shape(sent)
    assert [p.text for m in back for p in m.tool_uses()] == \
           [json.dumps(json.loads(p.text)) for m in sent for p in m.tool_uses()]
    assert all(b.parent_id == a.id for a, b in itertools.pairwise(back))
    assert len(conv.messages) == len(back)  # one chain: no fork appeared on the way
    assert conv.title == header["title"] and conv.incomplete is False
    assert [p.data for m in back for p in m.parts if p.kind == "image"] == \
           [p.data for m in sent for p in m.parts if p.kind == "image"]
    assert any("system message left out" in n for n in notes)


def test_one_line_per_assistant_block_sharing_message_and_request_ids(tmp_path: Path) -> None:
    header, path = _demo(tmp_path)
    _, records = _export(tmp_path, header, path)
    by_message: dict[str, list[dict[str, Any]]] = defaultdict(list)
    for r in records:
        if r.get("type") == "assistant":
            assert len(r["message"]["content"]) == 1
            by_message[r["message"]["id"]].append(r)
    blocks_per_message = [
        len([p for p in m.parts if p.kind in ("text", "tool_use")])
        for m in path if m.role == "assistant"
    ]
    assert sorted(len(v) for v in by_message.values()) == sorted(blocks_per_message)
    assert all(len({r["requestId"] for r in group}) == 1 for group in by_message.values())


def test_lines_form_one_uuid_chain_with_claude_code_fields(tmp_path: Path) -> None:
    header, path = _demo(tmp_path)
    _, records = _export(tmp_path, header, path)
    chain = [r for r in records if r.get("type") in ("user", "assistant")]
    assert chain[0]["parentUuid"] is None
    assert [r["parentUuid"] for r in chain[1:]] == [r["uuid"] for r in chain[:-1]]
    for r in chain:
        assert uuid.UUID(r["uuid"]).version == 5
        assert r["sessionId"] == session_id(header, path)
        assert r["cwd"] == "/home/someone/shop-backend" and r["version"]
        assert r["timestamp"].endswith("Z") and "T" in r["timestamp"]
        assert r["message"]["role"] == r["type"]


def test_exports_are_reproducible_and_branches_get_their_own_session(tmp_path: Path) -> None:
    header, path = _demo(tmp_path)
    first = list(lines(header, path, path[-1].id))
    again = list(lines(header, path, path[-1].id))
    shorter = list(lines(header, path[:-2], path[-3].id))
    assert first == again
    assert json.loads(shorter[1])["sessionId"] != json.loads(first[1])["sessionId"]


def test_an_unanswered_call_gets_an_interrupted_error_result(tmp_path: Path) -> None:
    path = [
        text_message(1, None, "user", "run it"),
        Message(2, 1, "assistant", [
            Part("tool_use", '{"command": "make"}', tool_name="Bash", tool_use_id="toolu_a"),
            Part("tool_use", '{"command": "ls"}', tool_name="Bash", tool_use_id="toolu_b")]),
        Message(3, 2, "user", [Part("tool_result", "built", tool_use_id="toolu_a")]),
    ]
    notes: list[str] = []
    file, _ = _export(tmp_path, {"title": "crash"}, path, notes)
    conv = next(claude_code.read(file))
    back = active_path(conv.messages, conv.tip)
    assert [m.role for m in back] == ["user", "assistant", "user", "user"]  # a line per result
    results = {p.tool_use_id: p for m in back[-2:] for p in m.tool_results()}
    assert results["toolu_a"].text == "built" and not results["toolu_a"].is_error
    assert results["toolu_b"].is_error and results["toolu_b"].text == INTERRUPTED
    assert conv.incomplete is False
    assert any("toolu_b has no result" in n for n in notes)


def test_signed_thinking_is_kept_and_unsigned_thinking_is_noted(tmp_path: Path) -> None:
    path = [
        text_message(1, None, "user", "think"),
        Message(2, 1, "assistant", [
            Part("thinking", "signed thought", meta={"signature": "sig=="}),
            Part("thinking", "unsigned thought"), Part("text", "answer")]),
    ]
    notes: list[str] = []
    _, records = _export(tmp_path, {}, path, notes)
    blocks = [r["message"]["content"][0] for r in records if r.get("type") == "assistant"]
    assert blocks == [{"type": "thinking", "thinking": "signed thought", "signature": "sig=="},
                      {"type": "text", "text": "answer"}]
    assert any("1 thinking part(s) without a signature" in n for n in notes)


def test_claude_code_samples_round_trip_through_our_own_export(tmp_path: Path) -> None:
    sessions = [*cc.sessions(), cc.fork_in_one_file(tmp_path / "rewound")]
    assert len(sessions) == 3
    for session in sessions:
        conv = next(claude_code.read(session)).materialize()
        # a compaction's boundary is not written back: the summary after it is
        boundaries = {c.message_key for c in conv.compactions}
        path = [m for m in active_path(conv.messages, conv.tip) if m.id not in boundaries]
        file = tmp_path / "again.jsonl"
        file.write_text("\n".join(lines({"title": conv.title}, conv.messages, conv.tip)) + "\n",
                        encoding="utf-8")
        again = next(claude_code.read(file))
        back = active_path(again.messages, again.tip)
        assert _visible(back) == _visible(path), session.name


def _visible(path: list[Message]) -> list[Any]:
    """The shape without whitespace-only text (the API refuses it), with the results of
    parallel calls in call order as the export writes them, not in arrival order."""
    out: list[Any] = []
    run: list[Any] = []
    for m, (role, texts, tools) in zip(path, _shape(path), strict=True):
        if m.is_tool_result_only:
            run.append((role, texts, tools))
            continue
        out += [*sorted(run, key=repr), (role, [t for t in texts if t.strip()], tools)]
        run = []
    return out + sorted(run, key=repr)
