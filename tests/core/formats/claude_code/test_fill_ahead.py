"""A huge session's content is filled by reading processes ahead of the writer (V2, P2):
stored exactly as a fill on the writer's thread stores it; a process that dies leaves its
chunks to the writer; a file rewritten between the reads is refused with nothing stored;
what a fill repairs is still counted once."""

from __future__ import annotations

import json
import time
from pathlib import Path
from typing import Any

import pytest
from test_claude_code_light import _rows  # the stored rows, comparable across stores

from explorer.app.importing import fill_ahead, read_pool
from explorer.app.importing.run import import_paths
from explorer.formats.claude_code import reader
from explorer.store import Store
from explorer.store.rows import prepared_rows
from explorer.tree import imported
from tests.corpus import claude_code_sessions as cc

FIXTURES = Path(__file__).parent / "fixtures"


@pytest.fixture
def ahead(monkeypatch: pytest.MonkeyPatch) -> list[fill_ahead.FillAhead]:
    """Every session read light and filled ahead, in chunks of 7; the fillers made."""
    made: list[fill_ahead.FillAhead] = []
    real = fill_ahead.FillAhead.plan

    def plan(self: fill_ahead.FillAhead, chunks: object) -> None:
        made.append(self)
        real(self, chunks)  # type: ignore[arg-type]
    monkeypatch.setattr(fill_ahead.FillAhead, "plan", plan)
    monkeypatch.setattr(reader, "LAZY_BYTES", 0)
    monkeypatch.setattr(imported, "CONTENT_CHUNK", 7)
    monkeypatch.setattr(fill_ahead, "MIN_MESSAGES", 0)
    monkeypatch.setenv(read_pool.WORKERS_ENV, "2")
    return made


def test_V2_filled_ahead_a_session_is_stored_as_a_fill_here_stores_it(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
        ahead: list[fill_ahead.FillAhead]) -> None:
    source = cc.original().parent  # the session with its subagents, and its fork
    with monkeypatch.context() as m:
        m.setenv(read_pool.WORKERS_ENV, "0")
        with Store(tmp_path / "here.db") as store:
            assert not import_paths(store, [source]).errors
    assert ahead == []
    with Store(tmp_path / "ahead.db") as store:
        report = import_paths(store, [source])
        assert not report.errors and report.added_messages > 7
    assert ahead and all(f.readers == [] for f in ahead)  # their processes ended
    assert _rows(tmp_path / "ahead.db") == _rows(tmp_path / "here.db")


def test_V2_filled_ahead_through_4_KiB_pipes_looked_at_in_turns_stores_the_same(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
        ahead: list[fill_ahead.FillAhead]) -> None:
    """As on Windows: pipes of 4 KiB, whose ``select`` takes none (the answers looked for
    in turns, the requests sent by a thread); the rows are those a fill here makes."""
    from explorer.app import child_pipe
    from explorer.app.importing import readers

    source = cc.original().parent
    with monkeypatch.context() as m:
        m.setenv(read_pool.WORKERS_ENV, "0")
        with Store(tmp_path / "here.db") as store:
            assert not import_paths(store, [source]).errors
    monkeypatch.setattr(child_pipe, "PIPE_BYTES", 4096)
    monkeypatch.setenv(child_pipe.PIPE_BYTES_ENV, "4096")
    monkeypatch.setattr(readers, "POLLED", True)
    with Store(tmp_path / "ahead.db") as store:
        report = import_paths(store, [source])
        assert not report.errors and report.added_messages > 7
    assert ahead and all(f.readers == [] for f in ahead)
    assert _rows(tmp_path / "ahead.db") == _rows(tmp_path / "here.db")


