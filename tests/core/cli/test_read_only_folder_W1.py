"""``convo`` on a database in a folder it may not write, for real: the folder is chmod 0555
and the command runs as a process the permissions stop (W1).

Root ignores permissions, so as root the command's process first gives up the two
capabilities that let it (CAP_DAC_OVERRIDE, CAP_DAC_READ_SEARCH): it is then held to the
files' modes like anyone else, and the test runs the same as root and as a person.
"""

from __future__ import annotations

import ctypes
import hashlib
import os
import stat
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

from explorer.app.importing.demo import load_demo
from explorer.store import Store

REPO = Path(__file__).resolve().parents[3]
PR_CAPBSET_DROP = 24
CAP_DAC_OVERRIDE, CAP_DAC_READ_SEARCH = 1, 2


def _held_to_permissions() -> None:
    """In the child before it runs Python: as root, drop what lets root write anywhere."""
    if os.geteuid() != 0:
        return
    libc = ctypes.CDLL(None, use_errno=True)
    for cap in (CAP_DAC_OVERRIDE, CAP_DAC_READ_SEARCH):
        if libc.prctl(PR_CAPBSET_DROP, cap, 0, 0, 0) != 0:
            raise OSError(ctypes.get_errno(), "cannot drop root's permission override")


def convo(db: Path, *args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "explorer.cli.main", "--db", str(db), *args],
                          cwd=REPO, capture_output=True, text=True, timeout=120,
                          preexec_fn=_held_to_permissions)


def _digest(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


def _names(folder: Path) -> list[str]:
    return sorted(p.name for p in folder.iterdir())


@pytest.fixture
def locked(tmp_path: Path) -> Iterator[Path]:
    """The demo in ``archive/explorer.db``, closed cleanly, the folder then made 0555."""
    folder = tmp_path / "archive"
    folder.mkdir()
    db = folder / "explorer.db"
    with Store(db) as store:
        load_demo(store)
    assert _names(folder) == ["explorer.db"]
    folder.chmod(0o555)
    try:
        yield db
    finally:
        folder.chmod(0o755)


def test_W1_reading_commands_work_in_a_read_only_folder_and_leave_no_file_beside_it(
    locked: Path, tmp_path: Path
) -> None:
    before = _digest(locked)
    listed = convo(locked, "list")
    assert listed.returncode == 0, listed.stderr
    assert "Nightly orders import crashes on some CSV files" in listed.stdout
    shown = convo(locked, "show", "1")
    assert shown.returncode == 0 and "UnicodeDecodeError" in shown.stdout
    tree = convo(locked, "tree", "1")
    assert tree.returncode == 0 and "[diagnosed]" in tree.stdout
    found = convo(locked, "search", "UnicodeDecodeError")
    assert found.returncode == 0 and found.stdout.startswith("1:")
    out = tmp_path / "export.json"
    exported = convo(locked, "export", "1", "-o", str(out))
    assert exported.returncode == 0 and out.stat().st_size > 0
    assert _names(locked.parent) == ["explorer.db"]
    assert _digest(locked) == before


def test_W1_a_writing_command_says_the_database_is_read_only_in_one_line_and_exits_1(
    locked: Path, tmp_path: Path
) -> None:
    before = _digest(locked)
    line = (f"convo: error: the database {locked} is read-only (its folder {locked.parent} "
            "is not writable): nothing was changed\n")
    transcript = tmp_path / "more.jsonl"
    transcript.write_text('{"role": "user", "content": "hello"}\n')
    for write in (["checkpoint", "1", "mine"], ["branch", "1", "11"],
                  ["import", str(transcript)]):
        done = convo(locked, *write)
        assert (done.returncode, done.stderr) == (1, line), write
    assert _names(locked.parent) == ["explorer.db"]
    assert _digest(locked) == before


def test_W1_a_read_only_file_is_read_and_left_as_it_was(locked: Path) -> None:
    locked.parent.chmod(0o755)
    locked.chmod(0o444)
    before = _digest(locked)
    assert convo(locked, "list").returncode == 0
    done = convo(locked, "checkpoint", "1", "mine")
    assert done.returncode == 1
    assert done.stderr == (f"convo: error: the database {locked} is read-only (the file is "
                           "not writable): nothing was changed\n")
    assert _digest(locked) == before
    assert stat.S_IMODE(locked.stat().st_mode) == 0o444


def test_W1_a_journal_left_in_a_read_only_folder_is_read_with_it_or_named(
    tmp_path: Path
) -> None:
    """A process that died left its ``-wal`` (writes not yet in the file): with its ``-shm``
    the reads include them; without one (it cannot be made here) the refusal says why."""
    folder = tmp_path / "crashed"
    folder.mkdir()
    db = folder / "explorer.db"
    with Store(db) as store:
        load_demo(store)
    crash = ("import os, sqlite3, sys\n"
             "c = sqlite3.connect(sys.argv[1], isolation_level=None)\n"
             "c.execute(\"UPDATE conversations SET title = 'renamed' WHERE id = 1\")\n"
             "os._exit(0)\n")
    subprocess.run([sys.executable, "-c", crash, str(db)], check=True, timeout=60)
    assert _names(folder) == ["explorer.db", "explorer.db-shm", "explorer.db-wal"]
    folder.chmod(0o555)
    try:
        listed = convo(db, "list")
        assert listed.returncode == 0 and "renamed" in listed.stdout
        folder.chmod(0o755)
        (folder / "explorer.db-shm").unlink()
        folder.chmod(0o555)
        refused = convo(db, "list")
        assert refused.returncode == 1
        assert refused.stderr == (
            f"convo: error: the database {db} cannot be read here: it is read-only (its folder "
            f"{folder} is not writable) and was not closed cleanly (its explorer.db-wal holds "
            "writes not yet in it); open it once where it can be written\n")
        assert _names(folder) == ["explorer.db", "explorer.db-wal"]
    finally:
        folder.chmod(0o755)
