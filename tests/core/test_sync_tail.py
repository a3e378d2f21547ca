"""Sync reads only what Claude Code and pi appended (S1), and builds what a whole read builds.

A session written a few lines at a time and synced after each write ends up with the
same rows and tree as one import of the finished file: same messages (source ids,
roles, parts), same parents, same tip and compaction records.
"""

from __future__ import annotations

import json
import tempfile
from pathlib import Path
from typing import Any

import pytest
from agent_home import PI, PI_FORK, pi_session
from agent_home import claude_session as recorded_claude
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from explorer.app.importing.agent_homes import Environment
from explorer.app.importing.sync import SyncReport, sync_sources
from explorer.formats import pi
from explorer.store import Store

SPLITS = settings(max_examples=6, deadline=None,
                  suppress_health_check=[HealthCheck.function_scoped_fixture])



def rewound_claude() -> bytes:
    """The recorded Claude Code session, then its last prompt asked again from the first
    answer, as a rewind writes it: a new line whose parent is an earlier message."""
    data = recorded_claude().read_bytes()
    lines = [json.loads(line) for line in data.splitlines()]
    first_answer = next(v["uuid"] for v in lines if v.get("type") == "assistant")
    prompt = [v for v in lines if v.get("type") == "user"
              and isinstance(v["message"]["content"], str)][-1]
    again = {**prompt, "uuid": "0b5e7c1a-rewound-prompt", "parentUuid": first_answer}
    return data + json.dumps(again).encode() + b"\n"


CLAUDE_SAMPLES = {"session.jsonl": lambda: recorded_claude().read_bytes(),
                  "fork.jsonl": lambda: recorded_claude(fork=True).read_bytes(),
                  "rewound.jsonl": rewound_claude}


def tree_rows(store: Store) -> list[tuple[Any, ...]]:
    """Every message with its parent's source id and its parts, by source id."""
    return store.reader.execute(
        "SELECT m.source_id, p.source_id, m.role, m.model, (SELECT json_group_array("
        "json_array(x.kind, x.text, x.tool_use_id)) FROM (SELECT * FROM parts WHERE "
        "message_id = m.id ORDER BY idx) x) FROM messages m "
        "LEFT JOIN messages p ON p.id = m.parent_id ORDER BY m.source_id").fetchall()


def pointers(store: Store) -> tuple[Any, ...]:
    """The tip, clean tip and context start (by source id) and the compaction records."""
    conv = store.conversations()[0]
    row = store.reader.execute(
        "SELECT t.source_id, k.source_id, s.source_id FROM conversations c "
        "LEFT JOIN messages t ON t.id = c.tip_id LEFT JOIN messages k ON k.id = c.clean_tip_id "
        "LEFT JOIN messages s ON s.id = c.context_start_id WHERE c.id = ?", (conv.id,)).fetchone()
    records = store.reader.execute(
        "SELECT m.source_id, c.kind, c.summary FROM compactions c JOIN messages m "
        "ON m.id = c.message_id ORDER BY m.source_id, c.kind").fetchall()
    return (*row, records)


def claude_target(home: Path, name: str) -> Path:
    target = home / ".claude" / "projects" / "-work-app" / Path(name).name
    target.parent.mkdir(parents=True, exist_ok=True)
    return target


def pi_target(home: Path) -> Path:
    target = home / ".pi" / "agent" / "sessions" / "--work-app--" / "2026-01-01_s.jsonl"
    target.parent.mkdir(parents=True, exist_ok=True)
    return target


def fresh_home() -> Path:
    return Path(tempfile.mkdtemp(prefix="tail-home-"))


def grow(data: bytes, target: Path, home: Path, only: str, cuts: list[int]) -> list[SyncReport]:
    reports = []
    with Store(home / "grown.db") as grown, Store(home / "whole.db") as whole:
        for cut in [*sorted(set(cuts)), len(data)]:
            target.write_bytes(data[:cut])
            reports.append(sync_sources(grown, Environment(home), {only}))
        assert all(not r.errors for r in reports[1:]), [r.errors for r in reports]
        sync_sources(whole, Environment(home), {only})
        assert tree_rows(grown) == tree_rows(whole)
        assert pointers(grown) == pointers(whole)
        assert len(grown.conversations()) == 1
    return reports


@pytest.mark.parametrize("name", sorted(CLAUDE_SAMPLES))
@SPLITS
@given(cuts=st.lists(st.floats(0, 1), min_size=1, max_size=8))
def test_S1_claude_code_appended_in_random_chunks_equals_one_whole_import(
        name: str, cuts: list[float]) -> None:
    data = CLAUDE_SAMPLES[name]()
    home = fresh_home()
    grow(data, claude_target(home, name), home, "claude-code",
         [int(c * len(data)) for c in cuts])


