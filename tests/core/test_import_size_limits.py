"""A file over its format's size limit is skipped and named, never read; the others are
imported. The big files are sparse: gigabytes on paper, a few blocks on disk."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path

import pytest

from explorer.app.importing.run import import_paths
from explorer.cli.main import main
from explorer.formats.registry import formats
from explorer.formats.size_limit import ANY_FILE, EXPORTS, GIB, SESSIONS
from explorer.store import Store

PI_SESSION = Path(__file__).parent / "formats" / "pi" / "fixtures" / "entries_and_errors.jsonl"
CHATGPT_EXPORT = Path(__file__).parent / "formats" / "chatgpt" / "fixtures" / "tools.json"
LINE_EVERY = 64 << 20
"""A newline every 64 MiB in the holes: a reader that did read such a file would go line by
line through zeros, never hold gigabytes at once."""


def _session(sid: str, *texts: str) -> str:
    lines, parent = [], None
    for n, text in enumerate(texts):
        uuid = f"{sid}-{n}"
        role = "user" if n % 2 == 0 else "assistant"
        lines.append(json.dumps({"parentUuid": parent, "type": role, "sessionId": sid,
                                 "uuid": uuid, "timestamp": f"2025-04-01T10:00:0{n}.000Z",
                                 "message": {"role": role, "content": text}}))
        parent = uuid
    return "\n".join(lines) + "\n"


def _sparse(path: Path, head: str, size: int) -> Path:
    with path.open("wb") as f:
        f.write(head.encode())
        for at in range(LINE_EVERY, size, LINE_EVERY):
            f.seek(at)
            f.write(b"\n")
        f.truncate(size)
    assert path.stat().st_size == size
    return path


@pytest.fixture
def store(tmp_path: Path) -> Iterator[Store]:
    with Store(tmp_path / "explorer.db") as s:
        yield s


def _sources(store: Store) -> set[str]:
    return {Path(c.source_path or "").name for c in store.conversations()}


def test_a_session_over_the_limit_in_a_folder_is_named_and_the_other_files_imported(
    tmp_path: Path, store: Store
) -> None:
    folder = tmp_path / "mixed"
    folder.mkdir()
    big = _sparse(folder / "big.jsonl", _session("big", "never read", "no"), int(12.3 * GIB))
    (folder / "small.jsonl").write_text(_session("small", "hello", "hi there"))
    (folder / "pi.jsonl").write_bytes(PI_SESSION.read_bytes())
    report = import_paths(store, [folder])
    assert report.skipped_files == [
        f"{big}: 12.3 GB is over the 4 GB limit for Claude Code sessions; skipped"]
    assert _sources(store) == {"small.jsonl", "pi.jsonl"}
    assert report.errors == []


def test_a_session_over_the_limit_in_a_claude_code_folder_read_whole_is_named(
    tmp_path: Path, store: Store
) -> None:
    project = tmp_path / "-home-me-project"
    project.mkdir()
    (project / "small.jsonl").write_text(_session("small", "hello", "hi there"))
    big = _sparse(project / "big.jsonl", _session("big", "never read", "no"), SESSIONS + 1)
    report = import_paths(store, [project])
    assert _sources(store) == {"small.jsonl"}
    assert report.errors == [f"1 files could not be read: {big}: 4,294,967,297 bytes is over "
                             "the 4 GB limit for Claude Code sessions; skipped"]


def test_an_export_named_alone_over_the_limit_is_refused_in_one_line(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    head = CHATGPT_EXPORT.read_text()[:4096]
    big = _sparse(tmp_path / "conversations.json", head, int(3.1 * GIB))
    db = tmp_path / "explorer.db"
    assert main(["--db", str(db), "import", str(big)]) == 1
    assert capsys.readouterr().err == (f"convo: error: nothing imported: {big}: 3.1 GB is over "
                                       "the 2 GB limit for ChatGPT exports; skipped\n")


def test_every_format_declares_its_limit_beside_its_capabilities() -> None:
    table = formats()
    assert all(f.limit is not ANY_FILE and f.limit.holds for f in table.values())
    assert {n for n, f in table.items() if f.limit.max_bytes == SESSIONS} == {
        "claude_code", "codex", "pi", "gemini_cli", "qwen_code", "kimi_cli", "copilot_cli",
        "continue_cli", "aider", "mistral_vibe"}
    assert table["chatgpt"].limit.max_bytes == EXPORTS
    assert min(f.limit.max_bytes for f in table.values()) >= GIB