def test_V2_each_process_gets_the_locators_of_its_chunks_only(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
        ahead: list[fill_ahead.FillAhead]) -> None:
    """The whole table of where each message's lines are, pickled to each process as it
    began, cost the writer's start 0.1 s and 12 MB on 100,000 messages: a process gets the
    files alone, then each chunk's locators with the chunk."""
    sent: list[tuple[fill_ahead.FillAhead, tuple[Any, ...]]] = []
    real = fill_ahead.FillAhead.send

    def spy(self: fill_ahead.FillAhead, r: Any, *message: Any) -> bool:
        sent.append((self, message))
        return real(self, r, *message)
    monkeypatch.setattr(fill_ahead.FillAhead, "send", spy)
    with Store(tmp_path / "x.db") as store:
        assert not import_paths(store, [cc.original().parent]).errors
    assert ahead
    for filler in ahead:
        contents = [m[1] for f, m in sent if f is filler and m[0] == "content"]
        fills = [m for f, m in sent if f is filler and m[0] == "fill"]
        assert contents and fills and all(len(c) == 0 and c.files for c in contents)
        for _, _ticket, light, locators in fills:
            assert len(locators) == len(light) <= 7
            assert [loc is not None for loc in locators] == [
                filler.inner.holds(f[0]) for f in light]
        located = [f[0] for _, _, light, locs in fills
                   for f, loc in zip(light, locs, strict=True) if loc is not None]
        assert located and len(located) == len(set(located))  # each sent once
        assert all(filler.inner.holds(key) for key in located)


def test_V2_a_windows_child_fills_planned_chunks_ahead_into_the_rows_a_whole_read_makes(
        tmp_path: Path, ahead: list[fill_ahead.FillAhead]) -> None:
    """The child of a window's import gets the writer's chunks (``plan``) and answers each
    fill with rows its reading processes made, as a whole read makes them: passed on as
    the bytes the process pickled (the window unpickles them once), and a chunk that was
    not planned as the rows made here."""
    import pickle

    from explorer.app.importing import child
    from explorer.store.rows import prepared_rows

    session = cc.original()
    (light,) = reader.read(session)
    (whole,) = [ic.materialize() for ic in reader.read(session)]  # filled here
    expected = {m.id: prepared_rows(m) for m in whole.messages}
    chunks = [light.messages[i:i + 7] for i in range(0, len(light.messages), 7)]
    child._plan(light, chunks[:-1])
    assert isinstance(light.content, fill_ahead.FillAhead) and light.content.readers
    try:
        for chunk in chunks[:-1]:
            raw, repaired = child._filled(light, chunk)
            assert isinstance(raw, bytes) and repaired == 0
            assert pickle.loads(raw) == {m.id: expected[m.id] for m in chunk}
        rows, repaired = child._filled(light, chunks[-1])  # not planned: made here
        assert rows == {m.id: expected[m.id] for m in chunks[-1]} and repaired == 0
    finally:
        light.content.close()


def test_P2_a_windows_child_whose_reading_processes_died_makes_the_rows_itself(
        ahead: list[fill_ahead.FillAhead]) -> None:
    """Nothing to pass on when the processes are gone: each planned chunk is filled in
    the child and its rows are made there, the same rows."""
    import pickle

    from explorer.app.importing import child
    from explorer.store.rows import prepared_rows

    session = cc.original()
    (light,) = reader.read(session)
    (whole,) = [ic.materialize() for ic in reader.read(session)]
    expected = {m.id: prepared_rows(m) for m in whole.messages}
    chunks = [light.messages[i:i + 7] for i in range(0, len(light.messages), 7)]
    child._plan(light, chunks)
    filler = light.content
    assert isinstance(filler, fill_ahead.FillAhead) and filler.readers
    for r in filler.readers:
        r.proc.kill()
        r.proc.wait()
    made_here = 0
    try:
        for chunk in chunks:
            rows, repaired = child._filled(light, chunk)
            made_here += isinstance(rows, dict)
            if isinstance(rows, bytes):  # (answered in the instant before it was killed)
                rows = pickle.loads(rows)
            assert rows == {m.id: expected[m.id] for m in chunk} and repaired == 0
    finally:
        filler.close()
    assert made_here >= len(chunks) - fill_ahead.AHEAD * 2


def test_P2_a_reading_process_that_dies_leaves_its_chunks_to_the_writer(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
        ahead: list[fill_ahead.FillAhead]) -> None:
    source = cc.original().parent
    with monkeypatch.context() as m:
        m.setenv(read_pool.WORKERS_ENV, "0")
        with Store(tmp_path / "here.db") as store:
            assert not import_paths(store, [source]).errors
    real = fill_ahead.FillAhead.plan

    def killed(self: fill_ahead.FillAhead, chunks: object) -> None:
        real(self, chunks)  # type: ignore[arg-type]
        for r in self.readers:
            r.proc.kill()
    monkeypatch.setattr(fill_ahead.FillAhead, "plan", killed)
    with Store(tmp_path / "ahead.db") as store:
        assert not import_paths(store, [source]).errors
    assert _rows(tmp_path / "ahead.db") == _rows(tmp_path / "here.db")