@SPLITS
@given(cuts=st.lists(st.floats(0, 1), min_size=1, max_size=8))
def test_S1_pi_appended_in_random_chunks_equals_one_whole_import(cuts: list[float]) -> None:
    data = made_pi_session(40)
    home = fresh_home()
    grow(data, pi_target(home), home, "pi", [int(c * len(data)) for c in cuts])


@pytest.mark.parametrize("name", [PI, PI_FORK])
def test_S1_the_recorded_pi_sessions_grown_line_by_line_equal_one_whole_import(
        name: str, tmp_path: Path) -> None:
    """The session with its second branch (the leaf moved back), and its --fork copy."""
    data = pi_session(name).read_bytes()
    ends = [i + 1 for i, b in enumerate(data) if b == 10]
    reports = grow(data, pi_target(tmp_path), tmp_path, "pi", ends)
    # The header and pi's first entries name no message yet; after the first message
    # every line is read as a tail.
    first = next(i for i, r in enumerate(reports) if r.added_messages)
    assert all(r.appended == 1 for r in reports[first + 1:])
    assert sum(r.added_messages for r in reports) == len(next(pi.read(pi_session(name))).messages)


def test_S1_claude_code_appends_are_read_from_the_offset(tmp_path: Path) -> None:
    data = recorded_claude().read_bytes()
    ends = [i + 1 for i, b in enumerate(data) if b == 10]
    target = claude_target(tmp_path, "session.jsonl")
    reports = grow(data, target, tmp_path, "claude-code", ends[::3])
    assert json.loads(data[:ends[0]])["type"] not in ("user", "assistant")
    assert reports[0].reread == 1 and reports[0].added_messages == 0  # no message yet
    assert reports[1].reread == 1  # the first message names the session
    assert all(r.appended == 1 or r.unchanged == 1 for r in reports[2:])  # no whole read again


def split_snapshot(data: bytes, snapshot_first: bool) -> tuple[str, int]:
    """A prompt of the recording whose file-history snapshot is written on the other side of
    a cut (the snapshot before the prompt, or after it), and where that cut falls: after the
    first half of the pair, with a message before the cut (so the session is named)."""
    lines = [json.loads(line) for line in data.splitlines()]
    ends = [i + 1 for i, b in enumerate(data) if b == 10]
    at = {v["uuid"]: i for i, v in enumerate(lines) if v.get("type") == "user"}
    for i, v in enumerate(lines):
        j = at.get(v.get("messageId", "")) if v.get("type") == "file-history-snapshot" else None
        if j is None or (i < j) != snapshot_first:
            continue
        first, second = sorted((i, j))
        spoken = any(w.get("type") in ("user", "assistant") for w in lines[:second])
        if spoken and second > first + 1:
            return lines[j]["uuid"], ends[second - 1]
    raise AssertionError("the recording has no such pair")


@pytest.mark.parametrize("snapshot_first", [True, False], ids=["snapshot-first", "prompt-first"])
def test_S1_a_snapshot_and_its_prompt_synced_apart_are_placed_as_one_read_places_them(
        snapshot_first: bool, tmp_path: Path) -> None:
    """Claude Code writes a prompt's file-history snapshot before the prompt (a forked copy)
    or a few lines after it (a session it runs): a sync between the two still puts the
    snapshot just above its prompt, by an append, not a whole read."""
    data = (recorded_claude(fork=True) if snapshot_first else recorded_claude()).read_bytes()
    prompt, cut = split_snapshot(data, snapshot_first)
    reports = grow(data, claude_target(tmp_path, "s.jsonl"), tmp_path, "claude-code", [cut])
    assert reports[0].reread == 1 and reports[0].added_messages > 0
    assert reports[1].appended == 1 and reports[1].reread == 0
    with Store(tmp_path / "grown.db") as grown:
        rows = {r[0]: r[1] for r in tree_rows(grown)}
    # The snapshot sits on the prompt's edge: its parent is the prompt's without it.
    alone = tmp_path / "alone"
    claude_target(alone, "s.jsonl").write_bytes(b"".join(
        line for line in data.splitlines(keepends=True)
        if json.loads(line).get("messageId") != prompt))
    with Store(alone / "t.db") as store:
        sync_sources(store, Environment(alone), {"claude-code"})
        without = {r[0]: r[1] for r in tree_rows(store)}
    assert rows[prompt] == f"snapshot:{prompt}"
    assert rows[f"snapshot:{prompt}"] == without[prompt]
    assert (without[prompt] is None) == (not snapshot_first)  # the first prompt is a root


