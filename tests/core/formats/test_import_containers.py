"""Zips are sniffed before content, zips inside folders are opened, and the unpack
folders of killed imports are removed when the next import starts."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import tempfile
import time
import zipfile
from collections.abc import Iterator
from pathlib import Path

import pytest

from explorer.app.importing.run import import_paths
from explorer.app.importing.unzip import OWNER, PREFIX, remove_stale_folders
from explorer.formats.registry import detect
from explorer.store import Store


def _session(sid: str, *texts: str) -> str:
    lines, parent = [], None
    for n, text in enumerate(texts):
        uuid = f"{sid}-{n}"
        role = "user" if n % 2 == 0 else "assistant"
        message: dict[str, object] = {"role": role, "content": text}
        if role == "assistant":
            message = {"id": f"msg-{uuid}", "role": role, "model": "claude-x",
                       "content": [{"type": "text", "text": text}]}
        lines.append(json.dumps({"parentUuid": parent, "type": role, "sessionId": sid,
                                 "uuid": uuid, "timestamp": f"2025-04-01T10:00:0{n}.000Z",
                                 "message": message}))
        parent = uuid
    return "\n".join(lines) + "\n"


def _zip(path: Path, members: dict[str, str], method: int) -> Path:
    with zipfile.ZipFile(path, "w", compression=method) as z:
        for name, text in members.items():
            z.writestr(name, text)
    return path


@pytest.fixture
def store(tmp_path: Path) -> Iterator[Store]:
    s = Store(tmp_path / "explorer.db")
    yield s
    s.close()


def _titles(store: Store) -> list[str]:
    return sorted(c.title for c in store.conversations())


def test_uncompressed_zip_is_unpacked_not_read_as_one_claude_code_file(
    tmp_path: Path, store: Store
) -> None:
    archive = _zip(tmp_path / "sessions.zip", {
        "proj/aaaa.jsonl": _session("aaaa", "First session", "ok"),
        "proj/bbbb.jsonl": _session("bbbb", "Second session", "fine"),
    }, zipfile.ZIP_STORED)
    assert detect(archive) is None  # no content sniffer sees the stored members' text
    report = import_paths(store, [archive])
    assert report.errors == []
    assert _titles(store) == ["First session", "Second session"]
    assert all(c.notes == [] for c in report.conversations)
    assert report.added_messages == 4


def test_zip_inside_a_folder_is_unpacked_and_imported(tmp_path: Path, store: Store) -> None:
    folder = tmp_path / "backup"
    (folder / "old").mkdir(parents=True)
    (folder / "today.jsonl").write_text(_session("cccc", "Loose session", "yes"),
                                        encoding="utf-8")
    _zip(folder / "old" / "archive.zip", {"x/dddd.jsonl": _session("dddd", "Zipped", "yes")},
         zipfile.ZIP_DEFLATED)
    _zip(folder / "stored.zip", {"eeee.jsonl": _session("eeee", "Stored zip", "yes")},
         zipfile.ZIP_STORED)
    report = import_paths(store, [folder])
    assert report.errors == [] and report.skipped_files == []
    assert _titles(store) == ["Loose session", "Stored zip", "Zipped"]


def test_a_zip_inside_a_zip_inside_a_folder_is_opened_too(tmp_path: Path, store: Store) -> None:
    inner = _zip(tmp_path / "inner.zip", {"ffff.jsonl": _session("ffff", "Deep", "yes")},
                 zipfile.ZIP_DEFLATED)
    folder = tmp_path / "in"
    folder.mkdir()
    with zipfile.ZipFile(folder / "outer.zip", "w") as z:
        z.writestr("inner.zip", inner.read_bytes())
    report = import_paths(store, [folder])
    assert report.errors == []
    assert _titles(store) == ["Deep"]


def _dead_pid() -> int:
    done = subprocess.run([sys.executable, "-c", "import os; print(os.getpid())"],
                          capture_output=True, text=True, check=True)
    return int(done.stdout)


def test_unpack_folders_of_killed_imports_are_removed_on_start(
    tmp_path: Path, store: Store, monkeypatch: pytest.MonkeyPatch
) -> None:
    tmp = tmp_path / "tmp"
    tmp.mkdir()
    killed = tmp / f"{PREFIX}killed"
    (killed / "0-export").mkdir(parents=True)
    (killed / OWNER).write_text(str(_dead_pid()))
    alive = tmp / f"{PREFIX}alive"
    alive.mkdir()
    sleeper = subprocess.Popen([sys.executable, "-c", "import time; time.sleep(60)"])
    try:
        (alive / OWNER).write_text(str(sleeper.pid))
        old = tmp / f"{PREFIX}old"
        old.mkdir()
        past = time.time() - 7200
        os.utime(old, (past, past))
        fresh = tmp / f"{PREFIX}fresh"
        fresh.mkdir()
        other = tmp / "someone-else"
        other.mkdir()
        monkeypatch.setattr(tempfile, "tempdir", str(tmp))
        session = tmp_path / "s.jsonl"
        session.write_text(_session("gggg", "After a crash", "ok"), encoding="utf-8")
        import_paths(store, [session])
        left = sorted(p.name for p in tmp.iterdir())
        assert left == [f"{PREFIX}alive", f"{PREFIX}fresh", "someone-else"]
    finally:
        sleeper.kill()
        sleeper.wait()
    assert remove_stale_folders(tmp) == [alive]
