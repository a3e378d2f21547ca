"""V2: shaping a huge session lets its nodes go as its messages are made.

A light first pass holds a node per message; the conversation holds a message per
message. Made side by side, both were held whole at once; now each node goes as its
message is made, and the tables that find a line's node are cleared first, so shaping
adds little over the first pass (measured with tracemalloc, which counts what Python
allocated, not time). What the conversation says stays what it said.
"""

from __future__ import annotations

import tracemalloc
from pathlib import Path
from typing import Any

import pytest

from explorer.formats.claude_code import reader, shape
from explorer.formats.claude_code.session import Session
from explorer.tree.model import Message

PER_MESSAGE_BYTES = 200
"""What shaping may add over the first pass, per message: the parents table and the
repair's and file order's working sets (a node and a message side by side were ~320)."""


def _session(tmp_path: Path, messages: int, seed: int) -> Path:
    from benchmarks.scale_data import one_session

    return one_session(tmp_path, messages, seed=seed)


def test_V2_shaping_a_light_session_adds_little_over_its_first_pass(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    path = _session(tmp_path, 3000, seed=11)
    monkeypatch.setattr(reader, "LAZY_BYTES", 0)
    seen: dict[str, int] = {}
    shaped = reader.assemble

    def measured(*args: Any, **kwargs: Any) -> Any:
        tracemalloc.reset_peak()
        seen["first pass"] = tracemalloc.get_traced_memory()[0]
        conv = shaped(*args, **kwargs)
        seen["peak"] = tracemalloc.get_traced_memory()[1]
        return conv

    monkeypatch.setattr(reader, "assemble", measured)
    tracemalloc.start()
    try:
        (conv,) = list(reader.read(path))
    finally:
        tracemalloc.stop()
    assert len(conv.messages) >= 3000
    assert seen["peak"] - seen["first pass"] < PER_MESSAGE_BYTES * len(conv.messages)


def test_V2_a_released_session_gives_the_same_conversation_as_one_kept_whole(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """The same messages, parents, parts, metadata, tip, title, compactions and notes
    whether the sessions are let go while shaping or kept (as a sync keeps them)."""
    path = _session(tmp_path, 600, seed=12)
    released = list(reader.read(path))
    sessions: list[Session] = []
    whole = shape.assemble

    def kept(path: Path, main: Session, subs: Any = (), **kwargs: Any) -> Any:
        sessions.append(main)
        return whole(path, main, subs)  # no ``keep``: nothing is let go

    monkeypatch.setattr(reader, "assemble", kept)
    kept_whole = list(reader.read(path))
    assert [_view(c) for c in released] == [_view(c) for c in kept_whole]
    assert sessions and sessions[0].nodes and sessions[0].line_node  # kept really kept them


def test_V2_a_released_light_session_is_filled_as_before(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Its content locators are taken before the nodes go: filled, it is the whole read."""
    path = _session(tmp_path, 600, seed=13)
    whole = list(reader.read(path))
    monkeypatch.setattr(reader, "LAZY_BYTES", 0)
    (light,) = list(reader.read(path))
    assert light.content is not None
    assert [_view(c) for c in whole] == [_view(light.materialize())]


def _view(conv: Any) -> tuple[Any, ...]:
    return (conv.title, conv.tip, conv.source_id, conv.context_start, conv.incomplete,
            conv.notes, dict(conv.ignored_records), conv.meta,
            [(c.message_key, c.kind, c.summary, c.meta) for c in conv.compactions],
            [_message(m) for m in conv.messages])


def _message(m: Message) -> tuple[Any, ...]:
    return (m.id, m.parent_id, m.role, m.created_at, m.model, m.usage, m.source_id,
            m.source_meta, [(p.kind, p.text, p.tool_name, p.tool_use_id, p.is_error)
                            for p in m.parts])


def test_V2_a_light_conversation_keeps_only_its_calls_and_results_until_written(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Once shaped and titled, a light message holds only the parts a turn's boundary is
    judged by; the title, the tip's clean boundary and every stored row stay as the whole
    read gives them."""
    from explorer.store import Store

    path = _session(tmp_path, 600, seed=14)
    (whole,) = list(reader.read(path))
    monkeypatch.setattr(reader, "LAZY_BYTES", 0)
    (light,) = list(reader.read(path))
    said = light.messages[1:]  # the first message is read whole: it keeps everything
    assert all(p.kind in ("tool_use", "tool_result") for m in said for p in m.parts)
    calls = sum(p.kind in ("tool_use", "tool_result") for m in whole.messages[1:]
                for p in m.parts)
    assert calls and calls == sum(len(m.parts) for m in said)
    assert light.title == whole.title
    outcomes = []
    for name, conv in (("whole", whole), ("light", light)):
        with Store(tmp_path / f"{name}.db") as store:
            outcomes.append(store.import_conversations([conv])[0])
            outcomes.append(store.reader.execute(
                "SELECT c.title, t.source_id, k.source_id, (SELECT count(*) FROM parts) "
                "FROM conversations c JOIN messages t ON t.id = c.tip_id "
                "LEFT JOIN messages k ON k.id = c.clean_tip_id").fetchone())
    assert outcomes[1] == outcomes[3]
    assert outcomes[1][2] is not None


def test_V2_only_a_message_whose_lines_escape_a_surrogate_is_walked_for_lone_ones(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Lines are decoded strictly, so only a JSON escape (in either case) makes a lone
    surrogate: the string-by-string walk is spent on those messages alone, and they are
    still repaired and counted."""
    import json

    from explorer.app.importing.run import import_paths
    from explorer.formats.claude_code import content
    from explorer.store import Store

    monkeypatch.setattr(reader, "LAZY_BYTES", 0)
    walked: list[str] = []
    repair = content.repair_in

    def counted(m: Message) -> int:
        walked.append(str(m.id))
        return repair(m)

    monkeypatch.setattr(content, "repair_in", counted)
    session = tmp_path / "s.jsonl"
    entries = [
        {"type": "user", "uuid": "u1", "parentUuid": None, "sessionId": "s",
         "message": {"role": "user", "content": "hello"}},
        {"type": "assistant", "uuid": "a1", "parentUuid": "u1", "sessionId": "s",
         "message": {"id": "m1", "role": "assistant", "content": [
             {"type": "text", "text": "fine \u00e9 and a pair \U0001f600"}]}},
        {"type": "user", "uuid": "u2", "parentUuid": "a1", "sessionId": "s",
         "message": {"role": "user", "content": "cut CUT here"}},
        {"type": "assistant", "uuid": "a2", "parentUuid": "u2", "sessionId": "s",
         "message": {"id": "m2", "role": "assistant", "content": "plain"}},
    ]
    text = "".join(json.dumps(e, ensure_ascii=False) + "\n" for e in entries)
    session.write_text(text.replace("CUT", "\\uD83D"), encoding="utf-8")
    with Store(tmp_path / "x.db") as store:
        report = import_paths(store, [session])
        assert not report.errors
        (outcome,) = report.conversations
        assert any("in 1 place(s)" in n for n in outcome.notes)
        conv = outcome.conversation_id
        path = store.path(conv, store.conversation(conv).tip_id)
    assert walked == ["u2"]
    assert path[2].text == "cut \ufffd here"
    assert path[1].text == "fine \u00e9 and a pair \U0001f600"