def claude_line(kind: str, uuid: str, parent: str | None, **extra: Any) -> dict[str, Any]:
    return {"type": kind, "uuid": uuid, "parentUuid": parent, "sessionId": "s-1",
            "timestamp": "2026-01-01T00:00:00Z", "cwd": "/work/app", **extra}


def assistant(uuid: str, parent: str, api: str, block: dict[str, Any]) -> dict[str, Any]:
    return claude_line("assistant", uuid, parent, message={
        "id": api, "role": "assistant", "model": "claude-x", "content": [block]})


def result(uuid: str, parent: str, call: str) -> dict[str, Any]:
    return claude_line("user", uuid, parent, message={"role": "user", "content": [
        {"type": "tool_result", "tool_use_id": call, "content": f"ran {call}"}]})


def claude_session(turns: int) -> bytes:
    """Prompts, responses over several lines with two parallel calls, progress records."""
    out: list[dict[str, Any]] = []
    last: str | None = None
    for n in range(turns):
        out.append(claude_line("user", f"p{n}", last, message={
            "role": "user", "content": f"step {n}"}))
        out.append(assistant(f"a{n}", f"p{n}", f"msg{n}", {"type": "text", "text": "Let me look."}))
        out.append(assistant(f"b{n}", f"a{n}", f"msg{n}", {
            "type": "tool_use", "id": f"c{n}x", "name": "Bash", "input": {"cmd": "ls"}}))
        out.append(assistant(f"c{n}", f"b{n}", f"msg{n}", {
            "type": "tool_use", "id": f"c{n}y", "name": "Bash", "input": {"cmd": "pwd"}}))
        out.append(claude_line("progress", f"g{n}", f"c{n}", data={"type": "hook"}))
        out.append(result(f"r{n}x", f"b{n}", f"c{n}x"))
        out.append(result(f"r{n}y", f"c{n}", f"c{n}y"))
        out.append(claude_line("progress", f"h{n}", f"r{n}y", data={"type": "hook"}))
        out.append(assistant(f"d{n}", f"h{n}", f"end{n}", {"type": "text", "text": f"done {n}"}))
        last = f"d{n}"
    return b"".join(json.dumps(v).encode() + b"\n" for v in out)


@SPLITS
@given(cuts=st.lists(st.floats(0, 1), min_size=1, max_size=10))
def test_S1_responses_over_several_lines_merge_across_syncs(cuts: list[float]) -> None:
    data = claude_session(6)
    home = fresh_home()
    target = claude_target(home, "s-1.jsonl")
    reports = grow(data, target, home, "claude-code", [int(c * len(data)) for c in cuts])
    first = next(i for i, r in enumerate(reports) if r.added_messages)
    assert not any(r.reread for r in reports[first + 1:])  # read whole only until named


def test_S1_a_line_hanging_from_an_older_message_is_placed_by_its_stored_id(
        tmp_path: Path) -> None:
    data = claude_session(3)
    target = claude_target(tmp_path, "s-1.jsonl")
    late = json.dumps(claude_line("user", "late", "d0", message={
        "role": "user", "content": "back to the first answer"})).encode() + b"\n"
    reports = grow(data + late, target, tmp_path, "claude-code", [len(data)])
    assert reports[-1].appended == 1 and reports[-1].added_messages == 1


def test_S1_a_line_that_cannot_be_placed_is_read_whole(tmp_path: Path) -> None:
    data = claude_session(2)
    target = claude_target(tmp_path, "s-1.jsonl")
    lost = json.dumps(claude_line("user", "lost", "never-written", message={
        "role": "user", "content": "hangs from a line that is not in the file"})).encode()
    reports = grow(data + lost + b"\n", target, tmp_path, "claude-code", [len(data)])
    assert reports[-1].reread == 1 and reports[-1].appended == 0


def made_pi_session(entries: int) -> bytes:
    """A pi v3 session: messages, model changes and labels between them, one rewind."""
    lines: list[dict[str, Any]] = [{"type": "session", "version": 3, "id": "pi-1",
                                    "timestamp": "2026-01-01T00:00:00Z", "cwd": "/work/app"}]
    last: str | None = None
    for n in range(entries):
        eid = f"e{n}"
        if n % 7 == 3:
            lines.append({"type": "model_change", "id": eid, "parentId": last,
                          "provider": "acme", "modelId": f"m{n}"})
        elif n % 11 == 5:
            lines.append({"type": "label", "id": eid, "parentId": last, "targetId": last,
                          "label": f"mark {n}"})
        else:
            role = "user" if n % 2 == 0 else "assistant"
            content: Any = (f"question {n}" if role == "user"
                            else [{"type": "text", "text": f"answer {n}"}])
            parent = "e1" if n == 30 else last  # the person rewinds to the first answer
            lines.append({"type": "message", "id": eid, "parentId": parent,
                          "timestamp": "2026-01-01T00:00:01Z",
                          "message": {"role": role, "content": content, "model": "m"}})
        last = eid
    return b"".join(json.dumps(v).encode() + b"\n" for v in lines)