def test_V2_a_session_rewritten_between_the_reads_is_refused_and_nothing_stored(
        tmp_path: Path, ahead: list[fill_ahead.FillAhead]) -> None:
    session = tmp_path / "s.jsonl"
    lines = (FIXTURES / "parallel_blocks.jsonl").read_text(encoding="utf-8").splitlines()
    session.write_text("\n".join(lines) + "\n", encoding="utf-8")
    conv = next(iter(reader.read(session)))
    session.write_text("\n".join(reversed(lines)) + "\n", encoding="utf-8")
    with Store(tmp_path / "x.db") as store:
        conv.content = fill_ahead.FillAhead(conv.content, 2)
        try:
            (outcome,) = store.import_conversations([conv])
        finally:
            conv.content.close()
        assert "changed while it was imported" in str(outcome)
        assert store.conversations() == []
    assert ahead


def test_V2_a_lone_surrogate_filled_ahead_is_repaired_and_counted_once(
        tmp_path: Path, ahead: list[fill_ahead.FillAhead]) -> None:
    session = tmp_path / "s.jsonl"
    entries = [{"type": "user", "uuid": "u0", "parentUuid": None, "sessionId": "s",
                "message": {"role": "user", "content": "hello"}}]
    for n in range(1, 30):  # a cut emoji in every chunk
        entries.append({"type": "assistant" if n % 2 else "user", "uuid": f"u{n}",
                        "parentUuid": f"u{n - 1}", "sessionId": "s",
                        "message": {"id": f"m{n}", "role": "assistant" if n % 2 else "user",
                                    "content": [{"type": "text",
                                                 "text": f"cut \ud83d {n} " + "x" * 400}]}})
    session.write_text("".join(json.dumps(e) + "\n" for e in entries), encoding="utf-8")
    with Store(tmp_path / "x.db") as store:
        report = import_paths(store, [session])
        assert not report.errors and ahead
        (outcome,) = report.conversations
        assert [n for n in outcome.notes if "lone surrogates" in n] == [
            "lone surrogates (text cut inside an emoji) replaced with U+FFFD in 29 place(s)"]
        conv = outcome.conversation_id
        path = store.path(conv, store.conversation(conv).tip_id)
        assert path[-1].text.startswith("cut \ufffd 29 x")


def test_S1_a_sync_fills_a_huge_session_ahead_and_stores_what_a_fill_here_stores(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
        ahead: list[fill_ahead.FillAhead]) -> None:
    from explorer.app.importing.agent_homes import Environment
    from explorer.app.importing.sync import sync_sources

    source = cc.sessions()[-1]
    home = tmp_path / "home"
    (home / ".claude" / "projects" / "-work").mkdir(parents=True)
    (home / ".claude" / "projects" / "-work" / source.name).write_bytes(source.read_bytes())
    with monkeypatch.context() as m:
        m.setenv(read_pool.WORKERS_ENV, "0")
        with Store(tmp_path / "here.db") as store:
            assert not sync_sources(store, Environment(home, {}), {"claude-code"}).errors
    assert ahead == []
    with Store(tmp_path / "ahead.db") as store:
        report = sync_sources(store, Environment(home, {}), {"claude-code"})
        assert not report.errors and report.added_messages > 7
    assert ahead and all(f.readers == [] for f in ahead)
    assert _rows(tmp_path / "ahead.db") == _rows(tmp_path / "here.db")


def _filled_rows(filler: fill_ahead.FillAhead, chunks: list[list[Any]]) -> dict[Any, Any]:
    rows = {}
    for chunk in chunks:
        filler.fill_rows(chunk)
        rows.update({m.id: filler.rows(m) for m in chunk})
        filler.release(chunk)
    return rows


