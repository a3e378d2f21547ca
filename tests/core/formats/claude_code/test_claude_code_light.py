"""A large Claude Code session is read light and its content read again when stored (V2).

Reading light must change nothing a person can see: every message, part, note, title
and pointer of a light read, once its content is filled, equals the whole read, and
the stored rows are the same; meanwhile the read holds only openings of the text.
"""

from __future__ import annotations

import itertools
import json
import sqlite3
from pathlib import Path
from typing import Any

import pytest

from explorer.app.importing.run import import_paths
from explorer.formats import claude_code
from explorer.formats.base import ImportedConversation
from explorer.formats.claude_code import reader
from explorer.formats.claude_code.light import LIGHT_TEXT
from explorer.store import Store
from explorer.tree import imported
from tests.corpus import claude_code_sessions as cc

FIXTURES = Path(__file__).parent / "fixtures"


def _sessions(tmp: Path) -> list[Path]:
    found = sorted(p for p in FIXTURES.glob("*.jsonl") if p.name not in {
        "empty.jsonl", "only_records.jsonl"})
    found += sorted((FIXTURES / name) for name in ("compact_agent", "old_project"))
    found += [*cc.sessions(), cc.original().parent, cc.fork_in_one_file(tmp / "rewound")]
    return found


def _read(path: Path) -> list[ImportedConversation]:
    return list(claude_code.read(path))


def _light(path: Path, monkeypatch: pytest.MonkeyPatch) -> list[ImportedConversation]:
    with monkeypatch.context() as m:
        m.setattr(reader, "LAZY_BYTES", 0)
        return _read(path)


def _view(ic: ImportedConversation) -> dict[str, Any]:
    return {"messages": ic.messages, "tip": ic.tip, "title": ic.title, "notes": ic.notes,
            "meta": ic.meta, "compactions": ic.compactions, "start": ic.context_start,
            "incomplete": ic.incomplete, "ignored": ic.ignored_records}


