"""A big first sync reads in worker processes while one writer stores (S1, P2): the same rows
as reading in-process, a file that fails is named and the others stored, a reader that dies
costs nothing, and a sync killed at any moment leaves whole sessions and no reader behind."""

from __future__ import annotations

import os
import signal
import sqlite3
import subprocess
import sys
import time
import uuid
from pathlib import Path

import pytest
from helpers import new_store
from test_sync_batches import many_sessions

from explorer.app.importing import read_pool, readers, whole_read
from explorer.app.importing.agent_homes import Environment
from explorer.app.importing.read_pool import ReadPool
from explorer.app.importing.sync import POOL_MIN, sync_sources
from explorer.app.importing.units import Unit
from explorer.store import Store

REPO = Path(__file__).resolve().parents[2]
SESSIONS = POOL_MIN + 8


def contents(db: Path) -> list[tuple[object, ...]]:
    """Every message by its session and own id, with its parts: what a sync stored."""
    conn = sqlite3.connect(db)
    try:
        return conn.execute(
            "SELECT c.source_id, m.source_id, m.role, m.preview, "
            "(SELECT group_concat(p.kind || ':' || p.text, '|') FROM parts p "
            " WHERE p.message_id = m.id) FROM messages m JOIN conversations c "
            "ON c.id = m.conversation_id ORDER BY c.source_id, m.source_id").fetchall()
    finally:
        conn.close()


def metadata(db: Path) -> list[tuple[object, ...]]:
    """Every message's source metadata and usage, by its key."""
    conn = sqlite3.connect(db)
    try:
        return conn.execute("SELECT source_id, source_meta, usage, model FROM messages "
                            "ORDER BY source_id").fetchall()
    finally:
        conn.close()


def synced(tmp_path: Path, home: Path, name: str, workers: int,
           monkeypatch: pytest.MonkeyPatch) -> tuple[Path, list[str]]:
    monkeypatch.setenv(read_pool.WORKERS_ENV, str(workers))
    with new_store(tmp_path, name) as store:
        report = sync_sources(store, Environment(home, {}), {"claude-code"})
        assert report.added_messages > 0
        return store.db_path, report.errors