def test_V2_a_write_tried_again_plans_afresh(
        tmp_path: Path, ahead: list[fill_ahead.FillAhead]) -> None:
    """A batch the store refused is written again conversation by conversation: the second
    write's chunks must not be answered with what the first one's processes sent."""
    def planned() -> tuple[fill_ahead.FillAhead, list[list[Any]]]:
        conv = next(iter(reader.read(cc.original())))
        chunks = [conv.messages[i:i + 7] for i in range(0, len(conv.messages), 7)]
        return fill_ahead.FillAhead(conv.content, 2), chunks

    clean, chunks = planned()
    try:
        clean.plan(chunks)
        expected = _filled_rows(clean, chunks)
    finally:
        clean.close()
    filler, chunks = planned()
    try:
        filler.plan(chunks)
        _filled_rows(filler, chunks[:1])  # the first write fails after its first chunk
        time.sleep(0.5)  # meanwhile its processes answered the chunks after it
        filler.plan(chunks[1:])  # tried again from the second chunk on
        again = _filled_rows(filler, chunks[1:4])
    finally:
        filler.close()
    assert len(chunks) > 4 and again == {k: expected[k] for k in again}


def test_V2_the_reading_processes_start_during_the_light_read_and_none_is_left(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
        ahead: list[fill_ahead.FillAhead]) -> None:
    """Started (warm) when a file to be read light begins, taken by its fill; the ones no
    fill took end with the import."""
    from explorer.app.importing import readers

    spawned: list[Any] = []
    real = readers._spawn

    def spawn() -> Any:
        r = real()
        spawned.append(r)
        return r
    monkeypatch.setattr(readers, "_spawn", spawn)
    started_before_fill: list[int] = []
    real_plan = fill_ahead.FillAhead.plan

    def plan(self: fill_ahead.FillAhead, chunks: object) -> None:
        started_before_fill.append(len(spawned))
        real_plan(self, chunks)  # type: ignore[arg-type]
    monkeypatch.setattr(fill_ahead.FillAhead, "plan", plan)
    with Store(tmp_path / "warm.db") as store:
        report = import_paths(store, [FIXTURES / "mid_turn.jsonl", cc.original()])
        assert not report.errors and report.added_messages > 7
    assert started_before_fill[0] == 2, "the fill found its two processes started"
    assert all(r.proc.poll() is not None for r in spawned), "none is left running"
    assert readers._warm == []


def test_V2_a_warm_process_is_taken_first_and_the_rest_end_when_cooled() -> None:
    from explorer.app.importing import readers

    readers.warm(2)
    try:
        warm = [r.proc.pid for r in readers._warm]
        assert len(warm) == 2
        taken = readers.start()
        assert taken is not None and taken.proc.pid == warm[0]
        left = readers._warm[0]
    finally:
        readers.cool()
    assert left.proc.poll() is not None and readers._warm == []
    assert taken.proc.poll() is None, "a taken process is its owner's to end"
    readers.Readers.close(_owner(taken))
    assert taken.proc.poll() is not None


def _owner(r: Any) -> Any:
    from explorer.app.importing import readers

    owner = readers.Readers()
    owner.readers = [r]
    return owner


def test_V2_each_answer_is_taken_as_it_comes_and_its_process_asked_again_within_the_window(
        ahead: list[fill_ahead.FillAhead]) -> None:
    """The writer has not asked for any chunk yet: the answers' thread takes each answer as
    it arrives and asks its process for the next, up to the window ahead and no further;
    every chunk then reaches the writer, in order, as a fill here makes it."""
    conv = next(iter(reader.read(cc.original())))
    chunks = [conv.messages[i:i + 7] for i in range(0, len(conv.messages), 7)]
    assert len(chunks) > fill_ahead.WINDOW + 2
    filler = fill_ahead.FillAhead(conv.content, 1)
    try:
        filler.plan(chunks)
        deadline = time.monotonic() + 30
        while len(filler.answers) < fill_ahead.WINDOW and time.monotonic() < deadline:
            time.sleep(0.02)
        time.sleep(0.3)  # time enough to be asked for more, were the window not kept
        with filler.lock:
            assert sorted(filler.answers) == list(range(fill_ahead.WINDOW))
            assert not any(r.waiting for r in filler.readers)
        rows = _filled_rows(filler, chunks)
    finally:
        filler.close()
    assert filler.taking is None and filler.readers == []
    here = next(iter(reader.read(cc.original())))
    for chunk in here.chunks():
        for m in chunk:
            assert rows[m.id] == prepared_rows(m)
