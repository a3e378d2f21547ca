"""Files from outside, opened as a person would: a database a newer version upgraded is
refused in one line and left byte for byte as it was, and two processes creating the same
new database at once both succeed."""

from __future__ import annotations

import hashlib
import subprocess
import sys
import threading
from pathlib import Path

from explorer.store.connection import open_connection
from explorer.store.migrations import MIGRATIONS, applied, migrate
from tests.helpers import newer_database

REPO = Path(__file__).resolve().parents[3]


def _digest(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


def _convo(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "explorer.cli.main", *args], cwd=REPO,
                          capture_output=True, text=True, timeout=120)


def test_a_database_a_newer_version_upgraded_is_refused_in_one_line_untouched(
        tmp_path: Path) -> None:
    db = tmp_path / "newer.db"
    newer_database(db)
    before = _digest(db)
    for args in (["list"], ["show", "1"], ["import", str(tmp_path / "none.jsonl")]):
        done = _convo("--db", str(db), *args)
        assert done.returncode == 1, done.stderr
        lines = done.stderr.strip().splitlines()
        assert len(lines) == 1 and "Traceback" not in done.stderr
        assert "by version 2.3.0" in lines[0] and "0099_future" in lines[0]
        assert "0001_tree" not in lines[0]  # only the migrations it does not know
    assert _digest(db) == before


def test_two_processes_opening_a_new_database_at_once_both_succeed(tmp_path: Path) -> None:
    for round_ in range(5):
        db = tmp_path / f"new{round_}.db"
        start = threading.Barrier(2)
        errors: list[BaseException] = []

        def open_it(db: Path = db, start: threading.Barrier = start,
                    errors: list[BaseException] = errors) -> None:
            conn = open_connection(db)  # each its own connection, as two processes have
            try:
                start.wait(5)
                migrate(conn)
            except BaseException as e:  # what failed is the assertion below
                errors.append(e)
            finally:
                conn.close()

        workers = [threading.Thread(target=open_it) for _ in range(2)]
        for w in workers:
            w.start()
        for w in workers:
            w.join(60)
        assert errors == []
        conn = open_connection(db)
        assert applied(conn) == [name for name, _ in MIGRATIONS]
        conn.close()


def test_a_list_and_an_import_started_together_on_a_new_file_both_finish(
        tmp_path: Path) -> None:
    from benchmarks.scale_data import one_session

    session = one_session(tmp_path / "in", 30, seed=4)
    for round_ in range(3):
        db = tmp_path / f"race{round_}.db"
        procs = [subprocess.Popen([sys.executable, "-m", "explorer.cli.main", "--db", str(db),
                                   *args], cwd=REPO, stdout=subprocess.PIPE,
                                  stderr=subprocess.PIPE, text=True)
                 for args in (["import", str(session)], ["sync", "--tool", "pi"])]
        for proc in procs:
            _out, err = proc.communicate(timeout=120)
            assert proc.returncode in (0, 1) and "already exists" not in err, err
            assert "Traceback" not in err, err
        assert procs[0].returncode == 0



def test_another_programs_sqlite_file_is_refused_untouched_by_any_command(
        tmp_path: Path) -> None:
    import shutil
    import sqlite3

    plain = tmp_path / "plain.db"
    conn = sqlite3.connect(plain)
    conn.execute("CREATE TABLE responses (id TEXT, prompt TEXT)")
    conn.commit()
    conn.close()
    llm_db = tmp_path / "logs.db"
    shutil.copyfile(REPO / "tests/core/formats/llm/fixtures/llm036_logs.db", llm_db)
    text = tmp_path / "notes.db"
    text.write_text("not a database at all")
    for path in (plain, llm_db, text):
        before = _digest(path)
        for args in (["list"], ["demo"], ["import", str(tmp_path / "nothing.jsonl")]):
            done = _convo("--db", str(path), *args)
            assert done.returncode == 1 and "Traceback" not in done.stderr, done.stderr
            assert len(done.stderr.strip().splitlines()) == 1
            assert "nothing was changed" in done.stderr
        assert _digest(path) == before
        assert not Path(f"{path}-wal").exists()
    assert "convo import FILE" in _convo("--db", str(llm_db), "list").stderr


def test_an_empty_file_becomes_a_database_only_for_a_command_that_writes(
        tmp_path: Path) -> None:
    empty = tmp_path / "empty.db"
    empty.touch()
    done = _convo("--db", str(empty), "list")
    assert done.returncode == 1 and "is empty, not a database yet" in done.stderr
    assert empty.stat().st_size == 0
    assert _convo("--db", str(empty), "demo").returncode == 0
    assert "Nightly orders import" in _convo("--db", str(empty), "list").stdout