def test_S1_a_pooled_sync_stores_what_an_in_process_one_does(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """The same rows and metadata; the new sessions' light messages are written from the
    rows they were sent, never filled."""
    from explorer.app.importing.made_rows import SentLight

    home = tmp_path / "home"
    many_sessions(home, SESSIONS)
    started: list[int] = []
    real_start = readers.start
    monkeypatch.setattr(readers, "start", lambda: started.append(1) or real_start())
    filled: list[int] = []
    real_fill = SentLight.fill
    monkeypatch.setattr(SentLight, "fill",
                        lambda self, ms: filled.append(len(ms)) or real_fill(self, ms))
    alone, _ = synced(tmp_path, home, "alone.db", 0, monkeypatch)
    assert started == []
    pooled, errors = synced(tmp_path, home, "pooled.db", 2, monkeypatch)
    assert started == [1, 1] and errors == [] and filled == []
    assert contents(pooled) == contents(alone) and metadata(pooled) == metadata(alone)
    assert len({r[0] for r in contents(pooled)}) == SESSIONS


def test_S1_a_file_that_fails_is_named_and_the_others_are_stored(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    home = tmp_path / "home"
    many_sessions(home, SESSIONS)
    folder = home / ".claude" / "projects" / "-work"
    bad = folder / "0badf11e-0000-4000-8000-000000000000.jsonl"
    bad.write_bytes(b"\x00\xff not json at all\n{\"truncated\": \n")
    db, errors = synced(tmp_path, home, "pooled.db", 2, monkeypatch)
    assert len({r[0] for r in contents(db)}) == SESSIONS
    assert any(bad.name in e for e in errors), errors


def test_P2_a_reader_that_dies_leaves_its_units_to_the_others(
        tmp_path: Path, caplog: pytest.LogCaptureFixture) -> None:
    home = tmp_path / "home"
    many_sessions(home, 6)
    files = sorted((home / ".claude" / "projects" / "-work").glob("*.jsonl"))
    jobs = [(u, whole_read.signature(u)) for u in
            (Unit(f, "claude_code", f.stat().st_size, f.stat().st_mtime_ns) for f in files)]
    pool = ReadPool(jobs, 2)
    try:
        pool.readers[0].proc.kill()
        got = [pool.take(u) for u, _ in jobs]
    finally:
        pool.close()
    assert all(g is None or isinstance(g, whole_read.WholeRead) for g in got)
    read = [g for g in got if isinstance(g, whole_read.WholeRead)]
    assert len(read) >= len(jobs) // 2  # the living reader took over what it could
    assert all(g.conversations and g.conversations[0].messages for g in read)
    said = [r for r in caplog.records if r.name == readers.__name__]
    assert [r.levelname for r in said] == ["WARNING"], "the loss is said in the log (E1)"
    assert "ended before answering" in said[0].getMessage()


def test_S1_a_file_that_grows_while_it_is_read_is_read_again(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    home = tmp_path / "home"
    many_sessions(home, 1)
    path = next((home / ".claude" / "projects" / "-work").glob("*.jsonl"))
    lines = path.read_bytes().splitlines(keepends=True)
    path.write_bytes(b"".join(lines[:-4]))
    unit = Unit(path, "claude_code", path.stat().st_size, path.stat().st_mtime_ns)
    sig = whole_read.signature(unit)
    real = whole_read._read_once
    calls: list[int] = []

    def appended_meanwhile(u: Unit, s: whole_read.Signature) -> whole_read.WholeRead:
        got = real(u, s)
        if not calls:  # the agent writes its last lines while the first read runs
            with path.open("ab") as f:
                f.write(b"".join(lines[-4:]))
            os.utime(path, ns=(time.time_ns(), time.time_ns() + 10**9))
        calls.append(1)
        return got

    monkeypatch.setattr(whole_read, "_read_once", appended_meanwhile)
    got = whole_read.read_whole(unit, sig)
    assert len(calls) == 2
    assert got.record.size == path.stat().st_size
    whole = real(unit, whole_read.signature(Unit(path, "claude_code")))
    assert len(got.conversations[0].messages) == len(whole.conversations[0].messages)


def _until_stored(db: Path, count: int, proc: subprocess.Popen[bytes]) -> None:
    """Wait until the sync has committed ``count`` conversations (0: its database exists)."""
    deadline = time.monotonic() + 60
    while proc.poll() is None and time.monotonic() < deadline:
        if db.exists() and count == 0:
            return
        try:
            conn = sqlite3.connect(f"file:{db}?mode=ro", uri=True, timeout=0.05)
            try:
                if conn.execute("SELECT count(*) FROM conversations").fetchone()[0] >= count:
                    return
            finally:
                conn.close()
        except sqlite3.Error:
            pass
        time.sleep(0.01)
    raise AssertionError("the sync ended before it could be killed")


def _has_messages(db: Path) -> bool:
    """Whether the killed sync got as far as its schema (it may have died creating it)."""
    if not db.exists():
        return False
    conn = sqlite3.connect(db)
    try:
        return conn.execute("SELECT 1 FROM sqlite_master WHERE name = 'messages'").fetchone() \
            is not None
    finally:
        conn.close()


def _readers(token: str) -> list[int]:
    """Processes, anywhere, started with ``token`` in their environment (read in /proc,
    or where there is none, in what ``ps e`` prints of each process's environment)."""
    proc = Path("/proc")
    if not (proc / "self" / "environ").exists():
        shown = subprocess.run(["ps", "eww", "-A", "-o", "pid=,command="], text=True,
                               capture_output=True, check=True).stdout
        return [int(line.split()[0]) for line in shown.splitlines() if token in line]
    found = []
    for entry in proc.iterdir():
        if not entry.name.isdigit():
            continue
        try:
            if token.encode() in (entry / "environ").read_bytes():
                found.append(int(entry.name))
        except OSError:
            continue
    return found


@pytest.mark.parametrize("stored", [0, 1, 65])
def test_P2_a_sync_killed_at_any_moment_leaves_whole_sessions_and_no_reader(
        tmp_path: Path, stored: int, monkeypatch: pytest.MonkeyPatch) -> None:
    home = tmp_path / "home"
    many_sessions(home, 150)
    whole_db, _ = synced(tmp_path, home, "whole.db", 0, monkeypatch)
    expected = contents(whole_db)
    db = tmp_path / "killed.db"
    token = f"CONVO_TEST_TOKEN={uuid.uuid4().hex}"
    env = {**os.environ, "HOME": str(home), "PYTHONPATH": str(REPO),
           read_pool.WORKERS_ENV: "2", token.split("=")[0]: token.split("=")[1]}
    proc = subprocess.Popen([sys.executable, "-m", "explorer.cli.main", "--db", str(db),
                             "sync", "--tool", "claude-code"], env=env,
                            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    _until_stored(db, stored, proc)
    proc.send_signal(signal.SIGKILL)
    proc.wait()
    deadline = time.monotonic() + 10
    while _readers(token) and time.monotonic() < deadline:
        time.sleep(0.1)
    assert _readers(token) == []
    if _has_messages(db):  # what was stored is whole sessions, each as a full sync stores it
        partial = contents(db)
        kept = {r[0] for r in partial}
        assert partial == [r for r in expected if r[0] in kept]
    with Store(db) as store:  # the next sync finishes the job
        sync_sources(store, Environment(home, {}), {"claude-code"})
    assert contents(db) == expected


def test_S1_a_pooled_read_merges_grown_responses_as_an_in_process_one(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Sessions imported mid-response, then synced whole (read by the reading processes, as
    the sync has no record of them): their messages arrive light, and the merge gets their
    parts back from the rows to compare and replace them, as a merge read here does."""
    import shutil

    from test_sync import split_response

    from explorer.app.importing.run import import_paths

    home = tmp_path / "home"
    many_sessions(home, SESSIONS)
    files = sorted(home.glob(".claude/projects/*/*.jsonl"))
    whole = {f: f.read_bytes() for f in files}
    for f in files:
        lines = whole[f].splitlines(keepends=True)
        f.write_bytes(b"".join(lines[:split_response(lines)]))
    with new_store(tmp_path, "pooled.db") as store:
        assert not import_paths(store, files).errors
        first = store.db_path
    shutil.copyfile(first, tmp_path / "here.db")
    before = {r[1]: r[4] for r in contents(first)}
    for f in files:
        f.write_bytes(whole[f])
    pooled, errors = synced(tmp_path, home, "pooled.db", 2, monkeypatch)
    here, _ = synced(tmp_path, home, "here.db", 0, monkeypatch)
    assert errors == [] and contents(pooled) == contents(here)
    assert metadata(pooled) == metadata(here)  # the grown lines' metadata merged too
    grown = [r for r in contents(pooled) if r[1] in before and r[4] != before[r[1]]]
    assert len(grown) >= SESSIONS  # a response in each session got its later parts
    conn = sqlite3.connect(pooled)
    try:  # the replaced parts left the full-text index, the new ones are in it
        conn.execute("INSERT INTO parts_fts(parts_fts, rank) VALUES ('integrity-check', 1)")
    finally:
        conn.close()



_SMALL_PIPES_SYNC = """
import sys
from pathlib import Path
from explorer.app.importing import readers
from explorer.app.importing.agent_homes import Environment
from explorer.app.importing.sync import sync_sources
from explorer.store import Store
readers.POLLED = True  # as on Windows, whose select takes no pipes
with Store(sys.argv[1]) as store:
    report = sync_sources(store, Environment(Path(sys.argv[2]), {}), {"claude-code"})
print(report.added_messages, len(report.errors))
"""


def test_S1_a_pooled_sync_through_4_KiB_pipes_looked_at_in_turns_stores_the_same(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Windows gives a pipe 4 KiB and its ``select`` takes no pipes. A sync that asked each
    process 48 units ahead through such a pipe waited on a full pipe while the process
    waited to send an answer nobody read: it never ended. With the requests sent by a
    thread and the answers looked for in turns, it stores what reading here stores."""
    from explorer.app import child_pipe

    home = tmp_path / "home"
    many_sessions(home, SESSIONS * 3)
    alone, _ = synced(tmp_path, home, "alone.db", 0, monkeypatch)
    env = {**os.environ, "PYTHONPATH": os.pathsep.join([str(REPO), str(REPO / "tests")]),
           child_pipe.PIPE_BYTES_ENV: "4096", read_pool.WORKERS_ENV: "2"}
    db = tmp_path / "small.db"
    done = subprocess.run([sys.executable, "-c", _SMALL_PIPES_SYNC, str(db), str(home)],
                          env=env, capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr[-2000:]
    added, errors = map(int, done.stdout.split())
    assert errors == 0 and added > 0
    assert contents(db) == contents(alone) and metadata(db) == metadata(alone)
