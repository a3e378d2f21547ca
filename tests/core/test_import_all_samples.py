"""The corpus's whole exports folder, and a folder or zip of one agent's sessions, import
through format detection; importing again adds nothing."""

from __future__ import annotations

from pathlib import Path

from helpers import new_store

from explorer.app.importing.run import import_paths
from tests.corpus import claude_code_sessions as cc


def test_the_whole_exports_folder_imports_once(tmp_path: Path, corpus_dir: Path) -> None:
    exports = corpus_dir / "exports"
    with new_store(tmp_path) as s:
        first = import_paths(s, [exports])
        assert first.errors == []
        formats = {c.source_format for c in first.conversations}
        assert formats == {"chatgpt", "claude_ai", "librechat", "openwebui", "sillytavern"}
        assert len(first.conversations) == 11  # 2 + 3 + 1 + 3 + 2
        assert first.skipped_files == [
            f"{exports / 'README.md'}: not a transcript; skipped",
            f"{exports / 'chatgpt' / 'file-K4tR8wQm2ZpXy7-despensa.png'}: not a transcript; "
            "skipped",
        ]
        counts = sorted(c.message_count for c in s.conversations())
        assert counts == [0, 1, 2, 2, 3, 3, 4, 7, 9, 10, 14]  # the empty claude.ai chat too
        assert first.added_messages == sum(counts) == 55
        again = import_paths(s, [exports])
        assert again.added_messages == 0 and len(s.conversations()) == 11


def test_a_folder_of_one_format_goes_to_that_importer_whole(tmp_path: Path) -> None:
    with new_store(tmp_path) as s:
        report = import_paths(s, [cc.PROJECTS])  # a project: a session, its fork, subagents
        assert {c.source_format for c in report.conversations} == {"claude_code"}
        assert len(report.conversations) == 2 and len(s.conversations()) == 1  # joined
        assert report.skipped_files == []


def test_a_zip_of_transcripts_imports_like_the_folder(tmp_path: Path) -> None:
    import zipfile

    archive = tmp_path / "transcripts.zip"
    with zipfile.ZipFile(archive, "w", zipfile.ZIP_DEFLATED) as z:
        for f in sorted(cc.PROJECTS.rglob("*")):
            if f.is_file():
                z.write(f, f.relative_to(cc.PROJECTS.parent))
        z.writestr("../evil.jsonl", "{}")
    with new_store(tmp_path) as s:
        report = import_paths(s, [archive])
        with new_store(tmp_path, "folder.db") as other:
            direct = import_paths(other, [cc.PROJECTS])
        assert report.added_messages == direct.added_messages == 59 + 5
        assert any("evil" in e and "refused" in e for e in report.errors)
        assert import_paths(s, [archive]).added_messages == 0
