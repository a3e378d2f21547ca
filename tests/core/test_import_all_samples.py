"""Every real sample imports through format detection; importing again adds nothing."""

from __future__ import annotations

from pathlib import Path

from helpers import new_store

from explorer.app.importing.run import import_paths


def test_the_whole_samples_folder_imports_once(tmp_path: Path, samples_dir: Path) -> None:
    with new_store(tmp_path) as s:
        first = import_paths(s, [samples_dir])
        assert first.errors == []
        formats = {c.source_format for c in first.conversations}
        assert formats == {"chatgpt", "claude_code", "codex", "gemini_cli", "librechat",
                           "opencode", "openwebui", "pi", "sillytavern"}
        assert len(first.conversations) == 24
        assert first.skipped_files == [
            f"{samples_dir / 'README.md'}: not a transcript; skipped",
            f"{samples_dir / 'gemini_cli' / 'logs.json'}: not a transcript; skipped",
        ]
        total = sum(c.message_count for c in s.conversations())
        assert total == first.added_messages
        again = import_paths(s, [samples_dir])
        assert again.added_messages == 0 and len(s.conversations()) == 24


def test_a_folder_of_one_format_goes_to_that_importer_whole(
    tmp_path: Path, samples_dir: Path
) -> None:
    with new_store(tmp_path) as s:
        report = import_paths(s, [samples_dir / "claude_code"])
        assert {c.source_format for c in report.conversations} == {"claude_code"}
        assert report.skipped_files == []


def test_a_zip_of_transcripts_imports_like_the_folder(tmp_path: Path, samples_dir: Path) -> None:
    import zipfile

    archive = tmp_path / "transcripts.zip"
    with zipfile.ZipFile(archive, "w", zipfile.ZIP_DEFLATED) as z:
        for f in sorted((samples_dir / "claude_code").rglob("*")):
            if f.is_file():
                z.write(f, f.relative_to(samples_dir))
        z.writestr("../evil.jsonl", "{}")
    with new_store(tmp_path) as s:
        report = import_paths(s, [archive])
        with new_store(tmp_path, "folder.db") as other:
            direct = import_paths(other, [samples_dir / "claude_code"])
        assert report.added_messages == direct.added_messages > 0
        assert any("evil" in e and "refused" in e for e in report.errors)
        assert import_paths(s, [archive]).added_messages == 0