def test_V2_a_light_read_filled_equals_the_whole_read(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    for path in _sessions(tmp_path):
        whole = [_view(ic) for ic in _read(path)]
        light = _light(path, monkeypatch)
        assert all(ic.content is not None for ic in light if len(ic.messages) > 2), path
        assert [_view(ic.materialize()) for ic in light] == whole, path


def test_V2_a_light_read_holds_only_openings_of_long_text(
        monkeypatch: pytest.MonkeyPatch) -> None:
    path = cc.original()
    whole = _read(path)[0].materialize()
    light = _light(path, monkeypatch)[0]
    longest = max(p.size for m in whole.messages for p in m.parts)
    assert longest == len("\n".join(str(n) for n in range(1, 401)))  # seq 1 400
    assert longest > 4 * LIGHT_TEXT  # long tool output to leave out
    # the first message of the session and of each subagent keeps its metadata; notices and
    # snapshots are small and kept whole, and a compaction (its boundary and its summary)
    # is read whole, since the compaction carries them
    (summary,) = [m for m in light.messages if m.source_meta.get("isCompactSummary")]
    assert summary.text == whole.compactions[0].summary
    boundary = whole.compactions[0].message_key
    first = next(m.id for m in light.messages if "meta_record" not in m.source_meta)
    said = [m for m in light.messages if m is not summary and m.id not in (boundary, first)
            and m.source_meta.get("meta_record") not in ("notice", "file_snapshot")
            and m.parent_id is not None]
    assert len(said) > 40
    held = [p.size for m in said for p in m.parts]
    assert max(held) <= 2 * LIGHT_TEXT
    assert sum(held) < sum(p.size for m in whole.messages for p in m.parts) / 2
    assert all(set(m.source_meta) <= {"line", "isSidechain", "isMeta", "isCompactSummary",
                                      "agentId", "uuids", "meta_record", "subagent",
                                      "reparented_from", "written_parent", "started_from",
                                      "spawned_by_tool_use_id", "stop_reason"}
               for m in said)


def test_V2_a_light_response_writes_out_no_tool_input_the_whole_read_holds(
        monkeypatch: pytest.MonkeyPatch) -> None:
    """A call's input is JSON written out as text; a light read drops that text, so it is
    not made (a tenth of the light pass of a 100,000-message session)."""
    from explorer.formats.claude_code import blocks

    path = cc.original()
    written: list[object] = []
    real = blocks._json_text
    monkeypatch.setattr(blocks, "_json_text", lambda v: written.append(v) or real(v))
    whole = _read(path)[0].materialize()
    inputs, written[:] = list(written), []
    light = _light(path, monkeypatch)[0]
    called = [m for m in light.messages if light.content is not None
              and light.content.holds(m.id) and any(p.kind == "tool_use" for p in m.parts)]
    assert len(called) >= 10 and len(inputs) >= len(called)
    assert written == [], "no input of a light response was written out"
    assert all(p.text == "" for m in called for p in m.parts if p.kind == "tool_use")
    assert [p.tool_use_id for m in called for p in m.parts if p.kind == "tool_use"] == [
        p.tool_use_id for m in whole.messages if m.id in {c.id for c in called}
        for p in m.parts if p.kind == "tool_use"]


def _rows(db: Path) -> list[tuple[Any, ...]]:
    conn = sqlite3.connect(db)
    try:
        msgs = conn.execute(
            "SELECT m.source_id, m.role, m.model, m.usage, m.source_meta, m.preview, "
            "p.source_id, (SELECT group_concat(kind || ':' || coalesce(text, '') || ':' || "
            "coalesce(tool_use_id, '') || ':' || coalesce(blob_hash, ''), '|') FROM "
            "(SELECT * FROM parts WHERE message_id = m.id ORDER BY idx)) "
            "FROM messages m LEFT JOIN messages p ON p.id = m.parent_id ORDER BY m.source_id"
        ).fetchall()
        convs = conn.execute(
            "SELECT c.title, c.meta IS NOT NULL, t.source_id, k.source_id FROM conversations c "
            "LEFT JOIN messages t ON t.id = c.tip_id LEFT JOIN messages k ON k.id = "
            "c.clean_tip_id ORDER BY c.source_id").fetchall()
        return [*convs, *[(*r[:4], json.loads(r[4]), *r[5:]) for r in msgs]]
    finally:
        conn.close()


def test_V2_a_light_session_is_stored_as_the_whole_read_stores_it(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """In chunks smaller than the session, so content is filled and released many times."""
    source = cc.original().parent  # the session with its subagents, and its fork
    with Store(tmp_path / "whole.db") as store:
        assert not import_paths(store, [source]).errors
    monkeypatch.setattr(reader, "LAZY_BYTES", 0)
    monkeypatch.setattr(imported, "CONTENT_CHUNK", 7)
    with Store(tmp_path / "light.db") as store:
        report = import_paths(store, [source])
        assert not report.errors and report.added_messages > 7
        again = import_paths(store, [source])  # merged by ids: nothing twice
        assert again.added_messages == 0 and not again.errors
    assert _rows(tmp_path / "light.db") == _rows(tmp_path / "whole.db")


def test_V2_a_session_rewritten_between_the_reads_is_refused_and_nothing_stored(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(reader, "LAZY_BYTES", 0)
    session = tmp_path / "s.jsonl"
    lines = (FIXTURES / "parallel_blocks.jsonl").read_text(encoding="utf-8").splitlines()
    session.write_text("\n".join(lines) + "\n", encoding="utf-8")
    conv = _read(session)[0]
    session.write_text("\n".join(reversed(lines)) + "\n", encoding="utf-8")
    with Store(tmp_path / "x.db") as store:
        (outcome,) = store.import_conversations([conv])
        assert "changed while it was imported" in str(outcome)
        assert store.conversations() == []


def test_V2_a_lone_surrogate_in_a_light_message_is_repaired_and_counted_once(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(reader, "LAZY_BYTES", 0)
    session = tmp_path / "s.jsonl"
    entries = [
        {"type": "user", "uuid": "u1", "parentUuid": None, "sessionId": "s",
         "message": {"role": "user", "content": "hello"}},
        {"type": "assistant", "uuid": "a1", "parentUuid": "u1", "sessionId": "s",
         "message": {"id": "m1", "role": "assistant", "content": [
             {"type": "text", "text": "cut \ud83d here " + "x" * 1000}]}},
    ]
    session.write_text("".join(json.dumps(e) + "\n" for e in entries), encoding="utf-8")
    with Store(tmp_path / "x.db") as store:
        report = import_paths(store, [session])
        assert not report.errors
        (outcome,) = report.conversations
        assert sum("lone surrogates" in n for n in outcome.notes) == 1
        assert any("in 1 place(s)" in n for n in outcome.notes)
        conv = outcome.conversation_id
        path = store.path(conv, store.conversation(conv).tip_id)
        assert path[-1].text.startswith("cut \ufffd here x")


def test_S1_a_light_session_synced_mid_response_is_merged_as_the_whole_read_merges_it(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """A re-read of a grown light session merges by ids and refreshes the response stored
    mid-write, with its content read a chunk at a time."""
    from explorer.app.importing.agent_homes import Environment
    from explorer.app.importing.sync import sync_sources

    source = cc.fork()
    lines = source.read_bytes().splitlines(keepends=True)
    target = tmp_path / "home" / source.relative_to(cc.HOME)
    target.parent.mkdir(parents=True)
    # cut inside a response written over several lines (its first line, a call's line to
    # come), and rewritten (a space before the newline) when it grows, so that the grown
    # file is read again whole
    entries = cc.records(source)
    cut = next(i for i, (e, after) in enumerate(itertools.pairwise(entries))
               if e.get("type") == after.get("type") == "assistant"
               and e["message"]["id"] == after["message"]["id"])
    target.write_bytes(b"".join(lines[:cut]) + lines[cut].rstrip(b"\n") + b" \n")
    env = Environment(tmp_path / "home")
    with Store(tmp_path / "light.db") as light, Store(tmp_path / "whole.db") as whole:
        with monkeypatch.context() as m:
            m.setattr(reader, "LAZY_BYTES", 0)
            m.setattr(imported, "CONTENT_CHUNK", 3)
            sync_sources(light, env, {"claude-code"})
            target.write_bytes(source.read_bytes())
            report = sync_sources(light, env, {"claude-code"})
        assert report.reread == 1 and report.added_messages > 0 and not report.errors
        sync_sources(whole, env, {"claude-code"})

    assert _rows(tmp_path / "light.db") == _rows(tmp_path / "whole.db")


def test_V2_a_light_read_holds_one_string_per_id_and_no_metadata_table_per_message(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Memory of a huge session's first pass is its messages, not copies: a parent id is
    the parent's own key object, a tool result's call id the call's, and a plain message's
    light metadata is an empty dict (its line is read again with its content)."""
    from benchmarks.scale_data import one_session

    session = one_session(tmp_path, 400, seed=2)
    (ic,) = _light(session, monkeypatch)
    by_id = {m.id: m for m in ic.messages}
    linked = [m for m in ic.messages if m.parent_id in by_id]
    assert len(linked) == len(ic.messages) - 1
    assert all(m.parent_id is by_id[m.parent_id].id for m in linked)
    calls = {p.tool_use_id: p for m in ic.messages for p in m.parts if p.kind == "tool_use"}
    results = [p for m in ic.messages for p in m.parts if p.kind == "tool_result"]
    assert results and all(p.tool_use_id is calls[p.tool_use_id].tool_use_id for p in results)
    reasons = {m.source_meta["stop_reason"]: m.source_meta["stop_reason"] for m in ic.messages
               if "stop_reason" in m.source_meta}
    assert reasons and all(m.source_meta["stop_reason"] is reasons[m.source_meta["stop_reason"]]
                           for m in ic.messages if "stop_reason" in m.source_meta)
    plain = [m for m in ic.messages[1:] if m.role in ("user", "assistant")
             and "reparented_from" not in m.source_meta and "uuids" not in m.source_meta]
    assert len(plain) > len(ic.messages) // 2 and all(m.source_meta == {} for m in plain)
    whole = _read(session)
    assert [_view(c) for c in whole] == [_view(ic.materialize())]


def test_V2_a_light_message_of_one_line_keeps_no_list_of_lines(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """A list of uuids and of offsets per message cost a 100,000-message session tens of
    megabytes; only a response written over several lines keeps its later ones."""
    from benchmarks.scale_data import one_session

    from explorer.formats.claude_code.session_reader import SessionReader
    from explorer.formats.jsonl import JsonlReader

    session = one_session(tmp_path, 400, seed=4)
    light = SessionReader(light=True)
    lines = JsonlReader(session)
    for number, entry in lines:
        light.add(number, entry, lines.line_offset)
    nodes = light.session.nodes
    single = [n for n in nodes if n.later_uuids is None and n.later_offsets is None]
    several = [n for n in nodes if n.later_uuids is not None]
    assert len(single) > len(nodes) // 2 and several
    assert all(len(n.uuids) == 1 + len(n.later_uuids or ()) for n in nodes
               if n.snapshot_of is None)
    assert all(n.offsets == (n.start, *(n.later_offsets or ())) for n in nodes if n.light)
    assert all(len(n.offsets) == len(n.uuids) for n in several if n.light)


def test_V2_parallel_results_are_chained_with_lists_only_for_parents_of_several(
        tmp_path: Path) -> None:
    """Resolving parallel results keeps a list only for a response with two or more
    result-only children, and chains exactly as a list per parent did."""
    from benchmarks.scale_data import one_session

    from explorer.formats.claude_code.session_reader import SessionReader
    from explorer.formats.claude_code.tree import (
        _result_groups,
        chain_parallel_results,
        resolve_parents,
    )
    from explorer.formats.jsonl import JsonlReader

    reader_ = SessionReader()
    for number, entry in JsonlReader(one_session(tmp_path, 600, seed=6)):
        reader_.add(number, entry)
    nodes = reader_.session.nodes
    parents = resolve_parents(reader_.session)
    groups = _result_groups(nodes, parents)
    assert groups and all(len(kids) >= 2 for kids in groups.values())
    assert len(groups) < len(nodes) // 10
    expected = _chained_with_lists(nodes, dict(parents))
    moved = chain_parallel_results(nodes, parents)
    assert moved > 0 and parents == expected


def _chained_with_lists(nodes: list[Any], parents: dict[str, str | None]) -> dict[str, Any]:
    """Parallel results chained as they were with a list of children per parent."""
    import itertools
    from collections import defaultdict

    from explorer.formats.claude_code.tree import _parallel_results

    children: dict[str, list[Any]] = defaultdict(list)
    for node in nodes:
        if parents.get(node.key) is not None:
            children[str(parents[node.key])].append(node)
    for node in nodes:
        results = _parallel_results(node, children.get(node.key, []))
        if len(results) < 2:
            continue
        ordered = [r for r in results if not children.get(r.key)]
        ordered += [r for r in results if children.get(r.key)]
        for previous, current in itertools.pairwise(ordered):
            parents[current.key] = previous.key
            children[previous.key].append(current)
    return parents


def test_V2_file_order_puts_parents_first_and_keeps_the_given_order_otherwise() -> None:
    import random

    from explorer.formats.claude_code.tree import file_ordered
    from explorer.tree.model import text_message

    rng = random.Random(5)
    for _ in range(30):
        n = rng.randint(1, 60)
        ids = list(range(n))
        rng.shuffle(ids)  # a random tree, listed in a random order
        parent = {ids[i]: (ids[rng.randrange(i)] if i and rng.random() < 0.9 else None)
                  for i in range(n)}
        listed = [text_message(k, parent[k], "user", str(k)) for k in rng.sample(ids, n)]
        out = file_ordered(listed)
        position = {m.id: i for i, m in enumerate(out)}
        assert len(out) == n and set(position) == set(ids)
        assert all(position[m.parent_id] < position[m.id] for m in out
                   if m.parent_id is not None)
        # the smallest given position first among the messages whose parent is placed
        given = {m.id: i for i, m in enumerate(listed)}
        placed: set[object] = set()
        for m in out:
            ready = [k for k in ids if k not in placed
                     and (parent[k] is None or parent[k] in placed)]
            assert given[m.id] == min(given[k] for k in ready)
            placed.add(m.id)


def test_V2_light_messages_and_parts_share_one_empty_metadata_dict_that_refuses_writes(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    from benchmarks.scale_data import one_session

    from explorer.formats.claude_code.light import EMPTY, own_meta

    (ic,) = _light(one_session(tmp_path, 400, seed=8), monkeypatch)
    shared_meta = [m for m in ic.messages if m.source_meta is EMPTY]
    shared_parts = [p for m in ic.messages for p in m.parts if p.meta is EMPTY]
    assert len(shared_meta) > len(ic.messages) // 2
    assert len(shared_parts) > len(ic.messages) // 2
    with pytest.raises(TypeError):
        EMPTY["key"] = 1
    with pytest.raises(TypeError):
        EMPTY.update(key=1)
    assert EMPTY == {}, "nothing was written into the shared dict"

    class Holder:
        meta: dict[str, Any] = EMPTY

    holder = Holder()
    own_meta(holder)["key"] = 1
    assert holder.meta == {"key": 1} and EMPTY == {}
    whole = _read(one_session(tmp_path / "again", 400, seed=8))
    assert [_view(c) for c in whole] == [_view(ic.materialize())]
