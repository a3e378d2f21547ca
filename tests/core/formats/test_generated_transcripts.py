"""The benchmark data generator writes valid input: importing it finds what it says it wrote.

If these counts drift apart, the import benchmarks would be timing an importer
that rejects or misreads its input, so the generator is tested like a fixture.
"""

from __future__ import annotations

from collections import Counter
from pathlib import Path

import pytest
from benchmarks.generate_transcripts import FORMATS, Generated, generate

from explorer.app.importing.run import ImportReport, import_paths
from explorer.store import Store

MB = 1 << 20


def _branch_points(store: Store) -> int:
    total = 0
    for conv in store.conversations():
        kids = Counter(n.parent_id for n in store.skeleton(conv.id) if n.parent_id is not None)
        total += sum(1 for n in kids.values() if n > 1)
    return total


def _part_kinds(store: Store) -> set[str]:
    return {r[0] for r in store.reader.execute("SELECT DISTINCT kind FROM parts")}


def _files_size(made: Generated) -> int:
    if made.path.is_file():
        return made.path.stat().st_size
    return sum(f.stat().st_size for f in made.path.rglob("*") if f.is_file())


def _import(tmp_path: Path, made: Generated) -> tuple[Store, ImportReport]:
    store = Store(tmp_path / "generated.db")
    report = import_paths(store, [made.path])
    assert report.errors == []
    assert report.skipped_files == []
    return store, report


@pytest.mark.parametrize("fmt", FORMATS)
def test_about_one_megabyte_imports_with_the_counts_the_generator_reports(
    tmp_path: Path, fmt: str
) -> None:
    made = generate(fmt, tmp_path / "in", mb=1, seed=3)
    assert made.bytes == _files_size(made)
    assert MB <= made.bytes < 1.5 * MB
    assert made.conversations > 1 and made.branch_points > 0
    store, report = _import(tmp_path, made)
    with store:
        assert len(report.conversations) == made.conversations
        assert report.added_messages == made.messages
        assert sum(c.message_count for c in store.conversations()) == made.messages
        assert _branch_points(store) == made.branch_points
        assert {"text", "thinking", "tool_use", "tool_result"} <= _part_kinds(store)


def test_claude_code_sessions_carry_grouped_lines_parallel_calls_and_records(
    tmp_path: Path,
) -> None:
    made = generate("claude-code", tmp_path / "in", mb=1, seed=5)
    store, report = _import(tmp_path, made)
    with store:
        notes = [n for c in report.conversations for n in c.notes]
        assert any("parallel tool result(s) chained" in n for n in notes)
        ignored: Counter[str] = Counter()
        for c in report.conversations:
            ignored.update(c.ignored_records)
        assert ignored["progress"] > 0
        kept = dict(store.reader.execute(
            "SELECT json_extract(source_meta, '$.meta_record'), count(*) FROM messages "
            "GROUP BY 1").fetchall())
        assert kept["file_snapshot"] > 0  # Claude Code's own records, kept muted
        grouped = store.reader.execute(
            "SELECT count(*) FROM messages WHERE json_extract(source_meta, '$.uuids') IS NOT NULL"
        ).fetchone()[0]
        assert grouped > 0  # responses written as several lines became one message each


@pytest.mark.parametrize("fmt", FORMATS)
def test_an_exact_message_count_ends_with_the_planted_word_at_a_tip(
    tmp_path: Path, fmt: str
) -> None:
    made = generate(fmt, tmp_path / "in", messages=777, seed=11, plant="quokkaplanted")
    assert made.messages == 777
    store, report = _import(tmp_path, made)
    with store:
        assert report.added_messages == 777
        hits = store.search("quokkaplanted")
        assert len(hits) == 1
        assert store.conversation(hits[0].conversation_id).tip_id == hits[0].message_id


@pytest.mark.parametrize("fmt", FORMATS)
def test_the_same_seed_writes_the_same_bytes(tmp_path: Path, fmt: str) -> None:
    first = generate(fmt, tmp_path / "a", mb=0.2, seed=9)
    second = generate(fmt, tmp_path / "b", mb=0.2, seed=9)
    other = generate(fmt, tmp_path / "c", mb=0.2, seed=10)

    def contents(made: Generated) -> list[bytes]:
        files = [made.path] if made.path.is_file() else sorted(made.path.rglob("*.jsonl"))
        return [f.read_bytes() for f in files]

    assert contents(first) == contents(second)
    assert contents(first) != contents(other)


def test_a_size_or_a_count_is_required(tmp_path: Path) -> None:
    with pytest.raises(ValueError, match="size in MB"):
        generate("chatgpt", tmp_path)
    with pytest.raises(ValueError, match="unknown format"):
        generate("llm", tmp_path, mb=1)


@pytest.mark.parametrize("fmt", FORMATS)
@pytest.mark.parametrize("count", [1, 2, 3, 4])
def test_the_smallest_message_counts_are_exact(tmp_path: Path, fmt: str, count: int) -> None:
    made = generate(fmt, tmp_path / "in", messages=count, seed=count)
    assert made.messages == count and made.conversations == 1
    store, report = _import(tmp_path, made)
    with store:
        assert report.added_messages == count


def test_claude_code_sessions_are_the_size_of_real_ones_unless_heavy_is_asked(
    tmp_path: Path,
) -> None:
    """Real sessions (the shared samples) hold 2.1-4.6 KB of file per stored message; the
    default sizes stay in that band, "heavy" writes about twice the text."""
    real = generate("claude-code", tmp_path / "real", messages=1500, seed=4)
    heavy = generate("claude-code", tmp_path / "heavy", messages=1500, seed=4, sizes="heavy")
    assert 1.5 * 1024 < real.bytes / real.messages < 4.6 * 1024
    assert heavy.bytes > 1.5 * real.bytes
    with pytest.raises(ValueError, match="unknown sizes"):
        generate("claude-code", tmp_path / "x", messages=10, sizes="huge")