def test_S1_a_light_first_read_then_tails_equal_one_whole_import(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """A session large enough to be read light the first time goes on by tails."""
    from explorer.formats.claude_code import reader

    monkeypatch.setattr(reader, "LAZY_BYTES", 0)
    data = recorded_claude().read_bytes()
    ends = [i + 1 for i, b in enumerate(data) if b == 10]
    reports = grow(data, claude_target(tmp_path, "session.jsonl"), tmp_path, "claude-code",
                   ends[len(ends) // 3::4])
    assert reports[0].reread == 1 and sum(r.appended for r in reports) >= 2


def tip_source(store: Store) -> str:
    conv = store.conversations()[0]
    return str(store.path(conv.id)[-1].source_id)


def test_S1_a_rewritten_file_moves_the_tip_only_from_where_the_agent_left_off(
        tmp_path: Path) -> None:
    lines = claude_session(5).splitlines(keepends=True)
    per_turn = 9
    target = claude_target(tmp_path, "s-1.jsonl")
    env = Environment(tmp_path)

    def rewrite(turns: int) -> SyncReport:  # spaces before the first newline: a new file
        body = b"".join(lines[:per_turn * turns])
        target.write_bytes(body.replace(b"}\n", b"}" + b" " * turns + b"\n", 1))
        return sync_sources(store, env, {"claude-code"})

    with Store(tmp_path / "t.db") as store:
        target.write_bytes(b"".join(lines[:per_turn * 2]))
        sync_sources(store, env, {"claude-code"})
        assert tip_source(store) == "d1"
        conv = store.conversations()[0].id
        assert rewrite(3).reread == 1
        assert tip_source(store) == "d2"  # nobody moved: the tip follows the file
        earlier = next(m.id for m in store.path(conv) if m.source_id == "d0")
        store.branch(conv, earlier)  # the person reads another point
        assert rewrite(4).reread == 1
        assert tip_source(store) == "d0"  # and stays there
        (newest,) = store.reader.execute(
            "SELECT id FROM messages WHERE source_id = 'd3'").fetchone()
        store.branch(conv, newest)  # back where the agent left off
        assert rewrite(5).reread == 1
        assert tip_source(store) == "d4"


def test_S1_a_session_whose_first_line_is_still_being_written_is_no_error(
        tmp_path: Path) -> None:
    data = made_pi_session(4)
    target = pi_target(tmp_path)
    target.write_bytes(data[:20])  # the header, cut before its newline
    with Store(tmp_path / "t.db") as store:
        early = sync_sources(store, Environment(tmp_path), {"pi"})
        assert early.errors == [] and early.added_messages == 0
        target.write_bytes(data)
        assert sync_sources(store, Environment(tmp_path), {"pi"}).added_messages > 0


def _synced_titles(tmp_path: Path, extra: list[list[dict[str, Any]]]) -> list[tuple[str, str]]:
    """(title after each tail sync, title of one whole import of the same bytes)."""
    target = claude_target(tmp_path, "s-1.jsonl")
    data = claude_session(2)
    out = []
    with Store(tmp_path / "grown.db") as grown:
        target.write_bytes(data)
        sync_sources(grown, Environment(tmp_path), {"claude-code"})
        for n, lines in enumerate(extra):
            data += b"".join(json.dumps(v).encode() + b"\n" for v in lines)
            target.write_bytes(data)
            report = sync_sources(grown, Environment(tmp_path), {"claude-code"})
            assert report.appended == 1, report
            with Store(tmp_path / f"whole-{n}.db") as whole:
                sync_sources(whole, Environment(tmp_path), {"claude-code"})
                out.append((grown.conversations()[0].title, whole.conversations()[0].title))
    return out


def test_S1_a_name_or_summary_appended_retitles_the_session_as_a_whole_read_does(
        tmp_path: Path) -> None:
    turn = [claude_line("user", "p9", "d1", message={"role": "user", "content": "more"})]
    titles = _synced_titles(tmp_path, [
        [{"type": "summary", "summary": "Listing the files", "leafUuid": "d1"}, *turn],
        [{"type": "custom-title", "customTitle": "My renamed session", "sessionId": "s-1"}],
        [{"type": "summary", "summary": "A later summary", "leafUuid": "p9"}],
    ])
    assert titles == [("Listing the files",) * 2, ("My renamed session",) * 2,
                      ("My renamed session",) * 2]
