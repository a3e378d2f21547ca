"""No command writes over the open database, its -wal/-shm, or half-writes any file:
each output is written beside its target and renamed into place."""

from __future__ import annotations

import os
import sqlite3
import stat
import threading
from pathlib import Path

import pytest

from explorer.app.sharing import safe_write
from explorer.cli.main import main


def run(capsys: pytest.CaptureFixture[str], *args: str) -> tuple[int, str, str]:
    code = main(list(args))
    out, err = capsys.readouterr()
    return code, out, err


@pytest.fixture
def db(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> Path:
    path = tmp_path / "x.db"
    assert run(capsys, "--db", str(path), "demo")[0] == 0
    return path


def message_count(db: Path) -> int:
    conn = sqlite3.connect(db)
    try:
        assert conn.execute("PRAGMA integrity_check").fetchone()[0] == "ok"
        return int(conn.execute("SELECT count(*) FROM messages").fetchone()[0])
    finally:
        conn.close()


def assert_refused(code: int, err: str) -> None:
    assert code == 1
    lines = err.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("convo: error: refusing to write"), err
    assert "Traceback" not in err


@pytest.mark.parametrize("fmt", ["markdown", "native", "html"])
def test_export_onto_the_database_is_refused_and_loses_nothing(
    db: Path, capsys: pytest.CaptureFixture[str], fmt: str
) -> None:
    before = message_count(db)
    size = db.stat().st_size
    code, _, err = run(capsys, "--db", str(db), "export", "1", "--format", fmt, "-o", str(db))
    assert_refused(code, err)
    assert db.stat().st_size == size and message_count(db) == before > 0


@pytest.mark.parametrize("suffix", ["-wal", "-shm", "-journal"])
def test_export_onto_the_database_companions_is_refused(
    db: Path, capsys: pytest.CaptureFixture[str], suffix: str
) -> None:
    before = message_count(db)
    target = Path(str(db) + suffix)
    state = target.stat().st_size if target.exists() else None
    code, _, err = run(capsys, "--db", str(db), "export", "1", "-o", str(target))
    assert_refused(code, err)
    assert (target.stat().st_size if target.exists() else None) == state
    assert message_count(db) == before


def test_export_onto_the_database_by_relative_path_link_or_hard_link_is_refused(
    db: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch,
    tmp_path: Path,
) -> None:
    before = message_count(db)
    monkeypatch.chdir(tmp_path)
    code, _, err = run(capsys, "--db", "x.db", "export", "1", "-o", "./sub/../x.db")
    assert_refused(code, err)
    link = tmp_path / "link.md"
    link.symlink_to(db)
    code, _, err = run(capsys, "--db", str(db), "export", "1", "-o", str(link))
    assert_refused(code, err)
    hard = tmp_path / "hard.md"
    os.link(db, hard)
    code, _, err = run(capsys, "--db", str(db), "export", "1", "-o", str(hard))
    assert_refused(code, err)
    assert message_count(db) == before


def test_a_failed_export_leaves_the_existing_file_as_it_was(
    db: Path, capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    keep = tmp_path / "notes.md"
    keep.write_text("my notes\n", encoding="utf-8")
    code, _, err = run(capsys, "--db", str(db), "export", "999", "--format", "markdown",
                       "-o", str(keep))
    assert code == 1 and len(err.strip().splitlines()) == 1
    assert keep.read_text(encoding="utf-8") == "my notes\n"
    assert sorted(p.name for p in tmp_path.iterdir()) == ["notes.md", "x.db"], \
        "no temporary file is left behind"


def test_an_export_replaces_the_file_by_renaming_a_finished_copy(
    db: Path, capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    out = tmp_path / "out.md"
    out.write_text("old\n", encoding="utf-8")
    out.chmod(0o640)
    old_inode = out.stat().st_ino
    code, _, _ = run(capsys, "--db", str(db), "export", "1", "--format", "markdown",
                     "-o", str(out))
    assert code == 0
    assert out.stat().st_ino != old_inode, "a new file was renamed into place"
    assert out.stat().st_mode & 0o777 == 0o640
    assert "Nightly orders import" in out.read_text(encoding="utf-8")
    assert not [p for p in tmp_path.iterdir() if p.name.endswith(".part")]


def test_compact_preview_into_the_database_is_refused(
    db: Path, capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    before = message_count(db)
    code, _, err = run(capsys, "--db", str(db), "compact", "1", "--rung", "snapshot",
                       "--preview", str(db))
    assert code == 1 and len(err.strip().splitlines()) == 1 and "Traceback" not in err
    assert message_count(db) == before


def test_screenshot_onto_the_database_is_refused_before_any_window(
    db: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    before = message_count(db)
    code, _, err = run(capsys, "--db", str(db), "--screenshot", str(db) + "-wal")
    assert_refused(code, err)
    assert message_count(db) == before


def test_guard_compares_file_identity_not_only_names(tmp_path: Path) -> None:
    db = tmp_path / "a.db"
    db.write_bytes(b"x")
    other = tmp_path / "b.md"
    safe_write.guard(other, db)  # a different file is fine
    os.link(db, other)
    with pytest.raises(safe_write.WriteRefused):
        safe_write.guard(other, db)


def test_a_named_pipe_is_written_into_not_replaced(
    db: Path, capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    """A device or a pipe (``-o /dev/stdout``, ``-o /dev/null``) is a stream: a plain file
    must never be put in its place."""
    pipe = tmp_path / "pipe"
    os.mkfifo(pipe)
    got: list[bytes] = []
    reader = threading.Thread(target=lambda: got.append(pipe.read_bytes()))
    reader.start()
    code, _, err = run(capsys, "--db", str(db), "export", "1", "--format", "markdown",
                       "-o", str(pipe))
    reader.join(timeout=60)
    assert code == 0, err
    assert stat.S_ISFIFO(pipe.stat().st_mode)
    assert b"Nightly orders import" in got[0]
    assert not [p for p in tmp_path.iterdir() if p.name.endswith(".part")]
